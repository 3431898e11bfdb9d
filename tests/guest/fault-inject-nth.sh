#!/usr/bin/env bash
# skip=N fails exactly the (N+1)th matching call, deterministically.
# $FS and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
fi_save $FS
fi_arm_base $FS
echo shmem_inode_cache >$FS/cache
echo 1 >$FS/times
for round in 1 2; do
	rm -f /dev/shm/n-*
	echo 0 >$FS/calls
	marked_start 'for i in 1 2 3 4 5; do echo x >/dev/shm/n-$i; done; ls /dev/shm | grep -c "^n-"'
	echo "$MARKED_PID" >$FS/pid
	echo 2 >$FS/skip
	echo 1 >$FS/times
	echo 100 >$FS/probability
	marked_go
	echo 0 >$FS/probability
	for i in 1 2 4 5; do [[ -e /dev/shm/n-$i ]] || fail "round $round: n-$i missing"; done
	[[ ! -e /dev/shm/n-3 ]] || fail "round $round: n-3 was created"
	ok "round $round: only the 3rd file creation failed"
	expect_eq "round $round matched" "$(counter $FS matched)" 5
	expect_eq "round $round injected" "$(counter $FS injected)" 1
	expect_eq "round $round skip left" "$(cat $FS/skip)" 0
done
rm -f /dev/shm/n-*
