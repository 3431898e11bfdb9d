# shellcheck shell=bash
# inject/test-lib.bash: helpers for tests/guest/inject-*.sh (run in the
# guest, from the repository root).  Source it after 'set -euo pipefail'.
I=build/inject/inject
D=/sys/kernel/debug
T=$(mktemp -d /dev/shm/inject-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

fail() { echo "FAILED: $*" >&2; exit 1; }

[[ -x $I ]] || fail "$I is not built (make -C inject)"
grep -qw 'mmfi.guest=1' /proc/cmdline || fail "not in the mmfi guest"

# snapshot CAP [all]: every file of the capability as name=value (builtins
# only: no fork per file); counters, which only ever grow or are cleared,
# are left out unless "all" is given.
snapshot() {
	local f v
	for f in "$D/$1"/*; do
		[[ -f $f && ! -L $f ]] || continue
		case ${f##*/} in
		calls|matched|injected|clamped) [[ ${2:-} == all ]] || continue ;;
		esac
		v=
		IFS= read -r -d '' v <"$f" || true
		printf '%s=%s\n' "${f##*/}" "${v//$'\n'/ }"
	done
}

# leftovers: nothing saved in /run/inject, no inject-* tracefs instance.
no_leftovers() {
	local f
	for f in /run/inject/*.saved; do
		[[ -e $f ]] && fail "left behind: $f ($(head -3 "$f" | tr '\n' ' '))"
	done
	for f in /sys/kernel/tracing/instances/inject-*; do
		[[ -e $f ]] && fail "left behind: tracefs instance $f"
	done
	return 0
}

# expect STATUS CMD...: run CMD, output in $T/out and $T/err.
expect() {
	local want=$1 rc=0
	shift
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	if [[ $rc != "$want" ]]; then
		echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
		fail "'$*' exited $rc, expected $want"
	fi
}

# has PATTERN FILE: FILE has a line matching the extended regex.
has() {
	grep -qE -- "$1" "$2" || { echo "--- $2"; cat "$2"; fail "no '$1' in $2"; }
}
