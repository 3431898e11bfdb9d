#!/usr/bin/env bash
# tracepoint-docs: the stap commands of the second half of the pages (see
# tracepoint-docs-stap.sh).
TPDOC_STAP_PART=2/2 exec "$(dirname "$0")/tracepoint-docs-stap.sh"
