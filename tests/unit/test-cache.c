/* SPDX-License-Identifier: MIT */
/* tests/unit/test-cache.c - unit tests of the TTL cache, on a fake clock. */

/*
 * The cache reads the time from the clock it is given; here that is a
 * variable the tests set (fakeclock.h), so expiry is checked to the
 * millisecond and nothing sleeps.  Times are written as milliseconds since
 * FAKECLOCK_T0, when each test's cache is made.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cache.h"
#include "dnsmsg.h"
#include "fakeclock.h"
#include "proto.h"

static struct cache_limits
limits(void)
{
	struct cache_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 1000;
	lim.min_ttl = 0;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	lim.serve_stale = 86400;
	return lim;
}

static struct cache *
new_cache(const struct cache_limits *lim)
{
	struct cache *c;

	fakeclock_at(0);
	assert_non_null(c = cache_new(lim, fakeclock_now, NULL));
	assert_int_equal(cache_count(c), 0);
	return c;
}

static const char *
state_str(int state)
{
	static const char *const names[] = {
		"MISS", "FRESH", "REFRESH", "EXPIRED", "FAILING",
	};

	return state >= 0 && state <= CACHE_FAILING ? names[state] : "?";
}

/* Stores data (a string, without its NUL) for (name, kind). */
static void
put(struct cache *c, const char *name, uint32_t kind, int status, uint32_t ttl,
    const char *data)
{
	assert_int_equal(cache_put(c, name, kind, status, ttl, data,
	    data ? strlen(data) : 0), 0);
}

/*
 * What (name, kind) looks like now, through cache_peek and then
 * cache_lookup: both must agree on everything.
 */
static void
expect(struct cache *c, const char *name, uint32_t kind, int state,
    uint32_t ttl_left, bool stale_ok)
{
	struct cache_hit p, l;

	cache_peek(c, name, kind, &p);
	if (p.state != state || p.ttl_left != ttl_left || p.stale_ok != stale_ok)
		print_message("%s/%u at T0%+lld ms: %s ttl_left %u stale_ok %d; "
		    "want %s %u %d\n", name, kind,
		    (long long)(fakeclock_ms - FAKECLOCK_T0),
		    state_str(p.state), p.ttl_left, p.stale_ok,
		    state_str(state), ttl_left, stale_ok);
	assert_int_equal(p.state, state);
	assert_int_equal(p.ttl_left, ttl_left);
	assert_int_equal(p.stale_ok, stale_ok);
	if (state == CACHE_FRESH || state == CACHE_REFRESH) {
		/* The expiry and full TTL the shared segment is stamped with. */
		assert_true(p.expires > fakeclock_ms);
		assert_int_equal((p.expires - fakeclock_ms + 999) / 1000, ttl_left);
		assert_true(p.ttl >= ttl_left);
	}
	cache_lookup(c, name, kind, &l);
	assert_int_equal(l.state, p.state);
	assert_int_equal(l.status, p.status);
	assert_int_equal(l.ttl_left, p.ttl_left);
	assert_int_equal(l.stale_ok, p.stale_ok);
	assert_int_equal(l.len, p.len);
	assert_int_equal(l.expires, p.expires);
	assert_int_equal(l.ttl, p.ttl);
	assert_true(l.data == p.data);
}

/* The data of (name, kind), as a string: "" for an entry without data. */
static void
expect_data(struct cache *c, const char *name, uint32_t kind, int status,
    const char *want)
{
	struct cache_hit h;

	cache_peek(c, name, kind, &h);
	assert_int_not_equal(h.state, CACHE_MISS);
	assert_int_equal(h.status, status);
	assert_int_equal(h.len, strlen(want));
	if (h.len)
		assert_memory_equal(h.data, want, h.len);
}

static void
expect_miss(struct cache *c, const char *name, uint32_t kind)
{
	expect(c, name, kind, CACHE_MISS, 0, false);
}

static void
expect_stats(const struct cache *c, uint64_t hits, uint64_t misses,
    uint64_t evictions, uint64_t insertions)
{
	struct cache_stats st;

	cache_get_stats(c, &st);
	if (st.hits != hits || st.misses != misses || st.evictions != evictions ||
	    st.insertions != insertions)
		print_message("stats %llu/%llu/%llu/%llu, want %llu/%llu/%llu/%llu\n",
		    (unsigned long long)st.hits, (unsigned long long)st.misses,
		    (unsigned long long)st.evictions,
		    (unsigned long long)st.insertions, (unsigned long long)hits,
		    (unsigned long long)misses, (unsigned long long)evictions,
		    (unsigned long long)insertions);
	assert_int_equal(st.hits, hits);
	assert_int_equal(st.misses, misses);
	assert_int_equal(st.evictions, evictions);
	assert_int_equal(st.insertions, insertions);
}

/* Expiry to the millisecond, and ttl_left rounded up as it counts down. */
static void
test_expiry(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	int64_t			 k;

	put(c, "www.example.com", DNS_T_A, CACHE_POSITIVE, 300, "abc");
	expect(c, "www.example.com", DNS_T_A, CACHE_FRESH, 300, false);
	for (k = 1; k < 300; k++) {
		/* REFRESH from 270 s on: the last 10% of 300 s. */
		fakeclock_at(k * 1000 - 1);
		expect(c, "www.example.com", DNS_T_A, k * 1000 - 1 >= 270000 ?
		    CACHE_REFRESH : CACHE_FRESH, (uint32_t)(301 - k), false);
		fakeclock_at(k * 1000);
		expect(c, "www.example.com", DNS_T_A, k * 1000 >= 270000 ?
		    CACHE_REFRESH : CACHE_FRESH, (uint32_t)(300 - k), false);
		fakeclock_at(k * 1000 + 1);
		expect(c, "www.example.com", DNS_T_A, k * 1000 + 1 >= 270000 ?
		    CACHE_REFRESH : CACHE_FRESH, (uint32_t)(300 - k), false);
	}
	fakeclock_at(299999);
	expect(c, "www.example.com", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(300000);
	expect(c, "www.example.com", DNS_T_A, CACHE_EXPIRED, 0, true);
	expect_data(c, "www.example.com", DNS_T_A, CACHE_POSITIVE, "abc");
	fakeclock_at(300001);
	expect(c, "www.example.com", DNS_T_A, CACHE_EXPIRED, 0, true);

	/* Expiry counts from the put, not from a whole second. */
	fakeclock_at(500123);
	put(c, "late.example.com", DNS_T_A, CACHE_POSITIVE, 10, "x");
	expect(c, "late.example.com", DNS_T_A, CACHE_FRESH, 10, false);
	fakeclock_at(500124);
	expect(c, "late.example.com", DNS_T_A, CACHE_FRESH, 10, false);
	fakeclock_at(501123);
	expect(c, "late.example.com", DNS_T_A, CACHE_FRESH, 9, false);
	fakeclock_at(510122);
	expect(c, "late.example.com", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(510123);
	expect(c, "late.example.com", DNS_T_A, CACHE_EXPIRED, 0, true);

	/* One second: 1 left for all of it. */
	fakeclock_at(600000);
	put(c, "one.example.com", DNS_T_A, CACHE_POSITIVE, 1, "x");
	fakeclock_at(600001);
	expect(c, "one.example.com", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(600999);
	expect(c, "one.example.com", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(601000);
	expect(c, "one.example.com", DNS_T_A, CACHE_EXPIRED, 0, true);

	/* TTL 0 (min_ttl 0): expired as soon as stored. */
	put(c, "zero.example.com", DNS_T_A, CACHE_POSITIVE, 0, "x");
	expect(c, "zero.example.com", DNS_T_A, CACHE_EXPIRED, 0, true);
	cache_free(c);
}

static void
test_clamps(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;

	lim.min_ttl = 60;
	lim.max_ttl = 3600;
	lim.negative_max_ttl = 900;
	c = new_cache(&lim);

	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 0), 60);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 10), 60);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 59), 60);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 60), 60);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 61), 61);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 3600), 3600);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, 3601), 3600);
	assert_int_equal(cache_clamp_ttl(c, CACHE_POSITIVE, UINT32_MAX), 3600);
	/* Negative answers: capped, never raised by min_ttl. */
	assert_int_equal(cache_clamp_ttl(c, CACHE_NXDOMAIN, 0), 0);
	assert_int_equal(cache_clamp_ttl(c, CACHE_NXDOMAIN, 5), 5);
	assert_int_equal(cache_clamp_ttl(c, CACHE_NXDOMAIN, 900), 900);
	assert_int_equal(cache_clamp_ttl(c, CACHE_NXDOMAIN, 901), 900);
	assert_int_equal(cache_clamp_ttl(c, CACHE_NODATA, 30), 30);
	assert_int_equal(cache_clamp_ttl(c, CACHE_NODATA, UINT32_MAX), 900);

	/* Stored entries live for the clamped TTL. */
	put(c, "low.example", DNS_T_A, CACHE_POSITIVE, 10, "x");
	put(c, "high.example", DNS_T_A, CACHE_POSITIVE, 86400, "x");
	put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 3600, NULL);
	put(c, "nxshort.example", DNS_T_A, CACHE_NXDOMAIN, 5, NULL);
	put(c, "nodata.example", DNS_T_AAAA, CACHE_NODATA, 86400, NULL);
	expect(c, "low.example", DNS_T_A, CACHE_FRESH, 60, false);
	expect(c, "high.example", DNS_T_A, CACHE_FRESH, 3600, false);
	expect(c, "nx.example", DNS_T_A, CACHE_FRESH, 900, false);
	expect(c, "nxshort.example", DNS_T_A, CACHE_FRESH, 5, false);
	expect(c, "nodata.example", DNS_T_AAAA, CACHE_FRESH, 900, false);
	fakeclock_at(4999);
	expect(c, "nxshort.example", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(5000);
	expect(c, "nxshort.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	fakeclock_at(59999);
	expect(c, "low.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(60000);
	expect(c, "low.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	fakeclock_at(899999);
	expect(c, "nx.example", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(900000);
	expect(c, "nx.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	expect(c, "nodata.example", DNS_T_AAAA, CACHE_EXPIRED, 0, false);
	fakeclock_at(3599999);
	expect(c, "high.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(3600000);
	expect(c, "high.example", DNS_T_A, CACHE_EXPIRED, 0, true);

	/* The largest TTL there is does not overflow anything. */
	lim.max_ttl = UINT32_MAX;
	cache_set_limits(c, &lim);
	put(c, "forever.example", DNS_T_A, CACHE_POSITIVE, UINT32_MAX, "x");
	expect(c, "forever.example", DNS_T_A, CACHE_FRESH, UINT32_MAX, false);
	fakeclock_advance((int64_t)UINT32_MAX * 1000 - 1);
	expect(c, "forever.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_advance(1);
	expect(c, "forever.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	cache_free(c);
}

/* REFRESH: exactly the last 10% of a positive entry's TTL. */
static void
test_refresh(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);

	put(c, "a.example", DNS_T_A, CACHE_POSITIVE, 100, "x");
	put(c, "b.example", DNS_T_A, CACHE_POSITIVE, 7, "x");
	put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 100, NULL);
	put(c, "nodata.example", DNS_T_A, CACHE_NODATA, 100, NULL);

	fakeclock_at(6299);
	expect(c, "b.example", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(6300);
	expect(c, "b.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(6999);
	expect(c, "b.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(7000);
	expect(c, "b.example", DNS_T_A, CACHE_EXPIRED, 0, true);

	fakeclock_at(89999);
	expect(c, "a.example", DNS_T_A, CACHE_FRESH, 11, false);
	fakeclock_at(90000);
	expect(c, "a.example", DNS_T_A, CACHE_REFRESH, 10, false);
	/* Not for negative entries, however close to expiry. */
	expect(c, "nx.example", DNS_T_A, CACHE_FRESH, 10, false);
	expect(c, "nodata.example", DNS_T_A, CACHE_FRESH, 10, false);
	fakeclock_at(99999);
	expect(c, "a.example", DNS_T_A, CACHE_REFRESH, 1, false);
	expect(c, "nx.example", DNS_T_A, CACHE_FRESH, 1, false);
	expect(c, "nodata.example", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(100000);
	expect(c, "a.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	expect(c, "nx.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	expect(c, "nodata.example", DNS_T_A, CACHE_EXPIRED, 0, false);

	/* A new answer starts a new TTL. */
	put(c, "a.example", DNS_T_A, CACHE_POSITIVE, 100, "y");
	expect(c, "a.example", DNS_T_A, CACHE_FRESH, 100, false);
	expect_data(c, "a.example", DNS_T_A, CACHE_POSITIVE, "y");
	cache_free(c);
}

/* Stale data: positive only, and only up to serve_stale past expiry. */
static void
test_stale(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;

	lim.serve_stale = 30;
	c = new_cache(&lim);
	put(c, "www.example", DNS_T_A, CACHE_POSITIVE, 10, "old");
	put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 10, NULL);
	put(c, "nodata.example", DNS_T_AAAA, CACHE_NODATA, 10, NULL);
	fakeclock_at(9999);
	expect(c, "www.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(10000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	expect(c, "nx.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	expect(c, "nodata.example", DNS_T_AAAA, CACHE_EXPIRED, 0, false);
	fakeclock_at(40000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	fakeclock_at(40001);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	/* Too old to serve, but still there until replaced or evicted. */
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	assert_int_equal(cache_count(c), 3);

	/* New limits apply to existing entries. */
	lim.serve_stale = 3600;
	cache_set_limits(c, &lim);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	cache_free(c);

	/* serve_stale = 0: never stale, not even at the instant of expiry. */
	lim.serve_stale = 0;
	c = new_cache(&lim);
	put(c, "www.example", DNS_T_A, CACHE_POSITIVE, 10, "old");
	fakeclock_at(9999);
	expect(c, "www.example", DNS_T_A, CACHE_REFRESH, 1, false);
	fakeclock_at(10000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	fakeclock_at(10001);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	assert_int_equal(cache_put_failure(c, "www.example", DNS_T_A, false), 0);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, false);
	cache_free(c);

	/* serve_stale = 1: up to 1000 ms past expiry, both ends included. */
	lim.serve_stale = 1;
	c = new_cache(&lim);
	put(c, "www.example", DNS_T_A, CACHE_POSITIVE, 10, "old");
	fakeclock_at(10000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	fakeclock_at(11000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	fakeclock_at(11001);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	cache_free(c);
}

/* A failure is remembered for failure_ttl; old data stays for stale serving. */
static void
test_failure(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_hit	 h;
	char			 longname[300];

	lim.failure_ttl = 5;
	lim.serve_stale = 30;
	c = new_cache(&lim);

	/* Nothing known before: FAILING with no data, never stale. */
	assert_int_equal(cache_put_failure(c, "down.example", DNS_T_A, false), 0);
	assert_int_equal(cache_count(c), 1);
	cache_peek(c, "down.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FAILING);
	assert_int_equal(h.status, CACHE_FAILED);
	assert_int_equal(h.len, 0);
	assert_int_equal(h.ttl_left, 0);
	assert_false(h.stale_ok);
	fakeclock_at(4999);
	expect(c, "down.example", DNS_T_A, CACHE_FAILING, 0, false);
	fakeclock_at(5000);
	expect(c, "down.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	cache_peek(c, "down.example", DNS_T_A, &h);
	assert_int_equal(h.status, CACHE_FAILED);
	/* Failing again: another failure_ttl. */
	assert_int_equal(cache_put_failure(c, "down.example", DNS_T_A, false), 0);
	assert_int_equal(cache_count(c), 1);
	fakeclock_at(9999);
	expect(c, "down.example", DNS_T_A, CACHE_FAILING, 0, false);
	/* An answer replaces the failure. */
	put(c, "down.example", DNS_T_A, CACHE_POSITIVE, 60, "up");
	expect(c, "down.example", DNS_T_A, CACHE_FRESH, 60, false);
	expect_data(c, "down.example", DNS_T_A, CACHE_POSITIVE, "up");
	cache_free(c);

	/* A fresh entry stays FRESH, with its data, while its refresh fails. */
	c = new_cache(&lim);
	put(c, "www.example", DNS_T_A, CACHE_POSITIVE, 10, "old");
	fakeclock_at(2000);
	assert_int_equal(cache_put_failure(c, "www.example", DNS_T_A, false), 0);
	expect(c, "www.example", DNS_T_A, CACHE_FRESH, 8, false);
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	fakeclock_at(9100);
	expect(c, "www.example", DNS_T_A, CACHE_REFRESH, 1, false);
	assert_int_equal(cache_put_failure(c, "www.example", DNS_T_A, false), 0);
	/* Its prefetch failed: not REFRESH again, so it is not asked again. */
	expect(c, "www.example", DNS_T_A, CACHE_FRESH, 1, false);
	fakeclock_at(9999);
	expect(c, "www.example", DNS_T_A, CACHE_FRESH, 1, false);
	/* Expired within the failure: FAILING, and the old data may serve. */
	fakeclock_at(10000);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, true);
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	fakeclock_at(14099);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, true);
	fakeclock_at(14100);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	cache_free(c);

	/* An expired entry: FAILING for failure_ttl, stale within serve_stale. */
	c = new_cache(&lim);
	put(c, "www.example", DNS_T_A, CACHE_POSITIVE, 10, "old");
	put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 10, NULL);
	fakeclock_at(12000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	assert_int_equal(cache_put_failure(c, "www.example", DNS_T_A, false), 0);
	assert_int_equal(cache_put_failure(c, "nx.example", DNS_T_A, false), 0);
	assert_int_equal(cache_count(c), 2);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, true);
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	/* Negative data is never served stale. */
	expect(c, "nx.example", DNS_T_A, CACHE_FAILING, 0, false);
	expect_data(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, "");
	fakeclock_at(16999);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, true);
	fakeclock_at(17000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, true);
	expect(c, "nx.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	/* Failing past serve_stale: FAILING, and nothing to serve. */
	fakeclock_at(39000);
	assert_int_equal(cache_put_failure(c, "www.example", DNS_T_A, false), 0);
	fakeclock_at(40000);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, true);
	fakeclock_at(40001);
	expect(c, "www.example", DNS_T_A, CACHE_FAILING, 0, false);
	expect_data(c, "www.example", DNS_T_A, CACHE_POSITIVE, "old");
	fakeclock_at(44000);
	expect(c, "www.example", DNS_T_A, CACHE_EXPIRED, 0, false);
	cache_free(c);

	/* failure_ttl = 0: nothing is remembered. */
	lim.failure_ttl = 0;
	c = new_cache(&lim);
	assert_int_equal(cache_put_failure(c, "down.example", DNS_T_A, false), 0);
	expect(c, "down.example", DNS_T_A, CACHE_EXPIRED, 0, false);

	/* Bad names. */
	memset(longname, 'a', 256);
	longname[256] = '\0';
	assert_int_equal(cache_put_failure(c, "", DNS_T_A, false), -EINVAL);
	assert_int_equal(cache_put_failure(c, longname, DNS_T_A, false), -EINVAL);
	assert_int_equal(cache_count(c), 1);
	cache_free(c);
}

/* The least recently looked up goes first; peeks change nothing. */
static void
test_lru(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_hit	 h;

	lim.max_entries = 3;
	c = new_cache(&lim);
	put(c, "a.example", DNS_T_A, CACHE_POSITIVE, 60, "a");
	put(c, "b.example", DNS_T_A, CACHE_POSITIVE, 60, "b");
	put(c, "c.example", DNS_T_A, CACHE_POSITIVE, 60, "c");
	assert_int_equal(cache_count(c), 3);
	/* Recency now c, b, a: a lookup of a makes it a, c, b. */
	cache_lookup(c, "a.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	put(c, "d.example", DNS_T_A, CACHE_POSITIVE, 60, "d");
	assert_int_equal(cache_count(c), 3);
	cache_peek(c, "b.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	expect_stats(c, 1, 0, 1, 4);

	/* d, a, c: peeking at c does not save it. */
	cache_peek(c, "c.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	put(c, "e.example", DNS_T_A, CACHE_POSITIVE, 60, "e");
	cache_peek(c, "c.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_peek(c, "a.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	cache_peek(c, "d.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);

	/* e, d, a: replacing a makes it the most recent. */
	put(c, "a.example", DNS_T_A, CACHE_POSITIVE, 60, "a2");
	put(c, "f.example", DNS_T_A, CACHE_POSITIVE, 60, "f");
	cache_peek(c, "d.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	expect_data(c, "a.example", DNS_T_A, CACHE_POSITIVE, "a2");
	expect_data(c, "e.example", DNS_T_A, CACHE_POSITIVE, "e");
	expect_data(c, "f.example", DNS_T_A, CACHE_POSITIVE, "f");

	/* f, a, e: an expired entry looked up is recent too. */
	fakeclock_at(61000);
	cache_lookup(c, "e.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_EXPIRED);
	put(c, "g.example", DNS_T_A, CACHE_POSITIVE, 60, "g");
	cache_peek(c, "a.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_peek(c, "e.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_EXPIRED);
	assert_int_equal(cache_count(c), 3);
	expect_stats(c, 1, 1, 4, 8);
	cache_free(c);
}

/*
 * Recency at scale: the slots' 16-bit stamps move once per 2^shift uses
 * (here 2, at 4,096 entries).  Names used again while 4,096 new ones
 * arrive outlive the ones left alone: sampled LRU is not exact, so most,
 * not all.
 */
static void
test_lru_sampled(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_hit	 h;
	char			 name[64];
	unsigned		 i, round, kept_hot = 0, kept_cold = 0;

	lim.max_entries = 4096;
	c = new_cache(&lim);
	for (i = 0; i < 4096; i++) {
		snprintf(name, sizeof(name), "old%u.example", i);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 600, "x");
	}
	/* The first 512 are used again between every 64 new names. */
	for (round = 0; round < 64; round++) {
		for (i = 0; i < 512; i++) {
			snprintf(name, sizeof(name), "old%u.example", i);
			cache_lookup(c, name, DNS_T_A, &h);
		}
		for (i = 0; i < 64; i++) {
			snprintf(name, sizeof(name), "new%u.example", round * 64 + i);
			put(c, name, DNS_T_A, CACHE_POSITIVE, 600, "y");
		}
	}
	assert_int_equal(cache_count(c), 4096);
	for (i = 0; i < 4096; i++) {
		snprintf(name, sizeof(name), "old%u.example", i);
		cache_peek(c, name, DNS_T_A, &h);
		if (h.state == CACHE_FRESH)
			*(i < 512 ? &kept_hot : &kept_cold) += 1;
	}
	print_message("after 4,096 new names: %u of 512 used names kept, %u of "
	    "3,584 unused\n", kept_hot, kept_cold);
	assert_true(kept_hot >= 500);
	assert_true(kept_cold < 3584 / 4);
	cache_free(c);
}

/* Shrinking the limit evicts the least recently used at once. */
static void
test_set_limits(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	struct cache_hit	 h;
	char			 name[32];
	unsigned		 i;

	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "n%u.example", i);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 60, name);
	}
	cache_lookup(c, "n2.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	lim.max_entries = 4;
	cache_set_limits(c, &lim);
	assert_int_equal(cache_count(c), 4);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "n%u.example", i);
		cache_peek(c, name, DNS_T_A, &h);
		assert_int_equal(h.state, i == 2 || i >= 7 ? CACHE_FRESH : CACHE_MISS);
	}
	expect_stats(c, 1, 0, 6, 10);

	/* Growing evicts nothing; 0 empties the cache and refuses entries. */
	lim.max_entries = 100;
	cache_set_limits(c, &lim);
	assert_int_equal(cache_count(c), 4);
	lim.max_entries = 0;
	cache_set_limits(c, &lim);
	assert_int_equal(cache_count(c), 0);
	assert_int_equal(cache_put(c, "x.example", DNS_T_A, CACHE_POSITIVE, 1,
	    "x", 1), -EINVAL);
	assert_int_equal(cache_put_failure(c, "x.example", DNS_T_A, false), -EINVAL);
	assert_int_equal(cache_count(c), 0);
	expect_stats(c, 1, 0, 10, 10);
	lim.max_entries = 1;
	cache_set_limits(c, &lim);
	put(c, "x.example", DNS_T_A, CACHE_POSITIVE, 1, "x");
	put(c, "y.example", DNS_T_A, CACHE_POSITIVE, 1, "y");
	assert_int_equal(cache_count(c), 1);
	expect_data(c, "y.example", DNS_T_A, CACHE_POSITIVE, "y");

	/* New clamps apply to new entries only. */
	lim.max_entries = 10;
	lim.max_ttl = 100;
	put(c, "old.example", DNS_T_A, CACHE_POSITIVE, 1000, "x");
	cache_set_limits(c, &lim);
	put(c, "new.example", DNS_T_A, CACHE_POSITIVE, 1000, "x");
	expect(c, "old.example", DNS_T_A, CACHE_FRESH, 1000, false);
	expect(c, "new.example", DNS_T_A, CACHE_FRESH, 100, false);
	cache_free(c);
}

/* Replacing an entry: same count, new data, status and TTL. */
static void
test_replace(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	size_t			 mem;

	put(c, "x.example", DNS_T_A, CACHE_POSITIVE, 100, "0123456789");
	mem = cache_memory(c);
	put(c, "X.Example", DNS_T_A, CACHE_POSITIVE, 200, "0123456789abcdef");
	assert_int_equal(cache_count(c), 1);
	/* 6 bytes more asked: the allocator's rounding decides what it costs. */
	assert_true(cache_memory(c) >= mem && cache_memory(c) <= mem + 6 + 32);
	expect(c, "x.example", DNS_T_A, CACHE_FRESH, 200, false);
	expect_data(c, "x.example", DNS_T_A, CACHE_POSITIVE, "0123456789abcdef");
	put(c, "x.example", DNS_T_A, CACHE_NXDOMAIN, 50, NULL);
	assert_int_equal(cache_count(c), 1);
	assert_true(cache_memory(c) <= mem);
	expect(c, "x.example", DNS_T_A, CACHE_FRESH, 50, false);
	expect_data(c, "x.example", DNS_T_A, CACHE_NXDOMAIN, "");
	expect_stats(c, 2, 0, 0, 3);
	cache_free(c);
}

/* Names compare case-insensitively (ASCII); kinds are separate keys. */
static void
test_keys(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	struct cache_item	 it;
	size_t			 cur = 0;

	put(c, "WWW.Example.COM", DNS_T_A, CACHE_POSITIVE, 60, "a");
	expect_data(c, "www.example.com", DNS_T_A, CACHE_POSITIVE, "a");
	expect_data(c, "WWW.EXAMPLE.COM", DNS_T_A, CACHE_POSITIVE, "a");
	expect_data(c, "wWw.eXaMpLe.CoM", DNS_T_A, CACHE_POSITIVE, "a");
	/* The walk shows the name lowercased. */
	assert_int_equal(cache_walk(c, &cur, &it), 1);
	assert_string_equal(it.name, "www.example.com");
	assert_int_equal(cache_walk(c, &cur, &it), 0);

	expect_miss(c, "www.example.co", DNS_T_A);
	expect_miss(c, "www.example.comm", DNS_T_A);
	expect_miss(c, "ww.example.com", DNS_T_A);
	expect_miss(c, "www.example.com.", DNS_T_A);
	/* Only ASCII folds: '@' and '`' sit beside 'A' and 'a'. */
	put(c, "caf\xc3\x89", DNS_T_A, CACHE_POSITIVE, 60, "e");
	expect_data(c, "CAF\xc3\x89", DNS_T_A, CACHE_POSITIVE, "e");
	expect_miss(c, "caf\xc3\xa9", DNS_T_A);
	put(c, "a@", DNS_T_A, CACHE_POSITIVE, 60, "at");
	expect_miss(c, "a`", DNS_T_A);
	expect_data(c, "A@", DNS_T_A, CACHE_POSITIVE, "at");

	/* Kinds: each its own entry (A and AAAA of a name: one, both halves). */
	put(c, "www.example.com", DNS_T_AAAA, CACHE_NODATA, 60, NULL);
	put(c, "www.example.com", CACHE_KIND_RR | DNS_T_A, CACHE_POSITIVE, 60, "rr");
	put(c, "www.example.com", CACHE_KIND_RR | DNS_T_MX, CACHE_POSITIVE, 60, "mx");
	assert_int_equal(cache_count(c), 5);
	expect_data(c, "www.example.com", DNS_T_A, CACHE_POSITIVE, "a");
	expect_data(c, "www.example.com", DNS_T_AAAA, CACHE_NODATA, "");
	expect_data(c, "www.example.com", CACHE_KIND_RR | DNS_T_A, CACHE_POSITIVE, "rr");
	expect_data(c, "www.example.com", CACHE_KIND_RR | DNS_T_MX, CACHE_POSITIVE, "mx");
	expect_miss(c, "www.example.com", DNS_T_PTR);
	expect_miss(c, "www.example.com", CACHE_KIND_RR | DNS_T_AAAA);
	expect_miss(c, "www.example.com", 0);
	cache_free(c);
}

/* Invalidate drops every kind of one name, and nothing else. */
static void
test_invalidate(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	char			 longname[300];
	size_t			 mem;

	mem = cache_memory(c);
	put(c, "www.example.com", DNS_T_A, CACHE_POSITIVE, 60, "a");
	put(c, "www.example.com", DNS_T_AAAA, CACHE_POSITIVE, 60, "aaaa");
	put(c, "www.example.com", DNS_T_PTR, CACHE_NXDOMAIN, 60, NULL);
	put(c, "www.example.com", CACHE_KIND_RR | DNS_T_MX, CACHE_POSITIVE, 60, "mx");
	assert_int_equal(cache_put_failure(c, "www.example.com", DNS_T_TXT, false), 0);
	put(c, "www.example.co", DNS_T_A, CACHE_POSITIVE, 60, "x");
	put(c, "www.example.comm", DNS_T_A, CACHE_POSITIVE, 60, "x");
	put(c, "xwww.example.com", DNS_T_A, CACHE_POSITIVE, 60, "x");
	put(c, "example.com", DNS_T_A, CACHE_POSITIVE, 60, "x");
	put(c, "www.example.org", DNS_T_AAAA, CACHE_POSITIVE, 60, "x");
	/* A and AAAA of www.example.com: one entry. */
	assert_int_equal(cache_count(c), 9);

	/* Entries as show-cache lists them: both halves. */
	assert_int_equal(cache_invalidate(c, "WWW.example.COM"), 5);
	assert_int_equal(cache_count(c), 5);
	expect_miss(c, "www.example.com", DNS_T_A);
	expect_miss(c, "www.example.com", DNS_T_AAAA);
	expect_miss(c, "www.example.com", DNS_T_PTR);
	expect_miss(c, "www.example.com", CACHE_KIND_RR | DNS_T_MX);
	expect_miss(c, "www.example.com", DNS_T_TXT);
	expect_data(c, "www.example.co", DNS_T_A, CACHE_POSITIVE, "x");
	expect_data(c, "www.example.comm", DNS_T_A, CACHE_POSITIVE, "x");
	expect_data(c, "xwww.example.com", DNS_T_A, CACHE_POSITIVE, "x");
	expect_data(c, "example.com", DNS_T_A, CACHE_POSITIVE, "x");
	expect_data(c, "www.example.org", DNS_T_AAAA, CACHE_POSITIVE, "x");

	assert_int_equal(cache_invalidate(c, "www.example.com"), 0);
	assert_int_equal(cache_invalidate(c, "nothing.example"), 0);
	assert_int_equal(cache_invalidate(c, ""), 0);
	memset(longname, 'a', 256);
	longname[256] = '\0';
	assert_int_equal(cache_invalidate(c, longname), 0);
	assert_int_equal(cache_count(c), 5);
	/* Invalidation is not eviction. */
	expect_stats(c, 0, 5, 0, 10);

	cache_flush(c);
	assert_int_equal(cache_count(c), 0);
	assert_int_equal(cache_memory(c), mem);
	expect_miss(c, "example.com", DNS_T_A);
	cache_flush(c);
	assert_int_equal(cache_count(c), 0);
	put(c, "example.com", DNS_T_A, CACHE_POSITIVE, 60, "y");
	expect_data(c, "example.com", DNS_T_A, CACHE_POSITIVE, "y");
	cache_free(c);
}

#define WALK_N	5000

static uint32_t
walk_kind(unsigned i)
{
	static const uint32_t kinds[] = {
		DNS_T_A, DNS_T_AAAA, DNS_T_PTR, CACHE_KIND_RR | DNS_T_MX,
	};

	return kinds[i % 4];
}

/* Every entry once, page after page, with lookups in between. */
static void
test_walk(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_item	 it;
	struct cache_hit	 h;
	char			 name[64], data[64];
	unsigned char		*seen;
	size_t			 cur = 0, *before;
	unsigned		 i, n = 0, k;

	lim.max_entries = 10000;
	c = new_cache(&lim);
	assert_int_equal(cache_walk(c, &cur, &it), 0);
	assert_int_equal(cache_walk(c, &cur, &it), 0);

	for (i = 0; i < WALK_N; i++) {
		snprintf(name, sizeof(name), "w%u.Example.Net", i);
		snprintf(data, sizeof(data), "data-%u", i);
		if (i % 5 == 4)
			put(c, name, walk_kind(i), CACHE_NXDOMAIN, 10, NULL);
		else
			put(c, name, walk_kind(i), CACHE_POSITIVE,
			    i < WALK_N / 2 ? 10 : 1000, data);
	}
	assert_int_equal(cache_count(c), WALK_N);
	fakeclock_at(10500);	/* the first half expired half a second ago */

	assert_non_null(seen = calloc(WALK_N, 1));
	assert_non_null(before = calloc(WALK_N + 1, sizeof(*before)));
	cur = 0;
	for (;;) {
		before[n] = cur;
		if (!cache_walk(c, &cur, &it))
			break;
		assert_int_equal(sscanf(it.name, "w%u.example.net", &i), 1);
		assert_true(i < WALK_N);
		snprintf(name, sizeof(name), "w%u.example.net", i);
		assert_string_equal(it.name, name);
		seen[i]++;
		assert_int_equal(it.kind, walk_kind(i));
		if (i % 5 == 4) {
			assert_int_equal(it.status, CACHE_NXDOMAIN);
			assert_int_equal(it.len, 0);
		} else {
			snprintf(data, sizeof(data), "data-%u", i);
			assert_int_equal(it.status, CACHE_POSITIVE);
			assert_int_equal(it.len, strlen(data));
			assert_memory_equal(it.data, data, it.len);
		}
		/* Negative entries and the first half had 10 s; 1000 s left 990. */
		if (i % 5 == 4 || i < WALK_N / 2) {
			assert_true(it.expired);
			assert_int_equal(it.ttl_left, 0);
		} else {
			assert_false(it.expired);
			assert_int_equal(it.ttl_left, 990);
		}
		/* Lookups between pages reorder recency, not the walk. */
		if (n % 100 == 99) {
			snprintf(name, sizeof(name), "w%u.example.net", n / 2);
			cache_lookup(c, name, walk_kind(n / 2), &h);
			assert_int_not_equal(h.state, CACHE_MISS);
		}
		n++;
		assert_true(n <= WALK_N);
	}
	assert_int_equal(n, WALK_N);
	for (i = 0; i < WALK_N; i++)
		if (seen[i] != 1)
			fail_msg("w%u.example.net seen %u times", i, seen[i]);
	/* The end stays the end. */
	assert_int_equal(cache_walk(c, &cur, &it), 0);

	/* A saved cursor resumes where it was: the same entry again. */
	for (k = 0; k < WALK_N; k += 487) {
		size_t cur2 = before[k], cur3;
		struct cache_item it2;

		assert_int_equal(cache_walk(c, &cur2, &it), 1);
		cur3 = before[k + 1];
		assert_int_equal(cur2, cur3);
		if (k + 1 < WALK_N) {
			assert_int_equal(cache_walk(c, &cur3, &it2), 1);
			assert_string_not_equal(it.name, it2.name);
		}
	}
	free(before);
	free(seen);
	cache_free(c);
}

static void
test_stats(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_hit	 h;
	char			 longname[300];

	lim.max_entries = 2;
	lim.failure_ttl = 5;
	c = new_cache(&lim);
	expect_stats(c, 0, 0, 0, 0);
	cache_lookup(c, "a.example", DNS_T_A, &h);		/* miss */
	expect_stats(c, 0, 1, 0, 0);
	put(c, "a.example", DNS_T_A, CACHE_POSITIVE, 10, "a");
	expect_stats(c, 0, 1, 0, 1);
	cache_lookup(c, "a.example", DNS_T_A, &h);		/* fresh: hit */
	assert_int_equal(h.state, CACHE_FRESH);
	cache_peek(c, "a.example", DNS_T_A, &h);		/* counts nothing */
	cache_peek(c, "b.example", DNS_T_A, &h);
	expect_stats(c, 1, 1, 0, 1);
	fakeclock_at(9500);
	cache_lookup(c, "a.example", DNS_T_A, &h);		/* refresh: hit */
	assert_int_equal(h.state, CACHE_REFRESH);
	expect_stats(c, 2, 1, 0, 1);
	fakeclock_at(10000);
	cache_lookup(c, "a.example", DNS_T_A, &h);		/* expired: miss */
	assert_int_equal(h.state, CACHE_EXPIRED);
	expect_stats(c, 2, 2, 0, 1);
	assert_int_equal(cache_put_failure(c, "a.example", DNS_T_A, false), 0);
	expect_stats(c, 2, 2, 0, 1);
	cache_lookup(c, "a.example", DNS_T_A, &h);		/* failing: hit */
	assert_int_equal(h.state, CACHE_FAILING);
	expect_stats(c, 3, 2, 0, 1);
	assert_int_equal(cache_put_failure(c, "b.example", DNS_T_A, false), 0);
	expect_stats(c, 3, 2, 0, 2);
	fakeclock_at(15000);
	cache_lookup(c, "b.example", DNS_T_A, &h);		/* failure over: miss */
	assert_int_equal(h.state, CACHE_EXPIRED);
	expect_stats(c, 3, 3, 0, 2);
	memset(longname, 'a', 256);
	longname[256] = '\0';
	cache_lookup(c, longname, DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	expect_stats(c, 3, 4, 0, 2);
	put(c, "c.example", DNS_T_A, CACHE_POSITIVE, 10, "c");	/* evicts a */
	put(c, "d.example", DNS_T_A, CACHE_NODATA, 10, NULL);	/* evicts b */
	expect_stats(c, 3, 4, 2, 4);
	cache_lookup(c, "d.example", DNS_T_A, &h);		/* negative: hit */
	assert_int_equal(h.state, CACHE_FRESH);
	expect_stats(c, 4, 4, 2, 4);
	/* Rejected puts count nothing. */
	assert_int_equal(cache_put(c, "", DNS_T_A, CACHE_POSITIVE, 1, NULL, 0),
	    -EINVAL);
	expect_stats(c, 4, 4, 2, 4);
	/* Flushing is not evicting. */
	cache_flush(c);
	expect_stats(c, 4, 4, 2, 4);
	cache_reset_stats(c);
	expect_stats(c, 0, 0, 0, 0);
	cache_free(c);
}

/* cache_memory: entries, names and data, and the table; flush gives it back. */
static void
test_memory(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	char			 name[64], data[41];
	size_t			 base, mem, prev, step = 0, full;
	unsigned		 i;

	lim.max_entries = 100000;
	c = new_cache(&lim);
	memset(data, 'd', 40);
	data[40] = '\0';
	base = prev = cache_memory(c);
	assert_true(base > 0);
	/* 1000 entries: under the table's first size, so it does not grow. */
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "m%04u.example.com", i);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 60, data);
		mem = cache_memory(c);
		assert_true(mem > prev);
		/*
		 * The name with its NUL, the data, and a header, as the
		 * allocator gave them: a chunk reused from a free list may be
		 * a little larger than asked, and counts as what it is.
		 */
		assert_true(mem - prev >= 18 + 40 + 8);
		assert_true(mem - prev <= 18 + 40 + 128 + 64);
		if (i == 0)
			step = mem - prev;
		prev = mem;
	}
	print_message("entry of a 17-character name and 40 bytes: %zu bytes\n",
	    step);
	assert_int_equal(cache_invalidate(c, "m0000.example.com"), 1);
	assert_true(cache_memory(c) < prev && prev - cache_memory(c) >= 18 + 40 + 8);
	cache_flush(c);
	assert_int_equal(cache_memory(c), base);

	/* More entries than the table had buckets: it grows, and stays. */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "m%04u.example.com", i);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 60, data);
	}
	full = cache_memory(c);
	assert_true(full >= base + 5000 * (18 + 40 + 8));
	cache_flush(c);
	mem = cache_memory(c);
	assert_true(mem >= base && mem < full);
	/* Every entry's cost came back (each as the allocator sized it). */
	assert_true(full - mem >= 5000 * (18 + 40 + 8));
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "m%04u.example.com", i);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 60, data);
	}
	assert_true(cache_memory(c) >= full - 5000 * 32 &&
	    cache_memory(c) <= full + 5000 * 32);
	cache_free(c);
}

/* Bad input is refused and changes nothing. */
static void
test_rejects(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c = new_cache(&lim);
	struct cache_hit	 h;
	char			 name[300];
	uint8_t			*big;

	cache_free(NULL);
	memset(name, 'a', sizeof(name));
	name[255] = '\0';
	put(c, name, DNS_T_A, CACHE_POSITIVE, 60, "x");	/* 255: the most */
	expect_data(c, name, DNS_T_A, CACHE_POSITIVE, "x");
	assert_int_equal(cache_invalidate(c, name), 1);
	name[255] = 'a';
	name[256] = '\0';
	assert_int_equal(cache_put(c, name, DNS_T_A, CACHE_POSITIVE, 60, "x", 1),
	    -EINVAL);
	cache_peek(c, name, DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	assert_int_equal(cache_put(c, "", DNS_T_A, CACHE_POSITIVE, 60, "x", 1),
	    -EINVAL);
	cache_peek(c, "", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);

	/* Status: an answer, NXDOMAIN or NODATA; a failure is put otherwise. */
	assert_int_equal(cache_put(c, "x.example", DNS_T_A, CACHE_FAILED, 60,
	    NULL, 0), -EINVAL);
	assert_int_equal(cache_put(c, "x.example", DNS_T_A, 4, 60, NULL, 0),
	    -EINVAL);
	assert_int_equal(cache_put(c, "x.example", DNS_T_A, -1, 60, NULL, 0),
	    -EINVAL);
	assert_int_equal(cache_put(c, "x.example", DNS_T_A, 256, 60, NULL, 0),
	    -EINVAL);

	/* Data: up to 64 KiB, copied. */
	assert_non_null(big = malloc(65537));
	memset(big, 0x5a, 65537);
	assert_int_equal(cache_put(c, "big.example", DNS_T_A, CACHE_POSITIVE, 60,
	    big, 65537), -EINVAL);
	assert_int_equal(cache_count(c), 0);
	assert_int_equal(cache_put(c, "big.example", DNS_T_A, CACHE_POSITIVE, 60,
	    big, 65536), 0);
	memset(big, 0, 65537);
	cache_peek(c, "big.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	assert_int_equal(h.len, 65536);
	assert_true(h.data[0] == 0x5a && h.data[65535] == 0x5a);
	free(big);
	assert_int_equal(cache_count(c), 1);
	expect_stats(c, 0, 0, 0, 2);
	cache_free(c);
}

/*
 * A million answers of one name and two addresses, as the daemon stores
 * them: the memory per entry is what the documentation promises.
 */
#define MILLION	1000000

static void
test_million(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	struct cache_hit	 h;
	struct timespec		 t0, t1, c0, c1;
	uint8_t			 body[128], a[4];
	char			 name[64];
	size_t			 base, mem, len = 0;
	double			 per, secs, cpu;
	unsigned		 i;
	int			 n;

	lim.max_entries = MILLION;
	c = new_cache(&lim);
	base = cache_memory(c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	for (i = 0; i < MILLION; i++) {
		n = snprintf(name, sizeof(name), "host%06u.example.com", i);
		proto_wr_init(&w, body, sizeof(body));
		proto_answer_begin(&aw, &w, 0, PROTO_SRC_DNS, name, (size_t)n);
		a[0] = 10;
		a[1] = (uint8_t)(i >> 16);
		a[2] = (uint8_t)(i >> 8);
		a[3] = (uint8_t)i;
		proto_answer_addr(&aw, PROTO_AF_INET, a);
		a[0] = 11;
		proto_answer_addr(&aw, PROTO_AF_INET, a);
		assert_int_equal(proto_answer_end(&aw), 0);
		len = w.off;
		if (cache_put(c, name, DNS_T_A, CACHE_POSITIVE, 3600, body, len) != 0)
			fail_msg("cache_put %u failed", i);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(cache_count(c), MILLION);
	mem = cache_memory(c);
	per = (double)(mem - base) / MILLION;
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	cpu = (double)(c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
	print_message("1,000,000 entries of a 22-character name and %zu bytes "
	    "of answer: cache_memory %zu bytes, %.1f bytes per entry "
	    "(%.1f with the empty cache); inserted in %.2f s (%.2f s of CPU)\n",
	    len, mem, per, (double)mem / MILLION, secs, cpu);
	assert_true((double)mem / MILLION < 200);
	assert_true(len >= 40 && len <= 48);

	cache_peek(c, "HOST000000.example.com", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	assert_int_equal(h.len, len);
	cache_peek(c, "host999999.example.com", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	cache_flush(c);
	assert_true(cache_memory(c) < base + (mem - base) / 10);
	cache_free(c);
}

/*
 * Issue 12: a bound in bytes as well as in entries.  Entries of 30 KiB under
 * a 100 KiB bound: the least recently used go, the bound holds whatever the
 * allocator rounds to (so no exact sizes are assumed), and small entries
 * still fill the cache up to its count.
 */
static void
test_byte_bound(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;
	struct cache_hit	 hit;
	static uint8_t		 big[30 * 1024];
	char			 name[32];
	int			 i;

	lim.max_bytes = 100 * 1024;
	c = new_cache(&lim);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "big%d.test", i);
		assert_int_equal(cache_put(c, name, 16, CACHE_POSITIVE, 300, big,
		    sizeof(big)), 0);
		assert_true(cache_memory(c) - 1024 * sizeof(void *) <= lim.max_bytes);
	}
	assert_true(cache_count(c) >= 2 && cache_count(c) <= 3);
	cache_lookup(c, "big9.test", 16, &hit);
	assert_int_equal(hit.state, CACHE_FRESH);	/* the newest stays */
	cache_lookup(c, "big0.test", 16, &hit);
	assert_int_equal(hit.state, CACHE_MISS);	/* the oldest went first */
	/* Touching big7 makes big8 the least recently used. */
	if (cache_count(c) == 3) {
		cache_lookup(c, "big7.test", 16, &hit);
		assert_int_equal(cache_put(c, "big10.test", 16, CACHE_POSITIVE, 300, big,
		    sizeof(big)), 0);
		cache_lookup(c, "big7.test", 16, &hit);
		assert_int_equal(hit.state, CACHE_FRESH);
		cache_lookup(c, "big8.test", 16, &hit);
		assert_int_equal(hit.state, CACHE_MISS);
	}
	/* Shrinking the bound evicts at once (it counts the slots too: 16 KiB). */
	lim.max_bytes = 60 * 1024;
	cache_set_limits(c, &lim);
	assert_int_equal(cache_count(c), 1);
	/* Small entries: the count bounds them first. */
	lim.max_bytes = 1 << 20;
	lim.max_entries = 50;
	cache_set_limits(c, &lim);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "small%d.test", i);
		assert_int_equal(cache_put(c, name, 1, CACHE_POSITIVE, 300, "abcd", 4), 0);
	}
	assert_int_equal(cache_count(c), 50);
	cache_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_clamps),
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_lru),
		cmocka_unit_test(test_lru_sampled),
		cmocka_unit_test(test_set_limits),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_invalidate),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_byte_bound),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_million),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
