// SPDX-License-Identifier: GPL-2.0
/*
 * smaps-rollup-reader: read /proc/PID/smaps_rollup of a process while it
 * unmaps all of its address space and dies; the workload of
 * races/real/smaps-rollup-no-vma.scenario.
 *
 * The child, named "unmap-all", waits for a byte on a pipe and then asks
 * munmap() for the whole user address space.  Every VMA goes; the return
 * to the unmapped libc faults and the child dies of SIGSEGV.  From the
 * end of munmap() until exit_mm() its mm is still alive (mm_users > 0) yet
 * has no VMA, which show_smaps_rollup() did not expect before "mm:
 * /proc/pid/smaps_rollup: fix no vma's null-deref".
 *
 * The parent opens the child's smaps_rollup while the child still has its
 * VMAs, sends the byte and reads the file again and again (pread at 0
 * makes seq_file call show_smaps_rollup() each time) until the child is
 * gone.  It prints the number of reads and of those that saw the rollup
 * of no VMA ("00000000-00000000", what a fixed kernel shows in the
 * window).  Exit status 0, or 1 when something unexpected failed.  With
 * two CPUs or more the child runs on CPU 0 and the reader on CPU 1, so
 * that neither waits for the other to leave its CPU.
 *
 *   smaps-rollup-reader [SECONDS]   give up after SECONDS (default 10)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

/* x86_64 with 4-level page tables: user addresses end below 2^47. */
#define USER_END ((1UL << 47) - 4096)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run on CPU @cpu when there is one; no harm done when there is not. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void unmap_all(int rfd)
{
	char c;

	pin(0);
	prctl(PR_SET_NAME, "unmap-all", 0, 0, 0);
	if (read(rfd, &c, 1) != 1)
		_exit(3);
	/* Returns into libc, which is gone: SIGSEGV. */
	syscall(SYS_munmap, 0UL, USER_END);
	_exit(4);	/* not reached */
}

int main(int argc, char **argv)
{
	double limit = 10, end;
	unsigned long reads = 0, empty = 0;
	int pfd[2], fd, status;
	char path[64], buf[4096];
	ssize_t n;
	pid_t pid;

	if (argc > 2 || (argc == 2 && (limit = atof(argv[1])) <= 0)) {
		fprintf(stderr, "usage: smaps-rollup-reader [SECONDS]\n");
		return 2;
	}
	if (pipe(pfd))
		return perror("pipe"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		close(pfd[1]);
		unmap_all(pfd[0]);
	}
	close(pfd[0]);
	pin(1);
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(pfd[1], "x", 1) != 1)
		return perror("write"), 1;
	end = now() + limit;
	for (;;) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			if (errno == ESRCH)	/* the mm is gone */
				break;
			perror("pread");
			return 1;
		}
		reads++;
		buf[n] = '\0';
		if (!strncmp(buf, "00000000-00000000 ", 18))
			empty++;
		if (now() > end) {
			fprintf(stderr, "still readable after %.0f s\n", limit);
			kill(pid, SIGKILL);
			break;
		}
	}
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	printf("reads %lu, of no vma %lu; unmap-all %s %d\n", reads, empty,
	       WIFSIGNALED(status) ? "killed by signal" : "exited",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return 0;
}
