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
# One guest per host CPU (at most 4), each with every Nth system: a TCG
# guest keeps one host CPU busy.
n=$(nproc)
((n <= 4)) || n=4
((n <= ${#systems[@]})) || n=${#systems[@]}
for ((k = 0; k < n; k++)); do
	mine=()
	for ((i = k; i < ${#systems[@]}; i += n)); do mine+=("${systems[i]}"); done
	{
		qemu/run --append 'numa=fake=2 cma=32M' --timeout 840 --out "$T/guest$k" \
			-- bash -c "$guest" guest "$TOP" "${mine[@]}" >"$T/log$k" 2>&1
		echo "$?" >"$T/rc$k"
	} &
done
wait
for ((k = 0; k < n; k++)); do
	echo "--- guest $((k + 1)) of $n"
	cat "$T/log$k"
	rc=$(cat "$T/rc$k")
	((rc == 0)) || fail "trace-cmd commands of the pages failed in guest $((k + 1)) (qemu/run exited $rc)"
	expect_grep "^ran [0-9]+ commands, 0 failed$" "$T/log$k"
done
cat "$T"/log[0-9]* >"$T/log"
for s in "${systems[@]}"; do
	grep -q "^ok: $s: " "$T/log" || fail "no trace-cmd command of $s ran"
done
echo "ok: every system's trace-cmd commands recorded events"
no_qemu_left
