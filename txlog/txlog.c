// SPDX-License-Identifier: GPL-2.0
/*
 * txlog: per-object transactions from a trace of memory-management events.
 * This file: options, the helpers every file uses, and the main sequence
 * (open, walk, finish, report).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "txlog.h"

const char *argv0 = "txlog";

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", argv0, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Anything txlog cannot go on with: bad input or no resources.  Exit 2. */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(EXIT_BAD);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", argv0);
	exit(EXIT_BAD);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

/* === Options === */

enum {
	OPT_PID = 256, OPT_START, OPT_END, OPT_SVG, OPT_SVG_BY, OPT_SVG_LANES,
	OPT_HISTORY, OPT_MAX_FREED, OPT_TOP, OPT_TXREC,
};

static const struct option long_options[] = {
	{ "pfn",	required_argument,	NULL, 'p' },
	{ "ptr",	required_argument,	NULL, 'P' },
	{ "pid",	required_argument,	NULL, OPT_PID },
	{ "event",	required_argument,	NULL, 'e' },
	{ "start",	required_argument,	NULL, OPT_START },
	{ "end",	required_argument,	NULL, OPT_END },
	{ "summary",	no_argument,		NULL, 's' },
	{ "anomalies",	no_argument,		NULL, 'a' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "svg",	required_argument,	NULL, OPT_SVG },
	{ "svg-by",	required_argument,	NULL, OPT_SVG_BY },
	{ "svg-lanes",	required_argument,	NULL, OPT_SVG_LANES },
	{ "history",	required_argument,	NULL, OPT_HISTORY },
	{ "max-freed",	required_argument,	NULL, OPT_MAX_FREED },
	{ "top",	required_argument,	NULL, OPT_TOP },
	{ "txrec",	no_argument,		NULL, OPT_TXREC },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 },
};

/* "A[-B],C,...": ranges of numbers appended to @r. */
static void parse_ranges(const char *opt, const char *arg, struct tx_range **r, int *n)
{
	char *copy = xstrdup(arg), *p = copy, *item, *dash;
	struct tx_range range;

	while ((item = strsep(&p, ","))) {
		if (!*item)
			die_usage("--%s: empty item in '%s'", opt, arg);
		dash = strchr(item + 1, '-');
		if (dash)
			*dash = '\0';
		if (tx_parse_u64(item, &range.lo) || *item == '-')
			die_usage("--%s: '%s' is not a number", opt, item);
		range.hi = range.lo;
		if (dash && (tx_parse_u64(dash + 1, &range.hi) || dash[1] == '-'))
			die_usage("--%s: '%s' is not a number", opt, dash + 1);
		if (range.hi < range.lo)
			die_usage("--%s: range %s-%s ends before it starts", opt, item, dash + 1);
		*r = xrealloc(*r, (*n + 1) * sizeof(**r));
		(*r)[(*n)++] = range;
	}
	free(copy);
}

static long parse_count(const char *opt, const char *arg, long min, long max)
{
	uint64_t v;

	if (tx_parse_u64(arg, &v) || *arg == '-' || v < (uint64_t)min || v > (uint64_t)max)
		die_usage("--%s: '%s' is not a number from %ld to %ld", opt, arg, min, max);
	return (long)v;
}

static void parse_options(int argc, char **argv, struct tx_options *o, const char **path,
			  int *kind)
{
	struct tx_filter *f = &o->filter;
	char *copy, *p, *item;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->svg_lanes = 40;
	o->history = 64;
	o->max_freed = 1L << 20;
	o->top = 20;
	*kind = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:P:e:sajqhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			parse_ranges("pfn", optarg, &f->pfn, &f->npfn);
			break;
		case 'P':
			parse_ranges("ptr", optarg, &f->ptr, &f->nptr);
			break;
		case OPT_PID:
			copy = xstrdup(optarg);
			p = copy;
			while ((item = strsep(&p, ","))) {
				if (tx_parse_u64(item, &v) || *item == '-' || v > INT32_MAX)
					die_usage("--pid: '%s' is not a pid", item);
				f->pid = xrealloc(f->pid, (f->npid + 1) * sizeof(*f->pid));
				f->pid[f->npid++] = (int)v;
			}
			free(copy);
			break;
		case 'e':
			copy = xstrdup(optarg);
			p = copy;
			while ((item = strsep(&p, ","))) {
				if (!*item)
					die_usage("--event: empty pattern in '%s'", optarg);
				f->event = xrealloc(f->event, (f->nevent + 1) * sizeof(*f->event));
				f->event[f->nevent++] = xstrdup(item);
			}
			free(copy);
			break;
		case OPT_START:
			if (tx_parse_time(optarg, &f->start))
				die_usage("--start: '%s' is not a time (seconds, or with ns/us/ms/s)", optarg);
			f->has_start = true;
			break;
		case OPT_END:
			if (tx_parse_time(optarg, &f->end))
				die_usage("--end: '%s' is not a time (seconds, or with ns/us/ms/s)", optarg);
			f->has_end = true;
			break;
		case 's':
			o->summary = true;
			break;
		case 'a':
			o->anomalies_only = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_SVG:
			if (!*optarg)
				die_usage("--svg needs a file name");
			o->svg = optarg;
			break;
		case OPT_SVG_BY:
			if (!strcmp(optarg, "cpu"))
				o->svg_by_cpu = true;
			else if (strcmp(optarg, "object"))
				die_usage("--svg-by: '%s' is neither 'object' nor 'cpu'", optarg);
			break;
		case OPT_SVG_LANES:
			o->svg_lanes = (int)parse_count("svg-lanes", optarg, 1, 100000);
			break;
		case OPT_HISTORY:
			o->history = (int)parse_count("history", optarg, 4, 1 << 20);
			break;
		case OPT_MAX_FREED:
			o->max_freed = parse_count("max-freed", optarg, 0, 1L << 30);
			break;
		case OPT_TOP:
			o->top = (int)parse_count("top", optarg, 0, 1 << 30);
			break;
		case OPT_TXREC:
			*kind = SRC_TXREC;
			break;
		case 'h':
			usage_print(stdout);
			exit(0);
		case 'V':
			printf("txlog %s\n", TXLOG_VERSION);
			exit(0);
		case ':':
			die_usage("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				die_usage("unknown option '-%c'", optopt);
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		die_usage("no trace file given");
	if (optind + 1 < argc)
		die_usage("one trace file at a time ('%s' is extra)", argv[optind + 1]);
	*path = argv[optind];
	if (f->has_start && f->has_end && f->end < f->start)
		die_usage("--end is before --start");
	if (o->summary + o->anomalies_only + o->quiet > 1)
		die_usage("--summary, --anomalies and --quiet exclude each other");
	if (o->svg_by_cpu && !o->svg)
		die_usage("--svg-by needs --svg FILE");
}

/*
 * libtracecmd and libtraceevent trust the file they read: some corrupt
 * trace.dat files make them crash.  txlog reads such files in a child
 * process, so that a crash becomes an error message and exit status 2.
 * The child does all the work and writes the output; the parent waits.
 */
static void guard_library(const char *path)
{
	unsigned char head[16];
	int status, fd, sig;
	ssize_t n;
	pid_t pid;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;		/* the real open reports it */
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n <= 0 || !tx_dat_magic(head, n))
		return;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;		/* run unguarded */
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		return;
	}
	/* Ctrl-C reaches both; the parent waits for the child's answer. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waiting for the reader process: %s", strerror(errno));
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGABRT: case SIGFPE: case SIGILL:
		die("%s: corrupt trace-cmd file: reading it crashed libtracecmd (%s)", path,
		    strsignal(sig));
	default:
		/* SIGPIPE, SIGINT, SIGTERM, ...: end the same way */
		signal(sig, SIG_DFL);
		raise(sig);
		exit(128 + sig);
	}
}

int main(int argc, char **argv)
{
	struct tx_options opt;
	struct tx_source *src;
	struct tx_output *out;
	struct tx_model *m;
	const struct tx_stats *st;
	const char *path;
	char err[600];
	int kind, a, i, t;
	uint64_t errors = 0;
	bool hit;

	parse_options(argc, argv, &opt, &path, &kind);
	tx_type_filter = &opt.filter;
	if (kind != SRC_TXREC && strcmp(path, "-"))
		guard_library(path);
	src = tx_source_open(path, kind, err, sizeof(err));
	if (!src)
		die("%s", err);
	out = tx_output_new(src, &opt);
	m = tx_model_new(src, &opt, out);
	tx_output_begin(out);
	if (src->ops->walk(src, tx_model_event, m))
		die("%s", src->error[0] ? src->error : "cannot read the trace");
	tx_model_finish(m);
	tx_output_end(out, m);
	if (fflush(stdout) || ferror(stdout))
		die("writing the output: %s", strerror(errno));
	for (i = 0; i < opt.filter.nevent; i++) {
		for (hit = false, t = 0; t < tx_type_count() && !hit; t++)
			hit = tx_glob(opt.filter.event[i], tx_type_at(t)->name) ||
			      tx_glob(opt.filter.event[i], tx_type_at(t)->event);
		if (!hit)
			warning("--event '%s' matches no event of %s", opt.filter.event[i], src->path);
	}
	if (src->lost)
		warning("%s: the kernel lost %" PRIu64 " events: histories have gaps", src->path, src->lost);
	st = tx_model_stats(m);
	for (a = 0; a < A_ERRORS; a++)
		errors += st->anomalies[a];
	tx_model_free(m);
	tx_output_free(out);
	tx_source_close(src);
	return errors ? EXIT_ANOMALY : EXIT_CLEAN;
}
