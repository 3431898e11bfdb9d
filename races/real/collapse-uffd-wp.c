// SPDX-License-Identifier: GPL-2.0
/*
 * collapse-uffd-wp: write-protect a range with userfaultfd while
 * MADV_COLLAPSE turns it into a huge page, then check that every page of
 * it is still write-protected; the workload of
 * races/real/collapse-uffd-wp.scenario.
 *
 * A 2 MiB aligned anonymous range, registered with userfaultfd in
 * write-protect mode, is filled with small pages (the scenario sets
 * transparent_hugepage/enabled to never, which MADV_COLLAPSE ignores).
 * The main thread asks MADV_COLLAPSE for it; a second thread write-protects
 * its first page with UFFDIO_WRITEPROTECT at the same time (one page: a
 * range with no writable page is not collapsed anyway): at once, or, with
 * --after FILE, as soon as FILE (a fault attribute's "injected" counter in
 * debugfs) reads non-zero, that is, while the collapse is held at a delay
 * point.  khugepaged checks for uffd-wp PTEs when it scans the range and,
 * since "mm/khugepaged: check again on anon uffd-wp during isolation",
 * once more under the mmap write lock; without that second check a
 * protection set in between is lost with the PTEs.
 *
 * Afterwards /proc/self/pagemap must show bit 57 (uffd-wp) on the first
 * page: the protection was asked for before the threads met again.
 * Prints "collapse: ..., present P/512, wp W/512, first page protected:
 * yes|no" and, for no, "uffd-wp lost".  Exit status 0, 1 when something
 * unexpected failed, 2 for bad usage.
 *
 *   collapse-uffd-wp [--after FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "await-counter.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HPAGE (2UL << 20)
#define PAGE 4096UL
#define PM_UFFD_WP (1ULL << 57)
#define PM_PRESENT (1ULL << 63)

static char *area;
static int uffd;
static const char *after;
static volatile int go;
static int wp_err;

static void *protect(void *arg)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (uintptr_t)area, .len = PAGE },
		.mode = UFFDIO_WRITEPROTECT_MODE_WP,
	};

	(void)arg;
	while (!go)
		;
	/* Until the collapse sits at the delay point; 5 s at most. */
	if (after)
		await_counter(after, 5);
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		wp_err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	uint64_t pm[HPAGE / PAGE];
	int i, fd, rc, err, wp = 0, present = 0;
	pthread_t thr;
	char *raw;

	if (argc == 3 && !strcmp(argv[1], "--after"))
		after = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: collapse-uffd-wp [--after FILE]\n");
		return 2;
	}

	raw = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return perror("mmap"), 1;
	area = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return perror("userfaultfd"), 1;
	if (ioctl(uffd, UFFDIO_API, &api))
		return perror("UFFDIO_API"), 1;
	reg.range.start = (uintptr_t)area;
	reg.range.len = HPAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return perror("UFFDIO_REGISTER"), 1;
	/* Small pages, none of them protected yet. */
	for (i = 0; i < (int)(HPAGE / PAGE); i++)
		area[i * PAGE] = 1;

	if (pthread_create(&thr, NULL, protect, NULL))
		return fprintf(stderr, "pthread_create failed\n"), 1;
	go = 1;
	rc = madvise(area, HPAGE, MADV_COLLAPSE);
	err = errno;
	pthread_join(thr, NULL);
	if (wp_err) {
		fprintf(stderr, "UFFDIO_WRITEPROTECT: %s\n", strerror(wp_err));
		return 1;
	}

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return perror("/proc/self/pagemap"), 1;
	if (pread(fd, pm, sizeof(pm), (uintptr_t)area / PAGE * sizeof(pm[0])) !=
	    (ssize_t)sizeof(pm))
		return perror("reading /proc/self/pagemap"), 1;
	close(fd);
	for (i = 0; i < (int)(HPAGE / PAGE); i++) {
		present += !!(pm[i] & PM_PRESENT);
		wp += !!(pm[i] & PM_UFFD_WP);
	}
	printf("collapse: %s, present %d/512, wp %d/512, first page protected: %s\n",
	       rc ? strerror(err) : "done", present, wp,
	       pm[0] & PM_UFFD_WP ? "yes" : "no");
	if (!(pm[0] & PM_UFFD_WP))
		printf("uffd-wp lost\n");
	return 0;
}
