#!/usr/bin/env bash
# A guest panic gives status 123 and leaves the console log; a hang gives
# 124 after --timeout; neither leaves QEMU behind.
. "$(dirname "$0")/../lib.sh"
expect_status 123 qemu/run --out "$T/p" -- sh -c 'echo c >/proc/sysrq-trigger; sleep 30'
expect_grep 'Kernel panic - not syncing' "$T/p/console.log"
expect_grep 'guest died: Kernel panic' "$T/err"
expect_grep "console log: $T/p/console.log" "$T/err"
no_qemu_left

start=$(date +%s)
expect_status 124 qemu/run --timeout 8 --out "$T/h" -- sleep 1000
elapsed=$(($(date +%s) - start))
((elapsed < 60)) || fail "the timeout took ${elapsed}s"
expect_grep 'timeout' "$T/err"
[[ -s $T/h/console.log ]] || fail "no console log after the timeout"
no_qemu_left
