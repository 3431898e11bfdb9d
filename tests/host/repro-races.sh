#!/usr/bin/env bash
# Each race shipped in races/ reproduces within 3 attempts with its targeted
# delay, and the kernel's report is the one the race must produce; each runs
# without the delay too (the documented --no-inject examples).  With
# --trace, the first reproduction's trace.dat holds the delays.  In the
# kasan flavour (when it is built) KASAN reports the use-after-free.
. "$(dirname "$0")/../lib.sh"

# reproduces NAME PATTERN...: qemu/repro --runs 3 --until 1 on
# races/NAME.scenario exits 0, and the first reproduction's kernel log
# matches every PATTERN.  Extra qemu/repro options in $opts; results in
# $T/NAME$tag.
reproduces() {
	local name=$1 p
	shift
	expect_status 0 qemu/repro "${opts[@]}" --out "$T/$name$tag" --runs 3 --until 1 "races/$name.scenario"
	for p in "$@"; do
		expect_grep "$p" "$T/$name$tag/first/kernel.log"
	done
}

tag=''


opts=()
reproduces uaf-refcount 'refcount_t: addition on 0; use-after-free' \
	'race_uaf_get\+0x' \
	'race_uaf: use-after-free: object [0-9a-f]+ \(id [0-9]+\) has magic 0x6b6b6b6b'
expect_grep '^fail-function-delay: race_uaf_get: calls=[0-9]+ matched=[0-9]+ delayed=[1-9]' \
	"$T/uaf-refcount/first/output.log"
expect_grep '^bad objects seen: 1$' "$T/uaf-refcount/first/output.log"

reproduces list-cancel \
	'race_list: list_add \(prev->next is LIST_POISON1: prev was deleted\) corruption' \
	'race_list_submit'
expect_grep '^fail-function-delay: race_list_try_merge: .* delayed=[1-9]' \
	"$T/list-cancel/first/output.log"
expect_grep '^corruptions: 1$' "$T/list-cancel/first/output.log"

opts=(--trace)
reproduces page-recycle \
	'page dumped because: VM_BUG_ON_PAGE\(page_ref_count\(page\) == 0\)' \
	'kernel BUG at include/linux/mm.h' 'race_page_consume'
expect_grep '^fail-function-delay: race_page_sync_for_cpu: .* delayed=[1-9]' \
	"$T/page-recycle/first/output.log"
# The scenario boots with vm_txlog=on: the dump ends with the page's
# history, references taken and dropped by both paths of the race.
kl=$T/page-recycle/first/kernel.log
expect_grep 'vm_txlog: pfn 0x[0-9a-f]+: [0-9]+ records, oldest first:' "$kl"
# The page's own records: from the history header to the CPU's records.
awk '/vm_txlog: pfn 0x[0-9a-f]+: [0-9]+ records, oldest first:/ { on = 1; next }
	/vm_txlog: last [0-9]+ records of cpu/ { on = 0 } on' "$kl" >"$T/history"
# The reference the second put found gone: dropped to zero by the module.
expect_grep 'page_ref_mod_and_test pfn=0x[0-9a-f]+ gen=[0-9]+ val=-1 ret=1 count=0 .*caller=(race_page_|ctl_write)[a-z_]*\+.*\[race_page\]' \
	"$T/history"
dat=$T/page-recycle/first/trace.dat
[[ -s $dat ]] || fail "--trace kept no trace.dat of the first reproduction"
trace-cmd report -i "$dat" >"$T/report" 2>"$T/report.err" || { cat "$T/report.err"; fail "trace-cmd report failed"; }
expect_grep 'fault_inject: +name=fail_function action=delay' "$T/report"
expect_grep 'page_ref_mod_and_test: ' "$T/report"

# The same workloads without the delays: they run (whether they reproduce is
# a matter of chance; bench/repro measures how rarely).
for name in uaf-refcount list-cancel page-recycle; do
	rc=0
	qemu/repro --out "$T/$name-off" --runs 5 --no-inject "races/$name.scenario" >"$T/out" 2>"$T/err" || rc=$?
	((rc == 0 || rc == 1)) || { cat "$T/err"; fail "$name --no-inject exited $rc"; }
	grep -q '^attempts=5$' "$T/$name-off/summary" || fail "$name --no-inject did not run 5 attempts"
	grep -q 'fail-function-delay' "$T/$name-off"/guests/*/a1/output && fail "$name --no-inject delayed"
	echo "ok: $name --no-inject: $(grep '^reproduced  ' "$T/out")"
done

if [[ -f build/kbuild-kasan/arch/x86/boot/bzImage ]]; then
	opts=(--flavour kasan) tag=-kasan
	reproduces uaf-refcount 'BUG: KASAN: use-after-free in race_uaf_get' \
		'Allocated by task' 'Freed by task' 'belongs to the cache race_uaf_obj'
else
	echo "ok: (kasan flavour not built: its case was not run)"
fi

no_qemu_left
