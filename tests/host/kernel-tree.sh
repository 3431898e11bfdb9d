#!/usr/bin/env bash
# The kernel tree: no kmemcheck left, the fragment is honoured, a no-change
# 'make kernel' does no work, and the series round-trips through git.
. "$(dirname "$0")/../lib.sh"
src=build/linux
[[ -d $src/.git ]] || fail "no kernel tree (make kernel)"
hits=$(git -C "$src" grep -il kmemcheck HEAD -- . ':!Documentation/translations' | head -n 5)
[[ -z $hits ]] || fail "kmemcheck remnants in the patched tree: $hits"
echo "ok: no kmemcheck in $(git -C "$src" describe --always --tags)"

# Every fragment option is in .config, and every option it turns off is off
# (build-kernel's own check; the "dropped option" case below tests it).
expect_status 0 qemu/build-kernel --check-config kernel-patches/guest.config build/kbuild/.config
echo "ok: fragment options present, $(grep -c '^# CONFIG_.* is not set$' kernel-patches/guest.config) turned off"

# Nothing changed: no build, no re-apply.
expect_status 0 qemu/build-kernel
expect_grep 'kernel is up to date' "$T/err"
grep -q 'applying\|building\|configuring' "$T/err" && fail "a no-change run did work: $(cat "$T/err")"

# The applied series is exactly kernel-patches/ (cover letter aside).
n=$(find kernel-patches -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | wc -l)
m=$(git -C "$src" rev-list --count baseline..HEAD)
((n == m)) || fail "kernel-patches has $n patches but build/linux has $m commits on baseline"
git -C "$src" format-patch -q -o "$T/fp" baseline..HEAD
for p in $(find kernel-patches -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort); do
	q=$T/fp/$(basename "$p")
	[[ -f $q ]] || fail "$p has no counterpart in the tree (subject changed?)"
	diff <(sed '1d; /^-- $/,$d; /^index /d' "$p") <(sed '1d; /^-- $/,$d; /^index /d' "$q") >/dev/null ||
		fail "$p differs from the commit in build/linux"
done
echo "ok: $n patch(es) match build/linux"

# A dropped option is named.
printf 'CONFIG_MMFI_DOES_NOT_EXIST=y\nCONFIG_SMP=y\n# CONFIG_NUMA is not set\n# CONFIG_VT is not set\n' >"$T/frag"
expect_status 1 qemu/build-kernel --check-config "$T/frag" build/kbuild/.config
expect_grep 'CONFIG_MMFI_DOES_NOT_EXIST=y' "$T/err"
expect_grep '# CONFIG_NUMA is not set' "$T/err"
grep -q 'CONFIG_SMP\|CONFIG_VT' "$T/err" && fail "a present option was reported as dropped"
echo "ok: dropped option named"

# The debug info of each kernel built names its own build tree as the
# directory of every compile unit.  stap finds the kernel sources (the
# tracepoint headers) through those directories: objects that ccache shared
# with a tree elsewhere named that tree, and every kernel.trace probe failed
# to resolve (stop 44's CI, a clone beside a checkout with the same cache).
for kb in build/kbuild build/kbuild-*; do
	[[ -f $kb/vmlinux ]] || continue
	dirs=$(readelf --debug-dump=info --dwarf-depth=1 "$kb/vmlinux" |
		awk '/DW_AT_comp_dir/ {print $NF}' | sort | uniq -c)
	[[ -n $dirs ]] || fail "$kb/vmlinux: no DW_AT_comp_dir (no debug info?)"
	own=$(cd "$kb" && pwd -P)
	other=$(awk -v own="$own" '$2 != own' <<<"$dirs")
	[[ -z $other ]] || fail "$kb/vmlinux has compile units of other trees
(objects that ccache shared with them; rm -rf $kb and build again):
$other"
	echo "ok: $kb/vmlinux: $(awk '{n += $1} END {print n}' <<<"$dirs") compile units, all in $own"
done
