#!/usr/bin/env bash
# bench/txlog-kernel/guest.sh FAULT_LOOP KMALLOC_LOOP_KO TP_FLOOR_KO MODE...:
# runs in a guest booted with --icount.  For each MODE (none: a kernel
# without the log; off, on, nocallers: the log's states; floor: the log off
# and tp_floor's empty probes on the log's tracepoints; ftrace: the log off
# and the same tracepoints enabled as ftrace events, into its ring buffer)
# prints
#   MODE fault NS  kmalloc64 PS  kmalloc16k PS
# (page-fault loop: ns per mmap/touch/munmap; kmalloc loops: picoseconds per
# kmalloc/kfree pair; 16 KiB comes from the page allocator), each the median
# of 3 after a warm-up.  Then the log's memory figures from its stats.
set -euo pipefail
grep -qw 'mmfi.guest=1' /proc/cmdline || { echo "guest.sh: not in the guest" >&2; exit 2; }
fault=$1 ko=$2 floor_ko=$3
shift 3
TX=/sys/kernel/debug/vm_txlog
KL=/sys/kernel/debug/kmalloc_loop/run
P=/sys/module/kmalloc_loop/parameters
insmod "$ko"
trap 'rmmod kmalloc_loop 2>/dev/null || true' EXIT

# The tracepoints the log attaches to with events=all (txlog_probes[] of
# mm/vm_txlog.c), as SYSTEM/EVENT.
LOG_EVENTS="kmem/mm_page_alloc kmem/mm_page_free
	page_ref/page_ref_set page_ref/page_ref_mod page_ref/page_ref_mod_and_test
	page_ref/page_ref_mod_and_return page_ref/page_ref_mod_unless
	page_ref/page_ref_freeze page_ref/page_ref_unfreeze
	pagemap/mm_lru_insertion pagemap/mm_lru_activate
	migrate/mm_migrate_pages_start migrate/mm_migrate_pages
	migrate/set_migration_pte migrate/remove_migration_pte
	vmscan/mm_vmscan_lru_isolate vmscan/mm_vmscan_write_folio
	mmap/vma_store mmap/vma_mas_szero mmap/exit_mmap fault_inject/fault_inject"
TRACING=/sys/kernel/tracing
ftrace_events() {	# ftrace_events 0|1
	local e
	for e in $LOG_EVENTS; do
		[[ -e $TRACING/events/$e/enable ]] || { echo "guest.sh: no event $e" >&2; exit 1; }
		echo "$1" >"$TRACING/events/$e/enable"
	done
}

median3() { sort -n | sed -n 2p; }
kloop() {	# kloop SIZE ITERS: picoseconds per pair
	local a
	echo "$1" >$P/size
	echo "$2" >$P/iters
	read -r _ _ <$KL
	for _ in 1 2 3; do read -r a _ <$KL; echo "$a"; done | median3
}
measure() {
	local f k s
	"$fault" 500 >/dev/null
	f=$(for _ in 1 2 3; do "$fault" 4000; done | median3)
	k=$(kloop 64 100000)
	s=$(kloop 16384 20000)
	echo "$1 fault $f kmalloc64 $k kmalloc16k $s"
}

for mode in "$@"; do
	case $mode in
	none)	[[ ! -d $TX ]] || { echo "guest.sh: this kernel has the log" >&2; exit 1; }
		measure none ;;
	off)	echo 0 >$TX/enable; measure off ;;
	on)	echo 1 >$TX/callers; echo all >$TX/events; echo 1 >$TX/enable; measure on
		# How the callers of those records were found.
		sed -nE 's/^callers found from a known chain: /callers-chain /p
			s/^callers found from the cache: /callers-cached /p
			s/^callers found by a stack walk: /callers-walked /p
			s/^callers found at the tracepoint: /callers-direct /p' $TX/stats ;;
	floor)	echo 0 >$TX/enable
		names=
		for e in $LOG_EVENTS; do names+=${names:+,}${e#*/}; done
		insmod "$floor_ko" tracepoints="$names"
		measure floor
		rmmod tp_floor ;;
	ftrace)	echo 0 >$TX/enable
		echo 1 >$TRACING/tracing_on
		ftrace_events 1
		measure ftrace
		ftrace_events 0
		echo >$TRACING/trace ;;
	nocallers)
		echo 0 >$TX/callers; echo all >$TX/events; echo 1 >$TX/enable
		measure nocallers; echo 1 >$TX/callers ;;
	*)	echo "guest.sh: unknown mode '$mode'" >&2; exit 2 ;;
	esac
done
if [[ -d $TX ]]; then
	echo 0 >$TX/enable
	sed -nE 's/^memory per cpu: ([0-9]+) KiB$/memory-per-cpu-kib \1/p; s/^caller chains per cpu: ([0-9]+) KiB$/chains-per-cpu-kib \1/p; s/^frame cache: ([0-9]+) KiB$/frame-cache-kib \1/p; s/^generation table: ([0-9]+) KiB$/generation-table-kib \1/p; s/^records per cpu: ([0-9]+)$/records-per-cpu \1/p' $TX/stats
fi
