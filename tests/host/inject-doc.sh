#!/usr/bin/env bash
# inject builds -Wall -Wextra clean, and its man page documents exactly the
# commands and long options that 'inject --help' prints.  Runs on the host:
# only --help and --version are run here, which never touch debugfs.
. "$(dirname "$0")/../lib.sh"

# A clean build in a scratch directory: no warnings at all.
make -s -C inject O="$T/build" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "inject does not build"; }
grep -q 'warning:' "$T/build.log" && { cat "$T/build.log"; fail "inject builds with warnings"; }
grep -q -- '-Wall -Wextra' inject/Makefile || fail "inject/Makefile lost -Wall -Wextra"
echo "ok: -Wall -Wextra clean build"
bin=$T/build/inject
# The guest tests (run after the host tests) use build/inject/inject.
make -s -C inject >/dev/null 2>&1 || fail "make -C inject failed"

expect_status 0 "$bin" --version
expect_grep '^inject [0-9]' "$T/out"
expect_status 0 "$bin" --help
cp "$T/out" "$T/help"
expect_grep '^Usage: inject COMMAND' "$T/help"

# Commands: the "Commands:" block of --help, ".B inject NAME" items of the
# man page's COMMANDS section.
help_cmds=$(sed -n '/^Commands:$/,/^$/p' "$T/help" | awk 'NF && $1 != "Commands:" { print $1 }' | sort)
man_cmds=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' inject/inject.8 |
	sed -n 's/^\.B inject \(.*\)$/\1/p' | sed 's/\\-/-/g' | sort)
[[ -n $help_cmds ]] || fail "no commands found in --help"
if [[ $help_cmds != "$man_cmds" ]]; then
	diff <(echo "$help_cmds") <(echo "$man_cmds") | sed 's/^/    /'
	fail "--help (<) and inject.8 (>) list different commands"
fi
echo "ok: commands agree: ${help_cmds//$'\n'/ }"

# Every command has its own help, which is part of --help.
for c in $help_cmds; do
	expect_status 0 "$bin" help "$c"
	grep -q "^inject $c" "$T/out" || fail "'inject help $c' does not start with its synopsis"
	expect_status 0 "$bin" "$c" --help
done

# Long options: every --name in --help is in the man page and vice versa.
help_opts=$(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u)
man_opts=$(sed 's/\\-/-/g' inject/inject.8 | grep -o -- '--[a-z][a-z-]*' | sort -u)
if [[ $help_opts != "$man_opts" ]]; then
	diff <(echo "$help_opts") <(echo "$man_opts") | sed 's/^/    /'
	fail "--help (<) and inject.8 (>) document different options"
fi
echo "ok: options agree: $(wc -w <<<"$help_opts") long options"

# The options getopt knows are the documented ones.
code_opts=$(grep -o '{ "[a-z][a-z-]*",[[:space:]]*\(no\|required\)_argument' inject/opts.c inject/inject-reset.c |
	sed 's/.*{ "\([^"]*\)".*/--\1/' | sort -u)
missing=$(comm -23 <(echo "$code_opts") <(echo "$help_opts"))
[[ -z $missing ]] || fail "options in the code but not in --help: $missing"
echo "ok: every option in the code is documented"
