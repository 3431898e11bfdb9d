// SPDX-License-Identifier: GPL-2.0
/*
 * session.c: arm a capability and always put it back.
 *
 * main() takes SIGINT/SIGTERM/SIGHUP over before anything else, so that
 * inject dies of such a signal at any point of its life.  The previous
 * values of every file a plan touches are read with those signals blocked,
 * kept in memory and written to /run/inject/<CAP>.saved (so that 'inject
 * reset --restore' can recover after a SIGKILL of inject).  A handler
 * restores the settings (once something is armed), stops the command,
 * removes the tracefs instance and then dies of the same signal.  A signal
 * that arrives while they are blocked stays pending and is delivered when
 * they are unblocked, also on the way out through die().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject.h"

static struct inject_session *active;
static volatile sig_atomic_t restored;
static volatile pid_t child_pid;
static char trace_path[PATH_MAX];

static const int handled[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_HANDLED (int)(sizeof(handled) / sizeof(handled[0]))

static void handled_set(sigset_t *set)
{
	int i;

	sigemptyset(set);
	for (i = 0; i < NR_HANDLED; i++)
		sigaddset(set, handled[i]);
}

static void block_handled(sigset_t *old)
{
	sigset_t set;

	handled_set(&set);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Async-signal-safe from here to the end of on_signal(). */
static void on_signal(int sig)
{
	sigset_t set;

	if (active && !restored) {
		if (fault_plan_apply(&active->restore) == 0 && active->saved_path[0])
			unlink(active->saved_path);
		restored = 1;
	}
	if (child_pid > 0)
		kill(child_pid, sig);
	if (trace_path[0])
		rmdir(trace_path);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/**
 * session_catch_signals() - catch SIGINT, SIGTERM and SIGHUP from now on
 *
 * Called first thing in main().  A shell starts a background command with
 * SIGINT (and SIGQUIT) ignored, and the kernel discards a signal that is
 * ignored when it is sent: if inject left the inherited disposition alone
 * until it arms, an early 'kill -INT' would be lost and the command would
 * run to its end.  The signals are also unblocked, in case the parent left
 * them blocked.  Until session_arm() has something to restore, a handler
 * only removes the tracefs instance (if any) and dies of the signal.
 */
void session_catch_signals(void)
{
	struct sigaction sa;
	sigset_t set;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < NR_HANDLED; i++)
		sigaction(handled[i], &sa, NULL);
	handled_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/**
 * session_exit() - exit(), but die of a signal that is pending
 * @code: the exit status
 *
 * die() can be called while the signals are blocked (in session_arm());
 * unblocking them first delivers a signal that arrived meanwhile, whose
 * handler restores (if anything is armed) and dies of it, so that inject
 * exits with 128+N whenever it got signal N.
 */
void session_exit(int code)
{
	sigset_t set;

	handled_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	exit(code);
}

void session_block_signals(sigset_t *old)
{
	block_handled(old);
}

void session_set_child(pid_t pid)
{
	child_pid = pid;
}

void session_forget_child(void)
{
	child_pid = 0;
}

void session_set_trace_dir(const char *dir)
{
	snprintf(trace_path, sizeof(trace_path), "%s", dir ? dir : "");
}

int saved_path_of(const struct fault_cap *cap, char *buf, size_t size)
{
	char name[sizeof(cap->name)], *p;

	snprintf(name, sizeof(name), "%s", cap->name);
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '%';
	return snprintf(buf, size, INJECT_RUN_DIR "/%s.saved", name);
}

static bool pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Say what the kernel did not like, from the file's documented rules. */
static const char *refusal_hint(const char *file, int err)
{
	if (!strcmp(file, "caller") || !strcmp(file, "reject-caller"))
		return "every entry must name a kernel function (see /proc/kallsyms), at most 16 names for 32 functions";
	if (!strcmp(file, "gfp-require") || !strcmp(file, "gfp-reject"))
		return "unknown flag name, bits outside the gfp mask, or a flag in both gfp-require and gfp-reject";
	if (!strcmp(file, "comm"))
		return "names are at most 15 characters";
	if (!strcmp(file, "points") && err == ENOSPC)
		return "64 delay points are listed already";
	if (!strcmp(file, "points"))
		return "no such function, a name several functions share (name the module if one is in a module; static namesakes in vmlinux cannot be told apart), an offset outside the function or inside an instruction, or a place kprobes may not probe";
	if (!strcmp(file, "while-in"))
		return "no such function, a name several functions share (name the module as MODULE:FUNC if it is in one), or a function kprobes may not probe";
	if (!strcmp(file, "inject") && err == ERANGE)
		return "not in the error injection list (see injectable)";
	if (!strcmp(file, "inject") && err == EBUSY)
		return "already injected";
	if (strstr(file, "retval"))
		return "the value does not fit the function's error type";
	if (!strcmp(file, "min-order") || !strcmp(file, "max-order"))
		return "orders must satisfy min-order <= max-order < MAX_ORDER";
	if (!strcmp(file, "min-size") || !strcmp(file, "max-size"))
		return "min-size must not exceed a non-zero max-size";
	return NULL;
}

/* The kernel log from just before session_arm() applied its plan, or -1. */
static int arm_kmsg = -1;

/*
 * Print what the kernel logged about a refused write to @path: the lines of
 * the capability (its directory's name, as pr_fmt() prefixes them) and of
 * the fault-injection core.
 */
static void print_refusal_log(const char *path)
{
	char cap[128], prefix[140], **lines;
	const char *wanted[] = { prefix, "FAULT_INJECTION: ", NULL };
	const char *end = strrchr(path, '/'), *start;
	int i, nr;

	if (arm_kmsg < 0 || !end)
		return;
	for (start = end; start > path && start[-1] != '/'; start--)
		;
	snprintf(cap, sizeof(cap), "%.*s", (int)(end - start), start);
	snprintf(prefix, sizeof(prefix), "%s: ", cap);
	if (kmsg_matching(arm_kmsg, wanted, true, &lines, &nr))
		return;
	/* Writes are retried, so the kernel may have said the same thrice. */
	for (i = 0; i < nr; i++) {
		int j;

		for (j = 0; j < i && strcmp(lines[j], lines[i]); j++)
			;
		if (j == i)
			fprintf(stderr, "%s: kernel: %s\n", argv0, lines[i]);
	}
	for (i = 0; i < nr; i++)
		free(lines[i]);
	free(lines);
}

/*
 * Report a write that failed and exit: 2 if the kernel refused the value
 * (EINVAL, ERANGE, EBUSY, ENOSPC), 1 for anything else.
 */
void report_write_error(const struct fault_plan *plan)
{
	const struct fault_write *w = &plan->w[plan->failed];
	const char *file = strrchr(w->path, '/');
	int err = plan->failed_errno;
	const char *hint;

	file = file ? file + 1 : w->path;
	if (strstr(w->path, "/retval"))
		file = "retval";
	hint = refusal_hint(file, err);
	if (err == ENOENT)
		die("%s: missing (%s): this kernel does not support it", w->path,
		    errno_name(err));
	if (err == EINVAL || err == ERANGE || err == EBUSY || err == ENOSPC) {
		fprintf(stderr, "%s: %s: kernel refused '%s' (%s)%s%s; previous settings restored\n",
			argv0, w->path, w->value, errno_name(err),
			hint ? ": " : "", hint ? hint : "");
		print_refusal_log(w->path);
		session_exit(EXIT_USAGE);
	}
	die("%s: cannot write '%s': %s (%s)", w->path, w->value, strerror(err),
	    errno_name(err));
}

/**
 * session_arm() - save the state s->arm will change, then apply s->arm
 * @s: cap and arm filled in; s->persistent for 'inject arm' (no
 *	restore when inject exits, no saved file)
 *
 * Exits with a message when the capability is in use, when saving fails,
 * or when the kernel refuses a value (after restoring what was written).
 */
void session_arm(struct inject_session *s)
{
	sigset_t old;

	block_handled(&old);
	s->saved_path[0] = '\0';
	if (!s->persistent) {
		char dir[PATH_MAX];
		struct fault_plan other;
		pid_t owner = 0;

		saved_path_of(&s->cap, s->saved_path, sizeof(s->saved_path));
		if (access(s->saved_path, F_OK) == 0) {
			if (fault_plan_load(&other, s->saved_path, &owner, dir, sizeof(dir)) == 0)
				fault_plan_free(&other);
			if (pid_alive(owner))
				die_usage("%s is in use by inject (pid %d, see %s)",
					  s->cap.name, (int)owner, s->saved_path);
			die_usage("%s holds the settings of an inject that was killed "
				  "(pid %d): run 'inject reset --restore %s' first",
				  s->saved_path, (int)owner, s->cap.name);
		}
	}
	if (fault_plan_save(&s->arm, &s->cap, &s->restore))
		die("%s: cannot read the current settings: %s", s->cap.dir, strerror(errno));
	if (!s->persistent && fault_plan_store(&s->restore, &s->cap, s->saved_path))
		die("%s: cannot save the current settings: %s", s->saved_path,
		    strerror(errno));

	restored = 0;
	active = s;
	sigprocmask(SIG_SETMASK, &old, NULL);

	/* A refused write's reason is in the kernel log, when it gives one. */
	arm_kmsg = kmsg_open_at_end();
	if (fault_plan_apply(&s->arm)) {
		session_restore(s);
		report_write_error(&s->arm);
	}
	if (arm_kmsg >= 0)
		close(arm_kmsg);
	arm_kmsg = -1;
	if (s->persistent) {
		block_handled(&old);
		active = NULL;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

/**
 * session_restore() - put back what session_arm() changed (once)
 * @s: the session
 *
 * If a write fails the saved file is kept, so that 'inject reset --restore'
 * can try again, and a warning is printed.
 */
void session_restore(struct inject_session *s)
{
	sigset_t old;

	block_handled(&old);
	if (active == s && !restored) {
		if (fault_plan_apply(&s->restore)) {
			const struct fault_write *w = &s->restore.w[s->restore.failed];

			warning("%s: cannot restore '%s': %s%s%s", w->path, w->value,
				strerror(s->restore.failed_errno),
				s->saved_path[0] ? "; saved settings kept in " : "",
				s->saved_path);
		} else if (s->saved_path[0]) {
			unlink(s->saved_path);
		}
		restored = 1;
	}
	active = NULL;
	sigprocmask(SIG_SETMASK, &old, NULL);
}
