#!/usr/bin/env bash
# inject where, on the host: a source line of a module becomes the list of
# FUNC+OFFSET that inject delay takes (the four copies of race_count.c:78
# that lost-update.scenario delays), nothing is cached on the host, bad
# arguments exit 2; every other inject command still refuses the host.
. "$(dirname "$0")/../lib.sh"
I=build/inject/inject
make -s -C inject
ko=$(qemu/build-module races/modules 2>/dev/null | grep '/race_count\.ko$') ||
	fail "races/modules did not build race_count.ko"
had_cache=0
[[ -e /run/inject/lines ]] && had_cache=1

expect_status 0 $I where race_count.c:78 race_count --debuginfo "$ko"
expect_grep '^race_count_grow\+0x[0-9a-f]+(,ctl_write\+0x[0-9a-f]+){3}$' "$T/out"
# The same, with --debuginfo=F and without the module name.
cp "$T/out" "$T/first"
expect_status 0 $I where --debuginfo="$ko" race_count.c:78
cmp -s "$T/out" "$T/first" || fail "'where' gave $(cat "$T/out"), then $(cat "$T/first")"
((had_cache)) || [[ ! -e /run/inject/lines ]] || fail "inject where wrote /run/inject/lines on the host"
echo "ok: race_count.c:78 is $(cat "$T/out")"

expect_status 2 $I where race_count.c:78
expect_grep "outside the guest, give the debug information with --debuginfo" "$T/err"
expect_status 2 $I where race_count.c:1 --debuginfo "$ko"
expect_grep "race_count.c:1 has no code of its own \(gdb would take line [0-9]+\)" "$T/err"
expect_status 2 $I where race_count --debuginfo "$ko"
expect_grep "'race_count' is not FILE:LINE" "$T/err"
expect_status 2 $I where
expect_grep "FILE:LINE is missing" "$T/err"
expect_status 2 $I where race_count.c:78 --bogus
expect_grep "unknown option '--bogus'" "$T/err"
expect_status 2 $I delay race_count_grow --us 5 -- true
expect_grep "not running in the mmfi QEMU guest" "$T/err"
echo "ok: bad arguments exit 2; delay still refuses the host"
