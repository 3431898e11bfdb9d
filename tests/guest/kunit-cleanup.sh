#!/usr/bin/env bash
# The fault_inject KUnit suite cleans up after a case that fails: the same
# suite, built with assertions that fail right after each case armed
# failslab, fail_page_alloc or delay_point and after a case probed a
# function of its own (tests/modules/fi-kunit-forced), must leave the three
# capabilities as it found them, no delay point listed, its caches destroyed
# and no probe on its functions.
. "$(dirname "$0")/lib.bash"
ko=${FI_FORCED_KO:-$PWD/build/modules/${MMFI_FLAVOUR:-default}/fi-kunit-forced/fi_kunit_forced.ko}
[[ -f $ko ]] || fail "no $ko: qemu/build-module tests/modules/fi-kunit-forced"
results=/sys/kernel/debug/kunit/fault_inject_forced/results
FPA=/sys/kernel/debug/fail_page_alloc
DP=/sys/kernel/debug/delay_point
# The cases that arm a real capability, and the one that probes its own
# function: each must fail, by the forced assertion; every other case
# passes or skips.
forced="test_caller_gate_count test_delay_point_callers test_delay_point_fail_nth test_delay_point_hits test_delay_point_list test_delay_point_window test_fail_page_alloc_order test_failslab_cache test_failslab_call_site test_failslab_delay_sleeping test_failslab_outside_callers test_failslab_size"

# If the suite did leave a capability armed, disarm it for the tests that
# run after this one in the guest (the report stays a failure).
disarm() {
	local d
	echo >"$DP/points" || true
	echo >"$DP/while-in" || true
	for d in "$FS" "$FPA" "$DP"; do
		echo 0 >"$d/probability"
		echo 0 >"$d/pid"
		echo >"$d/caller"
	done
	rmmod fi_kunit_forced 2>/dev/null || true
}
trap disarm EXIT

[[ -d /sys/kernel/slab ]] || fail "no /sys/kernel/slab: cannot see the test caches"
fi_snapshot_to fs_before "$FS"
fi_snapshot_to fpa_before "$FPA"
fi_snapshot_to dp_before "$DP"
insmod "$ko"
[[ -r $results ]] || fail "no $results"

failed=$(sed -n 's/^    not ok [0-9]* \(- \)\?\([a-z_0-9]*\).*/\2/p' "$results" | sort | xargs)
expect_eq "cases that failed" "$failed" "$forced"
n=$(grep -c 'forced failure after arming' "$results" || true)
expect_eq "forced assertions after arming" "$n" 11
n=$(grep -c 'forced failure with probes' "$results" || true)
expect_eq "forced assertions with probes" "$n" 1
passed=$(grep -c '^    ok [0-9]* ' "$results" || true)
((passed >= 20)) || fail "only $passed cases passed or skipped: the suite did not run as built"
ok "$passed other cases passed or skipped"

fi_snapshot_to fs_after "$FS"
fi_snapshot_to fpa_after "$FPA"
fi_snapshot_to dp_after "$DP"
# shellcheck disable=SC2154 # set by fi_snapshot_to
expect_eq "failslab settings" "$fs_after" "$fs_before"
# shellcheck disable=SC2154
expect_eq "fail_page_alloc settings" "$fpa_after" "$fpa_before"
# shellcheck disable=SC2154
expect_eq "delay_point settings" "$dp_after" "$dp_before"
expect_eq "delay points listed" "$(cat "$DP/points")" ""
expect_eq "delay point window" "$(cat "$DP/while-in")" ""
for c in fi_kunit_small fi_kunit_large; do
	[[ ! -e /sys/kernel/slab/$c ]] || fail "cache $c outlived its case"
done
ok "the test caches are gone"
probed=$(grep -c '\[fi_kunit_forced\]' "$TRACING/enabled_functions" || true)
expect_eq "functions of the module still probed" "$probed" 0
probed=$(grep -c '\[fi_kunit_forced\]' /sys/kernel/debug/kprobes/list || true)
expect_eq "kprobes left in the module" "$probed" 0
rmmod fi_kunit_forced
ok "the module unloads"
