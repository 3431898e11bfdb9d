#!/usr/bin/env bash
# Every shell script of the project is shellcheck-clean and every Python
# program pyflakes-clean (make lint).
. "$(dirname "$0")/../lib.sh"
command -v shellcheck >/dev/null || fail "shellcheck is not installed (make deps)"
command -v pyflakes3 >/dev/null || fail "pyflakes3 is not installed (make deps)"
make -s lint >"$T/lint" 2>&1 || { cat "$T/lint"; fail "shellcheck or pyflakes3 found problems"; }
echo "ok: shellcheck and pyflakes3 clean"
