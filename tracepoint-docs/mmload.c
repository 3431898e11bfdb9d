// SPDX-License-Identifier: GPL-2.0
/*
 * mmload: small, predictable memory workloads that make MM tracepoints
 * fire; the knowledge files' workloads and example commands use it.
 *
 *   mmload anon MB [SECONDS]       touch MB of anonymous memory (asking for
 *                                  huge pages: MADV_HUGEPAGE), hold, free
 *   mmload fragment MB [SECONDS]   touch MB, free every other page, hold
 *   mmload locked-fragment MB [SECONDS]  the same, mlock()ed
 *   mmload khugepaged MB [SECONDS] small pages first, then MADV_HUGEPAGE:
 *                                  khugepaged may collapse them while we hold
 *   mmload collapse MB [SECONDS]   small pages, the first 32 of each 2 MiB
 *                                  paged out (MADV_PAGEOUT: to swap if there
 *                                  is swap), then MADV_COLLAPSE
 *   mmload shmem-collapse MB [SECONDS]  small shmem pages, MADV_COLLAPSE
 *   mmload move MB NODE            touch MB (huge pages where THP allows),
 *                                  then move_pages() all of it to NODE
 *
 * Pages are filled with a byte that changes per page, so they compress
 * well (zram) but are not zero pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HPAGE	(2UL << 20)
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#define MPOL_MF_MOVE	(1 << 1)
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

static long page_size;

static void die(const char *what)
{
	fprintf(stderr, "mmload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fputs("Usage: mmload anon|fragment|locked-fragment|khugepaged|collapse|shmem-collapse MB\n"
	      "              [SECONDS]\n"
	      "       mmload move MB NODE\n", stderr);
	exit(2);
}

/*
 * A 2 MiB aligned mapping of @len bytes.  A shared (shmem) mapping gets a
 * VMA of its own that starts at the aligned address, since a huge page of
 * a file needs the address and the file offset aligned alike.
 */
static char *map_aligned(size_t len, int flags)
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		die("mmap");
	a = (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
	if ((flags & MAP_SHARED) &&
	    mmap(a, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, -1, 0) == MAP_FAILED)
		die("mmap(MAP_SHARED)");
	return a;
}

static void fill(char *p, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += page_size)
		memset(p + off, (int)(off / page_size) | 1, page_size);
}

/* move_pages(2) every page of [p, p + len) to @node; libnuma is not needed. */
static void move_to_node(char *p, size_t len, int node)
{
	unsigned long i, n = len / page_size;
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));

	if (!pages || !nodes || !status)
		die("calloc");
	for (i = 0; i < n; i++) {
		pages[i] = p + i * page_size;
		nodes[i] = node;
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE))
		die("move_pages");
	free(pages);
	free(nodes);
	free(status);
}

int main(int argc, char **argv)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	unsigned long mb, secs = 0;
	const char *mode;
	size_t len, off;
	char *end, *p;

	if (argc < 3 || argc > 4)
		usage();
	mode = argv[1];
	mb = strtoul(argv[2], &end, 10);
	if (*end || !mb || mb > 65536)
		usage();
	if (argc == 4) {
		secs = strtoul(argv[3], &end, 10);
		if (*end)
			usage();
	}
	page_size = sysconf(_SC_PAGESIZE);
	len = mb << 20;
	if (!strcmp(mode, "shmem-collapse"))
		flags = MAP_SHARED | MAP_ANONYMOUS;
	else if (strcmp(mode, "anon") && strcmp(mode, "fragment") && strcmp(mode, "move") &&
		 strcmp(mode, "locked-fragment") &&
		 strcmp(mode, "khugepaged") && strcmp(mode, "collapse"))
		usage();
	p = map_aligned(len, flags);
	/* All but anon and move start with small pages. */
	if (!strcmp(mode, "anon"))
		madvise(p, len, MADV_HUGEPAGE);	/* THP may be off: not an error */
	else if (strcmp(mode, "move") && madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	fill(p, len);
	if (strstr(mode, "fragment")) {
		for (off = 0; off < len; off += 2 * page_size)
			if (madvise(p + off, page_size, MADV_DONTNEED))
				die("madvise(MADV_DONTNEED)");
		/* Lock what is left, without faulting the holes back in. */
		if (!strcmp(mode, "locked-fragment") && mlock2(p, len, MLOCK_ONFAULT))
			die("mlock2(MLOCK_ONFAULT)");
	} else if (!strcmp(mode, "move")) {
		move_to_node(p, len, (int)secs);
		secs = 0;
	} else if (!strcmp(mode, "khugepaged")) {
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else if (strcmp(mode, "anon")) {	/* collapse, shmem-collapse */
		if (!strcmp(mode, "collapse"))
			for (off = 0; off < len; off += HPAGE)
				madvise(p + off, 32 * page_size, MADV_PAGEOUT);
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
		/* EAGAIN and friends are a result to trace, not an error here. */
		if (madvise(p, len, MADV_COLLAPSE))
			fprintf(stderr, "mmload: MADV_COLLAPSE: %s\n", strerror(errno));
	}
	if (secs)
		sleep(secs);
	if (munmap(p, len))
		die("munmap");
	return 0;
}
