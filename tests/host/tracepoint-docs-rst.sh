#!/usr/bin/env bash
# kernel-patches/0024: Documentation/trace/events-kmem.rst of the patched
# tree parses as reStructuredText without a warning (docutils), gives every
# kmem event of the guest kernel with the print format that event really
# has (taken from tracepoint-docs/events/kmem.md, which tpdoc check holds
# to the kernel), and names nothing 6.1 removed.
. "$(dirname "$0")/../lib.sh"
rst=${TPDOC_RST:-build/linux/Documentation/trace/events-kmem.rst}
page=tracepoint-docs/events/kmem.md
[[ -f $rst ]] || fail "no $rst: run 'make kernel'"
grep -q 'rss_stat' "$rst" || fail "$rst is not the one of patch 0023 (no rss_stat): run 'make kernel'"

python3 - "$rst" <<'PY' || fail "$rst does not parse cleanly as reStructuredText"
import sys
import docutils.core
import docutils.utils
path = sys.argv[1]
try:
    docutils.core.publish_doctree(open(path).read(), source_path=path,
                                  settings_overrides={"report_level": 2, "halt_level": 2})
except docutils.utils.SystemMessage as e:
    print(e)
    sys.exit(1)
PY
echo "ok: $rst parses with no docutils warning"

# The page: "## EVENT" headings and the line after "Print format, ...".
n=0
while read -r ev fmt; do
	# Lines of the rst's literal blocks: two spaces, the event, white space, the format.
	mapfile -t lines < <(grep -E "^  ${ev}[[:space:]]" "$rst")
	((${#lines[@]} > 0)) || fail "kmem:$ev is not in $rst"
	for l in "${lines[@]}"; do
		got=$(sed -E "s/^  ${ev}[[:space:]]+//" <<<"$l")
		[[ $got == "$fmt" ]] || fail "kmem:$ev: $rst says '$got', the kernel prints '$fmt'"
	done
	n=$((n + 1))
done < <(awk '/^## [a-z_0-9]+$/ { ev = $2 }
	/^Print format, as the kernel states it/ { want = 1; next }
	want && /^```$/ { getline f; want = 0; sub(/^"/, "", f); sub(/", .*$/, "", f); print ev, f }' "$page")
((n >= 11)) || fail "only $n kmem events found in $page"
echo "ok: the $n kmem events of the kernel are in $rst with their print formats"

# The formats (literal-block lines) of what 6.1 removed are gone; the prose
# may still say that they were.
for stale in '  kmalloc_node' '  kmem_cache_alloc_node' 'call_site=%lx' 'cold=' 'cpu=%d'; do
	! grep -E '^  [a-z]' "$rst" | grep -qF -- "$stale" || fail "$rst still lists '$stale'"
done
echo "ok: no kmalloc_node, kmem_cache_alloc_node, %lx call_site, cold= or cpu= formats left"
