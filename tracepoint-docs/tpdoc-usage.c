// SPDX-License-Identifier: GPL-2.0
/*
 * tpdoc-usage.c: every piece of help text, one entry per command.
 * tests/host/tracepoint-docs-tool.sh checks that tpdoc.1 documents the same
 * commands and options.
 */
#include <stdio.h>
#include <string.h>

#include "tpdoc.h"

const struct usage_entry usage_help[] = {
	{
		NULL,
		"document the MM tracepoints of the running kernel",
		"Usage: tpdoc COMMAND [OPTIONS] [ARGS...]\n"
		"       tpdoc help [COMMAND] | tpdoc COMMAND --help | tpdoc --version\n"
		"\n"
		"tpdoc reads the trace events of the memory-management trace systems from\n"
		"tracefs (events/SYSTEM/EVENT/format, parsed by libtraceevent), merges the\n"
		"hand-written knowledge of tracepoint-docs/knowledge/ (what each event means,\n"
		"where it fires, what each field holds), writes Markdown pages, and checks\n"
		"committed pages against the kernel.  Reading the live tracefs is done only\n"
		"in the mmfi guest (mmfi.guest=1 on the kernel command line); elsewhere give\n"
		"a copy of a tracing directory with -t DIR.\n",
	},
	{
		"list",
		"the MM events of the kernel, SYSTEM:EVENT per line",
		"tpdoc list [-a] [-t DIR] [-k DIR]\n"
		"    Print every event of the documented trace systems, except those a\n"
		"    knowledge file leaves out on purpose ('skip').\n"
		"      -a, --all              every event of every trace system\n",
	},
	{
		"show",
		"fields, C types, sizes, signedness and print format of events",
		"tpdoc show [-t DIR] SYSTEM[:EVENT]...\n"
		"    For each event (all of SYSTEM's when no EVENT is named) print\n"
		"    SYSTEM:EVENT, one line per field (C type, name, size in bytes,\n"
		"    signedness; the common_ fields are left out) and the print format.\n",
	},
	{
		"examples",
		"capture one line per event while the workloads run",
		"tpdoc examples -o FILE [-k DIR] [--timeout S] [-v] [SYSTEM...]\n"
		"    In a tracefs instance of its own, enable the documented events of each\n"
		"    SYSTEM (all systems by default), run the system's workloads with sh -c,\n"
		"    keep the first line each event prints (an event is switched off once it\n"
		"    has one), and write \"SYSTEM:EVENT<TAB>line\" lines to FILE.  Events that\n"
		"    did not fire are named on stderr.  Guest only; the instance is removed\n"
		"    afterwards, also when interrupted.\n"
		"      -o, --output FILE      where to write the examples\n"
		"      --timeout S            seconds each workload may run (default 300)\n"
		"      -v, --verbose          show the workloads and their output\n",
	},
	{
		"generate",
		"write the Markdown pages",
		"tpdoc generate -o DIR [-k DIR] [-t DIR] [-x FILE] [--stap-args FILE]\n"
		"               [--release R]\n"
		"    Write DIR/SYSTEM.md for each knowledge file and DIR/index.md.  Every\n"
		"    event of the kernel's system must be described or skipped and every\n"
		"    field described; any mismatch is printed, and a page with one is not\n"
		"    written (exit 1).\n"
		"      -o, --output DIR       directory of the pages\n"
		"      -x, --examples FILE    example lines from 'tpdoc examples'\n"
		"      --stap-args FILE       'stap -L' lines: the arguments each\n"
		"                             kernel.trace() probe sees\n"
		"      --release R            kernel release named in the index (default:\n"
		"                             uname -r when reading the live tracefs)\n",
	},
	{
		"check",
		"compare the committed pages with the kernel",
		"tpdoc check [-d DIR] [-k DIR] [-t DIR]\n"
		"    Print a DRIFT line for each difference, naming the event: a trace\n"
		"    system neither documented nor listed in knowledge/other-systems, an\n"
		"    event without a section (or one the kernel lacks), a field whose\n"
		"    name, C type, size or signedness differs, a page older than its\n"
		"    knowledge file.  Exit 1 if there is any.\n"
		"      -d, --pages DIR        the pages (default tracepoint-docs/events)\n",
	},
	{
		"commands",
		"print the trace-cmd or stap command lines of pages",
		"tpdoc commands [-d DIR] [-0] trace-cmd|stap SYSTEM...\n"
		"    Print every command of the pages of SYSTEM... that runs the named\n"
		"    program, one per line (they may span lines: use -0).  Exit 1 if\n"
		"    there is none.\n"
		"      -0, --null             end each command with a NUL byte\n",
	},
	{
		"options",
		"",
		"Options, for the commands whose synopsis names them:\n"
		"      -t, --tracing-dir DIR  a tracing directory (with events/) instead\n"
		"                             of the running kernel's tracefs\n"
		"      -k, --knowledge DIR    the knowledge files (default\n"
		"                             tracepoint-docs/knowledge of the checkout)\n"
		"      -h, --help             this command's help\n",
	},
	{ NULL, NULL, NULL },
};

static const struct usage_entry *find_entry(const char *name)
{
	const struct usage_entry *u;

	for (u = usage_help + 1; u->name; u++)
		if (!strcmp(u->name, name))
			return u;
	return NULL;
}

void usage_print(const char *command, FILE *out)
{
	const struct usage_entry *u;

	if (!command) {
		fputs(usage_help[0].help, out);
		fputs("\nCommands:\n", out);
		for (u = usage_help + 1; u->name; u++)
			if (strcmp(u->name, "options"))
				fprintf(out, "  %-10s %s\n", u->name, u->summary);
		fputs("\n'tpdoc --help' describes every command and option.\n", out);
		return;
	}
	u = find_entry(command);
	if (!u)
		return;
	fputs(u->help, out);
	if (strcmp(command, "commands")) {
		fputc('\n', out);
		fputs(find_entry("options")->help, out);
	}
}

/* tpdoc --help: everything, which is what the man page must agree with. */
void usage_print_all(void)
{
	const struct usage_entry *u;

	usage_print(NULL, stdout);
	for (u = usage_help + 1; u->name; u++) {
		putchar('\n');
		fputs(u->help, stdout);
	}
}
