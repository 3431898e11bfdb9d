#!/usr/bin/env bash
# In the kasan flavour, each kind of bug that tests/modules/kasan_provoke
# makes produces the matching KASAN report, naming the function that made
# the bad access, and the guest carries on.
set -euo pipefail
. "$(dirname "$0")/../guest/lib.bash"
grep -q '^CONFIG_KASAN=y' <(zcat /proc/config.gz) || fail "this kernel has no KASAN (not the kasan flavour)"
ko=$PWD/build/modules/kasan/kasan_provoke/kasan_provoke.ko
[[ -f $ko ]] || fail "$ko not built (tests/run builds it with qemu/build-module --flavour kasan)"
insmod "$ko"
trap 'rmmod kasan_provoke 2>/dev/null || true' EXIT
run=/sys/kernel/debug/kasan_provoke/run

# report_of NAME: make bug NAME, print the kernel log lines it produced.
report_of() { kmsg_of kasan-test "$1" "$run"; }

# check NAME KIND FUNCTION [PATTERN...]: the report of bug NAME is of KIND,
# in FUNCTION, and has a line matching each PATTERN (a leading ! negates).
check() {
	local name=$1 kind=$2 fn=$3 rep p
	shift 3
	rep=$(report_of "$name")
	# gcc may move part of FUNCTION out of line as FUNCTION.cold
	local re="BUG: KASAN: $kind in $fn(\.[a-z0-9_.]+)?\+[^ ]*"
	grep -qE "$re" <<<"$rep" || {
		printf '%s\n' "$rep" | tail -n 40
		fail "$name: no 'BUG: KASAN: $kind in $fn' report"
	}
	for p in "$@"; do
		if [[ $p == !* ]]; then
			! grep -qE -- "${p#!}" <<<"$rep" || fail "$name: the report has '${p#!}'"
		else
			grep -qE -- "$p" <<<"$rep" || fail "$name: the report lacks '$p'"
		fi
	done
	ok "$name: $(grep -m1 -oE "$re" <<<"$rep")"
}

# kmalloc(24) comes from kmalloc-32; KASAN 6.1 words the offset from the
# object's start.
check slab-oob slab-out-of-bounds provoke_slab_oob \
	'Read of size 1 at addr' 'Allocated by task' 'located 24 bytes inside of' \
	'cache kmalloc-32 of size 32' '!Freed by task'
check slab-uaf use-after-free provoke_slab_uaf \
	'Allocated by task' 'Freed by task' 'belongs to the object at' \
	'cache kmalloc-64 of size 64' 'located 8 bytes inside of'
check vmalloc-oob vmalloc-out-of-bounds provoke_vmalloc_oob \
	'Read of size 1 at addr' 'belongs to a 2-page vmalloc region .* allocated at provoke_vmalloc_oob'
# With the MM transaction log (part 2 of the series) switched on, the
# page's dump in the report carries its history: the allocation and the
# free, both charged to the module's function.
TX=/sys/kernel/debug/vm_txlog
history=()
if [[ -d $TX ]]; then
	tx_was=$(<$TX/enable)
	trap 'echo "$tx_was" >$TX/enable; rmmod kasan_provoke 2>/dev/null || true' EXIT
	echo 1 >$TX/enable
	history=('vm_txlog: pfn 0x[0-9a-f]+: [0-9]+ records, oldest first:'
		'mm_page_alloc pfn=0x[0-9a-f]+ .*order=0 .*caller=provoke_page_uaf(\.cold)?\+'
		'mm_page_free pfn=0x[0-9a-f]+ .*caller=provoke_page_uaf(\.cold)?\+')
fi
check page-uaf use-after-free provoke_page_uaf \
	'belongs to the physical page' '!belongs to the object at' '!Allocated by task' \
	"${history[@]}"
((${#history[@]} == 0)) || ok "page-uaf: the report has the page's txlog history"
check stack-oob stack-out-of-bounds provoke_stack_oob \
	'belongs to stack of task' 'in frame:'
check global-oob global-out-of-bounds provoke_global_oob \
	'belongs to the variable' 'provoke_global\+'
# Bad input changes nothing and is refused.
if echo no-such-bug >"$run" 2>/dev/null; then fail "an unknown bug name was accepted"; fi
ok "unknown name refused"
# No other report since boot: none from the MM transaction log's reads of
# other functions' stack frames, for one.
others=$(dmesg | grep 'BUG: KASAN: ' | grep -v ' in provoke_' || true)
[[ -z $others ]] || fail "KASAN reports not made by the test module: $others"
ok "no other KASAN report since boot"
# Still alive, and the kernel is tainted as KASAN reports do.
echo alive >/dev/shm/alive
[[ $(</dev/shm/alive) == alive ]] || fail "the guest is not usable"
ok "guest survived six reports, taint=$(</proc/sys/kernel/tainted)"
