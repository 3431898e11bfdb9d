#!/usr/bin/env bash
# In the kcsan flavour, a data race that tests/modules/datarace makes
# between two kthreads produces a "BUG: KCSAN: data-race" report on the
# racing variable with both accesses and the value change, while the same
# loop with marked accesses (READ_ONCE/WRITE_ONCE) produces none; the guest
# carries on.
set -euo pipefail
. "$(dirname "$0")/../guest/lib.bash"
grep -q '^CONFIG_KCSAN=y' <(zcat /proc/config.gz) || fail "this kernel has no KCSAN (not the kcsan flavour)"
(($(nproc) >= 2)) || fail "a data race needs two CPUs, the guest has $(nproc)"
ko=$PWD/build/modules/kcsan/datarace/datarace.ko
[[ -f $ko ]] || fail "$ko not built (tests/run builds it with qemu/build-module --flavour kcsan)"
insmod "$ko"
trap 'rmmod datarace 2>/dev/null || true' EXIT
run=/sys/kernel/debug/datarace/run

# log_of MODE: run the race in MODE, print the kernel log lines since.
log_of() { kmsg_of kcsan-test "$1" "$run"; }

# report_on LOG: the kernel log has a data-race report about the module's
# counter, whose address the module printed.
report_on() {
	local addr
	addr=$(grep -m1 -oE 'counter at [0-9a-f]+' <<<"$1") || fail "no counter address printed"
	addr=0x${addr#counter at }
	grep -qE "^\[ *[0-9.]+\] (read|write)( \(marked\))? to $addr of 8 bytes by task [0-9]+ on cpu [0-9]+:" <<<"$1"
}

rep=$(log_of marked)
grep -q 'datarace: marked: counter' <<<"$rep" || fail "the marked run did not finish"
! report_on "$rep" || {
	printf '%s\n' "$rep" | tail -n 30
	fail "KCSAN reported the marked accesses"
}
ok "marked accesses: no report"

# Watchpoints are sampled and reports of one pair of accesses are rate
# limited: give the plain race a few tries.
for try in 1 2 3 4 5; do
	rep=$(log_of plain)
	report_on "$rep" && break
done
report_on "$rep" || {
	printf '%s\n' "$rep" | tail -n 30
	fail "no KCSAN report about the plain counter in 5 runs"
}
grep -q 'BUG: KCSAN: data-race in race_plain_inc' <<<"$rep" ||
	fail "the report does not name race_plain_inc"
grep -qE '^\[ *[0-9.]+\]  race_plain_inc\+0x[0-9a-f]+/0x[0-9a-f]+ \[datarace\]' <<<"$rep" ||
	fail "the report's stacks do not show race_plain_inc [datarace]"
grep -qE 'value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+' <<<"$rep" || fail "the report does not show the value change"
ok "plain accesses: $(grep -m1 -o 'BUG: KCSAN: data-race in .*' <<<"$rep") (try $try)"
echo alive >/dev/shm/alive
[[ $(</dev/shm/alive) == alive ]] || fail "the guest is not usable"
ok "guest survived the report"
