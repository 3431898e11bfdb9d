#!/usr/bin/env bash
# tracepoint-docs: every stap command of the pages compiles on the host and
# runs in a guest through qemu/stap --new (one run per system: each page has
# one stap command), exits 0 and prints something.  Guests boot like the
# one that captured the examples (two NUMA nodes, a CMA area).
# TPDOC_STAP_SYSTEMS='a b' runs only those systems, one after the other.
# Without it, the first system runs alone (its compile builds stap's
# tracepoint query cache, which two compiles at once would both build),
# then one worker per host CPU (at most 4) takes every Nth of the others:
# a compile keeps both CPUs busy only while gcc runs, a TCG guest one.
. "$(dirname "$0")/../lib.sh"
D=tracepoint-docs
{ make -s -C $D && make -s -C inject; } >/dev/null || fail "cannot build tpdoc, mmload, inject"
bin=build/tracepoint-docs/tpdoc
if [[ -z ${TPDOC_STAP_SYSTEMS:-} ]]; then
	mapfile -t systems < <(sed -n 's/^system //p' $D/knowledge/*.tp)
	((${#systems[@]} > 1)) || fail "no knowledge files"
	TPDOC_STAP_SYSTEMS=${systems[0]} "$0" || exit
	# (each worker's no_qemu_left looks for the QEMUs of its own MMFI_TEST_TAG)
	worker() { TPDOC_STAP_SYSTEMS="$*" "$0"; }
	n=$(guests_at_once $((${#systems[@]} - 1)))
	parts_at_once "$n" worker "${systems[@]:1}"
	for ((k = 1; k <= n; k++)); do
		echo "--- worker $k of $n"
		cat "$T/part$k.log"
		[[ $(cat "$T/part$k.rc") == 0 ]] || fail "worker $k failed"
	done
	echo "ok: the stap commands of all ${#systems[@]} systems ran"
	no_qemu_left
	exit 0
fi
read -ra systems <<<"$TPDOC_STAP_SYSTEMS"
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
