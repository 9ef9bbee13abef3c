/* SPDX-License-Identifier: MIT */
/* daemon/engine/cache-evict.c - the cache's bounds: its store's geometry, the sampled LRU, room made for a write. */

/*
 * cache.c's design block says how a use is stamped and why a sample of 16
 * entries stands in for LRU.  Here the bounds are kept: the store's
 * geometry for the limits, the victim chosen when a bound is reached, a
 * write retried after more evictions, and a store rebuilt when new
 * limits change its geometry.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache.h"
#include "cache-int.h"
#include "store.h"

#define SAMPLE		16	/* entries read to choose one to evict */

/* The store's bounds for these limits: a byte bound of 0 is none. */
struct store *
cache_store_for(const struct cache_limits *lim, const char *path)
{
	return store_new(path, lim->max_entries ? lim->max_entries : 1,
	    lim->max_bytes, lim->store_page);
}

/* The shift of the slots' 16-bit stamps: a cache-full of uses moves them ~1,024. */
unsigned
cache_stamp_shift(size_t max_entries)
{
	unsigned shift = 0;

	while ((max_entries >> shift) > 1024)
		shift++;
	return shift;
}

static uint64_t
next_rand(struct cache *c)
{
	c->rand ^= c->rand << 13;
	c->rand ^= c->rand >> 7;
	c->rand ^= c->rand << 17;
	return c->rand;
}

/* The least recently used of a sample of entries goes. */
static bool
evict_one(struct cache *c)
{
	uint32_t	 n = store_nslots(c->st), i, seen = 0, k;
	uint16_t	 now = cache_stamp_of(c), age, best_age = 0;
	long		 victim = -1;

	if (store_count(c->st) == 0)
		return false;
	i = (uint32_t)(next_rand(c) % n);
	for (k = 0; k < n && seen < SAMPLE; k++, i = i + 1 == n ? 0 : i + 1) {
		if (store_at(c->st, i) == NULL)
			continue;
		seen++;
		/* Unsigned: a stamp from before the counter wrapped looks young. */
		age = (uint16_t)(now - store_stamp(c->st, i));
		if (victim < 0 || age > best_age) {
			best_age = age;
			victim = i;
		}
	}
	if (victim < 0)
		return false;
	store_remove(c->st, (size_t)victim);
	c->stats.evictions++;
	return true;
}

static void
evict_over(struct cache *c)
{
	while (store_over(c->st, c->lim.max_entries))
		if (!evict_one(c))
			break;
}

/* A new store of the geometry lim asks for, with every entry copied. */
static int
rebuild(struct cache *c)
{
	struct store			*old = c->st, *st;
	const struct store_header	*h = store_header(old);
	struct cache_adopt_report	 rep;

	if ((st = cache_store_for(&c->lim, store_path(old))) == NULL)
		return -errno;
	store_set_fps(st, c->search_fp, c->modules_fp);
	c->st = st;
	cache_copy_image(c, h, h->file_size, NULL, false, false, &rep);
	store_free(old);
	return 0;
}

void
cache_set_limits(struct cache *c, const struct cache_limits *lim)
{
	struct store_stats	 a;
	struct store		*probe;
	bool			 same;

	c->lim = *lim;
	c->stamp_shift = cache_stamp_shift(lim->max_entries);
	store_set_max_bytes(c->st, lim->max_bytes);
	evict_over(c);
	/* A geometry of its own: a new store, when it differs. */
	store_get_stats(c->st, &a);
	if ((probe = cache_store_for(lim, NULL)) == NULL)
		return;
	{
		struct store_stats b;

		store_get_stats(probe, &b);
		same = a.nslots == b.nslots && a.npages == b.npages;
	}
	store_free(probe);
	if (!same)
		rebuild(c);
	evict_over(c);
}

static int put_rec(struct cache *c, const struct store_rec *tmpl, uint16_t stamp,
    const char *lname, size_t nlen, const void *data, size_t len);

/*
 * Writes (lname, tmpl->kind), timed: the longest write is how long a
 * put may stop the loop (the bench reads it at a million entries).
 */
int
cache_put_rec(struct cache *c, const struct store_rec *tmpl, uint16_t stamp,
    const char *lname, size_t nlen, const void *data, size_t len)
{
	struct timespec	t0, t1;
	uint64_t	usec;
	int		r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = put_rec(c, tmpl, stamp, lname, nlen, data, len);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	usec = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000);
	if (usec > c->stats.put_max_usec)
		c->stats.put_max_usec = usec;
	return r;
}

/* Room made first, a retry after more evictions. */
static int
put_rec(struct cache *c, const struct store_rec *tmpl, uint16_t stamp,
    const char *lname, size_t nlen, const void *data, size_t len)
{
	size_t	need = store_cost(nlen, len);
	long	i;
	int	tries;
	/* A replacement takes no slot of its own. */
	bool	replacing = store_find(c->st, tmpl->kind, lname, nlen,
		    store_hash(c->st, tmpl->kind, lname, nlen)) >= 0;

	for (tries = 0; tries < 4; tries++) {
		while (!store_room(c->st, need, c->lim.max_entries + replacing))
			if (!evict_one(c))
				break;
		if ((i = store_put(c->st, tmpl, stamp, lname, data, len)) >= 0) {
			c->stats.insertions++;
			return 0;
		}
		if (i != -ENOSPC)
			return (int)i;
		/* No page to be had as things are: a few more go. */
		for (int k = 0; k < 16 && evict_one(c); k++)
			;
	}
	return -ENOMEM;
}
