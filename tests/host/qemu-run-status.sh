#!/usr/bin/env bash
# qemu/run passes the command's exit status, stdout and stderr through.
. "$(dirname "$0")/../lib.sh"
for s in 0 1 42; do
	expect_status "$s" qemu/run -- sh -c "exit $s"
done
expect_status 0 qemu/run -- sh -c 'echo to-stdout; echo to-stderr >&2; printf "no newline"'
[[ "$(cat "$T/out")" == $'to-stdout\nno newline' ]] || fail "stdout was '$(cat "$T/out")'"
expect_grep '^to-stderr$' "$T/err"
grep -q to-stderr "$T/out" && fail "stderr leaked into stdout"
# The command runs in the caller's directory, which the guest sees at the
# same path, with arguments passed through unchanged.
cd "$T" && expect_status 0 "$TOP/qemu/run" -- sh -c 'pwd; printf "[%s]" "$@"' x 'a b' '' '$HOME'
[[ "$(cat "$T/out")" == "$T"$'\n[a b][][$HOME]' ]] || fail "cwd/args came back as '$(cat "$T/out")'"
no_qemu_left
