#!/usr/bin/env bash
# stap-scripts/fail-at.stp in the guest: for each kind of target, the
# workload sees the error at exactly the call that was aimed at (the Nth
# call from the named caller, by the named task) and nowhere else; the
# task predicates and probability; bad arguments print the usage.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
FA=(-g stap-scripts/fail-at.stp)

# expect_only_failure LINE-REGEX ERRNO: the workload lines of $T/out that
# report a result ("... ok" or "... EXXX") are all ok except exactly one,
# which matches LINE-REGEX and failed with ERRNO.
expect_only_failure() {
	local bad
	bad=$(grep -E '^[a-z]+ [a-z0-9]+ (ok|E[A-Z]+)( |$)' "$T/out" | grep -vE '^[a-z]+ [a-z0-9]+ ok( |$)' || true)
	if [[ $(printf '%s\n' "$bad" | grep -c .) != 1 ]] || ! [[ $bad =~ ^$1\ $2( |$) ]]; then
		echo "--- stdout"; cat "$T/out"
		fail "expected only '$1' to fail, with $2; the failed calls were: ${bad:-none}"
	fi
	echo "ok: only '$1' failed, with $2"
}

# The cases boot guests of their own and run at once, one worker per host
# CPU (sections_at_once, at the end), each group of cases that needs the
# same compiled module in one function.  Bad arguments (case 6) print the
# usage and an error, before anything is armed.

# Case 1, then case 5 and bad settings, which load its module from stap's
# cache.
slab_cases() {
	# 1. slab: the 3rd tmpfs inode allocation of mmcalls fails (in
	#    should_failslab(), before anything is allocated).  tmpfs turns a failed
	#    inode allocation into ENOSPC.
	stap_run 0 "${FA[@]}" slab caller=shmem_alloc_inode comm=mmcalls nth=3 backtrace=1 -- \
		"$MMCALLS" files /dev/shm 5
	expect_only_failure 'create f3' ENOSPC
	expect_count 7 '^(create f[0-9]|mkdir d[0-9]) '
	expect_count 1 '^txrec .* comm=mmcalls event=stap:inject func=should_failslab target=slab .*caller_sym=shmem_alloc_inode\+.* errno=0 errno_sym=NULL nth=3 cache=shmem_inode_cache '
	expect_grep '^    alloc_inode\+0x' "$T/out"
	expect_grep '^fail-at: slab: calls=[0-9]+ matched=7 injected=1 \(caller=shmem_alloc_inode comm=mmcalls\)$' "$T/out"

	# 5. cgroup and probability, with no limit on the count: about half of the
	#    file creations of a task in cgroup "victim" fail, none of another task's.
	# (One line: qemu/stap hands the workload to /bin/sh quoted by bash's printf
	# %q, which dash cannot read when a newline is quoted.)
	in_victim="sh -c 'echo \$\$ >/sys/fs/cgroup/victim/cgroup.procs && exec $MMCALLS files /dev/shm/in 40'"
	stap_run 0 "${FA[@]}" slab caller=shmem_alloc_inode cgroup=victim times=-1 probability=50 -- \
		sh -c "mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && mkdir /sys/fs/cgroup/victim /dev/shm/in /dev/shm/out && $in_victim >/dev/shm/in.txt && $MMCALLS files /dev/shm/out 10 >/dev/shm/out.txt && sed 's/^/in: /' /dev/shm/in.txt && sed 's/^/out: /' /dev/shm/out.txt"
	expect_count 42 '^in: (create|mkdir) '
	expect_count 12 '^out: (create|mkdir) [a-z0-9]+ ok$'
	failed=$(grep -cE '^in: (create|mkdir) [a-z0-9]+ ENOSPC$' "$T/out" || true)
	if ((failed == 0 || failed == 42)); then
		fail "$failed of 42 creations in the cgroup failed with probability=50"
	fi
	echo "ok: $failed of 42 creations in the cgroup failed, none outside"
	expect_grep "^fail-at: slab: calls=[0-9]+ matched=42 injected=$failed \\(caller=shmem_alloc_inode cgroup=victim\\)$" "$T/out"

	# 6. bad settings of a compiled target.
	# (Case 1 compiled the slab module: another setting loads it from
	# stap's cache instead of compiling.)
	expect_usage -v "${FA[@]}" slab nth=0
	expect_grep 'nth=0: not in 1\.\.' "$T/err"
	expect_grep '^Pass 4: using cached .*\.ko$' "$T/err"
	expect_usage "${FA[@]}" slab errno=EIO
	expect_grep "unknown key 'errno'" "$T/err"
}

pages_cases() {
	# 2. pages: the 2nd page allocation of pipe_write() in mmcalls.  Its output
	#    goes to a file, so that its own stdout pipe is not a target.
	stap_run 0 "${FA[@]}" pages caller=pipe_write comm=mmcalls nth=2 -- \
		sh -c "$MMCALLS pipe 4 >/dev/shm/out; cat /dev/shm/out"
	expect_only_failure 'write 2' ENOMEM
	expect_count 4 '^write [0-9] '
	expect_count 1 '^txrec .* event=stap:inject func=should_fail_alloc_page target=pages .*caller_sym=pipe_write\+.* errno=0 errno_sym=NULL nth=2 order=0 '
	expect_grep '^fail-at: pages: calls=[0-9]+ matched=[0-9]+ injected=1 ' "$T/out"

	# 6. no target at all.
	expect_usage "${FA[@]}"
	expect_grep 'no TARGET given' "$T/err"
}

function_cases() {
	# 3. a function, with an errno: do_truncate() from ftruncate(2), not from
	#    truncate(2), which calls it too.
	stap_run 0 "${FA[@]}" do_truncate errno=EPERM caller=do_sys_ftruncate nth=2 -- \
		"$MMCALLS" trunc /dev/shm/t 3
	expect_only_failure 'ftruncate 2' EPERM
	expect_count 3 '^truncate [0-9] ok '
	expect_count 1 '^txrec .* event=stap:inject func=do_truncate target=do_truncate .*caller_sym=do_sys_ftruncate\+.* errno=-1 errno_sym=-EPERM nth=2 original=0$'
	expect_grep '^fail-at: do_truncate: calls=[0-9]+ matched=3 injected=1 \(caller=do_sys_ftruncate any task\)$' "$T/out"

	# 6. no such function, no such caller (the latter from case 3's module).
	expect_usage "${FA[@]}" no_such_function_mmfi
	expect_grep 'no_such_function_mmfi: no such kernel function' "$T/err"
	expect_usage "${FA[@]}" do_truncate caller=no_such_caller_mmfi
	expect_grep 'caller=no_such_caller_mmfi: no such function in kallsyms' "$T/err"
}

d_alloc_case() {
	# 4. a function returning NULL: d_alloc() when mkdir(2) asks for the new
	#    name's dentry, not when open(O_CREAT) does (the leak case: the dentry it
	#    allocated is lost).  Its settings are compiled into the module
	#    (MMFI_STAP_ARGS=compile), as plain stap does; the other cases get
	#    theirs when the module loads.
	MMFI_STAP_ARGS=compile stap_run 0 "${FA[@]}" d_alloc errno=NULL caller=lookup_one_qstr_excl comm=mmcalls -- \
		"$MMCALLS" files /dev/shm 2
	expect_only_failure 'mkdir d1' ENOMEM
	expect_count 1 '^txrec .* comm=mmcalls event=stap:inject func=d_alloc .*caller_sym=lookup_one_qstr_excl\+.* errno=0 errno_sym=NULL nth=1 '
}

# Two workers get about the same time in this order.
sections_at_once slab_cases function_cases pages_cases d_alloc_case
no_qemu_left
