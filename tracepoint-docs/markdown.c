// SPDX-License-Identifier: GPL-2.0
/*
 * markdown.c: write a system's page and the index, and read a page back.
 * 'tpdoc check' compares what a committed page says (event headings, field
 * tables) with the kernel, so the two halves of this file must agree on the
 * layout: an event is a "## NAME" heading, a field a table row
 * "| `name` | `type` | size | yes/no | meaning |", a command a ```sh block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpdoc.h"

#define HASH_MARK	"(knowledge hash 0x"
#define PRINT_FMT_MARK	"Print format, as the kernel states it"

/* Table cells: '|' would end the cell, a line break the row. */
static void put_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void put_paragraphs(FILE *out, const struct strv *sv)
{
	int i;

	for (i = 0; i < sv->n; i++)
		fprintf(out, "%s\n\n", sv->v[i]);
}

static void put_commands(FILE *out, const struct strv *sv)
{
	int i;

	for (i = 0; i < sv->n; i++)
		fprintf(out, "```sh\n%s\n```\n\n", sv->v[i]);
}

/* The first sentence of an event's description, for the page's table. */
static void put_summary(FILE *out, const struct kevent *e)
{
	const char *s = e->about.n ? e->about.v[0] : "";
	const char *end = strstr(s, ". ");
	char *first = end ? strndup(s, end - s + 1) : xstrdup(s);

	put_cell(out, first);
	free(first);
}

/*
 * stap -L lines: kernel.trace("SYS:EV") $a:type $b:type ...  The part after
 * the probe point of @system:@event, or NULL.
 */
static const char *stap_line(const struct strv *stap, const char *system,
			     const char *event)
{
	char *key = xasprintf("kernel.trace(\"%s:%s\") ", system, event);
	size_t len = strlen(key);
	const char *found = NULL;
	int i;

	for (i = 0; stap && i < stap->n && !found; i++)
		if (!strncmp(stap->v[i], key, len))
			found = stap->v[i] + len;
	free(key);
	return found;
}

static void put_stap_args(FILE *out, const char *args)
{
	const char *p = args;

	fputs("SystemTap's `kernel.trace()` probe sees the tracepoint's arguments, "
	      "not the fields above:", out);
	while (p && *p == '$') {
		const char *next = strstr(p + 1, " $");
		size_t len = next ? (size_t)(next - p) : strlen(p);

		fprintf(out, " `%.*s`", (int)len, p);
		p = next ? next + 1 : NULL;
	}
	fputs("\n\n", out);
}

/*
 * The print format, with the value tables of __print_flags() and
 * __print_symbolic() elided: expanded by the preprocessor, the GFP flag
 * table alone is 4 KiB of casts.  'tpdoc show' prints them whole.
 */
static void put_print_fmt(FILE *out, const char *s)
{
	static const char *const calls[] = {
		"__print_flags(", "__print_symbolic(", "__print_flags_u64(",
		"__print_symbolic_u64(", NULL
	};

	while (*s) {
		bool quote = false, table = false;
		int i, depth = 1, entries = 0;
		size_t len = 0;

		for (i = 0; calls[i] && !len; i++)
			if (!strncmp(s, calls[i], strlen(calls[i])))
				len = strlen(calls[i]);
		if (!len) {
			fputc(*s++, out);
			continue;
		}
		fwrite(s, 1, len, out);
		for (s += len; *s && depth; s++) {
			if (quote) {
				if (*s == '\\' && s[1] && !table)
					fputc(*s++, out);
				else if (*s == '\\' && s[1])
					s++;
				else if (*s == '"')
					quote = false;
			} else if (*s == '"') {
				quote = true;
			} else if (*s == '{' || *s == '(') {
				if (*s == '{' && depth == 1) {
					entries++;
					if (!table)
						fputs("{ ", out);
					table = true;
				}
				depth++;
			} else if (*s == '}' || *s == ')') {
				depth--;
			}
			if (!depth && table)
				fprintf(out, "%d values elided }", entries);
			if (!table || !depth)
				fputc(*s, out);
		}
	}
}

/* The print format as a page shows it (malloc'ed). */
char *markdown_print_fmt(const char *print_fmt)
{
	size_t len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("out of memory");
	put_print_fmt(f, print_fmt);
	if (fclose(f))
		die("out of memory");
	return buf;
}

static int render_event(FILE *out, struct ksystem *s, struct kevent *e,
			const char *dir, const struct strv *stap)
{
	struct levent ev;
	const char *args;
	int i, errors = 0;

	if (kernel_event_load(dir, s->name, e->name, &ev)) {
		fprintf(stderr, "%s: %s:%s: documented in %s:%d, but the kernel has no such event\n",
			argv0, s->name, e->name, s->path, e->line);
		return 1;
	}
	fprintf(out, "## %s\n\n", e->name);
	put_paragraphs(out, &e->about);
	if (e->where.n) {
		fputs("Fires in:", out);
		for (i = 0; i < e->where.n; i++)
			fprintf(out, "%s `%s`", i ? "," : "", e->where.v[i]);
		fputs(".\n\n", out);
	}
	fputs("| field | C type | size | signed | meaning |\n", out);
	fputs("|---|---|---|---|---|\n", out);
	for (i = 0; i < ev.nr_fields; i++) {
		struct lfield *lf = &ev.fields[i];
		struct kfield *kf = knowledge_field(e, lf->name);

		if (!kf) {
			fprintf(stderr, "%s: %s:%s: field '%s' (%s) is not described in %s\n",
				argv0, s->name, e->name, lf->name, lf->type, s->path);
			errors++;
			continue;
		}
		fprintf(out, "| `%s` | `%s` | %d | %s | ", lf->name, lf->type, lf->size,
			lf->is_signed ? "yes" : "no");
		put_cell(out, kf->text);
		fputs(" |\n", out);
	}
	for (i = 0; i < e->nr_fields; i++) {
		bool found = false;
		int j;

		for (j = 0; j < ev.nr_fields; j++)
			found |= !strcmp(ev.fields[j].name, e->fields[i].name);
		if (!found) {
			fprintf(stderr, "%s: %s:%d: %s:%s has no field '%s'\n", argv0, s->path,
				e->fields[i].line, s->name, e->name, e->fields[i].name);
			errors++;
		}
	}
	fputs("\n" PRINT_FMT_MARK " (value tables of __print_flags() and "
	      "__print_symbolic() elided; `tpdoc show` prints them):\n\n```\n", out);
	put_print_fmt(out, ev.print_fmt);
	fputs("\n```\n\n", out);
	args = stap_line(stap, s->name, e->name);
	if (args)
		put_stap_args(out, args);
	if (e->example)
		fprintf(out, "Example, captured in the guest:\n\n```\n%s\n```\n\n", e->example);
	else
		fputs("Example: none; the workloads of this page did not make it fire in "
		      "the guest (see the page's introduction).\n\n", out);
	put_commands(out, &e->cmds);
	kernel_event_free(&ev);
	return errors;
}

/**
 * markdown_render - write the page of system @s
 * @out: where
 * @s: knowledge, with examples filled in where captured
 * @dir: tracing directory the formats come from
 * @stap: "stap -L" lines for the kernel.trace() arguments, or NULL
 *
 * Every event of the kernel's system must be described or skipped, every
 * field described, and nothing described that the kernel lacks: each
 * mismatch is printed.  Returns the number of them.
 */
int markdown_render(FILE *out, struct ksystem *s, const char *dir,
		    const struct strv *stap)
{
	struct strv live;
	int i, errors = 0;

	if (kernel_events(dir, s->name, &live) || !live.n) {
		fprintf(stderr, "%s: %s: documented in %s, but the kernel has no such system\n",
			argv0, s->name, s->path);
		return 1;
	}
	for (i = 0; i < live.n; i++) {
		if (knowledge_event(s, live.v[i]) || knowledge_skip(s, live.v[i]))
			continue;
		fprintf(stderr, "%s: %s:%s: the kernel has it, %s does not describe it\n",
			argv0, s->name, live.v[i], s->path);
		errors++;
	}
	for (i = 0; i < s->nr_skips; i++) {
		if (strv_find(&live, s->skips[i].name) >= 0)
			continue;
		fprintf(stderr, "%s: %s:%s: skipped in %s, but the kernel has no such event\n",
			argv0, s->name, s->skips[i].name, s->path);
		errors++;
	}
	fprintf(out, "<!-- Generated by 'tpdoc generate' from tracepoint-docs/knowledge/%s.tp "
		"%s%08x) and the running kernel's tracefs: edit the knowledge file, then run "
		"'make tracepoint-docs'. -->\n", s->name, HASH_MARK, s->hash);
	fprintf(out, "# %s: %s\n\n", s->name, s->title ? s->title : "");
	put_paragraphs(out, &s->about);
	fputs("| event | in short |\n|---|---|\n", out);
	for (i = 0; i < s->nr_events; i++) {
		fprintf(out, "| [%s](#%s) | ", s->events[i].name, s->events[i].name);
		put_summary(out, &s->events[i]);
		fputs(" |\n", out);
	}
	fputc('\n', out);
	if (s->nr_skips) {
		fputs("Events of this system not described here:\n\n", out);
		for (i = 0; i < s->nr_skips; i++)
			fprintf(out, "- `%s`: %s\n", s->skips[i].name, s->skips[i].reason);
		fputc('\n', out);
	}
	fputs("## Recording them\n\n", out);
	put_commands(out, &s->cmds);
	for (i = 0; i < s->nr_events; i++)
		errors += render_event(out, s, &s->events[i], dir, stap);
	return errors;
}

/* The index page: the systems, their events and what is left out. */
int markdown_index(FILE *out, struct knowledge *k, const char *release)
{
	int i, total = 0, captured = 0;

	for (i = 0; i < k->nr_systems; i++) {
		int j;

		total += k->systems[i].nr_events;
		for (j = 0; j < k->systems[i].nr_events; j++)
			captured += !!k->systems[i].events[j].example;
	}
	fputs("<!-- Generated by 'tpdoc generate': edit tracepoint-docs/knowledge/, then run "
	      "'make tracepoint-docs'. -->\n", out);
	fputs("# Memory-management tracepoints\n\n", out);
	fprintf(out, "The %d memory-management trace events of the mmfi guest kernel (%s), "
		"system by system: what each one means, where in the source it fires, "
		"what its fields hold and in which units, how to record it with trace-cmd "
		"and SystemTap, and a line it printed in the guest (%d of the %d have one). "
		"Field names, types, sizes and print formats come from the kernel's own "
		"format files; `make check` fails, naming the event, when the kernel and "
		"these pages disagree.\n\n", total, release, captured, total);
	fputs("| system | events | what it covers |\n|---|---|---|\n", out);
	for (i = 0; i < k->nr_systems; i++) {
		fprintf(out, "| [%s](%s.md) | %d | ", k->systems[i].name, k->systems[i].name,
			k->systems[i].nr_events);
		put_cell(out, k->systems[i].title ? k->systems[i].title : "");
		fputs(" |\n", out);
	}
	fputs("\nThe kernel's other trace systems are not memory management and are "
	      "left out:\n\n", out);
	for (i = 0; i < k->nr_others; i++)
		fprintf(out, "- `%s`: %s\n", k->others[i].name, k->others[i].reason);
	return 0;
}

/* === reading a page back === */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		*--e = '\0';
	return s;
}

/* Split a table row into cells (unescaping "\|"); returns how many. */
static int split_row(char *row, char **cells, int max)
{
	char *r = row, *w = row, *start;
	int n = 0;

	if (*r != '|')
		return 0;
	r++;
	w = start = r;
	for (; *r; r++) {
		if (r[0] == '\\' && r[1] == '|') {
			*w++ = '|';
			r++;
		} else if (*r == '|') {
			*w = '\0';
			if (n < max)
				cells[n++] = trim(start);
			w = start = r + 1;
		} else {
			*w++ = *r;
		}
	}
	return n;
}

/* "`x`" -> "x" */
static char *unquote(char *s)
{
	size_t len = strlen(s);

	if (len >= 2 && s[0] == '`' && s[len - 1] == '`') {
		s[len - 1] = '\0';
		return s + 1;
	}
	return s;
}

static bool is_name(const char *s)
{
	return *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")];
}

/**
 * markdown_parse - what a generated page documents
 * @path: the page
 * @page: filled in
 *
 * Returns 0, or -1 with errno set if the page cannot be read.
 */
int markdown_parse(const char *path, struct mdpage *page)
{
	char *buf = read_file(path, NULL);
	char *line, *next, *block = NULL;
	struct mdevent *ev = NULL;
	bool in_fence = false, fmt_next = false, fmt_block = false;

	memset(page, 0, sizeof(*page));
	if (!buf)
		return -1;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (in_fence) {
			if (!strcmp(line, "```")) {
				in_fence = fmt_block = false;
				if (block)
					strv_add(ev ? &ev->cmds : &page->cmds, block);
				block = NULL;
			} else if (fmt_block && ev && !ev->print_fmt) {
				ev->print_fmt = xstrdup(line);
			} else if (block) {
				char *b = *block ? xasprintf("%s\n%s", block, line) : xstrdup(line);

				free(block);
				block = b;
			}
			continue;
		}
		if (!strncmp(line, "```", 3)) {
			in_fence = true;
			block = !strcmp(line, "```sh") ? xstrdup("") : NULL;
			fmt_block = fmt_next && !block;
			fmt_next = false;
			continue;
		}
		if (ev && !strncmp(line, PRINT_FMT_MARK, strlen(PRINT_FMT_MARK))) {
			fmt_next = true;
			continue;
		}
		if (!page->has_hash && strstr(line, HASH_MARK)) {
			page->hash = strtoul(strstr(line, HASH_MARK) + strlen(HASH_MARK), NULL, 16);
			page->has_hash = true;
			continue;
		}
		if (!page->system && !strncmp(line, "# ", 2)) {
			page->system = strndup(line + 2, strcspn(line + 2, ":"));
			continue;
		}
		if (!strncmp(line, "## ", 3)) {
			if (!is_name(line + 3)) {
				ev = NULL;
				continue;
			}
			page->events = xrealloc(page->events,
						(page->nr_events + 1) * sizeof(*page->events));
			ev = &page->events[page->nr_events++];
			memset(ev, 0, sizeof(*ev));
			ev->name = xstrdup(line + 3);
			continue;
		}
		if (ev && !strncmp(line, "| `", 3)) {
			char *cells[6];
			struct mdfield *f;

			if (split_row(line, cells, 6) != 5)
				continue;
			ev->fields = xrealloc(ev->fields, (ev->nr_fields + 1) * sizeof(*ev->fields));
			f = &ev->fields[ev->nr_fields++];
			f->name = xstrdup(unquote(cells[0]));
			f->type = xstrdup(unquote(cells[1]));
			f->size = atoi(cells[2]);
			f->is_signed = !strcmp(cells[3], "yes");
			f->meaning = xstrdup(cells[4]);
		}
	}
	free(block);
	free(buf);
	return 0;
}
