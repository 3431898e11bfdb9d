#!/usr/bin/env bash
# stap-scripts/page-history.stp in the guest: the life of one anonymous page
# (chosen at run time through /proc/systemtap/MODULE/pfn) from its sharing
# by fork() to its free; a task's and an mm's events in both output formats;
# bad arguments.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
PH=(-s 64 stap-scripts/page-history.stp)

# 1. pfn=proc: mmcalls faults in a page, puts it on the LRU list, writes
#    its pfn to the control file, forks (the page is shared), the child
#    writes (copy on write: the child drops it), the parent unmaps it (the
#    last reference: freed).
stap_run 0 "${PH[@]}" pfn=proc -- "$MMCALLS" page '/proc/systemtap/*/pfn'
pfn=$(sed -n 's/^pfn=\(0x[0-9a-f]*\)$/\1/p' "$T/out")
[[ -n $pfn && $pfn != 0x0 ]] || fail "mmcalls printed no pfn"
# The counts below hold for a page on the LRU list; one still in its CPU's
# LRU-add batch has a reference more, and whoever drains the batch frees it.
expect_grep '^lru=1$' "$T/out"
expect_grep "^page-history: following pfn $pfn\$" "$T/out"
grep '^txrec ' "$T/out" >"$T/tx"
expect_count 0 "^txrec " <(grep -vE " (pfn|new_pfn)=$pfn( |\$)" "$T/tx")
# every line is a whole txrec record with the page's counts and a caller
expect_count 0 "." <(grep -vE "^txrec ts=[0-9]+ cpu=[0-9]+ pid=[0-9]+ comm=[^ ]+ event=[a-z_]+:[a-z_]+ .*count=-?[0-9]+ mapcount=-?[0-9]+ flags=0x[0-9a-f]+ flags_sym=[^ ]+ .*caller=0x[0-9a-f]+ caller_sym=[^ ]+\$" "$T/tx")
# fork: a reference and a mapping more, taken while copying the page tables
share=$(grep -nE "comm=mmcalls event=page_ref:page_ref_mod pfn=$pfn val=1 count=2 mapcount=1 .*caller_sym=copy_page_range\\+" "$T/tx" | head -n1 | cut -d: -f1)
# the parent's munmap(): the last reference goes, then the page is freed
last=$(grep -nE "comm=mmcalls event=page_ref:page_ref_mod_and_test pfn=$pfn val=-1 ret=1 count=0 " "$T/tx" | head -n1 | cut -d: -f1)
free=$(grep -nE "comm=mmcalls event=kmem:mm_page_free(_batched)? pfn=$pfn " "$T/tx" | head -n1 | cut -d: -f1)
unmap=$(grep -nE "comm=mmcalls event=stap:page_remove_rmap pfn=$pfn .*caller_sym=(zap_pte_range|zap_pmd_range|unmap_page_range)\\+" "$T/tx" | head -n1 | cut -d: -f1)
if [[ -z $share || -z $last || -z $free || -z $unmap ]] || ! ((share < unmap && unmap < last && last < free)); then
	cat "$T/tx"
	fail "page history of $pfn: fork reference at line '${share}', unmap at '${unmap}', last put at '${last}', free at '${free}'"
fi
echo "ok: $pfn: shared by fork (line $share), unmapped ($unmap), last reference dropped ($last), freed ($free)"
# the child's copy on write drops its reference in wp_page_copy()
expect_grep "comm=mmcalls event=page_ref:page_ref_mod_and_test pfn=$pfn val=-1 ret=0 .*caller_sym=wp_page_copy\\+" "$T/tx"

# 2. a task, readable format: its address space being built and torn down.
stap_run 0 "${PH[@]}" comm=mmcalls format=human -- "$MMCALLS" page
expect_count 0 '^txrec ' "$T/out"
expect_grep '^ +[0-9]+\.[0-9]{6} mmcalls\[[0-9]+\] cpu[0-9]+ exceptions:page_fault_user address=0x[0-9a-f]+ ip=0x[0-9a-f]+ error_code=0x[0-9a-f]+ caller=' "$T/out"
expect_grep ' mmcalls\[[0-9]+\] cpu[0-9]+ kmem:mm_page_alloc pfn=0x[0-9a-f]+ order=0 gfp_flags=GFP_HIGHUSER_MOVABLE[^ ]* .* flags=0x[0-9a-f]+\([^ ]*\) caller=(do_anonymous_page|__handle_mm_fault|handle_mm_fault)\+' "$T/out"
expect_grep ' mmcalls\[[0-9]+\] cpu[0-9]+ mmap:vma_store mt=0x[0-9a-f]+ vma=0x[0-9a-f]+ vm_start=0x[0-9a-f]+ vm_end=0x[0-9a-f]+ caller=[a-z_]' "$T/out"
expect_grep ' mmcalls\[[0-9]+\] cpu[0-9]+ mmap:exit_mmap mm=0x[0-9a-f]+ caller=' "$T/out"
expect_grep '^page-history: [1-9][0-9]* events$' "$T/out"

# 3. an mm, followed across the workload's exec: its exit_mmap() is there.
stap_run 0 "${PH[@]}" mm=workload max=100000 -- "$MMCALLS" page
expect_grep '^page-history: following the mm of process [0-9]+$' "$T/out"
expect_grep '^txrec .* comm=mmcalls event=mmap:exit_mmap mm=0x[0-9a-f]+ ' "$T/out"
expect_grep '^txrec .* comm=mmcalls event=kmem:rss_stat member=[0-9]+ size=[0-9]+ ' "$T/out"

# 4. bad arguments
expect_usage "${PH[@]}"
expect_grep 'nothing to follow' "$T/err"
expect_usage "${PH[@]}" pfn=0x1000 comm=mmcalls
expect_grep 'follow one thing' "$T/err"
expect_usage "${PH[@]}" comm=mmcalls format=xml
expect_grep 'format=xml: expected one of: txrec human both' "$T/err"
no_qemu_left
