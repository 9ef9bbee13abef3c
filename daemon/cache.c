/* SPDX-License-Identifier: MIT */
/* daemon/cache.c - TTL cache of answers, keyed by (name, kind). */

/*
 * Design.  Single-threaded: the event loop owns the cache.  Time comes from
 * an injected clock, so tests move it instead of sleeping.
 *
 * Expiry model.  An entry stores the absolute time it expires and the TTL
 * it was given.  Before expiry it is served, counting down; in the last
 * 10% of its TTL (ttl_refresh_due, the rule the shared segment's readers
 * and the nscd map's sweeper follow too) a positive entry's lookup also
 * says "refresh" (prefetch, so popular names
 * never miss).  After expiry it is never served while upstream answers:
 * the lookup says "expired", the caller asks upstream, and only if that
 * fails may the old answer be served, for at most serve_stale seconds
 * past expiry (RFC 8767).  A failure is remembered for failure_ttl seconds
 * (RFC 9520), so a broken upstream is not asked again for every client.
 *
 * Layout.  One allocation per entry: a 66-byte header, the lowercased name
 * once, then the data.  A chained hash table (keyed SipHash, so clients
 * cannot choose colliding names) finds entries; a doubly linked list keeps
 * them in recency order, and the least recently used goes first when the
 * cache is full.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cache.h"
#include "hash.h"
#include "name.h"
#include "ttl.h"

#define DATA_MAX	65536

struct centry {
	struct centry	*hnext;		/* hash chain */
	struct centry	*prev;		/* recency list: prev is more recent */
	struct centry	*next;
	uint64_t	 hash;
	int64_t		 expires;	/* ms; the data's expiry */
	int64_t		 failed_until;	/* ms; 0 when no failure is remembered */
	uint32_t	 ttl;		/* seconds, as stored after clamping */
	uint32_t	 len;		/* data bytes */
	uint32_t	 kind;
	uint32_t	 cost;		/* bytes of heap it holds: malloc_usable_size
					   and the allocator's header */
	uint8_t		 status : 7;	/* enum cache_status */
	uint8_t		 failed_notfound : 1;	/* with failed_until */
	uint8_t		 name_len;
	char		 name[];	/* lowercased, NUL, then data; 66 bytes in:
					   a byte more costs 16 of malloc for some
					   names (entry_size counts from here) */
};

struct cache {
	struct cache_limits	 lim;
	cache_clock_fn		*now;
	void			*now_arg;
	struct centry		**buckets;
	size_t			 nbuckets;	/* a power of two */
	size_t			 count;
	size_t			 bytes;		/* entries' allocations */
	struct centry		*head;		/* most recently used */
	struct centry		*tail;
	uint64_t		 key[2];	/* SipHash key */
	struct cache_stats	 stats;
};

/* SipHash-1-3 of the kind (four bytes, big-endian) and the lowercased name. */
static uint64_t
key_hash(const struct cache *c, const char *name, size_t len, uint32_t kind)
{
	uint8_t buf[4 + 255];

	assert(len <= 255);
	buf[0] = (uint8_t)(kind >> 24);
	buf[1] = (uint8_t)(kind >> 16);
	buf[2] = (uint8_t)(kind >> 8);
	buf[3] = (uint8_t)kind;
	name_fold(buf + 4, name, len);
	return hash_siphash13(c->key, buf, 4 + len);
}

static bool
name_eq(const char *lowered, const char *name, size_t len)
{
	return name_eq_fold(lowered, name, len) && lowered[len] == '\0';
}

static uint8_t *
entry_data(struct centry *e)
{
	return (uint8_t *)e->name + e->name_len + 1;
}

/* From the name's offset, not sizeof: the struct's 6 bytes of tail
 * padding hold the name's first bytes (malloc's classes step by 16). */
static size_t
entry_size(size_t name_len, size_t len)
{
	return offsetof(struct centry, name) + name_len + 1 + len;
}

static void
lru_unlink(struct cache *c, struct centry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void
lru_push_front(struct cache *c, struct centry *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (c->tail == NULL)
		c->tail = e;
}

static struct centry **
find_slot(struct cache *c, const char *name, size_t len, uint32_t kind, uint64_t h)
{
	struct centry **pp = &c->buckets[h & (c->nbuckets - 1)];

	for (; *pp; pp = &(*pp)->hnext)
		if ((*pp)->hash == h && (*pp)->kind == kind &&
		    (*pp)->name_len == len && name_eq((*pp)->name, name, len))
			break;
	return pp;
}

static void
entry_remove(struct cache *c, struct centry *e)
{
	struct centry **pp = &c->buckets[e->hash & (c->nbuckets - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	lru_unlink(c, e);
	c->count--;
	c->bytes -= e->cost;
	free(e);
}

/* The least recently used go first, while either bound is passed. */
static void
evict(struct cache *c)
{
	while (c->tail && (c->count > c->lim.max_entries ||
	    (c->lim.max_bytes && c->bytes > c->lim.max_bytes))) {
		entry_remove(c, c->tail);
		c->stats.evictions++;
	}
}

/* Grows the table so chains stay short: one bucket per entry. */
static void
maybe_grow(struct cache *c)
{
	struct centry	**nb, *e, *next;
	size_t		  n = c->nbuckets * 2, i;

	if (c->count < c->nbuckets)
		return;
	if ((nb = calloc(n, sizeof(*nb))) == NULL)
		return;		/* longer chains, still correct */
	for (i = 0; i < c->nbuckets; i++) {
		for (e = c->buckets[i]; e; e = next) {
			next = e->hnext;
			e->hnext = nb[e->hash & (n - 1)];
			nb[e->hash & (n - 1)] = e;
		}
	}
	free(c->buckets);
	c->buckets = nb;
	c->nbuckets = n;
}

struct cache *
cache_new(const struct cache_limits *lim, cache_clock_fn *now, void *arg)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->lim = *lim;
	c->now = now;
	c->now_arg = arg;
	c->nbuckets = 1024;
	if ((c->buckets = calloc(c->nbuckets, sizeof(*c->buckets))) == NULL) {
		free(c);
		return NULL;
	}
	if (getrandom(c->key, sizeof(c->key), GRND_NONBLOCK) != sizeof(c->key)) {
		/* Early boot: a weaker key beats no cache. */
		c->key[0] = (uint64_t)(uintptr_t)c ^ (uint64_t)now(arg);
		c->key[1] = (uint64_t)(uintptr_t)&c ^ 0x9e3779b97f4a7c15ULL;
	}
	return c;
}

void
cache_free(struct cache *c)
{
	if (c == NULL)
		return;
	cache_flush(c);
	free(c->buckets);
	free(c);
}

void
cache_set_limits(struct cache *c, const struct cache_limits *lim)
{
	c->lim = *lim;
	evict(c);
}

static void
lookup(struct cache *c, const char *name, uint32_t kind, struct cache_hit *ret,
    bool touch);

void
cache_lookup(struct cache *c, const char *name, uint32_t kind,
    struct cache_hit *ret)
{
	lookup(c, name, kind, ret, true);
}

void
cache_peek(struct cache *c, const char *name, uint32_t kind,
    struct cache_hit *ret)
{
	lookup(c, name, kind, ret, false);
}

static void
lookup(struct cache *c, const char *name, uint32_t kind, struct cache_hit *ret,
    bool touch)
{
	struct cache_stats	 junk = { 0 }, *st = touch ? &c->stats : &junk;
	size_t		 len = strlen(name);
	struct centry	*e;
	int64_t		 now, left;

	memset(ret, 0, sizeof(*ret));
	if (len > 255) {
		st->misses++;
		return;
	}
	e = *find_slot(c, name, len, kind, key_hash(c, name, len, kind));
	if (e == NULL) {
		st->misses++;
		return;
	}
	now = c->now(c->now_arg);
	if (touch) {
		lru_unlink(c, e);
		lru_push_front(c, e);
	}
	ret->status = e->status;
	ret->data = entry_data(e);
	ret->len = e->len;
	ret->ttl = e->ttl;
	ret->expires = e->expires;
	left = e->expires - now;
	ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
	/* serve_stale 0 turns stale serving off, even at the instant of expiry. */
	ret->stale_ok = e->status == CACHE_POSITIVE && left <= 0 &&
	    c->lim.serve_stale > 0 &&
	    -left <= (int64_t)c->lim.serve_stale * 1000;
	if (e->failed_until > now) {
		ret->failed_notfound = e->failed_notfound;
		if (left > 0 && e->status != CACHE_FAILED) {
			/* Still fresh: the failure was only a refresh's. */
			ret->state = CACHE_FRESH;
			st->hits++;
		} else {
			ret->state = CACHE_FAILING;
			st->hits++;
		}
		return;
	}
	if (e->status == CACHE_FAILED || left <= 0) {
		ret->state = CACHE_EXPIRED;
		st->misses++;
		return;
	}
	st->hits++;
	/* In the last 10% of its TTL: serve, and refresh in the background. */
	ret->state = e->status == CACHE_POSITIVE &&
	    ttl_refresh_due(left * TTL_NS_PER_MS, e->ttl, 0) ?
	    CACHE_REFRESH : CACHE_FRESH;
}

uint32_t
cache_clamp_ttl(const struct cache *c, int status, uint32_t ttl)
{
	if (status == CACHE_POSITIVE) {
		if (ttl < c->lim.min_ttl)
			ttl = c->lim.min_ttl;
		if (ttl > c->lim.max_ttl)
			ttl = c->lim.max_ttl;
	} else if (ttl > c->lim.negative_max_ttl)
		ttl = c->lim.negative_max_ttl;
	return ttl;
}

int
cache_put(struct cache *c, const char *name, uint32_t kind, int status,
    uint32_t ttl, const void *data, size_t len)
{
	size_t		 nlen = strlen(name);
	uint64_t	 h;
	struct centry	**pp, *e, *old;

	if (nlen == 0 || nlen > 255 || len > DATA_MAX ||
	    (status != CACHE_POSITIVE && status != CACHE_NXDOMAIN &&
	    status != CACHE_NODATA) || c->lim.max_entries == 0)
		return -EINVAL;
	h = key_hash(c, name, nlen, kind);
	pp = find_slot(c, name, nlen, kind, h);
	old = *pp;
	if ((e = malloc(entry_size(nlen, len))) == NULL)
		return -ENOMEM;
	/* The header only: a short entry's allocation ends inside sizeof(*e). */
	memset(e, 0, offsetof(struct centry, name));
	e->hash = h;
	e->kind = kind;
	e->status = (uint8_t)status;
	e->name_len = (uint8_t)nlen;
	name_fold(e->name, name, nlen);
	e->name[nlen] = '\0';
	e->len = (uint32_t)len;
	if (len)
		memcpy(entry_data(e), data, len);
	e->ttl = cache_clamp_ttl(c, status, ttl);
	e->expires = c->now(c->now_arg) + (int64_t)e->ttl * 1000;
	if (old)
		entry_remove(c, old);
	pp = &c->buckets[h & (c->nbuckets - 1)];
	e->hnext = *pp;
	*pp = e;
	lru_push_front(c, e);
	c->count++;
	/* What the heap gave, not what was asked: malloc rounds up. */
	e->cost = (uint32_t)(malloc_usable_size(e) + sizeof(size_t));
	c->bytes += e->cost;
	c->stats.insertions++;
	evict(c);
	maybe_grow(c);
	return 0;
}

int
cache_put_failure(struct cache *c, const char *name, uint32_t kind, bool notfound)
{
	size_t		 nlen = strlen(name);
	struct centry	*e;
	int64_t		 now = c->now(c->now_arg);
	int		 r;

	if (nlen == 0 || nlen > 255)
		return -EINVAL;
	e = *find_slot(c, name, nlen, kind, key_hash(c, name, nlen, kind));
	if (e == NULL) {
		if ((r = cache_put(c, name, kind, CACHE_NXDOMAIN, 0, NULL, 0)) < 0)
			return r;
		e = *find_slot(c, name, nlen, kind, key_hash(c, name, nlen, kind));
		if (e == NULL)
			return -ENOMEM;
		e->status = CACHE_FAILED;
		e->expires = now;
	}
	e->failed_until = now + (int64_t)c->lim.failure_ttl * 1000;
	e->failed_notfound = notfound ? 1 : 0;
	return 0;
}

size_t
cache_invalidate(struct cache *c, const char *name)
{
	size_t		 len = strlen(name), n = 0, i;
	struct centry	*e, *next;

	if (len > 255)
		return 0;
	/* Every kind of one name: the kinds are few, but scan to be sure. */
	for (i = 0; i < c->nbuckets; i++) {
		for (e = c->buckets[i]; e; e = next) {
			next = e->hnext;
			if (e->name_len == len && name_eq(e->name, name, len)) {
				entry_remove(c, e);
				n++;
			}
		}
	}
	return n;
}

void
cache_flush(struct cache *c)
{
	while (c->head)
		entry_remove(c, c->head);
}

size_t
cache_count(const struct cache *c)
{
	return c->count;
}

size_t
cache_memory(const struct cache *c)
{
	return sizeof(*c) + c->nbuckets * sizeof(*c->buckets) + c->bytes;
}

void
cache_get_stats(const struct cache *c, struct cache_stats *ret)
{
	*ret = c->stats;
}

void
cache_reset_stats(struct cache *c)
{
	memset(&c->stats, 0, sizeof(c->stats));
}

int
cache_walk(struct cache *c, size_t *cursor, struct cache_item *ret)
{
	size_t		 b = *cursor >> 16, pos = *cursor & 0xffff, i;
	struct centry	*e;
	int64_t		 left, now = c->now(c->now_arg);

	for (; b < c->nbuckets; b++, pos = 0) {
		for (e = c->buckets[b], i = 0; e && i < pos; e = e->hnext, i++)
			;
		if (e == NULL)
			continue;
		*cursor = (b << 16) | (pos + 1);
		left = e->expires - now;
		ret->name = e->name;
		ret->kind = e->kind;
		ret->status = e->status;
		ret->expired = left <= 0;
		ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
		ret->len = e->len;
		ret->data = entry_data(e);
		return 1;
	}
	*cursor = b << 16;
	return 0;
}
