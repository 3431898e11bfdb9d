#!/usr/bin/env bash
# qemu/series-check compiles the last patch of the series on top of the
# others, reports a patch that does not compile (a commit made here on top
# of the series, never a branch), and refuses bad arguments.
. "$(dirname "$0")/../lib.sh"
src=$PWD/build/linux
expect_status 2 qemu/series-check --last 0
expect_grep "needs a positive number" "$T/err"
expect_status 2 qemu/series-check --ref no-such-ref
expect_grep "'no-such-ref' is not a commit" "$T/err"

n=$(git -C "$src" rev-list --count baseline..mmfi)
expect_status 0 qemu/series-check --last 1
expect_grep "^patch $(printf %02d "$n") ok, [0-9]+ files" "$T/out"

# The same series plus a patch that breaks lib/fault-inject.c, as a
# dangling commit of build/linux: its index and work tree stay untouched.
blob=$(git -C "$src" show mmfi:lib/fault-inject.c |
	sed '$a int series_check_broken = ;' | git -C "$src" hash-object -w --stdin)
export GIT_INDEX_FILE=$T/index
git -C "$src" read-tree mmfi
git -C "$src" update-index --cacheinfo "100644,$blob,lib/fault-inject.c"
tree=$(git -C "$src" write-tree)
unset GIT_INDEX_FILE
broken=$(git -C "$src" -c user.name=test -c user.email=test@localhost \
	commit-tree "$tree" -p mmfi -m "series-check test: does not compile")
expect_status 1 qemu/series-check --ref "$broken" --last 1
expect_grep "^patch $(printf %02d $((n + 1))) FAILED \(1 errors" "$T/out"
expect_grep "lib/fault-inject.c:[0-9]+:[0-9]+: error: " "$T/out"
