// SPDX-License-Identifier: GPL-2.0
/*
 * shared-line: what -icount cannot show about the fault-injection counters.
 *
 * Under QEMU's -icount a locked increment of a counter that every CPU
 * writes costs one instruction, like an unlocked increment of a counter of
 * the CPU's own. On real CPUs the shared line moves between the caches on
 * every write.  This program times, on the host and with one thread pinned
 * to each of the first N CPUs, the three ways a hook can count a call:
 *
 *   shared    lock incq on one counter for all threads (atomic_long_inc)
 *   private   lock incq on a counter per thread, on its own cache line
 *   percpu    incq on a counter per thread (this_cpu_inc on x86-64)
 *
 * and prints nanoseconds per increment of each thread (wall clock, noisy;
 * the ratios are what matters).
 *
 * Usage: shared-line [-t THREADS] [-n INCREMENTS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define MAX_THREADS 64

struct slot {
	_Alignas(LINE) unsigned long count;
};

static struct slot shared;
static struct slot slots[MAX_THREADS];

enum mode { SHARED, PRIVATE, PERCPU };
static const char *const mode_names[] = { "shared", "private", "percpu" };

struct worker {
	pthread_t thread;
	int cpu;
	enum mode mode;
	unsigned long n;
	pthread_barrier_t *start;
	double ns;		/* per increment */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void inc_locked(unsigned long *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
}

static inline void inc_plain(unsigned long *p)
{
#if defined(__x86_64__)
	asm volatile("incq %0" : "+m"(*p));
#else
	*(volatile unsigned long *)p += 1;
#endif
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned long *p = w->mode == SHARED ? &shared.count : &slots[w->cpu].count;
	unsigned long i;
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "shared-line: cannot pin a thread to CPU %d\n", w->cpu);
		exit(1);
	}
	pthread_barrier_wait(w->start);
	t0 = now_ns();
	if (w->mode == PERCPU)
		for (i = 0; i < w->n; i++)
			inc_plain(p);
	else
		for (i = 0; i < w->n; i++)
			inc_locked(p);
	w->ns = (now_ns() - t0) / w->n;
	return NULL;
}

/* Mean nanoseconds per increment over @threads threads in @mode. */
static double run(enum mode mode, int threads, unsigned long n)
{
	struct worker w[MAX_THREADS];
	pthread_barrier_t start;
	double sum = 0;
	int i, err;

	pthread_barrier_init(&start, NULL, threads);
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .cpu = i, .mode = mode, .n = n, .start = &start };
		err = pthread_create(&w[i].thread, NULL, work, &w[i]);
		if (err) {
			fprintf(stderr, "shared-line: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		sum += w[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum / threads;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: shared-line [-t THREADS] [-n INCREMENTS]\n"
		"Times a shared locked increment, a private locked one and a\n"
		"private unlocked one with THREADS threads (default: the online\n"
		"CPUs, at most %d), pinned one per CPU, INCREMENTS each (default\n"
		"100000000), and prints ns per increment.\n", MAX_THREADS);
}

static long number(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "shared-line: %s needs a number from %ld to %ld, not '%s'\n",
			opt, min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int max_threads = cpus < MAX_THREADS ? cpus : MAX_THREADS;
	int threads = max_threads;
	unsigned long n = 100000000;
	double one, all, base;
	int opt, m;

	while ((opt = getopt(argc, argv, "ht:n:")) != -1) {
		switch (opt) {
		case 't':
			threads = number("-t", optarg, 1, max_threads);
			break;
		case 'n':
			n = number("-n", optarg, 1, 1000000000000L);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "shared-line: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	printf("%-10s %12s %12s %10s\n", "counter", "1 thread", "threads", "ratio");
	base = run(PERCPU, 1, n);
	for (m = SHARED; m <= PERCPU; m++) {
		one = run(m, 1, n);
		all = run(m, threads, n);

		printf("%-10s %9.2f ns %9.2f ns %9.2fx  (%d threads)\n",
		       mode_names[m], one, all, all / base, threads);
	}
	printf("ratio: ns per increment of each of the threads over one thread's percpu increment\n");
	return 0;
}
