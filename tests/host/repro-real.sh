#!/usr/bin/env bash
# A real MM bug put back by a revert (races/real/): qemu/build-kernel
# --patch refuses a patch that does not apply and builds the kernel
# patched:NAME from the series plus the revert; qemu/repro builds and boots
# it for the scenario's kernel-patch line, and smaps-rollup-no-vma
# reproduces the NULL dereference of CVE-2022-50380 on it within 3
# attempts.  On the fixed kernel (--flavour default) the same workload with
# the same delay reads the rollup of no VMA instead, and nothing is
# reported.  The other real scenarios need a kernel each: bench/repro-real.
. "$(dirname "$0")/../lib.sh"
s=races/real/smaps-rollup-no-vma.scenario
name=smaps-rollup-no-vma.revert
pdir=build/patched/$name

# A patch of the same name whose context is not in the tree: refused, with
# the tree left at the series (the next build applies the real one again).
cat >"$T/$name.patch" <<'EOF'
--- a/fs/proc/task_mmu.c
+++ b/fs/proc/task_mmu.c
@@ -1,3 +1,3 @@
-no such line
+nor this one
 nor any of these
EOF
expect_status 125 qemu/build-kernel --patch "$T/$name.patch"
expect_grep "$T/$name.patch does not apply over the series" "$T/err"
[[ -z "$(git -C "$pdir/linux" status --porcelain)" ]] ||
	fail "a refused patch left changes in $pdir/linux: $(git -C "$pdir/linux" status --porcelain)"
[[ "$(git -C "$pdir/linux" rev-parse HEAD)" == "$(git -C build/linux rev-parse HEAD)" ]] ||
	fail "$pdir/linux is not at the series' head"
echo "ok: a patch that does not apply is refused, the worktree left at the series"

# The scenario's kernel-patch line builds the kernel (ccache has the
# objects of every file the revert leaves alone) and boots it.
expect_status 0 qemu/repro --runs 3 --until 1 --out "$T/broken" "$s"
expect_grep "^reproduced +[1-3]/[1-3] " "$T/out"
expect_grep "^flavour=patched:$name$" "$T/broken/summary"
expect_grep "RIP: [0-9]+:show_smaps_rollup" "$T/broken/first/kernel.log"
[[ "$(git -C "$pdir/linux" diff --name-only)" == fs/proc/task_mmu.c ]] ||
	fail "the worktree's change is not the revert's: $(git -C "$pdir/linux" diff --stat)"
expect_status 0 qemu/build-kernel --flavour "patched:$name"
expect_grep "patched:$name kernel is up to date" "$T/err"
echo "ok: patched:$name reproduced CVE-2022-50380 and is up to date afterwards"

# The fixed kernel: the delay holds the same window open (the reader sees
# the rollup of no VMA), and the kernel reports nothing.
expect_status 1 qemu/repro --runs 1 --flavour default --out "$T/fixed" "$s"
expect_grep "^reproduced +0/1 " "$T/out"
res=$(sed -n 's/^dir=//p' "$T/fixed/attempts/1")
expect_grep "^reads [0-9]+, of no vma [1-9][0-9]*; unmap-all killed by signal 11$" "$res/output"
no_qemu_left
