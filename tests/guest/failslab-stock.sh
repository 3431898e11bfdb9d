#!/usr/bin/env bash
# The stock failslab capability fails a command's allocation, and only
# that task's (task-filter + make-it-fail); state is restored afterwards.
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
d=/sys/kernel/debug/failslab
files=(probability interval times space verbose task-filter ignore-gfp-wait)
declare -A saved
for f in "${files[@]}"; do saved[$f]=$(cat "$d/$f"); done
restore() { for f in "${files[@]}"; do echo "${saved[$f]}" >"$d/$f"; done; }
trap restore EXIT
echo Y >"$d/task-filter"
echo N >"$d/ignore-gfp-wait"
echo 0 >"$d/verbose"
echo 100 >"$d/probability"
echo 1 >"$d/interval"
echo 1 >"$d/times"
echo 0 >"$d/space"
# Unmarked tasks are unaffected ...
echo ok >/dev/shm/failslab-ok || fail "an unmarked task failed"
# ... a marked one sees ENOMEM on its next allocation: creating a file on a
# tmpfs (no exec and no 9p lookup under injection: failing the 9p client's
# allocations can wedge the guest's root file system).
if out=$(bash -c 'echo 1 >/proc/self/make-it-fail; echo x >/dev/shm/failslab-x' 2>&1); then
	fail "creating a file succeeded under failslab"
fi
echo "$out"
[[ $out == *"Cannot allocate memory"* ]] || fail "expected ENOMEM, got: $out"
[[ ! -e /dev/shm/failslab-x ]] || fail "the file exists"
[[ "$(cat $d/times)" == 0 ]] || fail "times did not drop to 0"
restore
trap - EXIT
[[ "$(cat $d/probability)" == "${saved[probability]}" ]] || fail "probability not restored"
echo "ok: ENOMEM seen by the marked task only"
