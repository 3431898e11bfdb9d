// SPDX-License-Identifier: GPL-2.0
/*
 * source.c: what an event means (the role table), the table of event
 * types seen, and opening a trace: a trace-cmd file or txrec text, told
 * apart by the trace-cmd magic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "txlog.h"

const char *const tx_field_names[F_NR] = {
	[F_PFN] = "pfn", [F_ORDER] = "order", [F_PTR] = "ptr",
	[F_CALL_SITE] = "call_site", [F_BYTES_REQ] = "bytes_req",
	[F_BYTES_ALLOC] = "bytes_alloc", [F_GFP_FLAGS] = "gfp_flags",
	[F_COUNT] = "count", [F_VAL] = "val", [F_RET] = "ret", [F_VMA] = "vma",
	[F_VM_START] = "vm_start", [F_VM_END] = "vm_end", [F_MM] = "mm", [F_MT] = "mt",
	[F_CALLER] = "caller", [F_PID_FIELD] = "pid",
	[F_NAME] = "name", [F_COMM] = "comm", [F_BUF] = "buf",
};

/* === What each event means === */

static const struct {
	const char *system, *event;
	enum tx_role role;
} roles[] = {
	{ "kmem", "mm_page_alloc",			R_PAGE_ALLOC },
	{ "kmem", "mm_page_free",			R_PAGE_FREE },
	{ "kmem", "mm_page_free_batched",		R_PAGE_FREE_NOTE },
	{ "kmem", "mm_page_alloc_zone_locked",		R_PAGE_BUDDY },
	{ "kmem", "mm_page_pcpu_drain",			R_PAGE_BUDDY },
	{ "kmem", "mm_page_alloc_extfrag",		R_PAGE_BUDDY },
	{ "kmem", "kmalloc",				R_SLAB_ALLOC },
	{ "kmem", "kmalloc_node",			R_SLAB_ALLOC },
	{ "kmem", "kmem_cache_alloc",			R_SLAB_ALLOC },
	{ "kmem", "kmem_cache_alloc_node",		R_SLAB_ALLOC },
	{ "kmem", "kfree",				R_SLAB_FREE },
	{ "kmem", "kmem_cache_free",			R_SLAB_FREE },
	{ "page_ref", "page_ref_set",			R_REF_SET },
	{ "page_ref", "page_ref_mod",			R_REF_MOD },
	{ "page_ref", "page_ref_mod_and_test",		R_REF_MOD },
	{ "page_ref", "page_ref_mod_and_return",	R_REF_MOD },
	{ "page_ref", "page_ref_mod_unless",		R_REF_TRY },
	{ "page_ref", "page_ref_freeze",		R_REF_TRY },
	{ "page_ref", "page_ref_unfreeze",		R_REF_UNFREEZE },
	{ "pagemap", "mm_lru_insertion",		R_PAGE_USE },
	{ "pagemap", "mm_lru_activate",			R_PAGE_USE },
	{ "filemap", "mm_filemap_add_to_page_cache",	R_PAGE_USE },
	{ "filemap", "mm_filemap_delete_from_page_cache", R_PAGE_USE },
	{ "vmscan", "mm_vmscan_write_folio",		R_PAGE_USE },
	{ "vmscan", "mm_vmscan_writepage",		R_PAGE_USE },
	/*
	 * Emitted after the collapse, with the last pfn scanned: a collapse
	 * that succeeded has freed that page already.
	 */
	{ "huge_memory", "mm_khugepaged_scan_pmd",	R_PAGE_NOTE },
	{ "huge_memory", "mm_collapse_huge_page_isolate", R_PAGE_USE },
	{ "huge_memory", "mm_khugepaged_scan_file",	R_PAGE_NOTE },
	{ "mmap", "vma_store",				R_VMA_STORE },
	{ "mmap", "exit_mmap",				R_MM_EXIT },
	{ "fault_inject", "fault_inject",		R_FAULT },
	{ "stap", "inject",				R_FAULT },
	{ "ftrace", "print",				R_MARKER },
};

enum tx_role tx_role_of(const char *system, const char *event)
{
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(roles[i].system, system) && !strcmp(roles[i].event, event))
			return roles[i].role;
	return R_OTHER;
}

/* === The types seen so far === */

static struct tx_type **types;
static int ntypes, types_cap;
const struct tx_filter *tx_type_filter;

static bool type_selected(const struct tx_type *t)
{
	const struct tx_filter *f = tx_type_filter;
	int i;

	if (!f || !f->nevent)
		return true;
	for (i = 0; i < f->nevent; i++)
		if (tx_glob(f->event[i], t->name) || tx_glob(f->event[i], t->event))
			return true;
	return false;
}

struct tx_type *tx_type_get(const char *system, const char *event)
{
	size_t slen = strlen(system);
	struct tx_type *t;
	int i;

	for (i = 0; i < ntypes; i++) {
		t = types[i];
		if (!strncmp(t->name, system, slen) && t->name[slen] == ':' &&
		    !strcmp(t->event, event))
			return t;
	}
	if (ntypes == types_cap) {
		types_cap = types_cap ? types_cap * 2 : 64;
		types = xrealloc(types, types_cap * sizeof(*types));
	}
	t = xcalloc(1, sizeof(*t));
	t->name = xmalloc(slen + strlen(event) + 2);
	sprintf(t->name, "%s:%s", system, event);
	t->event = t->name + slen + 1;
	t->role = tx_role_of(system, event);
	t->id = ntypes;
	t->selected = type_selected(t);
	types[ntypes++] = t;
	return t;
}

struct tx_type *tx_type_at(int id)
{
	return id >= 0 && id < ntypes ? types[id] : NULL;
}

int tx_type_count(void)
{
	return ntypes;
}

/* === Opening === */

/* The first bytes of every trace-cmd file: 0x17 0x08 'D' "tracing". */
bool tx_dat_magic(const unsigned char *buf, size_t len)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	return len >= sizeof(magic) && !memcmp(buf, magic, sizeof(magic));
}

struct tx_source *tx_source_open(const char *path, int force_kind, char *err, size_t errsize)
{
	struct tx_source *src = xcalloc(1, sizeof(*src));
	unsigned char head[16];
	ssize_t n = 0;
	int fd, ret;

	src->path = path;
	if (force_kind >= 0) {
		src->kind = force_kind;
	} else if (!strcmp(path, "-")) {
		src->kind = SRC_TXREC;
	} else {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			snprintf(err, errsize, "%s: %s", path, strerror(errno));
			free(src);
			return NULL;
		}
		n = read(fd, head, sizeof(head));
		close(fd);
		if (n < 0) {
			snprintf(err, errsize, "%s: %s", path, strerror(errno));
			free(src);
			return NULL;
		}
		src->kind = tx_dat_magic(head, n) ? SRC_DAT : SRC_TXREC;
	}
	if (src->kind == SRC_DAT) {
		src->ops = &tx_dat_ops;
		ret = tx_dat_open(src, err, errsize);
	} else {
		src->ops = &tx_txrec_ops;
		ret = tx_txrec_open(src, err, errsize);
	}
	if (ret) {
		free(src);
		return NULL;
	}
	return src;
}

void tx_source_close(struct tx_source *src)
{
	if (!src)
		return;
	src->ops->close(src);
	free(src);
}

bool tx_num(struct tx_source *src, const struct tx_event *ev, enum tx_field f, uint64_t *val)
{
	return src->ops->num(src, ev, f, val);
}

bool tx_str(struct tx_source *src, const struct tx_event *ev, enum tx_field f, char *buf,
	    size_t size)
{
	return src->ops->str(src, ev, f, buf, size);
}

/* The symbol of the address in field @f of @ev, "func+0xoff"; NULL if unknown. */
const char *tx_symbol(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		      char *buf, size_t size)
{
	uint64_t addr;

	if (!tx_num(src, ev, f, &addr))
		return NULL;
	return src->ops->symbol(src, ev, f, addr, buf, size);
}
