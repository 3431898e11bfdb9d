#!/usr/bin/env bash
# Inside the guest: build/stapsh (qemu/stapsh.c) speaks stap --remote's
# protocol and forwards every byte of staprun's output, also what is still
# in the pipes when staprun exits and what it writes after "quit".  A
# stand-in staprun (-S) makes the cases exact; the real one is exercised by
# the stap tests through qemu/stap.
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
top=$(cd "$(dirname "$0")/../.." && pwd -P)
stapsh=$top/build/stapsh
[[ -x $stapsh ]] || fail "no $stapsh (qemu/mkinitramfs builds it)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The stand-in: shows its arguments and the module file it was given,
# writes BYTES bytes at once and exits 3; after SIGHUP ("quit") it writes
# its "probe end" output and exits 0.
cat >"$T/staprun" <<'EOF'
#!/bin/bash
bytes=$1 mod=$2
shift 2
printf 'args:'; printf ' [%s]' "$@"; echo
echo "module: $(cat "$mod")"
echo "to stderr" >&2
# what a program it starts inherits (bash itself always ignores SIGQUIT)
sed -n 's/^SigIgn:[[:space:]]*/sigign: /p' /proc/self/status
if [[ $bytes == stream ]]; then
	trap 'exit 0' HUP
	while :; do echo streaming; sleep 0.01; done
fi
if [[ $bytes == wait ]]; then
	trap 'head -c 300000 /dev/zero | tr "\0" e; echo; echo "end done"; exit 0' HUP
	echo waiting
	while :; do sleep 0.05; done
fi
# all of it into a pipe made big enough to hold it (F_SETPIPE_SZ), then
# gone at once: stapsh reads 64 KiB at a time, so most of it is still in
# the pipe when staprun has exited
exec python3 -c '
import fcntl, os, sys
fcntl.fcntl(1, 1031, 1 << 20)
data = b"x" * int(sys.argv[1]) + b"\n"
while data:
    data = data[os.write(1, data):]
sys.exit(3)' "$bytes"
EOF
chmod +x "$T/staprun"

mkdir "$T/tmp"
python3 - "$stapsh" "$T/staprun" "$T/tmp" <<'EOF'
import os, signal, subprocess, sys, time
signal.alarm(300)   # a hang fails the test instead of waiting for the runner

stapsh, staprun, tmp = sys.argv[1:4]

def ignore_signals():
    # as guest-init's background job starts it: SIGINT and SIGQUIT ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)

def session():
    env = dict(os.environ, TMPDIR=tmp)
    return subprocess.Popen([stapsh, "-S", staprun], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, preexec_fn=ignore_signals)

def send(p, text, data=b""):
    p.stdin.write(text.encode() + data)
    p.stdin.flush()

def line(p):
    l = p.stdout.readline().decode()
    assert l.endswith("\n"), ("short line", l)
    return l

def frames(p):
    """Read data frames until "quit"; the bytes of each stream."""
    out = {"stdout": b"", "stderr": b""}
    while True:
        l = line(p)
        if l == "quit\n":
            return out
        if l == "\n":
            continue
        kw, stream, n = l.split()
        assert kw == "data" and stream in out, l
        data = p.stdout.read(int(n))
        assert len(data) == int(n), ("short frame", l, len(data))
        out[stream] += data

def start(p, mode, module):
    """Store a module file and run the stand-in in MODE with it."""
    send(p, "file 3 %s\n" % module, b"mod")
    assert line(p) == "OK\n"
    send(p, "run %s %s\n" % (mode, module))
    assert line(p) == "OK\n"

def greet(p):
    send(p, "stap 4.8\n")
    l = line(p).split()
    assert l[0] == "stapsh" and l[1] == "4.8" and l[2] == os.uname().machine and l[3] == os.uname().release, l
    send(p, "option data\n")
    assert line(p) == "OK\n"

# 1. the greeting, options, files, quoted-printable arguments; staprun's
#    output left in the pipe when it exits, all of it; its status
p = session()
greet(p)
send(p, "option dyninst\n")
assert line(p).startswith("ERROR: option 'dyninst' is not supported"), "dyninst accepted"
send(p, "file 5 ../evil\n", b"12345")
assert line(p).startswith("ERROR: cannot store file '../evil'")
send(p, "file 6 stap_x.ko\n", b"MODULE")
assert line(p) == "OK\n", "file not stored"
send(p, "run 900000 stap_x.ko -o=20a=3Db /tmp/x\n")
assert line(p) == "OK\n", "run refused"
# not reading for a while: stapsh blocks on its full stdout while the
# stand-in fills its pipe and exits, so nearly all of it is still there
time.sleep(3)
out = frames(p)
text = out["stdout"].decode()
assert text.startswith("args: [-o a=b] [/tmp/x]\nmodule: MODULE\n"), text[:200]
ign = int(text.split("sigign: ")[1].split()[0], 16)
assert not ign & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGQUIT - 1) | 1 << (signal.SIGPIPE - 1)), \
    "staprun started with SIGINT, SIGQUIT or SIGPIPE ignored: SigIgn %x" % ign
assert text.endswith("x" * 900000 + "\n"), "the end of staprun's output is missing (%d bytes)" % len(text)
assert out["stderr"] == b"to stderr\n", out["stderr"]
assert p.wait(timeout=60) == 3, "stapsh did not exit with staprun's status"
print("ok: all %d bytes that staprun left in its pipe arrived, then quit; status 3" % len(text))

# 2. "quit" while staprun runs: it is asked to stop, and what it writes
#    then (a script's probe end) still arrives before quit
p = session()
greet(p)
start(p, "wait", "m.ko")
seen = b""
while b"waiting" not in seen:
    l = line(p)
    if l.startswith("data stdout "):
        seen += p.stdout.read(int(l.split()[2]))
    elif l.startswith("data stderr "):
        p.stdout.read(int(l.split()[2]))
send(p, "quit\n")
out = frames(p)
assert out["stdout"].endswith(b"e" * 300000 + b"\nend done\n"), "probe end output lost after quit"
assert p.wait(timeout=60) == 0
print("ok: after quit, staprun's last %d bytes arrived before quit" % len(out["stdout"]))

# 3. a staprun that fails passes its status back; a bad file size ends
#    the session (its data cannot be skipped) with status 2
p = session()
greet(p)
send(p, "run\n")
assert line(p) == "OK\n"   # the stand-in runs with no arguments ...
out = frames(p)            # ... and fails: its status comes back
assert p.wait(timeout=60) != 0
p = session()
greet(p)
send(p, "file x12 a.ko\n")
assert line(p).startswith("ERROR: bad file size 'x12'")
p.stdin.close()
assert p.wait(timeout=60) == 2, "a broken session did not exit 2"
print("ok: bad requests get ERROR replies; a bad file size ends the session with status 2")

# 4. a command line too long to be one is skipped to its end, answered
#    with an ERROR, and the session goes on
p = session()
greet(p)
send(p, "file 3 " + "a" * 70000 + "\n")
assert line(p).startswith("ERROR: command line longer than"), "overlong line not refused"
send(p, "option verbose\n")
assert line(p) == "OK\n", "the session did not go on after an overlong line"
p.stdin.close()
assert p.wait(timeout=60) == 0
print("ok: an overlong command line gets an ERROR and the session goes on")

# 5. the client stops reading (a closed socket) while staprun streams:
#    stapsh stops staprun and ends, though its input is still open
p = session()
greet(p)
start(p, "stream", "s.ko")
while b"streaming" not in p.stdout.read1(4096):
    pass
p.stdout.close()
assert p.wait(timeout=60) == 0, "stapsh went on after its client stopped reading"
p.stdin.close()
print("ok: a client that hangs up mid-session stops staprun and stapsh")
EOF
# each session removed its directory (in $TMPDIR) and the files in it
left=$(find "$T/tmp" -mindepth 1 | wc -l)
((left == 0)) || fail "stapsh left $(find "$T/tmp" -mindepth 1) behind"
echo "ok: no stapsh directory left behind"
# usage errors
for bad in "-x:unknown option -x" "-l:option -l needs an argument" "a:unexpected argument 'a'"; do
	rc=0
	"$stapsh" "${bad%%:*}" 2>"$T/err" || rc=$?
	if [[ $rc != 2 ]] || ! grep -qF "${bad#*:}" "$T/err"; then
		fail "stapsh ${bad%%:*}: status $rc, $(cat "$T/err")"
	fi
done
echo "ok: bad options exit 2 with a message"
