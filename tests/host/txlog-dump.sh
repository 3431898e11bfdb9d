#!/usr/bin/env bash
# The transaction log read from a memory dump: tests/modules/txlog-page
# trips VM_BUG_ON_PAGE under vm_debug_bug=bug, the kernel prints the page's
# history and panics, 'qemu/run --vmcore' dumps it, and debuggers/txlog.py
# (drgn) prints from the dump's per-CPU rings exactly the lines the console
# printed, header included.  Then the same for a vma and an mm that nothing
# reported on, against the kernel's own debugfs log of the live guest
# (vm_txlog/filter + vm_txlog/log), and bad arguments.
. "$(dirname "$0")/../lib.sh"
ko=$(qemu/build-module tests/modules/txlog-page 2>"$T/module.log") || { cat "$T/module.log"; fail "txlog-page does not build"; }

expect_status 123 qemu/run --vmcore --out "$T/p" --append vm_txlog=on -- sh -c "
	echo bug >/sys/kernel/debug/vm_debug_bug/policy
	insmod $ko && echo page >/sys/kernel/debug/txlog_page/run; sleep 30"
expect_grep 'guest died: Kernel panic - not syncing: Fatal exception' "$T/err"
[[ -s $T/p/vmcore ]] || fail "no dump"
tr -d '\r' <"$T/p/console.log" >"$T/console"
pfn=$(sed -nE 's/.*txlog_page: page: pfn (0x[0-9a-f]+)$/\1/p' "$T/console")
[[ -n $pfn ]] || fail "the module announced no pfn"

# The console's report: the header and the record lines after it, up to the
# CPU part, without the console's time stamp and the "vm_txlog: " prefix.
sed -nE "/vm_txlog: pfn $pfn: [0-9]+ records, oldest first/,/vm_txlog: last [0-9]+ records of cpu/p" \
	"$T/console" | grep -v 'records of cpu' | sed -E 's/^\[ *[0-9.]+\] vm_txlog: //' >"$T/console.hist"
[[ $(wc -l <"$T/console.hist") -ge 5 ]] || { cat "$T/console"; fail "no page history on the console"; }

timeout 300 qemu/drgn -c "$T/p" debuggers/txlog.py --pfn "$pfn" >"$T/drgn.hist" 2>"$T/drgn.err" ||
	{ cat "$T/drgn.err"; fail "txlog.py failed on the dump"; }
diff -u "$T/console.hist" "$T/drgn.hist" || fail "txlog.py's history of pfn $pfn differs from the console's"
echo "ok: the dump's history of pfn $pfn is the console's, $(($(wc -l <"$T/drgn.hist") - 1)) records"
grep -qE ' page_ref_mod .* caller=tp_get\+0x[0-9a-f]+/0x[0-9a-f]+ \[txlog_page\]$' "$T/drgn.hist" ||
	fail "no record of tp_get (a module function, named with its module)"

# A CPU's part: as many records as the kernel's cpu-records knob (8).
timeout 300 qemu/drgn -c "$T/p" debuggers/txlog.py --cpu 0 >"$T/cpu.hist" 2>&1 || { cat "$T/cpu.hist"; fail "txlog.py --cpu failed"; }
expect_grep '^cpu 0: 8 records, oldest first:$' "$T/cpu.hist"
expect_count 8 '^ \[ *[0-9.]+\] \+[0-9.]+ cpu=0 ' "$T/cpu.hist"

expect_status 2 qemu/drgn -c "$T/p" debuggers/txlog.py --pfn zz
expect_grep 'not a number' "$T/err"
expect_status 2 qemu/drgn -c "$T/p" debuggers/txlog.py

# --- the live guest: qemu/drgn --live against the kernel's debugfs log ------
# Only mmap events, and rings of 65536 records: drgn's own start-up (its
# own mmap records) does not push the process's records out of the
# rings between the reads.
TX=/sys/kernel/debug/vm_txlog
qemu/run --out "$T/l" --append vm_txlog=on -- sh -c "
	echo 0 >$TX/enable; echo mmap >$TX/events; echo 65536 >$TX/size; echo 1 >$TX/enable
	sleep 300 & echo \$! >/out/pid
	while [ ! -e /out/done ]; do sleep 0.2; done" >"$T/l.out" 2>"$T/l.err" &
guest=$!
dir=$(guest_of_out "$T/l" "$T/l/pid") || { kill "$guest"; cat "$T/l.err"; exit 1; }
pid=$(cat "$T/l/pid")
MMFI_GUEST=$dir timeout 300 qemu/drgn --live debuggers/txlog.py --pid "$pid" --max 0 \
	>"$T/live.hist" 2>"$T/live.err" || { cat "$T/live.err"; touch "$T/l/done"; fail "qemu/drgn --live failed"; }
mm=$(sed -nE '1s/^mm (0x[0-9a-f]+): [0-9]+ records, oldest first:$/\1/p' "$T/live.hist")
[[ -n $mm ]] || { cat "$T/live.hist"; touch "$T/l/done"; fail "no header line for process $pid"; }
MMFI_GUEST=$dir qemu/exec -- sh -c "echo mm=$mm >$TX/filter && cat $TX/log" >"$T/debugfs.hist" ||
	{ touch "$T/l/done"; fail "reading the debugfs log failed"; }

# A vma of the process: the first range of /proc/PID/maps with a vma_store
# of exactly that range (a split leaves the shrunk part unlogged); the
# newest such record names the live vma.  txlog.py --vma prints, like
# dump_vma(), that vma's records and the mm's records over its range: every
# record the kernel's own vma= filter lists is among them.
MMFI_GUEST=$dir qemu/exec -- cat "/proc/$pid/maps" | cut -d' ' -f1 >"$T/ranges"
vma='' range=''
while read -r range; do
	vma=$(awk -v s="0x${range%-*}" -v e="0x${range#*-}" \
		'$0 ~ " vm_start=" s " vm_end=" e " " { for (i = 1; i <= NF; i++) if ($i ~ /^vma=/) v = substr($i, 5) } END { print v }' \
		"$T/debugfs.hist")
	[[ -n $vma ]] && break
done <"$T/ranges"
[[ -n $vma ]] || { touch "$T/l/done"; fail "no vma_store of a range of /proc/$pid/maps in the log of mm $mm"; }
MMFI_GUEST=$dir qemu/exec -- sh -c "echo vma=$vma >$TX/filter && cat $TX/log" >"$T/debugfs-vma.hist" ||
	{ touch "$T/l/done"; fail "reading the debugfs log of vma $vma failed"; }
MMFI_GUEST=$dir timeout 300 qemu/drgn --live debuggers/txlog.py --vma "$vma" --max 0 \
	>"$T/vma.hist" 2>"$T/vma.err" || { cat "$T/vma.err"; touch "$T/l/done"; fail "txlog.py --vma failed"; }
touch "$T/l/done"
wait "$guest" || fail "the live guest's command failed: $(cat "$T/l.err")"
[[ -s $T/debugfs-vma.hist ]] || fail "the kernel logged nothing for vma $vma"
# (the time since the previous record depends on the list: left out)
nodelta() { sed -E 's/^ ?(\[[ 0-9.]+\]) \+[0-9.]+ /\1 /' | sort; }
tail -n +2 "$T/vma.hist" | nodelta >"$T/vma.sorted"
missing=$(nodelta <"$T/debugfs-vma.hist" | comm -13 "$T/vma.sorted" -)
[[ -z $missing ]] || { echo "$missing"; fail "txlog.py --vma $vma lacks records the kernel's vma filter lists"; }
grep -vE " (vma=$vma|mm=$mm) " "$T/vma.hist" | tail -n +2 | grep . &&
	fail "txlog.py --vma $vma printed records of another vma or mm"
echo "ok: txlog.py --vma $vma ($range): $(($(wc -l <"$T/vma.hist") - 1)) records, the kernel's $(wc -l <"$T/debugfs-vma.hist") among them"
tail -n +2 "$T/live.hist" | sed 's/^ //' | diff -u "$T/debugfs.hist" - ||
	fail "txlog.py --live differs from the kernel's own log of mm $mm"
grep -qE " vma_store mm=$mm .* caller=" "$T/debugfs.hist" || fail "no vma_store record of the sleeping process"
echo "ok: qemu/drgn --live prints the kernel's own $(wc -l <"$T/debugfs.hist") records of process $pid's mm"
no_qemu_left
