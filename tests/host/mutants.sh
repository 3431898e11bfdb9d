#!/usr/bin/env bash
# tests/mutants stays in step with the series: every mutant applies to the
# series' final tree and names KUnit cases that exist; tests/mutants/run
# refuses bad arguments.  Host only, nothing is built ('make mutants' runs
# them).
. "$(dirname "$0")/../lib.sh"
src=build/linux
expect_status 2 tests/mutants/run --bogus
expect_grep "unknown option '--bogus'" "$T/err"
expect_status 2 tests/mutants/run no-such-mutant
expect_grep "no mutant 'no-such-mutant'" "$T/err"
cases=$(sed -n 's/^[[:space:]]*KUNIT_CASE(\(test_[a-z0-9_]*\)).*/\1/p' "$src/lib/fault-inject_test.c")
[[ -n $cases ]] || fail "no KUNIT_CASE in $src/lib/fault-inject_test.c"
n=0
for p in tests/mutants/*.patch; do
	git -C "$src" apply --check "$PWD/$p" 2>"$T/apply" ||
		fail "$p does not apply to $src: $(head -n 1 "$T/apply")"
	mapfile -t expect < <(sed -n 's/^Expect-Fail: *//p' "$p")
	((${#expect[@]})) || fail "$p has no Expect-Fail: line"
	for e in "${expect[@]}"; do
		[[ $e == kunit/fault_inject/* ]] || fail "$p: '$e' is not a fault_inject case"
		grep -qxF "${e#kunit/fault_inject/}" <<<"$cases" ||
			fail "$p: no KUnit case ${e#kunit/fault_inject/}"
	done
	n=$((n + 1))
done
((n >= 7)) || fail "only $n mutants"
echo "ok: $n mutants apply and name existing cases"
