#!/usr/bin/env bash
# The fault_inject:fault_inject tracepoint works from trace-cmd (recorded in
# the guest, reported on the host) and from a stap kernel.trace() probe.
. "$(dirname "$0")/../lib.sh"
expect_status 0 qemu/trace --new -o "$T/fi.dat" -e fault_inject:fault_inject \
	-- tests/workloads/failslab-one-file
expect_grep 'victim exited 1; injected=1' "$T/out"
trace-cmd report -i "$T/fi.dat" >"$T/report" 2>/dev/null || fail "trace-cmd report failed"
# The task is in the common fields: trace-cmd names it from the cmdlines
# the recording saved.
expect_grep '^ *bash-[0-9]+ .*fault_inject: +name=failslab action=fail caller=shmem_alloc_inode\+0x[0-9a-f]+(/0x[0-9a-f]+)? size=[0-9]+ gfp=GFP_KERNEL$' "$T/report"

expect_status 0 qemu/stap --new -d kernel -e 'probe kernel.trace("fault_inject:fault_inject") {
	printf("stap saw %s in %s at %s\n", kernel_string($attr->dname->d_name->name),
	       execname(), symname($caller))
}' -- tests/workloads/failslab-one-file
expect_grep '^stap saw failslab in bash at shmem_alloc_inode$' "$T/out"
no_qemu_left
