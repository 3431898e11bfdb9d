// SPDX-License-Identifier: GPL-2.0
/*
 * mm-pages: a workload that does known things to a known number of pages,
 * for txlog's tests and examples.  Run in the guest (as root, so that
 * /proc/self/pagemap shows pfns):
 *
 *   mm-pages [-q] [N]    (default 16, at least 3; -q: no pfns, no line per page)
 *
 * It maps N anonymous pages (MADV_NOHUGEPAGE: N pages of order 0, not
 * transparent huge pages), writes to each (N page faults, N pages
 * allocated), prints the pfn behind each page, makes the middle third
 * read-only (the vma is split in three), unmaps everything (N pages
 * freed) and says so on stdout and in trace_marker:
 *
 *   mm-pages: pid 123 maps 16 pages at 0x7f0c2a1f0000-0x7f0c2a200000
 *   mm-pages: page 0 pfn 0x1a2b3
 *   ...
 *   mm-pages: mprotect 0x7f0c2a1f5000-0x7f0c2a1fa000 read-only: ok
 *   mm-pages: unmapped 16 pages
 *
 * If the mprotect fails (an injected fault), it says why and goes on.
 *
 * It stays on the CPU it starts on.  A page it faults in is added to that
 * CPU's lru_add batch, which holds a reference until the batch is drained,
 * and munmap drains only the batch of the CPU it runs on: had mm-pages moved
 * to another CPU in between, the last reference to a page could be dropped
 * later by whichever task next drains the first CPU's batch, and the page
 * would not be freed by mm-pages's munmap, which is what its tests check.
 *
 * Exit status 0, 1 if a step other than mprotect failed, 2 for a bad
 * argument or outside the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int marker = -1;

/* One line on stdout and, when tracing, the same text in the trace. */
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	printf("mm-pages: %s\n", buf);
	fflush(stdout);
	if (marker >= 0 && dprintf(marker, "mm-pages: %s\n", buf) < 0) {
		close(marker);
		marker = -1;
	}
}

/* Like every guest-side tool of mmfi: only in the guest (it writes trace_marker). */
static bool in_guest(void)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	bool yes = false;

	/* The marker is a whole word: mmfi.guest=10 is not it. */
	if (f && fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \t\n", &save); tok && !yes;
		     tok = strtok_r(NULL, " \t\n", &save))
			yes = !strcmp(tok, "mmfi.guest=1");
	if (f)
		fclose(f);
	return yes;
}

/* See the header: every page's last reference goes with its own munmap. */
static int pin_to_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int fail(const char *what)
{
	fprintf(stderr, "mm-pages: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), n = 16, i, third;
	bool quiet = false;
	uint64_t entry;
	char *p, *end;
	int fd;

	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quiet = true;
		argc--;
		argv++;
	}
	if (argc > 2 || (argc == 2 && ((n = strtol(argv[1], &end, 10)) < 3 || *end || n > 1 << 20))) {
		fprintf(stderr, "usage: mm-pages [-q] [N]   (3 <= N <= 1048576, default 16)\n");
		return 2;
	}
	if (!in_guest()) {
		fprintf(stderr, "mm-pages: runs only in the mmfi guest (mmfi.guest=1 on the kernel command line)\n");
		return 2;
	}
	if (pin_to_this_cpu())
		return fail("pinning to its CPU");
	marker = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	if (madvise(p, n * page, MADV_NOHUGEPAGE))
		return fail("madvise");
	say("pid %d maps %ld pages at %p-%p", getpid(), n, (void *)p, (void *)(p + n * page));
	for (i = 0; i < n; i++)
		p[i * page] = (char)(i + 1);

	fd = quiet ? -1 : open("/proc/self/pagemap", O_RDONLY);
	if (!quiet && fd < 0)
		return fail("/proc/self/pagemap");
	for (i = 0; i < n && !quiet; i++) {
		off_t off = ((uintptr_t)p / page + i) * sizeof(entry);

		if (pread(fd, &entry, sizeof(entry), off) != sizeof(entry))
			return fail("reading /proc/self/pagemap");
		/* bit 63: present; bits 0-54: pfn (0 without CAP_SYS_ADMIN) */
		if (!(entry >> 63))
			return fail("a written page is not present");
		say("page %ld pfn 0x%" PRIx64, i, entry & ((1ULL << 55) - 1));
	}
	if (fd >= 0)
		close(fd);

	third = n / 3;
	if (mprotect(p + third * page, third * page, PROT_READ))
		say("mprotect %p-%p read-only: %s", (void *)(p + third * page),
		    (void *)(p + 2 * third * page), strerror(errno));
	else
		say("mprotect %p-%p read-only: ok", (void *)(p + third * page),
		    (void *)(p + 2 * third * page));

	if (munmap(p, n * page))
		return fail("munmap");
	say("unmapped %ld pages", n);
	return 0;
}
