// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c: the trace events as the running kernel describes them in
 * tracefs (events/SYSTEM/EVENT/format), parsed by libtraceevent.  The same
 * code reads a copy of that tree (-t DIR), which is how it is tested on a
 * machine whose own kernel must not be touched.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <traceevent/event-parse.h>
#include <tracefs.h>

#include "tpdoc.h"

/**
 * kernel_tracing_dir - the tracefs directory to read
 * @dir: a directory given with -t, or NULL for the running kernel's
 *
 * NULL is only accepted in the mmfi guest (it exits otherwise).
 */
const char *kernel_tracing_dir(const char *dir)
{
	const char *t;

	if (dir)
		return dir;
	check_guest();
	t = tracefs_tracing_dir();
	if (!t)
		die("tracefs is not mounted and could not be mounted");
	return t;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Subdirectories of @path (that hold @must if given), sorted. */
static int list_dirs(const char *path, const char *must, struct strv *out)
{
	struct dirent *de;
	DIR *d = opendir(path);
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *p;
		bool ok;

		if (de->d_name[0] == '.')
			continue;
		p = must ? xasprintf("%s/%s/%s", path, de->d_name, must)
			 : xasprintf("%s/%s", path, de->d_name);
		ok = !stat(p, &st) && (must ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode));
		free(p);
		if (ok)
			strv_add(out, xstrdup(de->d_name));
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

/* Every trace system: the directories of DIR/events. */
int kernel_systems(const char *dir, struct strv *out)
{
	char *path = xasprintf("%s/events", dir);
	int ret = list_dirs(path, NULL, out);

	free(path);
	return ret;
}

/* The events of @system: directories of DIR/events/SYSTEM with a format. */
int kernel_events(const char *dir, const char *system, struct strv *out)
{
	char *path = xasprintf("%s/events/%s", dir, system);
	int ret = list_dirs(path, "format", out);

	free(path);
	return ret;
}

/* The text after "print fmt: ", to the end of its line. */
static char *print_fmt_line(const char *buf)
{
	const char *p = strstr(buf, "\nprint fmt: ");
	size_t len;

	if (!p)
		return xstrdup("");
	p += strlen("\nprint fmt: ");
	len = strcspn(p, "\n");
	return strndup(p, len);
}

/**
 * kernel_event_load - parse one event's format
 * @dir: tracing directory
 * @system, @name: the event
 * @ev: filled in; free with kernel_event_free()
 *
 * Returns 0, or -1 with errno set (ENOENT: no such event, EINVAL: the
 * format could not be parsed).
 */
int kernel_event_load(const char *dir, const char *system, const char *name,
		      struct levent *ev)
{
	struct tep_format_field **fields;
	struct tep_handle *tep;
	struct tep_event *event = NULL;
	char *path, *buf;
	size_t size;
	int i;

	memset(ev, 0, sizeof(*ev));
	path = xasprintf("%s/events/%s/%s/format", dir, system, name);
	buf = read_file(path, &size);
	free(path);
	if (!buf)
		return -1;
	/* A handle of its own: copies of tracefs may reuse event IDs. */
	tep = tep_alloc();
	if (!tep)
		die("out of memory");
	tep_set_long_size(tep, sizeof(long));
	if (tep_parse_format(tep, &event, buf, size, system) || !event) {
		tep_free(tep);
		free(buf);
		errno = EINVAL;
		return -1;
	}
	ev->system = xstrdup(system);
	ev->name = xstrdup(name);
	ev->print_fmt = print_fmt_line(buf);
	free(buf);
	fields = tep_event_fields(event);
	for (i = 0; fields && fields[i]; i++) {
		struct tep_format_field *f = fields[i];
		struct lfield *lf;

		ev->fields = xrealloc(ev->fields, (ev->nr_fields + 1) * sizeof(*ev->fields));
		lf = &ev->fields[ev->nr_fields++];
		lf->name = xstrdup(f->name);
		lf->type = xstrdup(f->type);
		lf->size = f->size;
		lf->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
		lf->flags = f->flags;
	}
	free(fields);
	tep_free(tep);
	return 0;
}

void kernel_event_free(struct levent *ev)
{
	int i;

	for (i = 0; i < ev->nr_fields; i++) {
		free(ev->fields[i].name);
		free(ev->fields[i].type);
	}
	free(ev->fields);
	free(ev->system);
	free(ev->name);
	free(ev->print_fmt);
	memset(ev, 0, sizeof(*ev));
}
