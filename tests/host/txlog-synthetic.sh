#!/usr/bin/env bash
# txlog on synthetic traces (txrec text, handled like the same tracepoints
# from a trace.dat): each anomaly kind is found on a trace made to have it,
# and not on the look-alikes the kernel produces legitimately; filters,
# time window, JSON and SVG.  Host only, no guest.
. "$(dirname "$0")/../lib.sh"
make -s -C txlog >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "txlog does not build"; }
txlog=$TOP/build/txlog/txlog

# rec TS EVENT [key=value...]: one txrec line; PID, COMM and CPU from the environment.
rec() { echo "txrec ts=$1 cpu=${CPU:-0} pid=${PID:-10} comm=${COMM:-alpha} event=$2 ${*:3}"; }
kmalloc() { rec "$1" kmem:kmalloc call_site=0xffffffff81200010 call_site_sym=alloc_thing+0x10/0x80 ptr="$2" bytes_req=40 bytes_alloc=64 gfp_flags=0xcc0; }
kfree() { rec "$1" kmem:kfree call_site=0xffffffff81200110 call_site_sym=free_thing+0x10/0x40 ptr="$2"; }
page_alloc() { rec "$1" page_ref:page_ref_set pfn="$2" count=1 val=1; rec "$1" kmem:mm_page_alloc pfn="$2" order="${3:-0}" gfp_flags=0xcc0 migratetype=0; }
page_put() { rec "$1" page_ref:page_ref_mod_and_test pfn="$2" count="${3:-0}" val=-1 ret=1; }
page_free() { rec "$1" kmem:mm_page_free pfn="$2" order="${3:-0}"; }

# expect_anomalies FILE 'D U R A' [txlog options]: the counts of double free,
# use after free, bad refcount, double alloc on the totals line, and exit
# status 1 if any, 0 if none.
expect_anomalies() {
	local f=$1 want=$2 d u r a rc=0
	shift 2
	read -r d u r a <<<"$want"
	"$txlog" "$@" "$f" >"$T/out" 2>"$T/err" || rc=$?
	grep -q "^anomalies: $d double free, $u use after free, $r bad refcount, $a double alloc," "$T/out" || {
		cat "$T/out" "$T/err"; fail "$(basename "$f"): expected $d double free, $u use after free, $r bad refcount, $a double alloc"; }
	local want_rc=0
	((d + u + r + a)) && want_rc=1
	[[ $rc == "$want_rc" ]] || { cat "$T/err"; fail "$(basename "$f"): exit status $rc, expected $want_rc"; }
	echo "ok: $(basename "$f"): $d double free, $u use after free, $r bad refcount, $a double alloc; exit $rc"
}

# --- slab double free, reported with the history and the second free marked
{
	echo "console noise: not a record"
	kmalloc 1000 0xffff888001000000
	kfree 2000 0xffff888001000000
	PID=11 COMM=beta CPU=1 kfree 3000 0xffff888001000000
} >"$T/slab-double-free.txt"
expect_anomalies "$T/slab-double-free.txt" '1 0 0 0'
expect_grep '^ANOMALY double free: slab 0xffff888001000000 kmalloc, life 1: freed again$' "$T/out"
expect_grep '^  allocated 0\.000001 at alloc_thing\+0x10/0x80 \(40 of 64 bytes\) by alpha-10, freed 0\.000002 by alpha-10$' "$T/out"
expect_grep 'beta-11 +kfree +.*ptr=0xffff888001000000   <== double free$' "$T/out"

# --- a look-alike: maple_node objects come back from kmem_cache_alloc_bulk(), which has no event
{
	rec 1000 kmem:kmem_cache_alloc call_site=0x1 ptr=0xffff888003000000 bytes_req=256 bytes_alloc=256
	rec 2000 kmem:kmem_cache_free call_site=0x2 ptr=0xffff888003000000 name=maple_node
	rec 3000 kmem:kmem_cache_free call_site=0x2 ptr=0xffff888003000000 name=maple_node
	rec 4000 kmem:kmem_cache_alloc call_site=0x1 ptr=0xffff888003000100 bytes_req=64 bytes_alloc=64
	rec 5000 kmem:kmem_cache_free call_site=0x2 ptr=0xffff888003000100 name=mm_provoke
	rec 6000 kmem:kmem_cache_free call_site=0x2 ptr=0xffff888003000100 name=mm_provoke
} >"$T/bulk.txt"
expect_anomalies "$T/bulk.txt" '1 0 0 0'
expect_grep '^ANOMALY double free: slab 0xffff888003000100 mm_provoke' "$T/out"
grep -q 'ANOMALY.*maple_node' "$T/out" && fail "a maple_node free after kmem_cache_alloc_bulk() was called a double free"
echo "ok: maple_node (bulk-allocated) is not a double free, mm_provoke is"

# --- pages: a normal life (mm_page_free_batched follows mm_page_free), then a use after free
{
	page_alloc 1000 0x1000
	page_put 1100 0x1000
	page_free 1200 0x1000
	rec 1300 kmem:mm_page_free_batched pfn=0x1000
	PID=12 COMM=gamma rec 5000 page_ref:page_ref_mod pfn=0x1000 count=1 val=1
	PID=12 COMM=gamma rec 5100 page_ref:page_ref_mod pfn=0x1000 count=0 val=-1
	# a failed speculative reference on a free page is not a use
	rec 6000 page_ref:page_ref_mod_unless pfn=0x2000 count=0 val=1 ret=0
	page_alloc 7000 0x2000
	page_put 7100 0x2000
	page_free 7200 0x2000
	rec 7300 page_ref:page_ref_mod_unless pfn=0x2000 count=0 val=1 ret=0
} >"$T/page-uaf.txt"
expect_anomalies "$T/page-uaf.txt" '0 1 0 0'
expect_grep '^ANOMALY use after free: page 0x1000, life 1: page_ref_mod on the page after its free$' "$T/out"
expect_grep 'gamma-12 +page_ref_mod +pfn=0x1000 count=1 val=1   <== use after free$' "$T/out"
grep -q 'ANOMALY.*0x2000' "$T/out" && fail "a failed page_ref_mod_unless on a free page was called a use"
expect_grep '^page 0x2000, life 1: allocated 0\.000007 by alpha-10, freed 0\.000007 by alpha-10; 4 events$' "$T/out"

# --- page double free, double alloc, and a page reused: two lives
{
	page_alloc 1000 0x3000
	page_put 1100 0x3000
	page_free 1200 0x3000
	page_free 1300 0x3000
	page_alloc 2000 0x3000
	page_put 2100 0x3000
	page_free 2200 0x3000
	rec 3000 kmem:mm_page_alloc pfn=0x4000 order=0 gfp_flags=0xcc0 migratetype=0
	rec 3100 kmem:mm_page_alloc pfn=0x4000 order=0 gfp_flags=0xcc0 migratetype=0
} >"$T/page-double.txt"
expect_anomalies "$T/page-double.txt" '1 0 0 1'
expect_grep '^ANOMALY double free: page 0x3000, life 1: freed again by mm_page_free$' "$T/out"
expect_grep '^page 0x3000, life 2: allocated 0\.000002 by alpha-10, freed 0\.000002 by alpha-10; 4 events$' "$T/out"
expect_grep '^ANOMALY double alloc: page 0x4000, life 1: allocated again while live$' "$T/out"

# --- refcounts: below zero, impossible, freed while referenced
{
	page_alloc 1000 0x5000
	rec 1100 page_ref:page_ref_mod pfn=0x5000 count=-1 val=-2
	rec 1200 page_ref:page_ref_mod pfn=0x5000 count=1 val=2
	page_put 1300 0x5000
	page_free 1400 0x5000
	page_alloc 2000 0x6000
	rec 2100 page_ref:page_ref_mod pfn=0x6000 count=33554432 val=33554431
	page_alloc 3000 0x7000
	rec 3100 page_ref:page_ref_mod pfn=0x7000 count=2 val=1
	page_free 3200 0x7000
} >"$T/refcount.txt"
expect_anomalies "$T/refcount.txt" '0 0 3 0'
expect_grep '^ANOMALY bad refcount: page 0x5000, life 1: refcount -1 after page_ref_mod$' "$T/out"
expect_grep '^ANOMALY bad refcount: page 0x6000, life 1: refcount 33554432 is impossible$' "$T/out"
expect_grep '^ANOMALY bad refcount: page 0x7000, life 1: freed while its refcount was 2$' "$T/out"

# --- a block of order 2 freed page by page, one page twice
{
	page_alloc 1000 0x8000 2
	page_free 1100 0x8001
	page_free 1200 0x8002
	page_free 1300 0x8002
	page_free 1400 0x8003
	page_free 1500 0x8000
} >"$T/block.txt"
expect_anomalies "$T/block.txt" '1 0 0 0'
expect_grep '^ANOMALY double free: page 0x8000 order 2, life 1: page 0x8002 of the block freed again$' "$T/out"
expect_grep '^page 0x8000 order 2, life 1: allocated 0\.000001 by alpha-10, freed 0\.000001 by alpha-10; 7 events$' "$T/out"

# --- vma and mm: names, ranges ([start-end), vm_end is the last byte), use after free
{
	rec 1000 kmem:kmem_cache_alloc call_site=0x1 call_site_sym=vm_area_alloc+0x1a ptr=0xffff888004000000 bytes_req=152 bytes_alloc=152
	rec 1100 mmap:vma_store mt=0xffff888005000000 vma=0xffff888004000000 vm_start=0x7f0000000000 vm_end=0x7f0000003fff
	rec 1200 kmem:kmem_cache_free call_site=0x2 ptr=0xffff888004000000 name=vm_area_struct
	rec 1300 mmap:vma_store mt=0xffff888005000000 vma=0xffff888004000000 vm_start=0x7f0000000000 vm_end=0x7f0000003fff
	rec 2000 mmap:exit_mmap mm=0xffff888005000000 mt=0xffff888005000000
	rec 2100 kmem:kmem_cache_free call_site=0x3 ptr=0xffff888005000000 name=mm_struct
} >"$T/vma.txt"
expect_anomalies "$T/vma.txt" '0 1 0 0'
expect_grep '^ANOMALY use after free: vma 0xffff888004000000 \[0x7f0000000000-0x7f0000004000\) of mm 0xffff888005000000, life 1: vma stored in a maple tree after its free$' "$T/out"
expect_grep '^mm 0xffff888005000000, life 1: origin unknown \(first seen 0\.000002\), freed 0\.000002 by alpha-10; 2 events$' "$T/out"

# --- informational only: unknown origin, leak candidates by caller; exit 0
{
	kfree 1000 0xffff888006000000
	page_free 1100 0x9000
	kmalloc 2000 0xffff888006000100
	kmalloc 2100 0xffff888006000200
	PID=20 COMM=leaker page_alloc 2200 0xa000
} >"$T/info.txt"
expect_anomalies "$T/info.txt" '0 0 0 0'
expect_grep '^anomalies: 0 double free, 0 use after free, 0 bad refcount, 0 double alloc, 2 unknown origin, 3 leak candidate$' "$T/out"
expect_grep '^ +2 +128  slab alloc_thing\+0x10/0x80$' "$T/out"
expect_grep '^ +1 +4096  pages of order 0 allocated by leaker$' "$T/out"
expect_grep '^slab 0xffff888006000100 kmalloc, life 1: allocated .* live at the end of the trace \(leak candidate\); 1 event$' "$T/out"

# --- an injected fault and the failed allocation it caused
{
	rec 1000 fault_inject:fault_inject name=failslab action=0 caller=0xffffffff81300000 caller_sym=shmem_alloc_inode+0x1d size=712 gfp=0xcc0 pid=10
	rec 1001 kmem:kmem_cache_alloc call_site=0xffffffff81300000 call_site_sym=shmem_alloc_inode+0x1d ptr=0 bytes_req=712 bytes_alloc=712
	PID=30 COMM=stapio rec 2000 stap:inject func=kmalloc caller=0xffffffff81300010 errno=-12
} >"$T/fault.txt"
expect_anomalies "$T/fault.txt" '0 0 0 0'
expect_grep '^failed allocation \(injected\):$' "$T/out"
expect_grep 'kmem_cache_alloc +call_site=0xffffffff81300000 .*ptr=0 ' "$T/out"
expect_grep 'fault_inject +name=failslab .*   <== injected fault$' "$T/out"
expect_grep '^injected fault \(no failed allocation event follows\):$' "$T/out"
expect_grep '^failed allocations: 1, injected faults: 2, lost events: 0$' "$T/out"

# --- selection: --pfn (a range), --ptr, --pid, --event, --start/--end
cat "$T/slab-double-free.txt" "$T/page-uaf.txt" "$T/refcount.txt" >"$T/all.txt"
expect_status 1 "$txlog" --pfn 0x1000-0x1fff "$T/all.txt"
[[ $(grep -c '^page ' "$T/out") == 1 && $(grep -c '^slab ' "$T/out") == 0 ]] || fail "--pfn 0x1000-0x1fff: expected one page and no slab object"
expect_grep '^page 0x1000, life 1:' "$T/out"
expect_status 1 "$txlog" --ptr 0xffff888001000000 "$T/all.txt"
expect_grep '^anomalies: 1 double free, 0 use after free, 0 bad refcount, 0 double alloc,' "$T/out"
grep -q '^page ' "$T/out" && fail "--ptr printed a page"
expect_status 1 "$txlog" --pid 12 "$T/all.txt"
[[ $(grep -cE '^(page|slab) ' "$T/out") == 0 && $(grep -c '^ANOMALY use after free: page 0x1000' "$T/out") == 1 ]] ||
	fail "--pid 12: expected only the use after free of page 0x1000 (gamma-12 touched only it)"
expect_status 1 "$txlog" --event 'km*:kmal*' "$T/all.txt"
[[ $(grep -c '^slab 0xffff888001000000 kmalloc, life 1:' "$T/out") == 1 && $(grep -cE '^(page|slab) ' "$T/out") == 1 ]] ||
	fail "--event 'km*:kmal*': expected the kmalloc'ed object only"
# window: only the frees of the slab object are in it: the first one is of unknown origin
expect_status 1 "$txlog" --start 1500ns --end 0.0000035 "$T/slab-double-free.txt"
expect_grep '^ANOMALY double free: slab 0xffff888001000000, life 1: freed again$' "$T/out"
expect_grep ', 1 unknown origin, 0 leak candidate$' "$T/out"
expect_status 0 "$txlog" --end 1500ns "$T/slab-double-free.txt"
expect_grep ', 0 unknown origin, 1 leak candidate$' "$T/out"
expect_status 1 "$txlog" --quiet "$T/all.txt"
grep -qE '^(page|slab|ANOMALY) ' "$T/out" && fail "--quiet printed histories"
expect_status 1 "$txlog" --anomalies "$T/page-uaf.txt"
grep -q '^page 0x2000' "$T/out" && fail "--anomalies printed a life without anomaly"
expect_grep '^ANOMALY use after free: page 0x1000' "$T/out"

# --- stdin, and a txrec file whose first bytes could be anything (--txrec)
expect_status 1 sh -c "'$txlog' - <'$T/all.txt'"
expect_grep '^ANOMALY use after free: page 0x1000' "$T/out"
expect_grep 'gamma-12 +page_ref_mod +pfn=0x1000 count=1 val=1   <== use after free$' "$T/out"
expect_status 1 "$txlog" --txrec "$T/all.txt"

# --- summary: counts per event and per caller
expect_status 1 "$txlog" --summary "$T/all.txt"
expect_grep '^ +2 +[0-9.]+%  kmem:kfree$' "$T/out"
expect_grep '^ +2  free_thing\+0x10/0x40 +kmem:kfree$' "$T/out"
expect_status 1 "$txlog" --summary --pid 12 "$T/all.txt"
expect_grep '^.*: 2 events selected of 29,' "$T/out"

# --- JSON: one document with the objects, their events and fields
expect_status 1 "$txlog" --json "$T/all.txt"
python3 - "$T/out" <<'EOF' || fail "JSON output"
import json, sys
d = json.load(open(sys.argv[1]))
objs = {(o["kind"], o["key"], o["life"]): o for o in d["objects"]}
slab = objs[("slab", "0xffff888001000000", 1)]
assert slab["alloc_call_site_sym"] == "alloc_thing+0x10/0x80", slab
assert [e["event"] for e in slab["events"]] == ["kmem:kmalloc", "kmem:kfree"], slab["events"]
assert slab["events"][0]["fields"]["bytes_req"] == 40
kinds = sorted(a["anomaly"] for a in d["anomalies"])
assert kinds == ["bad refcount"] * 3 + ["double free", "use after free"], kinds
uaf = [a for a in d["anomalies"] if a["anomaly"] == "use after free"][0]
assert uaf["object"]["events"][-1]["comm"] == "gamma", uaf
assert d["summary"]["anomalies"]["double free"] == 1
print("ok: JSON objects, events, fields and anomalies")
EOF
expect_status 1 "$txlog" --json --summary "$T/all.txt"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["per_event"]["kmem:kfree"] == 2, s' "$T/out" ||
	fail "--json --summary"

# --- SVG: well-formed, names the objects, marks the injected fault
cat "$T/all.txt" "$T/fault.txt" >"$T/svg.txt"
expect_status 1 "$txlog" --quiet --svg "$T/t.svg" "$T/svg.txt"
python3 - "$T/t.svg" <<'EOF' || fail "SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text or "" for t in root.iter(ns + "text")]
for name in ("slab 0xffff888001000000 kmalloc", "page 0x1000", "page 0x5000"):
    assert any(t.startswith(name) for t in texts), (name, texts)
red = [l for l in root.iter(ns + "line") if l.get("stroke") == "red" and l.find(ns + "title") is not None]
assert any("fault_inject" in l.find(ns + "title").text for l in red), "no injected fault line"
bold = [t.text for t in root.iter(ns + "text") if t.get("font-weight") == "bold"]
assert any(b.startswith("slab 0xffff888001000000") for b in bold), bold
print("ok: SVG parses, names the objects, marks the fault and the anomalies")
EOF
expect_status 1 "$txlog" --quiet --svg "$T/cpu.svg" --svg-by cpu "$T/svg.txt"
xmllint --noout "$T/cpu.svg" || fail "--svg-by cpu: not well-formed"
grep -q '>CPU 1<' "$T/cpu.svg" || fail "--svg-by cpu: no lane for CPU 1"
echo "ok: --svg-by cpu"

# --- bad arguments and bad input: exit 2 and a message naming the problem
expect_status 2 "$txlog"
expect_grep 'no trace file given' "$T/err"
expect_status 2 "$txlog" --pfn zz "$T/all.txt"
expect_grep "^txlog: --pfn: 'zz' is not a number$" "$T/err"
expect_status 2 "$txlog" --start 2 --end 1 "$T/all.txt"
expect_grep 'end is before --start' "$T/err"
expect_status 2 "$txlog" --svg-by lanes --svg x "$T/all.txt"
expect_status 2 "$txlog" --history 1 "$T/all.txt"
expect_status 2 "$txlog" --bogus "$T/all.txt"
expect_grep "unknown option '--bogus'" "$T/err"
expect_status 2 "$txlog" "$T/nonexistent"
expect_grep "^txlog: $T/nonexistent: No such file or directory$" "$T/err"
printf 'hello\nworld\n' >"$T/text.txt"
expect_status 2 "$txlog" "$T/text.txt"
expect_grep "^txlog: $T/text.txt: not a trace: no trace-cmd header and no txrec lines$" "$T/err"
{ kmalloc 1000 0xffff888001000000; echo 'txrec ts=2000 cpu=0 pid=1 comm=x event=kmem:kfree ptr=0xzz'; } >"$T/badline.txt"
expect_status 2 "$txlog" "$T/badline.txt"
expect_grep "^txlog: $T/badline.txt:2: bad txrec record: bad ptr '0xzz'$" "$T/err"
echo 'txrec ts=5 cpu=0 pid=1 comm=x event=nocolon' >"$T/badevent.txt"
expect_status 2 "$txlog" "$T/badevent.txt"
expect_grep "badevent.txt:1: bad txrec record: event 'nocolon' is not SYSTEM:NAME" "$T/err"
