#!/usr/bin/env bash
# inject delay, in the guest: a delay point at FUNC+OFFSET [MODULE] (or at
# FILE:LINE, found by gdb) stalls
# the command's passes there and nobody else's, the report names the point
# and the cut delays, the point and every setting go back afterwards (also
# on SIGTERM, and a point listed before stays), and bad locations exit 2
# with nothing changed.
set -euo pipefail
. inject/test-lib.bash

DP=$D/delay_point
[[ -w $DP/points ]] || fail "this kernel lacks CONFIG_FAULT_DELAY_POINT"
[[ -z $(cat $DP/points) ]] || fail "delay points are listed already: $(cat $DP/points)"
ko=${MM_PROVOKE_KO:-$PWD/build/modules/${MMFI_FLAVOUR:-default}/mm_provoke/mm_provoke.ko}
[[ -f $ko ]] || fail "$ko not built (tests/run builds it with qemu/build-module)"
cleanup() {
	echo >$DP/points
	echo >$DP/while-in 2>/dev/null || true
	rmmod mm_provoke 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT

# The first instruction of ksys_sync past its entry: the kernel takes a
# point there and refuses one inside the instruction before it.
off=
for o in $(seq 1 16); do
	if printf 'ksys_sync+%d\n' "$o" >$DP/points 2>/dev/null; then
		off=$o
		break
	fi
done
[[ -n $off ]] || fail "no offset of ksys_sync between 1 and 16 was taken"
echo >$DP/points
loc=$(printf 'ksys_sync+%#x' "$off")
before=$(snapshot delay_point)

# The command's three syncs are delayed; a sync of another task meanwhile
# is counted, not matched (--task-only is the default).
expect 0 $I delay "ksys_sync+$off" --us 20000 --times -1 -- sh -c 'sync; sync; sync'
has "^inject: delay_point: calls=3 matched=3 injected=3 \(delays of 20000 us, 3 cut to the busy-wait cap\); sites: ${loc/+/\\+} \(x3\)" "$T/err"
[[ "$(snapshot delay_point)" == "$before" ]] || fail "delay did not restore delay_point"
no_leftovers
echo "ok: three syncs delayed at $loc, cut to the cap, and restored"

# The delay is felt: 3 passes of 8 ms take at least 24 ms of the command.
start=$(date +%s%N)
expect 0 $I delay "$loc" vmlinux --us 8000 --times -1 -- sh -c 'sync; sync; sync'
ms=$((($(date +%s%N) - start) / 1000000))
((ms >= 24)) || fail "three delays of 8 ms took ${ms} ms in all"
has "injected=3 \(delays of 8000 us\)" "$T/err"
echo "ok: three 8 ms delays, ${ms} ms in all"

# outside_sync [OPTION]: inject delay at the point for a command that syncs
# and then waits while this shell, which is not the command's, syncs too.
outside_sync() {
	local pid rc=0
	rm -f "$T/ready" "$T/done"
	$I delay "$loc" --us 5000 --times -1 "$@" -- sh -c \
		"sync; touch $T/ready; while [ ! -e $T/done ]; do sleep 0.05; done" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 300); do
		[[ -e $T/ready ]] && break
		sleep 0.1
	done
	[[ -e $T/ready ]] || fail "the command never got ready: $(cat "$T/err")"
	sync
	touch "$T/done"
	wait $pid || rc=$?
	[[ $rc == 0 ]] || fail "inject delay exited $rc: $(cat "$T/err")"
}
# Another task passes the point undelayed: counted, not matched...
outside_sync
has "calls=2 matched=1 injected=1 " "$T/err"
# ...unless --all-tasks lets any task be delayed.
outside_sync --all-tasks
has "calls=2 matched=2 injected=2 " "$T/err"
echo "ok: the point delays the command's task, and any with --all-tasks"

# A point listed before stays listed, whatever form it was written in.
echo "ksys_sync+$off" >$DP/points
expect 0 $I delay "$loc" --us 100 -- sync
[[ "$(cat $DP/points)" == "$loc" ]] || fail "the point listed before is gone: '$(cat $DP/points)'"
echo >$DP/points
echo "ok: a point listed before stays"

# A list puts a point on each location (what 'inject where' prints).
expect 0 $I delay "ksys_sync,$loc" --us 100 --times -1 -- sync
has "injected=2 \(delays of 100 us\); sites: .*ksys_sync\+0x0( |,|$)" "$T/err"
has "sites: .*${loc/+/\\+}" "$T/err"
[[ -z $(cat $DP/points) ]] || fail "the list's points stayed: $(cat $DP/points)"
echo "ok: a list of two locations, both delayed and removed"

# A module's function, named with its module; the site shows the module.
insmod "$ko"
expect 0 $I delay provoke_read mm_provoke --us 100 -- cat $D/mm_provoke/do
has "calls=2 matched=2 injected=1 \(delays of 100 us\); sites: provoke_read\+0x0( \[mm_provoke\])?$" "$T/err"
[[ -z $(cat $DP/points) ]] || fail "the module's point stayed: $(cat $DP/points)"
echo "ok: a module's function"

# A source line: gdb finds it in the module's debug information (once: the
# second run takes it from inject's cache, here with no gdb on the PATH).
line=$(grep -n 'return simple_read_from_buffer' "${ko%/*}/mm_provoke.c" | cut -d: -f1)
[[ -n $line ]] || fail "no simple_read_from_buffer line in mm_provoke.c"
expect 0 $I delay "mm_provoke.c:$line" mm_provoke --debuginfo "$ko" --us 100 --times -1 -- cat $D/mm_provoke/do
has "^inject: delay: mm_provoke\.c:$line is provoke_read\+0x[0-9a-f]+$" "$T/err"
at=$(sed -n "s/^inject: delay: mm_provoke\.c:$line is //p" "$T/err")
has "injected=2 \(delays of 100 us\); sites: ${at/+/\\+} \(x2\)" "$T/err"
expect 0 env PATH=/nonexistent "$PWD/$I" delay "mm_provoke.c:$line" mm_provoke --debuginfo "$ko" --us 100 -- /bin/true
has "^inject: delay: mm_provoke\.c:$line is ${at/+/\\+}$" "$T/err"
[[ -z $(cat $DP/points) ]] || fail "the line's point stayed: $(cat $DP/points)"
echo "ok: a source line, resolved once"

# A line gcc inlined twice: points on both copies (gdb gives two addresses
# of the line in each), all hit, all removed.
line=$(grep -n 'WRITE_ONCE(\*n, READ_ONCE(\*n) + 1);' "${ko%/*}/mm_provoke.c" | cut -d: -f1)
[[ -n $line ]] || fail "no provoke_note() increment in mm_provoke.c"
expect 0 $I delay "mm_provoke.c:$line" mm_provoke --debuginfo "$ko" --us 100 --times -1 -- \
	sh -c "cat $D/mm_provoke/do >/dev/null; echo nothing >$D/mm_provoke/do || true"
has "^inject: delay: mm_provoke\.c:$line is provoke_read\+0x[0-9a-f]+, .*provoke_write\+0x[0-9a-f]+$" "$T/err"
has "sites: .*provoke_read\+0x.*provoke_write\+0x|sites: .*provoke_write\+0x.*provoke_read\+0x" "$T/err"
[[ -z $(cat $DP/points) ]] || fail "the copies' points stayed: $(cat $DP/points)"
rmmod mm_provoke
echo "ok: a line inlined twice: points on both copies, all removed"

# --while-in: the command's syncs are delayed only while another task is
# asleep in pause() (perl's bare sleep), a window entered after arming.
# pause_sync: pause in the background, sync once it sleeps there, let it
# go, sync again.
pause_sync='perl -e sleep & p=$!
for i in $(seq 300); do [ "$(cut -d" " -f1 /proc/$p/syscall)" = 34 ] && break; sleep 0.05; done
sync; kill $p; wait $p; sync'
expect 0 $I delay "$loc" --us 100 --times -1 --while-in __x64_sys_pause -- sh -c "$pause_sync"
has "calls=2 matched=1 injected=1 \(delays of 100 us\)" "$T/err"
expect 0 $I delay "$loc" --us 100 --times -1 --while-in __x64_sys_pause -- sh -c 'sync; sync'
has "calls=2 matched=0 injected=0 " "$T/err"
# A window set before is put back; MODULE:FN is written as 'FN [MODULE]'.
echo ksys_sync >$DP/while-in
insmod "$ko"
expect 0 $I delay "$loc" --us 100 --while-in mm-provoke:provoke_read -- \
	sh -c "cat $DP/while-in >$T/window"
[[ "$(cat "$T/window")" == "provoke_read [mm_provoke]" ]] || fail "while-in was '$(cat "$T/window")'"
rmmod mm_provoke
[[ "$(cat $DP/while-in)" == ksys_sync ]] || fail "while-in not put back: '$(cat $DP/while-in)'"
echo >$DP/while-in
echo "ok: --while-in delays only while another task is inside the function"

# Bad arguments and locations the kernel refuses: exit 2, nothing changed.
# bad MESSAGE ARGS...: 'inject delay ARGS...' exits 2 saying MESSAGE.
bad() {
	local msg=$1
	shift
	expect 2 $I delay "$@"
	has "$msg" "$T/err"
	[[ "$(snapshot delay_point)" == "$before" ]] || fail "'delay $*' changed delay_point"
	no_leftovers || fail "after 'delay $*'"
}
bad 'no location \(FUNC\[\+OFFSET\]\) given' --us 5 -- true
bad '--us is required' ksys_sync -- true
bad "--us: 0 is out of range" ksys_sync --us 0 -- true
bad "--delay-us: 0 is out of range" ksys_sync --delay-us 0 -- true
bad "--us: 1000001 is out of range" ksys_sync --us 1000001 -- true
bad "not a function name" 'ksys sync' --us 5 -- true
bad "delay: offset 'zz' of 'ksys_sync\+zz' is not a number" ksys_sync+zz --us 5 -- true
bad "'no/mod' is not a module name" ksys_sync no/mod --us 5 -- true
bad "--debuginfo is for a FILE:LINE location" ksys_sync --debuginfo "$ko" --us 5 -- true
bad "--debuginfo /nonexistent.ko: No such file" x.c:1 --debuginfo /nonexistent.ko --us 5 -- true
bad "'x.c:1;ls' is not FILE:LINE" 'x.c:1;ls' --debuginfo "$ko" --us 5 -- true
bad "'ksys_sync,,ksys_sync' has an empty location" ksys_sync,,ksys_sync --us 5 -- true
bad "a list takes FUNC\[\+OFFSET\] locations, not FILE:LINE" x.c:1,ksys_sync --us 5 -- true
# The second of a list refused: the first, added already, is taken back.
bad "kernel refused 'no_such_function_for_delay_points'" "$loc,no_such_function_for_delay_points" --us 5 -- true
# The kernel's reason is passed on from its log.
bad "kernel refused 'ksys_sync\+1' \(EINVAL\): .*instruction" ksys_sync+1 --us 5 -- true
has "^inject: kernel: delay_point: ksys_sync\+0x1: not the start of an instruction" "$T/err"
bad "kernel refused 'no_such_function_for_delay_points'" no_such_function_for_delay_points --us 5 -- true
has "^inject: kernel: delay_point: no_such_function_for_delay_points: no such function" "$T/err"
bad "kernel refused 'trace_module_notify'.*several functions share" trace_module_notify --us 5 -- true
has "^inject: kernel: delay_point: trace_module_notify: not unique" "$T/err"
bad "kernel refused 'ksys_sync no_such_module'" ksys_sync no_such_module --us 5 -- true
bad "--while-in: 'ksys_sync\+4': the window is a whole function" ksys_sync --us 5 --while-in ksys_sync+4 -- true
bad "--while-in: 'a b' is not \[MODULE:\]FUNC" ksys_sync --us 5 --while-in 'a b' -- true
bad "--while-in: 'x/y' is not a module name" ksys_sync --us 5 --while-in x/y:f -- true
bad "kernel refused 'no_such_function_for_delay_points'.*several functions share" \
	"$loc" --us 5 --while-in no_such_function_for_delay_points -- true
has "^inject: kernel: delay_point: no_such_function_for_delay_points: no such function" "$T/err"
expect 2 $I run delay_point -- true
has "needs a location: use 'inject delay" "$T/err"
expect 2 $I sweep delay_point -- true
has "needs a location" "$T/err"
echo "ok: bad arguments exit 2 with nothing changed"

# SIGTERM while the command runs: inject dies of it, the point is gone.
$I delay "$loc" --us 100 -- sleep 30 >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do
	[[ -n $(cat $DP/points) ]] && break
	sleep 0.1
done
[[ -n $(cat $DP/points) ]] || fail "the point never appeared"
kill -TERM $pid
rc=0
wait $pid || rc=$?
[[ $rc == 143 ]] || fail "inject exited $rc after SIGTERM, expected 143"
[[ "$(snapshot delay_point)" == "$before" ]] || fail "SIGTERM left delay_point changed"
no_leftovers
echo "ok: SIGTERM restores"

# list and status show the points.
echo "ksys_sync" >$DP/points
expect 0 $I list delay_point
has '^  points: +ksys_sync\+0x0$' "$T/out"
expect 0 $I status
has '^delay_point ' "$T/out"
expect 0 $I reset delay_point
[[ -z $(cat $DP/points) ]] || fail "reset left points: $(cat $DP/points)"
echo "ok: list, status and reset"
