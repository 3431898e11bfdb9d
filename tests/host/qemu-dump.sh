#!/usr/bin/env bash
# Memory dumps of a guest: 'qemu/run --vmcore' writes the memory of a
# panicking guest to OUT/vmcore (status 123 kept, the panic's report
# finished on the console), and crash and drgn read what
# tests/modules/dump-plant planted there: its objects' magic values in its
# slab cache, at the address its log line names, and its thread's stack.
# 'qemu/dump' dumps a running guest on demand, once per run.  Bad options
# and missing dumps are refused.
. "$(dirname "$0")/../lib.sh"
expect_status 2 qemu/run --vmcore=zip -- true
expect_grep "unknown dump format 'zip'" "$T/err"
expect_status 2 qemu/dump --format zip
expect_status 125 env MMFI_GUEST=/nonexistent qemu/dump
expect_status 2 qemu/crash "$T/none"
expect_grep "no memory dump at '$T/none/vmcore'|no memory dump at '$T/none'" "$T/err"
expect_status 2 qemu/drgn -c "$T" --live
for tool in dump crash drgn; do
	expect_status 0 "qemu/$tool" --help
	expect_grep "^Usage: qemu/$tool" "$T/out"
done

ko=$(qemu/build-module tests/modules/dump-plant 2>"$T/module.log") || { cat "$T/module.log"; fail "dump-plant does not build"; }

# --- a panic, dumped ------------------------------------------------------
expect_status 123 qemu/run --vmcore --out "$T/p" -- sh -c "insmod $ko && echo c >/proc/sysrq-trigger; sleep 30"
expect_grep 'guest died: Kernel panic - not syncing: sysrq triggered crash' "$T/err"
expect_grep "memory dump: $T/p/vmcore " "$T/err"
# (printed by a panic notifier that runs after pvpanic's: the kernel went on)
expect_grep 'Kernel Offset: disabled' "$T/p/console.log"
expect_grep '^reason=panic$' "$T/p/vmcore.info"
expect_grep '^format=kdump-zlib$' "$T/p/vmcore.info"
line=$(grep -m1 'dump_plant: cache dump_plant objects 5 first ' "$T/p/console.log") ||
	fail "the module did not announce its objects"
addr=$(sed -E 's/.* first ([0-9a-f]+) .*/\1/' <<<"$line")
pid=$(grep -oE 'thread [0-9]+' <<<"$line" | cut -d' ' -f2)
no_qemu_left

# crash: the planted value at its address, the crashed task's stack, the
# memory summary, the kernel log, the cache's count of allocated objects.
# (crash 8.0.2 does not find this kernel's tasks in its pid xarray: 'ps'
# lists the running ones only; drgn below walks them all.)
printf '%s\n' "rd -64 $addr 2" bt 'kmem -i' log 'kmem -s dump_plant' quit >"$T/crash.in"
timeout 300 qemu/crash "$T/p" -- -s -i "$T/crash.in" >"$T/crash.out" 2>&1 </dev/null ||
	{ tail -40 "$T/crash.out"; fail "crash failed on the dump"; }
expect_grep "^$addr:  6d6d66692d706c00 " "$T/crash.out"
expect_grep 'sysrq_handle_crash' "$T/crash.out"
expect_grep 'TOTAL MEM' "$T/crash.out"
expect_grep 'dump_plant: cache dump_plant objects 5 first ' "$T/crash.out"
expect_grep '^[0-9a-f]+ +32 +5 +[0-9]+ +1 +4k +dump_plant$' "$T/crash.out"

# drgn: the slab cache walked object by object, the thread's stack, the task
# that panicked.
timeout 300 qemu/drgn -c "$T/p" tests/host/dump-plant.py >"$T/drgn.out" 2>&1 ||
	{ cat "$T/drgn.out"; fail "drgn failed on the dump"; }
for i in 0 1 2 3 4; do
	expect_grep "^object magic 0x6d6d66692d706c0$i$" "$T/drgn.out"
done
expect_count 5 '^object magic ' "$T/drgn.out"
expect_grep "^dump-plant $pid stack: .*schedule .*dump_plant_wait .*plant_thread_fn .*kthread" "$T/drgn.out"
expect_grep '^panicked: sh [0-9]+$' "$T/drgn.out"

# A run reusing an out directory does not pass the old dump off as its own.
expect_status 0 qemu/run --out "$T/p" -- true
[[ ! -e $T/p/vmcore && ! -e $T/p/vmcore.info ]] || fail "the earlier run's dump is still in the reused out directory"

# qemu/exec --vmcore: its fresh guest is dumped the same way.
expect_status 123 qemu/exec --vmcore=elf --out "$T/e" -- sh -c 'echo c >/proc/sysrq-trigger; sleep 30'
expect_grep "memory dump: $T/e/vmcore " "$T/err"
expect_grep '^format=elf$' "$T/e/vmcore.info"
# An ELF dump holds all of the guest's memory, and the guest has 1G.
(($(stat -c %s "$T/e/vmcore") > 1000000000)) || fail "the ELF dump is smaller than the guest's memory"
no_qemu_left

# --- on demand: a running guest, one dump per run -------------------------
qemu/run --out "$T/d" -- sh -c 'sleep 20' >"$T/d.out" 2>"$T/d.err" &
guest=$!
dir=$(guest_of_out "$T/d") || exit 1
expect_status 0 env MMFI_GUEST="$dir" qemu/dump
expect_grep "^$T/d/vmcore: [0-9]+ bytes in " "$T/out"
expect_grep "crash $PWD/build/kbuild/vmlinux $T/d/vmcore" "$T/out"
expect_grep '^reason=request$' "$T/d/vmcore.info"
# The dump of a running guest opens in drgn, and holds the guest's tasks.
printf '%s\n' 'from drgn.helpers.linux.pid import for_each_task' \
	'print("tasks", sum(1 for t in for_each_task(prog) if t.comm.string_() == b"sleep"))' >"$T/sleep.py"
timeout 300 qemu/drgn -c "$T/d" "$T/sleep.py" >"$T/sleep.out" 2>&1 || { cat "$T/sleep.out"; fail "drgn cannot open the on-demand dump"; }
expect_grep '^tasks [1-9][0-9]*$' "$T/sleep.out"
expect_status 1 env MMFI_GUEST="$dir" qemu/dump
expect_grep 'exists already: one dump per run' "$T/err"
rc=0
wait "$guest" || rc=$?
[[ $rc == 0 ]] || { cat "$T/d.err"; fail "the guest's command exited $rc after the dump"; }
no_qemu_left
