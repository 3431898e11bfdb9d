// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c: collect the fault_inject:fault_inject events of one session.
 *
 * A private tracefs instance ("inject-<pid>") gets the event, filtered on
 * the capability's name, with a stacktrace trigger, so that each injection
 * is followed in the ring buffer by a kernel_stack event on the same CPU.
 * The tracepoint's own caller field names the allocator entry point for
 * failslab and fail_page_alloc (kmem_cache_alloc+0x..), so the site shown
 * to the user is the first frame of that stack outside the allocator and
 * the fault-injection code: the function that asked for the memory.  For
 * delay_point the caller field is the point, and the site.
 *
 * Library-like: returns -1/NULL with errno set, never prints.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "inject.h"

#define MAX_CPUS	1024

struct trace_session {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	char *dir;
	bool stacks;			/* keep whole stacks in the hits */
	bool kallsyms;			/* tep knows the kernel's symbols */
	bool caller_is_site;		/* delay_point: the caller is the point */
	int fi_id, stack_id;
	struct tep_format_field *f_caller, *f_size, *f_gfp, *f_pid, *f_comm,
				*f_action, *s_size, *s_caller;
	/* filled while iterating */
	struct trace_hit *hits;
	int nr, alloc;
	int last[MAX_CPUS];		/* per CPU: hit waiting for its stack */
};

/*
 * Frames that belong to the allocator or to fault injection itself, not
 * to the code that asked: prefixes of function names.
 */
static const char *const plumbing[] = {
	"should_fail", "__should_fail", "should_failslab", "__should_failslab",
	"record_fault", "trace_", "__traceiter_", "event_trigger",
	"stacktrace_trigger", "__ftrace_trace_stack", "__trace_stack",
	"slab_pre_alloc_hook", "slab_alloc", "__slab_alloc",
	"kmem_cache_alloc", "__kmem_cache_alloc", "kmem_cache_zalloc",
	"kmalloc", "__kmalloc", "kzalloc", "kcalloc", "krealloc", "__krealloc",
	"kmemdup", "kstrdup", "kstrndup", "kvmalloc", "__kvmalloc", "kvzalloc",
	"kvcalloc", "__alloc_pages", "alloc_pages", "__get_free_pages",
	"get_zeroed_page", "__folio_alloc", "folio_alloc", "vma_alloc_folio",
	"alloc_page", "prepare_alloc_pages", "__vmalloc", "vmalloc", "vzalloc",
	"fei_kprobe_handler", "kprobe_", "__kprobe", "opt_pre_handler",
	"ftrace_", "arch_ftrace", "aggr_pre_handler",
	NULL,
};

static bool is_plumbing(const char *name)
{
	int i;

	for (i = 0; plumbing[i]; i++)
		if (!strncmp(name, plumbing[i], strlen(plumbing[i])))
			return true;
	return false;
}

static char *read_whole(const char *path)
{
	size_t len = 0, size = 1 << 20;
	char *buf = malloc(size), *p;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > size) {
			p = realloc(buf, size * 2);
			if (!p)
				break;
			buf = p;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static void load_kallsyms(struct trace_session *t)
{
	char *syms;

	if (t->kallsyms)
		return;
	t->kallsyms = true;
	syms = read_whole("/proc/kallsyms");
	if (syms) {
		tep_parse_kallsyms(t->tep, syms);
		free(syms);
	}
}

static void symbolize(struct trace_session *t, unsigned long long addr,
		      char *buf, size_t size, const char **name)
{
	const char *fn;
	unsigned long long start;

	load_kallsyms(t);
	fn = tep_find_function(t->tep, addr);
	if (name)
		*name = fn;
	if (!fn) {
		snprintf(buf, size, "0x%llx", addr);
		return;
	}
	start = tep_find_function_address(t->tep, addr);
	snprintf(buf, size, "%s+0x%llx", fn, addr - start);
}

/**
 * trace_open() - start recording injections of one capability
 * @cap_name: the capability (its last path component is the event's name)
 * @stacks: keep every injection's whole call chain
 *
 * Return: the session, or NULL with errno set.
 */
static struct trace_session *open_session;

/* die() exits without closing: do not leave the instance behind. */
static void trace_atexit(void)
{
	trace_close(open_session);
}

struct trace_session *trace_open(const char *cap_name, bool stacks)
{
	static bool registered;

	const char *systems[] = { "fault_inject", "ftrace", NULL };
	struct trace_session *t = calloc(1, sizeof(*t));
	const char *base = strrchr(cap_name, '/');
	struct tep_event *ev;
	char name[64], filter[256];
	int err, i;

	if (!t)
		return NULL;
	base = base ? base + 1 : cap_name;
	t->stacks = stacks;
	/*
	 * A delay point's event is raised in its kprobe handler, whose stack
	 * shows the breakpoint's machinery and then the instruction after
	 * the point; the caller field is the point itself.
	 */
	t->caller_is_site = !strcmp(base, "delay_point");
	for (i = 0; i < MAX_CPUS; i++)
		t->last[i] = -1;

	t->tep = tracefs_local_events_system(NULL, systems);
	if (!t->tep)
		goto fail;
	ev = tep_find_event_by_name(t->tep, "fault_inject", "fault_inject");
	if (!ev) {
		errno = ENOENT;
		goto fail;
	}
	t->fi_id = ev->id;
	t->f_caller = tep_find_field(ev, "caller");
	t->f_size = tep_find_field(ev, "size");
	t->f_gfp = tep_find_field(ev, "gfp");
	t->f_pid = tep_find_field(ev, "pid");
	t->f_comm = tep_find_field(ev, "comm");
	t->f_action = tep_find_field(ev, "action");
	if (!t->f_caller) {
		errno = ENOENT;
		goto fail;
	}
	ev = tep_find_event_by_name(t->tep, "ftrace", "kernel_stack");
	t->stack_id = ev ? ev->id : -1;
	if (ev) {
		t->s_size = tep_find_field(ev, "size");
		t->s_caller = tep_find_field(ev, "caller");
	}

	snprintf(name, sizeof(name), "inject-%d", (int)getpid());
	t->inst = tracefs_instance_create(name);
	if (!t->inst)
		goto fail;
	t->dir = tracefs_instance_get_dir(t->inst);
	snprintf(filter, sizeof(filter), "name == \"%s\"", base);
	if (tracefs_event_file_write(t->inst, "fault_inject", "fault_inject",
				     "filter", filter) < 0)
		goto fail;
	if (t->stack_id >= 0 &&
	    tracefs_event_file_write(t->inst, "fault_inject", "fault_inject",
				     "trigger", "stacktrace") < 0)
		goto fail;
	if (tracefs_event_enable(t->inst, "fault_inject", "fault_inject") < 0)
		goto fail;
	if (!registered)
		registered = !atexit(trace_atexit);
	open_session = t;
	return t;
fail:
	err = errno ? errno : EIO;
	trace_close(t);
	errno = err;
	return NULL;
}

/**
 * trace_open_guarded() - trace_open() with the signals blocked
 * @cap_name: as for trace_open()
 * @stacks: as for trace_open()
 *
 * Blocks inject's signals (caught since main()) while the instance is
 * created and its path handed to the handler, so that a signal at any
 * point removes the instance.
 */
struct trace_session *trace_open_guarded(const char *cap_name, bool stacks)
{
	struct trace_session *t;
	sigset_t old;
	int err;

	session_block_signals(&old);
	t = trace_open(cap_name, stacks);
	err = errno;
	session_set_trace_dir(trace_dir(t));
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return t;
}

/**
 * trace_remove_stale() - remove instances of inject processes that are gone
 *
 * An inject killed by SIGKILL leaves its "inject-<pid>" instance behind.
 * Return: how many were removed, or -1 with errno set.
 */
int trace_remove_stale(void)
{
	char path[PATH_MAX];
	const char *top = tracefs_tracing_dir();
	struct dirent *d;
	int n = 0, pid;
	DIR *dir;

	if (!top)
		return -1;
	snprintf(path, sizeof(path), "%s/instances", top);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char inst[PATH_MAX];

		if (sscanf(d->d_name, "inject-%d", &pid) != 1 || pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno == EPERM)
			continue;
		if (snprintf(inst, sizeof(inst), "%s/%s", path, d->d_name) >= (int)sizeof(inst))
			continue;
		n += rmdir(inst) == 0;
	}
	closedir(dir);
	return n;
}

const char *trace_dir(struct trace_session *t)
{
	return t ? t->dir : NULL;
}

static void set_site_from_stack(struct trace_session *t, struct trace_hit *h,
				const unsigned long long *addr, int n)
{
	char frame[160];
	const char *fn;
	int i;

	if (n <= 0)
		return;
	if (t->stacks) {
		h->stack = calloc(n, sizeof(char *));
		h->nr_stack = 0;
	}
	for (i = 0; i < n; i++) {
		if (!addr[i] || addr[i] == ~0ULL)
			continue;
		symbolize(t, addr[i], frame, sizeof(frame), &fn);
		if (h->stack)
			h->stack[h->nr_stack++] = strdup(frame);
		if (!h->site[0] && fn && !is_plumbing(fn) && !t->caller_is_site)
			snprintf(h->site, sizeof(h->site), "%s", frame);
	}
}

static int collect_one(struct tep_event *event, struct tep_record *rec,
		       int cpu, void *ctx)
{
	struct trace_session *t = ctx;
	unsigned long long v;
	struct trace_hit *h;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return 0;
	if (event->id == t->fi_id) {
		if (t->nr == t->alloc) {
			int n = t->alloc ? t->alloc * 2 : 16;
			struct trace_hit *p = realloc(t->hits, n * sizeof(*p));

			if (!p)
				return 0;
			t->hits = p;
			t->alloc = n;
		}
		h = &t->hits[t->nr];
		memset(h, 0, sizeof(*h));
		if (!tep_read_number_field(t->f_caller, rec->data, &v))
			symbolize(t, v, h->caller, sizeof(h->caller), NULL);
		if (t->f_size && !tep_read_number_field(t->f_size, rec->data, &v))
			h->size = (long)v;
		if (t->f_gfp && !tep_read_number_field(t->f_gfp, rec->data, &v))
			h->gfp = v;
		/* Kernels before the series' final form had own pid/comm fields. */
		if (t->f_pid && !tep_read_number_field(t->f_pid, rec->data, &v))
			h->pid = (int)v;
		else
			h->pid = tep_data_pid(t->tep, rec);
		if (t->f_action && !tep_read_number_field(t->f_action, rec->data, &v))
			h->action = (int)v;
		if (t->f_comm)
			snprintf(h->comm, sizeof(h->comm), "%.*s",
				 t->f_comm->size, (char *)rec->data + t->f_comm->offset);
		/* else trace_collect() names the task from saved_cmdlines */
		t->last[cpu] = t->nr++;
		return 0;
	}
	if (event->id == t->stack_id && t->last[cpu] >= 0 && t->s_caller) {
		unsigned long long addr[64];
		int i, n = 0, room;

		h = &t->hits[t->last[cpu]];
		t->last[cpu] = -1;
		if (t->s_size && !tep_read_number_field(t->s_size, rec->data, &v))
			n = (int)v;
		room = (rec->size - t->s_caller->offset) / 8;
		if (n > room)
			n = room;
		if (n > 64)
			n = 64;
		for (i = 0; i < n; i++)
			memcpy(&addr[i], (char *)rec->data + t->s_caller->offset + 8 * i, 8);
		set_site_from_stack(t, h, addr, n);
	}
	return 0;
}

/**
 * trace_collect() - take the injections recorded since the last call
 * @t: the session
 * @hits: set to a malloc()ed array (free with trace_hits_free())
 * @nr: set to its length
 *
 * The events are consumed, so each call returns only new ones.
 * Return: 0, or -1 with errno set.
 */
int trace_collect(struct trace_session *t, struct trace_hit **hits, int *nr)
{
	int i, ret;

	t->hits = NULL;
	t->nr = t->alloc = 0;
	for (i = 0; i < MAX_CPUS; i++)
		t->last[i] = -1;
	ret = tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0, collect_one, t);
	/*
	 * The event leaves the task's name to the common fields: the tracer
	 * saved it in saved_cmdlines when the task was next switched out.
	 * Names already known are kept, so a failed reload changes nothing.
	 */
	if (!t->f_comm && t->nr)
		tracefs_load_cmdlines(NULL, t->tep);
	for (i = 0; i < t->nr; i++) {
		struct trace_hit *h = &t->hits[i];

		if (!h->site[0])
			snprintf(h->site, sizeof(h->site), "%s", h->caller);
		if (!t->f_comm)
			snprintf(h->comm, sizeof(h->comm), "%s",
				 tep_data_comm_from_pid(t->tep, h->pid));
	}
	*hits = t->hits;
	*nr = t->nr;
	t->hits = NULL;
	return ret < 0 ? -1 : 0;
}

void trace_hits_free(struct trace_hit *hits, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < hits[i].nr_stack; j++)
			free(hits[i].stack[j]);
		free(hits[i].stack);
	}
	free(hits);
}

/**
 * trace_sites_summary() - "site (x2), other+0x10" in order of first hit
 * @hits: the injections
 * @nr: how many
 *
 * Return: a malloc()ed string ("none" if @nr is 0), or NULL.
 */
char *trace_sites_summary(const struct trace_hit *hits, int nr)
{
	int *count = calloc(nr ? nr : 1, sizeof(int));
	size_t size = 64, len = 0;
	char *out, *p;
	int i, j;

	if (!count)
		return NULL;
	for (i = 0; i < nr; i++) {
		for (j = 0; j < i; j++)
			if (count[j] && !strcmp(hits[j].site, hits[i].site))
				break;
		count[j]++;
	}
	for (i = 0; i < nr; i++)
		size += strlen(hits[i].site) + 16;
	out = malloc(size);
	if (!out) {
		free(count);
		return NULL;
	}
	out[0] = '\0';
	for (i = 0, p = out; i < nr; i++) {
		if (!count[i])
			continue;
		len += snprintf(p + len, size - len, "%s%s", len ? ", " : "", hits[i].site);
		if (count[i] > 1)
			len += snprintf(p + len, size - len, " (x%d)", count[i]);
	}
	if (!nr)
		snprintf(out, size, "none");
	free(count);
	return out;
}

/**
 * trace_close() - remove the instance and free the session
 * @t: the session, may be NULL
 */
void trace_close(struct trace_session *t)
{
	if (!t)
		return;
	if (t == open_session)
		open_session = NULL;
	session_set_trace_dir(NULL);
	if (t->inst) {
		tracefs_event_file_write(t->inst, "fault_inject", "fault_inject",
					 "trigger", "!stacktrace");
		tracefs_event_disable(t->inst, "fault_inject", "fault_inject");
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	if (t->tep)
		tep_free(t->tep);
	free(t->dir);
	free(t->hits);
	free(t);
}
