#!/usr/bin/env bash
# The workflow: 'qemu/run' opens a shell; qemu/exec, qemu/stap and
# qemu/trace from another terminal attach to THAT guest.
. "$(dirname "$0")/../lib.sh"
mkfifo "$T/keys"
# A terminal for the shell: script(1) gives qemu/run a pty.
script -qfec "$TOP/qemu/run" "$T/typescript" <"$T/keys" >/dev/null 2>&1 &
spid=$!
exec 9>"$T/keys"
for _ in $(seq 600); do
	guest=$(. qemu/lib.sh; mmfi_guest_find 2>/dev/null) && break
	sleep 0.1
done
[[ -n ${guest:-} ]] || fail "the interactive guest did not come up"
echo "ok: interactive guest $guest"

# State made by one attach is seen by the next: it is the same guest.
expect_status 0 qemu/exec -- sh -c 'echo $$ >/tmp/attached-marker; cat /proc/sys/kernel/random/boot_id'
boot_id=$(cat "$T/out")
expect_grep 'attached to the running guest' "$T/err"
expect_status 0 qemu/exec -- cat /proc/sys/kernel/random/boot_id /tmp/attached-marker
[[ "$(head -n1 "$T/out")" == "$boot_id" ]] || fail "second exec ran in another guest"
expect_status 7 qemu/exec -- sh -c 'exit 7'
expect_status 0 qemu/stap -e 'probe begin { printf("stap attached\n"); exit() }'
expect_grep '^stap attached$' "$T/out"
expect_grep 'attached to the running guest' "$T/err"
expect_status 0 qemu/trace -o "$T/a.dat" -e sched:sched_process_exec -- cat /tmp/attached-marker
expect_grep 'attached to the running guest' "$T/err"
[[ -s $T/a.dat ]] || fail "no trace from the attached guest"
# --new does not attach.
expect_status 0 qemu/exec --new -- cat /proc/sys/kernel/random/boot_id
[[ "$(cat "$T/out")" != "$boot_id" ]] || fail "--new attached to the running guest"

# The shell is really interactive: what we type runs in that guest.
echo 'echo typed-$((6*7)) >/out/typed; exit 3' >&9
wait "$spid"
rc=$?
out=$(cat "$guest/outdir")
[[ "$(cat "$out/typed" 2>/dev/null)" == typed-42 ]] || fail "typed command did not run"
((rc == 3)) || fail "qemu/run (shell) exited $rc, expected the shell's 3"
echo "ok: shell exit status 3 passed through"
no_qemu_left
