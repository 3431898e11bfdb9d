#!/usr/bin/env bash
# Inside the guest: the marker, the mounts and the modules tree are there,
# and the host's root is read-only underneath a writable overlay.
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
grep -qw 'mmfi.guest=1' /proc/cmdline || fail "no mmfi.guest=1 marker"
for m in /sys/kernel/debug:debugfs /sys/kernel/tracing:tracefs /out:9p /run/mmfi:9p /:overlay /proc:proc /sys:sysfs /dev:devtmpfs; do
	findmnt -n -o FSTYPE "${m%%:*}" | grep -qx "${m#*:}" || fail "${m%%:*} is not ${m#*:}"
done
echo "ok: mounts"
[[ -d /lib/modules/$(uname -r)/kernel ]] || fail "no /lib/modules/$(uname -r)"
echo "ok: modules of $(uname -r)"
# The checkout is visible at its host path.
top=$(cd "$(dirname "$0")/../.." && pwd -P)
[[ -x $top/qemu/run && -f $top/build/kbuild/.config ]] || fail "checkout not visible at $top"
zcat /proc/config.gz | grep -qx 'CONFIG_FAILSLAB=y' || fail "guest kernel lacks FAILSLAB"
# Writes land in the overlay, not on the host.
if ! { echo x >/usr/mmfi-overlay-probe && rm /usr/mmfi-overlay-probe; }; then
	fail "root is not writable"
fi
if ! { touch /out/probe && rm /out/probe; }; then
	fail "/out is not writable"
fi
[[ -d /sys/kernel/debug/failslab && -d /sys/kernel/debug/fail_page_alloc ]] || fail "no fault-injection debugfs"
echo "ok: environment"
# Every CPU's delay loop is calibrated alike (qemu/run passes lpj= under
# TCG; without it the secondary CPUs' udelay() was far too short).
mapfile -t bogo < <(awk -F': ' '/^bogomips/ { printf "%d\n", $2 }' /proc/cpuinfo)
((${#bogo[@]} >= 1)) || fail "no bogomips in /proc/cpuinfo"
for b in "${bogo[@]}"; do
	((b * 10 >= bogo[0] * 9 && b * 10 <= bogo[0] * 11)) ||
		fail "CPUs disagree on their delay loop: bogomips ${bogo[*]}"
done
echo "ok: delay loops of ${#bogo[@]} CPUs agree (${bogo[*]} bogomips)"
