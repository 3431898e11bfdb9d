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

# bench_repro_get DIR KEY: a value from the summary of a qemu/repro run.
bench_repro_get() { sed -n "s/^$2=//p" "$1/summary"; }

# bench_repro_pct X: the fraction X as a percentage, "95.0%".
bench_repro_pct() { awk -v x="$1" 'BEGIN { printf "%.1f%%", 100 * x }'; }

# bench_repro_row NAME MODE DIR STATUS [EXTRA]: the table row of the
# qemu/repro run in DIR that exited STATUS (its log in DIR.log): reproduced,
# rate, 95% interval, first reproduction, time per attempt, then EXTRA.
bench_repro_row() {
	local d=$3 first
	if (($4 > 1)) || [[ ! -f $d/summary ]]; then
		printf '%-20s %-6s qemu/repro failed (status %s), see %s\n' "$1" "$2" "$4" "$d.log"
		return
	fi
	first=$(bench_repro_get "$d" first_seconds)
	if [[ -n $first ]]; then
		first="$first s (#$(bench_repro_get "$d" first_attempt))"
	else
		first="none in $(bench_repro_get "$d" wall_seconds) s"
	fi
	printf '%-20s %-6s %9s %7s  %-15s %-22s %8s s %s\n' "$1" "$2" \
		"$(bench_repro_get "$d" reproduced)/$(bench_repro_get "$d" attempts)" \
		"$(bench_repro_pct "$(bench_repro_get "$d" rate)")" \
		"$(bench_repro_pct "$(bench_repro_get "$d" ci_low)")-$(bench_repro_pct "$(bench_repro_get "$d" ci_high)")" \
		"$first" "$(bench_repro_get "$d" mean_attempt_s)" "${5:-}"
}

# bench_repro_header TITLE FIRST-COLUMN: the heading of such rows.
bench_repro_header() {
	echo "$1"
	printf '%-20s %-6s %9s %7s  %-15s %-22s %10s\n' "$2" mode reproduced rate "95% CI" \
		"first reproduction" "per attempt"
}
