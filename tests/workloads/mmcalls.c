// SPDX-License-Identifier: GPL-2.0
/*
 * mmcalls: a workload for the stap-scripts tests, run in the guest.  Each
 * mode makes a known sequence of system calls whose kernel paths the
 * scripts probe, and prints one line per call with its result, so a test
 * can tell exactly which call failed or was slow.
 *
 *   mmcalls files DIR N     create DIR/f1..fN, then mkdir DIR/d1, DIR/d2
 *   mmcalls pipe N          write N pages into a pipe nobody reads (N <= 16)
 *   mmcalls trunc FILE N    N rounds of ftruncate(FILE) then truncate(FILE),
 *                           each line with the call's duration in ns
 *   mmcalls page [CTL]      fault in one anonymous page, push it onto the LRU
 *                           list, print its pfn (from /proc/self/pagemap)
 *                           and whether it is on the LRU (/proc/kpageflags),
 *                           write the pfn to CTL (a glob, e.g.
 *                           '/proc/systemtap/STAR/pfn'), then share it with a
 *                           child, let the child write to it, and unmap it
 *   mmcalls churn           a bit of everything: files, page faults, a 2 MB
 *                           aligned region (THP), pipes, fork
 *   mmcalls anon MB         write MB megabytes of anonymous memory, page by
 *                           page, then read it all back (under a memory
 *                           limit: reclaim, swap out, swap in)
 *
 * Lines look like "create f3 ENOMEM" or "ftruncate 2 ok 53211".  The exit
 * status is 0 even when calls fail (the failures are what is tested), 2
 * for a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *result(int ok)
{
	const char *name;

	if (ok)
		return "ok";
	name = strerrorname_np(errno);
	return name ? name : "E?";
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int count_arg(const char *s, int max)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || n < 1 || n > max) {
		fprintf(stderr, "mmcalls: '%s' is not a count from 1 to %d\n", s, max);
		exit(2);
	}
	return (int)n;
}

static void do_files(const char *dir, int n)
{
	char path[4096];
	int i, fd;

	for (i = 1; i <= n; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		printf("create f%d %s\n", i, result(fd >= 0));
		if (fd >= 0)
			close(fd);
	}
	for (i = 1; i <= 2; i++) {
		snprintf(path, sizeof(path), "%s/d%d", dir, i);
		printf("mkdir d%d %s\n", i, result(mkdir(path, 0700) == 0));
	}
}

static void do_pipe(int n)
{
	static char page[4096];
	int fds[2], i;

	if (pipe(fds)) {
		printf("pipe %s\n", result(0));
		return;
	}
	memset(page, 'x', sizeof(page));
	for (i = 1; i <= n; i++)
		printf("write %d %s\n", i, result(write(fds[1], page, sizeof(page)) == sizeof(page)));
	close(fds[0]);
	close(fds[1]);
}

static void do_trunc(const char *file, int n)
{
	long long t0, t1;
	int fd, i, ok;

	fd = open(file, O_CREAT | O_RDWR, 0600);
	if (fd < 0) {
		printf("open %s\n", result(0));
		return;
	}
	for (i = 1; i <= n; i++) {
		t0 = now_ns();
		ok = ftruncate(fd, 4096 * i) == 0;
		t1 = now_ns();
		printf("ftruncate %d %s %lld\n", i, result(ok), t1 - t0);
		t0 = now_ns();
		ok = truncate(file, 4096 * i + 512) == 0;
		t1 = now_ns();
		printf("truncate %d %s %lld\n", i, result(ok), t1 - t0);
	}
	close(fd);
}

/* The pfn behind a virtual address (root only: others read pfn 0). */
static uint64_t pfn_of(void *addr)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &entry, sizeof(entry), (uintptr_t)addr / pagesize * sizeof(entry)) != sizeof(entry))
		entry = 0;
	close(fd);
	if (!(entry & (1ULL << 63)))	/* not present */
		return 0;
	return entry & ((1ULL << 55) - 1);
}

/* Is the page @pfn on an LRU list (/proc/kpageflags, KPF_LRU)?  -1: unknown */
static int on_lru(uint64_t pfn)
{
	uint64_t flags;
	int fd, ret = -1;

	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &flags, sizeof(flags), pfn * sizeof(flags)) == sizeof(flags))
		ret = (flags >> 5) & 1;
	close(fd);
	return ret;
}

static void do_page(const char *ctl)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	cpu_set_t cpus;
	uint64_t pfn;
	glob_t g;
	FILE *f;
	char *p;
	pid_t child;

	p = mmap(NULL, pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("mmap %s\n", result(0));
		return;
	}
	/*
	 * A new anonymous page waits in its CPU's LRU-add batch, which holds
	 * a reference, until the batch fills or is drained.  Left there, the
	 * page's counts at fork and the task that frees it depend on what
	 * else ran on that CPU.  Stay on one CPU and let MADV_COLD drain
	 * this CPU's batch (it deactivates nothing: the page is inactive).
	 */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		printf("sched_setaffinity %s\n", result(0));
	p[0] = 1;
	if (madvise(p, pagesize, MADV_COLD))
		printf("madvise %s\n", result(0));
	pfn = pfn_of(p);
	printf("pfn=0x%llx\n", (unsigned long long)pfn);
	printf("lru=%d\n", on_lru(pfn));
	if (ctl) {
		if (glob(ctl, 0, NULL, &g) || g.gl_pathc != 1) {
			printf("ctl %s: not exactly one match\n", ctl);
			return;
		}
		f = fopen(g.gl_pathv[0], "w");
		if (!f || fprintf(f, "%llu\n", (unsigned long long)pfn) < 0 || fclose(f)) {
			printf("ctl %s %s\n", g.gl_pathv[0], result(0));
			return;
		}
		globfree(&g);
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		p[1] = 2;	/* copy on write: the child gets its own page */
		_exit(0);
	}
	waitpid(child, NULL, 0);
	printf("munmap %s\n", result(munmap(p, pagesize) == 0));
}

static void do_churn(void)
{
	size_t huge = 2UL << 20;
	char path[64], *p, *aligned;
	int i, fd, fds[2];
	pid_t child;

	for (i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/dev/shm/mmcalls-churn-%d", i);
		fd = open(path, O_CREAT | O_RDWR, 0600);
		if (fd >= 0) {
			if (write(fd, path, strlen(path)) < 0)
				perror("write");
			close(fd);
		}
		unlink(path);
	}
	for (i = 0; i < 8; i++) {
		p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			memset(p, i, 64 << 10);
			munmap(p, 64 << 10);
		}
	}
	/* A 2 MB aligned anonymous region: a huge page under THP=always. */
	p = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		aligned = (char *)(((uintptr_t)p + huge - 1) & ~(huge - 1));
		madvise(aligned, huge, MADV_HUGEPAGE);
		memset(aligned, 1, huge);
		munmap(p, 2 * huge);
	}
	if (pipe(fds) == 0) {
		for (i = 0; i < 4; i++)
			if (write(fds[1], "0123456789", 10) < 0)
				perror("write");
		close(fds[0]);
		close(fds[1]);
	}
	child = fork();
	if (child == 0)
		_exit(0);
	if (child > 0)
		waitpid(child, NULL, 0);
	printf("churn done\n");
}

static void do_anon(int mb)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)mb << 20, off;
	unsigned long sum = 0, want = 0;
	unsigned char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("anon %d MB %s\n", mb, result(0));
		return;
	}
	for (off = 0; off < len; off += pagesize) {
		memset(p + off, (int)(off / pagesize), 64);
		want += (off / pagesize) & 0xff;
	}
	for (off = 0; off < len; off += pagesize)
		sum += p[off];
	printf("anon %d MB %s\n", mb, sum == want ? "ok" : "EBADMSG");
	munmap(p, len);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "files"))
		do_files(argv[2], count_arg(argv[3], 100));
	else if (argc == 3 && !strcmp(argv[1], "pipe"))
		do_pipe(count_arg(argv[2], 16));
	else if (argc == 4 && !strcmp(argv[1], "trunc"))
		do_trunc(argv[2], count_arg(argv[3], 1000));
	else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "page"))
		do_page(argc == 3 ? argv[2] : NULL);
	else if (argc == 2 && !strcmp(argv[1], "churn"))
		do_churn();
	else if (argc == 3 && !strcmp(argv[1], "anon"))
		do_anon(count_arg(argv[2], 1024));
	else {
		fprintf(stderr, "usage: mmcalls files DIR N | pipe N | trunc FILE N | page [CTL] | churn | anon MB\n");
		return 2;
	}
	return 0;
}
