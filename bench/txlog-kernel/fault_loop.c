// SPDX-License-Identifier: GPL-2.0
/*
 * fault_loop: the cost of a page-fault-heavy loop, for bench/txlog-kernel.
 *
 * Usage: fault_loop [ITERATIONS [PAGES]]
 *
 * Each iteration maps PAGES (default 1) private anonymous pages, writes one
 * byte to each (one page fault and one page allocation per page) and unmaps
 * them.  Prints the nanoseconds per iteration, by CLOCK_MONOTONIC: in a
 * guest booted with qemu/run --icount that clock counts instructions, so the
 * number repeats exactly from run to run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long parse(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "fault_loop: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? parse(argv[1], "iteration count") : 20000;
	long pages = argc > 2 ? parse(argv[2], "page count") : 1;
	long psize = sysconf(_SC_PAGESIZE);
	long long t0, t1;
	long i, p;

	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "--help"))) {
		fprintf(stderr, "usage: fault_loop [ITERATIONS [PAGES]]\n");
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		char *m = mmap(NULL, pages * psize, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			perror("fault_loop: mmap");
			return 1;
		}
		for (p = 0; p < pages; p++)
			m[p * psize] = 1;
		munmap(m, pages * psize);
	}
	t1 = now_ns();
	printf("%.1f\n", (double)(t1 - t0) / iters);
	return 0;
}
