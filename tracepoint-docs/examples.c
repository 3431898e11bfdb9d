// SPDX-License-Identifier: GPL-2.0
/*
 * examples.c: capture one real line per event.  The events of a system are
 * enabled in a tracefs instance of our own, the system's workloads run, and
 * trace_pipe is read while they run; each event is switched off as soon as
 * its first line is kept, so a flood of one event cannot crowd out a rare
 * one.  The instance is removed afterwards, also on SIGINT/SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "tpdoc.h"

#define INSTANCE	"tpdoc-examples"

static struct tracefs_instance *instance;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * "  comm-pid  [cpu] flags  stamp: event: text": the event name, or NULL.
 * @name must hold 64 bytes.
 */
static const char *line_event(const char *line, char *name)
{
	const char *p = strstr(line, "] ");
	size_t len;

	if (!p)
		return NULL;
	p = strstr(p, ": ");
	if (!p)
		return NULL;
	p += 2;
	len = strcspn(p, ": ");
	if (!len || len >= 64 || p[len] != ':')
		return NULL;
	memcpy(name, p, len);
	name[len] = '\0';
	return name;
}

struct capture {
	struct ksystem *sys;
	int missing;		/* enabled events without an example yet */
	char part[4096];	/* an incomplete line from the last read */
	size_t partlen;
};

static void take_line(struct capture *c, char *line)
{
	char name[64];
	struct kevent *e;

	if (!line_event(line, name))
		return;
	e = knowledge_event(c->sys, name);
	if (!e || e->example)
		return;
	while (*line == ' ')
		line++;
	e->example = xstrdup(line);
	c->missing--;
	tracefs_event_disable(instance, c->sys->name, name);
}

static void take_text(struct capture *c, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (c->partlen < sizeof(c->part) - 1)
				c->part[c->partlen++] = buf[i];
			continue;
		}
		c->part[c->partlen] = '\0';
		take_line(c, c->part);
		c->partlen = 0;
	}
}

/* Read what trace_pipe has now; returns bytes read (0: nothing there). */
static ssize_t drain(int fd, struct capture *c, int wait_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[65536];
	ssize_t n, total = 0;

	if (poll(&pfd, 1, wait_ms) <= 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		take_text(c, buf, n);
		total += n;
	}
	return total;
}

static void write_oom_score_adj(const char *value)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, value, strlen(value)) < 0)
		warning("/proc/self/oom_score_adj: %s", strerror(errno));
	close(fd);
}

/* Run one workload with sh -c in its own process group, reading meanwhile. */
static int run_workload(const char *cmd, int fd, struct capture *c, int timeout,
			bool verbose)
{
	double deadline = now() + timeout;
	int status = 0;
	pid_t pid;

	if (verbose)
		fprintf(stderr, "%s: %s: running: %s\n", argv0, c->sys->name, cmd);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		char self[PATH_MAX], *slash, *path;
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		setpgid(0, 0);
		/* tpdoc protects itself from the OOM killer; workloads must not. */
		write_oom_score_adj("0");
		/* mmload is built next to tpdoc: workloads find it on PATH. */
		if (n > 0) {
			self[n] = '\0';
			slash = strrchr(self, '/');
			if (slash)
				*slash = '\0';
			path = xasprintf("%s:%s", self, getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin");
			setenv("PATH", path, 1);
		}
		close(fd);
		if (!verbose) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, STDOUT_FILENO);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (stop || now() > deadline) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			warning("%s: workload %s, killed: %s", c->sys->name,
				stop ? "interrupted" : "timed out", cmd);
			break;
		}
		drain(fd, c, 100);
	}
	kill(-pid, SIGKILL);	/* whatever it left running in the background */
	if (WIFEXITED(status) && WEXITSTATUS(status))
		warning("%s: workload exited %d: %s", c->sys->name, WEXITSTATUS(status), cmd);
	/* What was recorded just before the end is still in the buffer. */
	while (drain(fd, c, 300) > 0)
		;
	return 0;
}

/**
 * examples_capture - one line per event of @s from its workloads
 * @s: the system; each kevent's example is set when its event fired
 * @timeout: seconds each workload may run
 * @verbose: show the workloads' output and what runs
 *
 * Events listed with 'skip' are not enabled.  Returns the number of
 * documented events that did not fire (their example stays NULL).
 */
int examples_capture(struct ksystem *s, int timeout, bool verbose)
{
	struct capture c = { .sys = s };
	struct sigaction sa = { .sa_handler = on_signal };
	int fd, i;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Some workloads exhaust memory on purpose. */
	write_oom_score_adj("-1000");
	instance = tracefs_instance_create(INSTANCE);
	if (!instance)
		die("cannot create the tracefs instance '%s': %s", INSTANCE, strerror(errno));
	tracefs_trace_off(instance);
	tracefs_event_disable(instance, NULL, NULL);
	tracefs_instance_set_buffer_size(instance, 2048, -1);
	for (i = 0; i < s->nr_events; i++) {
		if (s->events[i].example)
			continue;
		if (tracefs_event_enable(instance, s->name, s->events[i].name)) {
			warning("%s:%s: cannot enable it: %s", s->name, s->events[i].name,
				strerror(errno));
			continue;
		}
		c.missing++;
	}
	fd = tracefs_instance_file_open(instance, "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		tracefs_instance_destroy(instance);
		die("%s/trace_pipe: %s", INSTANCE, strerror(errno));
	}
	tracefs_trace_on(instance);
	for (i = 0; i < s->workloads.n && c.missing > 0 && !stop; i++)
		run_workload(s->workloads.v[i], fd, &c, timeout, verbose);
	tracefs_trace_off(instance);
	tracefs_event_disable(instance, NULL, NULL);
	close(fd);
	tracefs_instance_destroy(instance);
	tracefs_instance_free(instance);
	instance = NULL;
	if (stop)
		die("interrupted (signal %d); the instance %s was removed", (int)stop, INSTANCE);
	return c.missing;
}

/*
 * The examples file: "system:event<TAB>line" per event.  Lines of events
 * that were not captured are absent.
 */
int examples_save(const char *path, struct knowledge *k)
{
	FILE *f = fopen(path, "w");
	int i, j;

	if (!f)
		return -1;
	for (i = 0; i < k->nr_systems; i++)
		for (j = 0; j < k->systems[i].nr_events; j++)
			if (k->systems[i].events[j].example)
				fprintf(f, "%s:%s\t%s\n", k->systems[i].name,
					k->systems[i].events[j].name,
					k->systems[i].events[j].example);
	return fclose(f);
}

int examples_load(const char *path, struct knowledge *k)
{
	char *buf = read_file(path, NULL);
	char *line, *next;

	if (!buf)
		return -1;
	for (line = buf; line && *line; line = next) {
		char *tab, *colon;
		struct ksystem *s;
		struct kevent *e;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		tab = strchr(line, '\t');
		colon = strchr(line, ':');
		if (!tab || !colon || colon > tab)
			continue;
		*tab = *colon = '\0';
		s = knowledge_system(k, line);
		e = s ? knowledge_event(s, colon + 1) : NULL;
		if (e && !e->example)
			e->example = xstrdup(tab + 1);
	}
	free(buf);
	return 0;
}
