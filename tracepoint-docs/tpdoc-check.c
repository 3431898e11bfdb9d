// SPDX-License-Identifier: GPL-2.0
/*
 * tpdoc check: do the committed pages still describe the kernel?  Every
 * trace system of the kernel is documented or listed as not MM; every
 * event of a documented system has its section (or a reason to be left
 * out); every field has a row with the kernel's name, type, size and
 * signedness, and a meaning.  Each difference is printed with the event.
 *
 * tpdoc commands: the trace-cmd and stap command lines of the pages, for
 * the tests that run them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tpdoc.h"

enum { OPT_HELP = 'h' };

struct check {
	int drift;
	int events;
	int fields;
};

static void drift(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void drift(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("DRIFT: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	c->drift++;
}

static struct mdevent *page_event(struct mdpage *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_events; i++)
		if (!strcmp(p->events[i].name, name))
			return &p->events[i];
	return NULL;
}

static struct mdfield *page_field(struct mdevent *e, const char *name)
{
	int i;

	for (i = 0; i < e->nr_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}

static void check_event(struct check *c, const char *tdir, const char *sys,
			struct mdevent *me)
{
	struct levent ev;
	int i;

	if (kernel_event_load(tdir, sys, me->name, &ev)) {
		drift(c, "%s:%s: documented, but the kernel has no such event", sys, me->name);
		return;
	}
	c->events++;
	if (me->print_fmt) {
		char *fmt = markdown_print_fmt(ev.print_fmt);

		if (strcmp(fmt, me->print_fmt))
			drift(c, "%s:%s: the print format differs: the page has\n    %s\n  the kernel\n    %s",
			      sys, me->name, me->print_fmt, fmt);
		free(fmt);
	} else {
		drift(c, "%s:%s: the page shows no print format", sys, me->name);
	}
	for (i = 0; i < ev.nr_fields; i++) {
		struct lfield *lf = &ev.fields[i];
		struct mdfield *mf = page_field(me, lf->name);

		c->fields++;
		if (!mf) {
			drift(c, "%s:%s: field '%s' (%s) is in the kernel, not in the page",
			      sys, me->name, lf->name, lf->type);
			continue;
		}
		if (strcmp(mf->type, lf->type))
			drift(c, "%s:%s: field '%s': the page says type '%s', the kernel '%s'",
			      sys, me->name, lf->name, mf->type, lf->type);
		if (mf->size != lf->size)
			drift(c, "%s:%s: field '%s': the page says size %d, the kernel %d",
			      sys, me->name, lf->name, mf->size, lf->size);
		if (mf->is_signed != lf->is_signed)
			drift(c, "%s:%s: field '%s': the page says %ssigned, the kernel %ssigned",
			      sys, me->name, lf->name, mf->is_signed ? "" : "un",
			      lf->is_signed ? "" : "un");
		if (!*mf->meaning)
			drift(c, "%s:%s: field '%s' has no meaning in the page", sys, me->name,
			      lf->name);
	}
	for (i = 0; i < me->nr_fields; i++) {
		int j;
		bool found = false;

		for (j = 0; j < ev.nr_fields; j++)
			found |= !strcmp(ev.fields[j].name, me->fields[i].name);
		if (!found)
			drift(c, "%s:%s: field '%s' is in the page, not in the kernel", sys,
			      me->name, me->fields[i].name);
	}
	kernel_event_free(&ev);
}

static void check_system(struct check *c, const char *tdir, const char *pdir,
			 struct ksystem *s)
{
	char *path = xasprintf("%s/%s.md", pdir, s->name);
	struct strv live;
	struct mdpage page;
	int i;

	if (markdown_parse(path, &page)) {
		drift(c, "%s: no page %s (%s): run 'make tracepoint-docs'", s->name, path,
		      strerror(errno));
		free(path);
		return;
	}
	if (!page.has_hash || page.hash != s->hash)
		drift(c, "%s: %s was not generated from the current %s: run 'make tracepoint-docs'",
		      s->name, path, s->path);
	if (kernel_events(tdir, s->name, &live) || !live.n) {
		drift(c, "%s: documented, but the kernel has no such trace system", s->name);
		free(path);
		return;
	}
	for (i = 0; i < live.n; i++) {
		if (page_event(&page, live.v[i]) || knowledge_skip(s, live.v[i]))
			continue;
		drift(c, "%s:%s: the kernel has it, %s does not document it", s->name,
		      live.v[i], path);
	}
	for (i = 0; i < s->nr_skips; i++)
		if (strv_find(&live, s->skips[i].name) < 0)
			drift(c, "%s:%s: left out on purpose in %s, but the kernel has no such event",
			      s->name, s->skips[i].name, s->path);
	for (i = 0; i < page.nr_events; i++)
		check_event(c, tdir, s->name, &page.events[i]);
	free(path);
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "knowledge",		required_argument,	NULL, 'k' },
		{ "pages",		required_argument,	NULL, 'd' },
		{ "tracing-dir",	required_argument,	NULL, 't' },
		{ "help",		no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *kdir = DEFAULT_KNOWLEDGE, *pdir = DEFAULT_PAGES, *tdir = NULL;
	struct check chk = { 0 };
	struct knowledge k;
	struct strv systems;
	int c, i;

	while ((c = getopt_long(argc, argv, "k:d:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kdir = optarg; break;
		case 'd': pdir = optarg; break;
		case 't': tdir = optarg; break;
		case OPT_HELP: usage_print("check", stdout); return 0;
		default: die_usage("check: bad option");
		}
	}
	if (optind < argc)
		die_usage("check: unexpected argument '%s'", argv[optind]);
	if (knowledge_load(kdir, &k))
		die("%s: the knowledge files have errors (above)", kdir);
	tdir = kernel_tracing_dir(tdir);
	if (kernel_systems(tdir, &systems) || !systems.n)
		die("%s/events: no trace systems there", tdir);
	for (i = 0; i < systems.n; i++)
		if (!knowledge_system(&k, systems.v[i]) && !knowledge_other(&k, systems.v[i]))
			drift(&chk, "%s: a trace system of the kernel that is neither documented "
			      "(%s/%s.tp) nor listed in %s/%s", systems.v[i], kdir, systems.v[i],
			      kdir, OTHER_SYSTEMS);
	for (i = 0; i < k.nr_systems; i++) {
		if (strv_find(&systems, k.systems[i].name) < 0) {
			drift(&chk, "%s: documented, but the kernel has no such trace system",
			      k.systems[i].name);
			continue;
		}
		check_system(&chk, tdir, pdir, &k.systems[i]);
	}
	printf("%d events and %d fields of %d documented systems checked against %s: "
	       "%d differences\n", chk.events, chk.fields, k.nr_systems, tdir, chk.drift);
	return chk.drift ? EXIT_TROUBLE : 0;
}

int cmd_commands(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pages",	required_argument,	NULL, 'd' },
		{ "null",	no_argument,		NULL, '0' },
		{ "help",	no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *pdir = DEFAULT_PAGES, *prog = NULL;
	char sep = '\n';
	int c, i, j, n = 0;

	while ((c = getopt_long(argc, argv, "d:0h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': pdir = optarg; break;
		case '0': sep = '\0'; break;
		case OPT_HELP: usage_print("commands", stdout); return 0;
		default: die_usage("commands: bad option");
		}
	}
	if (optind == argc || (strcmp(argv[optind], "trace-cmd") && strcmp(argv[optind], "stap")))
		die_usage("commands: say which: trace-cmd or stap");
	prog = argv[optind++];
	if (optind == argc)
		die_usage("commands: name one or more SYSTEMs");
	for (i = optind; i < argc; i++) {
		char *path = xasprintf("%s/%s.md", pdir, argv[i]);
		size_t plen = strlen(prog);
		struct mdpage page;
		struct strv all = { 0 };

		if (strchr(argv[i], '/') || markdown_parse(path, &page))
			die_usage("commands: no page for system '%s' (%s)", argv[i], path);
		for (j = 0; j < page.cmds.n; j++)
			strv_add(&all, page.cmds.v[j]);
		for (j = 0; j < page.nr_events; j++) {
			int l;

			for (l = 0; l < page.events[j].cmds.n; l++)
				strv_add(&all, page.events[j].cmds.v[l]);
		}
		for (j = 0; j < all.n; j++) {
			if (strncmp(all.v[j], prog, plen) || all.v[j][plen] != ' ')
				continue;
			fputs(all.v[j], stdout);
			putchar(sep);
			n++;
		}
		free(path);
	}
	return n ? 0 : EXIT_TROUBLE;
}
