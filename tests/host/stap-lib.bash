# shellcheck shell=bash
# tests/host/stap-lib.bash: shared by the tests/host/stap-*.sh tests of
# stap-scripts/ (sourced after tests/lib.sh; not a test itself).
#
# Every run compiles a script on the host and runs it in a fresh guest
# (qemu/stap --new), with the tapset on the include path.

# The workload binary, built statically (no dynamic loader mmap()s before
# main) from tests/workloads/mmcalls.c into build/ (the
# host's build/ is visible in the guest at the same path).
MMCALLS=$TOP/build/stap-scripts/mmcalls
mkdir -p "$TOP/build/stap-scripts"
if [[ ! -x $MMCALLS || tests/workloads/mmcalls.c -nt $MMCALLS ]]; then
	gcc -O2 -static -Wall -Wextra -Werror -o "$MMCALLS" tests/workloads/mmcalls.c ||
		fail "building tests/workloads/mmcalls.c failed"
fi

# Options every run gets (the cookbook test runs its one-liners' own).
STAP_INCLUDE=(-I stap-scripts/tapset)

# stap_run WANT_STATUS [qemu/stap and stap options...] SCRIPT [ARGS] [-- WORKLOAD]:
# qemu/stap --new -I stap-scripts/tapset ...; output in $T/out and $T/err.
# A script that does not compile names itself in the failure.
stap_run() {
	local want=$1 rc=0
	shift
	rm -rf "$T/stap-guest"
	qemu/stap --new --timeout 600 --out "$T/stap-guest" "${STAP_INCLUDE[@]}" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	if [[ $rc != "$want" ]]; then
		echo "--- stdout"; tail -n 60 "$T/out"; echo "--- stderr"; tail -n 60 "$T/err"
		# what the guest's kernel said (a module that did not load, an
		# overload, a warning) is often the only clue to a run that failed
		echo "--- guest console"; tail -n 40 "$T/stap-guest/console.log" 2>/dev/null
		if grep -qE 'semantic error|parse error|Pass [1-4]: .*failed' "$T/err"; then
			fail "stap could not compile '$*'"
		fi
		fail "'qemu/stap $*' exited $rc, expected $want"
	fi
	# through stapsh a script that stap stopped (an error, the overload
	# check) still exits 0: its ERROR line is the only sign
	if [[ $want == 0 ]] && grep -q '^ERROR: ' "$T/err"; then
		echo "--- stderr"; tail -n 60 "$T/err"
		fail "'qemu/stap $*' printed an ERROR"
	fi
	echo "ok: qemu/stap $* exited $rc"
}

# out_lines PATTERN: the lines of $T/out matching the ERE PATTERN.
out_lines() { grep -E -- "$1" "$T/out" || true; }

# expect_usage SCRIPT-ARGS...: the script rejects its arguments with its
# usage on stdout and an error naming the problem on stderr, before
# arming anything.  (staprun exits 1 after the error; through stap --remote
# and stapsh, qemu/stap exits 0 all the same, so the status is not checked.)
expect_usage() {
	local rc=0
	qemu/stap --new --timeout 600 "${STAP_INCLUDE[@]}" "$@" >"$T/out" 2>"$T/err" || rc=$?
	if ! grep -q '^Usage: ' "$T/out" || ! grep -q 'ERROR: [a-z-]*\.stp: ' "$T/err" ||
		grep -qE '^[a-z-]+: armed|^txrec ' "$T/out"; then
		echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
		fail "'$*' (exit $rc) did not stop with its usage and an error"
	fi
	echo "ok: '$*' stops with its usage: $(grep -m1 'ERROR: ' "$T/err")"
}
