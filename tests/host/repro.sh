#!/usr/bin/env bash
# qemu/repro, the runner itself, on the small scenarios of races/selftest/:
# bad arguments and scenarios, counting and the confidence interval, the
# oracles, guest reuse, parallel guests, early stop, timeouts, a guest that
# dies, injection on and off, and an interrupted run.
. "$(dirname "$0")/../lib.sh"
sel=races/selftest

# summary_is DIR KEY VALUE: the run's summary says KEY=VALUE.
summary_is() {
	local got
	got=$(sed -n "s/^$2=//p" "$1/summary")
	[[ $got == "$3" ]] || { cat "$1/summary"; fail "$1/summary: $2=$got, expected $3"; }
	echo "ok: $2=$3"
}
# match_of DIR N: the oracle's evidence for attempt N, in $T/match.
match_of() { sed -n 's/^match=//p' "$1/attempts/$2" >"$T/match"; }
# outcomes DIR: the outcome column of attempts.tsv, one line.
outcomes() { awk -F'\t' 'NR > 1 { printf "%s%s", sep, $4; sep = " " }' "$1/attempts.tsv"; }

# --- 1. bad arguments and scenarios: status 2, nothing booted -------------
expect_status 2 qemu/repro
expect_grep "no scenario given" "$T/err"
expect_status 2 qemu/repro --runs 0 $sel/hang.scenario
expect_grep "runs needs a positive number, not '0'" "$T/err"
expect_status 2 qemu/repro --jobs x $sel/hang.scenario
expect_grep "jobs needs a positive number" "$T/err"
expect_status 2 qemu/repro --bogus $sel/hang.scenario
expect_grep "unknown option '--bogus'" "$T/err"
expect_status 2 qemu/repro --until 3 $sel/hang.scenario
expect_grep "until 3 is more than the 2 runs" "$T/err"
expect_status 2 qemu/repro --flavour nosuch $sel/hang.scenario
expect_grep "unknown kernel flavour 'nosuch'" "$T/err"
expect_status 2 qemu/repro "$T/missing.scenario"
expect_grep "is not a readable file" "$T/err"
expect_status 2 qemu/repro $sel/hang.scenario $sel/panic.scenario
expect_grep "one scenario at a time" "$T/err"

# bad_scenario 'TEXT' 'MESSAGE': a scenario with TEXT is refused with MESSAGE.
bad_scenario() {
	printf '%b' "$1" >"$T/bad.scenario"
	expect_status 2 qemu/repro --out "$T/bad-out" "$T/bad.scenario"
	expect_grep "$2" "$T/err"
	[[ ! -e $T/bad-out ]] || fail "a refused scenario created its results directory"
}
bad_scenario 'colour = red\n[workload]\ntrue\n' "bad.scenario:1: unknown key 'colour'"
bad_scenario '# c\n\noracle = maybe\n[workload]\ntrue\n' "bad.scenario:3: unknown oracle 'maybe'"
bad_scenario 'oracle = kernel (unclosed\n[workload]\ntrue\n' "bad regular expression '\(unclosed'"
bad_scenario 'oracle = exit often\n[workload]\ntrue\n' "oracle exit needs a status or 'nonzero'"
bad_scenario 'timeout = -1\n[workload]\ntrue\n' "timeout needs a positive number"
bad_scenario 'inject = sweep failslab\n[workload]\ntrue\n' "inject takes the arguments of 'inject run'"
bad_scenario 'inject = run failslab -- ls\n[workload]\ntrue\n' "leave out '-- CMD'"
bad_scenario 'module = nosuchdir\n[workload]\ntrue\n' "module directory '.*nosuchdir' has no Kbuild file"
bad_scenario "module = $TOP/races/modules/nosuch.ko\n[workload]\ntrue\n" "races/modules/Kbuild does not build nosuch.ko"
bad_scenario 'description = nothing to run\n' "no \[workload\] section"
bad_scenario '[workload]\n# only a comment\n' "no \[workload\] section, or an empty one"
bad_scenario '[workload]\ntrue\n[teardown]\n' "bad.scenario:3: unknown section '\[teardown\]'"
bad_scenario 'a line of prose\n' "bad.scenario:1: expected 'key = value'"
bad_scenario 'inject = delay x.c:1 m --debuginfo {m.ko} --us 5\n[workload]\ntrue\n' "{m.ko}: no module line builds m.ko"
bad_scenario 'inject = delay x.c:1 m --debuginfo={m.ko} --us 5\n[workload]\ntrue\n' "{m.ko}: no module line builds m.ko"
bad_scenario 'inject = delay x.c:1 m --debuginfo= --us 5\n[workload]\ntrue\n' "bad.scenario:1: inject: --debuginfo= names no file"
bad_scenario 'kernel-patch = nosuch.patch\n[workload]\ntrue\n' "bad.scenario:1: kernel-patch: '.*/nosuch.patch' is not a readable file"
bad_scenario 'program = prog.sh\n[workload]\ntrue\n' "program needs one C file, FILE.c, not 'prog.sh'"
bad_scenario 'program = nosuch.c\n[workload]\ntrue\n' "program: '.*/nosuch.c' is not a readable file"
printf -- '--- a/x\n+++ b/x\n' >"$T/fix.revert.patch"
bad_scenario 'kernel-patch = fix.revert.patch\nflavour = kasan\n[workload]\ntrue\n' "give flavour or kernel-patch, not both"
bad_scenario 'flavour = patched:x\n[workload]\ntrue\n' "unknown kernel flavour 'patched:x'.*a patched kernel: kernel-patch"
expect_status 2 qemu/repro --flavour 'patched:a/b' $sel/hang.scenario
expect_grep "unknown kernel flavour 'patched:a/b'" "$T/err"
# A kernel-patch scenario runs on the kernel patched:NAME, unless --flavour
# picks another (the fixed kernel, say).
# Both paths are relative to the scenario's directory.
mkdir -p "$T/sub"
cp "$T/fix.revert.patch" "$T/sub/"
: >"$T/prog.c"
printf 'kernel-patch = fix.revert.patch\nprogram = ../prog.c\n[workload]\ntrue\n' >"$T/sub/kp.scenario"
expect_status 0 qemu/repro --check "$T/sub/kp.scenario"
expect_grep "^kernel: *patched:fix.revert \\(the default one plus $T/sub/fix.revert.patch\\)" "$T/out"
expect_grep "^program: *$T/prog.c" "$T/out"
expect_status 0 qemu/repro --check --flavour default "$T/sub/kp.scenario"
expect_grep "^kernel: *default, " "$T/out"
expect_status 2 qemu/build-kernel --patch "$T/nosuch.patch"
expect_grep "'$T/nosuch.patch' is not a readable file" "$T/err"

# The bash of every scenario's sections is shellcheck-clean.
for f in races/*.scenario "$sel"/*.scenario; do
	awk '/^\[[a-z]+\][[:space:]]*$/ { on = 1; print "# " $0; next } on' "$f" >"$T/sections.sh"
	shellcheck -s bash -e SC2154 "$T/sections.sh" || fail "shellcheck: the sections of $f"
done
echo "ok: the scenarios' sections pass shellcheck"

# --check prints what a scenario would run, without booting.
expect_status 0 qemu/repro --check races/uaf-refcount.scenario
expect_grep '^inject: +inject fail-function race_uaf_get race_uaf --delay-us 10000 --times -1 -- \.\.\.$' "$T/out"
expect_grep '^module: +.*/races/modules/race_uaf.ko$' "$T/out"
expect_grep '^oracle: +kernel refcount_t: addition on 0' "$T/out"
expect_status 0 qemu/repro --check $sel/failslab.scenario
expect_grep '^inject: +inject run failslab --cache shmem_inode_cache --times -1 -- \.\.\.$' "$T/out"
expect_grep '^oracle: +output No space left on device$' "$T/out"
expect_grep '^oracle: +exit nonzero$' "$T/out"
expect_status 0 qemu/repro --help
expect_grep '^Usage: qemu/repro' "$T/out"

# Sections 2-8 boot guests of their own and share nothing: they run at
# once, one worker per host CPU (sections_at_once, at the end).
# --- 2. counting, the kernel oracle, setup, one guest for all attempts -----
# Odd attempts log the line the oracle wants: 2 of 4, Wilson 15.0-85.0%.
section2() {
	expect_status 0 qemu/repro --out "$T/odd" --runs 4 $sel/odd-attempts.scenario
	expect_grep '^reproduced  2/4 attempts, 50.0% \(95% CI 15.0%-85.0%, Wilson\)$' "$T/out"
	expect_grep '^first       attempt 1, ' "$T/out"
	expect_grep 'repro: attempt 1/4 \(guest 1\): reproduced in .*: kernel: repro-selftest: odd attempt 1$' "$T/err"
	expect_grep 'repro: attempt 2/4 \(guest 1\): clean in ' "$T/err"
	summary_is "$T/odd" attempts 4
	summary_is "$T/odd" reproduced 2
	summary_is "$T/odd" ci_low 0.1500
	summary_is "$T/odd" ci_high 0.8500
	summary_is "$T/odd" first_attempt 1
	summary_is "$T/odd" boots 1
	[[ "$(outcomes "$T/odd")" == "reproduced clean reproduced clean" ]] ||
		fail "outcomes: $(outcomes "$T/odd")"
	echo "ok: outcomes of attempts 1-4 alternate"
	expect_grep '^repro-selftest: odd attempt 1$|\] repro-selftest: odd attempt 1$' "$T/odd/first/kernel.log"
	grep -q 'odd attempt 3' "$T/odd/first/kernel.log" && fail "first/kernel.log has another attempt's lines"
	expect_grep '^attempt 1, injection 1$' "$T/odd/first/output.log"
	expect_grep 'repro-selftest: odd attempt 1' "$T/odd/first/console.log"
	expect_grep 'repro-selftest: setup ran' "$T/odd/guests/w1-b1/console.log"
}

# --- 3. parallel guests ----------------------------------------------------
section3() {
	expect_status 0 qemu/repro --quiet --out "$T/par" --runs 6 --jobs 2 $sel/odd-attempts.scenario
	[[ ! -s $T/err ]] || { cat "$T/err"; fail "--quiet printed progress"; }
	summary_is "$T/par" attempts 6
	summary_is "$T/par" reproduced 3
	summary_is "$T/par" boots 2
	for w in 1 2; do
		awk -F'\t' -v w="$w" 'NR > 1 && $2 == w { found = 1 } END { exit !found }' "$T/par/attempts.tsv" ||
			fail "guest $w ran no attempt"
	done
	echo "ok: both guests ran attempts"
	# Both guests were started at once, not one after the other.
	read -r s1 s2 < <(awk '{ printf "%s ", $3 }' "$T/par/boots")
	awk -v a="$s1" -v b="$s2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 3) }' ||
		fail "the guests booted $s1 and $s2, not together"
	echo "ok: the two guests booted together"
}

# --- 4. early stop ---------------------------------------------------------
section4() {
	expect_status 0 qemu/repro --out "$T/until" --runs 20 --until 2 $sel/every-attempt.scenario
	expect_grep ', stopped at 2$' "$T/out"
	summary_is "$T/until" stopped_early 1
	n=$(sed -n 's/^attempts=//p' "$T/until/summary")
	((n >= 2 && n < 20)) || fail "--until 2 of 20 ran $n attempts"
	echo "ok: stopped after $n of 20 attempts"
	match_of "$T/until" 1
	expect_grep '^exit: status 3$' "$T/match"
}

# --- 5. timeouts ------------------------------------------------------------
# The 'timeout' oracle: a workload that outlives its 3 s reproduces.
section5() {
	t0=$(date +%s)
	expect_status 0 qemu/repro --out "$T/hang" --runs 2 $sel/hang.scenario
	summary_is "$T/hang" reproduced 2
	match_of "$T/hang" 2
	expect_grep '^timeout: timeout$' "$T/match"
	(($(date +%s) - t0 < 120)) || fail "two 3-second attempts took $(($(date +%s) - t0)) s"
	# Without that oracle a timeout is its own outcome, not a reproduction.
	printf 'oracle = output never\ntimeout = 2\n[workload]\necho started\nsleep 60\n' >"$T/slow.scenario"
	expect_status 1 qemu/repro --out "$T/slow" --runs 1 "$T/slow.scenario"
	summary_is "$T/slow" timeout 1
	summary_is "$T/slow" reproduced 0
	expect_grep '^first       not reproduced in 1 attempts' "$T/out"
	expect_grep '^other       1 timeout$' "$T/out"
	ms=$(awk -F'\t' 'NR == 2 { print $7 }' "$T/slow/attempts.tsv")
	((ms >= 1900 && ms < 10000)) || fail "the 2 s attempt took $ms ms"
	echo "ok: the attempt was stopped after $ms ms"
}

# --- 6. a guest that dies: the kernel log comes from its console ------------
section6() {
	expect_status 0 qemu/repro --out "$T/panic" --runs 1 $sel/panic.scenario
	summary_is "$T/panic" reproduced 1
	match_of "$T/panic" 1
	expect_grep '^kernel: Kernel panic - not syncing' "$T/match"
	expect_grep 'sysrq: Trigger a crash' "$T/panic/first/console.log"
}

# --- 7. injection on and off ------------------------------------------------
section7() {
	expect_status 0 qemu/repro --out "$T/fs" --runs 2 $sel/failslab.scenario
	summary_is "$T/fs" reproduced 2
	expect_grep "mkdir: cannot create directory '/dev/shm/repro-selftest': No space left on device" \
		"$T/fs/first/output.log"
	expect_grep 'inject: failslab: calls=[0-9]+ matched=[0-9]+ injected=[1-9]' "$T/fs/first/output.log"
	expect_status 1 qemu/repro --out "$T/fs-off" --runs 2 --no-inject $sel/failslab.scenario
	summary_is "$T/fs-off" reproduced 0
	summary_is "$T/fs-off" clean 2
	summary_is "$T/fs-off" inject 0
	expect_grep '^first       not reproduced in 2 attempts' "$T/out"
	grep -q 'inject:' "$T/fs-off/guests/w1-b1/a1/output" && fail "--no-inject ran inject"
	echo "ok: --no-inject ran the bare workload"
}

# --- 8. an interrupted run stops its guests and reports what it has ----------
section8() {
	qemu/repro --out "$T/int" --runs 20 $sel/hang.scenario >"$T/int.out" 2>"$T/int.err" &
	pid=$!
	for _ in $(seq 600); do
		[[ -e $T/int/attempts/1 ]] && break
		sleep 0.1
	done
	[[ -e $T/int/attempts/1 ]] || { kill "$pid"; fail "no attempt finished in 60 s"; }
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	((rc == 143)) || { cat "$T/int.err"; fail "an interrupted qemu/repro exited $rc, expected 143"; }
	summary_is "$T/int" interrupted 1
	expect_grep '^reproduced  [0-9]+/[0-9]+ attempts' "$T/int.out"
	echo "ok: SIGTERM stopped the run (status 143) with a summary"
}

# Two workers get about the same time when the order is this (on 2 CPUs,
# section 5 took ~30 s, 2, 3 and 7 ~12-19 s, the others ~7-11 s).
sections_at_once section3 section5 section7 section2 section8 section6 section4

no_qemu_left
