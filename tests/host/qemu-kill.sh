#!/usr/bin/env bash
# Killing qemu/run, even with SIGKILL, never leaves QEMU behind.
. "$(dirname "$0")/../lib.sh"
for sig in INT TERM KILL; do
	# Background jobs of a script start with SIGINT ignored; undo that.
	env --default-signal=INT qemu/run -- sleep 600 >/dev/null 2>&1 &
	pid=$!
	sleep 4
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	no_qemu_left
done
