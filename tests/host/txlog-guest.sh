#!/usr/bin/env bash
# txlog on a trace recorded in the guest with 'qemu/trace --preset mm' while
# tests/workloads/txlog-scenario does known things:
#   - mm-pages maps, writes, mprotects and unmaps 16 pages: each of those pfns
#     has one life allocated and freed by mm-pages, in the right windows, and
#     no anomaly; the mprotect split shows as vma lives of mm-pages's mm;
#   - 'inject run failslab' fails mm-pages's vma split: txlog links the failed
#     allocation to the injected fault;
#   - tests/modules/mm_provoke commits a real double free, refcount underflow
#     and page use after free, and leaks an object: txlog reports exactly
#     these, and nothing else in the whole trace;
#   - the SVG timeline parses and names the 16 pages; trace-cmd reads the
#     file (KernelShark reads what trace-cmd reads); txlog runs in the guest.
. "$(dirname "$0")/../lib.sh"

make -s -C txlog >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "txlog does not build"; }
make -s -C inject >>"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "inject does not build"; }
ko=$(qemu/build-module tests/modules/mm_provoke 2>"$T/module.log") || { cat "$T/module.log"; fail "mm_provoke does not build"; }
txlog=$TOP/build/txlog/txlog
dat=$T/scenario.dat

expect_status 0 qemu/trace --new --preset mm -o "$dat" -- tests/workloads/txlog-scenario "$ko"
cp "$T/out" "$T/scenario.out"
cp "$T/err" "$T/scenario.err"
# Kept for a look after a failure (tests/run empties build/test-out first).
mkdir -p build/test-out
cp "$dat" build/test-out/txlog-guest-scenario.dat
cp "$T/scenario.out" build/test-out/txlog-guest-scenario.out
expect_grep '^done$' "$T/scenario.out"
expect_grep '^objects: 0 page lives \(0 live at the end\), 1 pointer lives \(1 live at the end;' "$T/scenario.out"
expect_grep '^mm-pages: mprotect .* read-only: Cannot allocate memory$' "$T/scenario.out"
expect_grep '^inject: failslab: calls=[0-9]+ matched=[0-9]+ injected=1; sites: vm_area_dup\+' "$T/scenario.out"
for what in slab-double-free page-ref-underflow page-use-after-free slab-leak; do
	expect_grep "^mm_provoke: $what (ptr|pfn)=0x[0-9a-f]+$" "$T/scenario.out"
done
# Kernels without a config of the preset say so; this one has them all.
if grep -q 'not in this kernel' "$T/scenario.err"; then
	grep 'not in this kernel' "$T/scenario.err"
	fail "the guest kernel lacks events of the mm preset"
fi

# The file is a plain trace-cmd file, and txlog counts its events like trace-cmd.
trace-cmd report -i "$dat" >"$T/report" 2>/dev/null || fail "trace-cmd report cannot read $dat"
expect_status 1 "$txlog" --summary --top 0 "$dat"
cp "$T/out" "$T/summary"
n_report=$(grep -cE '^ +.+\[[0-9]+\] +[0-9]+\.[0-9]+: ' "$T/report")
n_txlog=$(sed -n 's/^.*: \([0-9]*\) events, .*/\1/p' "$T/summary")
[[ $n_report == "$n_txlog" && $n_txlog -gt 1000 ]] ||
	fail "trace-cmd report shows $n_report events, txlog counted $n_txlog"
echo "ok: trace-cmd report and txlog --summary both see $n_txlog events"
for e in kmem:mm_page_alloc page_ref:page_ref_set pagemap:mm_lru_insertion mmap:vma_store fault_inject:fault_inject; do
	expect_grep "%  $e\$" "$T/summary"
done

expect_status 1 "$txlog" --json "$dat"
cp "$T/out" "$T/all.json"
python3 - "$T/all.json" "$T/scenario.out" <<'EOF' || fail "assertions on txlog --json"
import json, re, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
objs = d["objects"]
markers = d["markers"]

def marker_ts(pid, text):
    ts = [m["ts_ns"] for m in markers if m["pid"] == pid and m["text"].startswith(text)]
    assert len(ts) == 1, ("marker", pid, text, ts)
    return ts[0]

# --- 1. mm-pages 16: its pages, each one life, alloc and free in the right windows
m = re.search(r"^mm-pages: pid (\d+) maps 16 pages at 0x([0-9a-f]+)-0x([0-9a-f]+)$", out, re.M)
pid1, start, end = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
step1 = out[m.start():out.index("step 2")]
pfns = [int(p, 16) for p in re.findall(r"^mm-pages: page \d+ pfn 0x([0-9a-f]+)$", step1, re.M)]
assert len(pfns) == 16 and len(set(pfns)) == 16 and all(pfns), pfns
t_maps = marker_ts(pid1, "mm-pages: pid")
t_pfn0 = marker_ts(pid1, "mm-pages: page 0 pfn")
t_mprot = marker_ts(pid1, "mm-pages: mprotect")
t_unmap = marker_ts(pid1, "mm-pages: unmapped")
for pfn in pfns:
    lives = [o for o in objs if o["kind"] == "page" and o["pfn"] == pfn
             and o.get("alloc_pid") == pid1 and t_maps <= o["alloc_ts_ns"] <= t_pfn0]
    assert len(lives) == 1, ("pfn 0x%x: lives allocated by mm-pages while it wrote" % pfn, lives)
    life = lives[0]
    names = [e["event"] for e in life["events"]]
    assert life["state"] == "freed" and life["free_pid"] == pid1, life["story"]
    assert t_mprot <= life["free_ts_ns"] <= t_unmap, ("freed outside munmap", hex(pfn), life["story"])
    assert life["anomalies"] == [] and life["order"] == 0, life
    assert names[0] == "page_ref:page_ref_set" and names[1] == "kmem:mm_page_alloc", names
    assert "pagemap:mm_lru_insertion" in names and names[-1] == "kmem:mm_page_free", names
    alloc = life["events"][1]
    assert "GFP_HIGHUSER_MOVABLE" in alloc["info"], alloc["info"]
print("ok: the 16 pages of mm-pages: one life each, allocated while it wrote them, "
      "freed by its munmap, no anomaly")

# its vmas: the mprotect split [start, start+5p) off and [start+10p, ...) off, in its mm
page = 4096
vmas = [o for o in objs if o["kind"] == "vma" and o.get("alloc_pid") == pid1]
stores = {}
for v in vmas:
    for e in v["events"]:
        if e["event"] == "mmap:vma_store":
            f = e["fields"]
            stores.setdefault((int(f["vm_start"], 16), int(f["vm_end"], 16) + 1), []).append(v)
assert (start, start + 5 * page) in stores, sorted((hex(a), hex(b)) for a, b in stores)
assert any(a == start + 10 * page for a, b in stores), "no vma split at the end of the read-only part"
# its own mm (exec allocates it; the one it had from fork is torn down too)
mms = [o for o in objs if o["kind"] == "mm" and o.get("alloc_pid") == pid1 and
       any(e["pid"] == pid1 and e["event"] == "mmap:exit_mmap" for e in o["events"])]
assert len(mms) == 1, [m["story"] for m in mms]
mine = [v for v in vmas if start <= int(v["vm_start"], 16) < end]
assert mine and all(v["mm"] == mms[0]["key"] and v["state"] == "freed" and v["free_pid"] == pid1
                    for v in mine), [(v["name"], v["story"]) for v in mine]
print("ok: mm-pages's mprotect split its vma (%d vma lives in its range, all of mm %s, all freed by it)"
      % (len(mine), mms[0]["key"]))

# --- 2. the injected fault and the failed allocation it caused
m = re.search(r"^mm-pages: pid (\d+) maps 6 pages", out, re.M)
pid2 = int(m.group(1))
fails = [f for f in d["failures"] if f["failed_allocation"] and f["failed_allocation"]["pid"] == pid2]
assert len(fails) == 1, d["failures"]
f = fails[0]
assert f["failed_allocation"]["event"] == "kmem:kmem_cache_alloc", f
assert f["failed_allocation"]["fields"]["ptr"] == "0x0", f
assert f["injected_fault"]["event"] == "fault_inject:fault_inject", f
assert f["injected_fault"]["fields"]["name"] == "failslab", f
assert f["injected_fault"]["fields"]["caller_sym"].startswith("vm_area_dup+"), f
assert d["summary"]["injected_faults"] == 1, d["summary"]
print("ok: the failed vm_area_struct allocation of mm-pages (pid %d) is linked to the failslab injection" % pid2)

# --- 3. mm_provoke's mistakes: exactly these anomalies in the whole trace
got = sorted((a["object"]["kind"], a["object"]["key"], a["anomaly"]) for a in d["anomalies"])
prov = dict(re.findall(r"^mm_provoke: ([a-z-]+) (?:ptr|pfn)=(0x[0-9a-f]+)$", out, re.M))
want = sorted([("slab", prov["slab-double-free"], "double free"),
               ("page", prov["page-ref-underflow"], "bad refcount"),
               ("page", prov["page-use-after-free"], "use after free")])
assert got == want, ("anomalies in the trace", got, "expected", want)
df = [a for a in d["anomalies"] if a["anomaly"] == "double free"][0]["object"]
assert df["cache"] == "mm_provoke", df
assert df["alloc_call_site_sym"].startswith("provoke_slab_double_free+"), df
assert [e["event"] for e in df["events"]] == ["kmem:kmem_cache_alloc", "kmem:kmem_cache_free",
                                              "kmem:kmem_cache_free"], df["events"]
# The leaked address may have been used and freed before (by trace-cmd, say):
# those earlier lives are ordinary, and the leak is its one live, last life.
lives = sorted((o for o in objs if o["key"] == prov["slab-leak"] and o["kind"] == "slab"),
               key=lambda o: o["life"])
leak = [o for o in lives if o["state"] == "live"]
assert len(leak) == 1 and leak[0] is lives[-1] and leak[0]["leak_candidate"], lives
assert all(o["state"] == "freed" and not o["anomalies"] for o in lives[:-1]), lives
assert leak[0]["alloc_call_site_sym"].startswith("provoke_slab_leak+"), leak
assert any(l["allocated_by"].startswith("slab provoke_slab_leak+") and l["objects"] == 1
           for l in d["leak_candidates"]), d["leak_candidates"]
print("ok: the trace has exactly the three anomalies mm_provoke made; its leak is a leak candidate")
open(sys.argv[1] + ".pfns", "w").write(",".join("0x%x" % p for p in pfns) + " %d %d\n" % (pid1, pid2))
EOF

# The text report of the same: the double free with its history, marked.
read -r pfns pid1 pid2 <"$T/all.json.pfns"
dfptr=$(sed -n 's/^mm_provoke: slab-double-free ptr=//p' "$T/scenario.out")
expect_status 1 "$txlog" --anomalies --ptr "$dfptr" "$dat"
expect_grep "^ANOMALY double free: slab $dfptr mm_provoke, life 1: freed again\$" "$T/out"
expect_grep 'kmem_cache_free .*name=mm_provoke   <== double free$' "$T/out"
# One page of mm-pages, by pfn, as text; its vmas; the counts.
expect_status 0 "$txlog" --pfn "${pfns%%,*}" --pid "$pid1" "$dat"
expect_grep "^page ${pfns%%,*}, life [0-9]+: allocated [0-9.]+ by mm-pages-$pid1, freed [0-9.]+ by mm-pages-$pid1; [0-9]+ events\$" "$T/out"
expect_status 0 "$txlog" --pid "$pid1" --event mmap:vma_store "$dat"
expect_grep "^vma 0x[0-9a-f]+ \[0x[0-9a-f]+-0x[0-9a-f]+\) of mm 0x[0-9a-f]+, life [0-9]+: allocated [0-9.]+ at vm_area_dup\+0x[0-9a-f]+ .* by mm-pages-$pid1, freed [0-9.]+ by mm-pages-$pid1; 3 events\$" "$T/out"
grep -qE '^(page|slab|mm) ' "$T/out" && fail "--event mmap:vma_store printed an object that is not a vma"
expect_status 1 "$txlog" --summary --top 10 "$dat"
[[ $(sed -n '/^ *events  caller/,/^$/p' "$T/out" | grep -cE '^ +[0-9]+  ') == 10 ]] || fail "--top 10: not 10 callers"

# The timelines: the 16 pages, a lane each; the objects of the mm-pages that
# had a fault injected, with the fault drawn across them.
expect_status 0 "$txlog" --quiet --pfn "$pfns" --pid "$pid1" --svg "$T/pages.svg" "$dat"
expect_status 0 "$txlog" --quiet --pid "$pid2" --svg "$T/fault.svg" "$dat"
python3 - "$T/pages.svg" "$pfns" "$T/fault.svg" <<'EOF' || fail "SVG timelines"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
labels = [t.text for t in root.iter(ns + "text") if t.text and t.text.startswith("page ")]
# a lane per life: the 16 pages, and any later life of the same pfns in mm-pages
for pfn in sys.argv[2].split(","):
    assert any(l.startswith("page %s, life " % pfn) for l in labels), (pfn, labels)
root = ET.parse(sys.argv[3]).getroot()
faults = [l for l in root.iter(ns + "line") if l.get("stroke") == "red" and l.find(ns + "title") is not None]
assert any("name=failslab" in l.find(ns + "title").text for l in faults), "the injected fault is not drawn"
assert any(", life " in (t.text or "") for t in root.iter(ns + "text")), "no object lane"
print("ok: SVGs parse, a lane for each of the 16 pages; the injected fault drawn across the other run's objects")
EOF
xmllint --noout "$T/pages.svg" "$T/fault.svg" || fail "xmllint: an SVG is not well-formed"
no_qemu_left
