#!/usr/bin/env bash
# qemu/run --gdb and qemu/gdb: a breakpoint on shmem_mkdir() (mm/shmem.c)
# is hit when the guest's command makes a directory on /dev/shm; gdb, with
# the kernel's scripts loaded, prints the new directory's name, the task
# ($lx_current()) and the task list (lx-ps), and lx-symbols loads the
# symbols of a module built by qemu/build-module; the guest then goes on to
# the end of its command.  Bad ports and the lack of a guest are refused.
. "$(dirname "$0")/../lib.sh"
expect_status 2 qemu/run --gdb=80 -- true
expect_grep "needs a port from 1024 to 65535, not '80'" "$T/err"
expect_status 2 qemu/run --gdb=x -- true
expect_status 125 env MMFI_GUEST=/nonexistent qemu/gdb -batch
expect_status 0 qemu/gdb --help
expect_grep '^Usage: qemu/gdb' "$T/out"

# gdb_guest PORT QEMU-RUN-ARGS...: start 'qemu/run --gdb=PORT ARGS' in the
# background (output in $T/guest.out, .err; pid in $guest), wait for its
# gdbstub.
gdb_guest() {
	local port=$1
	shift
	qemu/run --gdb="$port" "$@" >"$T/guest.out" 2>"$T/guest.err" &
	guest=$!
	for _ in $(seq 120); do
		grep -q "gdbstub on localhost:$port" "$T/guest.err" && return 0
		sleep 0.5
	done
	cat "$T/guest.err"
	fail "the guest did not start its gdbstub"
}

# gdb_guest_end LINE: the guest's command ended with status 0 and printed LINE.
gdb_guest_end() {
	local rc=0
	wait "$guest" || rc=$?
	[[ $rc == 0 ]] || { cat "$T/guest.out" "$T/guest.err"; fail "the guest's command exited $rc after gdb detached"; }
	expect_grep "^$1\$" "$T/guest.out"
	no_qemu_left
}

ko=$(qemu/build-module tests/modules/dump-plant 2>"$T/module.log") || { cat "$T/module.log"; fail "dump-plant does not build"; }
port=$((20000 + $$ % 20000))
# The guest loads a module, then makes a directory every 50 ms for a
# while; gdb attaches meanwhile.
gdb_guest "$port" -- sh -c "insmod $ko"' && for i in $(seq 100); do mkdir /dev/shm/gdb-$i; sleep 0.05; done; echo "guest went on: $(ls /dev/shm | grep -c gdb-) directories"'

# gdb attaches while the guest boots, and the boot's own overlay makes
# directories on tmpfs too: the breakpoint waits for the command's.
# (Characters, not a string: a string literal needs malloc() in the inferior.)
n='dentry->d_name.name'
bp="break shmem_mkdir if ${n}[0] == 'g' && ${n}[1] == 'd' && ${n}[2] == 'b' && ${n}[3] == '-'"
timeout 300 qemu/gdb -batch -ex "$bp" -ex continue \
	-ex 'print dentry->d_name.name' -ex 'print $lx_current().comm' -ex lx-ps \
	-ex "lx-symbols $TOP/build/modules/default/dump-plant" -ex 'print plant_cache->name' \
	-ex delete -ex detach >"$T/gdb.out" 2>&1 || { cat "$T/gdb.out"; fail "qemu/gdb failed"; }
expect_grep '(^| hit )Breakpoint 1, shmem_mkdir ' "$T/gdb.out"
expect_grep '^\$1 = .* "gdb-[0-9]+"$' "$T/gdb.out"
expect_grep '^\$2 = "mkdir' "$T/gdb.out"
expect_grep ' 1 +guest-init$| 1 +init$' "$T/gdb.out"
expect_grep ' mkdir$' "$T/gdb.out"
# lx-symbols finds the module qemu/build-module built and loads its symbols.
expect_grep "^loading @0xffffffff[0-9a-f]+: $TOP/build/modules/default/dump-plant/dump_plant.ko$" "$T/gdb.out"
expect_grep '^\$3 = 0x[0-9a-f]+ "dump_plant"$' "$T/gdb.out"
gdb_guest_end 'guest went on: 100 directories'

# Under --icount (one vCPU, guest time counts instructions) breakpoints work
# the same; the guest's clock stands still while gdb holds it.
gdb_guest $((port + 1)) --icount -- sh -c 'sleep 1; for i in 1 2 3; do mkdir /dev/shm/gdb-$i; done; echo "icount guest went on"'
timeout 300 qemu/gdb -batch -ex "$bp" -ex continue -ex 'print dentry->d_name.name' \
	-ex delete -ex detach >"$T/gdb.out" 2>&1 || { cat "$T/gdb.out"; fail "qemu/gdb failed under --icount"; }
expect_grep '(^| hit )Breakpoint 1, shmem_mkdir ' "$T/gdb.out"
expect_grep '^\$1 = .* "gdb-1"$' "$T/gdb.out"
gdb_guest_end 'icount guest went on'
