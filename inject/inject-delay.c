// SPDX-License-Identifier: GPL-2.0
/*
 * inject delay FUNC[+OFFSET][,...]|FILE:LINE [MODULE] --us U [options] -- CMD:
 * stall the code at one instruction of the kernel (or at each of a list)
 * for U microseconds each time the filters pick a pass there, through a
 * delay point (a kprobe) per instruction, while CMD runs.  A source line is
 * turned into FUNC+OFFSET by gdb, from the debug information of the module
 * or of vmlinux.
 *
 * inject where FILE:LINE [MODULE] [--debuginfo F]: print what a source
 * line becomes, FUNC+OFFSET[,...]; it only reads files, so it also runs on
 * the host, where gdb is fast (qemu/repro resolves its scenarios' lines
 * there once per run).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

/* Check FUNC[+OFFSET] and MODULE as the kernel will parse them. */
static void check_location(const char *loc, const char *module)
{
	const char *plus = strchr(loc, '+');
	size_t len = plus ? (size_t)(plus - loc) : strlen(loc);
	struct delay_location l;

	if (!len)
		die_usage("delay: '%s' has no function name (FUNC[+OFFSET])", loc);
	if (!is_name(loc, len, SYMBOL_PUNCT))
		die_usage("delay: '%s' is not a function name (FUNC[+OFFSET])", loc);
	if (len > 511)
		die_usage("delay: '%s' is longer than a kernel symbol can be", loc);
	if (plus) {
		char *end;

		errno = 0;
		if (!plus[1] || strtol(plus + 1, &end, 0) < 0 || *end || errno ||
		    !isdigit((unsigned char)plus[1]))
			die_usage("delay: offset '%s' of '%s' is not a number", plus + 1, loc);
	}
	if (module && strlen(module) > 55)
		die_usage("delay: module name '%s' is too long", module);
	if (delay_location_parse(loc, module, &l))
		die_usage("delay: '%s' is not FUNC[+OFFSET]", loc);
}

/* Run @argv with stdout and stderr into @out (NUL-terminated); its status. */
static int capture(char *const argv[], char *out, size_t size)
{
	bool truncated = false;
	int fd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		die("delay: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("delay: fork: %s", strerror(errno));
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0)
			dup2(null, 0);
		/* gdb's warnings on stderr must not push the answer out. */
		dup2(fd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		char rest[512];

		/* Past @size, read on, so that the child never blocks. */
		if (len < size - 1)
			n = read(fd[0], out + len, size - 1 - len);
		else
			n = read(fd[0], rest, sizeof(rest));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < size - 1)
			len += n;
		else
			truncated = true;
	}
	out[len] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("delay: waitpid: %s", strerror(errno));
	if (truncated)
		die("delay: %s said more than %zu bytes", argv[0], size - 1);
	return status;
}

/* The file with the debug information of @module, or of vmlinux. */
static const char *default_debuginfo(const char *module, char *buf, size_t size)
{
	struct utsname u;

	if (module && strcmp(module, "vmlinux")) {
		char *argv[] = { "modinfo", "-n", (char *)module, NULL };

		if (capture(argv, buf, size) || buf[0] != '/')
			die_usage("delay: cannot find %s.ko (modinfo -n): give it with "
				  "--debuginfo FILE", module);
		buf[strcspn(buf, "\n")] = '\0';
		return buf;
	}
	if (uname(&u))
		die("delay: uname: %s", strerror(errno));
	snprintf(buf, size, "/lib/modules/%s/build/vmlinux", u.release);
	if (access(buf, R_OK))
		die_usage("delay: %s: %s: give the kernel's vmlinux with --debuginfo FILE",
			  buf, strerror(errno));
	return buf;
}

/* At most this many addresses of a line (inlined copies) get a point each. */
#define MAX_LINE_COPIES	16

/*
 * gdb prints each address of the line as "AT func + 26 in section .text",
 * with the copies that inlining made; the copies are found by the same
 * lookup a breakpoint on FILE:LINE uses.
 */
static const char gdb_lines[] =
	"python exec(\"try:\\n"
	" sals = gdb.decode_line('%s')[1] or []\\n"
	"except gdb.error as e:\\n"
	" print('ERROR', e)\\n"
	" sals = []\\n"
	"for s in sals:\\n"
	" print('AT', s.line, gdb.execute('info symbol %%d' %% s.pc, to_string=True).strip())\")";

/*
 * gdb takes seconds to read debug information (more under emulation), so
 * the lines found are kept in INJECT_RUN_DIR, one per line:
 * "DEBUGINFO DEV:INODE:SIZE:MTIME FILE:LINE LOC[,LOC...]".  A rebuilt file
 * has another key.
 */
#define LINE_CACHE	INJECT_RUN_DIR "/lines"

static void line_cache_key(const char *debuginfo, char *key, size_t size)
{
	struct stat st;

	if (stat(debuginfo, &st))
		die_usage("delay: --debuginfo %s: %s", debuginfo, strerror(errno));
	snprintf(key, size, "%lu:%lu:%lld:%lld.%09ld", (unsigned long)st.st_dev,
		 (unsigned long)st.st_ino, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* The cached locations of @fileline, or 0 if there are none. */
static int line_cache_get(const char *debuginfo, const char *key,
			  const char *fileline, char locs[][560], int max)
{
	char *buf = NULL, *save, *f[4], *loc;
	FILE *c = fopen(LINE_CACHE, "r");
	size_t size = 0;
	int i, n = 0;

	if (!c)
		return 0;
	while (!n && getline(&buf, &size, c) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		for (i = 0, f[0] = strtok_r(buf, " ", &save); i < 3 && f[i];)
			f[++i] = strtok_r(NULL, " ", &save);
		if (i < 3 || !f[3] || strcmp(f[0], debuginfo) || strcmp(f[1], key) ||
		    strcmp(f[2], fileline))
			continue;
		for (loc = strtok_r(f[3], ",", &save); loc && n < max;
		     loc = strtok_r(NULL, ",", &save))
			snprintf(locs[n++], 560, "%s", loc);
	}
	free(buf);
	fclose(c);
	return n;
}

static void line_cache_put(const char *debuginfo, const char *key,
			   const char *fileline, char locs[][560], int n)
{
	FILE *c;
	int i;

	if (strchr(debuginfo, ' ') || (mkdir(INJECT_RUN_DIR, 0700) && errno != EEXIST))
		return;
	c = fopen(LINE_CACHE, "a");
	if (!c)
		return;
	fprintf(c, "%s %s %s ", debuginfo, key, fileline);
	for (i = 0; i < n; i++)
		fprintf(c, "%s%s", i ? "," : "", locs[i]);
	fputc('\n', c);
	fclose(c);
}

/*
 * FILE:LINE as FUNC+OFFSET, one for each copy of the line, into @locs;
 * with @cache, looked up in and added to the cache of lines found before.
 * Return: how many.
 */
static int resolve_line(const char *fileline, const char *debuginfo,
			char locs[][560], int max, bool cache)
{
	char cmd[900], out[16384], key[128], *line, *save;
	char *argv[] = { "gdb", "-batch", "-nx", "-ex", cmd, (char *)debuginfo, NULL };
	unsigned long want;
	int status, n = 0;
	const char *p;

	if (access(debuginfo, R_OK))
		die_usage("delay: --debuginfo %s: %s", debuginfo, strerror(errno));
	for (p = fileline; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-/:+", *p))
			die_usage("delay: '%s' is not FILE:LINE", fileline);
	line_cache_key(debuginfo, key, sizeof(key));
	n = cache ? line_cache_get(debuginfo, key, fileline, locs, max) : 0;
	if (n)
		return n;
	snprintf(cmd, sizeof(cmd), gdb_lines, fileline);
	status = capture(argv, out, sizeof(out));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		die_usage("delay: %s needs gdb to find the line, and there is none", fileline);
	want = strtoul(strrchr(fileline, ':') + 1, NULL, 10);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long off, at;
		char sym[512];
		int end = 0;

		if (!strncmp(line, "ERROR ", 6))
			die_usage("delay: %s in %s: %s", fileline, debuginfo, line + 6);
		if (strncmp(line, "AT ", 3))
			continue;
		/* "AT 78 func + 26 in section .text", or "AT 78 func in section ..." */
		if (sscanf(line + 3, "%lu %511s + %lu in section %n", &at, sym, &off, &end) < 3 ||
		    !end) {
			off = 0;
			end = 0;
			if (sscanf(line + 3, "%lu %511s in section %n", &at, sym, &end) < 2 || !end)
				die_usage("delay: %s: gdb names no function: %s", fileline, line + 3);
		}
		/* gdb moves a line without code to the next one with code. */
		if (at != want)
			die_usage("delay: %s has no code of its own (gdb would take line %lu)",
				  fileline, at);
		if (n == max)
			die_usage("delay: %s has more than %d copies (inlined): give one as "
				  "FUNC+OFFSET", fileline, max);
		snprintf(locs[n++], 560, "%s+%#lx", sym, off);
	}
	if (!n)
		die_usage("delay: %s is not a line of code in %s", fileline, debuginfo);
	if (cache)
		line_cache_put(debuginfo, key, fileline, locs, n);
	return n;
}

/* Split "LOC[,LOC...]" into @locs. Return: how many. */
static int split_locations(const char *list, char locs[][560], int max)
{
	const char *p = list, *comma;
	int n = 0;

	for (;;) {
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len)
			die_usage("delay: '%s' has an empty location", list);
		if (len >= 560)
			die_usage("delay: '%.40s...' is longer than a location can be", p);
		if (n == max)
			die_usage("delay: '%s' lists more than %d locations", list, max);
		snprintf(locs[n++], 560, "%.*s", (int)len, p);
		if (!comma)
			return n;
		p = comma + 1;
	}
}

int cmd_delay(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	char locs[MAX_LINE_COPIES][560], dbg[4096];
	struct inject_opts o;
	int i, nr = 1;

	opts_parse("delay", argc, argv, OPTS_ARM | OPTS_CMD | OPTS_DELAY, &o);
	if (!o.delay_us)
		die_usage("delay: --us is required (microseconds per delay, at most "
			  "10000 are waited: the delay busy-waits)");
	parse_number(o.delay_us_opt, o.delay_us, 1, 1000000);
	if (strchr(o.cap, ':') && strchr(o.cap, ','))
		die_usage("delay: '%s': a list takes FUNC[+OFFSET] locations, not "
			  "FILE:LINE (one line at a time)", o.cap);
	if (strchr(o.cap, ':')) {
		nr = resolve_line(o.cap, o.debuginfo ? o.debuginfo :
				  default_debuginfo(o.module, dbg, sizeof(dbg)),
				  locs, MAX_LINE_COPIES, true);
		fprintf(stderr, "%s: delay: %s is", argv0, o.cap);
		for (i = 0; i < nr; i++)
			fprintf(stderr, "%s %s", i ? "," : "", locs[i]);
		fputc('\n', stderr);
	} else if (o.debuginfo) {
		die_usage("delay: --debuginfo is for a FILE:LINE location");
	} else {
		nr = split_locations(o.cap, locs, MAX_LINE_COPIES);
	}
	for (i = 0; i < nr; i++)
		check_location(locs[i], o.module);
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("delay", "delay_point", &s->cap);
	if (!fault_cap_has(&s->cap, "points"))
		die_usage("delay: %s/points is missing (CONFIG_FAULT_DELAY_POINT?)", s->cap.dir);

	opts_build_plan(&o, &s->cap, &s->arm);
	for (i = 0; i < nr; i++) {
		char point[640];

		snprintf(point, sizeof(point), "%.559s%s%.63s", locs[i], o.module ? " " : "",
			 o.module ? o.module : "");
		/* A point listed already stays, as it was: the kernel takes it once. */
		if (!delay_point_listed(&s->cap, point) &&
		    fault_plan_add(&s->arm, &s->cap, "points", point, 1))
			die("delay: cannot plan the write of %s to %s/points: %s",
			    point, s->cap.dir, strerror(errno));
	}
	return run_session(s, &o);
}

int cmd_where(int argc, char **argv)
{
	char locs[MAX_LINE_COPIES][560], dbg[4096];
	bool guest = in_guest();
	struct inject_opts o;
	int i, nr;

	opts_parse("where", argc, argv, OPTS_WHERE, &o);
	if (!o.cap)
		die_usage("where: FILE:LINE is missing (try 'inject where --help')");
	if (!strchr(o.cap, ':'))
		die_usage("where: '%s' is not FILE:LINE", o.cap);
	/* The host's /lib/modules and modinfo describe the host's kernel. */
	if (!o.debuginfo && !guest)
		die_usage("where: outside the guest, give the debug information with "
			  "--debuginfo FILE (the .ko or vmlinux)");
	nr = resolve_line(o.cap, o.debuginfo ? o.debuginfo :
			  default_debuginfo(o.module, dbg, sizeof(dbg)),
			  locs, MAX_LINE_COPIES, guest);
	for (i = 0; i < nr; i++)
		printf("%s%s", i ? "," : "", locs[i]);
	putchar('\n');
	return 0;
}
