#!/usr/bin/env bash
# bench/fi-guest.sh MODULE [STAP_MODULE...]: runs in a guest booted with
# --icount.  Prints "scenario picoseconds-per-pair failures" lines for the
# kmalloc/kfree loop of MODULE under each failslab configuration, restoring
# failslab afterwards.  With STAP_MODULEs, also while each stap module runs
# (scenario stap-NAME).
set -euo pipefail
grep -qw 'mmfi.guest=1' /proc/cmdline || { echo "fi-guest.sh: not in the guest" >&2; exit 2; }
mod=$1
FS=/sys/kernel/debug/failslab
RUN=/sys/kernel/debug/kmalloc_loop/run
insmod "$mod"
trap 'rmmod kmalloc_loop 2>/dev/null || true' EXIT

measure() {	# name: one warm-up round, then the median of 3
	local r a b c
	read -r _ _ <"$RUN"
	read -r a _ <"$RUN"; read -r b _ <"$RUN"; read -r c r <"$RUN"
	echo "$1 $(printf '%s\n' "$a" "$b" "$c" | sort -n | sed -n 2p) $r"
}

measure disarmed
if [[ -f $FS/caller ]]; then
	saved=()
	for f in probability times interval verbose ignore-gfp-wait caller; do
		saved+=("$f=$(cat $FS/$f)")
	done
	restore() {
		echo 0 >$FS/probability
		for kv in "${saved[@]}"; do echo "${kv#*=}" >"$FS/${kv%%=*}"; done
		rmmod kmalloc_loop 2>/dev/null || true
	}
	trap restore EXIT
	echo 0 >$FS/verbose; echo 1 >$FS/interval; echo N >$FS/ignore-gfp-wait
	# Armed, but for another call site: every call is evaluated and
	# rejected by the caller filter.
	echo shmem_alloc_inode >$FS/caller; echo -1 >$FS/times; echo 100 >$FS/probability
	measure armed-other-caller
	# Armed for this very site, but never injecting (times 0): the full
	# cost of evaluating the filters on a matching call.
	echo 0 >$FS/probability; echo kmalloc_loop:kmalloc_loop_run >$FS/caller; echo 0 >$FS/times
	echo 100 >$FS/probability
	measure armed-matching-filters-only
	echo 0 >$FS/probability
fi
for stapmod in "${@:2}"; do
	staprun "$stapmod" >/out/stap-bench.out 2>&1 &
	spid=$!
	name=$(basename "$stapmod" .ko)
	for _ in $(seq 600); do [[ -d /sys/module/$name ]] && break; sleep 0.1; done
	[[ -d /sys/module/$name ]] || { echo "stap module did not load" >&2; cat /out/stap-bench.out >&2; exit 1; }
	sleep 1
	kill -0 "$spid" 2>/dev/null || { echo "staprun exited early:" >&2; cat /out/stap-bench.out >&2; exit 1; }
	measure "stap-$name"
	kill -0 "$spid" 2>/dev/null || { echo "staprun exited during the measurement:" >&2; cat /out/stap-bench.out >&2; exit 1; }
	kill -INT "$spid" 2>/dev/null; wait "$spid" || true
done
