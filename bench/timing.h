/* SPDX-License-Identifier: MIT */
/* bench/timing.h - the clock and the sort the benchmark programs share. */
#ifndef NAMECACHE_BENCH_TIMING_H
#define NAMECACHE_BENCH_TIMING_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* qsort's comparison of doubles, for medians. */
static inline int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
