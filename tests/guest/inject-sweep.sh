#!/usr/bin/env bash
# inject sweep over real commands that allocate: a tmpfs mount (many
# distinct sites, ENOMEM reported by mount) and a mkdir on tmpfs; the table,
# --json, --max and --before; settings restored afterwards.
set -euo pipefail
. inject/test-lib.bash

before=$(snapshot failslab)
mkdir -p /dev/shm/m

# Only calls made under path_mount(): no exec, no 9p root under injection.
expect 0 $I sweep failslab --caller path_mount --before 'umount /dev/shm/m 2>/dev/null' \
	-- mount -t tmpfs none /dev/shm/m
cat "$T/out"
umount /dev/shm/m 2>/dev/null || true
has '^ run  skip injected exit kernel site +output$' "$T/out"
has '^   1     0 yes +[1-9][0-9]* +- +alloc_fs_context\+0x[0-9a-f]+ +mount: .*Cannot allocate memory' "$T/out"
has '^ +[0-9]+ +[0-9]+ no +0 +- +- +$' "$T/out"
sites=$(awk 'NR > 1 && $3 == "yes" { print $6 }' "$T/out" | sort -u | wc -l)
((sites >= 5)) || fail "only $sites distinct sites in the mount sweep"
enomem=$(grep -c 'Cannot allocate memory' "$T/out")
((enomem >= 1)) || fail "no run where mount reported ENOMEM"
has "sweep of failslab: [0-9]+ runs, [0-9]+ with an injection at $sites distinct sites, [0-9]+ exited non-zero, 0 with kernel reports$" "$T/err"
echo "ok: mount sweep: $sites distinct sites, $enomem runs with ENOMEM"

# mkdir on tmpfs: the dentry, then the inode allocation fails (getname()
# runs in the syscall wrapper, outside do_mkdirat()).  tmpfs turns a failed
# inode allocation into ENOSPC, not ENOMEM.
expect 0 $I sweep failslab --caller do_mkdirat --before 'rmdir /dev/shm/x 2>/dev/null' \
	-- mkdir /dev/shm/x
cat "$T/out"
has '^   1     0 yes +1 +- +__d_alloc\+0x[0-9a-f]+ +mkdir: .*Cannot allocate memory$' "$T/out"
has '^   2     1 yes +1 +- +shmem_alloc_inode\+0x[0-9a-f]+ +mkdir: .*No space left on device$' "$T/out"
echo "ok: mkdir sweep"

# --json and --max: exactly N runs, machine-readable.
expect 0 $I sweep failslab --json --max 2 --caller path_mount \
	--before 'umount /dev/shm/m 2>/dev/null' -- mount -t tmpfs none /dev/shm/m
umount /dev/shm/m 2>/dev/null || true
python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["capability"] == "failslab", d
assert d["command"] == ["mount", "-t", "tmpfs", "none", "/dev/shm/m"], d
assert [r["run"] for r in d["runs"]] == [1, 2], d
for r in d["runs"]:
    assert r["injected"] == 1 and r["site"] and r["exit"] != 0, r
    assert "Cannot allocate memory" in r["output"], r
    assert r["kernel"] == [] and r["signaled"] is False, r
print("json ok:", [r["site"] for r in d["runs"]])
PY
has 'stopped by --max before a clean run' "$T/err"
echo "ok: --json, --max"

[[ "$(snapshot failslab)" == "$before" ]] || fail "sweep did not restore failslab"
no_leftovers
echo "ok: inject-sweep"
