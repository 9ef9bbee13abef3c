/* SPDX-License-Identifier: MIT */
/* tests/unit/fakeclock.h - the tests' clock: milliseconds that move only when a test moves them. */

/*
 * The cache, the engine and nscd's databases read the time through a
 * cache_clock_fn (cache.h).  A test hands them fakeclock_now and sets the
 * time itself, so expiry is checked to the millisecond and nothing sleeps.
 * One clock a program (each test is its own executable), in a header so
 * that the unit tests and the fuzz targets take it without a build rule.
 */
#ifndef FAKECLOCK_H
#define FAKECLOCK_H

#include <stdint.h>

/* A monotonic clock is not 0 at boot; neither is this one. */
#define FAKECLOCK_T0	1000000000LL

static int64_t	fakeclock_ms;	/* the time, in ms */

/* A cache_clock_fn: the time the test set (arg is not read). */
static inline int64_t
fakeclock_now(void *arg)
{
	return fakeclock_ms;
}

/* Moves the clock to ms milliseconds after FAKECLOCK_T0 (or before it). */
static inline void
fakeclock_at(int64_t ms)
{
	fakeclock_ms = FAKECLOCK_T0 + ms;
}

/* Moves the clock on by ms milliseconds. */
static inline void
fakeclock_advance(int64_t ms)
{
	fakeclock_ms += ms;
}

#endif
