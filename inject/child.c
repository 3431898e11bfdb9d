// SPDX-License-Identifier: GPL-2.0
/*
 * child.c: start the command under test and wait for it.
 *
 * The child marks itself with /proc/self/make-it-fail before exec, so that
 * with task-filter set only it and its descendants (make-it-fail is
 * inherited on fork) can see injected faults.  Signals are blocked around
 * fork() so that the child never runs inject's restoring signal handlers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

static void child_reset_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD };
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static int block_all(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	return sigprocmask(SIG_BLOCK, &all, old);
}

/*
 * Look @name up in PATH here, in inject, so that the marked child does not
 * make one failed execve() per PATH entry (each of which allocates, and
 * would be counted by the filters).  NULL if not found: execvp() in the
 * child then reports the error.
 */
static char *resolve_command(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, *full;
	struct stat st;

	if (strchr(name, '/'))
		return NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		full = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK)) {
			free(copy);
			return full;
		}
		free(full);
	}
	free(copy);
	return NULL;
}

/**
 * child_start() - fork and exec @cmd
 * @cmd: argv, NULL terminated; looked up in PATH
 * @make_it_fail: mark the child for task-filter before exec
 * @output_fd: if not NULL, the child's stdout and stderr go to a pipe
 *	whose reading end is returned here
 *
 * An exec failure is reported by the child itself, which exits 127 (not
 * found) or 126, like a shell.
 * Return: the child's pid, or -1 with errno set.
 */
pid_t child_start(char **cmd, bool make_it_fail, int *output_fd)
{
	int pipefd[2] = { -1, -1 };
	sigset_t old;
	char *resolved = resolve_command(cmd[0]);
	pid_t pid;

	if (output_fd && pipe2(pipefd, O_CLOEXEC)) {
		free(resolved);
		return -1;
	}
	block_all(&old);
	pid = fork();
	if (pid < 0) {
		int err = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		if (output_fd) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		free(resolved);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		child_reset_signals();
		if (output_fd) {
			dup2(pipefd[1], STDOUT_FILENO);
			dup2(pipefd[1], STDERR_FILENO);
		}
		if (make_it_fail &&
		    fault_file_write("/proc/self/make-it-fail", "1")) {
			fprintf(stderr, "%s: /proc/self/make-it-fail: %s\n",
				argv0, strerror(errno));
			_exit(126);
		}
		if (resolved)
			execv(resolved, cmd);
		else
			execvp(cmd[0], cmd);
		fprintf(stderr, "%s: cannot run '%s': %s\n", argv0, cmd[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(resolved);
	session_set_child(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (output_fd) {
		close(pipefd[1]);
		*output_fd = pipefd[0];
	}
	return pid;
}

/**
 * child_wait() - wait for the command, reading its output if captured
 * @pid: from child_start()
 * @output_fd: the pipe, or -1
 * @res: filled in; res->output is malloc()ed (NULL without a pipe)
 *
 * Return: 0, or -1 with errno set.
 */
int child_wait(pid_t pid, int output_fd, struct child_result *res)
{
	size_t size = 0;
	char buf[4096];
	siginfo_t info;
	sigset_t old;
	int ret, err;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	if (output_fd >= 0) {
		size = 4096;
		res->output = malloc(size);
		if (!res->output)
			return -1;
		for (;;) {
			n = read(output_fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			/* Keep the first 64 KiB; drain the rest. */
			if (res->output_len + n + 1 > size && size < 65536) {
				char *p = realloc(res->output, 65536);

				if (p) {
					res->output = p;
					size = 65536;
				}
			}
			if (res->output_len + n + 1 > size)
				n = size - res->output_len - 1;
			memcpy(res->output + res->output_len, buf, n);
			res->output_len += n;
		}
		res->output[res->output_len] = '\0';
		close(output_fd);
	}
	/*
	 * Wait without reaping first: until the handlers have forgotten the
	 * pid, it must not be free for reuse (they would signal its new owner).
	 */
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR)
			return -1;
	}
	session_block_signals(&old);
	session_forget_child();
	ret = waitpid(pid, &res->status, 0);
	err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		errno = err;
		return -1;
	}
	if (WIFEXITED(res->status))
		res->exit_code = WEXITSTATUS(res->status);
	else if (WIFSIGNALED(res->status))
		res->exit_code = 128 + WTERMSIG(res->status);
	else
		res->exit_code = 255;
	return 0;
}

/**
 * child_shell() - run a shell command, unmarked, and wait for it
 * @shell_cmd: for /bin/sh -c
 *
 * Return: its exit code (128+signal if killed), or -1 with errno set.
 */
int child_shell(const char *shell_cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)shell_cmd, NULL };
	struct child_result res;
	pid_t pid = child_start(argv, false, NULL);

	if (pid < 0 || child_wait(pid, -1, &res))
		return -1;
	return res.exit_code;
}
