#!/usr/bin/env bash
# failslab aimed at one cache, one caller and one task fails exactly that
# allocation: the counters and the tracepoint say so, and nothing else fails.
# $FS and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
fi_save $FS
fi_arm_base $FS
echo shmem_inode_cache >$FS/cache
echo alloc_inode >$FS/caller
echo -1 >$FS/times
trace_on

marked_start 'echo x >/dev/shm/t-victim'
echo "$MARKED_PID" >$FS/pid
echo 100 >$FS/probability
# A bystander creating files at the same time is not affected.
for i in 1 2 3; do echo y >/dev/shm/t-bystander$i || fail "bystander failed"; done
marked_go
echo 0 >$FS/probability
((MARKED_RC != 0)) || fail "the marked task's file creation succeeded"
[[ ! -e /dev/shm/t-victim ]] || fail "/dev/shm/t-victim exists"
ok "marked task failed, bystanders did not"
expect_eq injected "$(counter $FS injected)" 1
expect_eq matched "$(counter $FS matched)" 1
ev=$(trace_events)
echo "$ev"
expect_eq "trace events" "$(grep -c . <<<"$ev")" 1
# The task is the event's common_pid, named by the tracer (bash-PID).
grep -Eq "^ *bash-$MARKED_PID .*fault_inject: name=failslab action=fail caller=shmem_alloc_inode\+0x[0-9a-f]+/0x[0-9a-f]+ size=[0-9]+ gfp=GFP_KERNEL\$" <<<"$ev" ||
	fail "event does not name shmem_alloc_inode and the marked task"
ok "tracepoint names the allocation site"

# Reading back shows the normalized list; a caller that is not on the
# path (d_alloc) matches nothing.
expect_eq caller "$(cat $FS/caller)" alloc_inode
echo d_alloc >$FS/caller
echo 0 >$FS/calls
marked_start 'echo x >/dev/shm/t-other'
echo "$MARKED_PID" >$FS/pid
echo 100 >$FS/probability
marked_go
echo 0 >$FS/probability
expect_eq "status with caller=d_alloc" "$MARKED_RC" 0
expect_eq "matched with caller=d_alloc" "$(counter $FS matched)" 0
(($(counter $FS calls) > 0)) || fail "no calls counted while armed"

# reject-caller excludes.
echo >$FS/caller
echo alloc_inode >$FS/reject-caller
marked_start 'echo x >/dev/shm/t-rejected'
echo "$MARKED_PID" >$FS/pid
echo 100 >$FS/probability
marked_go
echo 0 >$FS/probability
expect_eq "status with reject-caller=alloc_inode" "$MARKED_RC" 0
expect_eq "injected with reject-caller" "$(counter $FS injected)" 0
rm -f /dev/shm/t-*

# A name stands for the parts gcc made of the function: where this kernel
# has only a clone of alloc_super() (alloc_super.constprop.0), the plain
# name is accepted and matches the calls the clone makes.
clone=$(awk '$3 ~ /^alloc_super\./ && $4 == "" { print $3; exit }' /proc/kallsyms)
if [[ -n $clone ]] && ! grep -q ' alloc_super$' /proc/kallsyms; then
	echo >$FS/reject-caller
	echo >$FS/cache
	echo alloc_super >$FS/caller || fail "'alloc_super' refused although $clone exists"
	expect_eq caller "$(cat $FS/caller)" alloc_super
	mkdir -p /tmp/t-sb
	echo >$TRACING/trace
	marked_start 'exec mount -t tmpfs none /tmp/t-sb'
	echo "$MARKED_PID" >$FS/pid
	echo 100 >$FS/probability
	marked_go
	echo 0 >$FS/probability
	((MARKED_RC != 0)) || { umount /tmp/t-sb; fail "the mount succeeded"; }
	ev=$(trace_events)
	echo "$ev"
	grep -Eq "caller=${clone//./\\.}\+0x" <<<"$ev" || fail "no injection reported in $clone"
	ok "'alloc_super' stands for $clone"
else
	echo "alloc_super is not only a clone in this kernel: nothing to check"
fi
