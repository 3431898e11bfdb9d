#!/usr/bin/env bash
# bench/fi-guest.sh [--cpus N] MODULE [STAP_MODULE...]: runs in a guest
# booted with --icount.  Prints "scenario picoseconds-per-pair failures"
# lines for the kmalloc/kfree loop of MODULE under each failslab
# configuration, restoring failslab afterwards.  With STAP_MODULEs, also
# while each stap module runs (scenario stap-NAME).  With --cpus N, N loops
# run at once, one pinned to each of CPUs 0..N-1, and the time per pair is
# the median over all their rounds.
set -euo pipefail
grep -qw 'mmfi.guest=1' /proc/cmdline || { echo "fi-guest.sh: not in the guest" >&2; exit 2; }
cpus=1
if [[ ${1:-} == --cpus ]]; then
	[[ ${2:-} =~ ^[1-8]$ ]] || { echo "fi-guest.sh: --cpus needs a number from 1 to 8, not '${2:-}'" >&2; exit 2; }
	cpus=$2
	shift 2
fi
(($(nproc) >= cpus)) || { echo "fi-guest.sh: --cpus $cpus, but the guest has $(nproc) CPUs" >&2; exit 2; }
mod=$1
FS=/sys/kernel/debug/failslab
RUN=/sys/kernel/debug/kmalloc_loop/run
insmod "$mod"
trap 'rmmod kmalloc_loop 2>/dev/null || true' EXIT

rounds() {	# one warm-up round, then 3 rounds: "time failures" lines
	local t r
	read -r _ _ <"$RUN"
	for _ in 1 2 3; do read -r t r <"$RUN"; echo "$t $r"; done
}

measure() {	# name: the median of the rounds of all loops, their failures
	local k out=/tmp/fi-guest-rounds pids=()
	if ((cpus == 1)); then
		rounds >"$out.0"
	else
		for ((k = 0; k < cpus; k++)); do
			taskset -c "$k" bash -c "$(declare -f rounds); RUN=$RUN rounds" >"$out.$k" &
			pids+=($!)
		done
		for k in "${pids[@]}"; do wait "$k"; done
	fi
	sort -n "$out".* | awk -v name="$1" '{ t[NR] = $1; f += $2 }
		END { print name, t[int((NR + 1) / 2)], f }'
	rm -f "$out".*
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
