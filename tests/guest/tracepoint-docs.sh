#!/usr/bin/env bash
# tracepoint-docs: the committed pages (tracepoint-docs/events/) describe
# exactly the MM trace events of this kernel: every system documented or
# listed as not MM, every event with its section, every field with the
# kernel's name, C type, size and signedness.  Any drift fails naming the
# event (tpdoc check).  Also: tpdoc show reads the live tracefs.
. "$(dirname "$0")/lib.bash"
top=$(cd "$(dirname "$0")/../.." && pwd -P)
bin=$top/build/tracepoint-docs/tpdoc
[[ -x $bin ]] || fail "no $bin: run 'make -C tracepoint-docs'"

rc=0
out=$("$bin" check 2>&1) || rc=$?
echo "$out"
((rc == 0)) || fail "tpdoc check found differences between the pages and this kernel (DRIFT lines above)"
grep -qE '^[0-9]+ events and [0-9]+ fields of [0-9]+ documented systems checked against /sys/kernel/tracing: 0 differences$' \
	<<<"$out" || fail "unexpected summary from tpdoc check"
events=${out%% events*}
events=${events##*$'\n'}
ok "no drift: $events events"

# list: the MM events of the kernel, as many as check compared.
n=$("$bin" list | wc -l)
expect_eq "MM events listed" "$n" "$events"
"$bin" list | grep -qx 'fault_inject:fault_inject' || fail "the series' fault_inject event is not listed"
ok "fault_inject:fault_inject is among them"

# show: what the kernel says about an event, straight from tracefs.
show=$("$bin" show kmem:mm_page_alloc)
grep -qE '^	unsigned int +order +size 4 +unsigned$' <<<"$show" || { echo "$show"; fail "show kmem:mm_page_alloc"; }
grep -q '^	print fmt: "page=%p pfn=0x%lx order=%d' <<<"$show" || { echo "$show"; fail "no print fmt"; }
ok "show kmem:mm_page_alloc gives fields and print format"
