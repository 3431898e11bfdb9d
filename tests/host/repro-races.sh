#!/usr/bin/env bash
# Each race shipped in races/ reproduces within 3 attempts with its targeted
# delay, and the kernel's report is the one the race must produce; the
# three older ones run without the delay too (the documented --no-inject
# examples).  With
# --trace, the first reproduction's trace.dat holds the delays.  In the
# kasan flavour (when it is built) KASAN reports the use-after-free.
. "$(dirname "$0")/../lib.sh"

# The qemu/repro runs, KIND:NAME each: "on" reproduces races/NAME.scenario
# within 3 attempts (--until 1), "trace" the same with --trace, "kasan" the
# same in the kasan flavour, "off" runs 5 attempts with --no-inject.  They
# are independent: one worker per host CPU runs its share, each result in
# $T/NAME-KIND, with its stdout, stderr and status beside it.
runs=(trace:page-recycle on:uaf-refcount on:list-cancel on:lost-update
	on:lazy-publish off:uaf-refcount off:list-cancel off:page-recycle)

# The delay points of lost-update and lazy-publish are source lines: they
# must still be the store each scenario's comment describes.
for s in lost-update:race_count:'WRITE_ONCE(pool.nr_free, nr + delta);' \
	 lazy-publish:race_lazy:'WRITE_ONCE(race_lazy_page, new);'; do
	IFS=: read -r name mod code <<<"$s"
	line=$(sed -n "s/^inject *= delay $mod\.c:\([0-9]*\) .*/\1/p" "races/$name.scenario")
	[[ $(sed -n "${line:-0}p" "races/modules/$mod.c") == *"$code"* ]] ||
		fail "races/$name.scenario: $mod.c:${line:-?} is not '$code' (the module changed: update the line)"
done
echo "ok: the delay lines of lost-update and lazy-publish are their stores"
if [[ -f build/kbuild-kasan/arch/x86/boot/bzImage ]]; then
	runs+=(kasan:uaf-refcount)
else
	echo "ok: (kasan flavour not built: its case was not run)"
fi
run_repro() {
	local item kind name rc
	local -a args
	for item; do
		kind=${item%%:*} name=${item#*:}
		case $kind in
		on) args=(--runs 3 --until 1) ;;
		trace) args=(--trace --runs 3 --until 1) ;;
		kasan) args=(--flavour kasan --runs 3 --until 1) ;;
		off) args=(--runs 5 --no-inject) ;;
		esac
		rc=0
		qemu/repro "${args[@]}" --out "$T/$name-$kind" "races/$name.scenario" \
			>"$T/$name-$kind.out" 2>"$T/$name-$kind.err" || rc=$?
		echo "$rc" >"$T/$name-$kind.rc"
	done
}
parts_at_once "$(guests_at_once)" run_repro "${runs[@]}"

# reproduced NAME-KIND PATTERN...: that run exited 0, and the first
# reproduction's kernel log matches every PATTERN.
reproduced() {
	local r=$1 p
	shift
	[[ $(<"$T/$r.rc") == 0 ]] ||
		{ cat "$T/$r.err"; fail "qemu/repro of $r exited $(<"$T/$r.rc"), expected 0"; }
	echo "ok: $r reproduced"
	for p in "$@"; do
		expect_grep "$p" "$T/$r/first/kernel.log"
	done
}

reproduced uaf-refcount-on 'refcount_t: addition on 0; use-after-free' \
	'race_uaf_get\+0x' \
	'race_uaf: use-after-free: object [0-9a-f]+ \(id [0-9]+\) has magic 0x6b6b6b6b'
expect_grep '^inject: fail_function: calls=[0-9]+ matched=[0-9]+ injected=[1-9][0-9]* \(delays of 10000 us(, [0-9]+ cut to the busy-wait cap)?\); sites: race_uaf_get\+' \
	"$T/uaf-refcount-on/first/output.log"
expect_grep '^bad objects seen: 1$' "$T/uaf-refcount-on/first/output.log"

reproduced list-cancel-on \
	'race_list: list_add \(prev->next is LIST_POISON1: prev was deleted\) corruption' \
	'race_list_submit'
expect_grep '^inject: fail_function: .* injected=[1-9][0-9]* \(delays of 10000 us.*; sites: race_list_try_merge\+' \
	"$T/list-cancel-on/first/output.log"
expect_grep '^corruptions: 1$' "$T/list-cancel-on/first/output.log"

reproduced page-recycle-trace \
	'page dumped because: VM_BUG_ON_PAGE\(page_ref_count\(page\) == 0\)' \
	'kernel BUG at include/linux/mm.h' 'race_page_consume'
expect_grep '^inject: fail_function: .* injected=[1-9][0-9]* \(delays of 10000 us.*; sites: race_page_sync_for_cpu\+' \
	"$T/page-recycle-trace/first/output.log"
# The scenario boots with vm_txlog=on: the dump ends with the page's
# history, references taken and dropped by both paths of the race.
kl=$T/page-recycle-trace/first/kernel.log
expect_grep 'vm_txlog: pfn 0x[0-9a-f]+: [0-9]+ records, oldest first:' "$kl"
# The page's own records: from the history header to the CPU's records.
awk '/vm_txlog: pfn 0x[0-9a-f]+: [0-9]+ records, oldest first:/ { on = 1; next }
	/vm_txlog: last [0-9]+ records of cpu/ { on = 0 } on' "$kl" >"$T/history"
# The reference the second put found gone: dropped to zero by the module.
expect_grep 'page_ref_mod_and_test pfn=0x[0-9a-f]+ gen=[0-9]+ val=-1 ret=1 count=0 .*caller=(race_page_|ctl_write)[a-z_]*\+.*\[race_page\]' \
	"$T/history"
dat=$T/page-recycle-trace/first/trace.dat
[[ -s $dat ]] || fail "--trace kept no trace.dat of the first reproduction"
trace-cmd report -i "$dat" >"$T/report" 2>"$T/report.err" || { cat "$T/report.err"; fail "trace-cmd report failed"; }
expect_grep 'fault_inject: +name=fail_function action=delay' "$T/report"
expect_grep 'page_ref_mod_and_test: ' "$T/report"

# The windows between plain instructions, found by source line: qemu/repro
# has 'inject where' resolve the line on the host, to each copy gcc
# inlined, and the guest's inject delays there.
reproduced lost-update-on 'race_count: lost update: nr_free is [0-9]+, but [0-9]+ pages are on the pool'"'"'s list'
expect_grep '^inject delay race_count\.c:[0-9]+ is race_count_grow\+0x[0-9a-f]+(,ctl_write\+0x[0-9a-f]+){3} \(gdb on the host\)$' \
	"$T/lost-update-on/build.log"
expect_grep '^inject: delay_point: calls=[0-9]+ matched=[0-9]+ injected=[1-9][0-9]* \(delays of 10000 us\); sites: (race_count_grow|ctl_write)\+0x' \
	"$T/lost-update-on/first/output.log"
reproduced lazy-publish-on 'race_lazy: page leaked: since the reset [0-9]+ allocated'
expect_grep '^inject: delay_point: .* injected=[1-9][0-9]* \(delays of 10000 us\); sites: ctl_write\+0x' \
	"$T/lazy-publish-on/first/output.log"

# The same workloads without the delays: they run (whether they reproduce is
# a matter of chance; bench/repro measures how rarely).
for name in uaf-refcount list-cancel page-recycle; do
	r=$name-off
	rc=$(<"$T/$r.rc")
	((rc == 0 || rc == 1)) || { cat "$T/$r.err"; fail "$name --no-inject exited $rc"; }
	grep -q '^attempts=5$' "$T/$r/summary" || fail "$name --no-inject did not run 5 attempts"
	grep -q '^inject: ' "$T/$r"/guests/*/a1/output && fail "$name --no-inject delayed"
	echo "ok: $name --no-inject: $(grep '^reproduced  ' "$T/$r.out")"
done

if [[ " ${runs[*]} " == *" kasan:uaf-refcount "* ]]; then
	reproduced uaf-refcount-kasan 'BUG: KASAN: use-after-free in race_uaf_get' \
		'Allocated by task' 'Freed by task' 'belongs to the cache race_uaf_obj'
fi

no_qemu_left
