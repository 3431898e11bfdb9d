#!/usr/bin/env bash
# make demo's script runs to the end and shows each capability working.
. "$(dirname "$0")/../lib.sh"
expect_status 0 qemu/demo
cat "$T/out" "$T/err" >"$T/all"	# commands' stderr is part of the show
expect_grep '^mmfi\.guest=1$' "$T/out"
expect_grep '^overlay$' "$T/out"
expect_grep 'victim: Cannot allocate memory' "$T/all"
expect_grep '^an unmarked task allocates fine$' "$T/out"
expect_grep '^ls +[0-9]+$' "$T/out"
expect_grep '^mm_page_alloc: +[1-9][0-9]* events$' "$T/out"
no_qemu_left
