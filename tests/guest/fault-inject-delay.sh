#!/usr/bin/env bash
# action=delay stalls the matched allocation instead of failing it, counts
# against times, and leaves other tasks alone.
# $FS and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
fi_save $FS
fi_arm_base $FS
echo shmem_inode_cache >$FS/cache
echo delay >$FS/action
echo 300000 >$FS/delay-us
echo 2 >$FS/times
trace_on
marked_start 'for i in 1 2 3; do echo x >/dev/shm/d-$i; done'
echo "$MARKED_PID" >$FS/pid
echo 100 >$FS/probability
# Another task creating files meanwhile is neither delayed nor counted.
for i in 1 2 3; do echo y >/dev/shm/d-other$i; done
t0=$(date +%s%N)
marked_go
t1=$(date +%s%N)
echo 0 >$FS/probability
expect_eq "status under delay" "$MARKED_RC" 0
for i in 1 2 3; do [[ -e /dev/shm/d-$i ]] || fail "d-$i missing: a delay must not fail"; done
ms=$(((t1 - t0) / 1000000))
# A lower bound only: two 300 ms delays cannot take less than 600 ms.
((ms >= 600)) || fail "the marked task took ${ms} ms, less than two 300 ms delays"
ok "marked task took ${ms} ms (>= 600)"
expect_eq injected "$(counter $FS injected)" 2
expect_eq matched "$(counter $FS matched)" 3
expect_eq times "$(cat $FS/times)" 0
expect_eq "delay events" "$(trace_events | grep -c 'action=delay')" 2
rm -f /dev/shm/d-*
