#!/usr/bin/env bash
# The MM transaction log (CONFIG_DEBUG_VM_TXLOG) and the vm_debug_bug=
# policy, driven by tests/modules/txlog-page: a page, a vma and an mm with a
# known history trip VM_BUG_ON_PAGE, VM_BUG_ON_VMA and VM_BUG_ON_MM under
# vm_debug_bug=warn; each report lists exactly those operations, in order,
# charged to the functions that did them, and the guest goes on.  A report
# on a freed page shows who freed it.  Then the debugfs
# files: filter, log, records, size, events, clear, and bad input to each.
set -euo pipefail
. "$(dirname "$0")/lib.bash"
TX=/sys/kernel/debug/vm_txlog
VB=/sys/kernel/debug/vm_debug_bug
[[ -d $TX && -d $VB ]] ||
	fail "this kernel lacks CONFIG_DEBUG_VM_TXLOG or CONFIG_DEBUG_VM_BUG_POLICY"
ko=${TXLOG_PAGE_KO:-$PWD/build/modules/${MMFI_FLAVOUR:-default}/txlog-page/txlog_page.ko}
[[ -f $ko ]] || fail "$ko not built (tests/run builds it with qemu/build-module)"

# Put every knob back on exit; the trap is set before the first write.
saved_enable=$(cat $TX/enable)
saved_policy=$(sed -E 's/.*\[([a-z_]+)\].*/\1/' $VB/policy)
saved_events=$(grep -oE '\[[a-z_]+\]' $TX/events | tr -d '[]' | tr '\n' ' ')
saved_filter=$(cat $TX/filter)
saved_records=$(cat $TX/records)
saved_size=$(cat $TX/size)
restore() {
	rmmod txlog_page 2>/dev/null || true
	echo "$saved_policy" >$VB/policy
	echo "$saved_events" >$TX/events
	echo "$saved_filter" >$TX/filter
	echo "$saved_records" >$TX/records
	echo 0 >$TX/enable
	echo "$saved_size" >$TX/size
	echo "$saved_enable" >$TX/enable
}
trap restore EXIT

# Every fork and exec of this script moves thousands of page references:
# rings of 65536 records (4 MiB per CPU) keep the scenarios' records until
# they are read back.
echo 0 >$TX/enable
echo 65536 >$TX/size
echo all >$TX/events
echo 1 >$TX/enable
echo warn >$VB/policy
echo 0 >$VB/sites
insmod "$ko"
RUN=/sys/kernel/debug/txlog_page/run

# scenario NAME: run it, print the kernel messages it produced.
scenario() { kmsg_of vm-txlog-test "$1" "$RUN"; }

# section REPORT HEADER: the record lines of the part of REPORT that starts
# at the line matching HEADER, up to the CPU part, as
# "event function field=value..." (time, cpu and task dropped).
section() {
	awk -v h="$2" '
		index($0, h) { on = 1; next }
		on && /vm_txlog: last [0-9]+ records of cpu/ { exit }
		on && /vm_txlog:  \[/ { print }' <<<"$1" |
		sed -E 's/.* comm=[^ ]+( ctx=[a-z]+)? //; s/ caller=([^+ ]+)\+[^ ]*( \[[a-z_]+\])?$/ @\1/'
}

# expect_seq NAME LINES PATTERN...: LINES are exactly the PATTERNs (extended
# regular expressions matching whole lines), in order.
expect_seq() {
	local name=$1 lines=$2 i=0 line
	shift 2
	local -a got
	mapfile -t got <<<"$lines"
	[[ -n $lines ]] || got=()
	if ((${#got[@]} != $#)); then
		printf '    got: %s\n' "${got[@]}"
		fail "$name: ${#got[@]} records, expected $#"
	fi
	for line in "$@"; do
		[[ ${got[$i]} =~ ^$line$ ]] || {
			printf '    got: %s\n' "${got[@]}"
			fail "$name: record $((i + 1)) is '${got[$i]}', expected /$line/"
		}
		i=$((i + 1))
	done
}

# from_last LINES PATTERN: LINES from the last one matching PATTERN on.
from_last() {
	awk -v p="$2" '{ l[NR] = $0 } $0 ~ p { s = NR } END { if (s) for (i = s; i <= NR; i++) print l[i] }' <<<"$1"
}

expect_in() {	# expect_in NAME TEXT PATTERN: TEXT has a line matching PATTERN
	grep -qE -- "$3" <<<"$2" || { printf '%s\n' "$2" | tail -n 30; fail "$1: no line matching /$3/"; }
}

hex() { printf '%#x' "$1"; }

# --- a page: allocate, get, put, map, unmap, VM_BUG_ON_PAGE ----------------
rep=$(scenario page)
pfn=$(sed -nE 's/.*txlog_page: page: pfn (0x[0-9a-f]+)$/\1/p' <<<"$rep")
[[ -n $pfn ]] || fail "page: no pfn announced"
expect_in page "$rep" "vm_debug_bug: VM_BUG_ON_PAGE\(page_ref_count\(page\) == 1\) at .*txlog_page\.c:[0-9]+ \(tp_trip_page\+[^)]*\) hit 1 time, going on \(vm_debug_bug=warn\)"
expect_in page "$rep" "page dumped because: VM_BUG_ON_PAGE\(page_ref_count\(page\) == 1\)"
expect_in page "$rep" "WARNING: CPU: [0-9]+ PID: [0-9]+ at .*txlog_page\.c:[0-9]+ tp_trip_page\+"
expect_in page "$rep" "txlog_page: page: done"
hist=$(section "$rep" "vm_txlog: pfn $pfn: ")
# (the allocator's page_ref_set is part of the mm_page_alloc record, or
# just before it if an interrupt came between the two)
hist=$(from_last "$hist" "^mm_page_alloc pfn=$pfn .*@tp_alloc$")
P="pfn=$pfn gen=[0-9]+"
expect_seq "page history" "$hist" \
	"mm_page_alloc $P order=0 gfp_flags=GFP_KERNEL .* @tp_alloc" \
	"page_ref_mod $P val=\+1 count=2 mapcount=0 .* @tp_get" \
	"page_ref_mod_and_test $P val=-1 ret=0 count=1 mapcount=0 .* @tp_put" \
	"page_ref_mod $P val=\+1 count=2 mapcount=0 .* @(vm_insert_page|insert_page|insert_page_into_pte_locked)(\.[a-z0-9.]+)?" \
	"page_ref_mod_and_test $P val=-1 ret=0 count=1 mapcount=0 .* @(tlb_batch_pages_flush|tlb_flush_mmu|free_pages_and_swap_cache)"
gen=$(sed -nE 's/.* gen=([0-9]+) .*/\1/p' <<<"$hist" | sort -u)
[[ $(wc -l <<<"$gen") == 1 ]] || fail "page history: records of one life with different generations: $gen"
expect_in page "$rep" "vm_txlog: last [0-9]+ records of cpu [0-9]+, oldest first:"
grep -qE "^1 .*txlog_page\.c:[0-9]+ tp_trip_page\+.* VM_BUG_ON_PAGE\(page_ref_count\(page\) == 1\)$" $VB/sites ||
	{ cat $VB/sites; fail "sites: no single hit of tp_trip_page"; }
ok "VM_BUG_ON_PAGE with vm_debug_bug=warn: the guest went on, the report lists the 5 operations on pfn $pfn in order with their callers"

# --- the same page history after free and reuse ---------------------------
rep=$(scenario freed)
fpfn=$(sed -nE 's/.*txlog_page: freed: pfn (0x[0-9a-f]+)$/\1/p' <<<"$rep")
expect_in freed "$rep" "page dumped because: txlog_page: a freed page"
hist=$(section "$rep" "vm_txlog: pfn $fpfn: ")
hist=$(from_last "$hist" "^mm_page_alloc pfn=$fpfn .*@tp_run_freed$")
# The free is one record with the last put (put=-1), or two if an interrupt
# came between them: make the second form look like the first.
hist=$(sed -E '/^page_ref_mod_and_test .* val=-1 ret=1 count=0 .*@tp_run_freed$/ {
	N; s/^[^\n]*\n(mm_page_free .* order=0) @tp_run_freed$/\1 put=-1 @tp_run_freed/
}' <<<"$hist")
expect_seq "freed page" "$hist" \
	"mm_page_alloc pfn=$fpfn gen=[0-9]+ order=0 .* @tp_run_freed" \
	"mm_page_free pfn=$fpfn gen=[0-9]+ order=0 put=-1 @tp_run_freed"
expect_in freed "$rep" "txlog_page: freed: done"
ok "dump_page() of a freed page shows who freed it"

# --- a vma and its mm: map, move the start, VM_BUG_ON_VMA, VM_BUG_ON_MM ----
rep=$(scenario vma)
read -r vma mm start end < <(sed -nE 's/.*txlog_page: vma: vma ([0-9a-f]+) mm ([0-9a-f]+) start (0x[0-9a-f]+) end (0x[0-9a-f]+)$/\1 \2 \3 \4/p' <<<"$rep")
[[ -n ${end:-} ]] || fail "vma: no vma announced"
first=$(hex $((start - 4096)))
expect_in vma "$rep" "vm_debug_bug: VM_BUG_ON_VMA\(vma_pages\(vma\) == 3\) at .*txlog_page\.c:[0-9]+ \(tp_trip_vma\+[^)]*\) hit 1 time, going on \(vm_debug_bug=warn\)"
expect_in vma "$rep" "WARNING: CPU: [0-9]+ PID: [0-9]+ at .*txlog_page\.c:[0-9]+ tp_trip_vma\+"
expect_in vma "$rep" "vm_debug_bug: VM_BUG_ON_MM\(mm->map_count > 0\) at .*txlog_page\.c:[0-9]+ \(tp_trip_mm\+[^)]*\) hit 1 time"
expect_in vma "$rep" "WARNING: CPU: [0-9]+ PID: [0-9]+ at .*txlog_page\.c:[0-9]+ tp_trip_mm\+"
expect_in vma "$rep" "txlog_page: vma: done"
hist=$(section "$rep" "vm_txlog: vma 0x$vma: ")
hist=$(from_last "$hist" "^vma_store mm=0x$mm vma=0x$vma vm_start=$first vm_end=$end @mmap_region")
expect_seq "vma history" "$hist" \
	"vma_store mm=0x$mm vma=0x$vma vm_start=$first vm_end=$end @mmap_region" \
	"vma_store mm=0x$mm vma=0x$vma vm_start=$start vm_end=$end @__vma_adjust"
hist=$(section "$rep" "vm_txlog: mm 0x$mm: ")
hist=$(from_last "$hist" "^vma_store mm=0x$mm vma=0x$vma vm_start=$first vm_end=$end @mmap_region")
expect_seq "mm history" "$hist" \
	"vma_store mm=0x$mm vma=0x$vma vm_start=$first vm_end=$end @mmap_region" \
	"vma_store mm=0x$mm vma=0x$vma vm_start=$start vm_end=$end @__vma_adjust" \
	"vma_store mm=0x$mm vma=0x[0-9a-f]+ vm_start=$first vm_end=$start @__vma_adjust"
ok "VM_BUG_ON_VMA and VM_BUG_ON_MM with vm_debug_bug=warn: the reports list the vma's and the mm's operations in order"

# --- warn_once: one report and one warning per call site, every hit counted
echo warn_once >$VB/policy
echo 0 >$VB/sites
rep=$(scenario page; scenario page)
n=$(grep -cE "WARNING: .* tp_trip_page\+" <<<"$rep" || true)
((n == 1)) || fail "warn_once: $n warnings from tp_trip_page in two hits"
n=$(grep -c "page dumped because: VM_BUG_ON_PAGE(page_ref_count(page) == 1)" <<<"$rep" || true)
((n == 1)) || fail "warn_once: $n reports in two hits"
grep -qE "^2 .* tp_trip_page\+" $VB/sites || { cat $VB/sites; fail "warn_once: sites does not count 2 hits"; }
grep -qx 'bug warn \[warn_once\]' $VB/policy || fail "policy reads '$(cat $VB/policy)'"
! echo panic >$VB/policy 2>/dev/null || fail "policy accepted 'panic'"
grep -qx 'bug warn \[warn_once\]' $VB/policy || fail "a bad policy changed the policy"
echo warn >$VB/policy
ok "vm_debug_bug=warn_once: one report and one warning for two hits, both counted in sites; bad policy rejected"

# --- debugfs: filter and log ------------------------------------------------
# A fresh page: the scenarios above wrote enough records since the first
# freed scenario to have overwritten its page's in a 4096-record ring.
rep=$(scenario freed)
ppfn=$(sed -nE 's/.*txlog_page: freed: pfn (0x[0-9a-f]+)$/\1/p' <<<"$rep")
[[ -n $ppfn ]] || fail "freed: no pfn announced"
echo "pfn=$ppfn" >$TX/filter
[[ $(cat $TX/filter) == "pfn=$ppfn" ]] || fail "filter reads '$(cat $TX/filter)'"
log=$(cat $TX/log)
expect_in log "$log" " mm_page_alloc pfn=$ppfn .*caller=tp_run_freed\+"
others=$(grep -vE " pfn=$ppfn | order=[1-9]" <<<"$log" || true)
[[ -z $others ]] || fail "log with filter pfn=$ppfn shows other pages: $(head -n 3 <<<"$others")"
! echo "pfn=banana" >$TX/filter 2>/dev/null || fail "filter accepted pfn=banana"
! echo "page=1" >$TX/filter 2>/dev/null || fail "filter accepted page=1"
[[ $(cat $TX/filter) == "pfn=$ppfn" ]] || fail "a bad filter changed the filter"
rep=$(scenario vma)	# a fresh mm, for the same reason
read -r vma mm start end < <(sed -nE 's/.*txlog_page: vma: vma ([0-9a-f]+) mm ([0-9a-f]+) start (0x[0-9a-f]+) end (0x[0-9a-f]+)$/\1 \2 \3 \4/p' <<<"$rep")
[[ -n ${end:-} ]] || fail "vma: no vma announced"
echo "mm=0x$mm" >$TX/filter
log=$(cat $TX/log)
expect_in log "$log" " vma_store mm=0x$mm vma=0x$vma vm_start=$start vm_end=$end caller=__vma_adjust\+"
others=$(grep -v " mm=0x$mm " <<<"$log" || true)
[[ -z $others ]] || fail "log with filter mm=0x$mm shows other records: $(head -n 3 <<<"$others")"
echo all >$TX/filter
ok "filter pfn= and mm= select the log's records; bad filters are rejected and change nothing"

# --- records: the report length ---------------------------------------------
echo 2 >$TX/records
rep=$(scenario freed)
fpfn=$(sed -nE 's/.*txlog_page: freed: pfn (0x[0-9a-f]+)$/\1/p' <<<"$rep")
expect_in records "$rep" "vm_txlog: pfn $fpfn: 2 records, oldest first:"
[[ $(section "$rep" "vm_txlog: pfn $fpfn: " | wc -l) == 2 ]] || fail "records=2 printed another number"
! echo 65 >$TX/records 2>/dev/null || fail "records accepted 65"
[[ $(cat $TX/records) == 2 ]] || fail "a bad records value changed records"
echo "$saved_records" >$TX/records
ok "records bounds the report (2 printed), 65 is rejected"

# --- size, events, clear, stats ---------------------------------------------
size=$(cat $TX/size)
! echo 8192 >$TX/size 2>/dev/null || fail "size could be changed while the log is on"
[[ $(cat $TX/size) == "$size" ]] || fail "size changed while on"
! echo "kmem bananas" >$TX/events 2>/dev/null || fail "events accepted 'bananas'"
grep -q '\[page_ref\]' $TX/events || fail "a bad events list changed events: $(cat $TX/events)"
echo kmem >$TX/events
[[ $(cat $TX/events) == "[kmem] page_ref pagemap migrate vmscan mmap fault_inject" ]] ||
	fail "events reads '$(cat $TX/events)'"
echo all >$TX/events
echo 1 >$TX/clear
log=$(cat $TX/log)
! grep -q "caller=tp_run_freed+" <<<"$log" || fail "clear left old records"
echo 0 >$TX/enable
echo 8192 >$TX/size
[[ $(cat $TX/size) == 8192 ]] || fail "size did not change while off"
echo 1 >$TX/enable
grep -qx "memory per cpu: 512 KiB" $TX/stats || { cat $TX/stats; fail "stats: not 512 KiB per CPU for 8192 records"; }
echo 0 >$TX/enable
echo "$size" >$TX/size
grep -qE "^records written: [0-9]+$" $TX/stats || fail "stats has no records written"
ok "size changes only while off (8192 records: 512 KiB per CPU), events and clear work, bad events rejected"
