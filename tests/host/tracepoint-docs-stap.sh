#!/usr/bin/env bash
# tracepoint-docs: every stap command of the pages compiles on the host and
# runs in a guest through qemu/stap --new (one run per system: each page has
# one stap command), exits 0 and prints something.  Guests boot like the
# one that captured the examples (two NUMA nodes, a CMA area).
# The systems are split in two halves, so that each test stays within
# tests/run's 15 minutes when nothing is cached: this script runs the first
# (TPDOC_STAP_PART=1/2), tracepoint-docs-stap-2.sh the second.
# TPDOC_STAP_SYSTEMS='a b' runs only those systems.
. "$(dirname "$0")/../lib.sh"
D=tracepoint-docs
{ make -s -C $D && make -s -C inject; } >/dev/null || fail "cannot build tpdoc, mmload, inject"
bin=build/tracepoint-docs/tpdoc
part=${TPDOC_STAP_PART:-1/2}
if [[ -n ${TPDOC_STAP_SYSTEMS:-} ]]; then
	read -ra systems <<<"$TPDOC_STAP_SYSTEMS"
else
	mapfile -t systems < <(sed -n 's/^system //p' $D/knowledge/*.tp |
		awk -v k="${part%/*}" -v n="${part#*/}" '(NR - 1) % n == k - 1')
fi
((${#systems[@]} > 0)) || fail "no system to run (part $part)"
echo "systems: ${systems[*]}"
# qemu/stap boots its guest with GUEST_APPEND on the kernel command line.
export GUEST_APPEND='numa=fake=2 cma=32M'
guest_path=$TOP/build/tracepoint-docs:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# run_stap CMD: the documented "stap ARGS [-c CMD]" as qemu/stap --new ARGS
# [-- CMD], with mmload on the guest's PATH.
run_stap() {
	local -a words args=() workload=()
	# The commands are the project's own pages: eval only splits the words.
	eval "words=($1)"
	[[ ${words[0]} == stap ]] || fail "not a stap command: $1"
	set -- "${words[@]:1}"
	while (($#)); do
		if [[ $1 == -c ]]; then
			workload=(-- env PATH="$guest_path" sh -c "$2")
			shift 2
		else
			args+=("$1")
			shift
		fi
	done
	qemu/stap --new --timeout 600 "${args[@]}" "${workload[@]}"
}

n=0
for sys in "${systems[@]}"; do
	[[ -f $D/knowledge/$sys.tp ]] || fail "no knowledge file for '$sys'"
	mapfile -d '' cmds < <("$bin" commands -0 stap "$sys")
	((${#cmds[@]} > 0)) || fail "$sys: its page has no stap command"
	for cmd in "${cmds[@]}"; do
		rc=0
		run_stap "$cmd" >"$T/out" 2>"$T/err" || rc=$?
		if ((rc != 0)) || [[ ! -s $T/out ]]; then
			echo "--- command"; echo "$cmd"; echo "--- stdout"; cat "$T/out"
			echo "--- stderr"; tail -n 30 "$T/err"
			fail "$sys: the stap command exited $rc$([[ -s $T/out ]] || echo ' and printed nothing')"
		fi
		echo "ok: $sys: $(head -n 1 "$T/out")"
		n=$((n + 1))
	done
done
echo "ok: $n stap commands ran"
no_qemu_left
