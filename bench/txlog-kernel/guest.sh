#!/usr/bin/env bash
# bench/txlog-kernel/guest.sh FAULT_LOOP KMALLOC_LOOP_KO MODE...: runs in a
# guest booted with --icount.  For each MODE (none: a kernel without the
# log; off, on, nocallers: the log's states) prints
#   MODE fault NS  kmalloc64 PS  kmalloc16k PS
# (page-fault loop: ns per mmap/touch/munmap; kmalloc loops: picoseconds per
# kmalloc/kfree pair; 16 KiB comes from the page allocator), each the median
# of 3 after a warm-up.  Then the log's memory figures from its stats.
set -euo pipefail
grep -qw 'mmfi.guest=1' /proc/cmdline || { echo "guest.sh: not in the guest" >&2; exit 2; }
fault=$1 ko=$2
shift 2
TX=/sys/kernel/debug/vm_txlog
KL=/sys/kernel/debug/kmalloc_loop/run
P=/sys/module/kmalloc_loop/parameters
insmod "$ko"
trap 'rmmod kmalloc_loop 2>/dev/null || true' EXIT

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
