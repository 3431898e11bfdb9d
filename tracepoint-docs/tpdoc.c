// SPDX-License-Identifier: GPL-2.0
/*
 * tpdoc: the command dispatcher and the helpers every command uses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpdoc.h"

const char *argv0 = "tpdoc";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "list",	cmd_list },
	{ "show",	cmd_show },
	{ "examples",	cmd_examples },
	{ "generate",	cmd_generate },
	{ "check",	cmd_check },
	{ "commands",	cmd_commands },
	{ NULL,		NULL },
};

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", argv0, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Report a failure and exit 1. */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(EXIT_TROUBLE);
}

/* Report a bad argument and exit 2. */
void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", argv0);
	exit(EXIT_USAGE);
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

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
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
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

void strv_add(struct strv *sv, char *s)
{
	sv->v = xrealloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

int strv_find(const struct strv *sv, const char *s)
{
	int i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return i;
	return -1;
}

/*
 * The whole of a file, NUL-terminated.  Files of tracefs report a size of
 * 0, so this reads until EOF.  Returns NULL with errno set.
 */
char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 8192, n;
	char *buf;

	if (!f)
		return NULL;
	buf = xmalloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	if (ferror(f)) {
		int err = errno;

		fclose(f);
		free(buf);
		errno = err;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (size)
		*size = len;
	return buf;
}

bool is_guest(void)
{
	char *cmdline = read_file("/proc/cmdline", NULL);
	bool yes = cmdline && strstr(cmdline, GUEST_MARKER);

	free(cmdline);
	return yes;
}

/*
 * Reading the live tracefs (and more so enabling events) is for the mmfi
 * guest only: on any other machine, work on a copy given with -t DIR.
 */
void check_guest(void)
{
	if (!is_guest())
		die("this reads the running kernel's tracefs, which is done only in the "
		    "mmfi guest (no '%s' in /proc/cmdline); give a copy with -t DIR",
		    GUEST_MARKER);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage_print(NULL, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_print_all();
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tpdoc %s\n", TPDOC_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 2) {
			for (c = commands; c->name; c++)
				if (!strcmp(c->name, argv[2]))
					break;
			if (!c->name)
				die_usage("help: unknown command '%s'", argv[2]);
			usage_print(argv[2], stdout);
		} else {
			usage_print_all();
		}
		return 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->run(argc - 1, argv + 1);
	die_usage("unknown command '%s'", argv[1]);
}
