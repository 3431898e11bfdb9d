#!/usr/bin/env bash
# txlog on truncated, corrupted and non-trace input: it exits 0, 1 or 2,
# never crashes, and exit 2 comes with a message naming the file.  txlog
# is built with AddressSanitizer and UBSan: an error report whose first
# frame outside the sanitizer is txlog's own code fails the test.
#
# libtracecmd and libtraceevent are not instrumented and trust the file
# they read: on some corrupt files ASan sees them read past a buffer or
# crash.  Such a case is counted as a library fault, and the same input
# must then give exit 2 from the normal build (txlog reads trace-cmd files
# in a child process for that reason).
#
# The seed trace is recorded in the guest (one boot), or taken from
# TXLOG_FUZZ_SEED=FILE.  FUZZ_SIZE=short (make check: 180 cases) or
# long (make fuzz: about 770); FUZZ_SEED=N (default 7) seeds the random
# truncation offsets, bit flips and text damage, so a failure can be run
# again with the seed it printed.
. "$(dirname "$0")/../lib.sh"

seed=${FUZZ_SEED:-7}
[[ $seed =~ ^[0-9]+$ ]] || { echo "FUZZ_SEED=$seed: expected a non-negative integer" >&2; exit 2; }
case ${FUZZ_SIZE:-short} in
#              spread  tail  flips  text cut  text flips
short) sizes=(30       20    40     8         12) ;;
long)  sizes=(120      57    160    0         40) ;;
*) echo "FUZZ_SIZE=$FUZZ_SIZE: expected short or long" >&2; exit 2 ;;
esac
echo "fuzz: seed $seed, size ${FUZZ_SIZE:-short}"

asan=$T/asan/txlog
make -s -C txlog O="$T/asan" SANITIZE=1 >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "the sanitizer build failed"; }
make -s -C txlog >/dev/null 2>&1 || fail "make -C txlog failed"
plain=$TOP/build/txlog/txlog

if [[ -n ${TXLOG_FUZZ_SEED:-} ]]; then
	cp "$TXLOG_FUZZ_SEED" "$T/seed.dat"
else
	expect_status 0 qemu/trace --new --preset mm -o "$T/seed.dat" -- build/txlog/mm-pages 4
fi
expect_status 0 "$plain" -q "$T/seed.dat"

# Leaks inside the libraries on their error paths are theirs; absurd sizes
# from corrupt headers get NULL, as from glibc's malloc.
printf 'leak:libtracecmd.so\nleak:libtraceevent.so\n' >"$T/lsan.supp"
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export LSAN_OPTIONS=suppressions=$T/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1

cases=0 lib_faults=0 rejected=0 tail_only=0
declare -A status_count

# The first stack frame of a sanitizer report that is not the sanitizer's.
report_frame() {
	grep -E '^ *#[0-9]+ ' "$1" | grep -vE 'libsanitizer|__interceptor_|asan_|ubsan_|lsan_' | head -1
}

# asan_all [txlog options] -- FILE...: run the ASan build on each FILE, one
# per host CPU at a time, keeping FILE.o, FILE.e, FILE.rc and the options
# (FILE.opts) for check() to judge in order.
asan_all() {
	local -a opts=()
	while [[ $1 != -- ]]; do opts+=("$1"); shift; done
	shift
	# shellcheck disable=SC2016 # expanded by the bash that xargs starts
	printf '%s\0' "$@" | ASAN_TXLOG=$asan xargs -0 -n 1 -P "$(nproc)" bash -c '
		f=${!#} rc=0
		timeout -k 5 60 "$ASAN_TXLOG" "$@" >"$f.o" 2>"$f.e" || rc=$?
		printf "%s\n" "${*:1:$#-1}" >"$f.opts"
		echo "$rc" >"$f.rc"' asan-one "${opts[@]}"
}

# check FILE [txlog options]: run the ASan build on FILE (or take the run
# asan_all made with the same options) and judge.
check() {
	local f=$1 rc=0 frame
	shift
	cases=$((cases + 1))
	if [[ -f $f.rc && "$(cat "$f.opts")" == "$*" ]]; then
		cp "$f.o" "$T/o"; cp "$f.e" "$T/e"; rc=$(cat "$f.rc")
	else
		timeout -k 5 60 "$asan" "$@" "$f" >"$T/o" 2>"$T/e" || rc=$?
	fi
	if grep -qE 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$T/e"; then
		frame=$(report_frame "$T/e")
		if grep -q 'runtime error:' "$T/e" || [[ $frame != *libtracecmd.so* && $frame != *libtraceevent.so* ]]; then
			cp "$f" "$TOP/build/test-out/txlog-fuzz-failing-input" 2>/dev/null || true
			head -30 "$T/e"
			fail "$(basename "$f"): sanitizer error in txlog (seed $seed; input kept as build/test-out/txlog-fuzz-failing-input)"
		fi
		lib_faults=$((lib_faults + 1))
		rc=0
		timeout -k 5 60 "$plain" "$@" "$f" >"$T/o" 2>"$T/e" || rc=$?
		[[ $rc == 2 || $rc == 0 || $rc == 1 ]] ||
			fail "$(basename "$f"): a library fault made the normal build exit $rc"
	fi
	case $rc in
	0|1) ;;
	2) grep -q "^txlog: .*$(basename "$f")" "$T/e" ||
		{ cat "$T/e"; fail "$(basename "$f"): exit 2 without a message naming the file"; } ;;
	*) cat "$T/e"; fail "$(basename "$f"): exit status $rc (crash or hang)" ;;
	esac
	status_count[$rc]=$((${status_count[$rc]:-0} + 1))
	last_rc=$rc
}

# --- truncations: the first 64 bytes one by one, then random offsets
# spread over the file, then random ones in its last 400 bytes.  Each must
# be rejected (exit 2), or lose nothing: the same output as the whole file
# (the end of a version 7 file is a table of section names that no reader
# needs).
size=$(stat -c %s "$T/seed.dat")
cp "$T/seed.dat" "$T/cut.dat"
"$plain" "$T/cut.dat" >"$T/whole.out" 2>&1 || true
offsets=$( { seq 0 63; python3 -c '
import random, sys
size, seed, spread, tail = map(int, sys.argv[1:])
r = random.Random(seed)
for _ in range(spread):
    print(r.randrange(64, size))
for _ in range(tail):
    print(r.randrange(max(64, size - 400), size))
' "$size" "$seed" "${sizes[0]}" "${sizes[1]}"; } | sort -nu)
mkdir "$T/cuts"
cuts=()
for off in $offsets; do
	head -c "$off" "$T/seed.dat" >"$T/cuts/$off.dat"
	cuts+=("$T/cuts/$off.dat")
done
asan_all -- "${cuts[@]}"
for off in $offsets; do
	check "$T/cuts/$off.dat"
	if [[ $last_rc == 2 ]]; then
		rejected=$((rejected + 1))
	else
		cp "$T/cuts/$off.dat" "$T/cut.dat"	# the name the whole file was read under
		"$plain" "$T/cut.dat" >"$T/cut.out" 2>&1 || true
		cmp -s "$T/whole.out" "$T/cut.out" ||
			fail "a file cut at byte $off of $size was read without an error, with a different result"
		tail_only=$((tail_only + 1))
	fi
done
echo "ok: $((rejected + tail_only)) truncations: $rejected rejected with exit 2, $tail_only cut only the trailing section names (same result as the whole file)"

# --- byte flips: 1 to 8 random bits, anywhere, or in the last quarter
# (event data) or the first 4 KiB (headers, formats).
python3 - "$T/seed.dat" "$T/flips" "${sizes[2]}" "$seed" <<'EOF'
import os, random, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
os.makedirs(out, exist_ok=True)
r = random.Random(int(sys.argv[4]))
for i in range(n):
    b = bytearray(data)
    region = [(0, len(b)), (len(b) * 3 // 4, len(b)), (0, min(4096, len(b)))][i % 3]
    for _ in range(r.randint(1, 8)):
        j = r.randrange(*region)
        b[j] ^= 1 << r.randrange(8)
    open(os.path.join(out, "flip-%03d.dat" % i), "wb").write(b)
EOF
asan_all --json -- "$T"/flips/*.dat
for f in "$T"/flips/*.dat; do
	check "$f" --json
done
echo "ok: $(find "$T/flips" -name '*.dat' | wc -l) files with flipped bits: exit statuses$(for k in "${!status_count[@]}"; do printf ' %s:%s' "$k" "${status_count[$k]}"; done) (all cases so far)"

# --- txrec text: a valid file, cut at random offsets (long: every 61st
# byte), and with bytes overwritten.
python3 - "$T/txrec" "$seed" "${sizes[3]}" "${sizes[4]}" <<'EOF'
import os, random, sys
out = sys.argv[1]
seed, cuts, flips = map(int, sys.argv[2:])
os.makedirs(out, exist_ok=True)
lines = []
for i in range(40):
    pfn = 0x1000 + i % 7
    lines.append("txrec ts=%d cpu=%d pid=%d comm=w%d event=kmem:mm_page_alloc pfn=0x%x order=0" % (1000 * i, i % 2, 10 + i % 3, i % 3, pfn))
    lines.append("txrec ts=%d cpu=0 pid=10 comm=w0 event=page_ref:page_ref_mod pfn=0x%x count=%d val=1" % (1000 * i + 1, pfn, i % 3))
    lines.append("txrec ts=%d cpu=0 pid=10 comm=w0 event=kmem:kmalloc call_site=0x%x call_site_sym=f+0x1/0x9 ptr=0x%x bytes_req=8 bytes_alloc=8" % (1000 * i + 2, 0xffffffff81000000 + i, 0xffff888000000000 + 64 * (i % 5)))
    lines.append("txrec ts=%d cpu=1 pid=11 comm=w1 event=kmem:kfree call_site=0x1 ptr=0x%x" % (1000 * i + 3, 0xffff888000000000 + 64 * (i % 4)))
    lines.append("txrec ts=%d cpu=1 pid=11 comm=w1 event=kmem:mm_page_free pfn=0x%x order=0" % (1000 * i + 4, pfn))
text = ("some console line\n" + "\n".join(lines) + "\n").encode()
open(os.path.join(out, "valid.txt"), "wb").write(text)
r = random.Random(seed)
offs = range(0, len(text), 61) if cuts == 0 else sorted({r.randrange(len(text)) for _ in range(cuts)})
for off in offs:
    open(os.path.join(out, "cut-%05d.txt" % off), "wb").write(text[:off])
for i in range(flips):
    b = bytearray(text)
    for _ in range(r.randint(1, 6)):
        b[r.randrange(len(b))] = r.randrange(256)
    open(os.path.join(out, "flip-%03d.txt" % i), "wb").write(b)
EOF
for f in "$T"/txrec/*.txt; do
	check "$f"
done
echo "ok: $(find "$T/txrec" -name '*.txt' | wc -l) txrec cases"

# --- not traces at all: exit 2 and a message.
: >"$T/empty.dat"
head -c 65536 /dev/urandom >"$T/random.dat"
printf '\027\010Dtracing' >"$T/magic-only.dat"
printf '\027\010Dtracing6\0\0\10\0\20\0\0' >"$T/header-only.dat"
cp "$plain" "$T/elf.dat"
mkdir "$T/dir.dat"
for f in empty random magic-only header-only elf dir; do
	check "$T/$f.dat"
	[[ $last_rc == 2 ]] || fail "$f.dat: exit $last_rc, expected 2"
done
echo "ok: empty, random, magic-only, header-only, ELF and directory inputs: exit 2 with a message"

echo "ok: $cases cases, no sanitizer error in txlog; library faults contained: $lib_faults"
no_qemu_left
