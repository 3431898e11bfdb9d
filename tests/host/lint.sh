#!/usr/bin/env bash
# Every shell script of the project is shellcheck-clean (make lint).
. "$(dirname "$0")/../lib.sh"
command -v shellcheck >/dev/null || fail "shellcheck is not installed (make deps)"
make -s lint >"$T/lint" 2>&1 || { cat "$T/lint"; fail "shellcheck found problems"; }
echo "ok: shellcheck clean"
