/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpdoc: a reference for the memory-management tracepoints of a running
 * kernel, generated from its tracefs formats and hand-written knowledge,
 * and checked against the kernel.  Shared declarations.
 */
#ifndef TPDOC_H
#define TPDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TPDOC_VERSION	"1.0"
#define GUEST_MARKER	"mmfi.guest=1"
#define OTHER_SYSTEMS	"other-systems"	/* knowledge file of the systems left out */

enum {
	EXIT_TROUBLE	= 1,	/* I/O error, drift found, bad knowledge file */
	EXIT_USAGE	= 2,	/* bad argument: nothing was done */
};

/* === tpdoc.c: the tool's face === */

extern const char *argv0;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *read_file(const char *path, size_t *size);
void check_guest(void);
bool is_guest(void);

/* A growable array of strings. */
struct strv {
	char **v;
	int n;
};
void strv_add(struct strv *sv, char *s);
int strv_find(const struct strv *sv, const char *s);

/* === tpdoc-usage.c: all help text === */

struct usage_entry {
	const char *name;	/* command name, NULL for the overview */
	const char *summary;	/* one line */
	const char *help;	/* synopsis and options */
};

extern const struct usage_entry usage_help[];
void usage_print(const char *command, FILE *out);
void usage_print_all(void);

/* === knowledge.c: the hand-written files, one per system === */

struct kfield {
	char *name;
	char *text;		/* meaning and units */
	int line;
};

struct kevent {
	char *name;
	struct strv where;	/* "file:function", where it fires */
	struct strv about;	/* paragraphs */
	struct kfield *fields;
	int nr_fields;
	struct strv cmds;	/* extra trace-cmd / stap command lines */
	char *example;		/* a line captured in the guest (filled later) */
	int line;
};

struct kskip {
	char *name;
	char *reason;
};

struct ksystem {
	char *name;
	char *path;		/* the knowledge file */
	char *title;
	struct strv about;
	struct strv cmds;	/* trace-cmd / stap command lines */
	struct strv workloads;	/* shell commands that make the events fire */
	struct kevent *events;
	int nr_events;
	struct kskip *skips;	/* events deliberately not documented */
	int nr_skips;
	unsigned int hash;	/* of the knowledge file's bytes */
};

struct knowledge {
	struct ksystem *systems;
	int nr_systems;
	struct kskip *others;	/* systems that are not MM, with a reason */
	int nr_others;
};

int knowledge_load(const char *dir, struct knowledge *k);
struct ksystem *knowledge_system(struct knowledge *k, const char *name);
struct kevent *knowledge_event(struct ksystem *s, const char *name);
struct kfield *knowledge_field(struct kevent *e, const char *name);
const char *knowledge_skip(struct ksystem *s, const char *name);
const char *knowledge_other(struct knowledge *k, const char *system);
unsigned int tpdoc_hash(const char *buf, size_t len);

/* === kernel.c: the events as the kernel describes them === */

struct lfield {
	char *name;
	char *type;		/* C type as in the format file, e.g. "char[16]" */
	int size;		/* bytes in the record */
	bool is_signed;
	unsigned long flags;	/* TEP_FIELD_IS_* */
};

struct levent {
	char *system;
	char *name;
	struct lfield *fields;	/* without the common_ ones */
	int nr_fields;
	char *print_fmt;	/* the "print fmt:" line, as the kernel wrote it */
};

const char *kernel_tracing_dir(const char *dir);
int kernel_systems(const char *dir, struct strv *out);
int kernel_events(const char *dir, const char *system, struct strv *out);
int kernel_event_load(const char *dir, const char *system, const char *name,
		      struct levent *ev);
void kernel_event_free(struct levent *ev);

/* === examples.c: one line per event, captured while a workload runs === */

int examples_capture(struct ksystem *s, int timeout, bool verbose);
int examples_load(const char *path, struct knowledge *k);
int examples_save(const char *path, struct knowledge *k);

/* === markdown.c: what a generated page says === */

struct mdfield {
	char *name;
	char *type;
	int size;
	int is_signed;
	char *meaning;
};

struct mdevent {
	char *name;
	char *print_fmt;	/* as shown: value tables elided */
	struct mdfield *fields;
	int nr_fields;
	struct strv cmds;	/* fenced sh blocks of the section */
};

struct mdpage {
	char *system;
	unsigned int hash;	/* of the knowledge it was made from */
	bool has_hash;
	struct strv cmds;	/* fenced sh blocks before the first event */
	struct mdevent *events;
	int nr_events;
};

int markdown_render(FILE *out, struct ksystem *s, const char *dir,
		    const struct strv *stap);
int markdown_index(FILE *out, struct knowledge *k, const char *release);
int markdown_parse(const char *path, struct mdpage *page);
char *markdown_print_fmt(const char *print_fmt);

/* === the commands === */

#ifndef TPDOC_DIR
#define TPDOC_DIR	"tracepoint-docs"
#endif
#define DEFAULT_KNOWLEDGE	TPDOC_DIR "/knowledge"
#define DEFAULT_PAGES		TPDOC_DIR "/events"


int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_examples(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_commands(int argc, char **argv);

#endif /* TPDOC_H */
