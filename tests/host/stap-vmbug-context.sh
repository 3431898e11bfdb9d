#!/usr/bin/env bash
# stap-scripts/vmbug-context.stp in the guest: a WARN and a VM_BUG_ON_PAGE
# from the test module tests/workloads/vmbug-trigger are reported with the
# writing task's last MM events (the module's own page and kmalloc among
# them) and, for the BUG, the page's history; events in softirq context are
# kept apart from the interrupted task's; bad arguments.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
VC=(stap-scripts/vmbug-context.stp)

ko=$(qemu/build-module tests/workloads/vmbug-trigger) || fail "building tests/workloads/vmbug-trigger failed"
D=/sys/kernel/debug/vmbug_trigger
stap_run 0 "${VC[@]}" -- sh -c "insmod $ko && sh -c 'echo 1 >$D/warn'; echo warn-rc=\$?; sh -c 'echo 1 >$D/softirq'; echo softirq-rc=\$?; sh -c 'echo 1 >$D/bug_page'; echo bug-rc=\$?"
expect_grep '^warn-rc=0$' "$T/out"
expect_grep '^softirq-rc=0$' "$T/out"
expect_grep '^bug-rc=139$' "$T/out"	# the BUG killed the writer (SIGSEGV)

# The WARN: where, then the task's events, which end with the module's work.
expect_count 1 '^vmbug: WARNING at vmbug_trigger_warn\+0x[0-9a-f]+/0x[0-9a-f]+\[vmbug_trigger\] \(.*/vmbug_trigger\.c:[0-9]+\) in sh\[[0-9]+\] cpu[0-9]+$'
# report REGEX: the report whose first line matches, up to the next one
report() {
	awk -v re="$1" '/^vmbug: (WARNING|BUG|dump_page|[0-9]+ reports)/ { f = ($0 ~ re) } f' "$T/out"
}
report '^vmbug: WARNING at vmbug_trigger_warn\\+' >"$T/warn"
expect_grep '^vmbug: the last 16 MM events of sh\[[0-9]+\], oldest first:$' "$T/warn"
ptr=$(sed -n 's/^txrec .* comm=sh event=kmem:kmalloc call_site=0x[0-9a-f]* call_site_sym=vmbug_trigger_work+0x[0-9a-f]*\/0x[0-9a-f]*\[vmbug_trigger\] ptr=\(0x[0-9a-f]*\) bytes_req=96 .*/\1/p' "$T/warn")
[[ -n $ptr ]] || { cat "$T/warn"; fail "no kmalloc(96) by vmbug_trigger_work among the task's events"; }
expect_grep "^txrec .* comm=sh event=kmem:kfree call_site=0x[0-9a-f]+ call_site_sym=vmbug_trigger_work\\+.* ptr=$ptr\$" "$T/warn"
pfn=$(sed -n 's/^txrec .* comm=sh event=kmem:mm_page_alloc pfn=\(0x[0-9a-f]*\) order=0 gfp_flags=0xcc0 gfp_flags_sym=GFP_KERNEL$/\1/p' "$T/warn" | tail -n1)
[[ -n $pfn ]] || { cat "$T/warn"; fail "no GFP_KERNEL page allocation among the task's events"; }
expect_grep "^txrec .* comm=sh event=kmem:mm_page_free pfn=$pfn order=0\$" "$T/warn"

# The softirq write: the tasklet's 24 kmalloc/kfree pairs ran in softirq
# context while sh was current; its WARN lists them (the CPU's interrupt
# context list), and sh's WARN afterwards still has sh's own work and none
# of the tasklet's.
report '^vmbug: WARNING at vmbug_trigger_tasklet\\+' >"$T/tasklet"
expect_grep '^vmbug: WARNING at vmbug_trigger_tasklet\+0x[0-9a-f]+/0x[0-9a-f]+\[vmbug_trigger\] .* cpu[0-9]+$' "$T/tasklet"
expect_grep '^vmbug: the last 16 MM events in interrupt context on cpu[0-9]+, oldest first:$' "$T/tasklet"
n=$(grep -cE '^txrec .* event=kmem:kmalloc call_site=0x[0-9a-f]+ call_site_sym=vmbug_trigger_tasklet\+.* bytes_req=32 ' "$T/tasklet" || true)
((n >= 7)) || { cat "$T/tasklet"; fail "$n of the tasklet's kmalloc(32) calls in its report, expected at least 7 of the last 16 events"; }
echo "ok: $n of the tasklet's kmalloc(32) calls among the last 16 interrupt-context events"
report '^vmbug: WARNING at vmbug_trigger_softirq\\+' >"$T/after"
expect_grep '^vmbug: the last 16 MM events of sh\[[0-9]+\], oldest first:$' "$T/after"
expect_grep '^txrec .* comm=sh event=kmem:kmalloc call_site=0x[0-9a-f]+ call_site_sym=vmbug_trigger_work\+.* bytes_req=96 ' "$T/after"
if grep -q 'vmbug_trigger_tasklet' "$T/after"; then
	cat "$T/after"
	fail "the tasklet's events are in sh's list"
fi
echo "ok: none of the tasklet's events in sh's list"

# The VM_BUG_ON_PAGE: dump_page() with the page's history, then the BUG.
bugpfn=$(sed -n 's/^vmbug: dump_page(pfn \(0x[0-9a-f]*\), "VM_BUG_ON_PAGE(page_ref_count(page) > 0)") in sh\[[0-9]*\] cpu[0-9]*$/\1/p' "$T/out")
[[ -n $bugpfn ]] || fail "no dump_page report"
report '^vmbug: dump_page' >"$T/page"
expect_grep "^vmbug: the last [0-9]+ events of pfn $bugpfn, oldest first:\$" "$T/page"
expect_grep "^txrec .* comm=sh event=kmem:mm_page_alloc pfn=$bugpfn order=0 gfp_flags=0xcc0 gfp_flags_sym=GFP_KERNEL\$" "$T/page"
expect_count 1 '^vmbug: BUG at vmbug_trigger_bug_page\+0x[0-9a-f]+/0x[0-9a-f]+\[vmbug_trigger\] in sh\[[0-9]+\] cpu[0-9]+$'
expect_grep '^txrec .* event=stap:bug caller=0x[0-9a-f]+ caller_sym=vmbug_trigger_bug_page\+' "$T/out"
expect_grep '^vmbug: 5 reports$' "$T/out"

# Bad arguments
expect_usage "${VC[@]}" depth=0
expect_grep 'depth=0: not in 1\.\.64' "$T/err"
no_qemu_left
