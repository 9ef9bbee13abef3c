/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nomem-store.c - the cache and its store with each allocation failing in turn. */

/*
 * Built with the allocators wrapped (nomem.h).  Each scenario runs again
 * and again, the Nth allocation of the cache and the store failing in the
 * Nth run, until a run ends without reaching N.  Every call must then
 * succeed or say -ENOMEM (a cache that cannot be made is NULL; a file
 * that cannot be made leaves the cache in memory); nothing may crash or
 * leak (LeakSanitizer, under ASan); and with no failure any more, the
 * same cache stores and answers a name, and the store's file opens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache.h"
#include "dnsmsg.h"
#include "fakeclock.h"
#include "proto.h"
#include "store.h"
#include "nomem.h"

#define PA	(CACHE_KIND_PAIR | DNS_T_A)
#define PAAAA	(CACHE_KIND_PAIR | DNS_T_AAAA)

static char	dir[64];
static char	path[128];

static struct cache_limits
limits(void)
{
	struct cache_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 1000;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	lim.serve_stale = 60;
	return lim;
}

static size_t
answer(uint8_t *buf, size_t cap, const char *canon, unsigned last)
{
	struct proto_wr		w;
	struct proto_answer_wr	aw;
	uint8_t			addr[4] = { 192, 0, 2, (uint8_t)last };

	proto_wr_init(&w, buf, cap);
	proto_answer_begin(&aw, &w, 300, PROTO_SRC_DNS, canon, strlen(canon));
	proto_answer_addr(&aw, PROTO_AF_INET, addr);
	assert_true(proto_answer_end(&aw) >= 0);
	return w.off;
}

/* 0 or -ENOMEM, and -ENOMEM only once a failure was made. */
static void
ok_or_nomem(int r)
{
	if (r == 0)
		return;
	assert_int_equal(r, -ENOMEM);
	assert_true(nomem_failed());
}

static void
put(struct cache *c, const char *name, uint32_t kind, unsigned last)
{
	uint8_t	body[300];
	size_t	n = answer(body, sizeof(body), name, last);

	ok_or_nomem(cache_put(c, name, kind, CACHE_POSITIVE, 600, body, n));
}

/* Many names (the store's slots and pages grow), pairs, failures, negatives. */
static void
fill(struct cache *c, unsigned n)
{
	char		name[64];
	unsigned	i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "host%u.example", i);
		put(c, name, DNS_T_A, i % 250);
	}
	cache_hold(c);
	put(c, "pair.example", PA, 1);
	put(c, "pair.example", PAAAA, 2);
	ok_or_nomem(cache_release(c));
	ok_or_nomem(cache_put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 60, NULL, 0));
	ok_or_nomem(cache_put_failure(c, "down.example", DNS_T_A, false));
	ok_or_nomem(cache_put_failure(c, "host1.example", DNS_T_A, false));
}

/* Reads, walks, invalidations, evictions: whatever is there. */
static void
use(struct cache *c)
{
	struct cache_item	 item;
	struct cache_hit	 h, hh[2];
	uint8_t			*bufs[2];
	size_t			 cursor = 0, walked = 0;
	struct cache_limits	 lim = limits();

	assert_non_null(bufs[0] = malloc(CACHE_DATA_MAX));
	assert_non_null(bufs[1] = malloc(CACHE_DATA_MAX));
	cache_lookup(c, "host7.example", DNS_T_A, &h);
	cache_lookup_addrs(c, "pair.example", CACHE_KIND_PAIR, hh, bufs);
	cache_lookup(c, "nx.example", DNS_T_A, &h);
	while (cache_walk(c, &cursor, &item) == 1)
		walked++;
	assert_true(walked >= cache_count(c));
	cache_invalidate(c, "host3.example");
	lim.max_entries = 100;		/* a smaller store: a new one, evictions */
	cache_set_limits(c, &lim);
	lim.max_entries = 30000;	/* a larger one */
	cache_set_limits(c, &lim);
	fakeclock_advance(700 * 1000);
	cache_lookup(c, "host7.example", DNS_T_A, &h);
	free(bufs[0]);
	free(bufs[1]);
}

/* With no failure: the same cache stores a name and answers it. */
static void
still_works(struct cache *c)
{
	struct cache_hit	h;
	uint8_t			body[300];
	size_t			n = answer(body, sizeof(body), "after.example", 42);

	nomem_hold(true);
	assert_int_equal(cache_put(c, "after.example", DNS_T_A, CACHE_POSITIVE, 600,
	    body, n), 0);
	cache_lookup(c, "after.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	assert_int_equal(h.status, CACHE_POSITIVE);
	nomem_hold(false);
}

/* A cache in memory. */
static void
in_memory(void)
{
	struct cache_limits	 lim = limits();
	struct cache		*c;

	lim.max_entries = 300;
	fakeclock_at(0);
	if ((c = cache_new(&lim, fakeclock_now, NULL)) == NULL) {
		assert_true(nomem_failed());
		return;
	}
	fill(c, 600);
	use(c);
	cache_flush(c);
	fill(c, 50);
	still_works(c);
	cache_free(c);
}

/* A cache in a file, closed, and the next one taking it over; rebuilt. */
static void
in_a_file(void)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_stats		 st;
	struct cache			*c;
	int				 r;

	lim.max_entries = 20000;
	fakeclock_at(0);
	if ((c = cache_new(&lim, fakeclock_now, NULL)) == NULL) {
		assert_true(nomem_failed());
		return;
	}
	cache_set_fps(c, 1, 2);
	ok_or_nomem(cache_open_file(c, path, &rep));
	fill(c, 5000);		/* past the first 4096 slots: they grow */
	cache_get_store_stats(c, &st);
	assert_true(st.grows > 0 || nomem_failed());
	cache_free(c);

	fakeclock_at(20000);
	if ((c = cache_new(&lim, fakeclock_now, NULL)) == NULL) {
		assert_true(nomem_failed());
		return;
	}
	cache_set_fps(c, 1, 2);
	r = cache_open_file(c, path, &rep);
	ok_or_nomem(r);
	use(c);
	fill(c, 20);
	still_works(c);
	cache_free(c);
}

/* Runs one scenario with allocation 1, 2, ... failing. */
static void
every_failure(const char *what, void (*scenario)(void))
{
	struct cache_adopt_report	 rep;
	struct cache_limits		 lim = limits();
	struct cache			*c;
	long				 n, count;
	char				 p[160];

	for (n = 1; ; n++) {
		snprintf(dir, sizeof(dir), "/tmp/nc-nomem-store-XXXXXX");
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/store", dir);
		nomem_arm(n);
		scenario();
		count = nomem_count();
		/* With no failure: the file (if any) opens, and the cache works. */
		nomem_arm(0);
		assert_non_null(c = cache_new(&lim, fakeclock_now, NULL));
		assert_int_equal(cache_open_file(c, path, &rep), 0);
		still_works(c);
		cache_free(c);
		unlink(path);
		snprintf(p, sizeof(p), "%s.new", path);
		unlink(p);
		assert_int_equal(rmdir(dir), 0);
		if (count < n)
			break;
	}
	print_message("%s: %ld allocations, each failed in turn\n", what, n - 1);
	assert_true(n > 1);
	assert_int_equal(nomem_leaks(), 0);
}

static void
test_in_memory(void **state)
{
	every_failure("cache in memory", in_memory);
}

static void
test_in_a_file(void **state)
{
	every_failure("cache in a file, taken over", in_a_file);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_in_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
