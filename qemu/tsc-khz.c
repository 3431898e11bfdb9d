// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print this host's TSC rate in kHz, measured against
 * CLOCK_MONOTONIC_RAW over about 50 ms.  qemu/lib.sh derives the guest's
 * lpj= from it: under TCG the guest reads the host's TSC.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	double t0, t1, rate[5], tmp;
	unsigned long long c0, c1;
	int i, j;

	for (i = 0; i < 5; i++) {
		t0 = now();
		c0 = __rdtsc();
		do
			t1 = now();
		while (t1 - t0 < 0.01);
		c1 = __rdtsc();
		rate[i] = (c1 - c0) / (t1 - t0);
	}
	/* The median: a sample the scheduler disturbed is off either way. */
	for (i = 1; i < 5; i++)
		for (j = i; j > 0 && rate[j] < rate[j - 1]; j--) {
			tmp = rate[j];
			rate[j] = rate[j - 1];
			rate[j - 1] = tmp;
		}
	printf("%.0f\n", rate[2] / 1000);
	return 0;
}
