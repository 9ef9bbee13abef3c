/* SPDX-License-Identifier: MIT */
/* daemon/observe/histo.h - latency histograms with fixed buckets, as Prometheus exposes them. */
#ifndef NAMECACHE_HISTO_H
#define NAMECACHE_HISTO_H

#include <stdint.h>

/*
 * Upper bounds of the buckets in µs, from a hit (10 µs) to a module's
 * timeout (10 s); the last bucket is +Inf.  Every histogram of the
 * daemon has these, so that dashboards can set them side by side.
 */
#define HISTO_BOUNDS	19
#define HISTO_BUCKETS	(HISTO_BOUNDS + 1)
extern const uint32_t histo_bounds_us[HISTO_BOUNDS];

struct histo {
	uint64_t	bucket[HISTO_BUCKETS];	/* not cumulative: one per range */
	uint64_t	count;
	uint64_t	sum_us;
};

/* Counts one observation of usec: a few compares, no allocation. */
static inline void
histo_observe(struct histo *h, uint64_t usec)
{
	unsigned i = 0;

	while (i < HISTO_BOUNDS && usec > histo_bounds_us[i])
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum_us += usec;
}

#endif
