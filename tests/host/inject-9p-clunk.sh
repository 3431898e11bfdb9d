#!/usr/bin/env bash
# A kernel bug that 'inject sweep --find-damage' found (inject/EXAMPLES.md),
# reproduced with one targeted failure: when the request allocation of a
# Tclunk fails (p9_tag_alloc() under p9_client_clunk()), 6.1's
# p9_client_clunk() destroys the fid and frees its number although the
# clunk never reached the server, which keeps that fid open.  The next fid
# given the number is refused by the server (QEMU's 9p: a newfid already in
# use, EINVAL), and so is every later one: opening files on the guest's 9p
# root fails with "Invalid argument" from then on.  In a guest of its own,
# which stays broken.  When this test fails because nothing broke, the bug
# is fixed: update EXAMPLES.md and remove the test.
. "$(dirname "$0")/../lib.sh"
make -s -C inject || fail "cannot build inject"
# After the failure: open 20 files nobody opened before (the guest's root
# is this machine's, read through 9p; a directory listing would need a new
# fid too, so the names are listed here), each redirected into a builtin
# (exec fails as well: its loader opens files); the shell reports each
# failed open on stderr.
files=$(printf '%s\n' /usr/share/doc/*/copyright | head -n 20 | tr '\n' ' ')
# shellcheck disable=SC2016
after='n=0; bad=0
for f in '"$files"'; do
	n=$((n + 1))
	true <"$f" || bad=$((bad + 1))
done
echo "opens after: $n, failed: $bad"'
expect_status 0 qemu/exec --new --timeout 300 -- sh -c \
	"build/inject/inject run failslab --caller p9_client_clunk --stacks -- cat /etc/os-release >/dev/null; $after"
cat "$T/out" "$T/err"
expect_grep 'inject: failslab: calls=[0-9]+ matched=[0-9]+ injected=1; sites: p9_tag_alloc\+0x' "$T/err"
expect_grep '^    p9_client_clunk\+0x' "$T/err"
expect_grep '^opens after: 20, failed: [1-9]' "$T/out"
einval=$(grep -c 'copyright: Invalid argument' "$T/err" || true)
((einval >= 1)) || fail "no open failed with EINVAL after the failed clunk"
echo "ok: after one failed Tclunk allocation, $einval of 20 opens on 9p failed with EINVAL"
no_qemu_left
