#!/usr/bin/env bash
# txlog builds -Wall -Wextra clean; its man page, --help, the options the
# code knows and the --help at the end of EXAMPLES.md all agree; qemu/trace
# lists its presets.  Host only.
. "$(dirname "$0")/../lib.sh"

make -s -C txlog O="$T/build" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "txlog does not build"; }
grep -q 'warning:' "$T/build.log" && { cat "$T/build.log"; fail "txlog builds with warnings"; }
grep -q -- '-Wall -Wextra' txlog/Makefile || fail "txlog/Makefile lost -Wall -Wextra"
echo "ok: -Wall -Wextra clean build"
bin=$T/build/txlog
make -s -C txlog >/dev/null 2>&1 || fail "make -C txlog failed"

expect_status 0 "$bin" --version
expect_grep '^txlog [0-9]+\.[0-9]+$' "$T/out"
expect_status 0 "$bin" --help
cp "$T/out" "$T/help"
expect_grep '^Usage: txlog \[OPTIONS\] FILE$' "$T/help"

# Long options: --help, txlog.1 and getopt's table.
help_opts=$(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u)
man_opts=$(sed 's/\\-/-/g' txlog/txlog.1 | sed -n '/^\.SH OPTIONS/,/^\.SH ANOMALIES/p' |
	grep -o -- '--[a-z][a-z-]*' | sort -u)
code_opts=$(sed -n '/long_options\[\] = {/,/^};/p' txlog/txlog.c | grep -o '{ "[a-z][a-z-]*"' |
	sed 's/{ "\(.*\)"/--\1/' | sort -u)
[[ -n $help_opts ]] || fail "no options found in --help"
for pair in "help:$help_opts" "man:$man_opts"; do
	if [[ ${pair#*:} != "$code_opts" ]]; then
		diff <(echo "$code_opts") <(echo "${pair#*:}") | sed 's/^/    /'
		fail "the code (<) and ${pair%%:*} (>) know different long options"
	fi
done
echo "ok: --help, txlog.1 and the code agree on $(wc -w <<<"$code_opts") long options"

# Short options: "-x, --long" in --help, ".BR \-x ", " \-\-long" in the man page.
help_short=$(grep -oE -- '-[a-zA-Z], --[a-z-]+' "$T/help" | sort)
man_short=$(sed -n 's/^\.BR \\-\([a-zA-Z]\) ", " \\-\\-\([a-z\\-]*\).*/-\1, --\2/p' txlog/txlog.1 |
	sed 's/\\-/-/g' | sort)
if [[ $help_short != "$man_short" ]]; then
	diff <(echo "$help_short") <(echo "$man_short") | sed 's/^/    /'
	fail "--help (<) and txlog.1 (>) pair different short options with long ones"
fi
echo "ok: short options agree: ${help_short//$'\n'/; }"

# The exit statuses --help names are the man page's.
for s in 0 1 2; do
	grep -q "^\.B $s$" txlog/txlog.1 || fail "txlog.1 does not document exit status $s"
done
grep -q '^Exit status: 0 no anomaly, 1 an anomaly' "$T/help" || fail "--help does not give the exit statuses"
echo "ok: exit statuses documented"

# EXAMPLES.md ends with the verbatim --help.
awk '/^## txlog --help$/ { found = 1; next } found && /^```$/ { inside = !inside; next } found && inside' \
	txlog/EXAMPLES.md >"$T/examples-help"
if ! diff -u "$T/help" "$T/examples-help" >"$T/diff"; then
	head -40 "$T/diff"
	fail "the --help at the end of txlog/EXAMPLES.md is not txlog --help"
fi
echo "ok: EXAMPLES.md ends with the verbatim --help"

# qemu/trace: --help names the options, --list-presets every preset file.
expect_status 0 qemu/trace --help
expect_grep '^  --preset NAME' "$T/out"
expect_grep '^  --list-presets' "$T/out"
expect_status 0 qemu/trace --list-presets
for f in qemu/presets/*; do
	name=$(basename "$f")
	desc=$(sed -n 's/^description[[:space:]]*//p' "$f")
	[[ -n $desc ]] || fail "preset $name has no description"
	grep -qF "$name" "$T/out" || fail "--list-presets does not show $name"
	grep -qF "$desc" "$T/out" || fail "--list-presets does not show the description of $name: $desc"
done
echo "ok: --list-presets shows $(find qemu/presets -type f | wc -l) presets"
expect_status 2 qemu/trace --preset no-such-preset -- true
expect_grep "unknown preset 'no-such-preset' \(known: " "$T/err"
printf 'event kmem\nfrobnicate yes\n' >"$T/bad.preset"
expect_status 2 qemu/trace --preset "$T/bad.preset" -- true
expect_grep "$T/bad.preset:2: unknown directive 'frobnicate'" "$T/err"
printf 'event kmem:mm page\n' >"$T/bad2.preset"
expect_status 2 qemu/trace --preset "$T/bad2.preset" -- true
expect_grep "bad2.preset:1: 'kmem:mm page' is not SYSTEM or SYSTEM:EVENT" "$T/err"
