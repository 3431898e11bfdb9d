#!/usr/bin/env bash
# Files written to /out in the guest appear in the --out directory; the
# guest cannot write to the host's root.
. "$(dirname "$0")/../lib.sh"
expect_status 0 qemu/run --out "$T/o" -- sh -c \
	'echo hello >/out/result.txt && echo scratch >"$0/in-overlay" && cat "$0/in-overlay"' "$T"
[[ "$(cat "$T/o/result.txt")" == hello ]] || fail "/out/result.txt did not come back"
[[ -e $T/in-overlay ]] && fail "a guest write went through to the host's root"
expect_grep '^scratch$' "$T/out"
expect_grep 'mmfi-init: ready' "$T/o/console.log"
no_qemu_left
