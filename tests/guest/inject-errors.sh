#!/usr/bin/env bash
# Every refusal of inject: exit 2, a message naming the problem, and
# nothing changed (all files of failslab, counters included, and of
# fail_function and fail_page_alloc are compared before and after).
set -euo pipefail
. inject/test-lib.bash

state() { snapshot failslab all; snapshot fail_page_alloc all; snapshot fail_function all; }
before=$(state)

# refuse MESSAGE-REGEX ARGS...: inject ARGS exits 2, says MESSAGE, changes nothing.
refuse() {
	local msg=$1
	shift
	expect 2 $I "$@"
	has "^inject: .*$msg" "$T/err"
	[[ "$(state)" == "$before" ]] || { diff <(echo "$before") <(state) || true; fail "'$*' changed settings"; }
	no_leftovers
	echo "ok: $* -> $(head -n1 "$T/err")"
}

refuse "unknown command 'frobnicate'" frobnicate
refuse "unknown option '--bogus'" --bogus
refuse "unknown capability 'nosuchcap' \(this kernel has: .*failslab" run nosuchcap -- true
refuse "unknown option '--bogus'" run failslab --bogus -- true
refuse "option '--times' needs a value" run failslab --times
refuse "no command given" run failslab
refuse "no command given" run failslab --
refuse "no capability given" arm
refuse "unexpected argument 'true' \(the command goes after --\)" run failslab true
refuse "--probability: 101 is out of range" run failslab --probability 101 -- true
refuse "--probability: 'x' is not a number" run failslab --probability x -- true
refuse "--times: 0 would never inject" run failslab --times 0 -- true
refuse "--interval: '1.5' is not a number" run failslab --interval 1.5 -- true
refuse "--skip: -1 is out of range" run failslab --skip -1 -- true
refuse "--verbose: 3 is out of range" run failslab --verbose 3 -- true
refuse "--delay-us: 1000001 is out of range" run failslab --delay-us 1000001 -- true
refuse "--pid: 0 is out of range" run failslab --pid 0 -- true
refuse "--comm: 'abcdefghijklmnop': a task name has 1 to 15 characters" \
	run failslab --comm abcdefghijklmnop -- true
refuse "--caller: 'a b' is not a function name" run failslab --caller 'a b' -- true
refuse "--caller: 'a,,b' is not a comma-separated list" run failslab --caller a,,b -- true
refuse "--reject-caller: 17 functions given" run failslab \
	--reject-caller a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q -- true
refuse "--cache: the pattern must have 1 to 127 characters" run failslab --cache '' -- true
refuse "--min-size 100 is larger than --max-size 10" run failslab --min-size 100 --max-size 10 -- true
refuse "--min-order 3 is larger than --max-order 2" run fail_page_alloc --min-order 3 --max-order 2 -- true
refuse "--max-order: 11 is out of range" run fail_page_alloc --max-order 11 -- true
refuse "--stacktrace-depth: 33 is out of range" run failslab --stacktrace-depth 33 -- true
refuse "--gfp-require and --gfp-reject are the same mask" run failslab --gfp-require __GFP_IO --gfp-reject __GFP_IO -- true
refuse "--min-order: failslab has no 'min-order' file \(a filter of fail_page_alloc only\)" run failslab --min-order 1 -- true
refuse "--cache: fail_page_alloc has no 'cache' file \(a filter of failslab only\)" run fail_page_alloc --cache x -- true
refuse "--ignore-gfp-wait: fail_futex has no 'ignore-gfp-wait' file" run fail_futex --ignore-gfp-wait -- true
refuse "run: fail_function needs a function" run fail_function -- true
refuse "sweep: --times is not an option of 'sweep'" sweep failslab --times 2 -- true
refuse "run: --json is not an option of 'run'" run failslab --json -- true
refuse "arm: --stacks is not an option of 'arm'" arm failslab --stacks
refuse "arm: unexpected argument 'true'" arm failslab -- true
refuse "status: unexpected argument 'x'" status x
refuse "unknown capability 'nosuchcap'" list nosuchcap
refuse "reset: unknown option '--bogus'" reset --bogus
refuse "unknown capability 'nosuchcap'" reset nosuchcap
refuse "--all and a capability name exclude each other" reset --all failslab
refuse "reset: nothing saved for failslab" reset --restore failslab
refuse "fail-function: --retval or --delay-us is required" fail-function __x64_sys_clone -- true
refuse "fail-function: --retval and --delay-us exclude each other" \
	fail-function __x64_sys_clone --retval -12 --delay-us 10 -- true
refuse "'__x64_sys_clone \\[nosuchmod\\]' is not in /sys/kernel/debug/fail_function/injectable \\(is the module loaded" \
	fail-function __x64_sys_clone nosuchmod --delay-us 10 -- true
refuse "fail-function: 'no/mod' is not a module name" fail-function __x64_sys_clone no/mod --delay-us 10 -- true
refuse "fail-function: unexpected argument 'x'" fail-function __x64_sys_clone mod x --delay-us 10 -- true
refuse "'nosuchfunc' is not in /sys/kernel/debug/fail_function/injectable" \
	fail-function nosuchfunc --retval -12 -- true
refuse "--retval 5: __x64_sys_clone returns an errno" fail-function __x64_sys_clone --retval 5 -- true
refuse "--retval: -5000 is out of range" fail-function __x64_sys_clone --retval -5000 -- true

# Values the kernel itself refuses: the file and the value are named, the
# files written before it are restored.
refuse "/sys/kernel/debug/failslab/caller: kernel refused 'no_such_function_xyz' \(EINVAL\)" \
	run failslab --cache dentry --caller no_such_function_xyz -- true
refuse "/sys/kernel/debug/failslab/gfp-require: kernel refused '__GFP_BOGUS' \(EINVAL\)" \
	run failslab --skip 5 --gfp-require __GFP_BOGUS -- true
refuse "/sys/kernel/debug/failslab/gfp-reject: kernel refused '__GFP_FS' \(EINVAL\): .*both" \
	run failslab --gfp-require '__GFP_IO|__GFP_FS' --gfp-reject __GFP_FS -- true
refuse "/sys/kernel/debug/failslab/caller: kernel refused 'jiffies' \(EINVAL\)" \
	arm failslab --caller jiffies
# The command never ran.
[[ ! -e /dev/shm/never ]] || fail "a refused run ran its command"
refuse "kernel refused" run failslab --caller no_such_function_xyz -- touch /dev/shm/never
[[ ! -e /dev/shm/never ]] || fail "a refused run ran its command"

# A capability whose saved settings belong to a killed inject is refused.
mkdir -p /run/inject
printf 'pid 999999\ndir %s/failslab\n1 times 1\n' "$D" >/run/inject/failslab.saved
expect 2 $I run failslab -- true
has "holds the settings of an inject that was killed \(pid 999999\): run 'inject reset --restore failslab' first" "$T/err"
rm /run/inject/failslab.saved
[[ "$(state)" == "$before" ]] || fail "refusal on saved settings changed something"
echo "ok: saved settings of a killed inject block a new run"

# Outside the guest inject refuses to run at all (a fake /proc/cmdline).
mount --bind <(echo "console=ttyS0 quiet") /proc/cmdline 2>/dev/null ||
	{ echo 'console=ttyS0' >"$T/cmdline"; mount --bind "$T/cmdline" /proc/cmdline; }
rc=0
$I list >"$T/out" 2>"$T/err" || rc=$?
umount /proc/cmdline
[[ $rc == 2 ]] || fail "inject ran without mmfi.guest=1 (exit $rc)"
has "not running in the mmfi QEMU guest \(no mmfi.guest=1 in /proc/cmdline\)" "$T/err"
[[ ! -s $T/out ]] || fail "inject printed output outside the guest"
echo "ok: refuses to run without mmfi.guest=1"
[[ "$(state)" == "$before" ]] || fail "settings changed"
echo "ok: inject-errors"
