// SPDX-License-Identifier: GPL-2.0
/*
 * inject sweep CAP [filters] -- CMD ARGS...: fail the 1st, 2nd, 3rd, ...
 * matching call of a fresh run of CMD, until a run sees no injection, and
 * tabulate where each failure hit, how CMD took it, and whether the kernel
 * complained.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

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
		       const struct sweep_row *rows, int nr)
{
	int i, j;

	printf("{\n  \"capability\": ");
	json_string(cap);
	printf(",\n  \"command\": [");
	for (i = 0; o->cmd[i]; i++) {
		printf("%s", i ? ", " : "");
		json_string(o->cmd[i]);
	}
	printf("],\n  \"runs\": [\n");
	for (i = 0; i < nr; i++) {
		const struct sweep_row *r = &rows[i];

		printf("    {\"run\": %d, \"skip\": %lld, \"injected\": %lld, \"site\": ",
		       r->run, r->skip, r->injected);
		if (r->injected)
			json_string(r->site);
		else
			printf("null");
		printf(", \"exit\": %d, \"signaled\": %s, \"kernel\": [",
		       r->exit_code, r->signaled ? "true" : "false");
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

static void print_table(const struct sweep_row *rows, int nr)
{
	int i, w = 4;

	for (i = 0; i < nr; i++)
		if ((int)strlen(rows[i].site) > w)
			w = strlen(rows[i].site);
	printf("%4s %5s %-8s %-4s %-6s %-*s %s\n", "run", "skip", "injected",
	       "exit", "kernel", w, "site", "output");
	for (i = 0; i < nr; i++) {
		const struct sweep_row *r = &rows[i];
		char out[256], exit_text[16];

		first_line(r->output ? r->output : "", out, sizeof(out));
		snprintf(exit_text, sizeof(exit_text), "%d", r->exit_code);
		printf("%4d %5lld %-8s %-4s %-6s %-*s %s\n", r->run, r->skip,
		       r->injected ? "yes" : "no", exit_text,
		       r->nr_problems ? "REPORT" : "-", w,
		       r->injected ? r->site : "-", out);
	}
	for (i = 0; i < nr; i++) {
		int j;

		for (j = 0; j < rows[i].nr_problems; j++)
			printf("run %d: kernel: %s\n", rows[i].run, rows[i].problems[j]);
	}
}

int cmd_sweep(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	struct trace_session *trace;
	struct sweep_row *rows;
	struct inject_opts o;
	int n, i, nr = 0, failed = 0, reports = 0, injections = 0, sites = 0;
	bool clean = false;

	opts_parse("sweep", argc, argv, OPTS_ARM | OPTS_CMD | OPTS_SWEEP, &o);
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("sweep", o.cap, &s->cap);
	if (fault_cap_has(&s->cap, "inject"))
		die_usage("sweep: %s needs a function; sweep works on the other capabilities",
			  s->cap.name);
	o.skip = "0";
	o.times = "1";
	opts_build_plan(&o, &s->cap, &s->arm);
	rows = xcalloc(o.max_runs, sizeof(*rows));

	trace = trace_open_guarded(s->cap.name, false);
	if (!trace)
		warning("no injection sites: cannot trace fault_inject:fault_inject (%s)",
			strerror(errno));
	session_arm(s);

	for (n = 1; n <= o.max_runs; n++) {
		struct sweep_row *r = &rows[nr++];
		struct trace_hit *hits = NULL;
		struct child_result res;
		int nr_hits = 0, kmsg, outfd;
		char skip[32];
		pid_t pid;

		r->run = n;
		r->skip = n - 1;
		if (o.before && child_shell(o.before) < 0)
			warning("--before: %s", strerror(errno));
		/* Consume anything left over, so this run's events are its own. */
		if (trace && !trace_collect(trace, &hits, &nr_hits))
			trace_hits_free(hits, nr_hits);
		snprintf(skip, sizeof(skip), "%lld", r->skip);
		write_or_die(s, "skip", skip);
		write_or_die(s, "times", "1");
		write_or_die(s, "calls", "0");
		kmsg = kmsg_open_at_end();
		pid = child_start(o.cmd, o.task_only > 0, &outfd);
		if (pid < 0 || child_wait(pid, outfd, &res)) {
			int err = errno;

			session_restore(s);
			die("sweep: cannot run '%s': %s", o.cmd[0], strerror(err));
		}
		r->exit_code = res.exit_code;
		r->signaled = WIFSIGNALED(res.status);
		r->output = res.output;
		if (fault_cap_read_long(&s->cap, "injected", &r->injected)) {
			int err = errno;

			session_restore(s);
			die("%s/injected: %s", s->cap.dir, strerror(err));
		}
		hits = NULL;
		nr_hits = 0;
		if (trace)
			trace_collect(trace, &hits, &nr_hits);
		if (nr_hits)
			snprintf(r->site, sizeof(r->site), "%s", hits[0].site);
		else if (r->injected)
			snprintf(r->site, sizeof(r->site), "?");
		trace_hits_free(hits, nr_hits);
		if (kmsg >= 0) {
			kmsg_problems(kmsg, &r->problems, &r->nr_problems);
			close(kmsg);
		}
		if (!r->injected) {
			clean = true;
			break;
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
		print_json(&o, s->cap.name, rows, nr);
	else
		print_table(rows, nr);
	fprintf(stderr, "%s: sweep of %s: %d runs, %d with an injection at %d distinct sites, "
		"%d exited non-zero, %d with kernel reports%s\n", argv0, s->cap.name, nr,
		injections, sites, failed, reports,
		clean ? "" : " (stopped by --max before a clean run)");

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
	return reports ? 1 : 0;
}
