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
# The series' suites (tests/kunit.list) and the cases of its test files.
suites=$(grep -v '^#' tests/kunit.list | cut -d' ' -f2- | tr ' ' '\n')
cases=$(sed -n 's/^[[:space:]]*KUNIT_CASE(\(test_[a-z0-9_]*\)).*/\1/p' \
	"$src/lib/fault-inject_test.c" "$src"/mm/*_test.c)
[[ -n $cases && -n $suites ]] || fail "no KUnit suite or case found in $src"
n=0
for p in tests/mutants/*.patch; do
	git -C "$src" apply --check "$PWD/$p" 2>"$T/apply" ||
		fail "$p does not apply to $src: $(head -n 1 "$T/apply")"
	mapfile -t expect < <(sed -n 's/^Expect-Fail: *//p' "$p")
	((${#expect[@]})) || fail "$p has no Expect-Fail: line"
	for e in "${expect[@]}"; do
		suite=${e#kunit/}
		suite=${suite%%/*}
		if [[ $e != kunit/*/* ]] || ! grep -qxF "$suite" <<<"$suites"; then
			fail "$p: '$e' is not kunit/SUITE/CASE of a suite in tests/kunit.list"
		fi
		grep -qxF "${e##*/}" <<<"$cases" || fail "$p: no KUnit case ${e##*/}"
	done
	n=$((n + 1))
done
((n >= 7)) || fail "only $n mutants"
echo "ok: $n mutants apply and name existing cases"
