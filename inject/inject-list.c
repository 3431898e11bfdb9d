// SPDX-License-Identifier: GPL-2.0
/*
 * inject list [CAP...]: every capability with its settings and counters.
 * Also the printing shared with 'inject status'.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "inject.h"

/* How 'list' groups a capability's files, in this order. */
static const char *const groups[][24] = {
	{ "limits", "probability", "interval", "times", "space", "skip", NULL },
	{ "filters", "task-filter", "pid", "comm", "caller", "reject-caller",
	  "stacktrace-depth", "gfp-require", "gfp-reject", "cache", "cache-filter",
	  "min-size", "max-size", "min-order", "max-order", "ignore-gfp-wait",
	  "ignore-gfp-highmem", "ignore-private", "require-start", "require-end",
	  "reject-start", "reject-end", NULL },
	{ "action", "action", "delay-us", "verbose", "verbose_ratelimit_interval_ms",
	  "verbose_ratelimit_burst", NULL },
	{ "counters", "calls", "matched", "injected", "clamped", NULL },
};

#define NR_GROUPS (int)(sizeof(groups) / sizeof(groups[0]))

static bool grouped(const char *file)
{
	int g, i;

	if (!strcmp(file, "inject") || !strcmp(file, "injectable") ||
	    !strcmp(file, "points"))
		return true;
	for (g = 0; g < NR_GROUPS; g++)
		for (i = 1; groups[g][i]; i++)
			if (!strcmp(groups[g][i], file))
				return true;
	return false;
}

/* Print "key=value" items wrapped under a "  label:" heading. */
struct line {
	int col;
};

static void item(struct line *l, const char *label, const char *key, const char *value)
{
	char text[600];
	bool quote = !*value || strpbrk(value, " \t|*?[") != NULL;
	int len;

	len = snprintf(text, sizeof(text), quote ? "%s='%s'" : "%s=%s", key, value);
	if (!l->col) {
		l->col = printf("  %-9s %s", label, text);
		return;
	}
	if (l->col + 1 + len > 78) {
		printf("\n%12s%s", "", text);
		l->col = 12 + len;
		return;
	}
	l->col += printf(" %s", text);
}

static void end_line(struct line *l)
{
	if (l->col)
		putchar('\n');
	l->col = 0;
}

bool cap_is_armed(const struct fault_cap *cap)
{
	long long p;

	return fault_cap_read_long(cap, "probability", &p) == 0 && p != 0;
}

/* delay_point's points, one per line as the kernel lists them. */
static void print_points(const struct fault_cap *cap)
{
	char *list = fault_cap_read(cap, "points"), *line, *save;
	int n = 0;

	for (line = list ? strtok_r(list, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		printf("  %-9s %s\n", n++ ? "" : "points:", line);
	if (!n)
		printf("  %-9s (none)\n", "points:");
	free(list);
}

static void print_functions(const struct fault_cap *cap, bool all)
{
	static const char *const types[] = { "ERRNO", "ERR_NULL", "NULL", "TRUE", NULL };
	char *list = fault_cap_read(cap, "inject"), *inj, *line, *save;
	struct line l = { 0 };
	int t, n = 0;

	if (list) {
		for (line = strtok_r(list, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char file[512];
			char *rv;

			snprintf(file, sizeof(file), "%s/retval", line);
			rv = fault_cap_read(cap, file);
			if (rv) {
				char v[80];

				snprintf(v, sizeof(v), "0x%s", rv);
				item(&l, "inject:", line, v);
				free(rv);
			} else {
				item(&l, "inject:", line, "?");
			}
			n++;
		}
		free(list);
	}
	if (!n)
		printf("  %-9s (none)\n", "inject:");
	end_line(&l);

	inj = fault_cap_read(cap, "injectable");
	if (!inj)
		return;
	n = 0;
	for (line = inj; (line = strchr(line, '\n')); line++)
		n++;
	printf("  %-9s %d functions%s\n", "injectable:", n,
	       all ? "" : " ('inject list fail_function' lists them)");
	if (all) {
		for (t = 0; types[t]; t++) {
			char *copy = xstrdup(inj);
			int col = 0, count = 0;

			for (line = strtok_r(copy, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *tab = strchr(line, '\t');

				if (!tab || strcmp(tab + 1, types[t]))
					continue;
				*tab = '\0';
				if (!count++)
					col = printf("    %s:", types[t]);
				if (col + 1 + (int)strlen(line) > 78) {
					printf("\n      ");
					col = 6;
				}
				col += printf(" %s", line);
			}
			if (count)
				putchar('\n');
			free(copy);
		}
	}
	free(inj);
}

/**
 * print_cap() - print a capability's settings, grouped, and its counters
 * @cap: the capability
 * @functions: for fail_function, list every injectable function
 */
void print_cap(const struct fault_cap *cap, bool functions)
{
	struct line l = { 0 };
	struct dirent *d;
	DIR *dir;
	int g, i;

	printf("%s (%s)\n", cap->name, cap_is_armed(cap) ? "armed" : "disarmed");
	for (g = 0; g < NR_GROUPS; g++) {
		char label[32];

		snprintf(label, sizeof(label), "%s:", groups[g][0]);
		for (i = 1; groups[g][i]; i++) {
			char *v = fault_cap_read(cap, groups[g][i]);

			if (!v)
				continue;
			item(&l, label, groups[g][i], v);
			free(v);
		}
		end_line(&l);
	}
	/* Files inject does not know about: show them too. */
	dir = opendir(cap->dir);
	while (dir && (d = readdir(dir))) {
		char *v;

		if (d->d_name[0] == '.' || d->d_type != DT_REG || grouped(d->d_name))
			continue;
		v = fault_cap_read(cap, d->d_name);
		if (!v)
			continue;
		item(&l, "other:", d->d_name, v);
		free(v);
	}
	if (dir)
		closedir(dir);
	end_line(&l);
	if (fault_cap_has(cap, "inject"))
		print_functions(cap, functions);
	if (fault_cap_has(cap, "points"))
		print_points(cap);
}

/**
 * cap_lookup() - find a capability by name or exit 2 listing the known ones
 * @command: for the message
 * @name: the capability
 * @cap: filled in
 */
void cap_lookup(const char *command, const char *name, struct fault_cap *cap)
{
	struct fault_cap *caps;
	char known[1024] = "";
	int i, nr;

	if (fault_cap_find(name, cap) == 0)
		return;
	if (errno != ENOENT)
		die("%s: cannot read %s: %s", command, FAULT_DEBUGFS, strerror(errno));
	nr = fault_cap_list(&caps);
	if (nr < 0)
		die("%s: cannot read %s: %s", command, FAULT_DEBUGFS, strerror(errno));
	for (i = 0; i < nr; i++) {
		strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
		strncat(known, caps[i].name, sizeof(known) - strlen(known) - 1);
	}
	free(caps);
	die_usage("%s: unknown capability '%s' (this kernel has: %s)", command, name,
		  nr ? known : "none");
}

/*
 * fail_function and delay_point act at a place that must be named: their
 * own commands arm them, not run, arm or sweep.
 */
void refuse_located_cap(const char *command, const struct fault_cap *cap)
{
	if (fault_cap_has(cap, "inject"))
		die_usage("%s: %s needs a function: use 'inject fail-function FUNC "
			  "--retval R -- CMD'", command, cap->name);
	if (fault_cap_has(cap, "points"))
		die_usage("%s: %s needs a location: use 'inject delay FUNC[+OFFSET] "
			  "--us U -- CMD'", command, cap->name);
}

int cmd_list(int argc, char **argv)
{
	struct fault_cap *caps, cap;
	int i, nr;

	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			die_usage("list: unknown option '%s'", argv[i]);
	if (argc > 1) {
		/* Check every name before printing anything. */
		for (i = 1; i < argc; i++)
			cap_lookup("list", argv[i], &cap);
		for (i = 1; i < argc; i++) {
			cap_lookup("list", argv[i], &cap);
			if (i > 1)
				putchar('\n');
			print_cap(&cap, true);
		}
		return 0;
	}
	nr = fault_cap_list(&caps);
	if (nr < 0)
		die("list: cannot read %s: %s", FAULT_DEBUGFS, strerror(errno));
	if (!nr)
		die("list: no fault-injection capability in %s (CONFIG_FAULT_INJECTION_DEBUG_FS?)",
		    FAULT_DEBUGFS);
	for (i = 0; i < nr; i++) {
		if (i)
			putchar('\n');
		print_cap(&caps[i], true);
	}
	free(caps);
	return 0;
}
