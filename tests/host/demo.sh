#!/usr/bin/env bash
# make demo's script runs to the end, every step showing what it claims
# (qemu/demo checks each step's output and exits 1 otherwise), and the
# README's excerpt of a demo run says what this run says, numbers aside.
. "$(dirname "$0")/../lib.sh"
# What 'make demo' builds before it (its tools target), as on a fresh clone
# this test runs before any other has built them.
make -s tools >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "make tools failed"; }
expect_status 0 qemu/demo --help
expect_grep '^Usage: qemu/demo$' "$T/out"
expect_status 2 qemu/demo --bogus
expect_grep "no arguments expected, not '--bogus'" "$T/err"

expect_status 0 qemu/demo
cp "$T/out" "$T/demo.out"
for n in 1 2 3 4 5; do
	expect_grep "^\[demo\] step $n/5 at [0-9]+s: " "$T/err"
	expect_grep "^step $n, [0-9]+ s: " "$T/demo.out"
done
expect_grep '== Summary: [0-9]+ s' "$T/demo.out"
[[ -s build/demo/3/provoke.svg ]] || fail "no SVG timeline in build/demo/3/"

# The "-> " lines of the README's excerpt are this run's, numbers aside.
norm() { sed -nE 's/^ *(-> .*) \([0-9]+s\)$/\1/p' "$1" | sed -E 's/[0-9]+/N/g'; }
norm README.md >"$T/readme"
norm "$T/demo.out" >"$T/run"
[[ $(wc -l <"$T/readme") == 5 ]] || fail "README.md has $(wc -l <"$T/readme") '-> ' lines of the demo, not 5"
if ! diff "$T/readme" "$T/run" >"$T/diff"; then
	sed 's/^/    /' "$T/diff"
	fail "README.md's demo excerpt (<) no longer matches qemu/demo (>)"
fi
echo "ok: README.md's demo excerpt matches this run"
no_qemu_left
