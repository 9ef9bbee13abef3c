/* SPDX-License-Identifier: MIT */
/* proto/ttl.c - the refresh rule: an answer is refreshed in the last tenth of its TTL. */
#include "ttl.h"

bool
ttl_refresh_due(int64_t left_ns, uint32_t ttl, int64_t min_window_ns)
{
	/* left * 10 <= ttl s, without the product: left may be near INT64_MAX. */
	return left_ns > 0 && (left_ns <= (int64_t)ttl * (TTL_NS_PER_SEC / 10) ||
	    left_ns <= min_window_ns);
}
