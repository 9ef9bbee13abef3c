/* SPDX-License-Identifier: MIT */
/* daemon/clock.h - a clock in µs, for the timings of lookups, module calls and round trips. */
#ifndef NAMECACHE_CLOCK_H
#define NAMECACHE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* CLOCK_MONOTONIC: what every duration of the daemon is measured on. */
static inline uint64_t
mono_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

#endif
