# shellcheck shell=bash
# tests/lib.sh: helpers for host tests.  Each test is a script that
# exits 0 on success; check() failures print what differed and exit 1.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$TOP" || exit 1
# stap reads the patched tapsets that qemu/stap-runtime makes (see there).
export SYSTEMTAP_TAPSET=${MMFI_BUILD:-$TOP/build}/stap-tapset
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() { echo "FAILED: $*" >&2; exit 1; }

# expect_status WANT CMD...: run CMD, fail unless it exits with WANT.
# Its stdout and stderr are left in $T/out and $T/err.
expect_status() {
	local want=$1 rc=0
	shift
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	if [[ $rc != "$want" ]]; then
		echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
		fail "'$*' exited $rc, expected $want"
	fi
	echo "ok: '$*' exited $rc"
}

# expect_grep PATTERN FILE: fail unless FILE has a line matching PATTERN.
expect_grep() {
	grep -qE -- "$1" "$2" || { echo "--- $2"; tail -n 30 "$2"; fail "no line matching '$1' in $2"; }
	echo "ok: '$1' in $(basename "$2")"
}

# expect_count N PATTERN [FILE]: exactly N lines match.
expect_count() {
	local n file=${3:-$T/out}
	n=$(grep -cE -- "$2" "$file" || true)
	if [[ $n != "$1" ]]; then
		echo "--- $file"; tail -n 60 "$file"
		fail "$n lines match '$2' in $(basename "$file"), expected $1"
	fi
	echo "ok: $1 lines match '$2'"
}

# Every QEMU started by this test inherits this tag in its environment, so
# no_qemu_left finds ours and only ours (other guests may be running).
MMFI_TEST_TAG=mmfi-test-$$-$RANDOM
export MMFI_TEST_TAG

# guests_at_once [MAX]: how many guests a test boots at once: one per host
# CPU (a TCG guest keeps one busy), at most 4 and at most MAX;
# MMFI_GUEST_SHARDS=N (tests/run passes its own on) overrides.
guests_at_once() {
	local n=${MMFI_GUEST_SHARDS:-$(nproc)}
	((n <= 4)) || n=4
	((n <= ${1:-$n})) || n=$1
	echo "$n"
}

# parts_at_once N FUNC ITEM...: N calls of FUNC at once, call K (1..N) with
# every Nth ITEM from the Kth, in a subshell (a fail there ends that call
# only); its output in $T/partK.log, its status in $T/partK.rc.
parts_at_once() {
	local n=$1 fn=$2 k i
	shift 2
	local -a items=("$@") mine
	for ((k = 1; k <= n; k++)); do
		mine=()
		for ((i = k - 1; i < ${#items[@]}; i += n)); do mine+=("${items[i]}"); done
		{ ("$fn" "${mine[@]}") >"$T/part$k.log" 2>&1; echo "$?" >"$T/part$k.rc"; } &
	done
	wait
}

# sections_at_once SECTION...: the functions SECTION..., which share nothing
# (each boots guests of its own), in one worker per host CPU at once:
# worker K runs every Nth from the Kth, in the order given (so order them
# for balance), each with $T a directory of its own, $T/SECTION, and its
# output in $T/SECTION.log; a worker stops at its first failure.  Then the
# outputs are printed in the order of the names, and any failure fails.
sections_at_once() {
	local sec bad=''
	parts_at_once "$(guests_at_once "$#")" _in_own_dir "$@"
	for sec in $(printf '%s\n' "$@" | sort); do
		[[ -f $T/$sec.log ]] || continue
		cat "$T/$sec.log"
		grep -q '^FAILED: ' "$T/$sec.log" && bad+=" $sec"
	done
	cat "$T"/part*.log
	[[ -z $bad ]] || fail "failed:$bad (above)"
	! grep -qvx 0 "$T"/part*.rc || fail "a worker failed (above)"
	rm -f "$T"/part*.log "$T"/part*.rc
	echo "ok: $# sections ran"
}
_in_own_dir() {
	local sec t0
	for sec; do
		t0=$SECONDS
		mkdir "$T/$sec" && (T=$T/$sec "$sec") >"$T/$sec.log" 2>&1 || return
		echo "($sec took $((SECONDS - t0)) s)" >>"$T/$sec.log"
	done
}

# guest_of_out OUT [FILE]: wait (up to 2 min) until the guest whose out
# directory is OUT is ready, and FILE (if given) is not empty; print its run
# directory, or fail.
guest_of_out() {
	local dir=''
	for _ in $(seq 240); do
		dir=$(grep -lx -- "$1" build/run/*/outdir 2>/dev/null | head -1) &&
			[[ -f ${dir%/outdir}/ready && ( -z ${2:-} || -s ${2:-} ) ]] &&
			{ echo "${dir%/outdir}"; return 0; }
		sleep 0.5
	done
	fail "no ready guest with the out directory $1"
}

# no_qemu_left: fail if a QEMU started by this test is still running.
no_qemu_left() {
	local pid left=()
	sleep 0.5
	for pid in $(pgrep -f '^qemu-system-x86_64 ' || true); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
			grep -qx "MMFI_TEST_TAG=$MMFI_TEST_TAG" && left+=("$pid")
	done
	if ((${#left[@]})); then
		ps -o pid,args -p "${left[@]}" >&2
		fail "a QEMU process was left behind"
	fi
	echo "ok: no QEMU left"
}
