// SPDX-License-Identifier: GPL-2.0
/*
 * uffd-shmem-isize: fill a page of a shmem file with UFFDIO_COPY while
 * another thread truncates the file below that page, then grow the file
 * again and read the page back; the workload of
 * races/real/uffd-shmem-isize.scenario.
 *
 * shmem_mfill_atomic_pte() checks the file size before it adds the new
 * page to the page cache.  A truncate that runs between that check and
 * the insertion finds nothing to remove, so the page stays in the page
 * cache beyond the end of the file, and a later ftruncate() that grows
 * the file again shows its old contents where zeros belong.
 * mfill_atomic_install_pte() checks the size again under the page table
 * lock and backs out ("userfaultfd: shmem: add i_size checks").
 *
 * The copying thread (the main one) copies a page of 0x5a bytes to the
 * last page of a 16-page memfd registered with userfaultfd (missing
 * mode); the truncating thread, named "truncator", cuts the file to one
 * page: at once, or, with --after FILE, as soon as FILE (a fault
 * attribute's "injected" counter) reads non-zero, that is, while the copy
 * is held at a delay point.  Then the file is grown back to 16 pages and
 * the page read with pread(): zeros are right.  Prints "copy: ...,
 * truncate: ..., page N: zeros|old data" and, for old data, "data past
 * EOF".  Exit status 0, 1 when something unexpected failed, 2 for bad
 * usage.
 *
 *   uffd-shmem-isize [--after FILE]
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "await-counter.h"

#define PAGE 4096UL
#define PAGES 16

static int memfd;
static const char *after;
static volatile int go;
static int trunc_err;

static void *truncator(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "truncator", 0, 0, 0);
	while (!go)
		;
	/* Until the copy sits at the delay point; 5 s at most. */
	if (after)
		await_counter(after, 5);
	if (ftruncate(memfd, PAGE))
		trunc_err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { 0 };
	static char src[PAGE] __attribute__((aligned(4096)));
	static char back[PAGE];
	int uffd, rc, err, i, nonzero = 0;
	pthread_t thr;
	char *map;

	if (argc == 3 && !strcmp(argv[1], "--after"))
		after = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: uffd-shmem-isize [--after FILE]\n");
		return 2;
	}

	memfd = memfd_create("uffd-shmem-isize", 0);
	if (memfd < 0)
		return perror("memfd_create"), 1;
	if (ftruncate(memfd, PAGES * PAGE))
		return perror("ftruncate"), 1;
	map = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 1;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return perror("userfaultfd"), 1;
	if (ioctl(uffd, UFFDIO_API, &api))
		return perror("UFFDIO_API"), 1;
	reg.range.start = (uintptr_t)map;
	reg.range.len = PAGES * PAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return perror("UFFDIO_REGISTER"), 1;

	memset(src, 0x5a, sizeof(src));
	copy.dst = (uintptr_t)map + (PAGES - 1) * PAGE;
	copy.src = (uintptr_t)src;
	copy.len = PAGE;
	if (pthread_create(&thr, NULL, truncator, NULL))
		return fprintf(stderr, "pthread_create failed\n"), 1;
	go = 1;
	rc = ioctl(uffd, UFFDIO_COPY, &copy);
	err = errno;
	pthread_join(thr, NULL);
	if (trunc_err) {
		fprintf(stderr, "ftruncate: %s\n", strerror(trunc_err));
		return 1;
	}

	/* Grown back: the page beyond the cut must read as zeros. */
	if (ftruncate(memfd, PAGES * PAGE))
		return perror("ftruncate"), 1;
	if (pread(memfd, back, PAGE, (PAGES - 1) * PAGE) != (ssize_t)PAGE)
		return perror("pread"), 1;
	for (i = 0; i < (int)PAGE; i++)
		nonzero += back[i] != 0;
	printf("copy: %s, truncate: done, page %d: %s\n",
	       rc ? strerror(err) : "done", PAGES - 1,
	       nonzero ? "old data" : "zeros");
	if (nonzero)
		printf("data past EOF\n");
	return 0;
}
