#!/usr/bin/env bash
# tracepoint-docs: tpdoc builds -Wall -Wextra clean and its man page agrees
# with --help; bad arguments exit 2; the live tracefs is refused outside
# the guest; the drift check passes on a tracing directory made from the
# committed pages and names the event for each kind of drift; each
# 'where FILE:FUNCTION' of the knowledge files is a function of the 6.1
# tree that fires the event.  Host only: nothing here reads the host's
# tracefs.
. "$(dirname "$0")/../lib.sh"
D=tracepoint-docs

# --- the build and the tool's face ---------------------------------------
make -s -C $D O="$T/build" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "tpdoc does not build"; }
grep -q 'warning:' "$T/build.log" && { cat "$T/build.log"; fail "tpdoc builds with warnings"; }
grep -q -- '-Wall -Wextra' $D/Makefile || fail "$D/Makefile lost -Wall -Wextra"
echo "ok: -Wall -Wextra clean build"
bin=$T/build/tpdoc
# The guest test and the command tests use build/tracepoint-docs/.
make -s -C $D >/dev/null 2>&1 || fail "make -C $D failed"

expect_status 0 "$bin" --version
expect_grep '^tpdoc [0-9]' "$T/out"
expect_status 0 "$bin" --help
cp "$T/out" "$T/help"
help_cmds=$(sed -n '/^Commands:$/,/^$/p' "$T/help" | awk 'NF && $1 != "Commands:" { print $1 }' | sort)
man_cmds=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' $D/tpdoc.1 | sed -n 's/^\.B tpdoc \([a-z]*\)$/\1/p' | sort)
[[ -n $help_cmds && $help_cmds == "$man_cmds" ]] || {
	diff <(echo "$help_cmds") <(echo "$man_cmds") | sed 's/^/    /'
	fail "--help (<) and tpdoc.1 (>) list different commands"
}
echo "ok: commands agree: ${help_cmds//$'\n'/ }"
help_opts=$(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u)
man_opts=$(sed 's/\\-/-/g' $D/tpdoc.1 | grep -o -- '--[a-z][a-z-]*' | sort -u)
[[ $help_opts == "$man_opts" ]] || {
	diff <(echo "$help_opts") <(echo "$man_opts") | sed 's/^/    /'
	fail "--help (<) and tpdoc.1 (>) document different long options"
}
code_opts=$(grep -ho '{ "[a-z][a-z-]*",[[:space:]]*\(no\|required\)_argument' $D/tpdoc-*.c |
	sed 's/.*{ "\([^"]*\)".*/--\1/' | sort -u)
missing=$(comm -23 <(echo "$code_opts") <(echo "$help_opts"))
[[ -z $missing ]] || fail "options in the code but not in --help: $missing"
echo "ok: $(wc -w <<<"$help_opts") long options documented in both, none missing"
for c in $help_cmds; do
	expect_status 0 "$bin" "$c" --help
	expect_status 0 "$bin" help "$c"
done

# Bad arguments: exit 2 and say what is wrong.
expect_status 2 "$bin"
expect_status 2 "$bin" frobnicate
expect_grep "unknown command 'frobnicate'" "$T/err"
expect_status 2 "$bin" list --no-such-option
expect_status 2 "$bin" show
expect_status 2 "$bin" show ':x'
expect_status 2 "$bin" examples
expect_grep '-o FILE is required' "$T/err"
expect_status 2 "$bin" examples -o "$T/x" --timeout soon
expect_status 2 "$bin" examples -o "$T/x" no_such_system
expect_grep "no knowledge file for system 'no_such_system'" "$T/err"
expect_status 2 "$bin" generate
expect_status 2 "$bin" generate -o "$T/not-a-dir"
expect_status 2 "$bin" commands kmem
expect_status 2 "$bin" commands trace-cmd
expect_status 2 "$bin" commands stap no_such_system
[[ ! -e $T/x ]] || fail "a refused command wrote its output file"

# The live tracefs is for the guest only; nothing is read or mounted here.
expect_status 1 "$bin" check
expect_grep 'only in the mmfi guest' "$T/err"
expect_status 1 "$bin" list
expect_status 1 "$bin" examples -o "$T/x" kmem
[[ ! -e $T/x ]] || fail "examples wrote a file outside the guest"

# --- the drift check, on a tracing directory made from the pages ---------
# Each field row "| `name` | `type` | size | yes/no | ..." of each "## event"
# becomes a line of events/SYSTEM/EVENT/format, and the print format shown
# its print fmt, with N dummy values where the page elided N of them;
# other-systems get an event.
mkfmt() {	# mkfmt PAGE DIR: one format file per event of PAGE
	awk -v dir="$2" '
	function unelide(s,   out, n, i) {
		while (match(s, /\{ [0-9]+ values elided \}/)) {
			n = substr(s, RSTART + 2, RLENGTH - 2) + 0; out = out substr(s, 1, RSTART - 1)
			for (i = 0; i < n; i++) out = out (i ? ", " : "") "{ " i ", \"v\" }"
			s = substr(s, RSTART + RLENGTH)
		}
		return out s
	}
	function flush() { if (ev != "") { print "\nprint fmt: " unelide(fmt) > f; close(f) } }
	/^Print format, as the kernel states it/ { want = 1; next }
	want && /^```$/ { getline fmt; want = 0; next }
	/^# [a-z_0-9]+:/ { sys = substr($2, 1, length($2) - 1) }
	/^## [a-z_0-9]+$/ {
		flush(); ev = $2; f = dir "/events/" sys "/" ev "/format"
		system("mkdir -p " dir "/events/" sys "/" ev); off = 8
		print "name: " ev "\nID: " ++id "\nformat:" > f
		print "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" > f
		next }
	ev != "" && /^\| `/ {
		n = split($0, c, "|"); name = c[2]; type = c[3]; size = c[4] + 0
		gsub(/[ `]/, "", name); sub(/^ *`/, "", type); sub(/` *$/, "", type)
		decl = type " " name
		if (type !~ /^__data_loc/ && match(type, /\[[0-9]*\]$/))
			decl = substr(type, 1, RSTART - 1) " " name substr(type, RSTART)
		printf "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", decl, off, size,
			(c[5] ~ /yes/) > f
		off += size }
	END { flush() }' "$1"
}
fake=$T/tracing
for p in "$D"/events/*.md; do
	[[ $(basename "$p") == index.md ]] || mkfmt "$p" "$fake"
done
# Skipped events exist in the kernel too.
for k in "$D"/knowledge/*.tp; do
	sys=$(sed -n 's/^system //p' "$k")
	for ev in $(sed -n 's/^skip \([a-z_0-9]*\) .*/\1/p' "$k"); do
		mkdir -p "$fake/events/$sys/$ev"
		printf 'name: %s\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: "x"\n' \
			"$ev" >"$fake/events/$sys/$ev/format"
	done
done
for s in $(grep -v '^#' $D/knowledge/other-systems | awk 'NF { print $1 }'); do
	mkdir -p "$fake/events/$s/e"
	printf 'name: e\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: "x"\n' \
		>"$fake/events/$s/e/format"
done
expect_status 0 "$bin" check -t "$fake"
expect_grep ': 0 differences$' "$T/out"
events=$(sed -n 's/^\([0-9]*\) events and .*/\1/p' "$T/out")
((events >= 90)) || fail "only $events events documented"
echo "ok: the pages agree with themselves: $(cat "$T/out")"
expect_status 0 "$bin" list -t "$fake"
[[ $(wc -l <"$T/out") == "$events" ]] || fail "list shows $(wc -l <"$T/out") events, check counted $events"
expect_status 0 "$bin" show -t "$fake" kmem:kmalloc
expect_grep '^	size_t +bytes_req +size 8 +unsigned$' "$T/out"

drifts() {	# drifts PATTERN...: check fails, with a DRIFT line for each
	local p
	expect_status 1 "$bin" check -t "$fake"
	for p in "$@"; do expect_grep "^DRIFT: $p" "$T/out"; done
}
cp -a "$fake" "$T/pristine"
f=$fake/events/kmem/kmalloc/format
sed -i 's/field:size_t bytes_req;/field:unsigned int bytes_req;/' "$f"
drifts "kmem:kmalloc: field 'bytes_req': the page says type 'size_t', the kernel 'unsigned int'"
sed -i 's/\(field:unsigned int bytes_req;.*size:\)8;/\14;/' "$f"
drifts "kmem:kmalloc: field 'bytes_req': the page says size 8, the kernel 4"
rm -rf "$fake" && cp -a "$T/pristine" "$fake"
sed -i '/field:int node;/d' "$f"
drifts "kmem:kmalloc: field 'node' is in the page, not in the kernel"
sed -i 's/^\tfield:size_t bytes_req;.*$/&\n\tfield:int site_id;\toffset:64;\tsize:4;\tsigned:1;/' "$f"
drifts "kmem:kmalloc: field 'site_id' \\(int\\) is in the kernel, not in the page"
rm -rf "$fake" && cp -a "$T/pristine" "$fake"
sed -i 's/call_site=%pS/call_site=%lx/' "$fake/events/kmem/kfree/format"
drifts "kmem:kfree: the print format differs"
rm -rf "$fake" && cp -a "$T/pristine" "$fake"
cp -a "$fake/events/kmem/kfree" "$fake/events/kmem/kmalloc_node"
rm -rf "$fake/events/compaction/mm_compaction_begin"
drifts "kmem:kmalloc_node: the kernel has it" "compaction:mm_compaction_begin: documented, but the kernel has no such event"
rm -rf "$fake" && cp -a "$T/pristine" "$fake"
cp -a "$fake/events/kmem" "$fake/events/txlog"
rm -rf "$fake/events/cma" "$fake/events/writeback/writeback_start"
drifts "txlog: a trace system of the kernel that is neither documented" \
	"cma: documented, but the kernel has no such trace system" \
	"writeback:writeback_start: left out on purpose"
rm -rf "$fake" && cp -a "$T/pristine" "$fake"
# A knowledge file edited after the page was made: the page is stale.
cp -a $D/knowledge "$T/knowledge"
echo '# edited' >>"$T/knowledge/oom.tp"
expect_status 1 "$bin" check -t "$fake" -k "$T/knowledge"
expect_grep '^DRIFT: oom: .* was not generated from the current' "$T/out"
# generate refuses an undescribed field and writes no page for it.
mkdir "$T/pages"
expect_status 0 "$bin" generate -t "$fake" -k $D/knowledge -o "$T/pages" --release test
sed -i 's/^\tfield:size_t bytes_req;.*$/&\n\tfield:int site_id;\toffset:64;\tsize:4;\tsigned:1;/' "$f"
rm "$T/pages/kmem.md"
expect_status 1 "$bin" generate -t "$fake" -k $D/knowledge -o "$T/pages" --release test
expect_grep "kmem:kmalloc: field 'site_id' \\(int\\) is not described" "$T/err"
[[ ! -e $T/pages/kmem.md ]] || fail "generate wrote a page with an undescribed field"
echo "ok: generate refuses knowledge that does not match"

# --- the pages' commands are found, and each documented system has both ---
for k in "$D"/knowledge/*.tp; do
	sys=$(sed -n 's/^system //p' "$k")
	expect_status 0 "$bin" commands trace-cmd "$sys"
	expect_status 0 "$bin" commands stap "$sys"
done

# --- 'where FILE:FUNCTION' names a function of the tree that fires it -----
[[ -d build/linux/mm ]] || fail "no kernel tree in build/linux: run 'make kernel'"
nwhere=0
for k in "$D"/knowledge/*.tp; do
	sys=$(sed -n 's/^system //p' "$k")
	while read -r ev file fn; do
		src=build/linux/$file
		[[ -f $src ]] || fail "$sys:$ev: where $file:$fn: no such file in build/linux"
		# The function's body: from its definition to the next line "}".
		body=$(awk -v fn="$fn" '
			!inb && $0 ~ "^([a-zA-Z_].*[ *])?" fn "\\(" && $0 !~ /;[[:space:]]*$/ { inb = 1 }
			inb { print } inb && /^}[[:space:]]*$/ { exit }' "$src")
		[[ -n $body ]] || fail "$sys:$ev: where $file:$fn: no definition of $fn in $src"
		# trace_EVENT( itself, or the event's name passed to a macro.
		grep -qE "trace_$ev\\(|[(, ]${ev#"${sys}"_}[,)]" <<<"$body" ||
			fail "$sys:$ev: where $file:$fn: $fn does not fire it"
		nwhere=$((nwhere + 1))
	done < <(awk '/^event / { ev = $2 } /^where / { split($2, a, ":"); print ev, a[1], a[2] }' "$k")
done
echo "ok: $nwhere 'where' places checked in build/linux"

# The index's counts agree with the pages (a partial regeneration once left
# the index counting only the systems it redid).
idx=tracepoint-docs/events/index.md
mapfile -t pages < <(find tracepoint-docs/events -name '*.md' ! -name index.md)
captured=$(cat "${pages[@]}" | grep -c '^Example, captured in the guest')
events=$(cat "${pages[@]}" | grep -c '^Example')
expect_grep "\\($captured of the $events have one\\)" "$idx"
