/* SPDX-License-Identifier: MIT */
/* proto/ttl.h - the refresh rule: an answer is refreshed in the last tenth of its TTL. */
#ifndef NAMECACHE_TTL_H
#define NAMECACHE_TTL_H

#include <stdbool.h>
#include <stdint.h>

#define TTL_NS_PER_SEC	1000000000LL
#define TTL_NS_PER_MS	1000000LL

/*
 * Whether an answer that was given ttl seconds, and has left_ns
 * nanoseconds of them left, is due for a refresh (prefetch): in the last
 * tenth of its TTL, or in its last min_window_ns when that is longer.
 * Never once expired (left_ns <= 0): that is a miss, not a refresh.
 *
 * One rule for the daemon's cache (which says CACHE_REFRESH), the shared
 * segment's readers (which then ask the socket, whose lookup refreshes
 * it) and the nscd map's sweeper (which asks for the refresh itself), so
 * that all three agree on when an answer is refreshed.  min_window_ns is
 * for a caller that looks only now and then: the sweeper, once a second,
 * passes 1.5 s, or a short TTL's tenth could fall between two ticks.
 * Pure.
 */
bool	ttl_refresh_due(int64_t left_ns, uint32_t ttl, int64_t min_window_ns);

#endif
