/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txlog: turn a trace of memory-management events (a trace-cmd trace.dat
 * or txrec text lines) into per-object transactions, anomalies and a
 * timeline.  Shared declarations.
 */
#ifndef TXLOG_H
#define TXLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TXLOG_VERSION	"1.0"

/* Exit statuses (like diff and grep). */
enum {
	EXIT_CLEAN	= 0,	/* no anomaly of the error class */
	EXIT_ANOMALY	= 1,	/* double free, use after free, bad refcount, ... */
	EXIT_BAD	= 2,	/* bad argument, unreadable or corrupt input */
};

/* === txlog.c: the tool's face === */

extern const char *argv0;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* === usage.c: all help text === */

void usage_print(FILE *f);

/* === Event types and their meaning to the object model === */

/* What an event does to the object it names. */
enum tx_role {
	R_OTHER,		/* counted only */
	R_PAGE_ALLOC,		/* mm_page_alloc: pfn (-1: failed), order */
	R_PAGE_FREE,		/* mm_page_free */
	R_PAGE_FREE_NOTE,	/* mm_page_free_batched: follows mm_page_free */
	R_PAGE_NOTE,		/* khugepaged scans: may name a page just freed */
	R_PAGE_BUDDY,		/* free-list bookkeeping on a free page */
	R_REF_SET,		/* page_ref_set: a new reference count */
	R_REF_MOD,		/* page_ref_mod*: count changed by val */
	R_REF_TRY,		/* page_ref_mod_unless, page_ref_freeze: ret 0 = no change */
	R_REF_UNFREEZE,		/* page_ref_unfreeze: count set */
	R_PAGE_USE,		/* LRU, page cache, writeback, collapse isolation: pfn */
	R_SLAB_ALLOC,		/* kmalloc, kmem_cache_alloc: ptr (0: failed) */
	R_SLAB_FREE,		/* kfree, kmem_cache_free: ptr */
	R_VMA_STORE,		/* mmap:vma_store: vma, vm_start, vm_end */
	R_MM_EXIT,		/* mmap:exit_mmap: mm */
	R_FAULT,		/* fault_inject:fault_inject, stap:inject */
	R_MARKER,		/* ftrace:print (trace_marker) */
	R_NR
};

/* The fields txlog reads, whatever the source calls them. */
enum tx_field {
	F_PFN, F_ORDER, F_PTR, F_CALL_SITE, F_BYTES_REQ, F_BYTES_ALLOC,
	F_GFP_FLAGS, F_COUNT, F_VAL, F_RET, F_VMA, F_VM_START, F_VM_END,
	F_MM, F_MT, F_CALLER, F_PID_FIELD,
	F_NAME, F_COMM, F_BUF,		/* strings from here on */
	F_NR
};
#define F_FIRST_STRING	F_NAME

extern const char *const tx_field_names[F_NR];

struct tx_type {
	char *name;			/* "kmem:kmalloc" */
	const char *event;		/* "kmalloc" (inside name) */
	enum tx_role role;
	int id;				/* index in the type table */
	uint64_t count;			/* events counted (after filters) */
	bool selected;			/* matches --event (or no --event) */
	/* trace.dat only */
	void *tep_event;
	void *field[F_NR];		/* struct tep_format_field * */
	int min_size;			/* bytes a valid record has at least */
	bool has_dynamic;		/* __data_loc fields to check */
};

/* --event: set before the first type is made; decides tx_type.selected */
extern const struct tx_filter *tx_type_filter;
struct tx_type *tx_type_get(const char *system, const char *event);
struct tx_type *tx_type_at(int id);
int tx_type_count(void);
enum tx_role tx_role_of(const char *system, const char *event);

/* === source.c, source-dat.c, source-txrec.c: reading events === */

enum tx_source_kind { SRC_DAT, SRC_TXREC };

struct tx_event {
	uint64_t ts;			/* ns */
	uint64_t ref;			/* where to read it again (source-defined) */
	int cpu;
	int pid;
	struct tx_type *type;
	void *priv;			/* the source's record */
};

struct tx_source;

/* Called for each event in time order; non-zero stops the walk. */
typedef int (*tx_event_fn)(struct tx_source *src, struct tx_event *ev, void *data);

struct tx_source_ops {
	int (*walk)(struct tx_source *src, tx_event_fn fn, void *data);
	bool (*num)(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		    uint64_t *val);
	bool (*str)(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		    char *buf, size_t size);
	const char *(*comm)(struct tx_source *src, int pid);
	/* Read the event at @ref again (for histories printed later). */
	int (*reread)(struct tx_source *src, uint64_t ref, struct tx_event *ev);
	void (*release)(struct tx_source *src, struct tx_event *ev);
	/* The event's own text (the part after the event name). */
	void (*info)(struct tx_source *src, const struct tx_event *ev, char *buf, size_t size);
	/* Every field as JSON members ("name": value, ...). */
	void (*json_fields)(struct tx_source *src, const struct tx_event *ev, FILE *out);
	/* "func+0xoff" for a kernel address, or NULL. */
	const char *(*symbol)(struct tx_source *src, const struct tx_event *ev,
			      enum tx_field f, uint64_t addr, char *buf, size_t size);
	void (*close)(struct tx_source *src);
};

struct tx_source {
	const char *path;
	enum tx_source_kind kind;
	const struct tx_source_ops *ops;
	int ncpus;
	uint64_t lost;			/* events the kernel dropped */
	int lost_cpus;			/* bitmask (first 32 CPUs) */
	char error[512];		/* why the walk failed */
	void *priv;
};

/* Open PATH ("-": stdin, txrec only); on failure NULL with @err filled. */
struct tx_source *tx_source_open(const char *path, int force_kind, char *err, size_t errsize);
void tx_source_close(struct tx_source *src);

bool tx_num(struct tx_source *src, const struct tx_event *ev, enum tx_field f, uint64_t *val);
bool tx_str(struct tx_source *src, const struct tx_event *ev, enum tx_field f, char *buf,
	    size_t size);
const char *tx_symbol(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		      char *buf, size_t size);

extern const struct tx_source_ops tx_dat_ops;
extern const struct tx_source_ops tx_txrec_ops;
int tx_dat_open(struct tx_source *src, char *err, size_t errsize);
int tx_txrec_open(struct tx_source *src, char *err, size_t errsize);
bool tx_dat_magic(const unsigned char *buf, size_t len);

/* === model.c: objects, lives, anomalies === */

enum tx_kind { K_PAGE, K_PTR, K_NR };

/* Objects reached through a pointer are told apart by their events. */
enum tx_ptr_kind { P_SLAB, P_VMA, P_MM };

enum tx_state { S_LIVE, S_FREED };

enum tx_origin {
	O_ALLOC,		/* allocation event in the window */
	O_REFSET,		/* refcount set to 1 without mm_page_alloc (bulk, compaction) */
	O_UNKNOWN,		/* first seen in use or freed: allocated before the window */
};

enum tx_anomaly {
	A_DOUBLE_FREE,
	A_USE_AFTER_FREE,
	A_REFCOUNT,		/* below zero or impossible */
	A_DOUBLE_ALLOC,		/* allocated again while live */
	A_ERRORS,		/* the kinds above are errors */
	A_UNKNOWN_ORIGIN = A_ERRORS,
	A_LEAK,
	A_NR
};

extern const char *const tx_anomaly_names[A_NR];

struct tx_hist {
	uint64_t *ref;
	uint32_t n;		/* refs kept */
	uint32_t cap;
	uint32_t total;		/* events seen */
	uint32_t head;		/* first @head refs are the first events; the rest a ring */
	uint32_t next;		/* ring position of the oldest tail ref (when full) */
};

struct tx_life {
	uint64_t key;		/* pfn or address */
	uint32_t nr;		/* 1 = first life of this key in the trace */
	uint8_t kind;		/* enum tx_kind */
	uint8_t ptr_kind;	/* enum tx_ptr_kind */
	uint8_t state;
	uint8_t origin;
	uint8_t order;
	uint8_t alloc_type;	/* type id of the allocation event + 1, 0 none */
	uint16_t flags;
	int32_t count;		/* last page refcount seen */
	uint32_t freed_pages;	/* of a high-order block freed piecewise */
	uint64_t *freed_map;	/* which pages of the block were freed */
	uint64_t first_ts, alloc_ts, free_ts, last_ts;
	uint64_t caller, free_caller;
	uint64_t gfp;
	uint64_t bytes_req, bytes_alloc;
	uint64_t vm_start, vm_end;
	uint64_t owner;		/* vma: the maple tree it was stored in */
	uint64_t lost_start;	/* events lost before it started */
	int alloc_pid, free_pid;
	int cache;		/* interned kmem_cache name, -1 none */
	uint32_t anomalies;	/* bitmask of enum tx_anomaly */
	struct tx_hist hist;
};

/* life flags */
#define L_PID_MATCH	0x0001	/* an event by a --pid task */
#define L_EVENT_MATCH	0x0002	/* an event of an --event type */
#define L_REFS		0x0004	/* page_ref events seen */
#define L_SAW_ZERO	0x0008	/* refcount seen at 0 since last set */
#define L_UNTRACED_END	0x0010	/* ended without a free event (reallocated) */

/* Filters from the command line. */
struct tx_range {
	uint64_t lo, hi;	/* inclusive */
};

struct tx_filter {
	struct tx_range *pfn, *ptr;
	int npfn, nptr;
	int *pid;
	int npid;
	char **event;		/* globs on "system:name" or "name" */
	int nevent;
	uint64_t start, end;	/* ns; end 0 = none */
	bool has_start, has_end;
};

struct tx_options {
	struct tx_filter filter;
	bool summary, json, anomalies_only, quiet;
	const char *svg;
	bool svg_by_cpu;
	int svg_lanes;
	int history;		/* refs kept per life */
	long max_freed;		/* freed lives remembered */
	int top;		/* rows of the caller tables */
};

struct tx_output;

struct tx_model;
struct tx_model *tx_model_new(struct tx_source *src, const struct tx_options *opt,
			      struct tx_output *out);
int tx_model_event(struct tx_source *src, struct tx_event *ev, void *model);
void tx_model_finish(struct tx_model *m);
void tx_model_free(struct tx_model *m);

/* What the model counted, for the summary. */
struct tx_stats {
	uint64_t events, events_all;
	uint64_t first_ts, last_ts;
	uint64_t lives[K_NR], live_end[K_NR];
	uint64_t vmas, mms;
	uint64_t anomalies[A_NR];
	uint64_t failed_allocs, faults, markers;
	uint64_t lost;
	size_t peak_live, peak_tracked;
};
const struct tx_stats *tx_model_stats(const struct tx_model *m);
const char *tx_cache_name(const struct tx_model *m, int id);
bool tx_life_selected(const struct tx_model *m, const struct tx_life *l);
uint64_t tx_vma_mm(const struct tx_model *m, const struct tx_life *l);
void tx_life_label(const struct tx_model *m, const struct tx_life *l, char *buf, size_t size);
struct tx_source *tx_model_source(const struct tx_model *m);

/* === output.c: text and JSON; svg.c: the timeline === */

struct tx_output *tx_output_new(struct tx_source *src, const struct tx_options *opt);
void tx_output_begin(struct tx_output *o);
/* A life that ended (freed), or is live at the end (@leak), selected by the filters. */
void tx_output_life(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		    bool at_end);
/* An anomaly on @l; @ref is the event that showed it. */
void tx_output_anomaly(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		       enum tx_anomaly a, uint64_t ref, const char *what);
/* A failed allocation (with the fault that caused it, if any). */
void tx_output_failure(struct tx_output *o, const struct tx_model *m, const struct tx_event *ev,
		       uint64_t fault_ref);
void tx_output_end(struct tx_output *o, const struct tx_model *m);
void tx_output_free(struct tx_output *o);

/* Every event in the window (for the timeline's faults, markers, CPU lanes). */
void tx_output_event(struct tx_output *o, const struct tx_event *ev, enum tx_role role);
/* Per-caller counts for the summary. */
void tx_output_count_caller(struct tx_output *o, struct tx_source *src,
			    const struct tx_event *ev, uint64_t addr);

struct tx_svg;
struct tx_svg *tx_svg_new(const char *path, const struct tx_options *opt);
void tx_svg_event(struct tx_svg *s, struct tx_source *src, const struct tx_event *ev,
		  enum tx_role role);
void tx_svg_anomaly(struct tx_svg *s, struct tx_source *src, const struct tx_model *m,
		    const struct tx_life *l, enum tx_anomaly a);
void tx_svg_life(struct tx_svg *s, struct tx_source *src, const struct tx_model *m,
		 const struct tx_life *l, bool at_end);
int tx_svg_write(struct tx_svg *s, struct tx_source *src, const struct tx_model *m);
void tx_svg_free(struct tx_svg *s);

/* === util.c === */

/* An open-addressing map from 64-bit keys to 32-bit values. */
struct tx_map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t cap, n;
};
void tx_map_init(struct tx_map *m);
void tx_map_free(struct tx_map *m);
bool tx_map_get(const struct tx_map *m, uint64_t key, uint32_t *val);
void tx_map_put(struct tx_map *m, uint64_t key, uint32_t val);
bool tx_map_del(struct tx_map *m, uint64_t key);

/* Keys: pfn ranges, pointers, numbers. */
int tx_parse_u64(const char *s, uint64_t *val);
int tx_parse_time(const char *s, uint64_t *ns);
bool tx_glob(const char *pat, const char *s);
void tx_json_str(FILE *out, const char *s);
void tx_fmt_ts(uint64_t ns, char *buf, size_t size);

#endif /* TXLOG_H */
