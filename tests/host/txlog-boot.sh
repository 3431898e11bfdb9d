#!/usr/bin/env bash
# The vm_txlog= boot parameter of kernel-patches 0029-0034 (Documentation/mm/
# vm-txlog.rst): a guest booted with it has the log on from the start, with
# the size, events, records and callers it asked for, and records from boot
# on; a part it cannot parse is reported and the rest still applies; without
# the parameter the log is off and records nothing.
. "$(dirname "$0")/../lib.sh"

# What the guest reports: the debugfs settings, whether the log holds
# records written before this command ran, and the log's boot messages.
# shellcheck disable=SC2016 # expanded in the guest
probe='TX=/sys/kernel/debug/vm_txlog
for f in enable size events callers records cpu-records; do echo "$f=$(cat $TX/$f)"; done
echo "log-lines=$(wc -l <$TX/log)"
dmesg | grep -E "vm_txlog" | sed "s/^\[[^]]*\] //"'

expect_status 0 qemu/run --append 'vm_txlog=on,size=1000,events=kmem+page_ref,records=32,cpu-records=4,nocallers' \
	--timeout 300 -- sh -c "$probe"
cp "$T/out" "$T/on.out"
expect_grep '^enable=1$' "$T/on.out"
# 1000 records per CPU, rounded up to a power of two.
expect_grep '^size=1024$' "$T/on.out"
expect_grep '^callers=0$' "$T/on.out"
expect_grep '^records=32$' "$T/on.out"
expect_grep '^cpu-records=4$' "$T/on.out"
# Only the two classes asked for are in brackets.
expect_grep '^events=.*\[kmem\]' "$T/on.out"
expect_grep '^events=.*\[page_ref\]' "$T/on.out"
n=$(grep -o '\[[a-z_]*\]' "$T/on.out" | sort -u | wc -l)
((n == 2)) || fail "events selects $n classes, not 2: $(grep '^events=' "$T/on.out")"
lines=$(sed -n 's/^log-lines=//p' "$T/on.out")
((lines > 100)) || fail "only ${lines:-no} log lines after a boot with vm_txlog=on"
echo "ok: $lines records since boot"
expect_grep '^vm_txlog: 1024 records per CPU' "$T/on.out"

# A bad part is named; the parts around it still apply.
expect_status 0 qemu/run --append 'vm_txlog=on,size=7,bogus,records=3' --timeout 300 -- sh -c "$probe"
cp "$T/out" "$T/bad.out"
expect_grep "vm_txlog=: cannot parse 'size=7'" "$T/bad.out"
expect_grep "vm_txlog=: cannot parse 'bogus'" "$T/bad.out"
expect_grep '^enable=1$' "$T/bad.out"
expect_grep '^size=4096$' "$T/bad.out"
expect_grep '^records=3$' "$T/bad.out"

# Without the parameter: off, nothing recorded.
expect_status 0 qemu/run --timeout 300 -- sh -c "$probe"
cp "$T/out" "$T/off.out"
expect_grep '^enable=0$' "$T/off.out"
expect_grep '^log-lines=0$' "$T/off.out"
no_qemu_left
