#!/usr/bin/env bash
# inject sweep over real commands that allocate: a tmpfs mount (many
# distinct sites, ENOMEM reported by mount) and a mkdir on tmpfs; the table,
# --json, --max, --setup and --cleanup; state damaged by a failure found by
# the clean runs (and named by --find-damage); settings restored afterwards.
set -euo pipefail
. inject/test-lib.bash

before=$(snapshot failslab)
mkdir -p /dev/shm/m

# Only calls made under path_mount(): no exec, no 9p root under injection.
expect 0 $I sweep failslab --caller path_mount --cleanup 'umount /dev/shm/m' \
	-- mount -t tmpfs none /dev/shm/m
cat "$T/out"
has '^ run  skip injected exit kernel check   site +output$' "$T/out"
has '^   1     0 yes +[1-9][0-9]* +- +- +alloc_fs_context\+0x[0-9a-f]+ +mount: .*Cannot allocate memory' "$T/out"
# the last run, nothing injected, ended like the clean run before the sweep
has '^ +[0-9]+ +[0-9]+ no +0 +- +ok +- +$' "$T/out"
mountpoint -q /dev/shm/m && fail "--cleanup did not unmount after the last run"
sites=$(awk 'NR > 1 && $3 == "yes" { print $7 }' "$T/out" | sort -u | wc -l)
((sites >= 5)) || fail "only $sites distinct sites in the mount sweep"
enomem=$(grep -c 'Cannot allocate memory' "$T/out")
((enomem >= 1)) || fail "no run where mount reported ENOMEM"
has "sweep of failslab: [0-9]+ runs, [0-9]+ with an injection at $sites distinct sites, [0-9]+ exited non-zero, 0 with kernel reports$" "$T/err"
echo "ok: mount sweep: $sites distinct sites, $enomem runs with ENOMEM"

# mkdir on tmpfs: the dentry, then the inode allocation fails (getname()
# runs in the syscall wrapper, outside do_mkdirat()).  tmpfs turns a failed
# inode allocation into ENOSPC, not ENOMEM.
expect 0 $I sweep failslab --caller do_mkdirat --setup 'rmdir /dev/shm/x 2>/dev/null' \
	-- mkdir /dev/shm/x
cat "$T/out"
has '^   1     0 yes +1 +- +- +__d_alloc\+0x[0-9a-f]+ +mkdir: .*Cannot allocate memory$' "$T/out"
has '^   2     1 yes +1 +- +- +shmem_alloc_inode\+0x[0-9a-f]+ +mkdir: .*No space left on device$' "$T/out"
echo "ok: mkdir sweep"

# --json and --max: exactly N runs, machine-readable.
# (--before is the old name of --setup.)
expect 0 $I sweep failslab --json --max 2 --caller path_mount \
	--before 'umount /dev/shm/m 2>/dev/null' -- mount -t tmpfs none /dev/shm/m
umount /dev/shm/m
python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["capability"] == "failslab", d
assert d["command"] == ["mount", "-t", "tmpfs", "none", "/dev/shm/m"], d
assert [r["run"] for r in d["runs"]] == [1, 2], d
assert d["baseline"] == {"exit": 0, "signaled": False}, d
assert d["damage"] is None, d
for r in d["runs"]:
    assert r["injected"] == 1 and r["site"] and r["exit"] != 0, r
    assert "Cannot allocate memory" in r["output"], r
    assert r["kernel"] == [] and r["signaled"] is False, r
# the clean run after the last one (--max), none after the first
assert d["runs"][0]["check"] is None, d
assert d["runs"][1]["check"] == {"exit": 0, "same": True}, d
print("json ok:", [r["site"] for r in d["runs"]])
PY
has 'stopped by --max before a clean run' "$T/err"
echo "ok: --json, --max"

# A command's own side effects: without --cleanup, mkfifo finds its fifo
# from before and fails, which the sweep reports as changed state; with
# it, nothing changed.
rm -f /dev/shm/fifo
expect 1 $I sweep failslab --caller do_mknodat -- mkfifo /dev/shm/fifo
cat "$T/out" "$T/err"
has '^   1     0 no +1 +- +CHANGED +- +mkfifo: .*File exists$' "$T/out"
has 'run 1, with nothing injected, exited 1, the clean run before it 0: CMD changes its own state \(see --setup and --cleanup\)' "$T/err"
rm -f /dev/shm/fifo
expect 0 $I sweep failslab --caller do_mknodat --cleanup 'rm -f /dev/shm/fifo' -- mkfifo /dev/shm/fifo
has '^ +[0-9]+ +[0-9]+ no +0 +- +ok +- +$' "$T/out"
[[ ! -e /dev/shm/fifo ]] || fail "--cleanup did not run after the last run"
echo "ok: --cleanup undoes the command's own state; without it the sweep says so"

# Damage: a lock directory that an error path forgets to remove.  Runs 1
# and 2 fail the lock's own mkdir; run 3 fails the mkdir after it, and the
# lock stays: every later run stops at "File exists".  --find-damage makes
# a clean run after each run and names run 3; without it, the last run
# differs from the baseline and runs 1-3 are the suspects.
locked='mkdir /dev/shm/lock && mkdir /dev/shm/lock/work && rmdir /dev/shm/lock/work /dev/shm/lock'
rm -rf /dev/shm/lock
expect 1 $I sweep failslab --caller do_mkdirat --find-damage -- sh -c "$locked"
cat "$T/out" "$T/err"
has '^   1     0 yes +1 +- +ok +__d_alloc\+' "$T/out"
has '^   2     1 yes +1 +- +ok +shmem_alloc_inode\+' "$T/out"
has '^   3     2 yes +1 +- +CHANGED +__d_alloc\+' "$T/out"
[[ $(awk 'NR > 1 && $1 ~ /^[0-9]+$/' "$T/out" | wc -l) == 3 ]] || fail "--find-damage did not stop at run 3"
has 'sweep of failslab: 3 runs, .*\(stopped: a clean run changed\)$' "$T/err"
has 'state damaged after run 3 \(site __d_alloc\+0x[0-9a-f]+\): a clean run now exits 1, before the sweep it exited 0' "$T/err"
rm -rf /dev/shm/lock
expect 1 $I sweep failslab --caller do_mkdirat -- sh -c "$locked"
has '^   4     3 no +1 +- +CHANGED +- +mkdir: .*File exists$' "$T/out"
has 'state damaged after one of runs 1-3 \(sites __d_alloc\+.* shmem_alloc_inode\+.* __d_alloc\+.*\): a clean run now exits 1' "$T/err"
rm -rf /dev/shm/lock
echo "ok: damage found, and named by --find-damage"

# Bad arguments: status 2, nothing armed.
expect 2 $I sweep failslab --check-every 0 -- true
has 'check-every' "$T/err"

[[ "$(snapshot failslab)" == "$before" ]] || fail "sweep did not restore failslab"
no_leftovers
echo "ok: inject-sweep"
