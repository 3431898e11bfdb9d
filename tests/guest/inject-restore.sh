#!/usr/bin/env bash
# Restoration: after SIGINT/SIGTERM/SIGHUP sent to inject at early fixed
# offsets and at random points of 'inject run ... -- sleep', after the
# command crashes, and (with 'inject reset --restore') after inject itself
# was killed with SIGKILL.
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

# wait_inject PID exec|caught: wait until process PID runs inject (it has
# exec'd; before that it is a copy of this shell, whose handlers are not
# inject's business) and, with "caught", until it catches SIGINT.
wait_inject() {
	local f=/proc/$1/status key val name cgt deadline=$((SECONDS + 30))
	while ((SECONDS < deadline)); do
		[[ -e $f ]] || { cat "$T/err"; fail "inject (pid $1) is gone before it was seen to $2"; }
		name='' cgt=0
		{ while read -r key val; do
			case $key in
			Name:) name=$val ;;
			SigCgt:) cgt=$((16#$val)) ;;
			esac
		done <"$f"; } 2>/dev/null || true
		[[ $name == inject ]] && { [[ $2 == exec ]] || ((cgt & 2)); } && return 0
	done
	fail "inject (pid $1) not seen to $2 within 30 s"
}

# died SIG WHAT: wait for inject $pid, which was sent SIG: it must have died
# of it (128+SIG), with failslab restored and nothing left behind.
died() {
	local rc=0 now
	wait "$pid" || rc=$?
	[[ $rc == $((128 + $1)) ]] || { cat "$T/err"; fail "$2: inject exited $rc, expected $((128 + $1))"; }
	now=$(snapshot failslab)
	[[ "$now" == "$before" ]] || { diff <(echo "$before") <(echo "$now") || true; fail "$2: not restored"; }
	no_leftovers
	echo "ok: $2: exit $rc, restored"
}

# A script's 'inject ... &' starts with SIGINT ignored (no job control), and
# the kernel drops a signal that is ignored when it is sent: inject must
# take SIGINT over before it does anything (an early SIGINT once made it run
# the command to its end and exit 0).  Until inject has exec'd, a SIGINT
# would reach the ignoring parent's copy and is lost whatever inject does,
# so the offsets count from the moment inject catches it; a signal that
# inject does not ignore (SIGTERM) counts from its exec.  The offsets go
# from inject's set-up (options, tracefs instance, saving, arming) to the
# fork and the run of the command.
for from in caught exec; do
	sig=2 when="inject caught SIGINT"
	[[ $from == exec ]] && sig=15 when="inject's exec"
	for delay in 0 0.01 0.05 0.2; do
		$I run failslab "${opts[@]}" -- sleep 3 2>"$T/err" &
		pid=$!
		wait_inject "$pid" "$from"
		[[ $delay == 0 ]] || sleep "$delay"
		kill -"$sig" "$pid"
		died "$sig" "SIG$(kill -l "$sig") ${delay}s after $when"
	done
done

# Started with SIGINT ignored and blocked by its parent, inject still dies
# of a SIGINT sent as soon as it has exec'd: blocked, the signal stays
# pending (the kernel drops only ignored signals that are not blocked) until
# inject catches and unblocks it.  (An inject that left the inherited mask
# alone ran the command to its end and exited 0 here.)
env --ignore-signal=INT --block-signal=INT $I run failslab "${opts[@]}" -- sleep 3 2>"$T/err" &
pid=$!
wait_inject "$pid" exec
kill -INT "$pid"
died 2 "SIGINT pending from the start (ignored and blocked by the parent)"

# Signals at random points, from inject's start-up to "while the command
# runs": inject must die of the signal (128+N) and restore.
RANDOM=4242
for i in $(seq 1 12); do
	sig=$(((i % 3 == 0) ? 1 : (i % 2 ? 2 : 15)))	# INT, TERM, HUP
	delay=$(printf '0.%03d' $((RANDOM % 400)))
	$I run failslab "${opts[@]}" -- sleep 3 2>"$T/err" &
	pid=$!
	wait_inject "$pid" caught
	sleep "$delay"
	kill -"$sig" "$pid"
	died "$sig" "signal $sig ${delay}s after inject caught SIGINT"
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
