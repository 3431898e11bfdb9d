#!/usr/bin/env bash
# stap-scripts/delay-at.stp in the guest: the calls it matches are slower by
# at least the delay, the others are not.  The workload times each call
# itself, in the guest (CLOCK_MONOTONIC around the system call).  The
# comparisons leave room for a noisy TCG guest: all matched calls must take
# at least 90% of the delay longer than the median unmatched call, while the
# unmatched calls' median stays under a quarter of the delay and at most a
# quarter of them reach half of it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
DA=(-g stap-scripts/delay-at.stp)
US=20000
NS=$((US * 1000))

# durations CALL [N]: the ns of each "CALL I ok NS" line (or only of call N)
durations() { awk -v c="$1" -v n="${2:-}" '$1 == c && $3 == "ok" && (n == "" || $2 == n) { print $4 }' "$T/out"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : -1 }'; }

# check_delay "CALL [N]" FAST...: every CALL (or call number N of CALL) is
# delayed, no FAST call is.  FAST is "CALL", "CALL N", or "CALL -N": every
# CALL but number N.
check_delay() {
	local spec call n min med_fast big total
	read -r call n <<<"$1"
	min=$(durations "$call" "$n" | sort -n | head -n1)
	: >"$T/fast"
	for spec in "${@:2}"; do
		read -r call n <<<"$spec"
		awk -v c="$call" -v n="$n" '$1 == c && $3 == "ok" &&
			(n == "" || (n ~ /^-/ ? $2 != substr(n, 2) : $2 == n)) { print $4 }' "$T/out" >>"$T/fast"
	done
	total=$(wc -l <"$T/fast")
	med_fast=$(median <"$T/fast")
	big=$(awk -v h=$((NS / 2)) '$1 >= h' "$T/fast" | wc -l)
	if [[ -z $min ]] || ((total < 3)); then
		cat "$T/out"; fail "not enough timed calls in the output"
	fi
	if ((min < med_fast + NS * 9 / 10)); then
		cat "$T/out"; fail "the fastest delayed '$1' call took $min ns: not ${US} us more than the others' median $med_fast ns"
	fi
	if ((med_fast >= NS / 4 || big * 4 > total)); then
		cat "$T/out"; fail "the calls that should not be delayed were slow: median $med_fast ns, $big of $total over half the delay"
	fi
	echo "ok: '$1' calls took >= $min ns; the $total others' median is $med_fast ns ($big over half the delay)"
}

# The cases boot guests of their own and run at once, one worker per host
# CPU (sections_at_once, at the end); each ends with bad arguments (case 4),
# rejected with the usage before anything is armed.
entry_case() {
	# 1. at entry, only when called from ftruncate(2): truncate(2) also calls
	#    do_truncate() and must not be delayed.
	stap_run 0 "${DA[@]}" entry do_truncate us=$US caller=do_sys_ftruncate -- "$MMCALLS" trunc /dev/shm/t 8
	check_delay ftruncate truncate
	expect_count 8 '^txrec .* event=stap:delay func=do_truncate ip=0x[0-9a-f]+ ip_sym=do_truncate\+0x[0-9a-f]+/.* caller_sym=do_sys_ftruncate\+.* us=20000 '
	expect_grep '^delay-at: entry do_truncate: hits=[0-9]+ matched=8 delayed=8 us=20000 \(caller=do_sys_ftruncate any task\)$' "$T/out"
	# 4. bad arguments
	expect_usage "${DA[@]}" entry do_truncate
	expect_grep 'us=N is required' "$T/err"
}

return_case() {
	# 2. at return, only the 3rd call of the task: ftruncate #2.
	stap_run 0 "${DA[@]}" return do_truncate us=$US comm=mmcalls nth=3 times=1 -- "$MMCALLS" trunc /dev/shm/t 8
	check_delay "ftruncate 2" "ftruncate -2" truncate
	expect_count 1 '^txrec .* comm=mmcalls event=stap:delay func=do_truncate .* us=20000 spun_ns=[0-9]+ nth=3$'
	expect_grep '^delay-at: return do_truncate: hits=[0-9]+ matched=16 delayed=1 us=20000 \(comm=mmcalls\)$' "$T/out"
	# 4. bad arguments
	expect_usage "${DA[@]}" middle do_truncate us=10
	expect_grep "WHERE is 'middle', not entry, return or line" "$T/err"
}

line_case() {
	# 3. at a source line (the inode_lock() in do_truncate()), from truncate(2) only.
	line=$(awk '/^int do_truncate\(/ { f = 1 } f && /inode_lock\(dentry->d_inode\);/ { print NR; exit }' build/linux/fs/open.c)
	[[ -n $line ]] || fail "no inode_lock() line in do_truncate() in build/linux/fs/open.c"
	stap_run 0 "${DA[@]}" line "do_truncate@fs/open.c:$line" us=$US caller=vfs_truncate -- "$MMCALLS" trunc /dev/shm/t 8
	check_delay truncate ftruncate
	expect_count 8 "^txrec .* event=stap:delay func=do_truncate ip=0x[0-9a-f]+ ip_sym=do_truncate\\+0x[0-9a-f]+/.* caller_sym=vfs_truncate\\+"
	# 4. bad arguments
	expect_usage "${DA[@]}" entry no_such_function_mmfi us=10
	expect_grep 'entry no_such_function_mmfi: no such kernel function' "$T/err"
}

sections_at_once return_case line_case entry_case
no_qemu_left
