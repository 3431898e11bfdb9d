// SPDX-License-Identifier: GPL-2.0
/*
 * knowledge.c: read the hand-written knowledge files, one per trace system.
 *
 * The format is line based.  A directive starts in column 0; a line that
 * starts with white space continues the directive above it (prose is joined
 * with spaces, commands keep their line breaks).  '#' in column 0 starts a
 * comment.  The directives are described in tpdoc.1 and README.md.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpdoc.h"

/* FNV-1a: a page records the hash of the knowledge file it was made from. */
unsigned int tpdoc_hash(const char *buf, size_t len)
{
	unsigned int h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)buf[i];
		h *= 16777619u;
	}
	return h;
}

struct parser {
	const char *path;
	int line;
	struct ksystem *sys;
	struct kevent *ev;
	char **cont;		/* where continuation lines go */
	bool cont_is_cmd;	/* keep line breaks */
	int errors;
};

static void perr(struct parser *p, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: %s:%d: ", argv0, p->path, p->line);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	p->errors++;
}

static void append(char **dst, const char *text, bool keep_lines)
{
	char *s;

	if (!*dst || !**dst) {
		free(*dst);
		*dst = xstrdup(text);
		return;
	}
	s = xasprintf("%s%s%s", *dst, keep_lines ? "\n" : " ", text);
	free(*dst);
	*dst = s;
}

static char *strip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "word rest": split off the first word; rest may be empty. */
static char *split_word(char *s, char **rest)
{
	char *sp = s + strcspn(s, " \t");

	if (*sp) {
		*sp++ = '\0';
		sp = strip(sp);
	}
	*rest = sp;
	return s;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static char **strv_new_slot(struct strv *sv)
{
	strv_add(sv, xstrdup(""));
	return &sv->v[sv->n - 1];
}

static void directive_event(struct parser *p, char *rest)
{
	struct ksystem *s = p->sys;
	struct kevent *e;

	if (!valid_name(rest)) {
		perr(p, "'event' needs an event name, not '%s'", rest);
		return;
	}
	if (knowledge_event(s, rest)) {
		perr(p, "event '%s' is described twice", rest);
		return;
	}
	s->events = xrealloc(s->events, (s->nr_events + 1) * sizeof(*s->events));
	e = &s->events[s->nr_events++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(rest);
	e->line = p->line;
	p->ev = e;
}

static void directive_field(struct parser *p, char *rest)
{
	struct kevent *e = p->ev;
	struct kfield *f;
	char *text;
	char *name = split_word(rest, &text);

	if (!e) {
		perr(p, "'field %s' before any 'event'", name);
		return;
	}
	if (!valid_name(name) || !*text) {
		perr(p, "'field' needs a name and its meaning ('%s')", name);
		return;
	}
	if (knowledge_field(e, name)) {
		perr(p, "field '%s' is described twice", name);
		return;
	}
	e->fields = xrealloc(e->fields, (e->nr_fields + 1) * sizeof(*e->fields));
	f = &e->fields[e->nr_fields++];
	f->name = xstrdup(name);
	f->text = xstrdup(text);
	f->line = p->line;
	p->cont = &f->text;
}

static void directive_skip(struct parser *p, char *rest)
{
	struct ksystem *s = p->sys;
	char *reason;
	char *name = split_word(rest, &reason);

	if (!valid_name(name) || !*reason) {
		perr(p, "'skip' needs an event name and a reason ('%s')", name);
		return;
	}
	s->skips = xrealloc(s->skips, (s->nr_skips + 1) * sizeof(*s->skips));
	s->skips[s->nr_skips].name = xstrdup(name);
	s->skips[s->nr_skips].reason = xstrdup(reason);
	p->cont = &s->skips[s->nr_skips].reason;
	s->nr_skips++;
}

static void directive(struct parser *p, char *line)
{
	struct ksystem *s = p->sys;
	char *rest;
	char *word = split_word(line, &rest);
	bool cmd = !strcmp(word, "trace-cmd") || !strcmp(word, "stap");

	p->cont = NULL;
	p->cont_is_cmd = false;
	if (!strcmp(word, "system")) {
		if (s->name)
			perr(p, "a second 'system' line ('%s')", rest);
		else if (!valid_name(rest))
			perr(p, "'system' needs a name, not '%s'", rest);
		else
			s->name = xstrdup(rest);
		return;
	}
	if (!s->name) {
		perr(p, "'%s' before the 'system' line", word);
		return;
	}
	if (!strcmp(word, "event")) {
		directive_event(p, rest);
	} else if (!strcmp(word, "field")) {
		directive_field(p, rest);
	} else if (!strcmp(word, "skip")) {
		directive_skip(p, rest);
	} else if (!strcmp(word, "title") && !p->ev) {
		free(s->title);
		s->title = xstrdup(rest);
		p->cont = &s->title;
	} else if (!strcmp(word, "about")) {
		p->cont = strv_new_slot(p->ev ? &p->ev->about : &s->about);
		append(p->cont, rest, false);
	} else if (!strcmp(word, "where") && p->ev) {
		if (!strchr(rest, ':'))
			perr(p, "'where' needs FILE:FUNCTION, not '%s'", rest);
		strv_add(&p->ev->where, xstrdup(rest));
	} else if (!strcmp(word, "workload") && !p->ev) {
		p->cont = strv_new_slot(&s->workloads);
		p->cont_is_cmd = true;
		append(p->cont, rest, true);
	} else if (cmd) {
		/* The whole line is the command, program name included. */
		p->cont = strv_new_slot(p->ev ? &p->ev->cmds : &s->cmds);
		p->cont_is_cmd = true;
		append(p->cont, word, true);
		if (*rest) {
			char *c = xasprintf("%s %s", *p->cont, rest);

			free(*p->cont);
			*p->cont = c;
		}
	} else {
		perr(p, "unknown directive '%s' here", word);
	}
}

static int parse_system(const char *path, struct ksystem *s)
{
	struct parser p = { .path = path, .sys = s };
	size_t size;
	char *buf = read_file(path, &size);
	char *line, *next;

	if (!buf) {
		fprintf(stderr, "%s: %s: %s\n", argv0, path, strerror(errno));
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	s->hash = tpdoc_hash(buf, size);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		if (line[0] == '#')
			continue;
		if (line[0] == ' ' || line[0] == '\t') {
			char *t;

			if (!line[strspn(line, " \t\r")])	/* blank line */
				continue;
			/* Commands keep their indentation, prose is joined. */
			t = p.cont_is_cmd ? line : strip(line);
			if (!p.cont)
				perr(&p, "continuation line with nothing to continue: '%s'", strip(line));
			else
				append(p.cont, t, p.cont_is_cmd);
			continue;
		}
		if (!*strip(line))
			continue;
		directive(&p, line);
	}
	free(buf);
	if (!s->name)
		perr(&p, "no 'system' line%s", "");
	return p.errors ? -1 : 0;
}

/* other-systems: "SYSTEM reason..." lines. */
static int parse_others(const char *path, struct knowledge *k)
{
	struct parser p = { .path = path };
	char *buf = read_file(path, NULL);
	char *line, *next, *reason, *name;

	if (!buf) {
		fprintf(stderr, "%s: %s: %s\n", argv0, path, strerror(errno));
		return -1;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		line = strip(line);
		if (!*line || *line == '#')
			continue;
		name = split_word(line, &reason);
		if (!valid_name(name) || !*reason) {
			perr(&p, "expected 'SYSTEM reason', got '%s'", name);
			continue;
		}
		k->others = xrealloc(k->others, (k->nr_others + 1) * sizeof(*k->others));
		k->others[k->nr_others].name = xstrdup(name);
		k->others[k->nr_others].reason = xstrdup(reason);
		k->nr_others++;
	}
	free(buf);
	return p.errors ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ksystem *)a)->name, ((const struct ksystem *)b)->name);
}

/**
 * knowledge_load - read every DIR/SYSTEM.tp file and DIR/other-systems
 * @dir: the knowledge directory
 * @k: filled in, systems sorted by name
 *
 * Returns 0, or -1 after printing each problem with its file and line.
 */
int knowledge_load(const char *dir, struct knowledge *k)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int errors = 0;
	char *path;

	memset(k, 0, sizeof(*k));
	if (!d) {
		fprintf(stderr, "%s: %s: %s\n", argv0, dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct ksystem s;

		if (len < 4 || strcmp(de->d_name + len - 3, ".tp"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (parse_system(path, &s)) {
			errors++;
		} else if (strncmp(de->d_name, s.name, len - 3) || strlen(s.name) != len - 3) {
			fprintf(stderr, "%s: %s: describes system '%s': name the file %s.tp\n",
				argv0, path, s.name, s.name);
			errors++;
		} else {
			k->systems = xrealloc(k->systems, (k->nr_systems + 1) * sizeof(s));
			k->systems[k->nr_systems++] = s;
		}
		free(path);
	}
	closedir(d);
	if (k->nr_systems)
		qsort(k->systems, k->nr_systems, sizeof(*k->systems), by_name);
	path = xasprintf("%s/%s", dir, OTHER_SYSTEMS);
	if (parse_others(path, k))
		errors++;
	free(path);
	if (!errors && !k->nr_systems) {
		fprintf(stderr, "%s: %s: no SYSTEM.tp knowledge files\n", argv0, dir);
		errors++;
	}
	return errors ? -1 : 0;
}

struct ksystem *knowledge_system(struct knowledge *k, const char *name)
{
	int i;

	for (i = 0; i < k->nr_systems; i++)
		if (!strcmp(k->systems[i].name, name))
			return &k->systems[i];
	return NULL;
}

struct kevent *knowledge_event(struct ksystem *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_events; i++)
		if (!strcmp(s->events[i].name, name))
			return &s->events[i];
	return NULL;
}

struct kfield *knowledge_field(struct kevent *e, const char *name)
{
	int i;

	for (i = 0; i < e->nr_fields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}

/* The reason an event of @s is left out, or NULL. */
const char *knowledge_skip(struct ksystem *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_skips; i++)
		if (!strcmp(s->skips[i].name, name))
			return s->skips[i].reason;
	return NULL;
}

/* The reason a whole system is left out, or NULL. */
const char *knowledge_other(struct knowledge *k, const char *system)
{
	int i;

	for (i = 0; i < k->nr_others; i++)
		if (!strcmp(k->others[i].name, system))
			return k->others[i].reason;
	return NULL;
}
