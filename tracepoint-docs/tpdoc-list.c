// SPDX-License-Identifier: GPL-2.0
/*
 * tpdoc list: the MM events the kernel has.
 * tpdoc show: what the kernel says about events: fields with their C type,
 * size and signedness, and the print format.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tpdoc.h"

enum { OPT_HELP = 'h' };

/* Is @system one of the documented (MM) ones?  With no knowledge, all are. */
static bool wanted(struct knowledge *k, const char *system, bool all)
{
	return all || knowledge_system(k, system);
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tracing-dir",	required_argument,	NULL, 't' },
		{ "knowledge",		required_argument,	NULL, 'k' },
		{ "all",		no_argument,		NULL, 'a' },
		{ "help",		no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *tdir = NULL, *kdir = DEFAULT_KNOWLEDGE;
	struct strv systems, events;
	struct knowledge k;
	bool all = false;
	int c, i, j;

	while ((c = getopt_long(argc, argv, "t:k:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 't': tdir = optarg; break;
		case 'k': kdir = optarg; break;
		case 'a': all = true; break;
		case OPT_HELP: usage_print("list", stdout); return 0;
		default: die_usage("list: bad option");
		}
	}
	if (optind < argc)
		die_usage("list: unexpected argument '%s'", argv[optind]);
	if (knowledge_load(kdir, &k))
		die("%s: the knowledge files have errors (above)", kdir);
	tdir = kernel_tracing_dir(tdir);
	if (kernel_systems(tdir, &systems))
		die("%s/events: cannot list the trace systems", tdir);
	for (i = 0; i < systems.n; i++) {
		struct ksystem *s = knowledge_system(&k, systems.v[i]);

		if (!wanted(&k, systems.v[i], all) || kernel_events(tdir, systems.v[i], &events))
			continue;
		for (j = 0; j < events.n; j++) {
			/* Events left out on purpose are not listed as MM events. */
			if (!all && s && knowledge_skip(s, events.v[j]))
				continue;
			printf("%s:%s\n", systems.v[i], events.v[j]);
		}
	}
	return 0;
}

static void show_event(const char *tdir, const char *system, const char *name)
{
	struct levent ev;
	int i;

	if (kernel_event_load(tdir, system, name, &ev))
		die("%s:%s: no such event in %s/events (or its format does not parse)",
		    system, name, tdir);
	printf("%s:%s\n", system, name);
	for (i = 0; i < ev.nr_fields; i++)
		printf("\t%-26s %-22s size %-3d %s\n", ev.fields[i].type, ev.fields[i].name,
		       ev.fields[i].size, ev.fields[i].is_signed ? "signed" : "unsigned");
	printf("\tprint fmt: %s\n", ev.print_fmt);
	kernel_event_free(&ev);
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tracing-dir",	required_argument,	NULL, 't' },
		{ "help",		no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *tdir = NULL;
	int c, i, j;

	while ((c = getopt_long(argc, argv, "t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': tdir = optarg; break;
		case OPT_HELP: usage_print("show", stdout); return 0;
		default: die_usage("show: bad option");
		}
	}
	if (optind == argc)
		die_usage("show: name a SYSTEM or SYSTEM:EVENT");
	for (i = optind; i < argc; i++) {
		const char *colon = strchr(argv[i], ':');

		if (argv[i][0] == ':' || (colon && !colon[1]) || strchr(argv[i], '/'))
			die_usage("show: '%s' is not SYSTEM or SYSTEM:EVENT", argv[i]);
	}
	tdir = kernel_tracing_dir(tdir);
	for (i = optind; i < argc; i++) {
		char *system = xstrdup(argv[i]);
		char *colon = strchr(system, ':');
		struct strv events;

		if (colon) {
			*colon = '\0';
			show_event(tdir, system, colon + 1);
		} else {
			if (kernel_events(tdir, system, &events) || !events.n)
				die("%s: no such trace system in %s/events", system, tdir);
			for (j = 0; j < events.n; j++)
				show_event(tdir, system, events.v[j]);
		}
		free(system);
	}
	return 0;
}
