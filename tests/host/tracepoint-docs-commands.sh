#!/usr/bin/env bash
# tracepoint-docs: every trace-cmd command of the pages runs in the guest and
# records at least one event of its system (in one guest per host CPU,
# booted like the one that captured the examples: two NUMA nodes, a CMA
# area).  The stap commands are run by tracepoint-docs-stap.sh.
. "$(dirname "$0")/../lib.sh"
D=tracepoint-docs
{ make -s -C $D && make -s -C inject; } >/dev/null || fail "cannot build tpdoc, mmload, inject"
mapfile -t systems < <(sed -n 's/^system //p' $D/knowledge/*.tp)
((${#systems[@]} > 0)) || fail "no knowledge files"

# The guest side: run each command in a scratch directory, then read the
# file it wrote (-o) back with trace-cmd report.
# shellcheck disable=SC2016
guest='set -u
export PATH=$1/build/tracepoint-docs:$PATH
shift
cd "$(mktemp -d)" || exit 1
failed=0 ran=0
for sys in "$@"; do
	evs=$(tpdoc list | sed -n "s/^$sys://p" | paste -sd "|")
	while IFS= read -r -d "" cmd; do
		ran=$((ran + 1))
		dat=$(grep -o -- "-o [^ ]*" <<<"$cmd" | head -n 1)
		dat=${dat#-o }
		if [[ -z $dat ]]; then
			echo "FAILED: $sys: no -o FILE in: $cmd"; failed=$((failed + 1)); continue
		fi
		rm -f "$dat"
		if ! bash -c "$cmd" >cmd.log 2>&1; then
			echo "FAILED: $sys: the command exited non-zero: $cmd"; sed "s/^/    /" cmd.log | tail -n 15
			failed=$((failed + 1)); continue
		fi
		n=$(trace-cmd report -i "$dat" 2>/dev/null | grep -cE " ($evs): ")
		if ((n == 0)); then
			echo "FAILED: $sys: no $sys event in $dat: $cmd"; sed "s/^/    /" cmd.log | tail -n 15
			failed=$((failed + 1)); continue
		fi
		echo "ok: $sys: $n events: ${cmd%%$'"'"'\n'"'"'*}"
	done < <(tpdoc commands -0 trace-cmd "$sys")
done
echo "ran $ran commands, $failed failed"
((failed == 0 && ran > 0))'
# Several guests at once (guests_at_once), each with every Nth system.
run_part() {
	qemu/run --append 'numa=fake=2 cma=32M' --timeout 840 --out "$T/guest$1" \
		-- bash -c "$guest" guest "$TOP" "$@"
}
n=$(guests_at_once ${#systems[@]})
parts_at_once "$n" run_part "${systems[@]}"
for ((k = 1; k <= n; k++)); do
	echo "--- guest $k of $n"
	cat "$T/part$k.log"
	rc=$(cat "$T/part$k.rc")
	((rc == 0)) || fail "trace-cmd commands of the pages failed in guest $k (qemu/run exited $rc)"
	expect_grep "^ran [0-9]+ commands, 0 failed$" "$T/part$k.log"
done
cat "$T"/part[0-9]*.log >"$T/log"
for s in "${systems[@]}"; do
	grep -q "^ok: $s: " "$T/log" || fail "no trace-cmd command of $s ran"
done
echo "ok: every system's trace-cmd commands recorded events"
no_qemu_left
