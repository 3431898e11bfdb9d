#!/usr/bin/env bash
# Every one-liner of the cookbook in stap-scripts/README.md, compiled and run
# in the guest as written, with the workload written after it, and its
# output checked.  One-liners with the same workload run together in one
# stap session (the first with -e, the others with -E), which keeps this to
# one compile and one boot per workload; their outputs are told apart by
# their formats.  A one-liner without a check here, or a check without a
# one-liner, fails the test.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.bash"
README=stap-scripts/README.md
# shellcheck disable=SC2034	# used by stap_run: the one-liners' own options only
STAP_INCLUDE=()

# What each one-liner's output must contain (an ERE, on one line).
declare -A expect=(
	[kmalloc-sites]='^[a-z_][a-z0-9_.]*\+?[^ ]* +[0-9]+ calls +[0-9]+ bytes$'
	[slab-waste]='^[a-z_][a-z0-9_.]* +[0-9]+ bytes wasted in [0-9]+ calls$'
	[one-cache]='^mmcalls +alloc +[1-9][0-9]* dentries$'
	[irq-frees]='^[a-z_][a-z0-9_.]* +[1-9][0-9]* frees in interrupt context$'
	[page-orders]='^ +9 \|[ @]* [1-9][0-9]*$'
	[nosleep]='^ +[0-9]+ [a-z_][a-z0-9_.]* +GFP_(ATOMIC|NOWAIT)'
	[fault-latency]='^[1-9][0-9]* page faults, ns:$'
	[faults]='^mmcalls +write +[1-9][0-9]* faults$'
	[thp]='^mmcalls +got a huge page +[1-9][0-9]*$'
	[mmaps]='^mmcalls +[1-9][0-9]* mmaps +[0-9]+ bytes, largest 4194304$'
	[command-caches]='^(dentry|filp|shmem_inode_cache) +[1-9][0-9]*$'
	[vmalloc]='^(swap_cgroup_swapon|sys_swapon|__x64_sys_swapon|[a-z_]*swap[a-z_]*) +[0-9]+ calls +[1-9][0-9]* bytes$'
	[reclaim-stalls]='^mmcalls +[1-9][0-9]* reclaim stalls, +[0-9]+ us in all, longest [0-9]+ us$'
	[swap-outs]='^mmcalls +[1-9][0-9]* pages written to swap$'
)

# Parse the README: after each "<!-- oneliner: ID -->" an indented block,
#   qemu/stap [OPTIONS] -e 'SCRIPT' [\] -- WORKLOAD
mapfile -t ids < <(sed -n 's/^<!-- oneliner: \([a-z0-9-]*\) -->$/\1/p' "$README")
((${#ids[@]} > 0)) || fail "no one-liners in $README"
declare -A script opts workload
for id in "${ids[@]}"; do
	[[ -n ${expect[$id]:-} ]] || fail "one-liner '$id' in $README has no check in $0"
	block=$(awk -v id="$id" '$0 == "<!-- oneliner: " id " -->" { f = 1; next }
		f && /^    / { print substr($0, 5); n++; next } f && n { exit }' "$README")
	[[ $block == "qemu/stap "*"-e '"*"' "*"-- "* ]] || fail "one-liner '$id' is not qemu/stap ... -e '...' -- WORKLOAD: $block"
	head=${block%%-e \'*}
	rest=${block#*-e \'}
	script[$id]=${rest%\'*}
	tail=${rest##*\'}
	tail=${tail//\\$'\n'/}
	tail=${tail#"${tail%%[! ]*}"}
	workload[$id]=${tail#-- }
	opts[$id]=${head#qemu/stap}
done
for id in "${!expect[@]}"; do
	[[ " ${ids[*]} " == *" $id "* ]] || fail "check '$id' has no one-liner in $README"
done
echo "ok: ${#ids[@]} one-liners in $README, each with a check"

# Group by workload, in README order; run each group once.
mapfile -t workloads < <(for id in "${ids[@]}"; do echo "${workload[$id]}"; done | awk '!seen[$0]++')
for w in "${workloads[@]}"; do
	args=() group=()
	for id in "${ids[@]}"; do
		[[ ${workload[$id]} == "$w" ]] || continue
		group+=("$id")
		read -ra o <<<"${opts[$id]}"
		for x in "${o[@]}"; do [[ " ${args[*]} " == *" $x "* ]] || args+=("$x"); done
	done
	for id in "${group[@]}"; do
		if [[ " ${args[*]} " == *" -e "* ]]; then args+=(-E "${script[$id]}"); else args+=(-e "${script[$id]}"); fi
	done
	read -ra wl <<<"$w"
	echo "== ${group[*]}: -- $w"
	stap_run 0 -s 32 "${args[@]}" -- "${wl[@]}"
	cp "$T/out" "$TOP/build/stap-scripts/cookbook-$(echo "$w" | tr -c 'a-z0-9' '_').out"
	for id in "${group[@]}"; do
		grep -qE -- "${expect[$id]}" "$T/out" || { cat "$T/out"; fail "one-liner '$id': no line matching '${expect[$id]}'"; }
		echo "ok: one-liner '$id' printed a line matching '${expect[$id]}'"
	done
done
no_qemu_left
