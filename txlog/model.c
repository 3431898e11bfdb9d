// SPDX-License-Identifier: GPL-2.0
/*
 * model.c: events grouped into object lives.
 *
 * Pages are keyed by pfn (a block of order N by its first pfn), pointers
 * (slab objects, vmas, mms) by address.  A life starts at an allocation
 * (or at the first sight of an object allocated before the trace) and
 * ends at its free; the next allocation at the same key is a new life.
 * Each life keeps the positions of its events in the trace (not the
 * events), so memory grows with the objects alive, plus one compact record
 * for each of the last --max-freed freed objects (kept to recognise a
 * double free or a use after free), never with the length of the trace.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "txlog.h"

#define NO_REF		UINT64_MAX
#define MAX_ORDER_SEEN	12		/* blocks larger than this are not looked for */
#define REFCOUNT_LIMIT	(1 << 24)	/* more references than this is corruption */

const char *const tx_anomaly_names[A_NR] = {
	[A_DOUBLE_FREE]		= "double free",
	[A_USE_AFTER_FREE]	= "use after free",
	[A_REFCOUNT]		= "bad refcount",
	[A_DOUBLE_ALLOC]	= "double alloc",
	[A_UNKNOWN_ORIGIN]	= "unknown origin",
	[A_LEAK]		= "leak candidate",
};

struct freed_ref {
	uint64_t key;
	uint32_t idx, nr;
	uint8_t kind;
};

struct pending_fault {
	uint64_t ref, ts;
	int pid;
	bool used;
};

struct tx_model {
	struct tx_source *src;
	const struct tx_options *opt;
	struct tx_output *out;
	struct tx_life *lives;
	uint32_t nlives, cap;
	uint32_t *spare;		/* pool slots free for reuse */
	uint32_t nspare, spare_cap;
	uint64_t live_now;
	struct tx_map keys[K_NR];
	/* freed lives, oldest first: a ring of max_freed entries */
	struct freed_ref *freed;
	size_t freed_head, freed_n, freed_cap;
	/* injected faults not yet matched with a failed allocation */
	struct pending_fault *faults;
	size_t nfaults, faults_cap;
	struct tx_map fault_pid;
	/* kmem_cache names */
	char **caches;
	int ncaches, caches_cap;
	struct tx_map cache_ids;
	/* mm_struct.mm_mt - mm_struct, learnt from exit_mmap */
	uint64_t mt_offset;
	bool have_mt_offset;
	struct tx_stats st;
};

/* === The pool of lives === */

static uint32_t life_new(struct tx_model *m, enum tx_kind kind, uint64_t key, uint32_t nr,
			 const struct tx_event *ev)
{
	struct tx_life *l;
	uint32_t i;

	if (m->nspare) {
		i = m->spare[--m->nspare];
	} else {
		if (m->nlives == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 4096;
			m->lives = xrealloc(m->lives, m->cap * sizeof(*m->lives));
		}
		i = m->nlives++;
	}
	l = &m->lives[i];
	memset(l, 0, sizeof(*l));
	l->key = key;
	l->nr = nr;
	l->kind = kind;
	l->state = S_LIVE;
	l->origin = O_UNKNOWN;
	l->first_ts = l->last_ts = ev->ts;
	l->alloc_pid = l->free_pid = -1;
	l->cache = -1;
	l->lost_start = m->src->lost;
	tx_map_put(&m->keys[kind], key, i);
	if (++m->live_now > m->st.peak_live)
		m->st.peak_live = m->live_now;
	if (m->keys[K_PAGE].n + m->keys[K_PTR].n > m->st.peak_tracked)
		m->st.peak_tracked = m->keys[K_PAGE].n + m->keys[K_PTR].n;
	return i;
}

/* Forget a freed life: its slot goes back to the pool. */
static void life_drop(struct tx_model *m, uint32_t i)
{
	struct tx_life *l = &m->lives[i];

	tx_map_del(&m->keys[l->kind], l->key);
	free(l->hist.ref);
	free(l->freed_map);
	memset(l, 0, sizeof(*l));
	if (m->nspare == m->spare_cap) {
		m->spare_cap = m->spare_cap ? m->spare_cap * 2 : 1024;
		m->spare = xrealloc(m->spare, m->spare_cap * sizeof(*m->spare));
	}
	m->spare[m->nspare++] = i;
}

static void hist_add(const struct tx_model *m, struct tx_life *l, uint64_t ref)
{
	struct tx_hist *h = &l->hist;
	uint32_t max = m->opt->history, tail;

	h->total++;
	if (h->n < max) {
		if (h->n == h->cap) {
			h->cap = h->cap ? h->cap * 2 : 4;
			if (h->cap > max)
				h->cap = max;
			h->ref = xrealloc(h->ref, h->cap * sizeof(*h->ref));
		}
		h->ref[h->n++] = ref;
		h->head = max / 4;
		return;
	}
	/* Full: the first quarter stays, the rest is a ring of the latest. */
	tail = max - h->head;
	h->ref[h->head + h->next] = ref;
	h->next = (h->next + 1) % tail;
}

/* === Filters === */

static bool in_ranges(const struct tx_range *r, int n, uint64_t lo, uint64_t hi)
{
	int i;

	for (i = 0; i < n; i++)
		if (lo <= r[i].hi && hi >= r[i].lo)
			return true;
	return false;
}

/* Does the key filter (--pfn, --ptr) let events on this object through? */
static bool key_wanted(const struct tx_model *m, enum tx_kind kind, uint64_t key,
		       unsigned int order)
{
	const struct tx_filter *f = &m->opt->filter;

	if (!f->npfn && !f->nptr)
		return true;
	if (kind == K_PAGE)
		return f->npfn && in_ranges(f->pfn, f->npfn, key,
					    key + (order < 64 ? (1ULL << order) - 1 : 0));
	return f->nptr && in_ranges(f->ptr, f->nptr, key, key);
}

static bool pid_wanted(const struct tx_model *m, int pid)
{
	const struct tx_filter *f = &m->opt->filter;
	int i;

	for (i = 0; i < f->npid; i++)
		if (f->pid[i] == pid)
			return true;
	return false;
}

/* Failed allocations and faults belong to no object: only --pid selects them. */
static bool failure_selected(const struct tx_model *m, int pid)
{
	const struct tx_filter *f = &m->opt->filter;

	if (f->npfn || f->nptr || f->nevent)
		return false;
	return !f->npid || pid_wanted(m, pid);
}

bool tx_life_selected(const struct tx_model *m, const struct tx_life *l)
{
	const struct tx_filter *f = &m->opt->filter;

	if (f->npid && !(l->flags & L_PID_MATCH))
		return false;
	if (f->nevent && !(l->flags & L_EVENT_MATCH))
		return false;
	return true;
}

/* === Lookups === */

/* The life at exactly this key, or UINT32_MAX. */
static uint32_t life_at(const struct tx_model *m, enum tx_kind kind, uint64_t key)
{
	uint32_t i;

	return tx_map_get(&m->keys[kind], key, &i) ? i : UINT32_MAX;
}

static bool sub_freed(const struct tx_life *l, uint64_t pfn)
{
	uint64_t bit = pfn - l->key;

	return l->freed_map && (l->freed_map[bit / 64] >> (bit % 64)) & 1;
}

/*
 * The life a pfn belongs to: its own, or the live block of a higher order
 * that covers it (and whose page at pfn is not freed yet).
 */
/* The live block of a higher order that covers pfn, freed there or not. */
static uint32_t page_block(const struct tx_model *m, uint64_t pfn, bool with_freed)
{
	const struct tx_life *l;
	int order;

	for (order = 1; order <= MAX_ORDER_SEEN; order++) {
		uint64_t head = pfn & ~((1ULL << order) - 1);
		uint32_t j = life_at(m, K_PAGE, head);

		if (j == UINT32_MAX || head == pfn)
			continue;
		l = &m->lives[j];
		if (l->state == S_LIVE && l->order >= order && (with_freed || !sub_freed(l, pfn)))
			return j;
	}
	return UINT32_MAX;
}

static uint32_t page_life(const struct tx_model *m, uint64_t pfn)
{
	uint32_t i, j;

	i = life_at(m, K_PAGE, pfn);
	if (i != UINT32_MAX && m->lives[i].state == S_LIVE)
		return i;
	j = page_block(m, pfn, false);
	return j != UINT32_MAX ? j : i;	/* else the freed life at this pfn, or none */
}

/* === Reporting === */

static void anomaly(struct tx_model *m, struct tx_life *l, enum tx_anomaly a, uint64_t ref,
		    const char *what)
{
	if (l->anomalies & (1U << a))
		return;		/* once per life and kind */
	l->anomalies |= 1U << a;
	if (!tx_life_selected(m, l))
		return;
	m->st.anomalies[a]++;
	tx_output_anomaly(m->out, m, l, a, ref, what);
}

/* The totals count the lives the filters select, when they are reported. */
static void count_life(struct tx_model *m, const struct tx_life *l)
{
	m->st.lives[l->kind]++;
	if (l->kind == K_PTR && l->ptr_kind == P_VMA)
		m->st.vmas++;
	else if (l->kind == K_PTR && l->ptr_kind == P_MM)
		m->st.mms++;
}

static void life_end(struct tx_model *m, uint32_t i, const struct tx_event *ev, bool traced)
{
	struct tx_life *l = &m->lives[i];
	struct freed_ref *f;
	uint64_t caller;
	uint64_t *shrunk;

	l->state = S_FREED;
	if (!traced) {
		l->flags |= L_UNTRACED_END;
		l->free_ts = l->last_ts;
	} else {
		l->free_ts = ev->ts;
		l->free_pid = ev->pid;
		if (tx_num(m->src, ev, F_CALL_SITE, &caller))
			l->free_caller = caller;
	}
	m->live_now--;
	if (tx_life_selected(m, l)) {
		count_life(m, l);
		tx_output_life(m->out, m, l, false);
	}
	/* Freed lives keep only what a later double free or use needs. */
	if (l->hist.n && l->hist.n < l->hist.cap &&
	    (shrunk = realloc(l->hist.ref, l->hist.n * sizeof(*l->hist.ref)))) {
		l->hist.ref = shrunk;
		l->hist.cap = l->hist.n;
	}
	if (m->opt->max_freed <= 0) {
		life_drop(m, i);
		return;
	}
	if (m->freed_n == (size_t)m->opt->max_freed) {
		f = &m->freed[m->freed_head];
		if (f->idx < m->nlives && m->lives[f->idx].state == S_FREED &&
		    m->lives[f->idx].key == f->key && m->lives[f->idx].nr == f->nr &&
		    m->lives[f->idx].kind == f->kind)
			life_drop(m, f->idx);
		m->freed_head = (m->freed_head + 1) % m->freed_cap;
		m->freed_n--;
	}
	if (!m->freed_cap) {
		m->freed_cap = m->opt->max_freed;
		m->freed = xmalloc(m->freed_cap * sizeof(*m->freed));
	}
	f = &m->freed[(m->freed_head + m->freed_n++) % m->freed_cap];
	f->key = l->key;
	f->idx = i;
	f->nr = l->nr;
	f->kind = l->kind;
}

/* The event belongs to life @i: remember it and what it says about the filters. */
static void attach(struct tx_model *m, uint32_t i, const struct tx_event *ev)
{
	struct tx_life *l = &m->lives[i];

	hist_add(m, l, ev->ref);
	l->last_ts = ev->ts;
	if (m->opt->filter.npid && pid_wanted(m, ev->pid))
		l->flags |= L_PID_MATCH;
	if (m->opt->filter.nevent && ev->type->selected)
		l->flags |= L_EVENT_MATCH;
}

/* A new life at @key replacing whatever is there (a freed life, or nothing). */
static uint32_t life_start(struct tx_model *m, enum tx_kind kind, uint64_t key,
			   const struct tx_event *ev)
{
	uint32_t i = life_at(m, kind, key), nr = 1;

	if (i != UINT32_MAX) {
		nr = m->lives[i].nr + 1;
		if (m->lives[i].state == S_FREED)
			life_drop(m, i);
	}
	i = life_new(m, kind, key, nr, ev);
	attach(m, i, ev);
	return i;
}

static struct pending_fault *fault_take(struct tx_model *m, int pid);

/* === Pages === */

static void page_refcount(struct tx_model *m, uint32_t i, const struct tx_event *ev,
			  enum tx_role role)
{
	struct tx_life *l = &m->lives[i];
	uint64_t count, val;
	char what[96];

	if (!tx_num(m->src, ev, F_COUNT, &count))
		return;
	l->flags |= L_REFS;
	l->count = (int32_t)count;
	if (role == R_REF_SET || role == R_REF_UNFREEZE)
		l->flags &= ~L_SAW_ZERO;
	if (l->count == 0)
		l->flags |= L_SAW_ZERO;
	if (l->count < 0) {
		tx_num(m->src, ev, F_VAL, &val);
		snprintf(what, sizeof(what), "refcount %d after %s", l->count, ev->type->event);
		anomaly(m, l, A_REFCOUNT, ev->ref, what);
	} else if (l->count > REFCOUNT_LIMIT) {
		snprintf(what, sizeof(what), "refcount %d is impossible", l->count);
		anomaly(m, l, A_REFCOUNT, ev->ref, what);
	}
}

static void page_alloc(struct tx_model *m, const struct tx_event *ev, uint64_t pfn,
		       unsigned int order)
{
	struct tx_life *l;
	uint64_t gfp;
	uint32_t i;

	i = page_life(m, pfn);
	if (i != UINT32_MAX && m->lives[i].state == S_LIVE) {
		l = &m->lives[i];
		if (l->key == pfn && l->origin == O_REFSET && !l->alloc_type) {
			/* set_page_refcounted() comes just before mm_page_alloc */
			attach(m, i, ev);
			goto adopt;
		}
		attach(m, i, ev);
		anomaly(m, l, A_DOUBLE_ALLOC, ev->ref, "allocated again while live");
		life_end(m, i, ev, false);
	}
	i = life_start(m, K_PAGE, pfn, ev);
adopt:
	l = &m->lives[i];
	l->origin = O_ALLOC;
	l->alloc_type = ev->type->id + 1;
	l->order = order > MAX_ORDER_SEEN ? MAX_ORDER_SEEN : order;
	l->alloc_ts = ev->ts;
	l->alloc_pid = ev->pid;
	if (tx_num(m->src, ev, F_GFP_FLAGS, &gfp))
		l->gfp = gfp;
}

static void page_free(struct tx_model *m, const struct tx_event *ev, uint64_t pfn,
		      unsigned int order)
{
	struct tx_life *l;
	uint64_t p, n, bit;
	char what[96];
	uint32_t i;

	i = page_life(m, pfn);
	if (i == UINT32_MAX || m->lives[i].state == S_FREED) {
		/* a page of a live block, freed before */
		uint32_t j = page_block(m, pfn, true);

		if (j != UINT32_MAX)
			i = j;
	}
	if (i == UINT32_MAX) {
		/* Allocated before the trace began. */
		i = life_start(m, K_PAGE, pfn, ev);
		l = &m->lives[i];
		l->order = order > MAX_ORDER_SEEN ? MAX_ORDER_SEEN : order;
		anomaly(m, l, A_UNKNOWN_ORIGIN, ev->ref, "freed, never allocated in the trace");
		life_end(m, i, ev, true);
		return;
	}
	l = &m->lives[i];
	attach(m, i, ev);
	if (l->state == S_FREED) {
		snprintf(what, sizeof(what), "freed again by %s", ev->type->event);
		anomaly(m, l, A_DOUBLE_FREE, ev->ref, what);
		return;
	}
	if (l->key == pfn && order >= l->order) {
		if ((l->flags & L_REFS) && !(l->flags & L_SAW_ZERO)) {
			snprintf(what, sizeof(what), "freed while its refcount was %d", l->count);
			anomaly(m, l, A_REFCOUNT, ev->ref, what);
		}
		life_end(m, i, ev, true);
		return;
	}
	/* Part of a block: a split page, or a tail freed apart from its head. */
	if (!l->freed_map)
		l->freed_map = xcalloc(((1U << l->order) + 63) / 64, sizeof(uint64_t));
	n = 1ULL << (order < l->order ? order : l->order);
	for (p = pfn; p < pfn + n && p < l->key + (1ULL << l->order); p++) {
		bit = p - l->key;
		if ((l->freed_map[bit / 64] >> (bit % 64)) & 1) {
			snprintf(what, sizeof(what), "page 0x%" PRIx64 " of the block freed again", p);
			anomaly(m, l, A_DOUBLE_FREE, ev->ref, what);
			continue;
		}
		l->freed_map[bit / 64] |= 1ULL << (bit % 64);
		l->freed_pages++;
	}
	if (l->freed_pages >= 1U << l->order)
		life_end(m, i, ev, true);
}

static void page_event(struct tx_model *m, const struct tx_event *ev, enum tx_role role)
{
	uint64_t pfn, order = 0, ret = 1;
	struct tx_life *l;
	char what[128];
	uint32_t i;

	if (!tx_num(m->src, ev, F_PFN, &pfn))
		return;
	if (role == R_PAGE_ALLOC || role == R_PAGE_FREE)
		tx_num(m->src, ev, F_ORDER, &order);
	if (pfn == UINT64_MAX) {
		if (role == R_PAGE_ALLOC) {
			struct pending_fault *f = fault_take(m, ev->pid);

			if (failure_selected(m, ev->pid))
				m->st.failed_allocs++;
			tx_output_failure(m->out, m, ev, f ? f->ref : NO_REF);
		}
		return;
	}
	if (!key_wanted(m, K_PAGE, pfn, (unsigned int)order))
		return;
	switch (role) {
	case R_PAGE_ALLOC:
		page_alloc(m, ev, pfn, (unsigned int)order);
		return;
	case R_PAGE_FREE:
		page_free(m, ev, pfn, (unsigned int)order);
		return;
	default:
		break;
	}
	i = page_life(m, pfn);
	if (role == R_REF_TRY)
		tx_num(m->src, ev, F_RET, &ret);
	if (role == R_PAGE_FREE_NOTE || role == R_PAGE_NOTE) {
		/*
		 * free_unref_page_list() says so after free_pages_prepare()'s
		 * mm_page_free; khugepaged names the last page it scanned after
		 * a collapse that may have freed it.  Part of the history, not
		 * a use.
		 */
		if (i != UINT32_MAX)
			attach(m, i, ev);
		return;
	}
	if (role == R_PAGE_BUDDY || (role == R_REF_TRY && !ret)) {
		/* Free-list bookkeeping, or a try that changed nothing. */
		if (i != UINT32_MAX && m->lives[i].state == S_LIVE)
			attach(m, i, ev);
		return;
	}
	if (i != UINT32_MAX && m->lives[i].state == S_FREED) {
		uint64_t count;

		if (role == R_REF_SET && tx_num(m->src, ev, F_COUNT, &count) && count) {
			/* bulk allocation, compaction's free-page capture */
			i = life_start(m, K_PAGE, pfn, ev);
			m->lives[i].origin = O_REFSET;
			m->lives[i].alloc_pid = ev->pid;
			page_refcount(m, i, ev, role);
			return;
		}
		l = &m->lives[i];
		attach(m, i, ev);
		snprintf(what, sizeof(what), "%s on the page after its free", ev->type->event);
		anomaly(m, l, A_USE_AFTER_FREE, ev->ref, what);
		if (role >= R_REF_SET && role <= R_REF_UNFREEZE)
			page_refcount(m, i, ev, role);
		return;
	}
	if (i == UINT32_MAX) {
		uint64_t count = 1;

		if (role == R_REF_SET && tx_num(m->src, ev, F_COUNT, &count) && !count)
			return;
		i = life_start(m, K_PAGE, pfn, ev);
		m->lives[i].origin = role == R_REF_SET ? O_REFSET : O_UNKNOWN;
		if (role == R_REF_SET)
			m->lives[i].alloc_pid = ev->pid;
	} else {
		attach(m, i, ev);
	}
	if (role >= R_REF_SET && role <= R_REF_UNFREEZE)
		page_refcount(m, i, ev, role);
}

/* === Pointers: slab objects, vmas, mms === */

static int cache_id(struct tx_model *m, const char *name)
{
	uint64_t h = 1469598103934665603ULL;
	const char *p;
	uint32_t i;

	for (p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	while (tx_map_get(&m->cache_ids, h, &i)) {
		if (!strcmp(m->caches[i], name))
			return (int)i;
		h++;		/* a collision: probe the next hash */
	}
	if (m->ncaches == m->caches_cap) {
		m->caches_cap = m->caches_cap ? m->caches_cap * 2 : 64;
		m->caches = xrealloc(m->caches, m->caches_cap * sizeof(*m->caches));
	}
	m->caches[m->ncaches] = xstrdup(name);
	tx_map_put(&m->cache_ids, h, (uint32_t)m->ncaches);
	return m->ncaches++;
}

const char *tx_cache_name(const struct tx_model *m, int id)
{
	return id >= 0 && id < m->ncaches ? m->caches[id] : NULL;
}

static struct pending_fault *fault_take(struct tx_model *m, int pid)
{
	uint32_t i;

	if (!tx_map_get(&m->fault_pid, (uint64_t)pid, &i))
		return NULL;
	tx_map_del(&m->fault_pid, (uint64_t)pid);
	m->faults[i].used = true;
	return &m->faults[i];
}

static void slab_alloc(struct tx_model *m, const struct tx_event *ev, uint64_t ptr)
{
	struct pending_fault *f;
	struct tx_life *l;
	uint64_t v;
	uint32_t i;

	if (!ptr) {
		f = fault_take(m, ev->pid);
		if (failure_selected(m, ev->pid))
			m->st.failed_allocs++;
		tx_output_failure(m->out, m, ev, f ? f->ref : NO_REF);
		return;
	}
	if (!key_wanted(m, K_PTR, ptr, 0))
		return;
	i = life_at(m, K_PTR, ptr);
	if (i != UINT32_MAX && m->lives[i].state == S_LIVE) {
		/* kmem_cache_free_bulk() frees without an event: the old life ended unseen. */
		life_end(m, i, ev, false);
	}
	i = life_start(m, K_PTR, ptr, ev);
	l = &m->lives[i];
	l->origin = O_ALLOC;
	l->ptr_kind = P_SLAB;
	l->alloc_type = ev->type->id + 1;
	l->alloc_ts = ev->ts;
	l->alloc_pid = ev->pid;
	if (tx_num(m->src, ev, F_CALL_SITE, &v))
		l->caller = v;
	if (tx_num(m->src, ev, F_BYTES_REQ, &v))
		l->bytes_req = v;
	if (tx_num(m->src, ev, F_BYTES_ALLOC, &v))
		l->bytes_alloc = v;
	if (tx_num(m->src, ev, F_GFP_FLAGS, &v))
		l->gfp = v;
}

/*
 * kmem_cache_alloc_bulk() and kmem_cache_free_bulk() have no tracepoint in
 * 6.1.  A free of an object the trace saw freed is a double free, unless
 * its cache is one that allocates in bulk: then it was allocated unseen.
 */
static bool bulk_cache(const char *name)
{
	static const char *const bulk[] = {
		"maple_node",		/* lib/maple_tree.c mt_alloc_bulk() */
		"skbuff_head_cache",	/* napi_skb_cache_get(), xdp, cpumap */
		"io_kiocb",		/* io_uring __io_alloc_req_refill() */
	};
	size_t k;

	for (k = 0; k < sizeof(bulk) / sizeof(bulk[0]); k++)
		if (!strcmp(name, bulk[k]))
			return true;
	return false;
}

static void slab_free(struct tx_model *m, const struct tx_event *ev, uint64_t ptr)
{
	struct tx_life *l;
	char name[128];
	bool has_name;
	uint32_t i;

	if (ptr <= 16)		/* kfree(NULL), kfree(ZERO_SIZE_PTR) */
		return;
	if (!key_wanted(m, K_PTR, ptr, 0))
		return;
	i = life_at(m, K_PTR, ptr);
	if (i == UINT32_MAX) {
		i = life_start(m, K_PTR, ptr, ev);
		l = &m->lives[i];
		if (tx_str(m->src, ev, F_NAME, name, sizeof(name)))
			l->cache = cache_id(m, name);
		anomaly(m, l, A_UNKNOWN_ORIGIN, ev->ref, "freed, never allocated in the trace");
		life_end(m, i, ev, true);
		return;
	}
	l = &m->lives[i];
	has_name = tx_str(m->src, ev, F_NAME, name, sizeof(name));
	if (l->state == S_FREED && has_name && bulk_cache(name)) {
		/* Reallocated by kmem_cache_alloc_bulk(), which has no event. */
		i = life_start(m, K_PTR, ptr, ev);
		l = &m->lives[i];
		l->cache = cache_id(m, name);
		anomaly(m, l, A_UNKNOWN_ORIGIN, ev->ref, "freed, allocated in bulk (no event)");
		life_end(m, i, ev, true);
		return;
	}
	attach(m, i, ev);
	if (has_name)
		l->cache = cache_id(m, name);
	if (l->state == S_FREED) {
		anomaly(m, l, A_DOUBLE_FREE, ev->ref, "freed again");
		return;
	}
	life_end(m, i, ev, true);
}

/* vma_store, exit_mmap: an object reached by pointer that is not an allocation. */
static void ptr_use(struct tx_model *m, const struct tx_event *ev, uint64_t ptr,
		    enum tx_ptr_kind kind)
{
	struct tx_life *l;
	uint64_t v;
	uint32_t i;

	if (!ptr || !key_wanted(m, K_PTR, ptr, 0))
		return;
	i = life_at(m, K_PTR, ptr);
	if (i == UINT32_MAX)
		i = life_start(m, K_PTR, ptr, ev);
	else
		attach(m, i, ev);
	l = &m->lives[i];
	l->ptr_kind = kind;
	if (kind == P_VMA) {
		if (tx_num(m->src, ev, F_VM_START, &v))
			l->vm_start = v;
		/* mmap:vma_store's "vm_end" is vma->vm_end - 1 (the maple tree's last) */
		if (tx_num(m->src, ev, F_VM_END, &v))
			l->vm_end = v + 1;
		if (tx_num(m->src, ev, F_MT, &v))
			l->owner = v;
	}
	if (l->state == S_FREED)
		anomaly(m, l, A_USE_AFTER_FREE, ev->ref, kind == P_VMA ?
			"vma stored in a maple tree after its free" : "exit_mmap after the mm's free");
}

/* The mm a vma belongs to, from the maple tree it was stored in; 0 if unknown. */
uint64_t tx_vma_mm(const struct tx_model *m, const struct tx_life *l)
{
	return m->have_mt_offset && l->owner ? l->owner - m->mt_offset : 0;
}

/* What a life is, in one phrase: "page 0x1a2b3", "slab 0xffff... kmalloc-64". */
void tx_life_label(const struct tx_model *m, const struct tx_life *l, char *buf, size_t size)
{
	const char *cache = tx_cache_name(m, l->cache);
	struct tx_type *at = l->alloc_type ? tx_type_at(l->alloc_type - 1) : NULL;
	uint64_t mm;

	if (l->kind == K_PAGE) {
		if (l->order)
			snprintf(buf, size, "page 0x%" PRIx64 " order %u", l->key, l->order);
		else
			snprintf(buf, size, "page 0x%" PRIx64, l->key);
		return;
	}
	switch (l->ptr_kind) {
	case P_VMA:
		mm = tx_vma_mm(m, l);
		if (mm)
			snprintf(buf, size, "vma 0x%" PRIx64 " [0x%" PRIx64 "-0x%" PRIx64 ") of mm 0x%" PRIx64,
				 l->key, l->vm_start, l->vm_end, mm);
		else
			snprintf(buf, size, "vma 0x%" PRIx64 " [0x%" PRIx64 "-0x%" PRIx64 ")",
				 l->key, l->vm_start, l->vm_end);
		return;
	case P_MM:
		snprintf(buf, size, "mm 0x%" PRIx64, l->key);
		return;
	default:
		if (cache || at)
			snprintf(buf, size, "slab 0x%" PRIx64 " %s", l->key, cache ? cache : at->event);
		else
			snprintf(buf, size, "slab 0x%" PRIx64, l->key);
	}
}

/* === Faults === */

static void fault_event(struct tx_model *m, const struct tx_event *ev)
{
	struct pending_fault *f;
	uint64_t pid = ev->pid, v;
	uint32_t i;

	/* fault_inject carries the victim's pid (same as the event's). */
	if (tx_num(m->src, ev, F_PID_FIELD, &v))
		pid = v;
	if (failure_selected(m, (int)pid))
		m->st.faults++;
	if (tx_map_get(&m->fault_pid, pid, &i)) {
		/* The earlier one was not followed by a failed allocation. */
		tx_output_failure(m->out, m, NULL, m->faults[i].ref);
		m->faults[i].used = true;
	}
	for (i = 0; i < m->nfaults && !m->faults[i].used; i++)
		;
	if (i == m->nfaults) {
		if (m->nfaults == m->faults_cap) {
			m->faults_cap = m->faults_cap ? m->faults_cap * 2 : 16;
			m->faults = xrealloc(m->faults, m->faults_cap * sizeof(*m->faults));
		}
		m->nfaults++;
	}
	f = &m->faults[i];
	f->ref = ev->ref;
	f->ts = ev->ts;
	f->pid = (int)pid;
	f->used = false;
	tx_map_put(&m->fault_pid, pid, i);
}

/* === The walk === */

int tx_model_event(struct tx_source *src, struct tx_event *ev, void *data)
{
	struct tx_model *m = data;
	const struct tx_filter *f = &m->opt->filter;
	enum tx_role role = ev->type->role;
	uint64_t v, mt;

	if (f->has_start && ev->ts < f->start)
		return 0;
	if (f->has_end && ev->ts > f->end)
		return src->kind == SRC_DAT;	/* trace.dat is in time order: stop */
	m->st.events_all++;
	if (!m->st.first_ts || ev->ts < m->st.first_ts)
		m->st.first_ts = ev->ts;
	if (ev->ts > m->st.last_ts)
		m->st.last_ts = ev->ts;
	if ((!f->npid || pid_wanted(m, ev->pid)) && ev->type->selected) {
		ev->type->count++;
		m->st.events++;
		if (m->opt->summary && (tx_num(src, ev, F_CALL_SITE, &v) || tx_num(src, ev, F_CALLER, &v)))
			tx_output_count_caller(m->out, src, ev, v);
	}
	tx_output_event(m->out, ev, role);

	switch (role) {
	case R_PAGE_ALLOC: case R_PAGE_FREE: case R_PAGE_FREE_NOTE: case R_PAGE_NOTE:
	case R_PAGE_BUDDY: case R_REF_SET:
	case R_REF_MOD: case R_REF_TRY: case R_REF_UNFREEZE: case R_PAGE_USE:
		page_event(m, ev, role);
		break;
	case R_SLAB_ALLOC:
		if (tx_num(src, ev, F_PTR, &v))
			slab_alloc(m, ev, v);
		break;
	case R_SLAB_FREE:
		if (tx_num(src, ev, F_PTR, &v))
			slab_free(m, ev, v);
		break;
	case R_VMA_STORE:
		if (tx_num(src, ev, F_VMA, &v))
			ptr_use(m, ev, v, P_VMA);
		break;
	case R_MM_EXIT:
		if (tx_num(src, ev, F_MM, &v)) {
			/* mm->mm_mt: at offset 0 in 6.1, but say where it is */
			if (tx_num(src, ev, F_MT, &mt) && mt >= v && mt - v < 4096) {
				m->mt_offset = mt - v;
				m->have_mt_offset = true;
			}
			ptr_use(m, ev, v, P_MM);
		}
		break;
	case R_FAULT:
		fault_event(m, ev);
		break;
	case R_MARKER:
		m->st.markers++;
		break;
	default:
		break;
	}
	return 0;
}

/* End of the trace: what is still live is a leak candidate (if allocated in it). */
void tx_model_finish(struct tx_model *m)
{
	struct tx_life *l;
	uint32_t i;

	for (i = 0; i < m->nfaults; i++)
		if (!m->faults[i].used)
			tx_output_failure(m->out, m, NULL, m->faults[i].ref);
	for (i = 0; i < m->nlives; i++) {
		l = &m->lives[i];
		if (l->state != S_LIVE || !l->hist.total)
			continue;
		if (l->origin != O_UNKNOWN)
			anomaly(m, l, A_LEAK, NO_REF, "still allocated at the end of the trace");
		if (tx_life_selected(m, l)) {
			count_life(m, l);
			m->st.live_end[l->kind]++;
			tx_output_life(m->out, m, l, true);
		}
	}
	m->st.lost = m->src->lost;
}

struct tx_model *tx_model_new(struct tx_source *src, const struct tx_options *opt,
			      struct tx_output *out)
{
	struct tx_model *m = xcalloc(1, sizeof(*m));
	int k;

	m->src = src;
	m->opt = opt;
	m->out = out;
	for (k = 0; k < K_NR; k++)
		tx_map_init(&m->keys[k]);
	tx_map_init(&m->fault_pid);
	tx_map_init(&m->cache_ids);
	/* mm_struct starts with mm_mt since 6.1; exit_mmap says if not */
	m->have_mt_offset = true;
	return m;
}

const struct tx_stats *tx_model_stats(const struct tx_model *m)
{
	return &m->st;
}

struct tx_source *tx_model_source(const struct tx_model *m)
{
	return m->src;
}

void tx_model_free(struct tx_model *m)
{
	uint32_t i;
	int k;

	if (!m)
		return;
	for (i = 0; i < m->nlives; i++) {
		free(m->lives[i].hist.ref);
		free(m->lives[i].freed_map);
	}
	free(m->lives);
	free(m->spare);
	free(m->freed);
	free(m->faults);
	for (k = 0; k < m->ncaches; k++)
		free(m->caches[k]);
	free(m->caches);
	for (k = 0; k < K_NR; k++)
		tx_map_free(&m->keys[k]);
	tx_map_free(&m->fault_pid);
	tx_map_free(&m->cache_ids);
	free(m);
}
