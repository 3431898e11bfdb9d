#!/usr/bin/env bash
# Random and hostile strings (thousands with FUZZ_SIZE=long) written to every new file: each
# rejected write leaves the whole configuration as it was, nothing oopses.
# $FS and friends are fixed paths without spaces.
# shellcheck disable=SC2086
. "$(dirname "$0")/lib.bash"
fi_save $FS
PA=/sys/kernel/debug/fail_page_alloc
declare -A PA_SAVED=()
for f in $(fi_files $PA); do PA_SAVED[$f]=$(cat "$f"); done
restore_all() {
	fi_restore
	for f in "${!PA_SAVED[@]}"; do echo "${PA_SAVED[$f]}" >"$f" 2>/dev/null || true; done
}
trap restore_all EXIT
kmsg_before=$(dmesg | wc -l)

# shellcheck disable=SC1003 # a lone backslash is one of the values
hostile=('' ' ' '-1' '18446744073709551616' '99999999999999999999999' '0x' '0xffffffffffffffff'
	'1 2' 'abc' ',' ',,' 'foo,' ',foo' 'a:b:c' ':' 'vmlinux:' ':kfree' 'kfree,,kfree'
	'no_such_symbol_xyz' '__GFP_BOGUS' '__GFP_NORETRY|' '|' '__GFP_NORETRY||__GFP_IO' 'GFP_KERNEL|0x'
	'fail,delay' 'delayed' 'FAIL' $'\x01\x02' "$(printf 'A%.0s' {1..300})" '*' '[' '\\' '%s%s%n'
	'1e3' '+5' '--1' '0b101' '4294967296' '2147483648' '-2147483649')
# Random strings: printable ones of 1-30 characters and
# raw bytes (no NUL or newline: a shell string cannot hold the first, and
# the second ends a line the kernel would see as the end of the value).
# FUZZ_SEED=N (default 7) seeds them; FUZZ_SIZE=short (make check: 60 per
# file) or long (make fuzz: 200 per file).
seed=${FUZZ_SEED:-7}
case ${FUZZ_SIZE:-short} in
short) nrand=30 ;;
long) nrand=100 ;;
*) fail "FUZZ_SIZE=$FUZZ_SIZE: expected short or long" ;;
esac
echo "fuzz: seed $seed, size ${FUZZ_SIZE:-short}"
# bash's own generator, seeded, so that nothing forks: under TCG a fork or
# an interpreter's start costs what hundreds of writes do.
RANDOM=$seed
randoms=()
for ((i = 0; i < 2 * nrand; i++)); do
	len=$((RANDOM % 30 + 1)) s=
	for ((j = 0; j < len; j++)); do
		if ((i < nrand)); then
			b=$((RANDOM % 94 + 33))	# printable, no space
		else
			b=$((RANDOM % 256))
			((b != 0 && b != 10)) || b=120	# 'x'
		fi
		printf -v h '%02x' "$b"
		printf -v c '%b' "\\x$h"
		s+=$c
	done
	randoms+=("$s")
done
((${#randoms[@]} == 2 * nrand)) || fail "could not make random strings (${#randoms[@]})"
files=(caller reject-caller pid comm skip gfp-require gfp-reject action delay-us
	stacktrace-depth cache min-size max-size calls matched injected)
pa_files=(max-order min-order gfp-require caller)
rejected=0 accepted=0

# try_write DIR FILE VALUE: write VALUE to DIR/FILE.  A rejected write must
# leave every configuration file of DIR as it was.  An accepted one must read
# back as a value that the file accepts again without a change (what a user
# saves is what he can restore).  The snapshot of DIR from before the write
# is kept from the last call (snap_of names its directory; anything else
# that writes the configuration clears snap_of).
snap='' snap_of=''
# unchanged DIR WHAT: fail unless DIR's configuration is still $snap, saying
# that WHAT changed it.
unchanged() {
	local after
	fi_snapshot_to after "$1"
	[[ $snap == "$after" ]] && return 0
	diff <(tr '|' '\n' <<<"$snap") <(tr '|' '\n' <<<"$after") >&2 || true
	fail "$2 changed the configuration (FUZZ_SEED=$seed)"
}
try_write() {
	local dir=$1 file=$2 value=$3 back q
	[[ $snap_of == "$dir" ]] || { fi_snapshot_to snap "$dir"; snap_of=$dir; }
	printf -v q '%q' "$value"	# no fork: this runs thousands of times
	if printf '%s' "$value" >"$dir/$file" 2>/dev/null; then
		accepted=$((accepted + 1))
		fi_snapshot_to snap "$dir"
		fi_read "$dir/$file" back
		printf '%s' "$back" >"$dir/$file" 2>/dev/null ||
			fail "$dir/$file accepted '$q' but not its own reading '$(printf '%q' "$back")' (FUZZ_SEED=$seed)"
		unchanged "$dir" "writing back $dir/$file's reading of '$q'"
		return 0
	fi
	rejected=$((rejected + 1))
	unchanged "$dir" "rejected write of '$q' to $dir/$file"
}

for file in "${files[@]}"; do
	[[ -e $FS/$file ]] || fail "$FS/$file does not exist"
	for v in "${hostile[@]}"; do try_write $FS "$file" "$v"; done
	for v in "${randoms[@]}"; do try_write $FS "$file" "$v"; done
	# Put back a sane value before the next file (random 'comm' or
	# 'pid' values were accepted on purpose).
	fi_restore
	fi_save $FS
	snap_of=
done
for file in "${pa_files[@]}"; do
	for v in "${hostile[@]}" 0 1 5 10 11 12 20; do try_write $PA "$file" "$v"; done
done
echo "ok: $rejected writes rejected without a change, $accepted accepted"
((rejected > ${#files[@]} * (${#hostile[@]} + nrand) / 2)) || fail "only $rejected writes were rejected"
# min > max is refused both ways.
restore_all
snap_of=
echo 3 >$PA/min-order
try_write $PA max-order 2
[[ "$(cat $PA/max-order)" != 2 ]] || fail "max-order below min-order was accepted"
echo 0 >$PA/min-order
echo 512 >$FS/max-size
try_write $FS min-size 1024
[[ "$(cat $FS/min-size)" != 1024 ]] || fail "min-size above max-size was accepted"
ok "min > max refused"
if dmesg | tail -n +"$((kmsg_before + 1))" | grep -E 'BUG:|Oops|WARNING:|general protection'; then
	fail "the kernel complained during the fuzz run"
fi
ok "no oops or warning"
