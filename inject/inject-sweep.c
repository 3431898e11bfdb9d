// SPDX-License-Identifier: GPL-2.0
/*
 * inject sweep CAP [filters] -- CMD ARGS...: fail the 1st, 2nd, 3rd, ...
 * matching call of a fresh run of CMD, until a run sees no injection, and
 * tabulate where each failure hit, how CMD took it, and whether the kernel
 * complained.  Runs with nothing armed (times 0) before the sweep, at its
 * end and, if asked, after every Nth run tell whether a failure left
 * something behind that changes how CMD ends: the damage a sweep is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

/* How a run ended, for comparing clean runs with the baseline. */
struct outcome {
	int exit_code;
	bool signaled;
};

struct sweep_row {
	int run;
	long long skip;
	long long injected;
	char site[160];
	int exit_code;
	bool signaled;
	char *output;
	char **problems;
	int nr_problems;
	bool checked;		/* a clean run followed this one (or it was one) */
	bool check_same;	/* and ended like the baseline */
	int check_exit;		/* its exit code */
};

static void write_or_die(struct inject_session *s, const char *file, const char *value)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", s->cap.dir, file) >= (int)sizeof(path) ||
	    fault_file_write(path, value)) {
		int err = errno;

		session_restore(s);
		die("%s: cannot write '%s': %s", path, value, strerror(err));
	}
}

/* The first line of the output, for the table (its last column). */
static void first_line(const char *text, char *buf, size_t size)
{
	const char *nl;

	while (*text == '\n')
		text++;
	nl = strchr(text, '\n');
	snprintf(buf, size, "%.*s", nl ? (int)(nl - text) : (int)strlen(text), text);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(const struct inject_opts *o, const char *cap,
		       const struct sweep_row *rows, int nr, struct outcome base,
		       bool damaged, int damage_from, int damage_to)
{
	int i, j;

	printf("{\n  \"capability\": ");
	json_string(cap);
	printf(",\n  \"command\": [");
	for (i = 0; o->cmd[i]; i++) {
		printf("%s", i ? ", " : "");
		json_string(o->cmd[i]);
	}
	printf("],\n  \"baseline\": {\"exit\": %d, \"signaled\": %s},\n",
	       base.exit_code, base.signaled ? "true" : "false");
	/* The runs after one of which state changed; nulls if none is to blame. */
	if (damaged && damage_from <= damage_to)
		printf("  \"damage\": {\"first_run\": %d, \"last_run\": %d},\n",
		       damage_from, damage_to);
	else if (damaged)
		printf("  \"damage\": {\"first_run\": null, \"last_run\": null},\n");
	else
		printf("  \"damage\": null,\n");
	printf("  \"runs\": [\n");
	for (i = 0; i < nr; i++) {
		const struct sweep_row *r = &rows[i];

		printf("    {\"run\": %d, \"skip\": %lld, \"injected\": %lld, \"site\": ",
		       r->run, r->skip, r->injected);
		if (r->injected)
			json_string(r->site);
		else
			printf("null");
		printf(", \"exit\": %d, \"signaled\": %s, \"check\": ",
		       r->exit_code, r->signaled ? "true" : "false");
		if (r->checked)
			printf("{\"exit\": %d, \"same\": %s}", r->check_exit,
			       r->check_same ? "true" : "false");
		else
			printf("null");
		printf(", \"kernel\": [");
		for (j = 0; j < r->nr_problems; j++) {
			printf("%s", j ? ", " : "");
			json_string(r->problems[j]);
		}
		printf("], \"output\": ");
		json_string(r->output);
		printf("}%s\n", i + 1 < nr ? "," : "");
	}
	printf("  ]\n}\n");
}

/* The check column: how the clean run after this one compared. */
static const char *check_text(const struct sweep_row *r)
{
	if (!r->checked)
		return "-";
	return r->check_same ? "ok" : "CHANGED";
}

static void print_table(const struct sweep_row *rows, int nr)
{
	int i, w = 4;

	for (i = 0; i < nr; i++)
		if ((int)strlen(rows[i].site) > w)
			w = strlen(rows[i].site);
	printf("%4s %5s %-8s %-4s %-6s %-7s %-*s %s\n", "run", "skip", "injected",
	       "exit", "kernel", "check", w, "site", "output");
	for (i = 0; i < nr; i++) {
		const struct sweep_row *r = &rows[i];
		char out[256], exit_text[16];

		first_line(r->output ? r->output : "", out, sizeof(out));
		snprintf(exit_text, sizeof(exit_text), "%d", r->exit_code);
		printf("%4d %5lld %-8s %-4s %-6s %-7s %-*s %s\n", r->run, r->skip,
		       r->injected ? "yes" : "no", exit_text,
		       r->nr_problems ? "REPORT" : "-", check_text(r), w,
		       r->injected ? r->site : "-", out);
	}
	for (i = 0; i < nr; i++) {
		int j;

		for (j = 0; j < rows[i].nr_problems; j++)
			printf("run %d: kernel: %s\n", rows[i].run, rows[i].problems[j]);
	}
}

/*
 * A clean run ended unlike the baseline: name the runs after which that
 * began, and their sites (exactly one with --find-damage).
 */
static void report_damage(const struct sweep_row *rows, struct outcome base,
			  struct outcome now, int from, int to)
{
	int i;

	if (from > to) {
		/* Nothing was injected since the last clean run that matched. */
		if (!to)
			fprintf(stderr, "%s: run 1, with nothing injected, exited %d, the clean "
				"run before it %d: CMD changes its own state (see --setup and "
				"--cleanup), or its outcome varies\n", argv0, now.exit_code,
				base.exit_code);
		else
			fprintf(stderr, "%s: the last run, with nothing injected, exited %d, the "
				"baseline %d, and the clean run after run %d ended like the "
				"baseline: CMD's outcome varies by itself\n", argv0,
				now.exit_code, base.exit_code, to);
		return;
	}
	if (from == to)
		fprintf(stderr, "%s: state damaged after run %d (site %s): ", argv0, to,
			rows[to - 1].site);
	else
		fprintf(stderr, "%s: state damaged after one of runs %d-%d (sites", argv0, from, to);
	for (i = from; from != to && i <= to; i++)
		fprintf(stderr, " %s", rows[i - 1].site);
	fprintf(stderr, "%sa clean run now exits %d, before the sweep it exited %d (a failure "
		"left something behind, or CMD's own side effects did: see --setup and "
		"--cleanup%s)\n", from == to ? "" : "): ", now.exit_code, base.exit_code,
		from == to ? "" : "; --find-damage names the run");
}

/*
 * --setup or --cleanup, with nothing armed to fail.  Its status is not
 * looked at: undoing what a failed run never did fails too (umount).
 */
static void around(const char *shell_cmd, const char *opt)
{
	if (shell_cmd && child_shell(shell_cmd) < 0)
		warning("%s: %s", opt, strerror(errno));
}

/* Run CMD (marked for the task filter when asked) and wait for it. */
static void run_cmd(struct inject_session *s, const struct inject_opts *o,
		    struct child_result *res)
{
	int outfd;
	pid_t pid = child_start(o->cmd, o->task_only > 0, &outfd);

	if (pid < 0 || child_wait(pid, outfd, res)) {
		int err = errno;

		session_restore(s);
		die("sweep: cannot run '%s': %s", o->cmd[0], strerror(err));
	}
}

/*
 * A clean run: CMD between --setup and --cleanup with times 0, so that
 * nothing fails however the filters match; marked like the swept runs.
 */
static struct outcome clean_run(struct inject_session *s, const struct inject_opts *o)
{
	struct child_result res;
	struct outcome out;

	write_or_die(s, "times", "0");
	around(o->setup, "--setup");
	run_cmd(s, o, &res);
	around(o->cleanup, "--cleanup");
	free(res.output);
	out.exit_code = res.exit_code;
	out.signaled = WIFSIGNALED(res.status);
	return out;
}

static bool same_outcome(struct outcome a, struct outcome b)
{
	return a.exit_code == b.exit_code && a.signaled == b.signaled;
}

/* Note on @r the clean run @now after it; true if it ended like @base. */
static bool record_check(struct sweep_row *r, struct outcome now, struct outcome base)
{
	r->checked = true;
	r->check_exit = now.exit_code;
	r->check_same = same_outcome(now, base);
	return r->check_same;
}

/* Run n: fail the n-th matching call of CMD; fill @r. */
static void swept_run(struct inject_session *s, const struct inject_opts *o,
		      struct trace_session *trace, int n, struct sweep_row *r)
{
	struct trace_hit *hits = NULL;
	struct child_result res;
	int nr_hits = 0, kmsg;
	char skip[32];

	r->run = n;
	r->skip = n - 1;
	around(o->setup, "--setup");
	/* Consume anything left over, so this run's events are its own. */
	if (trace && !trace_collect(trace, &hits, &nr_hits))
		trace_hits_free(hits, nr_hits);
	snprintf(skip, sizeof(skip), "%lld", r->skip);
	write_or_die(s, "skip", skip);
	write_or_die(s, "calls", "0");
	write_or_die(s, "times", "1");
	kmsg = kmsg_open_at_end();
	run_cmd(s, o, &res);
	/* Nothing fails from here on: not --cleanup, not a leftover child. */
	write_or_die(s, "times", "0");
	r->exit_code = res.exit_code;
	r->signaled = WIFSIGNALED(res.status);
	r->output = res.output;
	if (fault_cap_read_long(&s->cap, "injected", &r->injected)) {
		int err = errno;

		session_restore(s);
		die("%s/injected: %s", s->cap.dir, strerror(err));
	}
	around(o->cleanup, "--cleanup");
	hits = NULL;
	nr_hits = 0;
	if (trace)
		trace_collect(trace, &hits, &nr_hits);
	if (nr_hits)
		snprintf(r->site, sizeof(r->site), "%s", hits[0].site);
	else if (r->injected)
		snprintf(r->site, sizeof(r->site), "?");
	trace_hits_free(hits, nr_hits);
	/* Reports logged by --cleanup count: an injected failure may cause them. */
	if (kmsg >= 0) {
		kmsg_problems(kmsg, &r->problems, &r->nr_problems);
		close(kmsg);
	}
}

int cmd_sweep(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	struct trace_session *trace;
	struct sweep_row *rows;
	struct inject_opts o;
	struct outcome base, now = { 0, false };
	int n, i, nr = 0, failed = 0, reports = 0, injections = 0, sites = 0;
	int last_good = 0, damage_from = 0, damage_to = 0;
	bool clean = false, damaged = false;

	opts_parse("sweep", argc, argv, OPTS_ARM | OPTS_CMD | OPTS_SWEEP, &o);
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("sweep", o.cap, &s->cap);
	refuse_located_cap("sweep", &s->cap);
	o.skip = "0";
	o.times = "0";
	opts_build_plan(&o, &s->cap, &s->arm);
	rows = xcalloc(o.max_runs, sizeof(*rows));

	trace = trace_open_guarded(s->cap.name, false);
	if (!trace)
		warning("no injection sites: cannot trace fault_inject:fault_inject (%s)",
			strerror(errno));
	session_arm(s);

	base = clean_run(s, &o);
	for (n = 1; n <= o.max_runs; n++) {
		struct sweep_row *r = &rows[nr++];

		swept_run(s, &o, trace, n, r);
		if (!r->injected) {
			/* The sweep's end, and a clean run itself. */
			clean = true;
			now.exit_code = r->exit_code;
			now.signaled = r->signaled;
			if (!record_check(r, now, base)) {
				damaged = true;
				damage_from = last_good + 1;
				damage_to = n - 1;
			}
			break;
		}
		if ((o.check_every && n % o.check_every == 0) || n == o.max_runs) {
			now = clean_run(s, &o);
			if (!record_check(r, now, base)) {
				damaged = true;
				damage_from = last_good + 1;
				damage_to = n;
				break;
			}
			last_good = n;
		}
	}
	session_restore(s);
	trace_close(trace);

	for (i = 0; i < nr; i++) {
		int j;

		if (rows[i].injected) {
			injections++;
			for (j = 0; j < i; j++)
				if (rows[j].injected && !strcmp(rows[j].site, rows[i].site))
					break;
			sites += j == i;
		}
		failed += rows[i].exit_code != 0;
		reports += rows[i].nr_problems > 0;
	}
	if (o.json)
		print_json(&o, s->cap.name, rows, nr, base, damaged, damage_from, damage_to);
	else
		print_table(rows, nr);
	fprintf(stderr, "%s: sweep of %s: %d runs, %d with an injection at %d distinct sites, "
		"%d exited non-zero, %d with kernel reports%s\n", argv0, s->cap.name, nr,
		injections, sites, failed, reports,
		damaged && !clean ? " (stopped: a clean run changed)" :
		clean ? "" : " (stopped by --max before a clean run)");
	if (damaged)
		report_damage(rows, base, now, damage_from, damage_to);

	for (i = 0; i < nr; i++) {
		int j;

		for (j = 0; j < rows[i].nr_problems; j++)
			free(rows[i].problems[j]);
		free(rows[i].problems);
		free(rows[i].output);
	}
	free(rows);
	fault_plan_free(&s->arm);
	fault_plan_free(&s->restore);
	free(s);
	return reports || damaged ? 1 : 0;
}
