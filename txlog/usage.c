// SPDX-License-Identifier: GPL-2.0
/*
 * usage.c: the help text, in one place.  tests/host/txlog-doc.sh checks
 * that txlog.1 documents the same options.
 */
#include <stdio.h>

#include "txlog.h"

static const char usage_text[] =
	"Usage: txlog [OPTIONS] FILE\n"
	"\n"
	"Group the memory-management events of a trace into per-object transactions:\n"
	"pages by pfn (each allocation a new life), slab objects, vmas and mms by\n"
	"address; report anomalies with the object's history, leak candidates, and\n"
	"optionally a timeline.  FILE is a trace-cmd trace.dat, or text with txrec\n"
	"lines (\"txrec ts=NS cpu=N pid=N comm=C event=SYS:NAME key=value ...\"; other\n"
	"lines are skipped); - reads txrec text from stdin.\n"
	"\n"
	"Selection (objects must match every option given):\n"
	"  -p, --pfn PFN[-PFN][,...]  pages whose pfn (range) is one of these\n"
	"  -P, --ptr ADDR[-ADDR][,...]  slab objects, vmas, mms at these addresses\n"
	"      --pid PID[,...]         objects one of these tasks touched (and, with\n"
	"                              --summary, only these tasks' events)\n"
	"  -e, --event GLOB[,...]      objects with an event matching SYSTEM:NAME or NAME\n"
	"                              (and, with --summary, only those events)\n"
	"      --start TIME            ignore events before TIME\n"
	"      --end TIME              ignore events after TIME; TIME in seconds as\n"
	"                              trace-cmd report prints them, or with ns/us/ms/s\n"
	"\n"
	"Output (text unless --json):\n"
	"  -s, --summary               counts per event and per caller, objects, anomalies\n"
	"  -a, --anomalies             only anomalies and leak candidates, with histories\n"
	"  -q, --quiet                 only the closing totals (and the exit status)\n"
	"  -j, --json                  one JSON document\n"
	"      --svg FILE              also write a timeline to FILE\n"
	"      --svg-by object|cpu     one lane per object life (default) or per CPU\n"
	"      --svg-lanes N           at most N object lanes (default 40)\n"
	"      --history N             events kept per object life (default 64: the\n"
	"                              first N/4 and the latest)\n"
	"      --max-freed N           freed objects remembered to catch a double free\n"
	"                              or use after free (default 1048576)\n"
	"      --top N                 rows of the caller tables (default 20, 0: all)\n"
	"      --txrec                 read FILE as txrec text whatever it starts with\n"
	"  -h, --help                  this text\n"
	"  -V, --version               the version\n"
	"\n"
	"Anomalies: double free, use after free, bad refcount (below zero,\n"
	"impossible, or nonzero at free), double alloc (allocated again while live);\n"
	"informational: unknown origin (freed or used, never allocated in the trace),\n"
	"leak candidate (allocated in the trace, live at its end).\n"
	"\n"
	"Exit status: 0 no anomaly, 1 an anomaly (informational ones do not count),\n"
	"2 bad option, or a file that is unreadable, truncated, corrupt or not a trace.\n";

void usage_print(FILE *f)
{
	fputs(usage_text, f);
}
