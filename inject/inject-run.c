// SPDX-License-Identifier: GPL-2.0
/*
 * inject run CAP [options] -- CMD ARGS...: arm CAP for one command, report
 * what was injected and where, restore, exit like CMD.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

static const char *gfp_text(unsigned long gfp, char *buf, size_t size)
{
	if (!gfp)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%#lx", gfp);
	return buf;
}

/**
 * run_armed() - arm s->arm, run o->cmd, report, restore
 * @s: cap and arm plan filled in
 * @o: the options (cmd, task_only, stacks, quiet)
 *
 * Return: the command's exit code, 128+signal if it was killed.
 */
int run_armed(struct inject_session *s, struct inject_opts *o)
{
	long long calls = -1, matched = -1, injected = -1, clamped = -1;
	struct trace_session *trace;
	char how[96] = "";
	struct trace_hit *hits = NULL;
	struct child_result res;
	char **problems = NULL;
	int nr_hits = 0, nr_problems = 0, kmsg, i, j;
	char *sites;
	pid_t pid;

	trace = trace_open_guarded(s->cap.name, o->stacks);
	if (!trace)
		warning("no injection sites: cannot trace fault_inject:fault_inject (%s)",
			strerror(errno));
	kmsg = kmsg_open_at_end();

	session_arm(s);
	pid = child_start(o->cmd, o->task_only > 0, NULL);
	if (pid < 0) {
		int err = errno;

		session_restore(s);
		die("cannot start '%s': %s", o->cmd[0], strerror(err));
	}
	if (child_wait(pid, -1, &res)) {
		int err = errno;

		session_restore(s);
		die("waiting for '%s': %s", o->cmd[0], strerror(err));
	}
	fault_cap_read_long(&s->cap, "calls", &calls);
	fault_cap_read_long(&s->cap, "matched", &matched);
	fault_cap_read_long(&s->cap, "injected", &injected);
	if (o->delay_us && fault_cap_read_long(&s->cap, "clamped", &clamped))
		clamped = -1;
	session_restore(s);

	if (trace && trace_collect(trace, &hits, &nr_hits))
		warning("reading %s: %s", trace_dir(trace), strerror(errno));
	trace_close(trace);
	if (kmsg >= 0) {
		kmsg_problems(kmsg, &problems, &nr_problems);
		close(kmsg);
	}

	if (!o->quiet) {
		sites = trace ? trace_sites_summary(hits, nr_hits) : NULL;
		if (o->delay_us && clamped > 0)
			snprintf(how, sizeof(how), " (delays of %s us, %lld cut to the busy-wait cap)",
				 o->delay_us, clamped);
		else if (o->delay_us)
			snprintf(how, sizeof(how), " (delays of %s us)", o->delay_us);
		fprintf(stderr, "%s: %s: calls=%lld matched=%lld injected=%lld%s; sites: %s\n",
			argv0, s->cap.name, calls, matched, injected, how,
			sites ? sites : "unknown");
		free(sites);
	}
	if (o->stacks) {
		for (i = 0; i < nr_hits; i++) {
			char gfp[32];

			fprintf(stderr, "%s: #%d %s pid %d (%s) size %ld gfp %s at %s\n",
				argv0, i + 1, hits[i].action ? "delay" : "fail",
				hits[i].pid, hits[i].comm, hits[i].size,
				gfp_text(hits[i].gfp, gfp, sizeof(gfp)), hits[i].site);
			for (j = 0; j < hits[i].nr_stack; j++)
				fprintf(stderr, "    %s\n", hits[i].stack[j]);
		}
	}
	for (i = 0; i < nr_problems; i++) {
		fprintf(stderr, "%s: kernel: %s\n", argv0, problems[i]);
		free(problems[i]);
	}
	free(problems);
	trace_hits_free(hits, nr_hits);
	return res.exit_code;
}

/**
 * run_session() - run_armed(), then free @s and its plans
 * @s: the session, xcalloc()ed, with its arm plan built
 * @o: the options
 *
 * Return: what run_armed() returns.
 */
int run_session(struct inject_session *s, struct inject_opts *o)
{
	int ret = run_armed(s, o);

	fault_plan_free(&s->arm);
	fault_plan_free(&s->restore);
	free(s);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	struct inject_opts o;

	opts_parse("run", argc, argv, OPTS_ARM | OPTS_CMD, &o);
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("run", o.cap, &s->cap);
	refuse_located_cap("run", &s->cap);
	opts_build_plan(&o, &s->cap, &s->arm);
	return run_session(s, &o);
}
