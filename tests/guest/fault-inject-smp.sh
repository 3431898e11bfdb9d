#!/usr/bin/env bash
# calls/matched are exact with concurrent workers on several CPUs.
# $FS and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
cpus=$(nproc)
((cpus >= 2)) || fail "needs at least 2 CPUs, have $cpus"
fi_save $FS
fi_arm_base $FS
echo shmem_inode_cache >$FS/cache
echo fiworker >$FS/comm
echo 0 >$FS/times	# count, never inject
echo 100 >$FS/probability
worker() {	# N files in /dev/shm/wK
	bash -c 'echo -n fiworker >/proc/self/comm; mkdir -p "$1"
		for ((i = 0; i < $2; i++)); do echo x >"$1/$i"; done' _ "/dev/shm/w$1" "$2"
}
# One worker alone: how many matching allocations per file.
worker solo 100
per=$(counter $FS matched)
((per >= 100)) || fail "100 files made only $per matching allocations"
echo 0 >$FS/calls
n=$((cpus < 4 ? 4 : cpus))
for k in $(seq "$n"); do worker "$k" 250 & done
wait
echo 0 >$FS/probability
want=$((n * 250 * per / 100))
expect_eq "matched by $n concurrent workers on $cpus CPUs" "$(counter $FS matched)" "$want"
expect_eq injected "$(counter $FS injected)" 0
rm -rf /dev/shm/w*
