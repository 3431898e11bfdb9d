/* SPDX-License-Identifier: GPL-2.0 */
/*
 * await-counter.h: for the workloads of races/real/: wait until a counter
 * file (a fault attribute's "injected" in debugfs) reads non-zero, that
 * is, until another thread of the workload is held at a delay point.
 */
#ifndef AWAIT_COUNTER_H
#define AWAIT_COUNTER_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The number in @path, or -1 when it cannot be read. */
static inline long read_counter(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atol(buf);
}

/*
 * Poll @path until it reads above 0, for at most @seconds; say so on
 * stderr when it never did (the caller goes on: its result shows it).
 */
static inline void await_counter(const char *path, int seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (read_counter(path) <= 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > seconds) {
			fprintf(stderr, "%s stayed 0 for %d s\n", path, seconds);
			return;
		}
	}
}

#endif
