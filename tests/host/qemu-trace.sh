#!/usr/bin/env bash
# qemu/trace records with trace-cmd in the guest and brings trace.dat back;
# trace-cmd report reads it on the host.
. "$(dirname "$0")/../lib.sh"
expect_status 0 qemu/trace --new --out "$T/t" -e kmem:mm_page_alloc -e kmem:kmalloc \
	-- sh -c 'mkdir /tmp/d1 && dd if=/dev/zero of=/tmp/d1/f bs=64k count=4 2>/dev/null'
expect_grep "^trace.dat: $T/t/trace.dat\$" "$T/out"
trace-cmd report -i "$T/t/trace.dat" >"$T/report" 2>/dev/null || fail "trace-cmd report failed"
expect_grep 'mm_page_alloc: .*order=' "$T/report"
expect_grep 'kmalloc: .*call_site=' "$T/report"
# -o names the file.
expect_status 0 qemu/trace --new -o "$T/named.dat" -e sched:sched_process_exec -- true
[[ -s $T/named.dat ]] || fail "-o file missing"
trace-cmd report -i "$T/named.dat" 2>/dev/null | grep -q 'sched_process_exec' ||
	fail "no sched_process_exec event in $T/named.dat"
echo "ok: sched_process_exec recorded"
no_qemu_left
