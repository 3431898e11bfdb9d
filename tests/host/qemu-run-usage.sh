#!/usr/bin/env bash
# Bad options exit 2 with a message naming the problem; --help exits 0.
. "$(dirname "$0")/../lib.sh"
for t in "qemu/run --bogus" "qemu/run --smp x -- true" "qemu/run --mem 12 -- true" \
	"qemu/run --timeout -1 -- true" "qemu/exec --frob -- true" "qemu/exec" \
	"qemu/stap --timeout" "qemu/stap -c ls -e x" "qemu/trace -e sched -- " \
	"qemu/trace -- true" "qemu/series --nope"; do
	# shellcheck disable=SC2086
	expect_status 2 $t </dev/null
	[[ -s $T/err ]] || fail "'$t' printed no message"
done
expect_status 2 qemu/run --smp 0 -- true
expect_grep "smp needs a number" "$T/err"
expect_status 2 qemu/run --bogus
expect_grep "unknown option '--bogus'" "$T/err"
for tool in run exec stap trace build-kernel; do
	expect_status 0 "qemu/$tool" --help
	expect_grep '^Usage: qemu/' "$T/out"
done
# A stray argument to build-kernel is refused before anything is built.
expect_status 2 qemu/build-kernel stray
expect_grep "unexpected argument 'stray'" "$T/err"
expect_status 2 qemu/build-kernel --flavour kasan extra
expect_grep "unexpected argument 'extra'" "$T/err"
# --dry-run shows the exact QEMU command line without booting.
expect_status 0 qemu/run --dry-run -- true
expect_grep 'qemu-system-x86_64 .*-accel' "$T/out"
expect_grep 'mmfi\.guest=1' "$T/out"
MMFI_ACCEL=tcg expect_status 0 qemu/run --dry-run -- true
expect_grep 'tcg' "$T/out"
# TCG runs single-threaded unless MMFI_TCG_THREAD=multi (see qemu/README.md)...
expect_grep ' -accel tcg\\?,thread=single ' "$T/out"
# ... with lpj= from the host's TSC rate, so that udelay() is right on every vCPU.
expect_grep '[ \\]lpj=[1-9][0-9]+[ \\]' "$T/out"
MMFI_ACCEL=bogus expect_status 2 qemu/run --dry-run -- true
expect_grep "MMFI_ACCEL must be" "$T/err"
MMFI_ACCEL=tcg MMFI_TCG_THREAD=multi expect_status 0 qemu/run --dry-run -- true
expect_grep ' -accel tcg\\?,thread=multi ' "$T/out"
MMFI_ACCEL=tcg MMFI_TCG_THREAD=many expect_status 2 qemu/run --dry-run -- true
expect_grep "MMFI_TCG_THREAD must be 'single' or 'multi', not 'many'" "$T/err"
expect_status 2 qemu/run --icount --smp 2 -- true
expect_grep 'icount runs one vCPU only' "$T/err"
qemu/run --icount --dry-run -- true | grep -q -- ' -smp 1 ' || fail "--icount does not default to one vCPU"
