#!/usr/bin/env drgn
# SPDX-License-Identifier: GPL-2.0
"""The MM transaction log's history of a page, vma or mm, read with drgn.

Run by drgn against a memory dump or a live kernel of this project's guest
(CONFIG_DEBUG_VM_TXLOG, from the series):

  drgn -s VMLINUX -c VMCORE debuggers/txlog.py --pfn 0x12345
  drgn -s VMLINUX debuggers/txlog.py --pid 1234      (live, in the guest: /proc/kcore)

(qemu/drgn finds VMLINUX and the module files itself.)  It prints the
records the kernel's dump_page(), dump_vma() or dump_mm() would print for
that object, "oldest first", in the same format, read from the per-CPU
rings the kernel wrote: the same lines a VM_BUG_ON_PAGE() report put on the
console, also for objects nothing reported on, and as many as the rings
still hold (--max).  Exit status: 0, 1 if the log is off or unreadable,
2 for bad arguments.
"""
import argparse
import sys

from drgn import FaultError, Object, offsetof, sizeof
from drgn.helpers.linux.mm import compound_head, page_to_pfn, pfn_to_page
from drgn.helpers.linux.percpu import per_cpu_ptr
from drgn.helpers.linux.cpumask import for_each_possible_cpu
from drgn.helpers.linux.pid import find_task

NO_PFN = (1 << 64) - 1
SEQ_FOLDED = 1 << 63
KIND_PAGE, KIND_VM = 0, 1
MASK64 = (1 << 64) - 1


def die(text, status=1):
    print(f"txlog.py: {text}", file=sys.stderr)
    sys.exit(status)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="txlog.py", description="the MM transaction log of a page, vma or mm, from a dump "
        "or a live kernel")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--pfn", help="records of this page frame (and of its folio's head)")
    what.add_argument("--page", help="records of the page at this struct page address")
    what.add_argument("--vma", help="records of this vma, and of its mm over its range")
    what.add_argument("--mm", help="records of this mm")
    what.add_argument("--pid", type=int, help="records of this process's mm")
    what.add_argument("--cpu", type=int, help="the last records of this CPU")
    what.add_argument("--all", action="store_true", help="every record the rings hold")
    p.add_argument("--max", type=int,
                   help="print at most the newest N (default: as many as the kernel's "
                   "reports print: the records= knob, cpu-records= for --cpu; 0: all)")
    try:
        args = p.parse_args(argv)
        for name in ("pfn", "page", "vma", "mm"):
            value = getattr(args, name)
            if value is not None:
                setattr(args, name, int(value, 0))
    except ValueError as err:
        print(f"txlog.py: not a number: {err}", file=sys.stderr)
        sys.exit(2)
    if args.max is not None and args.max < 0:
        die("--max needs a number >= 0", 2)
    return args


class Log:
    """What is needed to read and print records, taken from the kernel."""

    def __init__(self, prog):
        self.prog = prog
        try:
            self.buf = prog["txlog_cur"]
        except KeyError:
            die("this kernel has no transaction log (CONFIG_DEBUG_VM_TXLOG)")
        rec = prog.type("struct txlog_rec")
        self.size = sizeof(rec)
        self.off = {f: offsetof(rec, f) for f in (
            "seq", "ts", "ip", "pid", "event", "order", "ctx",
            "page.pfn", "page.flags", "page.count", "page.mapcount", "page.gen",
            "page.ret", "page.val", "vm.mm", "vm.vma", "vm.start", "vm.end",
            "migrate.succeeded", "migrate.failed", "migrate.thp_succeeded",
            "migrate.thp_failed", "migrate.mode", "migrate.reason",
            "isolate.requested", "isolate.scanned", "isolate.taken", "isolate.lru",
            "isolate.zoneidx", "fault.name", "fault.size", "fault.gfp", "fault.action")}
        events = prog["txlog_events"]
        self.events = [(e.name.string_().decode(), e.kind.value_()) for e in events]
        self.modes = [m.string_().decode() for m in prog["txlog_migrate_modes"]]
        self.reasons = [r.string_().decode() for r in prog["migrate_reason_names"]]
        self.gfp_names = self._flag_names("gfpflag_names")
        self.page_names = self._flag_names("pageflag_names")
        self.pageflags_mask = (1 << prog.constant("__NR_PAGEFLAGS").value_()) - 1
        self.fields = []
        for f in prog.variable("pff", "lib/vsprintf.c"):
            if f.width.value_():
                hexa = f.spec.base.value_() == 16
                self.fields.append((f.name.string_().decode(), f.shift.value_(),
                                    f.mask.value_() & 0xffffffff, hexa))
        self.comms = {}
        self.sizes = {}

    def _flag_names(self, name):
        out = []
        for entry in self.prog[name]:
            if not entry.name:
                break
            out.append((entry.mask.value_(), entry.name.string_().decode()))
        return out

    # --- reading -------------------------------------------------------------

    def rings(self):
        """(cpu, records list) of every CPU: (pos, raw bytes), oldest first."""
        buf = self.buf.read_()
        if not buf:
            die("the transaction log is off (vm_txlog=on or debugfs vm_txlog/enable)")
        nr = buf.nr_recs.value_()
        for cpu in for_each_possible_cpu(self.prog):
            ring = per_cpu_ptr(buf.rings, cpu)
            head = ring.head.a.counter.value_()
            lo = max(head - nr if head > nr else 0, ring.base.value_())
            if lo >= head:
                continue
            try:
                raw = self.prog.read(ring.recs.value_(), nr * self.size)
            except FaultError as err:
                die(f"cpu {cpu}'s ring is not in this dump: {err}")
            out = []
            for pos in range(lo, head):
                i = (pos % nr) * self.size
                rec = raw[i:i + self.size]
                seq = self.u(rec, "seq", 8)
                if (seq & ~SEQ_FOLDED) != pos + 1:
                    continue            # being written when the dump was taken
                out.append((pos, rec))
            yield cpu, out

    def u(self, rec, field, width, signed=False):
        off = self.off[field]
        return int.from_bytes(rec[off:off + width], "little", signed=signed)

    def kind(self, rec):
        event = self.u(rec, "event", 2)
        return self.events[event][1] if event < len(self.events) else None

    # --- matching, as txlog_rec_matches() --------------------------------------

    def matches(self, rec, cpu, f):
        if f["type"] == "all":
            return True
        if f["type"] == "cpu":
            return cpu == f["cpu"]
        kind = self.kind(rec)
        if f["type"] == "pfn":
            pfn, order = self.u(rec, "page.pfn", 8), self.u(rec, "order", 1)
            if kind != KIND_PAGE or pfn == NO_PFN or order >= 64:
                return False
            last = pfn + (1 << order)
            return pfn <= f["pfn"] < last or pfn <= f["head"] < last
        if kind != KIND_VM:
            return False
        mm = self.u(rec, "vm.mm", 8)
        if f["type"] == "mm":
            return mm == f["mm"]
        if f["vma"] and self.u(rec, "vm.vma", 8) == f["vma"]:
            return True
        return (mm == f["mm"] and self.u(rec, "vm.start", 8) < f["end"]
                and self.u(rec, "vm.end", 8) > f["start"])

    # --- printing, as txlog_format() -------------------------------------------

    def flags(self, value, names):
        parts = []
        for mask, name in names:
            if not value:
                break
            if value & mask == mask:
                parts.append(name)
                value &= ~mask
        if value:
            parts.append(hex(value))
        return "|".join(parts)

    def page_flags(self, value):
        parts = []
        main = value & self.pageflags_mask
        if main:
            parts.append(self.flags(main, self.page_names))
        for name, shift, mask, hexa in self.fields:
            v = (value >> shift) & mask
            parts.append(f"{name}={hex(v) if hexa else v}")
        return f"{hex(value)}({'|'.join(parts)})"

    def comm(self, pid):
        if pid not in self.comms:
            if not pid:
                self.comms[pid] = "swapper"
            else:
                task = find_task(self.prog, pid)
                self.comms[pid] = task.comm.string_().decode(errors="replace") if task else "<exited>"
        return self.comms[pid]

    def symbol(self, ip):
        try:
            sym = self.prog.symbol(ip)
        except LookupError:
            return hex(ip)
        text = f"{sym.name}+{hex(ip - sym.address)}/{hex(self.kallsyms_size(sym))}"
        module = self.module_of(ip)
        return text + f" [{module}]" if module else text

    def kallsyms_size(self, sym):
        """The size %pS prints: kallsyms counts up to the next symbol.

        ELF sizes end with the function's last instruction; the padding up
        to the next function (at most an alignment's worth) belongs to the
        symbol for kallsyms.  Look for where the next symbol starts.
        """
        end = sym.address + sym.size
        if sym.address in self.sizes:
            return self.sizes[sym.address]
        size = sym.size
        for addr in range(end, end + 64):
            try:
                nxt = self.prog.symbol(addr)
            except LookupError:
                continue
            if nxt.address == addr:
                size = addr - sym.address
            break
        self.sizes[sym.address] = size
        return size

    def module_of(self, ip):
        prog = self.prog
        if not hasattr(self, "_modules"):
            from drgn.helpers.linux.list import list_for_each_entry
            self._modules = []
            for mod in list_for_each_entry("struct module", prog["modules"].address_of_(), "list"):
                for layout in (mod.core_layout, mod.init_layout):
                    self._modules.append((layout.base.value_(), layout.size.value_(),
                                          mod.name.string_().decode()))
        for base, size, name in self._modules:
            if base <= ip < base + size:
                return name
        return None

    def page_text(self, rec):
        u = self.u
        event = self.events[u(rec, "event", 2)][0]
        pfn, gen, order = u(rec, "page.pfn", 8), u(rec, "page.gen", 2), u(rec, "order", 1)
        val, ret = u(rec, "page.val", 4, True), u(rec, "page.ret", 2, True)
        count, mapcount = u(rec, "page.count", 4, True), u(rec, "page.mapcount", 4, True)
        flags = u(rec, "page.flags", 8)
        if event == "mm_page_alloc":
            gfp = self.flags(val & 0xffffffff, self.gfp_names)
            if pfn == NO_PFN:
                return f" failed order={order} gfp_flags={gfp}"
            return f" pfn={hex(pfn)} gen={gen} order={order} gfp_flags={gfp} migratetype={ret}"
        if event == "mm_page_free":
            if val:
                return f" pfn={hex(pfn)} gen={gen} order={order} put={val:+d}"
            return f" pfn={hex(pfn)} gen={gen} order={order}"
        if event in ("page_ref_set", "page_ref_mod", "page_ref_unfreeze"):
            return (f" pfn={hex(pfn)} gen={gen} val={val:+d} count={count} "
                    f"mapcount={mapcount} flags={self.page_flags(flags)}")
        if event.startswith("page_ref_"):
            return (f" pfn={hex(pfn)} gen={gen} val={val:+d} ret={ret} count={count} "
                    f"mapcount={mapcount} flags={self.page_flags(flags)}")
        if event in ("set_migration_pte", "remove_migration_pte"):
            return f" pfn={hex(pfn)} gen={gen} order={order} addr={hex(flags)}"
        return (f" pfn={hex(pfn)} gen={gen} order={order} count={count} "
                f"mapcount={mapcount} flags={self.page_flags(flags)}")

    def other_text(self, rec):
        u = self.u
        event = self.events[u(rec, "event", 2)][0]

        def name(table, i):
            return table[i] if i < len(table) else "?"
        if event == "vma_store":
            return (f" mm={hex(u(rec, 'vm.mm', 8))} vma={hex(u(rec, 'vm.vma', 8))} "
                    f"vm_start={hex(u(rec, 'vm.start', 8))} vm_end={hex(u(rec, 'vm.end', 8))}")
        if event == "vma_mas_szero":
            return (f" mm={hex(u(rec, 'vm.mm', 8))} start={hex(u(rec, 'vm.start', 8))} "
                    f"end={hex(u(rec, 'vm.end', 8))}")
        if event == "exit_mmap":
            return f" mm={hex(u(rec, 'vm.mm', 8))}"
        mode = name(self.modes, u(rec, "migrate.mode", 2))
        reason = name(self.reasons, u(rec, "migrate.reason", 2))
        if event == "mm_migrate_pages_start":
            return f" mode={mode} reason={reason}"
        if event == "mm_migrate_pages":
            return (f" succeeded={u(rec, 'migrate.succeeded', 4)} failed={u(rec, 'migrate.failed', 4)}"
                    f" thp_succeeded={u(rec, 'migrate.thp_succeeded', 4)}"
                    f" thp_failed={u(rec, 'migrate.thp_failed', 4)} mode={mode} reason={reason}")
        if event == "mm_vmscan_lru_isolate":
            return (f" nr_requested={u(rec, 'isolate.requested', 8)}"
                    f" nr_scanned={u(rec, 'isolate.scanned', 8)} nr_taken={u(rec, 'isolate.taken', 8)}"
                    f" lru={u(rec, 'isolate.lru', 1)} order={u(rec, 'order', 1)}"
                    f" zoneidx={u(rec, 'isolate.zoneidx', 1)}")
        if event == "fault_inject":
            off = self.off["fault.name"]
            text = rec[off:off + 16].split(b"\0")[0].decode(errors="replace")
            action = "delay" if u(rec, "fault.action", 4) else "fail"
            gfp = self.flags(u(rec, "fault.gfp", 4), self.gfp_names)
            return f" name={text} action={action} size={u(rec, 'fault.size', 8, True)} gfp={gfp}"
        return ""

    def line(self, cpu, rec, prev_ts):
        u = self.u
        event = u(rec, "event", 2)
        if event >= len(self.events):
            return "corrupt record"
        ts, pid, ctx = u(rec, "ts", 8), u(rec, "pid", 4), u(rec, "ctx", 1)
        delta = ts - prev_ts if prev_ts and ts >= prev_ts else 0
        ctx_name = (" ctx=nmi" if ctx & 4 else " ctx=hardirq" if ctx & 2
                    else " ctx=softirq" if ctx & 1 else "")
        text = (f"[{ts // 10**9:5d}.{ts % 10**9 // 1000:06d}] "
                f"+{delta // 10**9}.{delta % 10**9 // 1000:06d} cpu={cpu} pid={pid} "
                f"comm={self.comm(pid)}{ctx_name} {self.events[event][0]}")
        if self.events[event][1] == KIND_PAGE:
            text += self.page_text(rec)
        else:
            text += self.other_text(rec)
        return text + f" caller={self.symbol(u(rec, 'ip', 8))}"


def main(prog, argv):
    args = parse_args(argv)
    log = Log(prog)
    f = {"type": "all"}
    if args.pfn is not None or args.page is not None:
        page = (Object(prog, "struct page *", args.page) if args.page is not None
                else pfn_to_page(prog, args.pfn))
        pfn = page_to_pfn(page).value_()
        try:
            head = page_to_pfn(compound_head(page)).value_()
        except FaultError:
            head = pfn
        f = {"type": "pfn", "pfn": pfn, "head": head}
        what = f"pfn {hex(pfn)}" if head == pfn else f"pfn {hex(pfn)} (head {hex(head)})"
    elif args.vma is not None:
        vma = Object(prog, "struct vm_area_struct *", args.vma)
        f = {"type": "vma", "vma": args.vma, "mm": vma.vm_mm.value_(),
             "start": vma.vm_start.value_(), "end": vma.vm_end.value_()}
        what = f"vma {hex(args.vma)}"
    elif args.mm is not None or args.pid is not None:
        mm = args.mm
        if mm is None:
            task = find_task(prog, args.pid)
            if not task:
                die(f"no process {args.pid}")
            mm = task.mm.value_()
            if not mm:
                die(f"process {args.pid} has no mm (a kernel thread)")
        f = {"type": "mm", "mm": mm}
        what = f"mm {hex(mm)}"
    elif args.cpu is not None:
        f = {"type": "cpu", "cpu": args.cpu}
        what = f"cpu {args.cpu}"
    else:
        what = "all"
    # As many as the kernel's reports print (its records= knob, and
    # cpu-records= for a CPU's part), unless --max says otherwise; 0 there
    # means all, while a knob of 0 means none.
    limit = args.max
    if limit is None and not args.all:
        knob = "txlog_dump_cpu_records" if args.cpu is not None else "txlog_dump_records"
        limit = prog[knob].value_()
        if limit == 0:
            print(f"{what}: 0 records, oldest first:")
            return 0
    found = []
    for cpu, recs in log.rings():
        for pos, rec in recs:
            if log.matches(rec, cpu, f):
                found.append((log.u(rec, "ts", 8), cpu, pos, rec))
    found.sort(key=lambda e: e[:3])
    if limit:
        found = found[-limit:]
    print(f"{what}: {len(found)} records, oldest first:")
    prev = 0
    for ts, cpu, _, rec in found:
        print(" " + log.line(cpu, rec, prev))
        prev = ts
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(globals()["prog"], sys.argv[1:]))     # drgn defines prog
    except BrokenPipeError:         # | head: not an error
        sys.stdout = None
        sys.exit(0)
