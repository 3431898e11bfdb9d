#!/usr/bin/env bash
# Delay points (/sys/kernel/debug/delay_point): a point between two
# instructions of a kernel function delays the hits the filters pick, by a
# busy-wait cut to 10 ms, with the fault_inject event naming the point; bad
# writes to points fail with EINVAL and change nothing; the points of a
# module go when it is unloaded; a point in a page fault sees the function
# the fault was taken in, the caller filter walking through the exception.
# $DP and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
DP=/sys/kernel/debug/delay_point
P=$DP/points
[[ -w $P ]] || fail "this kernel lacks CONFIG_FAULT_DELAY_POINT"
ko=${MM_PROVOKE_KO:-$PWD/build/modules/${MMFI_FLAVOUR:-default}/mm_provoke/mm_provoke.ko}
[[ -f $ko ]] || fail "$ko not built (tests/run builds it with qemu/build-module)"
[[ -z $(cat $P) ]] || fail "delay points are listed already: $(cat $P)"
OPT=/proc/sys/debug/kprobes-optimization
opt_saved=$(cat $OPT)
cleanup() {
	echo >$P
	echo "$opt_saved" >$OPT
	rmmod mm_provoke 2>/dev/null || true
	rm -f /tmp/xsync
	fi_restore
}
fi_save $DP
trap cleanup EXIT
fi_arm_base $DP

# refused WRITE: the write fails with EINVAL and the list stays as it is.
refused() {
	local before err
	before=$(cat $P)
	if err=$(printf '%s\n' "$1" 2>&1 >$P); then
		fail "'$1' was accepted"
	fi
	[[ $err == *"Invalid argument"* ]] || fail "'$1': $err, expected EINVAL"
	expect_eq "points after '${1:0:40}'" "$(cat $P)" "$before"
}

# first_point FUNC: add the point at the first offset past FUNC's start that
# kprobes takes and print the offset: the offsets before it lie inside an
# instruction and are refused.
first_point() {
	local o
	for o in $(seq 1 16); do
		if printf '%s+%d\n' "$1" "$o" >$P 2>/dev/null; then
			echo "$o"
			return
		fi
	done
	fail "no offset of $1 between 1 and 16 was taken"
}
off=$(first_point ksys_sync) || exit 1
point=$(printf 'ksys_sync+%#x' "$off")
expect_eq points "$(cat $P)" "$point"
((off > 1)) && refused "ksys_sync+1"

refused "no_such_function_for_delay_points"
refused "ksys_sync+0x100000"
refused "ksys_sync+zz"
refused "ksys_sync vmlinux extra"
refused "ksys_sync no_such_module"
refused "ksys_sync+$off"
refused "!ksys_sync+0x$((off + 100))"
# Two static functions of this name: an offset could only mean one.
refused "trace_module_notify"
refused "$(printf 'x%.0s' $(seq 600))"

# A picked hit busy-waits, at most 10 ms even if delay-us asks for more;
# the event names the point. sync is the comm that is picked; the same
# program under another name is counted, not delayed.
cp /bin/sync /tmp/xsync
echo sync >$DP/comm
echo 200000 >$DP/delay-us
echo -1 >$DP/times
trace_on
echo 100 >$DP/probability
t0=$(date +%s%N)
sync
sync
sync
t1=$(date +%s%N)
/tmp/xsync
echo 0 >$DP/probability
ms=$(((t1 - t0) / 1000000))
# A lower bound only: three 10 ms busy-waits cannot take less than 30 ms.
((ms >= 30)) || fail "three delayed syncs took ${ms} ms, less than 3 x 10 ms"
ok "three delayed syncs took ${ms} ms (>= 30)"
expect_eq calls "$(counter $DP calls)" 4
expect_eq matched "$(counter $DP matched)" 3
expect_eq injected "$(counter $DP injected)" 3
expect_eq clamped "$(cat $DP/clamped)" 3
events=$(trace_events)
expect_eq "delay events at the point" \
	"$(grep -c "name=delay_point action=delay caller=$point/" <<<"$events")" 3

# "!POINT" removes it; the shown form of a module's point is taken back;
# a module's points go with it.
echo "!$point" >$P
expect_eq "points after removal" "$(cat $P)" ""
insmod "$ko"
echo "provoke_read [mm_provoke]" >$P
echo "ksys_sync" >$P
expect_eq points "$(cat $P)" "provoke_read+0x0 [mm_provoke]
ksys_sync+0x0"
refused "provoke_read vmlinux"
echo "!provoke_read+0x0 [mm_provoke]" >$P
echo "provoke_read mm_provoke" >$P
rmmod mm_provoke
expect_eq "points after rmmod" "$(cat $P)" "ksys_sync+0x0"
n=$(grep -c mm_provoke /sys/kernel/debug/kprobes/list || true)
expect_eq "kprobes left in mm_provoke" "$n" 0
echo >$P
expect_eq "points after clearing" "$(cat $P)" ""
n=$(grep -c ksys_sync /sys/kernel/debug/kprobes/list || true)
expect_eq "kprobes left on ksys_sync" "$n" 0

# A point in a page fault sees, through the exception entry, the function
# the fault was taken in: dd's read() of /dev/zero clears its fresh buffer in
# read_zero() and faults on each page of it there.  Both ways a handler runs:
# through a breakpoint (optimization off: it runs as an NMI over the task)
# and through ftrace at the function's entry (it runs in the task).  A caller
# dd does not run in picks nothing.
# dd_faults_delayed POINT CALLER: prints "CALLS INJECTED" for one dd.
dd_faults_delayed() {
	local c0 i0
	echo "$1" >$P
	echo "$2" >$DP/caller
	c0=$(counter $DP calls) i0=$(counter $DP injected)
	echo 100 >$DP/probability
	dd if=/dev/zero of=/dev/null bs=1M count=1 2>/dev/null
	echo 0 >$DP/probability
	echo "$(($(counter $DP calls) - c0)) $(($(counter $DP injected) - i0))"
	echo >$P
}
echo 0 >$OPT
echo dd >$DP/comm
echo 1 >$DP/delay-us
off=$(first_point handle_mm_fault) || exit 1
grep -q 'handle_mm_fault+0x.*\[\(FTRACE\|OPTIMIZED\)\]' /sys/kernel/debug/kprobes/list &&
	fail "handle_mm_fault+$off is not a plain breakpoint: $(grep handle_mm_fault /sys/kernel/debug/kprobes/list)"
echo >$P
echo handle_mm_fault >$P
grep -q 'handle_mm_fault+0x0 .*\[FTRACE\]' /sys/kernel/debug/kprobes/list ||
	fail "handle_mm_fault+0 is not an ftrace probe: $(grep handle_mm_fault /sys/kernel/debug/kprobes/list)"
echo >$P
for point in "handle_mm_fault+$off" handle_mm_fault; do
	read -r calls injected < <(dd_faults_delayed "$point" read_zero)
	# Before the walk went through the exception entry: none.
	((injected >= 1)) ||
		fail "$point, caller read_zero: none of dd's $calls faults delayed"
	ok "$point, caller read_zero: $injected of dd's $calls faults delayed"
	read -r calls injected < <(dd_faults_delayed "$point" pipe_write)
	((calls >= 1)) || fail "$point: no hit in dd"
	expect_eq "$point, caller pipe_write: faults delayed" "$injected" 0
done
