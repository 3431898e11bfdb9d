#!/usr/bin/env bash
# Restoration: after SIGINT/SIGTERM/SIGHUP sent to inject at random points
# of 'inject run ... -- sleep', after the command crashes, and (with
# 'inject reset --restore') after inject itself was killed with SIGKILL.
set -euo pipefail
. inject/test-lib.bash

# Start from settings that differ from what inject arms, so that a
# forgotten restore shows.
$I reset failslab >/dev/null
echo 3 >$D/failslab/times
echo 2 >$D/failslab/interval
echo kmalloc-64 >$D/failslab/cache
echo 1 >$D/failslab/verbose
before=$(snapshot failslab)
opts=(--cache dentry --times -1 --probability 100 --caller do_mkdirat --gfp-require __GFP_IO)

# Signals at random points: from "before inject armed anything" to "while
# the command runs".  inject must die of the signal (128+N) and restore.
RANDOM=4242
for i in $(seq 1 12); do
	sig=$(((i % 3 == 0) ? 1 : (i % 2 ? 2 : 15)))	# INT, TERM, HUP
	delay=$(printf '0.%03d' $((RANDOM % 400)))
	$I run failslab "${opts[@]}" -- sleep 3 2>"$T/err" &
	pid=$!
	sleep "$delay"
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	[[ $rc == $((128 + sig)) ]] || { cat "$T/err"; fail "inject got signal $sig after ${delay}s and exited $rc"; }
	now=$(snapshot failslab)
	[[ "$now" == "$before" ]] || { diff <(echo "$before") <(echo "$now") || true; fail "not restored after signal $sig at ${delay}s"; }
	no_leftovers
	echo "ok: signal $sig after ${delay}s: exit $rc, restored"
done

# While the command runs for sure: armed during, restored after.
$I run failslab "${opts[@]}" -- sleep 3 &
pid=$!
for _ in $(seq 50); do
	[[ "$(<$D/failslab/probability)" == 100 ]] && break
	sleep 0.1
done
[[ "$(<$D/failslab/probability)" == 100 && "$(<$D/failslab/cache)" == dentry ]] || fail "not armed while the command runs"
[[ -e /run/inject/failslab.saved ]] || fail "no /run/inject/failslab.saved while armed"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc == 143 && "$(snapshot failslab)" == "$before" ]] || fail "SIGTERM while running: exit $rc"
no_leftovers
echo "ok: SIGTERM while the command runs: restored"

# The command crashes.
expect 139 $I run failslab "${opts[@]}" -- sh -c 'kill -SEGV $$'
[[ "$(snapshot failslab)" == "$before" ]] || fail "not restored after the command crashed"
no_leftovers
echo "ok: command killed by SIGSEGV: exit 139, restored"

# SIGKILL of inject: the state stays armed, the saved file tells how to get
# back; a second run refuses, 'inject reset --restore' restores.
$I run failslab "${opts[@]}" -- sleep 2 &
pid=$!
for _ in $(seq 50); do
	[[ -e /run/inject/failslab.saved && "$(<$D/failslab/probability)" == 100 ]] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" || true
[[ "$(<$D/failslab/probability)" == 100 ]] || fail "SIGKILL: expected failslab to stay armed"
expect 0 $I status
has "failslab.saved: settings of /sys/kernel/debug/failslab saved by inject pid $pid, which is gone" "$T/out"
expect 2 $I run failslab -- true
has "holds the settings of an inject that was killed \(pid $pid\)" "$T/err"
expect 0 $I reset --restore failslab
has "restored the settings saved by inject pid $pid" "$T/out"
has "removed the tracefs instances of inject processes that were killed" "$T/err"
now=$(snapshot failslab)
[[ "$now" == "$before" ]] || { diff <(echo "$before") <(echo "$now") || true; fail "reset --restore did not restore"; }
no_leftovers
echo "ok: SIGKILL, then reset --restore: restored"

# fail_function: the function is taken out of 'inject' after a signal too.
$I fail-function __x64_sys_clone --retval -12 -- sleep 3 &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid" || true
[[ -z "$(<$D/fail_function/inject)" && "$(<$D/fail_function/probability)" == 0 ]] ||
	fail "fail_function not restored after SIGINT"
no_leftovers
echo "ok: fail-function restored after SIGINT"
$I reset failslab >/dev/null
echo "ok: inject-restore"
