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
 * Layout.  The entries are records of a store (store.c: one mapping, in a
 * file beside the socket once cache_open_file has run), found through its
 * slots; the heap holds none of them.  A record is the 40-byte header of
 * proto/storefmt.h, the lowercased name, then the data.  Its expiry and TTL
 * never change; the failure mark and the recency stamp are written in
 * place.
 *
 * Recency.  Every lookup stamps its entry with a counter.  When a bound is
 * reached, a run of slots from a random place is read, 16 entries, and
 * the one stamped longest ago goes (Redis's sampled LRU): exact while the
 * cache holds 16 or fewer, close to LRU above, and no list to keep.
 *
 * Restarts.  The store's file outlives the daemon.  cache_open_file takes
 * over what a previous daemon left: every record checked (storefmt.c),
 * its data decoded as its kind says, those whose time is up dropped, and
 * the rest copied into a new file (cache_adopt_image).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "dnswire.h"
#include "hash.h"
#include "name.h"
#include "proto.h"
#include "store.h"
#include "ttl.h"

#define DATA_MAX	STORE_DATA_MAX
#define SAMPLE		16

struct cache {
	struct cache_limits	 lim;
	cache_clock_fn		*now;
	void			*now_arg;
	struct store		*st;
	uint32_t		 tick;		/* the recency counter */
	uint64_t		 search_fp;
	uint64_t		 modules_fp;
	uint64_t		 rand;		/* the sampler's xorshift state */
	struct cache_stats	 stats;
	struct cache_adopt_report adopt;	/* cache_open_file's */
	char			 walk_name[2][STORE_NAME_MAX + 1];	/* in turn */
	unsigned		 walk_turn;
};

/* The store's bounds for these limits: a byte bound of 0 is none. */
static struct store *
store_for(const struct cache_limits *lim, const char *path)
{
	return store_new(path, lim->max_entries ? lim->max_entries : 1,
	    lim->max_bytes, lim->store_page);
}

static uint64_t
next_rand(struct cache *c)
{
	c->rand ^= c->rand << 13;
	c->rand ^= c->rand >> 7;
	c->rand ^= c->rand << 17;
	return c->rand;
}

/* Lowercases name into buf: its length, or -1 if too long or empty. */
static long
fold(const char *name, char buf[STORE_NAME_MAX + 1])
{
	size_t len = strnlen(name, STORE_NAME_MAX + 1);

	if (len == 0 || len > STORE_NAME_MAX)
		return -1;
	name_fold(buf, name, len);
	buf[len] = '\0';
	return (long)len;
}

static long
find(const struct cache *c, const char *name, uint32_t kind, char lname[STORE_NAME_MAX + 1])
{
	long len = fold(name, lname);

	if (len < 0)
		return -1;
	return store_find(c->st, kind, lname, (size_t)len,
	    store_hash(c->st, kind, lname, (size_t)len));
}

/* The least recently used of a sample of entries goes. */
static bool
evict_one(struct cache *c)
{
	uint32_t	 n = store_nslots(c->st), i, seen = 0, k, best_age = 0;
	long		 victim = -1;
	struct store_rec *r;

	if (store_count(c->st) == 0)
		return false;
	i = (uint32_t)(next_rand(c) & (n - 1));
	for (k = 0; k < n && seen < SAMPLE; k++, i = (i + 1) & (n - 1)) {
		if ((r = store_at(c->st, i)) == NULL)
			continue;
		seen++;
		/* Unsigned: a stamp from before the counter wrapped looks young. */
		if (victim < 0 || c->tick - r->stamp > best_age) {
			best_age = c->tick - r->stamp;
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

struct cache *
cache_new(const struct cache_limits *lim, cache_clock_fn *now, void *arg)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->lim = *lim;
	c->now = now;
	c->now_arg = arg;
	if ((c->st = store_for(lim, NULL)) == NULL) {
		free(c);
		return NULL;
	}
	if (getrandom(&c->rand, sizeof(c->rand), GRND_NONBLOCK) != sizeof(c->rand))
		c->rand = (uint64_t)(uintptr_t)c ^ (uint64_t)now(arg);
	c->rand |= 1;
	return c;
}

void
cache_free(struct cache *c)
{
	if (c == NULL)
		return;
	store_free(c->st);
	free(c);
}

/*
 * Copies every entry of the store image at base (len bytes) that passes
 * the checks into c's store: the body of cache_adopt_image, and of a
 * store's rebuild.  adopt: the image is another daemon's (its times and
 * what its answers rest on are weighed); else c's own.
 */
static void copy_image(struct cache *c, const void *base, size_t len,
    const uint8_t *boot, bool verify_check, bool adopt,
    struct cache_adopt_report *ret);

/* A new store of the geometry lim asks for, with every entry copied. */
static int
rebuild(struct cache *c)
{
	struct store			*old = c->st, *st;
	const struct store_header	*h = store_header(old);
	struct cache_adopt_report	 rep;

	if ((st = store_for(&c->lim, store_path(old))) == NULL)
		return -errno;
	store_set_fps(st, c->search_fp, c->modules_fp);
	c->st = st;
	copy_image(c, h, h->file_size, NULL, false, false, &rep);
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
	store_set_max_bytes(c->st, lim->max_bytes);
	evict_over(c);
	/* A geometry of its own: a new store, when it differs. */
	store_get_stats(c->st, &a);
	if ((probe = store_for(lim, NULL)) == NULL)
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
	char			 lname[STORE_NAME_MAX + 1];
	struct store_rec	*e;
	long			 i;
	int64_t			 now, left;
	int			 status;

	memset(ret, 0, sizeof(*ret));
	if ((i = find(c, name, kind, lname)) < 0) {
		st->misses++;
		return;
	}
	e = store_at(c->st, (size_t)i);
	now = c->now(c->now_arg);
	if (touch)
		e->stamp = ++c->tick;
	status = e->status & STORE_STATUS_MASK;
	ret->status = status;
	ret->data = store_rec_data(e);
	ret->len = store_rec_data_len(e);
	ret->ttl = e->ttl;
	ret->expires = e->expires;
	left = e->expires - now;
	ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
	/* serve_stale 0 turns stale serving off, even at the instant of expiry. */
	ret->stale_ok = status == CACHE_POSITIVE && left <= 0 &&
	    c->lim.serve_stale > 0 &&
	    -left <= (int64_t)c->lim.serve_stale * 1000;
	if (e->failed_until > now) {
		ret->failed_notfound = (e->mflags & STORE_M_NOTFOUND) != 0;
		if (left > 0 && status != CACHE_FAILED) {
			/* Still fresh: the failure was only a refresh's. */
			ret->state = CACHE_FRESH;
			st->hits++;
		} else {
			ret->state = CACHE_FAILING;
			st->hits++;
		}
		return;
	}
	if (status == CACHE_FAILED || left <= 0) {
		ret->state = CACHE_EXPIRED;
		st->misses++;
		return;
	}
	st->hits++;
	/* In the last 10% of its TTL: serve, and refresh in the background. */
	ret->state = status == CACHE_POSITIVE &&
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

/* Writes (lname, tmpl->kind): room made first, a retry after more evictions. */
static int
put_rec(struct cache *c, const struct store_rec *tmpl, const char *lname,
    size_t nlen, const void *data, size_t len)
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
		if ((i = store_put(c->st, tmpl, lname, data, len)) >= 0) {
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

int
cache_put(struct cache *c, const char *name, uint32_t kind, int status,
    uint32_t ttl, const void *data, size_t len)
{
	char		 lname[STORE_NAME_MAX + 1];
	long		 nlen = fold(name, lname);
	struct store_rec tmpl;

	if (nlen < 0 || len > DATA_MAX ||
	    (status != CACHE_POSITIVE && status != CACHE_NXDOMAIN &&
	    status != CACHE_NODATA) || c->lim.max_entries == 0)
		return -EINVAL;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.kind = kind;
	tmpl.status = (uint8_t)status;
	tmpl.ttl = cache_clamp_ttl(c, status, ttl);
	tmpl.expires = c->now(c->now_arg) + (int64_t)tmpl.ttl * 1000;
	tmpl.stamp = ++c->tick;
	return put_rec(c, &tmpl, lname, (size_t)nlen, data, len);
}

int
cache_put_failure(struct cache *c, const char *name, uint32_t kind, bool notfound)
{
	char		 lname[STORE_NAME_MAX + 1];
	struct store_rec *e, tmpl;
	int64_t		 now = c->now(c->now_arg);
	long		 i, nlen;
	int		 r;

	if ((nlen = fold(name, lname)) < 0)
		return -EINVAL;
	if ((i = find(c, name, kind, lname)) < 0) {
		if (c->lim.max_entries == 0)
			return -EINVAL;
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.kind = kind;
		tmpl.status = CACHE_FAILED;
		tmpl.expires = now;
		tmpl.stamp = ++c->tick;
		if ((r = put_rec(c, &tmpl, lname, (size_t)nlen, NULL, 0)) < 0)
			return r;
		if ((i = find(c, name, kind, lname)) < 0)
			return -ENOMEM;
	}
	/* The daemon's own words of the record: written in place. */
	e = store_at(c->st, (size_t)i);
	e->failed_until = now + (int64_t)c->lim.failure_ttl * 1000;
	e->mflags = (uint8_t)((e->mflags & ~STORE_M_NOTFOUND) |
	    (notfound ? STORE_M_NOTFOUND : 0));
	return 0;
}

size_t
cache_invalidate(struct cache *c, const char *name)
{
	char		 lname[STORE_NAME_MAX + 1];
	long		 len = fold(name, lname);
	uint32_t	 i, n = store_nslots(c->st);
	size_t		 gone = 0;
	struct store_rec *r;

	if (len < 0)
		return 0;
	/* Every kind of one name: the kinds are many (query -t), so scan. */
	for (i = 0; i < n; ) {
		r = store_at(c->st, i);
		if (r && r->name_len == (size_t)len &&
		    memcmp(store_rec_name(r), lname, (size_t)len) == 0) {
			/* A later entry may shift into i: look at i again. */
			store_remove(c->st, i);
			gone++;
			continue;
		}
		i++;
	}
	return gone;
}

void
cache_flush(struct cache *c)
{
	store_clear(c->st);
}

size_t
cache_count(const struct cache *c)
{
	return store_count(c->st);
}

size_t
cache_memory(const struct cache *c)
{
	struct store_stats st;

	store_get_stats(c->st, &st);
	return sizeof(*c) + STORE_HEADER_SIZE + (size_t)st.nslots * 8 + st.live_bytes;
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

void
cache_get_store_stats(const struct cache *c, struct store_stats *ret)
{
	store_get_stats(c->st, ret);
}

int
cache_walk(struct cache *c, size_t *cursor, struct cache_item *ret)
{
	size_t			 i;
	struct store_rec	*e;
	int64_t			 left, now = c->now(c->now_arg);

	for (i = *cursor; i < store_nslots(c->st); i++) {
		if ((e = store_at(c->st, i)) == NULL)
			continue;
		*cursor = i + 1;
		left = e->expires - now;
		/* Two in turn: an item stays good past the next walk call. */
		c->walk_turn ^= 1;
		memcpy(c->walk_name[c->walk_turn], store_rec_name(e), e->name_len);
		c->walk_name[c->walk_turn][e->name_len] = '\0';
		ret->name = c->walk_name[c->walk_turn];
		ret->kind = e->kind;
		ret->status = e->status & STORE_STATUS_MASK;
		ret->expired = left <= 0;
		ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
		ret->len = store_rec_data_len(e);
		ret->data = store_rec_data(e);
		return 1;
	}
	*cursor = i;
	return 0;
}

/* --- another daemon's store ---------------------------------------------- */

/* Whether data is what an entry of this kind and status holds. */
static bool
data_ok(uint32_t kind, int status, const uint8_t *data, size_t len)
{
	struct proto_answer	ans;
	struct proto_records	rec;
	uint32_t		ttl;
	int			r;

	if (kind & CACHE_KIND_WIRE) {
		if (len == 0)
			return true;
		r = dnswire_rrs_ttl(data, len, &ttl);
		return r == 0 || r == -ENOENT;
	}
	if (status != CACHE_POSITIVE)
		return len == 0 || status == CACHE_FAILED;
	if (kind & CACHE_KIND_RR)
		return proto_records_decode(data, len, &rec) == 0;
	return proto_answer_decode(data, len, &ans) == 0;
}

/* The kinds cache.h defines: a DNS type, or one of the marks and a type. */
static bool
kind_known(uint32_t kind)
{
	uint32_t mark = kind & ~0xffffu;

	if (kind & CACHE_KIND_NSS)
		return (kind & ~0x2ffffu) == 0;
	return mark == 0 || mark == CACHE_KIND_RR || mark == CACHE_KIND_PAIR ||
	    mark == CACHE_KIND_WIRE;
}

static void
copy_image(struct cache *c, const void *base, size_t len, const uint8_t *boot,
    bool verify_check, bool adopt, struct cache_adopt_report *ret)
{
	const struct store_header	*h;
	const struct store_rec		*r;
	struct store_rec		 tmpl;
	const char			*why;
	char				 lname[STORE_NAME_MAX + 1];
	int64_t				 now = c->now(c->now_arg);
	uint32_t			 i;
	int				 status;
	bool				 dns_ok, nss_ok;

	memset(ret, 0, sizeof(*ret));
	if ((h = store_check_header(base, len, &ret->why)) == NULL)
		return;
	if (boot && memcmp(h->boot_id, boot, 16) != 0) {
		ret->why = "written before the last boot (its times are that boot's)";
		return;
	}
	dns_ok = !adopt || h->search_fp == c->search_fp;
	nss_ok = !adopt || h->modules_fp == c->modules_fp;
	for (i = 0; i < h->nslots; i++) {
		if ((r = store_check_slot(base, len, i, verify_check, &why)) == NULL) {
			ret->dropped += why != NULL;
			continue;
		}
		status = r->status & STORE_STATUS_MASK;
		/* Another daemon's: its data must be what its kind says. */
		if (adopt && (!kind_known(r->kind) || !data_ok(r->kind, status,
		    store_rec_data(r), store_rec_data_len(r)) ||
		    r->expires - now > ((int64_t)r->ttl + 1) * 1000)) {
			ret->dropped++;
			continue;
		}
		if (adopt && !((r->kind & CACHE_KIND_NSS) ? nss_ok : dns_ok)) {
			ret->mismatched++;
			continue;
		}
		/*
		 * What may still serve: an answer before its expiry, a
		 * positive one within serve_stale after (RFC 8767); not a
		 * failure, which the next daemon finds out for itself.
		 */
		if (adopt && (status == CACHE_FAILED || (r->expires <= now &&
		    (status != CACHE_POSITIVE || c->lim.serve_stale == 0 ||
		    now - r->expires > (int64_t)c->lim.serve_stale * 1000)))) {
			ret->expired++;
			continue;
		}
		memcpy(lname, store_rec_name(r), r->name_len);
		lname[r->name_len] = '\0';
		/* Ours already (set before the copy): the newer stands. */
		if (store_find(c->st, r->kind, lname, r->name_len,
		    store_hash(c->st, r->kind, lname, r->name_len)) >= 0) {
			ret->dropped++;
			continue;
		}
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.kind = r->kind;
		tmpl.expires = r->expires;
		tmpl.ttl = r->ttl;
		tmpl.status = (uint8_t)status;
		tmpl.failed_until = r->failed_until > now ? r->failed_until : 0;
		tmpl.mflags = tmpl.failed_until ? (r->mflags & STORE_M_NOTFOUND) : 0;
		tmpl.stamp = adopt ? c->tick : r->stamp;
		if (!store_room(c->st, r->len, c->lim.max_entries) ||
		    store_put(c->st, &tmpl, lname, store_rec_data(r),
		    store_rec_data_len(r)) < 0) {
			ret->no_room++;
			continue;
		}
		if (adopt && r->expires <= now)
			ret->stale++;
		ret->adopted++;
	}
}

int
cache_adopt_image(struct cache *c, const void *base, size_t len,
    const uint8_t boot_id[16], bool verify_check, struct cache_adopt_report *ret)
{
	copy_image(c, base, len, boot_id, verify_check, true, ret);
	return ret->why ? -EINVAL : 0;
}

void
cache_set_fps(struct cache *c, uint64_t search_fp, uint64_t modules_fp)
{
	c->search_fp = search_fp;
	c->modules_fp = modules_fp;
	store_set_fps(c->st, search_fp, modules_fp);
}

int
cache_open_file(struct cache *c, const char *path, struct cache_adopt_report *ret)
{
	struct store			*st, *anon = c->st;
	const struct store_header	*h;
	struct cache_adopt_report	 own;
	struct stat			 sb;
	uint8_t				 boot[16];
	void				*old = MAP_FAILED;
	size_t				 oldlen = 0;
	int				 fd;

	memset(ret, 0, sizeof(*ret));
	/* What a previous daemon left: ours (same owner), a plain file. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_uid == geteuid() && sb.st_size > 0 &&
		    (uint64_t)sb.st_size <= (1ULL << 44)) {
			oldlen = (size_t)sb.st_size;
			old = mmap(NULL, oldlen, PROT_READ, MAP_PRIVATE, fd, 0);
		} else
			ret->why = "not a file of ours";
		close(fd);
	}
	if ((st = store_for(&c->lim, path)) == NULL)
		return -errno;
	store_set_fps(st, c->search_fp, c->modules_fp);
	/* What this daemon has already (nothing, at start) comes first. */
	c->st = st;
	h = store_header(anon);
	copy_image(c, h, h->file_size, NULL, false, false, &own);
	store_free(anon);
	if (old != MAP_FAILED) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		store_boot_id(boot);
		cache_adopt_image(c, old, oldlen, boot, true, ret);
		munmap(old, oldlen);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ret->usec = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000);
	}
	c->adopt = *ret;
	return 0;
}

void
cache_get_adopt_report(const struct cache *c, struct cache_adopt_report *ret)
{
	*ret = c->adopt;
}
