// SPDX-License-Identifier: GPL-2.0
/*
 * inject-usage.c: every piece of help text, one entry per command.
 * tests/host/inject-doc.sh checks that inject.8 documents the same
 * commands and options.
 */
#include <stdio.h>
#include <string.h>

#include "inject.h"

const struct usage_entry usage_help[] = {
	{
		NULL,
		"fault injection for one command at a time",
		"Usage: inject COMMAND [ARGS...]\n"
		"       inject help [COMMAND] | inject COMMAND --help | inject --version\n"
		"\n"
		"inject arms one of the kernel's fault-injection capabilities (failslab,\n"
		"fail_page_alloc, fail_function, ...: any directory of /sys/kernel/debug\n"
		"with a 'probability' file), runs a command, reports what was injected and\n"
		"where (from the fault_inject:fault_inject tracepoint), and puts every\n"
		"setting it touched back, also when it is interrupted. It only runs in the\n"
		"mmfi QEMU guest (mmfi.guest=1 on the kernel command line), except\n"
		"'where', which only reads files.\n",
	},
	{
		"list",
		"every capability with its settings and counters",
		"inject list [CAP...]\n"
		"    Print each capability (or the named ones) with its limits, filters,\n"
		"    action and counters, and for fail_function the injected and the\n"
		"    injectable functions.\n",
	},
	{
		"run",
		"arm a capability for one command, report, restore",
		"inject run CAP [options] -- CMD [ARGS...]\n"
		"    Save every setting of CAP that will be written, arm CAP (options\n"
		"    below; filters not given are cleared), clear its counters, run CMD\n"
		"    and print to stderr\n"
		"      inject: CAP: calls=N matched=N injected=N; sites: SITE (xN), ...\n"
		"    where a site is the first caller outside the allocator, then restore\n"
		"    the settings and exit with CMD's status (128+N if signal N killed it).\n"
		"    Only CMD and its children can fail unless --all-tasks is given.\n"
		"      --stacks      also print the call chain of every injection\n"
		"      --quiet       no report line\n"
		"      --all-tasks   let every task fail (task-filter N)\n",
	},
	{
		"arm",
		"arm a capability and leave it armed",
		"inject arm CAP [options]\n"
		"    Like run without a command: CAP stays armed until 'inject reset CAP'.\n"
		"    With --task-only, only tasks with /proc/PID/make-it-fail set fail.\n",
	},
	{
		"status",
		"armed capabilities and saved settings",
		"inject status\n"
		"    Print the armed capabilities, and the settings saved in /run/inject\n"
		"    by an inject that is running or was killed.\n",
	},
	{
		"reset",
		"back to the kernel's defaults, or to saved settings",
		"inject reset [--all | CAP...]\n"
		"    Disarm and write the kernel's defaults (probability 0, interval 1,\n"
		"    times 1, space 0, verbose 2, task-filter N, filters cleared, ...)\n"
		"    into CAP, or into every capability (--all, or no CAP).\n"
		"inject reset --restore [CAP...]\n"
		"    Write back the settings that an inject killed by SIGKILL left in\n"
		"    /run/inject/CAP.saved, and remove the file.\n"
		"      --all         every capability\n"
		"      --restore     restore saved settings instead of the defaults\n",
	},
	{
		"sweep",
		"fail each matching call of a command in turn",
		"inject sweep CAP [filters] [--max N] [--json] [--setup SHELLCMD]\n"
		"             [--cleanup SHELLCMD] [--check-every N | --find-damage] -- CMD [ARGS...]\n"
		"    For n = 1, 2, ...: run CMD afresh with skip n-1 and times 1, so that\n"
		"    its n-th matching call fails; record whether something was injected,\n"
		"    the site, CMD's exit status and first line of output, and whether the\n"
		"    kernel logged a WARNING, BUG, Oops or KASAN report. Stops at the\n"
		"    first run without an injection. A clean run (nothing armed) before\n"
		"    the sweep is the baseline; the sweep's last run (or, after --max, one\n"
		"    more clean run) must end like it, else state was damaged and the\n"
		"    sweep names the runs to blame. Exits 1 if the kernel reported\n"
		"    anything or state was damaged, else 0.\n"
		"      --max N       stop after N runs (default 1000)\n"
		"      --json        machine-readable output\n"
		"      --setup CMD   run 'sh -c CMD' (not injected) before every run\n"
		"      --before CMD  the old name of --setup\n"
		"      --cleanup CMD run 'sh -c CMD' (not injected) after every run\n"
		"      --check-every N  a clean run after every Nth run: stop at the\n"
		"                    first that ends unlike the baseline\n"
		"      --find-damage --check-every 1: name the one run that damaged state\n",
	},
	{
		"fail-function",
		"make a kernel function return an error, or wait, while a command runs",
		"inject fail-function FUNC [MODULE] --retval R | --delay-us U [options]\n"
		"                     -- CMD [ARGS...]\n"
		"    Through fail_function: FUNC must be listed in its 'injectable' file\n"
		"    (a module's function as 'FUNC [MODULE]': give MODULE, or vmlinux,\n"
		"    when the name is listed twice) and R must suit FUNC's error type (ERRNO:\n"
		"    -1..-4095, NULL: 0, ERR_NULL: either). Reports and restores like run.\n"
		"      --retval R    the value FUNC returns, e.g. -12 for -ENOMEM\n"
		"      --delay-us U  instead, hold each matching call U microseconds, then\n"
		"                    let FUNC run (e.g. to widen a race window)\n",
	},
	{
		"delay",
		"stall the kernel at one instruction while a command runs",
		"inject delay FUNC[+OFFSET][,...]|FILE:LINE [MODULE] --us U [options]\n"
		"             -- CMD [ARGS...]\n"
		"    Through delay_point: a kprobe at byte OFFSET (default 0, decimal or\n"
		"    0x hex) of kernel function FUNC, any function kprobes may probe;\n"
		"    each pass there that the filters pick waits U microseconds before\n"
		"    the instruction runs. The wait busy-waits, so at most 10000 us are\n"
		"    waited per pass (the report counts the cut ones). FUNC must be the\n"
		"    only function of its name in MODULE (vmlinux: the kernel image), or\n"
		"    in the whole kernel when MODULE is not given; OFFSET must start an\n"
		"    instruction (objdump -d or gdb's disassemble show where they\n"
		"    start). Reports and restores like run; the point is removed again.\n"
		"    FILE:LINE (a source line, e.g. race_count.c:78) is found by gdb in\n"
		"    the debug information of MODULE (modinfo -n) or of the running\n"
		"    kernel's vmlinux, and gets a point wherever a gdb breakpoint on it\n"
		"    would stop (each copy gcc inlined, some at two addresses; at most\n"
		"    16); what gdb found is cached in /run/inject/lines. A comma list\n"
		"    FUNC+OFFSET,FUNC+OFFSET,... (at most 16) puts a point on each, as\n"
		"    'inject where' prints them.\n"
		"      --us U        microseconds per delay, 1..1000000 (--delay-us too)\n"
		"      --debuginfo F the .ko or vmlinux with FILE:LINE's debug information\n"
		"      --while-in [MODULE:]FN  delay only while some task (the delayed one\n"
		"                    too) runs function FN, entered after arming: to\n"
		"                    hold one task while another is inside its window\n",
	},
	{
		"where",
		"print the instructions a source line became, for delay",
		"inject where FILE:LINE [MODULE] [--debuginfo F]\n"
		"    The locations 'inject delay FILE:LINE' would put points on, found\n"
		"    the same way, as one line FUNC+OFFSET[,FUNC+OFFSET...] that delay\n"
		"    takes. It only reads files, so it runs outside the guest too,\n"
		"    where gdb is much faster than under emulation (qemu/repro resolves\n"
		"    its scenarios' lines there); outside the guest --debuginfo is\n"
		"    required and nothing is cached.\n"
		"      --debuginfo F the .ko or vmlinux with FILE:LINE's debug information\n",
	},
	{
		"options",
		"options of run, arm, sweep, fail-function and delay",
		"Limits (not sweep, which sets skip and times itself):\n"
		"  --probability P      percent of matching calls to fail (default 100)\n"
		"  --times N            at most N failures, -1 for no limit (default 1)\n"
		"  --interval N         fail every N-th matching call (default 1)\n"
		"  --skip N             let the first N matching calls through (default 0)\n"
		"  --space BYTES        let calls through until BYTES were asked (default 0)\n"
		"Filters (a call must pass all of them; those not given are cleared):\n"
		"  --task-only          only CMD and its children (task-filter Y and\n"
		"                       make-it-fail set before exec); default of run,\n"
		"                       sweep, fail-function and delay\n"
		"  --all-tasks          any task may fail\n"
		"  --pid PID            only this thread or process\n"
		"  --comm NAME          only tasks of this name (at most 15 characters)\n"
		"  --caller SYM[,SYM]   only calls with one of these functions on the stack\n"
		"  --reject-caller SYM[,SYM]  never calls with one of these on the stack\n"
		"  --stacktrace-depth N how many stack frames caller filters look at (1-32)\n"
		"  --gfp-require MASK   only allocations with all these gfp flags\n"
		"                       (e.g. '__GFP_NORETRY|__GFP_ACCOUNT')\n"
		"  --gfp-reject MASK    never allocations with any of these gfp flags\n"
		"  --cache GLOB         failslab: only caches whose name matches\n"
		"  --min-size BYTES     failslab: only objects at least this large\n"
		"  --max-size BYTES     failslab: only objects at most this large\n"
		"  --min-order N        fail_page_alloc: smallest order (default 0)\n"
		"  --max-order N        fail_page_alloc: largest order (default MAX_ORDER-1)\n"
		"  --ignore-gfp-wait    failslab, fail_page_alloc: leave allocations that\n"
		"                       may sleep alone (default: they can fail too)\n"
		"Action:\n"
		"  --delay-us U         delay matching calls by U microseconds (at most\n"
		"                       1000000) instead of failing them\n"
		"  --verbose N          kernel log per injection: 0 none (default), 1 a\n"
		"                       line, 2 a line and a stack dump\n"
		"\n"
		"Exit status: run, fail-function and delay exit like CMD; sweep as\n"
		"described; 2 for a bad argument or a value the kernel refused (nothing\n"
		"is left changed); 1 when inject itself fails.\n",
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

static bool takes_options(const char *name)
{
	return !strcmp(name, "run") || !strcmp(name, "arm") ||
	       !strcmp(name, "sweep") || !strcmp(name, "fail-function") ||
	       !strcmp(name, "delay");
}

/**
 * usage_print() - help on one command, or the short overview
 * @command: the command, NULL for the overview
 * @to_stderr: print to stderr (after a usage error)
 */
void usage_print(const char *command, bool to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;
	const struct usage_entry *u;

	if (!command) {
		fputs(usage_help[0].help, f);
		fputs("\nCommands:\n", f);
		for (u = usage_help + 1; u->name; u++)
			if (strcmp(u->name, "options"))
				fprintf(f, "  %-14s %s\n", u->name, u->summary);
		fputs("\n'inject --help' describes every command and option.\n", f);
		return;
	}
	u = find_entry(command);
	if (!u)
		return;
	fputs(u->help, f);
	if (takes_options(command)) {
		fputc('\n', f);
		fputs(find_entry("options")->help, f);
	}
}

/* inject --help: everything, which is what the man page must agree with. */
void usage_print_all(void)
{
	const struct usage_entry *u;

	usage_print(NULL, false);
	for (u = usage_help + 1; u->name; u++) {
		putchar('\n');
		if (!strcmp(u->name, "options"))
			printf("Options of run, arm, sweep, fail-function and delay:\n");
		fputs(u->help, stdout);
	}
}
