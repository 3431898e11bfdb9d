#!/usr/bin/env bash
# stap-scripts/fault-report.stp in the guest: a fault injected by the
# kernel's failslab is reported once, at the allocation site, with the task
# and the stack; so is a fault injected by fail-at.stp running beside it (a
# second stap module, loaded by the workload); bad arguments.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
FR=(stap-scripts/fault-report.stp)

# 1. the framework: failslab armed for one bash task, one inode allocation.
stap_run 0 "${FR[@]}" -- tests/workloads/failslab-one-file
expect_grep '^victim exited 1; injected=1$' "$T/out"
expect_count 1 '^txrec ts=[0-9]+ cpu=[0-9]+ pid=[0-9]+ comm=bash event=fault_inject:fault_inject name=failslab action=0 action_sym=fail caller=0x[0-9a-f]+ caller_sym=shmem_alloc_inode\+0x[0-9a-f]+/0x[0-9a-f]+ size=[1-9][0-9]* gfp=0x[0-9a-f]+ gfp_sym=GFP_KERNEL$'
expect_grep '^    alloc_inode\+0x[0-9a-f]+/0x[0-9a-f]+$' "$T/out"
expect_grep '^    shmem_mknod\+0x' "$T/out"
# the NULL that the allocator then returns is the same fault, not another
expect_count 0 'event=stap:alloc_fail'
expect_grep '^fault-report: 1 injected by the fault-injection framework, 0 other failed allocations$' "$T/out"

# 2. fail-at.stp in a second stap module, compiled here and loaded in the
#    guest by the workload: the 2nd inode allocation of mmcalls fails; only
#    the NULL it causes tells fault-report about it.
mod=mmfi_fr_failat
runtime=$(qemu/stap-runtime)
(cd build/stap-scripts && stap -p4 -g -R "$runtime" -r "$TOP/build/kbuild" \
	-I "$TOP/stap-scripts/tapset" -m $mod "$TOP/stap-scripts/fail-at.stp" \
	slab caller=shmem_alloc_inode comm=mmcalls nth=2 >/dev/null) ||
	fail "fail-at.stp did not compile"
ko=$TOP/build/stap-scripts/$mod.ko
wait_armed="for i in \$(seq 300); do grep -q '^fail-at: armed' /dev/shm/failat.out 2>/dev/null && break; sleep 0.1; done"
stap_run 0 "${FR[@]}" comm=mmcalls -- sh -c "staprun -o /dev/shm/failat.out $ko & sp=\$!; $wait_armed; $MMCALLS files /dev/shm 3; kill -INT \$sp; wait \$sp; sed 's/^/failat: /' /dev/shm/failat.out"
expect_grep '^failat: fail-at: armed: slab caller=shmem_alloc_inode \(comm=mmcalls\)$' "$T/out"
expect_grep '^create f2 ENOSPC$' "$T/out"
expect_grep '^failat: txrec .* event=stap:inject func=should_failslab .*caller_sym=shmem_alloc_inode\+' "$T/out"
expect_count 1 '^txrec .* comm=mmcalls event=stap:alloc_fail func=kmem_cache_alloc call_site=0x[0-9a-f]+ call_site_sym=shmem_alloc_inode\+0x[0-9a-f]+/0x[0-9a-f]+ cache=shmem_inode_cache bytes_req=[1-9][0-9]* gfp_flags=0x[0-9a-f]+ gfp_flags_sym=GFP_KERNEL$'
expect_grep '^fault-report: 0 injected by the fault-injection framework, 1 other failed allocations$' "$T/out"

# 3. readable format, no backtrace
stap_run 0 "${FR[@]}" format=human backtrace=0 -- tests/workloads/failslab-one-file
expect_count 0 '^txrec |^    '
expect_grep '^fault: failslab fail \(size [0-9]+, GFP_KERNEL\) at shmem_alloc_inode\+0x[0-9a-f]+/0x[0-9a-f]+ in bash\[[0-9]+\] cpu[0-9]+$' "$T/out"

# 4. bad arguments
expect_usage "${FR[@]}" backtrace=99
expect_grep 'backtrace=99: not in 0\.\.32' "$T/err"
expect_usage "${FR[@]}" verbose
expect_grep "'verbose' is not KEY=VALUE" "$T/err"
no_qemu_left
