#!/usr/bin/env bash
# The guest's root as stage 1 (qemu/init1.c) leaves it: each file system
# mounted where tools expect it, the shares writable, the host's root
# read-only under a writable overlay.  A stage 1 that cannot go on says why
# on the console and the guest dies (123) instead of hanging.  init1 run
# as anything but the guest's pid 1 refuses (2).
. "$(dirname "$0")/../lib.sh"

expect_status 0 qemu/run --out "$T/o" -- bash -c '
	while read -r _ dir type _; do echo "$dir $type"; done </proc/mounts
	echo "hostname $(hostname)"
	echo "fd $(readlink /dev/fd)"
	echo "modules $(ls /lib/modules)"
	echo x >/etc/mmfi-overlay-test && echo "overlay writable"
	echo y >/out/from-guest && echo "out writable"
	echo "pid1 $(tr "\0" " " </proc/1/cmdline | sed "s/ $//")"'
for want in '/ overlay' '/proc proc' '/sys sysfs' '/dev devtmpfs' '/dev/pts devpts' \
	'/dev/shm tmpfs' '/sys/kernel/debug debugfs' '/sys/kernel/tracing tracefs' \
	'/run tmpfs' '/run/mmfi 9p' '/out 9p' '/usr/lib/modules overlay' \
	'hostname mmfi-guest' 'fd /proc/self/fd' "modules $(sed 's/[.+]/\\&/g' build/kbuild/include/config/kernel.release)" \
	'overlay writable' 'out writable' 'pid1 /bin/bash .*/qemu/guest-init'; do
	expect_grep "^$want\$" "$T/out"
done
[[ $(cat "$T/o/from-guest") == y ]] || fail "/out/from-guest did not reach the host"
[[ ! -e /etc/mmfi-overlay-test ]] || fail "a guest write reached the host's /etc"

# stage 1 fails: no stage 2 to run
expect_status 123 qemu/run --timeout 120 --out "$T/bad" --append mmfi.init=/nonexistent/stage2 -- true
expect_grep 'mmfi-init1: cannot execute /nonexistent/stage2: No such file or directory' "$T/bad/console.log"
no_qemu_left

# init1 refuses to run as a command (qemu/mkinitramfs keeps a copy of it)
expect_status 2 build/init1
expect_grep "guest kernel's /init \(pid 1\), not a command" "$T/err"
