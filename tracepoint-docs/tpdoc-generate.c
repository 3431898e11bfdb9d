// SPDX-License-Identifier: GPL-2.0
/*
 * tpdoc examples: capture a line per event while the workloads run.
 * tpdoc generate: write the Markdown pages from the knowledge files, the
 * kernel's formats and the captured examples.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tpdoc.h"

enum { OPT_HELP = 'h', OPT_TIMEOUT = 256, OPT_STAP, OPT_RELEASE };

/* SYSTEM arguments: each must be documented; none means all. */
static void select_systems(struct knowledge *k, int argc, char **argv, bool *sel)
{
	int i;

	for (i = 0; i < k->nr_systems; i++)
		sel[i] = argc == 0;
	for (i = 0; i < argc; i++) {
		struct ksystem *s = knowledge_system(k, argv[i]);

		if (!s)
			die_usage("no knowledge file for system '%s'", argv[i]);
		sel[s - k->systems] = true;
	}
}

int cmd_examples(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "knowledge",	required_argument,	NULL, 'k' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "timeout",	required_argument,	NULL, OPT_TIMEOUT },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *kdir = DEFAULT_KNOWLEDGE, *output = NULL;
	int c, i, timeout = 300, missing = 0, total = 0;
	bool verbose = false, *sel;
	struct knowledge k;
	char *end;

	while ((c = getopt_long(argc, argv, "k:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kdir = optarg; break;
		case 'o': output = optarg; break;
		case 'v': verbose = true; break;
		case OPT_TIMEOUT:
			timeout = strtol(optarg, &end, 10);
			if (*end || end == optarg || timeout <= 0)
				die_usage("examples: --timeout needs a number of seconds, not '%s'", optarg);
			break;
		case OPT_HELP: usage_print("examples", stdout); return 0;
		default: die_usage("examples: bad option");
		}
	}
	if (!output)
		die_usage("examples: -o FILE is required");
	if (knowledge_load(kdir, &k))
		die("%s: the knowledge files have errors (above)", kdir);
	sel = xmalloc(k.nr_systems * sizeof(*sel));
	select_systems(&k, argc - optind, argv + optind, sel);
	check_guest();
	kernel_tracing_dir(NULL);
	for (i = 0; i < k.nr_systems; i++) {
		int m, j;

		if (!sel[i])
			continue;
		m = examples_capture(&k.systems[i], timeout, verbose);
		fprintf(stderr, "%s: %s: %d of %d events captured\n", argv0, k.systems[i].name,
			k.systems[i].nr_events - m, k.systems[i].nr_events);
		for (j = 0; j < k.systems[i].nr_events; j++)
			if (!k.systems[i].events[j].example)
				fprintf(stderr, "%s:   not seen: %s:%s\n", argv0, k.systems[i].name,
					k.systems[i].events[j].name);
		missing += m;
		total += k.systems[i].nr_events;
	}
	if (examples_save(output, &k))
		die("%s: %s", output, strerror(errno));
	printf("%d of %d events captured\n", total - missing, total);
	return 0;
}

/* Lines of a file, for --stap-args. */
static void load_lines(const char *path, struct strv *sv)
{
	char *buf = read_file(path, NULL);
	char *line, *next;

	if (!buf)
		die("%s: %s", path, strerror(errno));
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line)
			strv_add(sv, xstrdup(line));
	}
	free(buf);
}

/* Write @path by way of a temporary file, so a failed run leaves no half page. */
static FILE *page_open(const char *dir, const char *name, char **tmp)
{
	FILE *f;

	*tmp = xasprintf("%s/.%s.tmp", dir, name);
	f = fopen(*tmp, "w");
	if (!f)
		die("%s: %s", *tmp, strerror(errno));
	return f;
}

static void page_commit(FILE *f, char *tmp, const char *dir, const char *name, bool ok)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (fclose(f))
		die("%s: %s", tmp, strerror(errno));
	if (!ok)
		unlink(tmp);
	else if (rename(tmp, path))
		die("%s: %s", path, strerror(errno));
	free(path);
	free(tmp);
}

int cmd_generate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "knowledge",		required_argument,	NULL, 'k' },
		{ "tracing-dir",	required_argument,	NULL, 't' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "examples",		required_argument,	NULL, 'x' },
		{ "stap-args",		required_argument,	NULL, OPT_STAP },
		{ "release",		required_argument,	NULL, OPT_RELEASE },
		{ "help",		no_argument,		NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	const char *kdir = DEFAULT_KNOWLEDGE, *tdir = NULL, *odir = NULL;
	const char *examples = NULL, *release = NULL;
	struct strv stap = { 0 };
	struct knowledge k;
	struct utsname u;
	struct stat st;
	int c, i, errors = 0;
	char *tmp;
	FILE *f;

	while ((c = getopt_long(argc, argv, "k:t:o:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kdir = optarg; break;
		case 't': tdir = optarg; break;
		case 'o': odir = optarg; break;
		case 'x': examples = optarg; break;
		case OPT_STAP: load_lines(optarg, &stap); break;
		case OPT_RELEASE: release = optarg; break;
		case OPT_HELP: usage_print("generate", stdout); return 0;
		default: die_usage("generate: bad option");
		}
	}
	if (optind < argc)
		die_usage("generate: unexpected argument '%s'", argv[optind]);
	if (!odir)
		die_usage("generate: -o DIR is required");
	if (stat(odir, &st) || !S_ISDIR(st.st_mode))
		die_usage("generate: -o %s: not a directory", odir);
	if (knowledge_load(kdir, &k))
		die("%s: the knowledge files have errors (above)", kdir);
	if (examples && examples_load(examples, &k))
		die("%s: %s", examples, strerror(errno));
	if (!release)
		release = !tdir && !uname(&u) ? xstrdup(u.release) : "unknown release";
	tdir = kernel_tracing_dir(tdir);
	for (i = 0; i < k.nr_systems; i++) {
		char *name = xasprintf("%s.md", k.systems[i].name);
		int e;

		f = page_open(odir, name, &tmp);
		e = markdown_render(f, &k.systems[i], tdir, &stap);
		page_commit(f, tmp, odir, name, !e);
		errors += e;
		free(name);
	}
	f = page_open(odir, "index.md", &tmp);
	markdown_index(f, &k, release);
	page_commit(f, tmp, odir, "index.md", !errors);
	if (errors)
		die("%d mismatches between %s and the kernel (above): pages with one were not written",
		    errors, kdir);
	return 0;
}
