// SPDX-License-Identifier: GPL-2.0
/*
 * output.c: transactions, anomalies, failed allocations and the summary,
 * as text or JSON.  Lives arrive as they end, so output streams; a history
 * is printed by reading its events again from the trace.  In JSON the
 * anomalies and failures are kept in temporary files until the objects
 * are all out.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "txlog.h"

#define NO_REF		UINT64_MAX

struct caller_count {
	uint64_t addr;
	uint64_t count;
	int type;
	char *sym;
};

struct leak_row {
	char *what;
	uint64_t objects, bytes;
};

struct tx_output {
	struct tx_source *src;
	const struct tx_options *opt;
	FILE *out;
	FILE *anom, *fail, *mark;	/* JSON: spooled arrays */
	bool first_obj, first_anom, first_fail, first_mark;
	struct tx_svg *svg;
	/* summary: (type, call site) counts */
	struct caller_count *callers;
	size_t ncallers, callers_cap;
	struct tx_map caller_ix;
	/* leak candidates by allocating caller */
	struct leak_row *leaks;
	size_t nleaks, leaks_cap;
	struct tx_map leak_ix;
	bool failed_io;
};

/* === Small helpers === */

static const char *task(struct tx_output *o, int pid, char *buf, size_t size)
{
	if (pid < 0)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%s-%d", o->src->ops->comm(o->src, pid), pid);
	return buf;
}

static const char *ts_str(uint64_t ns, char *buf, size_t size)
{
	tx_fmt_ts(ns, buf, size);
	return buf;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * The symbol of a life's allocating call site, or NULL.  trace.dat
 * symbols come from kallsyms; a txrec event carries its own (call_site_sym),
 * so its allocation event is read again.
 */
static const char *alloc_site(struct tx_output *o, const struct tx_life *l, char *buf, size_t size)
{
	const char *s = NULL;
	struct tx_event ev;
	uint32_t i;

	if (!l->caller)
		return NULL;
	if (o->src->kind == SRC_DAT)
		return o->src->ops->symbol(o->src, NULL, F_CALL_SITE, l->caller, buf, size);
	for (i = 0; i < l->hist.n && i < 4 && !s; i++) {
		if (o->src->ops->reread(o->src, l->hist.ref[i], &ev))
			continue;
		if (l->alloc_type && ev.type->id + 1 == l->alloc_type)
			s = o->src->ops->symbol(o->src, &ev, F_CALL_SITE, l->caller, buf, size);
		o->src->ops->release(o->src, &ev);
	}
	return s;
}

/* When a life is told: at its end, at the end of the trace, or on an anomaly while live. */
enum when { AT_FREE, AT_TRACE_END, SO_FAR };

/* "allocated 12.3 at foo+0x1a (40 of 64 bytes) by bash-140" and the end. */
static void life_story(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		       enum when when, char *buf, size_t size)
{
	char t[32], who[64], sym[128];
	size_t n = 0;

	(void)m;
	switch (l->origin) {
	case O_ALLOC:
		n += snprintf(buf + n, size - n, "allocated %s", ts_str(l->alloc_ts, t, sizeof(t)));
		if (l->kind == K_PTR && l->caller) {
			if (!alloc_site(o, l, sym, sizeof(sym)))
				snprintf(sym, sizeof(sym), "0x%" PRIx64, l->caller);
			n += snprintf(buf + n, size - n, " at %s", sym);
		}
		if (l->kind == K_PTR && l->bytes_alloc)
			n += snprintf(buf + n, size - n, " (%" PRIu64 " of %" PRIu64 " bytes)",
				      l->bytes_req, l->bytes_alloc);
		n += snprintf(buf + n, size - n, " by %s", task(o, l->alloc_pid, who, sizeof(who)));
		break;
	case O_REFSET:
		n += snprintf(buf + n, size - n, "refcount set %s by %s (no mm_page_alloc: bulk or compaction)",
			      ts_str(l->first_ts, t, sizeof(t)), task(o, l->alloc_pid, who, sizeof(who)));
		break;
	default:
		n += snprintf(buf + n, size - n, "origin unknown (first seen %s)",
			      ts_str(l->first_ts, t, sizeof(t)));
	}
	if (n >= size)
		return;
	if (when == SO_FAR) {
		snprintf(buf + n, size - n, ", live");
	} else if (when == AT_TRACE_END) {
		snprintf(buf + n, size - n, ", live at the end of the trace%s",
			 l->origin != O_UNKNOWN ? " (leak candidate)" : "");
	} else if (l->flags & L_UNTRACED_END) {
		snprintf(buf + n, size - n, ", ended without a traced free (allocated again)");
	} else {
		n += snprintf(buf + n, size - n, ", freed %s", ts_str(l->free_ts, t, sizeof(t)));
		if (n < size)
			snprintf(buf + n, size - n, " by %s", task(o, l->free_pid, who, sizeof(who)));
	}
}

/* === Text === */

static void text_event(struct tx_output *o, const struct tx_event *ev, const char *mark)
{
	char t[32], who[64], info[1024];

	o->src->ops->info(o->src, ev, info, sizeof(info));
	fprintf(o->out, "  %12s [%03d] %-20s %-24s %s%s\n", ts_str(ev->ts, t, sizeof(t)), ev->cpu,
		task(o, ev->pid, who, sizeof(who)), ev->type->event, info, mark);
}

/* The kept events of a life, in order; @mark_ref gets @mark. */
static void text_history(struct tx_output *o, const struct tx_life *l, uint64_t mark_ref,
			 const char *mark)
{
	const struct tx_hist *h = &l->hist;
	uint32_t i, j, tail;
	struct tx_event ev;
	bool ring = h->total > h->n;
	uint64_t ref;

	for (i = 0; i < h->n; i++) {
		if (ring && i == h->head)
			fprintf(o->out, "  ... %u events not kept (--history %d) ...\n",
				h->total - h->n, o->opt->history);
		j = i;
		if (ring && i >= h->head) {
			tail = h->n - h->head;
			j = h->head + (h->next + (i - h->head)) % tail;
		}
		ref = h->ref[j];
		if (o->src->ops->reread(o->src, ref, &ev)) {
			fprintf(o->out, "  (event at offset %" PRIu64 " could not be read again)\n", ref);
			continue;
		}
		text_event(o, &ev, ref == mark_ref ? mark : "");
		o->src->ops->release(o->src, &ev);
	}
}

static void text_life(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		      enum when when)
{
	char name[160], story[512];

	tx_life_label(m, l, name, sizeof(name));
	life_story(o, m, l, when, story, sizeof(story));
	fprintf(o->out, "%s, life %u: %s; %u event%s\n", name, l->nr, story, l->hist.total,
		l->hist.total == 1 ? "" : "s");
	text_history(o, l, NO_REF, "");
}

/* === JSON === */

static void json_event(struct tx_output *o, FILE *f, const struct tx_event *ev)
{
	char info[1024];

	fprintf(f, "{\"ts\": %" PRIu64 ".%09" PRIu64 ", \"ts_ns\": %" PRIu64 ", \"cpu\": %d, \"pid\": %d, \"comm\": ",
		ev->ts / 1000000000, ev->ts % 1000000000, ev->ts, ev->cpu, ev->pid);
	tx_json_str(f, o->src->ops->comm(o->src, ev->pid));
	fputs(", \"event\": ", f);
	tx_json_str(f, ev->type->name);
	o->src->ops->info(o->src, ev, info, sizeof(info));
	fputs(", \"info\": ", f);
	tx_json_str(f, info);
	fputs(", \"fields\": {", f);
	o->src->ops->json_fields(o->src, ev, f);
	fputs("}}", f);
}

static void json_history(struct tx_output *o, FILE *f, const struct tx_life *l)
{
	const struct tx_hist *h = &l->hist;
	bool ring = h->total > h->n;
	struct tx_event ev;
	uint32_t i, j;
	bool first = true;

	fputs("[", f);
	for (i = 0; i < h->n; i++) {
		j = i;
		if (ring && i >= h->head)
			j = h->head + (h->next + (i - h->head)) % (h->n - h->head);
		if (o->src->ops->reread(o->src, h->ref[j], &ev))
			continue;
		fputs(first ? "\n    " : ",\n    ", f);
		first = false;
		json_event(o, f, &ev);
		o->src->ops->release(o->src, &ev);
	}
	fputs("]", f);
}

static const char *kind_name(const struct tx_life *l)
{
	static const char *const ptr_kinds[] = { "slab", "vma", "mm" };

	return l->kind == K_PAGE ? "page" : ptr_kinds[l->ptr_kind];
}

static void json_life(struct tx_output *o, const struct tx_model *m, FILE *f,
		      const struct tx_life *l, enum when when)
{
	static const char *const origins[] = { "alloc", "refcount-set", "unknown" };
	const char *cache = tx_cache_name(m, l->cache);
	char name[160], story[512], sym[128];
	const char *sep = "";
	int a;

	tx_life_label(m, l, name, sizeof(name));
	life_story(o, m, l, when, story, sizeof(story));
	fprintf(f, "{\"kind\": \"%s\", \"key\": \"0x%" PRIx64 "\", \"life\": %u, \"name\": ",
		kind_name(l), l->key, l->nr);
	tx_json_str(f, name);
	fputs(", \"story\": ", f);
	tx_json_str(f, story);
	fprintf(f, ", \"origin\": \"%s\", \"state\": \"%s\"", origins[l->origin],
		when != AT_FREE ? "live" : (l->flags & L_UNTRACED_END) ? "ended-untraced" : "freed");
	if (l->kind == K_PAGE)
		fprintf(f, ", \"pfn\": %" PRIu64 ", \"order\": %u", l->key, l->order);
	if (cache) {
		fputs(", \"cache\": ", f);
		tx_json_str(f, cache);
	}
	if (l->origin == O_ALLOC) {
		fprintf(f, ", \"alloc_ts_ns\": %" PRIu64 ", \"alloc_pid\": %d", l->alloc_ts, l->alloc_pid);
		if (l->kind == K_PTR && l->caller) {
			fprintf(f, ", \"alloc_call_site\": \"0x%" PRIx64 "\"", l->caller);
			if (alloc_site(o, l, sym, sizeof(sym))) {
				fputs(", \"alloc_call_site_sym\": ", f);
				tx_json_str(f, sym);
			}
			fprintf(f, ", \"bytes_req\": %" PRIu64 ", \"bytes_alloc\": %" PRIu64,
				l->bytes_req, l->bytes_alloc);
		}
	}
	if (when == AT_FREE && !(l->flags & L_UNTRACED_END))
		fprintf(f, ", \"free_ts_ns\": %" PRIu64 ", \"free_pid\": %d", l->free_ts, l->free_pid);
	if (l->ptr_kind == P_VMA && l->kind == K_PTR)
		fprintf(f, ", \"vm_start\": \"0x%" PRIx64 "\", \"vm_end\": \"0x%" PRIx64 "\", \"mm\": \"0x%" PRIx64 "\"",
			l->vm_start, l->vm_end, tx_vma_mm(m, l));
	fprintf(f, ", \"leak_candidate\": %s, \"anomalies\": [",
		when == AT_TRACE_END && l->origin != O_UNKNOWN ? "true" : "false");
	for (a = 0; a < A_NR; a++) {
		if (l->anomalies & (1U << a)) {
			fprintf(f, "%s\"%s\"", sep, tx_anomaly_names[a]);
			sep = ", ";
		}
	}
	fprintf(f, "], \"events_total\": %u, \"events_not_kept\": %u, \"events\": ",
		l->hist.total, l->hist.total - l->hist.n);
	json_history(o, f, l);
	fputs("}", f);
}

/* === Entry points === */

struct tx_output *tx_output_new(struct tx_source *src, const struct tx_options *opt)
{
	struct tx_output *o = xcalloc(1, sizeof(*o));

	o->src = src;
	o->opt = opt;
	o->out = stdout;
	o->first_obj = o->first_anom = o->first_fail = o->first_mark = true;
	tx_map_init(&o->caller_ix);
	tx_map_init(&o->leak_ix);
	if (opt->json && !opt->summary) {
		o->anom = tmpfile();
		o->fail = tmpfile();
		o->mark = tmpfile();
		if (!o->anom || !o->fail || !o->mark)
			die("cannot create a temporary file for the JSON output");
	}
	if (opt->svg)
		o->svg = tx_svg_new(opt->svg, opt);
	return o;
}

void tx_output_begin(struct tx_output *o)
{
	if (!o->opt->json || o->opt->summary)
		return;
	fprintf(o->out, "{\"txlog\": \"%s\", \"file\": ", TXLOG_VERSION);
	tx_json_str(o->out, o->src->path);
	fprintf(o->out, ", \"format\": \"%s\",\n\"objects\": [", o->src->kind == SRC_DAT ? "trace-cmd" : "txrec");
}

static void leak_count(struct tx_output *o, const struct tx_model *m, const struct tx_life *l)
{
	char what[192], sym[128], who[64];
	struct leak_row *r;
	uint64_t h;
	uint32_t i;

	if (l->kind == K_PAGE) {
		snprintf(what, sizeof(what), "pages of order %u allocated by %s", l->order,
			 l->alloc_pid >= 0 ? o->src->ops->comm(o->src, l->alloc_pid) : "?");
	} else if (l->caller) {
		if (!alloc_site(o, l, sym, sizeof(sym)))
			snprintf(sym, sizeof(sym), "0x%" PRIx64, l->caller);
		snprintf(what, sizeof(what), "%s %s", kind_name(l), sym);
	} else {
		snprintf(what, sizeof(what), "%s by %s", kind_name(l),
			 task(o, l->alloc_pid, who, sizeof(who)));
	}
	(void)m;
	h = str_hash(what);
	while (tx_map_get(&o->leak_ix, h, &i) && strcmp(o->leaks[i].what, what))
		h++;
	if (!tx_map_get(&o->leak_ix, h, &i)) {
		if (o->nleaks == o->leaks_cap) {
			o->leaks_cap = o->leaks_cap ? o->leaks_cap * 2 : 32;
			o->leaks = xrealloc(o->leaks, o->leaks_cap * sizeof(*o->leaks));
		}
		i = o->nleaks++;
		o->leaks[i].what = xstrdup(what);
		o->leaks[i].objects = o->leaks[i].bytes = 0;
		tx_map_put(&o->leak_ix, h, i);
	}
	r = &o->leaks[i];
	r->objects++;
	r->bytes += l->kind == K_PAGE ? 4096ULL << l->order : l->bytes_alloc;
}

void tx_output_life(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		    bool at_end)
{
	bool leak = at_end && l->origin != O_UNKNOWN;

	if (o->svg)
		tx_svg_life(o->svg, o->src, m, l, at_end);
	if (leak)
		leak_count(o, m, l);
	if (o->opt->summary || o->opt->quiet)
		return;
	if (o->opt->anomalies_only && !leak)
		return;
	if (o->opt->json) {
		fputs(o->first_obj ? "\n  " : ",\n  ", o->out);
		o->first_obj = false;
		json_life(o, m, o->out, l, at_end ? AT_TRACE_END : AT_FREE);
	} else {
		text_life(o, m, l, at_end ? AT_TRACE_END : AT_FREE);
	}
}

void tx_output_anomaly(struct tx_output *o, const struct tx_model *m, const struct tx_life *l,
		       enum tx_anomaly a, uint64_t ref, const char *what)
{
	char name[160], story[512], mark[64];

	if (o->svg)
		tx_svg_anomaly(o->svg, o->src, m, l, a);
	/* Leaks are told at the end; unknown origins only as a count. */
	if (a == A_LEAK || a == A_UNKNOWN_ORIGIN || o->opt->summary || o->opt->quiet)
		return;
	tx_life_label(m, l, name, sizeof(name));
	if (o->opt->json) {
		fputs(o->first_anom ? "\n  " : ",\n  ", o->anom);
		o->first_anom = false;
		fprintf(o->anom, "{\"anomaly\": \"%s\", \"what\": ", tx_anomaly_names[a]);
		tx_json_str(o->anom, what);
		fprintf(o->anom, ", \"after_lost_events\": %s, \"ref\": %" PRIu64 ", \"object\": ",
			o->src->lost > l->lost_start ? "true" : "false", ref);
		json_life(o, m, o->anom, l, l->state == S_LIVE ? SO_FAR : AT_FREE);
		fputs("}", o->anom);
		return;
	}
	life_story(o, m, l, l->state == S_LIVE ? SO_FAR : AT_FREE, story, sizeof(story));
	fprintf(o->out, "ANOMALY %s: %s, life %u: %s%s\n", tx_anomaly_names[a], name, l->nr, what,
		o->src->lost > l->lost_start ? " (events were lost meanwhile: may be an artefact)" : "");
	fprintf(o->out, "  %s\n", story);
	snprintf(mark, sizeof(mark), "   <== %s", tx_anomaly_names[a]);
	text_history(o, l, ref, mark);
}

void tx_output_failure(struct tx_output *o, const struct tx_model *m, const struct tx_event *ev,
		       uint64_t fault_ref)
{
	struct tx_event fault;
	bool have_fault;

	(void)m;
	if (o->opt->summary || o->opt->quiet)
		return;
	if (o->opt->filter.npid) {
		int i, pid = ev ? ev->pid : -1;
		bool ok = false;

		if (!ev && fault_ref != NO_REF && !o->src->ops->reread(o->src, fault_ref, &fault)) {
			pid = fault.pid;
			o->src->ops->release(o->src, &fault);
		}
		for (i = 0; i < o->opt->filter.npid; i++)
			ok |= o->opt->filter.pid[i] == pid;
		if (!ok)
			return;
	}
	if (o->opt->filter.npfn || o->opt->filter.nptr || o->opt->filter.nevent)
		return;
	have_fault = fault_ref != NO_REF && !o->src->ops->reread(o->src, fault_ref, &fault);
	if (o->opt->json) {
		fputs(o->first_fail ? "\n  " : ",\n  ", o->fail);
		o->first_fail = false;
		fputs("{\"failed_allocation\": ", o->fail);
		if (ev)
			json_event(o, o->fail, ev);
		else
			fputs("null", o->fail);
		fputs(", \"injected_fault\": ", o->fail);
		if (have_fault)
			json_event(o, o->fail, &fault);
		else
			fputs("null", o->fail);
		fputs("}", o->fail);
	} else if (!o->opt->anomalies_only) {
		if (ev) {
			fprintf(o->out, "failed allocation%s:\n", have_fault ? " (injected)" : "");
			if (have_fault)
				text_event(o, &fault, "   <== injected fault");
			text_event(o, ev, "   <== failed");
		} else if (have_fault) {
			fprintf(o->out, "injected fault (no failed allocation event follows):\n");
			text_event(o, &fault, "");
		}
	}
	if (have_fault)
		o->src->ops->release(o->src, &fault);
}

/* trace_marker text: printed in time order among the transactions. */
static void output_marker(struct tx_output *o, const struct tx_event *ev)
{
	const struct tx_filter *f = &o->opt->filter;
	char text[512], t[32], who[64];
	int i;

	if (o->opt->summary || o->opt->quiet || o->opt->anomalies_only ||
	    f->npfn || f->nptr || f->nevent)
		return;
	for (i = 0; i < f->npid && f->pid[i] != ev->pid; i++)
		;
	if (f->npid && i == f->npid)
		return;
	if (!tx_str(o->src, ev, F_BUF, text, sizeof(text)))
		return;
	if (o->opt->json) {
		fputs(o->first_mark ? "\n  " : ",\n  ", o->mark);
		o->first_mark = false;
		fprintf(o->mark, "{\"ts_ns\": %" PRIu64 ", \"cpu\": %d, \"pid\": %d, \"text\": ",
			ev->ts, ev->cpu, ev->pid);
		tx_json_str(o->mark, text);
		fputs("}", o->mark);
	} else {
		fprintf(o->out, "marker %s [%03d] %s: %s\n", ts_str(ev->ts, t, sizeof(t)), ev->cpu,
			task(o, ev->pid, who, sizeof(who)), text);
	}
}

void tx_output_event(struct tx_output *o, const struct tx_event *ev, enum tx_role role)
{
	if (o->svg)
		tx_svg_event(o->svg, o->src, ev, role);
	if (role == R_MARKER)
		output_marker(o, ev);
}

void tx_output_count_caller(struct tx_output *o, struct tx_source *src,
			    const struct tx_event *ev, uint64_t addr)
{
	struct caller_count *c;
	char sym[160];
	uint64_t h;
	uint32_t i;

	h = addr * 31 + (uint64_t)ev->type->id;
	while (tx_map_get(&o->caller_ix, h, &i)) {
		c = &o->callers[i];
		if (c->addr == addr && c->type == ev->type->id) {
			c->count++;
			return;
		}
		h++;
	}
	if (o->ncallers == o->callers_cap) {
		o->callers_cap = o->callers_cap ? o->callers_cap * 2 : 256;
		o->callers = xrealloc(o->callers, o->callers_cap * sizeof(*o->callers));
	}
	c = &o->callers[o->ncallers];
	c->addr = addr;
	c->type = ev->type->id;
	c->count = 1;
	if (!src->ops->symbol(src, ev, ev->type->field[F_CALL_SITE] || src->kind == SRC_TXREC ?
			      F_CALL_SITE : F_CALLER, addr, sym, sizeof(sym)) &&
	    !src->ops->symbol(src, ev, F_CALLER, addr, sym, sizeof(sym)))
		snprintf(sym, sizeof(sym), "0x%" PRIx64, addr);
	c->sym = xstrdup(sym);
	tx_map_put(&o->caller_ix, h, (uint32_t)o->ncallers++);
}

static int by_count_desc(const void *a, const void *b)
{
	const struct caller_count *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->sym, y->sym);
}

static int leak_desc(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return x->objects < y->objects ? 1 : x->objects > y->objects ? -1 : strcmp(x->what, y->what);
}

static int type_desc(const void *a, const void *b)
{
	const struct tx_type *x = *(struct tx_type *const *)a, *y = *(struct tx_type *const *)b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->name, y->name);
}

static void text_summary(struct tx_output *o, const struct tx_model *m)
{
	const struct tx_stats *st = tx_model_stats(m);
	int i, n = tx_type_count(), top = o->opt->top;
	struct tx_type **types = xmalloc((n ? n : 1) * sizeof(*types));
	char t0[32], t1[32];
	size_t k;

	fprintf(o->out, "%s: %" PRIu64 " events", o->src->path, st->events);
	if (st->events != st->events_all)
		fprintf(o->out, " selected of %" PRIu64, st->events_all);
	fprintf(o->out, ", %s - %s (%.6f s), %d CPU%s, %" PRIu64 " lost\n",
		ts_str(st->first_ts, t0, sizeof(t0)), ts_str(st->last_ts, t1, sizeof(t1)),
		(st->last_ts - st->first_ts) / 1e9, o->src->ncpus, o->src->ncpus == 1 ? "" : "s",
		st->lost);
	for (i = 0; i < n; i++)
		types[i] = tx_type_at(i);
	qsort(types, n, sizeof(*types), type_desc);
	fprintf(o->out, "\n  %10s %6s  %s\n", "events", "%", "event");
	for (i = 0; i < n && types[i]->count; i++)
		fprintf(o->out, "  %10" PRIu64 " %5.1f%%  %s\n", types[i]->count,
			st->events ? 100.0 * types[i]->count / st->events : 0.0, types[i]->name);
	free(types);
	if (o->ncallers) {
		qsort(o->callers, o->ncallers, sizeof(*o->callers), by_count_desc);
		fprintf(o->out, "\n  %10s  %-40s %s\n", "events", "caller", "event");
		for (k = 0; k < o->ncallers && (top <= 0 || k < (size_t)top); k++)
			fprintf(o->out, "  %10" PRIu64 "  %-40s %s\n", o->callers[k].count,
				o->callers[k].sym, tx_type_at(o->callers[k].type)->name);
		if (top > 0 && o->ncallers > (size_t)top)
			fprintf(o->out, "  (%zu more callers; --top 0 shows all)\n", o->ncallers - top);
	}
	fputc('\n', o->out);
}

static void text_leaks(struct tx_output *o)
{
	int top = o->opt->top;
	size_t k;

	if (!o->nleaks)
		return;
	qsort(o->leaks, o->nleaks, sizeof(*o->leaks), leak_desc);
	fprintf(o->out, "leak candidates (allocated in the trace, live at its end), by allocating caller:\n");
	fprintf(o->out, "  %8s %12s  %s\n", "objects", "bytes", "allocated by");
	for (k = 0; k < o->nleaks && (top <= 0 || k < (size_t)top); k++)
		fprintf(o->out, "  %8" PRIu64 " %12" PRIu64 "  %s\n", o->leaks[k].objects,
			o->leaks[k].bytes, o->leaks[k].what);
	if (top > 0 && o->nleaks > (size_t)top)
		fprintf(o->out, "  (%zu more; --top 0 shows all)\n", o->nleaks - top);
}

static void text_totals(struct tx_output *o, const struct tx_model *m)
{
	const struct tx_stats *st = tx_model_stats(m);
	int a;

	fprintf(o->out, "objects: %" PRIu64 " page lives (%" PRIu64 " live at the end), %" PRIu64
		" pointer lives (%" PRIu64 " live at the end; %" PRIu64 " vmas, %" PRIu64 " mms)\n",
		st->lives[K_PAGE], st->live_end[K_PAGE], st->lives[K_PTR], st->live_end[K_PTR],
		st->vmas, st->mms);
	fprintf(o->out, "anomalies:");
	for (a = 0; a < A_NR; a++)
		fprintf(o->out, "%s %" PRIu64 " %s", a ? "," : "", st->anomalies[a], tx_anomaly_names[a]);
	fprintf(o->out, "\nfailed allocations: %" PRIu64 ", injected faults: %" PRIu64 ", lost events: %" PRIu64 "\n",
		st->failed_allocs, st->faults, st->lost);
}

static void json_counts(struct tx_output *o, const struct tx_model *m)
{
	const struct tx_stats *st = tx_model_stats(m);
	int i, n = tx_type_count(), a;
	const char *sep = "";
	size_t k;

	fprintf(o->out, "{\"events\": %" PRIu64 ", \"events_in_window\": %" PRIu64
		", \"first_ts_ns\": %" PRIu64 ", \"last_ts_ns\": %" PRIu64 ", \"cpus\": %d, \"lost_events\": %" PRIu64,
		st->events, st->events_all, st->first_ts, st->last_ts, o->src->ncpus, st->lost);
	fputs(",\n  \"per_event\": {", o->out);
	for (i = 0; i < n; i++) {
		if (!tx_type_at(i)->count)
			continue;
		fputs(sep, o->out);
		sep = ", ";
		tx_json_str(o->out, tx_type_at(i)->name);
		fprintf(o->out, ": %" PRIu64, tx_type_at(i)->count);
	}
	fputs("},\n  \"per_caller\": [", o->out);
	if (o->ncallers)
		qsort(o->callers, o->ncallers, sizeof(*o->callers), by_count_desc);
	for (k = 0; k < o->ncallers; k++) {
		fputs(k ? ", " : "", o->out);
		fputs("{\"caller\": ", o->out);
		tx_json_str(o->out, o->callers[k].sym);
		fputs(", \"event\": ", o->out);
		tx_json_str(o->out, tx_type_at(o->callers[k].type)->name);
		fprintf(o->out, ", \"count\": %" PRIu64 "}", o->callers[k].count);
	}
	fprintf(o->out, "],\n  \"page_lives\": %" PRIu64 ", \"page_live_at_end\": %" PRIu64
		", \"pointer_lives\": %" PRIu64 ", \"pointer_live_at_end\": %" PRIu64
		", \"vmas\": %" PRIu64 ", \"mms\": %" PRIu64 ", \"failed_allocations\": %" PRIu64
		", \"injected_faults\": %" PRIu64 ",\n  \"anomalies\": {",
		st->lives[K_PAGE], st->live_end[K_PAGE], st->lives[K_PTR], st->live_end[K_PTR],
		st->vmas, st->mms, st->failed_allocs, st->faults);
	for (a = 0; a < A_NR; a++)
		fprintf(o->out, "%s\"%s\": %" PRIu64, a ? ", " : "", tx_anomaly_names[a], st->anomalies[a]);
	fputs("}}", o->out);
}

static void copy_spool(struct tx_output *o, FILE *f)
{
	char buf[65536];
	size_t n;

	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, o->out) != n)
			break;
}

void tx_output_end(struct tx_output *o, const struct tx_model *m)
{
	size_t k;

	if (o->svg && tx_svg_write(o->svg, o->src, m))
		die("%s: cannot write the SVG file", o->opt->svg);
	if (o->opt->json) {
		if (o->opt->summary) {
			fputs("{\"txlog\": \"" TXLOG_VERSION "\", \"file\": ", o->out);
			tx_json_str(o->out, o->src->path);
			fputs(", \"summary\": ", o->out);
			json_counts(o, m);
			fputs("}\n", o->out);
			return;
		}
		fputs("],\n\"anomalies\": [", o->out);
		copy_spool(o, o->anom);
		fputs("],\n\"failures\": [", o->out);
		copy_spool(o, o->fail);
		fputs("],\n\"markers\": [", o->out);
		copy_spool(o, o->mark);
		fputs("],\n\"leak_candidates\": [", o->out);
		if (o->nleaks)
			qsort(o->leaks, o->nleaks, sizeof(*o->leaks), leak_desc);
		for (k = 0; k < o->nleaks; k++) {
			fputs(k ? ",\n  " : "\n  ", o->out);
			fputs("{\"allocated_by\": ", o->out);
			tx_json_str(o->out, o->leaks[k].what);
			fprintf(o->out, ", \"objects\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
				o->leaks[k].objects, o->leaks[k].bytes);
		}
		fputs("],\n\"summary\": ", o->out);
		json_counts(o, m);
		fputs("}\n", o->out);
		return;
	}
	if (o->opt->summary) {
		text_summary(o, m);
	} else if (!o->opt->quiet) {
		fputc('\n', o->out);
	}
	text_leaks(o);
	text_totals(o, m);
}

void tx_output_free(struct tx_output *o)
{
	size_t k;

	if (!o)
		return;
	if (o->anom)
		fclose(o->anom);
	if (o->fail)
		fclose(o->fail);
	if (o->mark)
		fclose(o->mark);
	tx_svg_free(o->svg);
	for (k = 0; k < o->ncallers; k++)
		free(o->callers[k].sym);
	free(o->callers);
	for (k = 0; k < o->nleaks; k++)
		free(o->leaks[k].what);
	free(o->leaks);
	tx_map_free(&o->caller_ix);
	tx_map_free(&o->leak_ix);
	free(o);
}
