#!/usr/bin/env bash
# qemu/stap delivers all of a script's output: to a host reader slower than
# the guest (everything queues up, and the script's last lines arrive
# together with the end of the session), and after Ctrl-C (the probe end
# runs in the guest and its output comes back).  systemtap 4.8's stapsh
# lost both, and the client hung on the first; see qemu/stapsh.c.  And
# one probe run's output of many KB, which stap's relay code cut short.
. "$(dirname "$0")/../lib.sh"

# A reader of ~100 KB/s: the guest produces ~500 KB within a second or two.
slow_reader() {
	python3 -c '
import os, time
while True:
    b = os.read(0, 4096)
    if not b:
        break
    os.write(1, b)
    time.sleep(0.04)'
}
script='global n
probe timer.ms(2) {
	for (i = 0; i < 100; i++)
		printf("tick %d line %d\n", n, i)
	if (++n == 300)
		exit()
}
probe end { printf("the end after %d ticks\n", n) }'
rc=0
qemu/stap --new --timeout 300 -DMAXACTION=100000 -e "$script" 2>"$T/err" | slow_reader >"$T/out" ||
	rc=$?
((rc == 0)) || { tail "$T/err"; fail "qemu/stap with a slow reader exited $rc"; }
expect_count 30000 '^tick [0-9]+ line [0-9]+$'
expect_grep '^the end after 300 ticks$' "$T/out"
# and in order: the last tick's last line just before the end
[[ $(tail -n 2 "$T/out" | head -n 1) == "tick 299 line 99" ]] || fail "the output is out of order"

# Ctrl-C: the terminal sends SIGINT to the whole foreground group (here a
# session of its own).  QEMU is out of it; the script's probe end runs.
setsid qemu/stap --new --timeout 300 -DMAXACTION=100000 -e 'probe begin { printf("started\n") }
probe end { for (i = 0; i < 3000; i++) printf("end line %d\n", i); printf("end done\n") }' \
	>"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 1200); do
	grep -q '^started$' "$T/out" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
expect_grep '^started$' "$T/out"
sleep 1
kill -INT -- "-$pid"
wait "$pid" || true
expect_count 3000 '^end line [0-9]+$'
expect_grep '^end done$' "$T/out"

# One probe run that prints much more than stap's 8 KiB print buffer: each
# full buffer is one message into the relay sub-buffers, and before the
# runtime fix (qemu/stap-runtime.patch) every other one was dropped.
expect_status 0 qemu/stap --new -DMAXACTION=100000 -e 'probe end {
	for (i = 0; i < 6000; i++)
		printf("line %d of the end probe\n", i)
}' -- true
expect_count 6000 '^line [0-9]+ of the end probe$'
if grep -q 'transport failures' "$T/err"; then
	cat "$T/err"
	fail "stap reported transport failures"
fi
expect_status 0 qemu/stap --new -DMAXACTION=100000 -e 'global n
probe timer.ms(100) {
	for (i = 0; i < 2000; i++)
		printf("tick %d line %d\n", n, i)
	if (++n == 5)
		exit()
}
probe end { printf("the end after %d ticks\n", n) }'
expect_count 10000 '^tick [0-4] line [0-9]+$'
expect_grep '^the end after 5 ticks$' "$T/out"

# The guest's stapsh (built by the boots above) loads modules: on the host
# it refuses before reading a single request.
rc=0
build/stapsh </dev/null >"$T/out" 2>"$T/err" || rc=$?
[[ $rc == 2 ]] || fail "build/stapsh on the host exited $rc, expected 2"
expect_grep 'not in an mmfi guest' "$T/err"
no_qemu_left
