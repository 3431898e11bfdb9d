# shellcheck shell=bash
# bench/lib.sh: helpers of the benchmarks; sourced after qemu/lib.sh, in
# $MMFI_TOP.

# bench_count VAR DEFAULT: the value of environment variable VAR, DEFAULT
# if unset; exits 2 naming VAR if it is not a positive integer.
bench_count() {
	local v=${!1:-$2}
	[[ $v =~ ^[1-9][0-9]*$ ]] || { msg "$1 must be a positive integer, not '$v'"; exit "$MMFI_EXIT_USAGE"; }
	echo "$v"
}

# bench_median [FORMAT]: the median of the numbers on stdin (the mean of
# the middle two for an even count), printed with FORMAT (default %.6f).
bench_median() {
	sort -n | awk -v f="${1:-%.6f}" '{ a[NR] = $1 }
		END { printf f, (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# bench_cc: the compiler for kernel builds, through ccache when present.
bench_cc() {
	if command -v ccache >/dev/null; then echo "ccache gcc"; else echo gcc; fi
}

# bench_module SRC KBUILD OUT: the out-of-tree module in directory SRC
# (its .c files and Kbuild), built in OUT for the kernel build tree KBUILD.
bench_module() {
	rm -rf "$3"
	mkdir -p "$3"
	cp "$1"/*.c "$1/Kbuild" "$3/"
	make -s -C "$MMFI_SRC" O="$2" M="$3" CC="$(bench_cc)" modules >/dev/null
}

# bench_kmalloc_module KBUILD OUT: bench/kmalloc-loop's module.
bench_kmalloc_module() { bench_module bench/kmalloc-loop "$1" "$2"; }

# bench_variant_kernel DIR CONFIG_OPTION...: build in DIR the kernel of
# build/kbuild with those options turned off (a full build the first
# time, incremental later); dies if one of them is still set after
# olddefconfig.
bench_variant_kernel() {
	local dir=$1 o
	local -a edits=()
	shift
	for o in "$@"; do edits+=(-e "s/^$o=.*/# $o is not set/"); done
	mkdir -p "$dir"
	sed "${edits[@]}" "$MMFI_KBUILD/.config" >"$dir/.config.new"
	if cmp -s "$dir/.config.new" "$dir/.config.want" 2>/dev/null; then
		rm -f "$dir/.config.new"
	else
		cp "$dir/.config.new" "$dir/.config"
		mv "$dir/.config.new" "$dir/.config.want"
	fi
	make -s -C "$MMFI_SRC" O="$dir" olddefconfig >/dev/null
	for o in "$@"; do
		! grep -q "^$o=" "$dir/.config" || die "$o is still set in $dir"
	done
	make -s -C "$MMFI_SRC" O="$dir" -j"$(nproc)" CC="$(bench_cc)" bzImage modules >/dev/null
}
