// SPDX-License-Identifier: GPL-2.0
/*
 * source-dat.c: events from a trace-cmd file, through libtracecmd and
 * libtraceevent.  Every record is checked against its event's format
 * before any field is read, so that a corrupt file gives an error
 * instead of reads outside the record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "txlog.h"

/*
 * libtracecmd 1.3 exports these but declares them only in trace-cmd's
 * private header.  tracecmd_open() calls tracecmd_close() on a handle
 * whose reading failed half-way, which crashes on some corrupt files:
 * opening step by step lets txlog report such a file instead.
 */
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);

#define MAX_CPUS	8192		/* the kernel's NR_CPUS limit */

struct dat {
	struct tracecmd_input *handle;
	struct tracecmd_input *lookup;	/* a second handle: rereads must not move the walk */
	struct tep_handle *tep;
	struct tx_type **by_id;		/* event id -> type */
	int nids;
	int header_size;		/* bytes of the common fields */
	uint64_t records;
	uint64_t *cpu_records;		/* per CPU, to check against the kernel's count */
	off_t file_size;
	/* the walk */
	tx_event_fn fn;
	void *data;
	int stop;
	struct trace_seq seq;
};

static struct dat *dat_of(struct tx_source *src)
{
	return src->priv;
}

/* Per type: the fields txlog reads, and the least size of a valid record. */
static void dat_type_init(struct dat *d, struct tx_type *t, struct tep_event *event)
{
	struct tep_format_field *f;
	int i, end;

	t->tep_event = event;
	t->min_size = d->header_size;
	for (i = 0; i < F_NR; i++)
		t->field[i] = tep_find_field(event, tx_field_names[i]);
	for (f = event->format.fields; f; f = f->next) {
		if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) {
			t->has_dynamic = true;
			end = f->offset + 4;
		} else {
			end = f->offset + f->size;
		}
		if (end > t->min_size)
			t->min_size = end;
	}
	/* trace-cmd writes the fault_inject caller as %pS; we read it raw. */
}

/* The bytes of a dynamic (__data_loc / __rel_loc) field, checked against the record. */
static bool dat_dynamic(const struct tep_record *r, const struct tep_format_field *f,
			unsigned int *off, unsigned int *len)
{
	uint32_t loc;

	if (f->offset < 0 || f->offset + 4 > r->size)
		return false;
	memcpy(&loc, (const char *)r->data + f->offset, 4);
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += f->offset + 4;
	return *off <= (unsigned int)r->size && *len <= (unsigned int)r->size - *off;
}

/* Is this record long enough for its format (and its dynamic fields inside it)? */
static bool dat_record_ok(const struct tx_type *t, const struct tep_record *r)
{
	struct tep_format_field *f;
	unsigned int off, len;

	if (r->size < t->min_size)
		return false;
	if (!t->has_dynamic)
		return true;
	for (f = ((struct tep_event *)t->tep_event)->format.fields; f; f = f->next)
		if ((f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) &&
		    !dat_dynamic(r, f, &off, &len))
			return false;
	return true;
}

static struct tx_type *dat_type(struct dat *d, int id)
{
	struct tep_event *event;
	struct tx_type *t;
	int n;

	if (id < 0 || id > 0xffff)
		return NULL;
	if (id < d->nids && d->by_id[id])
		return d->by_id[id];
	event = tep_find_event(d->tep, id);
	if (!event || !event->system || !event->name)
		return NULL;
	if (id >= d->nids) {
		n = id + 64;
		d->by_id = xrealloc(d->by_id, n * sizeof(*d->by_id));
		memset(d->by_id + d->nids, 0, (n - d->nids) * sizeof(*d->by_id));
		d->nids = n;
	}
	t = tx_type_get(event->system, event->name);
	if (!t->tep_event)
		dat_type_init(d, t, event);
	d->by_id[id] = t;
	return t;
}

/* Fill @ev from @r; false (with src->error set) if the record is corrupt. */
static bool dat_fill(struct tx_source *src, struct tep_record *r, struct tx_event *ev)
{
	struct dat *d = dat_of(src);
	struct tx_type *t;
	int id;

	if (r->size < d->header_size) {
		snprintf(src->error, sizeof(src->error),
			 "%s: corrupt record at file offset %llu (cpu %d): %d bytes, less than the %d-byte event header",
			 src->path, r->offset, r->cpu, r->size, d->header_size);
		return false;
	}
	id = tep_data_type(d->tep, r);
	t = dat_type(d, id);
	if (!t) {
		snprintf(src->error, sizeof(src->error),
			 "%s: corrupt record at file offset %llu (cpu %d): unknown event type %d",
			 src->path, r->offset, r->cpu, id);
		return false;
	}
	if (!dat_record_ok(t, r)) {
		snprintf(src->error, sizeof(src->error),
			 "%s: corrupt record at file offset %llu (cpu %d): %d bytes do not hold a %s event",
			 src->path, r->offset, r->cpu, r->size, t->name);
		return false;
	}
	ev->ts = r->ts;
	ev->ref = r->offset;
	ev->cpu = r->cpu;
	ev->pid = tep_data_pid(d->tep, r);
	ev->type = t;
	ev->priv = r;
	return true;
}

static int dat_record(struct tracecmd_input *handle, struct tep_record *r, int cpu, void *data)
{
	struct tx_source *src = data;
	struct dat *d = dat_of(src);
	struct tx_event ev;

	(void)handle;
	(void)cpu;
	if (r->missed_events) {
		/* -1: the kernel said events were lost, not how many. */
		src->lost += r->missed_events > 0 ? (uint64_t)r->missed_events : 1;
		if (r->cpu >= 0 && r->cpu < 32)
			src->lost_cpus |= 1 << r->cpu;
	}
	if (!dat_fill(src, r, &ev)) {
		d->stop = -1;
		return 1;
	}
	d->records++;
	if (r->cpu >= 0 && r->cpu < src->ncpus)
		d->cpu_records[r->cpu]++;
	if (d->fn(src, &ev, d->data)) {
		d->stop = 1;
		return 1;
	}
	return 0;
}

/*
 * trace-cmd record saves each CPU's ring-buffer statistics; "read events"
 * is how many events it took from that CPU.  Fewer in the file means the
 * data was cut or a compressed chunk could not be read.
 */
static int dat_check_counts(struct tx_source *src)
{
	struct dat *d = dat_of(src);
	const char *stats = tracecmd_get_cpustats(d->handle), *p;
	unsigned long long want;
	int cpu = -1;

	for (p = stats; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, "CPU: %d", &cpu) == 1)
			continue;
		if (sscanf(p, "read events: %llu", &want) != 1 || cpu < 0 || cpu >= src->ncpus)
			continue;
		if (d->cpu_records[cpu] < want) {
			snprintf(src->error, sizeof(src->error),
				 "%s: truncated or corrupt trace-cmd file: CPU %d has %llu events, trace-cmd recorded %llu",
				 src->path, cpu, (unsigned long long)d->cpu_records[cpu], want);
			return -1;
		}
	}
	return 0;
}

static int dat_walk(struct tx_source *src, tx_event_fn fn, void *data)
{
	struct dat *d = dat_of(src);

	d->fn = fn;
	d->data = data;
	d->stop = 0;
	d->records = 0;
	if (tracecmd_iterate_events(d->handle, NULL, 0, dat_record, src) < 0 && !d->stop) {
		snprintf(src->error, sizeof(src->error), "%s: libtracecmd could not read the event data",
			 src->path);
		return -1;
	}
	if (d->stop < 0)
		return -1;
	return d->stop ? 0 : dat_check_counts(src);
}

/* tracecmd_open(), without the close of a half-read handle. */
static struct tracecmd_input *dat_open_handle(const char *path)
{
	struct tracecmd_input *h;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	h = tracecmd_alloc_fd(fd, 0);
	if (!h) {
		close(fd);
		return NULL;
	}
	/* On failure the handle is left as is: exit follows. */
	if (tracecmd_read_headers(h, 0) < 0)
		return NULL;
	if (tracecmd_init_data(h) < 0)
		return NULL;
	return h;
}

static bool dat_num(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		    uint64_t *val)
{
	struct tep_format_field *field = ev->type->field[f];
	struct tep_record *r = ev->priv;
	uint64_t v;

	(void)src;
	if (!field || f >= F_FIRST_STRING || (field->flags & TEP_FIELD_IS_ARRAY))
		return false;
	if (field->size != 1 && field->size != 2 && field->size != 4 && field->size != 8)
		return false;
	v = tep_read_number(dat_of(src)->tep, (const char *)r->data + field->offset, field->size);
	if ((field->flags & TEP_FIELD_IS_SIGNED) && field->size < 8 &&
	    (v & (1ULL << (field->size * 8 - 1))))
		v |= ~0ULL << (field->size * 8);
	*val = v;
	return true;
}

static bool dat_str(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		    char *buf, size_t size)
{
	struct tep_format_field *field = ev->type->field[f];
	struct tep_record *r = ev->priv;
	unsigned int off, len;
	size_t n;

	(void)src;
	if (!field || !size)
		return false;
	if (field->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) {
		if (!dat_dynamic(r, field, &off, &len))
			return false;
	} else if (field->flags & TEP_FIELD_IS_ARRAY) {
		off = field->offset;
		/* char buf[] (size 0): up to the end of the record */
		len = field->size ? (unsigned int)field->size : (unsigned int)(r->size - off);
	} else {
		return false;
	}
	n = strnlen((const char *)r->data + off, len);
	if (n >= size)
		n = size - 1;
	memcpy(buf, (const char *)r->data + off, n);
	buf[n] = '\0';
	/* trace_marker text ends with a newline */
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return true;
}

static const char *dat_comm(struct tx_source *src, int pid)
{
	return tep_data_comm_from_pid(dat_of(src)->tep, pid);
}

static const char *dat_symbol(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
			      uint64_t addr, char *buf, size_t size)
{
	struct dat *d = dat_of(src);
	const char *name;
	uint64_t start;

	(void)ev;
	(void)f;
	name = tep_find_function(d->tep, addr);
	if (!name)
		return NULL;
	start = tep_find_function_address(d->tep, addr);
	snprintf(buf, size, "%s+0x%" PRIx64, name, addr - start);
	return buf;
}

static int dat_reread(struct tx_source *src, uint64_t ref, struct tx_event *ev)
{
	struct dat *d = dat_of(src);
	struct tep_record *r;
	int cpu;

	if (!d->lookup) {
		d->lookup = dat_open_handle(src->path);
		if (!d->lookup)
			return -1;
	}
	r = tracecmd_read_at(d->lookup, ref, &cpu);
	if (!r)
		return -1;
	/* The lookup handle has its own tep: read with the walk's. */
	if (!dat_fill(src, r, ev)) {
		tracecmd_free_record(r);
		return -1;
	}
	return 0;
}

static void dat_release(struct tx_source *src, struct tx_event *ev)
{
	(void)src;
	if (ev->priv)
		tracecmd_free_record(ev->priv);
	ev->priv = NULL;
}

static void dat_info(struct tx_source *src, const struct tx_event *ev, char *buf, size_t size)
{
	struct dat *d = dat_of(src);
	size_t n;

	trace_seq_reset(&d->seq);
	tep_print_event(d->tep, &d->seq, ev->priv, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&d->seq);
	n = d->seq.len < size - 1 ? d->seq.len : size - 1;
	memcpy(buf, d->seq.buffer, n);
	/* exit_mmap's format ends with a newline; a history line must not */
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
}

/* Addresses and flag words read best in hex. */
static bool dat_hex_field(const struct tep_format_field *f)
{
	/* pointers are flagged by libtraceevent; these are addresses in a long */
	static const char *const names[] = {
		"call_site", "caller", "flags", "gfp_flags", "gfp", "vm_start", "vm_end",
		"addr", "ip", "pte", NULL,
	};
	int i;

	if (f->flags & TEP_FIELD_IS_POINTER)
		return true;
	for (i = 0; names[i]; i++)
		if (!strcmp(f->name, names[i]))
			return true;
	return false;
}

static void dat_json_fields(struct tx_source *src, const struct tx_event *ev, FILE *out)
{
	struct dat *d = dat_of(src);
	struct tep_event *event = ev->type->tep_event;
	struct tep_record *r = ev->priv;
	struct tep_format_field *f;
	char buf[256], sym[256];
	unsigned int off, len;
	const char *sep = "";
	uint64_t v;
	size_t n;

	for (f = event->format.fields; f; f = f->next) {
		fputs(sep, out);
		sep = ", ";
		tx_json_str(out, f->name);
		fputs(": ", out);
		if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE | TEP_FIELD_IS_ARRAY)) {
			if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) {
				if (!dat_dynamic(r, f, &off, &len))
					off = len = 0;
			} else {
				off = f->offset;
				len = f->size ? (unsigned int)f->size : (unsigned int)(r->size - off);
			}
			if (strstr(f->type, "char")) {
				n = strnlen((const char *)r->data + off, len);
				if (n >= sizeof(buf))
					n = sizeof(buf) - 1;
				memcpy(buf, (const char *)r->data + off, n);
				buf[n] = '\0';
				tx_json_str(out, buf);
			} else {
				fprintf(out, "\"<%u bytes>\"", len);
			}
			continue;
		}
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			fputs("null", out);
			continue;
		}
		v = tep_read_number(d->tep, (const char *)r->data + f->offset, f->size);
		if (dat_hex_field(f)) {
			fprintf(out, "\"0x%" PRIx64 "\"", v);
			if ((!strcmp(f->name, "call_site") || !strcmp(f->name, "caller")) &&
			    dat_symbol(src, ev, F_CALL_SITE, v, sym, sizeof(sym))) {
				fputs(", ", out);
				snprintf(buf, sizeof(buf), "%s_sym", f->name);
				tx_json_str(out, buf);
				fputs(": ", out);
				tx_json_str(out, sym);
			}
		} else if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
			if (v & (1ULL << (f->size * 8 - 1)))
				v |= ~0ULL << (f->size * 8);
			fprintf(out, "%" PRId64, (int64_t)v);
		} else if (f->flags & TEP_FIELD_IS_SIGNED) {
			fprintf(out, "%" PRId64, (int64_t)v);
		} else {
			fprintf(out, "%" PRIu64, v);
		}
	}
}

static void dat_close(struct tx_source *src)
{
	struct dat *d = dat_of(src);

	if (!d)
		return;
	if (d->lookup)
		tracecmd_close(d->lookup);
	if (d->handle)
		tracecmd_close(d->handle);
	trace_seq_destroy(&d->seq);
	free(d->by_id);
	free(d->cpu_records);
	free(d);
	src->priv = NULL;
}

int tx_dat_open(struct tx_source *src, char *err, size_t errsize)
{
	const char *zname = NULL, *zversion = NULL;
	struct tep_format_field *f;
	struct tep_event *event;
	struct stat st;
	struct dat *d;
	int i, n, end;

	if (stat(src->path, &st) < 0) {
		snprintf(err, errsize, "%s: %s", src->path, strerror(errno));
		return -1;
	}
	d = xcalloc(1, sizeof(*d));
	d->file_size = st.st_size;
	src->priv = d;
	trace_seq_init(&d->seq);
	/* libtracecmd and libtraceevent would print their own complaints. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	d->handle = dat_open_handle(src->path);
	if (!d->handle) {
		snprintf(err, errsize,
			 "%s: truncated or corrupt trace-cmd file: its headers cannot be read", src->path);
		dat_close(src);
		return -1;
	}
	d->tep = tracecmd_get_tep(d->handle);
	/* A corrupt CPU count makes every step of the walk take minutes. */
	src->ncpus = tep_get_cpus(d->tep);
	if (tracecmd_cpus(d->handle) > src->ncpus)
		src->ncpus = tracecmd_cpus(d->handle);
	if (src->ncpus < 1 || src->ncpus > MAX_CPUS) {
		snprintf(err, errsize, "%s: corrupt trace-cmd file: it claims %d CPUs", src->path,
			 src->ncpus);
		d->handle = NULL;	/* not closed: libtracecmd may not cope */
		dat_close(src);
		return -1;
	}
	d->cpu_records = xcalloc(src->ncpus, sizeof(*d->cpu_records));
	/*
	 * libtracecmd 3.1 decompresses a compressed file's event data into
	 * memory chunk by chunk and never frees a chunk: memory then grows with
	 * the trace, whatever txlog does.  Say so for a large file.
	 */
	if (!tracecmd_get_file_compress_proto(d->handle, &zname, &zversion) && zname &&
	    strcmp(zname, "none") && st.st_size > (64 << 20))
		warning("%s is compressed (%s): libtracecmd keeps its decompressed events in memory; "
			"'trace-cmd convert --compression none' makes a file read with less",
			src->path, zname);
	/* The common fields are the same in every event: take them from any. */
	n = tep_get_events_count(d->tep);
	if (n <= 0) {
		snprintf(err, errsize, "%s: corrupt trace-cmd file: no event formats", src->path);
		dat_close(src);
		return -1;
	}
	for (i = 0; i < n && !d->header_size; i++) {
		event = tep_get_event(d->tep, i);
		if (!event)
			continue;
		for (f = event->format.common_fields; f; f = f->next) {
			end = f->offset + f->size;
			if (end > d->header_size)
				d->header_size = end;
		}
	}
	if (d->header_size < 4) {
		snprintf(err, errsize, "%s: corrupt trace-cmd file: events have no common fields",
			 src->path);
		dat_close(src);
		return -1;
	}
	return 0;
}

const struct tx_source_ops tx_dat_ops = {
	.walk		= dat_walk,
	.num		= dat_num,
	.str		= dat_str,
	.comm		= dat_comm,
	.reread		= dat_reread,
	.release	= dat_release,
	.info		= dat_info,
	.json_fields	= dat_json_fields,
	.symbol		= dat_symbol,
	.close		= dat_close,
};
