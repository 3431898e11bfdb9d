#!/usr/bin/env bash
# The stock failslab capability fails a command's allocation, and only
# that task's (task-filter + make-it-fail); state is restored afterwards.
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
d=/sys/kernel/debug/failslab
files=(probability interval times space verbose task-filter)
declare -A saved
for f in "${files[@]}"; do saved[$f]=$(cat "$d/$f"); done
restore() { for f in "${files[@]}"; do echo "${saved[$f]}" >"$d/$f"; done; }
trap restore EXIT
echo Y >"$d/task-filter"
echo 0 >"$d/verbose"
echo 100 >"$d/probability"
echo 1 >"$d/interval"
echo -1 >"$d/times"
echo 0 >"$d/space"
# Unmarked tasks are unaffected ...
mkdir /tmp/failslab-ok || fail "an unmarked task failed"
# ... a marked one sees ENOMEM.
if out=$(sh -c 'echo 1 >/proc/self/make-it-fail; exec mkdir /tmp/failslab-x' 2>&1); then
	fail "mkdir succeeded under failslab"
fi
echo "$out"
grep -q 'Cannot allocate memory' <<<"$out" || fail "expected ENOMEM, got: $out"
[[ ! -d /tmp/failslab-x ]] || fail "directory exists"
restore
trap - EXIT
[[ "$(cat $d/probability)" == "${saved[probability]}" ]] || fail "probability not restored"
echo "ok: ENOMEM seen by the marked task only"
