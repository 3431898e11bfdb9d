// SPDX-License-Identifier: GPL-2.0
/*
 * fault.c: the fault-injection capabilities in debugfs.
 *
 * Library-like: every function returns -1 (or NULL) with errno set and
 * never prints; the caller reports once, naming the path involved.
 *
 * A capability is any directory of debugfs (or one level below it, like
 * mmc0/fail_mmc_request) that holds a "probability" file.  Changes are
 * made through plans: ordered lists of writes.  The same plan structure
 * describes how to arm a capability and how to put it back, so the
 * restoring code is one small loop of open/write/close that is safe to call
 * from a signal handler.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject.h"

/* === Knobs and their defaults === */

/*
 * Every setting inject knows about, in the order they are written.  "reset"
 * is the kernel's default (what 'inject reset' writes); "arm" is what run,
 * arm and sweep write when no option says otherwise, so that a run never
 * inherits a filter somebody left behind.  Statistics and probability are
 * handled separately: probability is always written first (0) and last.
 */
const struct fault_knob fault_knobs[] = {
	{ "interval",		"1",	NULL },
	{ "times",		"1",	NULL },
	{ "space",		"0",	NULL },
	{ "verbose",		"2",	"0" },
	{ "task-filter",	"N",	NULL },
	{ "pid",		"0",	NULL },
	{ "comm",		"",	NULL },
	{ "skip",		"0",	NULL },
	{ "gfp-require",	"0",	NULL },
	{ "gfp-reject",		"0",	NULL },
	{ "action",		"fail",	NULL },
	{ "delay-us",		"0",	NULL },
	{ "stacktrace-depth",	"32",	NULL },
	{ "caller",		"",	NULL },
	{ "reject-caller",	"",	NULL },
	{ "require-start",	"0",	NULL },
	{ "require-end",	"18446744073709551615", NULL },
	{ "reject-start",	"0",	NULL },
	{ "reject-end",		"0",	NULL },
	{ "ignore-gfp-wait",	"Y",	"N" },
	{ "ignore-gfp-highmem",	"Y",	"N" },
	{ "cache-filter",	"N",	NULL },
	{ "cache",		"",	NULL },
	{ "min-size",		"0",	NULL },
	{ "max-size",		"0",	NULL },
	{ "min-order",		"1",	"0" },
	{ "max-order",		NULL,	NULL },
	{ "ignore-private",	"N",	NULL },
	{ "while-in",		"",	NULL },
	{ NULL,			NULL,	NULL },
};

/**
 * fault_max_order() - the largest page order of this kernel (MAX_ORDER - 1)
 *
 * Counted from the columns of /proc/buddyinfo, which has one per order.
 * Return: the order, or 10 (the x86-64 value) if it cannot be found out.
 */
int fault_max_order(void)
{
	char line[1024], *p, *save;
	int n = 0;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return 10;
	if (fgets(line, sizeof(line), f)) {
		/* "Node 0, zone   Normal   12 3 ..." */
		p = strstr(line, "zone");
		if (p) {
			strtok_r(p, " \t\n", &save);		/* "zone" */
			strtok_r(NULL, " \t\n", &save);		/* its name */
			while (strtok_r(NULL, " \t\n", &save))
				n++;
		}
	}
	fclose(f);
	return n > 0 ? n - 1 : 10;
}

/* The default a reset writes; max-order depends on the kernel. */
const char *fault_knob_reset(const struct fault_knob *knob)
{
	static char max_order[16];

	if (knob->reset)
		return knob->reset;
	snprintf(max_order, sizeof(max_order), "%d", fault_max_order());
	return max_order;
}

/* === Capabilities === */

static bool dir_has_probability(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/probability", dir) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

static int add_cap(struct fault_cap **caps, int *nr, const char *name,
		   const char *dir)
{
	struct fault_cap *c = realloc(*caps, (*nr + 1) * sizeof(**caps));

	if (!c)
		return -1;
	*caps = c;
	snprintf(c[*nr].name, sizeof(c[*nr].name), "%s", name);
	snprintf(c[*nr].dir, sizeof(c[*nr].dir), "%s", dir);
	(*nr)++;
	return 0;
}

static int cmp_cap(const void *a, const void *b)
{
	return strcmp(((const struct fault_cap *)a)->name,
		      ((const struct fault_cap *)b)->name);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/**
 * fault_cap_list() - find every fault-injection capability in debugfs
 * @caps: set to a malloc()ed array, sorted by name
 *
 * Return: the number of capabilities, or -1 with errno set (ENOENT when
 * debugfs is not mounted).
 */
int fault_cap_list(struct fault_cap **caps)
{
	char dir[PATH_MAX], sub[PATH_MAX], name[256];
	struct dirent *d, *e;
	DIR *top, *inner;
	int nr = 0;

	*caps = NULL;
	top = opendir(FAULT_DEBUGFS);
	if (!top)
		return -1;
	while ((d = readdir(top))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "tracing"))
			continue;
		snprintf(dir, sizeof(dir), FAULT_DEBUGFS "/%s", d->d_name);
		if (!is_dir(dir))
			continue;
		if (dir_has_probability(dir)) {
			if (add_cap(caps, &nr, d->d_name, dir))
				goto fail;
			continue;
		}
		/* mmc0/fail_mmc_request, nvme0/fault_inject, ... */
		inner = opendir(dir);
		if (!inner)
			continue;
		while ((e = readdir(inner))) {
			if (e->d_name[0] == '.')
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >=
			    (int)sizeof(sub))
				continue;
			if (!is_dir(sub) || !dir_has_probability(sub))
				continue;
			if (snprintf(name, sizeof(name), "%s/%s", d->d_name,
				     e->d_name) >= (int)sizeof(name))
				continue;
			if (add_cap(caps, &nr, name, sub)) {
				closedir(inner);
				goto fail;
			}
		}
		closedir(inner);
	}
	closedir(top);
	if (nr)
		qsort(*caps, nr, sizeof(**caps), cmp_cap);
	return nr;
fail:
	closedir(top);
	free(*caps);
	*caps = NULL;
	errno = ENOMEM;
	return -1;
}

/**
 * fault_cap_find() - look a capability up by name
 * @name: "failslab", "fail_page_alloc", ...
 * @cap: filled in on success
 *
 * Return: 0, or -1 with errno ENOENT if there is no such capability.
 */
int fault_cap_find(const char *name, struct fault_cap *cap)
{
	struct fault_cap *caps;
	int i, nr = fault_cap_list(&caps);

	if (nr < 0)
		return -1;
	for (i = 0; i < nr; i++) {
		if (!strcmp(caps[i].name, name)) {
			*cap = caps[i];
			free(caps);
			return 0;
		}
	}
	free(caps);
	errno = ENOENT;
	return -1;
}

bool fault_cap_has(const struct fault_cap *cap, const char *file)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", cap->dir, file) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* === Reading and writing one file === */

/**
 * fault_file_read() - read a debugfs value without its trailing newline
 * @path: the file
 * @buf: destination, always NUL terminated
 * @size: size of @buf
 *
 * Return: the length of the value, or -1 with errno set.
 */
int fault_file_read(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return len;
}

/**
 * fault_cap_read() - read one file of a capability
 * @cap: the capability
 * @file: a name in its directory, e.g. "probability" or "func/retval"
 *
 * Return: a malloc()ed string, or NULL with errno set.
 */
char *fault_cap_read(const struct fault_cap *cap, const char *file)
{
	char path[PATH_MAX];
	size_t size = 65536;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	if (snprintf(path, sizeof(path), "%s/%s", cap->dir, file) >= (int)sizeof(path)) {
		free(buf);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (fault_file_read(path, buf, size) < 0) {
		int err = errno;

		free(buf);
		errno = err;
		return NULL;
	}
	return buf;
}

int fault_cap_read_long(const struct fault_cap *cap, const char *file,
			long long *val)
{
	char *s = fault_cap_read(cap, file), *end;

	if (!s)
		return -1;
	errno = 0;
	*val = strtoll(s, &end, 0);
	if (errno || end == s) {
		free(s);
		errno = EINVAL;
		return -1;
	}
	free(s);
	return 0;
}

/*
 * Write @value; an empty value is written as a lone newline, which every
 * text setting takes as "clear".  Only async-signal-safe calls are used.
 */
int fault_file_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!len) {
		value = "\n";
		len = 1;
	}
	do {
		n = write(fd, value, len);
	} while (n < 0 && errno == EINTR);
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* === Plans === */

void fault_plan_init(struct fault_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->failed = -1;
}

/**
 * fault_plan_add() - append a write to a plan
 * @plan: the plan
 * @cap: the capability whose directory @file is in
 * @file: relative name
 * @value: what to write ("" clears)
 * @phase: 0 written first, 1 in any order, 2 last
 *
 * Return: 0, or -1 with errno ENOSPC (plan full) or ENOMEM.
 */
int fault_plan_add(struct fault_plan *plan, const struct fault_cap *cap,
		   const char *file, const char *value, int phase)
{
	struct fault_write *w;

	if (plan->nr == FAULT_PLAN_MAX) {
		errno = ENOSPC;
		return -1;
	}
	w = &plan->w[plan->nr];
	if (snprintf(w->path, sizeof(w->path), "%s/%s", cap->dir, file) >=
	    (int)sizeof(w->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	w->value = strdup(value);
	if (!w->value)
		return -1;
	w->phase = phase;
	w->optional = false;
	plan->nr++;
	return 0;
}

void fault_plan_free(struct fault_plan *plan)
{
	int i;

	for (i = 0; i < plan->nr; i++)
		free(plan->w[i].value);
	plan->nr = 0;
}

/**
 * fault_plan_apply() - carry out the writes of a plan
 * @plan: the plan; on failure plan->failed names the write that failed
 *
 * Phase 0 writes go first, then phase 1 writes, which are retried as long
 * as each pass gets at least one more of them through (pairs like
 * min-order/max-order or gfp-require/gfp-reject only accept some orders),
 * then phase 2.  Async-signal-safe: used by the signal handlers.
 *
 * Return: 0, or -1 with errno of the first write that could not be done
 * (the remaining writes of the same phase are still attempted).
 */
int fault_plan_apply(struct fault_plan *plan)
{
	bool done[FAULT_PLAN_MAX];
	int phase, i, progress, left;

	plan->failed = -1;
	plan->failed_errno = 0;
	for (i = 0; i < plan->nr; i++)
		done[i] = false;

	for (phase = 0; phase <= 2; phase++) {
		do {
			progress = 0;
			left = 0;
			for (i = 0; i < plan->nr; i++) {
				struct fault_write *w = &plan->w[i];

				if (done[i] || w->phase != phase)
					continue;
				if (fault_file_write(w->path, w->value) == 0 ||
				    ((errno == ENOENT || errno == EINVAL) && w->optional)) {
					done[i] = true;
					progress++;
				} else {
					left++;
				}
			}
		} while (phase == 1 && left && progress);

		if (!left)
			continue;
		/* Report the first write that still fails, with its errno. */
		for (i = 0; i < plan->nr; i++) {
			if (done[i] || plan->w[i].phase != phase)
				continue;
			if (fault_file_write(plan->w[i].path, plan->w[i].value) == 0) {
				done[i] = true;
				continue;
			}
			if (plan->failed < 0) {
				plan->failed = i;
				plan->failed_errno = errno;
			}
		}
		/* Never arm (phase 2 of an arming plan) after a failure. */
		if (plan->failed >= 0 && phase == 1)
			break;
	}
	if (plan->failed >= 0) {
		errno = plan->failed_errno;
		return -1;
	}
	return 0;
}

static const char *rel_name(const struct fault_cap *cap, const char *path)
{
	size_t n = strlen(cap->dir);

	if (!strncmp(path, cap->dir, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static bool is_counter(const char *file)
{
	return !strcmp(file, "calls") || !strcmp(file, "matched") ||
	       !strcmp(file, "injected") || !strcmp(file, "clamped");
}

static bool plan_has_file(const struct fault_plan *plan, int upto, const char *path)
{
	int i;

	for (i = 0; i < upto; i++)
		if (!strcmp(plan->w[i].path, path))
			return true;
	return false;
}

/*
 * fault_function_entry() - split a line of fail_function's "injectable" or
 * "inject" file, "FUNC" or "FUNC [MODULE]" (in "injectable" followed by a
 * tab and the error type, cut off here), into @func and @module ("" for
 * vmlinux).  @line is modified.
 */
void fault_function_entry(char *line, char **func, char **module)
{
	char *sp, *end;

	line[strcspn(line, "\t")] = '\0';
	*func = line;
	*module = "";
	sp = strchr(line, ' ');
	if (!sp)
		return;
	*sp = '\0';
	if (sp[1] == '[' && (end = strchr(sp + 2, ']'))) {
		*end = '\0';
		*module = sp + 2;
	}
}

/**
 * fault_function_listed() - is a function in fail_function's "inject" list?
 * @cap: fail_function
 * @func: its name, or "MODULE:FUNC" as the kernel takes it
 * @module: its module, "vmlinux", or NULL for any (when @func has none)
 */
bool fault_function_listed(const struct fault_cap *cap, const char *func, const char *module)
{
	char *list = fault_cap_read(cap, "inject"), *line, *save, *f, *m;
	const char *colon = strchr(func, ':');
	char want_mod[64] = "";
	bool found = false;

	if (!list)
		return false;
	if (colon) {
		snprintf(want_mod, sizeof(want_mod), "%.*s", (int)(colon - func), func);
		module = want_mod;
		func = colon + 1;
	}
	if (module && !strcmp(module, "vmlinux"))
		module = "";
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fault_function_entry(line, &f, &m);
		if (!strcmp(f, func) && (!module || !strcmp(m, module)))
			found = true;
	}
	free(list);
	return found;
}

/**
 * delay_location_parse() - split a delay point as given or as listed
 * @loc: "FUNC[+OFFSET]" (OFFSET decimal or 0x hex), optionally followed by
 *	a space and "MODULE" or "[MODULE]" when @module is NULL
 * @module: the module, "vmlinux" for none, or NULL
 * @l: filled in; l->module is "" for vmlinux, l->any_module if none was given
 *
 * Return: 0, or -1 if @loc is malformed.
 */
int delay_location_parse(const char *loc, const char *module, struct delay_location *l)
{
	char buf[sizeof(l->func) + 80], *sp, *plus, *end;

	memset(l, 0, sizeof(*l));
	if (strlen(loc) >= sizeof(buf))
		return -1;
	strcpy(buf, loc);
	sp = strchr(buf, ' ');
	if (sp) {
		*sp++ = '\0';
		if (module)
			return -1;
		module = sp;
		if (*sp == '[') {
			module = sp + 1;
			end = strchr(module, ']');
			if (!end || end[1])
				return -1;
			*end = '\0';
		}
	}
	l->any_module = !module;
	if (module && strcmp(module, "vmlinux"))
		snprintf(l->module, sizeof(l->module), "%s", module);
	plus = strchr(buf, '+');
	if (plus) {
		*plus++ = '\0';
		errno = 0;
		l->offset = strtoul(plus, &end, 0);
		if (!*plus || *end || errno)
			return -1;
	}
	if (!buf[0] || strlen(buf) >= sizeof(l->func))
		return -1;
	strcpy(l->func, buf);
	return 0;
}

/**
 * delay_point_listed() - is a delay point in delay_point's "points" list?
 * @cap: delay_point
 * @point: "FUNC[+OFFSET] [MODULE]" as written to "points"
 *
 * The kernel lists points as "FUNC+0xOFFSET [MODULE]"; they are compared
 * by function, offset and module (any module if @point names none).
 */
bool delay_point_listed(const struct fault_cap *cap, const char *point)
{
	char *list = fault_cap_read(cap, "points"), *line, *save;
	struct delay_location want, have;
	bool found = false;

	if (!list)
		return false;
	if (delay_location_parse(point, NULL, &want)) {
		free(list);
		return false;
	}
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (delay_location_parse(line, NULL, &have))
			continue;
		if (!strcmp(have.func, want.func) && have.offset == want.offset &&
		    (want.any_module || !strcmp(have.module, want.module)))
			found = true;
	}
	free(list);
	return found;
}

/**
 * fault_plan_save() - record the current values of what a plan will touch
 * @arm: the plan about to be applied
 * @cap: its capability
 * @restore: set to a plan that puts everything back: it disarms first
 *	(probability 0), restores every other file, and writes the saved
 *	probability last.  Statistics cannot be restored: the kernel only
 *	accepts 0.
 *
 * A function that @arm adds to fail_function's "inject" list is removed
 * again ("!func"); one that was there already gets its retval back. So is
 * a point that @arm adds to delay_point's "points".
 *
 * Return: 0, or -1 with errno set (reading failed).
 */
int fault_plan_save(const struct fault_plan *arm, const struct fault_cap *cap,
		    struct fault_plan *restore)
{
	char *value, *prob = NULL, buf[PATH_MAX];
	int i;

	fault_plan_init(restore);
	if (fault_plan_add(restore, cap, "probability", "0", 0))
		return -1;
	for (i = 0; i < arm->nr; i++) {
		const char *file = rel_name(cap, arm->w[i].path);

		/*
		 * Each write to these lists adds an entry (a line of a FILE:LINE
		 * adds several points): each is taken out again afterwards.
		 */
		if (!strcmp(file, "inject") || !strcmp(file, "points")) {
			if (!strcmp(file, "inject") ?
			    !fault_function_listed(cap, arm->w[i].value, NULL) :
			    !delay_point_listed(cap, arm->w[i].value)) {
				snprintf(buf, sizeof(buf), "!%s", arm->w[i].value);
				if (fault_plan_add(restore, cap, file, buf, 1))
					goto fail;
				/* The add may fail: then there is nothing to take out. */
				restore->w[restore->nr - 1].optional = true;
			}
			continue;
		}
		if (is_counter(file) || plan_has_file(arm, i, arm->w[i].path))
			continue;
		if (!strcmp(file, "probability")) {
			if (prob)
				continue;
			prob = fault_cap_read(cap, file);
			if (!prob)
				goto fail;
			continue;
		}
		value = fault_cap_read(cap, file);
		if (!value) {
			if (errno == ENOENT)
				continue;	/* a retval file that appears later */
			goto fail;
		}
		/* retval reads back as bare hex ("%llx"), writes need "0x". */
		if (strlen(file) > 7 && !strcmp(file + strlen(file) - 7, "/retval")) {
			char *hex = malloc(strlen(value) + 3);

			if (!hex) {
				free(value);
				goto fail;
			}
			sprintf(hex, "0x%s", value);
			free(value);
			value = hex;
		}
		if (fault_plan_add(restore, cap, file, value, 1)) {
			free(value);
			goto fail;
		}
		free(value);
	}
	if (!prob)
		prob = fault_cap_read(cap, "probability");
	if (!prob || fault_plan_add(restore, cap, "probability", prob, 2))
		goto fail;
	free(prob);
	return 0;
fail:
	free(prob);
	fault_plan_free(restore);
	return -1;
}

/**
 * fault_plan_store() - write a restore plan to a file (atomically)
 * @plan: the plan
 * @cap: its capability
 * @path: e.g. /run/inject/failslab.saved
 *
 * The file names its owner (this process), so that a later inject can tell
 * a live session from one that was killed.
 *
 * Return: 0, or -1 with errno set.
 */
int fault_plan_store(const struct fault_plan *plan, const struct fault_cap *cap,
		     const char *path)
{
	char tmp[PATH_MAX + 8];
	FILE *f;
	int i;

	if (mkdir(INJECT_RUN_DIR, 0700) && errno != EEXIST)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "# inject: saved state of %s; 'inject reset --restore %s' puts it back\n",
		cap->dir, cap->name);
	fprintf(f, "pid %d\n", (int)getpid());
	fprintf(f, "dir %s\n", cap->dir);
	for (i = 0; i < plan->nr; i++)
		fprintf(f, "%d %s %s\n", plan->w[i].phase,
			rel_name(cap, plan->w[i].path), plan->w[i].value);
	if (fflush(f) || fsync(fileno(f))) {
		int err = errno;

		fclose(f);
		unlink(tmp);
		errno = err;
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		int err = errno;

		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

/**
 * fault_plan_load() - read a plan written by fault_plan_store()
 * @plan: filled in
 * @path: the file
 * @owner: set to the pid of the inject that wrote it
 * @dir: set to the capability's directory
 * @dirsize: size of @dir
 *
 * Return: 0, or -1 with errno set (EINVAL for a malformed file).
 */
int fault_plan_load(struct fault_plan *plan, const char *path, pid_t *owner,
		    char *dir, size_t dirsize)
{
	char line[8192], file[PATH_MAX];
	struct fault_cap cap = { .name = "" };
	int phase, n, pid = 0;
	FILE *f = fopen(path, "r");

	fault_plan_init(plan);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (sscanf(line, "pid %d", &pid) == 1)
			continue;
		if (!strncmp(line, "dir ", 4)) {
			if (snprintf(cap.dir, sizeof(cap.dir), "%s", line + 4) >=
			    (int)sizeof(cap.dir))
				goto bad;
			continue;
		}
		if (!cap.dir[0] || sscanf(line, "%d %4095s %n", &phase, file, &n) < 2 ||
		    phase < 0 || phase > 2)
			goto bad;
		/* "%n" after a trailing space: the value may be empty. */
		if ((size_t)n > len)
			n = len;
		if (fault_plan_add(plan, &cap, file, line + n, phase))
			goto fail;
		/* Taking out a function or point, as fault_plan_save() plans it. */
		if ((!strcmp(file, "inject") || !strcmp(file, "points")) && line[n] == '!')
			plan->w[plan->nr - 1].optional = true;
	}
	fclose(f);
	if (!cap.dir[0] || !pid) {
		fault_plan_free(plan);
		errno = EINVAL;
		return -1;
	}
	*owner = pid;
	snprintf(dir, dirsize, "%s", cap.dir);
	return 0;
bad:
	errno = EINVAL;
fail:
	{
		int err = errno;

		fclose(f);
		fault_plan_free(plan);
		errno = err;
	}
	return -1;
}
