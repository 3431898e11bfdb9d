// SPDX-License-Identifier: GPL-2.0
/*
 * inject: the command dispatcher and the helpers every subcommand uses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

const char *argv0 = "inject";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	bool anywhere;		/* reads files only: runs outside the guest too */
};

static const struct command commands[] = {
	{ "list",		cmd_list, false },
	{ "run",		cmd_run, false },
	{ "arm",		cmd_arm, false },
	{ "status",		cmd_status, false },
	{ "reset",		cmd_reset, false },
	{ "sweep",		cmd_sweep, false },
	{ "fail-function",	cmd_fail_function, false },
	{ "delay",		cmd_delay, false },
	{ "where",		cmd_where, true },
	{ NULL,			NULL, false },
};

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", argv0, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Report a failure of inject itself and exit 1. */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	session_exit(EXIT_TROUBLE);
}

/* Report a bad argument (or a refused value) and exit 2. */
void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	session_exit(EXIT_USAGE);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return p;
}

/* "EINVAL" for EINVAL: the name a kernel developer greps for. */
const char *errno_name(int err)
{
	static char buf[16];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* True in the project's QEMU guest, which marks its command line. */
bool in_guest(void)
{
	char line[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(tok, GUEST_MARKER))
			return true;
	return false;
}

/*
 * inject rewrites the kernel's fault-injection settings; it is meant for
 * the project's throw-away QEMU guest only.
 */
void check_guest(void)
{
	if (in_guest())
		return;
	die_usage("not running in the mmfi QEMU guest (no %s in /proc/cmdline): "
		  "inject rewrites kernel fault-injection settings and only runs "
		  "inside qemu/run", GUEST_MARKER);
}

static const struct command *find_command(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i;

	/* Before anything else: see session_catch_signals(). */
	session_catch_signals();
	if (argc < 2) {
		usage_print(NULL, true);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage_print_all();
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("inject %s\n", INJECT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 2 && !find_command(argv[2]))
			die_usage("help: unknown command '%s'", argv[2]);
		if (argc > 2)
			usage_print(argv[2], false);
		else
			usage_print_all();
		return 0;
	}

	c = find_command(argv[1]);
	if (!c) {
		if (argv[1][0] == '-')
			die_usage("unknown option '%s' (try 'inject --help')", argv[1]);
		die_usage("unknown command '%s' (try 'inject --help')", argv[1]);
	}

	/* Per-command help never touches the kernel. */
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage_print(c->name, false);
			return 0;
		}
	}

	if (!c->anywhere)
		check_guest();
	return c->run(argc - 1, argv + 1);
}
