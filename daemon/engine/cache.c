/* SPDX-License-Identifier: MIT */
/* daemon/engine/cache.c - TTL cache of answers, keyed by (name, kind). */

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
 * slots; the heap holds none of them.  A record is the 28-byte header of
 * proto/storefmt.h, the lowercased name, then the data.  Its expiry and TTL
 * never change; the failure mark is written in place.
 *
 * Recency.  Every lookup stamps its entry's slot with a counter: 16 bits,
 * which move once per 2^shift uses, shift chosen so that a full cache's
 * worth of uses moves them by about 1,024.  When a bound is reached, a run
 * of slots from a random place is read, 16 entries, and the one stamped
 * longest ago goes (Redis's sampled LRU): exact while the cache holds 16
 * or fewer, close to LRU above, no list to keep, and no record touched to
 * choose.  An entry left unused for 64 cache-fulls of uses looks young
 * again (the stamp wraps); by then it has been sampled many times.  The
 * bounds, the sample and the room made for a write are cache-evict.c's.
 *
 * Restarts.  The store's file outlives the daemon.  cache_open_file takes
 * over what a previous daemon left: every record checked (storefmt.c),
 * its data decoded as its kind says, those whose time is up dropped, and
 * the rest copied into a new file (cache-adopt.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cache.h"
#include "cache-int.h"
#include "dnswire.h"
#include "name.h"
#include "storefmt.h"
#include "proto.h"
#include "store.h"
#include "ttl.h"

#define DATA_MAX	65536		/* an entry's data, as cache_put takes it */

uint16_t
cache_stamp_of(const struct cache *c)
{
	return (uint16_t)(c->tick >> c->stamp_shift);
}

/* A use: the counter moves, and its stamp. */
static uint16_t
next_stamp(struct cache *c)
{
	c->tick++;
	return cache_stamp_of(c);
}

int64_t
cache_realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* When a failure is remembered until (ms), or 0. */
static int64_t
failed_until(const struct store_rec *e)
{
	return e->failed == STORE_NO_FAILURE ? 0 : e->expires + e->failed;
}

/* Whether an entry of this kind holds a proto answer body when positive. */
bool
cache_kind_is_answer(uint32_t kind)
{
	return !(kind & (CACHE_KIND_RR | CACHE_KIND_WIRE));
}

/*
 * A name's A and AAAA are one record: CACHE_KIND_PAIR | DNS_T_A and |
 * DNS_T_AAAA (AF_UNSPEC's search) a record of kind CACHE_KIND_PAIR, DNS_T_A
 * and DNS_T_AAAA (each asked alone, or a search of one name) a record of
 * kind 0 (REC_ADDRS, no DNS type).  The name once, and A's times in the
 * record's header.  A alone (the common answer: addresses, or none, and
 * no AAAA asked yet) is the record's data as it is, with no more bytes.
 * Otherwise the record has the form bit (STORE_L_FORM), and its data
 * begins with a byte of flags:
 *
 *	bits 0-1	which halves are there (PRESENT_A, PRESENT_AAAA; AAAA
 *			always)
 *	bit 2		A's data is 64 KiB more than its u16 says
 *	bits 3-4	AAAA's status; bit 5 its data is compact; bit 6 nothing
 *			found after its failure; bit 7 it has a failure
 *
 * then u16 bytes of A's data (when A is there), i32 AAAA's expiry less
 * the record's (ms), u32 AAAA's TTL, i32 its failure (as a record's
 * failed; bit 7 only), then A's data, then AAAA's.  A's addresses and no
 * AAAA, as getaddrinfo asks, cost 11 bytes more than an A alone.  A
 * failure of A is written in place, as a record's; one of AAAA makes a
 * new record.
 */
#define PRESENT_A	0x01
#define PRESENT_AAAA	0x02
#define A_LEN_HIGH	0x04
#define B_STATUS_SHIFT	3
#define B_COMPACT	0x20
#define B_NOTFOUND	0x40
#define B_FAILED	0x80

#define REC_ADDRS	0u	/* the record of a name's DNS_T_A and DNS_T_AAAA */

/* A's half, AAAA's, or -1 for a kind that is not half of a pair. */
int
cache_pair_half(uint32_t kind)
{
	uint32_t mark = kind & ~0xffffu;

	if (mark != CACHE_KIND_PAIR && mark != 0)
		return -1;
	return (kind & 0xffff) == DNS_T_A ? 0 : (kind & 0xffff) == DNS_T_AAAA ? 1 : -1;
}

/* The kind of the record an entry of kind lives in. */
static uint32_t
rec_kind(uint32_t kind)
{
	return cache_pair_half(kind) >= 0 ? kind & ~0xffffu : kind;
}

/* Whether a record holds a pair's halves. */
bool
cache_is_pair(uint32_t rkind)
{
	return rkind == CACHE_KIND_PAIR || rkind == REC_ADDRS;
}

static int32_t
get_i32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The entry of half (-1: the record's own) in record e: false when the
 * record holds no such half, or (a pair from a file) does not hold
 * together.
 */
bool
cache_view_of(const struct store_rec *e, int half, struct view *v)
{
	const uint8_t	*d = store_rec_data(e);
	size_t		 dlen = store_rec_data_len(e), alen;
	int32_t		 rel = 0, f = STORE_NO_FAILURE;
	uint32_t	 bttl = 0;
	uint16_t	 a16;
	uint8_t		 fl;
	size_t		 o;

	memset(v, 0, sizeof(*v));
	if (half < 0 || !cache_is_pair(e->kind)) {
		v->status = e->status & STORE_STATUS_MASK;
		v->sbits = e->status & (STORE_S_COMPACT | STORE_S_NOTFOUND);
		v->expires = e->expires;
		v->ttl = e->ttl;
		v->failed_until = failed_until(e);
		v->data = d;
		v->len = dlen;
		return half < 0 || !cache_is_pair(e->kind);
	}
	if (!(e->len8 & STORE_L_FORM)) {
		/* A alone: the data is its. */
		if (half != 0)
			return false;
		fl = PRESENT_A;
		alen = dlen;
		o = 0;
	} else {
		if (dlen < 1 || !((fl = d[0]) & PRESENT_AAAA))
			return false;
		o = 1;
		alen = 0;
		if (fl & PRESENT_A) {
			if (dlen < 3)
				return false;
			memcpy(&a16, d + 1, 2);
			alen = a16 | ((fl & A_LEN_HIGH) ? 0x10000u : 0);
			o = 3;
		}
		if (dlen < o + 8 + ((fl & B_FAILED) ? 4 : 0))
			return false;
		rel = get_i32(d + o);
		memcpy(&bttl, d + o + 4, 4);
		f = (fl & B_FAILED) ? get_i32(d + o + 8) : STORE_NO_FAILURE;
		o += 8 + ((fl & B_FAILED) ? 4 : 0);
		if (alen > dlen - o)
			return false;
	}
	if (half == 0) {
		if (!(fl & PRESENT_A))
			return false;
		v->status = e->status & STORE_STATUS_MASK;
		v->sbits = e->status & (STORE_S_COMPACT | STORE_S_NOTFOUND);
		v->expires = e->expires;
		v->ttl = e->ttl;
		v->failed_until = failed_until(e);
		v->data = d + o;
		v->len = alen;
		return true;
	}
	if (!(fl & PRESENT_AAAA))
		return false;
	v->status = (fl >> B_STATUS_SHIFT) & STORE_STATUS_MASK;
	v->sbits = (uint8_t)(((fl & B_COMPACT) ? STORE_S_COMPACT : 0) |
	    ((fl & B_NOTFOUND) ? STORE_S_NOTFOUND : 0));
	v->expires = e->expires + rel;
	v->ttl = bttl;
	v->failed_until = f == STORE_NO_FAILURE ? 0 : v->expires + f;
	v->data = d + o + alen;
	v->len = dlen - o - alen;
	return true;
}

/* A view's data as its kind holds it (expanded into buf), or NULL. */
const uint8_t *
cache_view_data(const struct view *v, const char *lname, size_t nlen, uint8_t *buf,
    size_t *ret_len)
{
	int n;

	if (!(v->sbits & STORE_S_COMPACT)) {
		*ret_len = v->len;
		return v->data;
	}
	n = store_expand(v->data, v->len, lname, nlen, v->ttl, buf, STORE_DATA_MAX);
	*ret_len = n < 0 ? 0 : (size_t)n;
	return n < 0 ? NULL : buf;
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

	/* A pair's record is reached through its halves' kinds only. */
	if (len < 0 || (cache_pair_half(kind) < 0 && cache_is_pair(kind)))
		return -1;
	return store_find(c->st, rec_kind(kind), lname, (size_t)len,
	    store_hash(c->st, rec_kind(kind), lname, (size_t)len));
}

struct cache *
cache_new(const struct cache_limits *lim, cache_clock_fn *now, void *arg)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->lim = *lim;
	c->stamp_shift = cache_stamp_shift(lim->max_entries);
	c->now = now;
	c->now_arg = arg;
	if ((c->st = cache_store_for(lim, NULL)) == NULL) {
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
	cache_heartbeat(c);
	store_free(c->st);
	free(c);
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

/*
 * The hit of record i's entry of kind (its half, for an address record),
 * a compact one's data expanded into buf; counted in *st.  Whether the
 * record holds such an entry (to touch), expired or not.
 */
static bool
hit_of(struct cache *c, long i, uint32_t kind, struct cache_hit *ret,
    struct cache_stats *st, uint8_t *buf)
{
	struct store_rec	*e;
	struct view		 v;
	int64_t			 now, left;
	int			 status;

	memset(ret, 0, sizeof(*ret));
	if (i < 0 || !cache_view_of(e = store_at(c->st, (size_t)i),
	    cache_pair_half(kind), &v)) {
		st->misses++;
		return false;
	}
	now = c->now(c->now_arg);
	status = v.status;
	ret->status = status;
	ret->data = cache_view_data(&v, store_rec_name(e), e->name_len, buf, &ret->len);
	ret->ttl = v.ttl;
	ret->expires = v.expires;
	left = v.expires - now;
	ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
	/* serve_stale 0 turns stale serving off, even at the instant of expiry. */
	ret->stale_ok = status == CACHE_POSITIVE && left <= 0 &&
	    c->lim.serve_stale > 0 &&
	    -left <= (int64_t)c->lim.serve_stale * 1000;
	if (v.failed_until > now) {
		ret->failed_notfound = (v.sbits & STORE_S_NOTFOUND) != 0;
		if (left > 0 && status != CACHE_FAILED) {
			/* Still fresh: the failure was only a refresh's. */
			ret->state = CACHE_FRESH;
			st->hits++;
		} else {
			ret->state = CACHE_FAILING;
			st->hits++;
		}
		return true;
	}
	if (status == CACHE_FAILED || left <= 0) {
		ret->state = CACHE_EXPIRED;
		st->misses++;
		return true;
	}
	st->hits++;
	/* In the last 10% of its TTL: serve, and refresh in the background. */
	ret->state = status == CACHE_POSITIVE &&
	    ttl_refresh_due(left * TTL_NS_PER_MS, v.ttl, 0) ?
	    CACHE_REFRESH : CACHE_FRESH;
	return true;
}

static void
lookup(struct cache *c, const char *name, uint32_t kind, struct cache_hit *ret,
    bool touch)
{
	struct cache_stats	 junk = { 0 };
	char			 lname[STORE_NAME_MAX + 1];
	long			 i = find(c, name, kind, lname);

	if (hit_of(c, i, kind, ret, touch ? &c->stats : &junk, c->buf) && touch)
		store_touch(c->st, (size_t)i, next_stamp(c));
}

_Static_assert(CACHE_DATA_MAX == STORE_DATA_MAX, "an entry's data, expanded");

void
cache_lookup_addrs(struct cache *c, const char *name, uint32_t mark,
    struct cache_hit ret[2], uint8_t *bufs[2])
{
	char	lname[STORE_NAME_MAX + 1];
	long	i = find(c, name, mark | DNS_T_A, lname);
	bool	a, aaaa;

	/* One record holds both halves: one probe, two hits. */
	a = hit_of(c, i, mark | DNS_T_A, &ret[0], &c->stats, bufs[0]);
	aaaa = hit_of(c, i, mark | DNS_T_AAAA, &ret[1], &c->stats, bufs[1]);
	if (a || aaaa)
		store_touch(c->st, (size_t)i, next_stamp(c));
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

/* A failure's time as a record keeps it: relative to the expiry, in 32 bits. */
bool
cache_failed_rel(int64_t failed_until, int64_t expires, int32_t *ret)
{
	int64_t rel = failed_until - expires;

	if (failed_until == 0) {
		*ret = STORE_NO_FAILURE;
		return true;
	}
	if (rel <= INT32_MIN || rel > INT32_MAX)
		return false;
	*ret = (int32_t)rel;
	return true;
}

/*
 * Writes lname's pair record with the halves have[] says, h[] their
 * entries (data as stored, copied here first: the old record's bytes
 * may move once the store makes room).  Returns 0 or -errno.
 */
int
cache_write_pair(struct cache *c, uint32_t rkind, const char *lname, size_t nlen,
    const bool have[2], const struct view h[2], uint16_t stamp)
{
	struct store_rec tmpl;
	size_t		 o = have[1] ? 1 : 0;
	int32_t		 rel = 0, f = STORE_NO_FAILURE;
	uint8_t		 fl = 0;

	if (16 + (have[0] ? h[0].len : 0) + (have[1] ? h[1].len : 0) > STORE_DATA_MAX)
		return -E2BIG;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.kind = rkind;
	tmpl.failed = STORE_NO_FAILURE;
	if (have[0]) {
		tmpl.status = (uint8_t)(h[0].status | h[0].sbits);
		tmpl.expires = h[0].expires;
		tmpl.ttl = h[0].ttl;
		if (!cache_failed_rel(h[0].failed_until, h[0].expires, &tmpl.failed))
			tmpl.failed = STORE_NO_FAILURE;
		fl |= PRESENT_A | (h[0].len > UINT16_MAX ? A_LEN_HIGH : 0);
	} else {
		/* AAAA alone: the header holds no entry. */
		tmpl.status = CACHE_FAILED;
		tmpl.expires = h[1].expires;
	}
	if (have[1]) {
		int64_t d = h[1].expires - tmpl.expires;

		if (d <= INT32_MIN || d > INT32_MAX)
			return -ERANGE;
		rel = (int32_t)d;
		if (!cache_failed_rel(h[1].failed_until, h[1].expires, &f))
			f = STORE_NO_FAILURE;
		fl |= (uint8_t)(PRESENT_AAAA | (h[1].status << B_STATUS_SHIFT) |
		    ((h[1].sbits & STORE_S_COMPACT) ? B_COMPACT : 0) |
		    ((h[1].sbits & STORE_S_NOTFOUND) ? B_NOTFOUND : 0) |
		    (f != STORE_NO_FAILURE ? B_FAILED : 0));
		if (have[0]) {
			uint16_t a16 = (uint16_t)(h[0].len & 0xffff);

			memcpy(c->blob + o, &a16, 2);
			o += 2;
		}
		memcpy(c->blob + o, &rel, 4);
		memcpy(c->blob + o + 4, &h[1].ttl, 4);
		o += 8;
		if (f != STORE_NO_FAILURE) {
			memcpy(c->blob + o, &f, 4);
			o += 4;
		}
		/* The flags byte, and the form bit that says it is there. */
		c->blob[0] = fl;
		tmpl.len8 = STORE_L_FORM;
	}
	if (have[0] && h[0].len) {
		memmove(c->blob + o, h[0].data, h[0].len);
		o += h[0].len;
	}
	if (have[1] && h[1].len) {
		memmove(c->blob + o, h[1].data, h[1].len);
		o += h[1].len;
	}
	return cache_put_rec(c, &tmpl, stamp, lname, nlen, c->blob, o);
}

/* Writes a pair's record; when the halves' times do not fit together, half alone. */
static int
write_halves(struct cache *c, uint32_t rkind, const char *lname, size_t nlen,
    int half, bool have[2], const struct view h[2])
{
	int r;

	if ((r = cache_write_pair(c, rkind, lname, nlen, have, h, next_stamp(c))) == -ERANGE ||
	    r == -E2BIG) {
		have[1 - half] = false;
		r = cache_write_pair(c, rkind, lname, nlen, have, h, cache_stamp_of(c));
	}
	return r;
}

/* The held record written, if one waits. */
static int
release_held(struct cache *c)
{
	struct held *p = &c->held;

	if (!p->any)
		return 0;
	p->any = false;
	return write_halves(c, p->rkind, p->lname, p->nlen, p->have[1] ? 1 : 0,
	    p->have, p->h);
}

/* Copies view v's data into buf, for a held half. */
static void
hold_view(struct view *dst, const struct view *v, uint8_t *buf)
{
	*dst = *v;
	if (v->len)
		memcpy(buf, v->data, v->len);
	dst->data = buf;
}

/*
 * Puts half's entry nv into lname's pair record, the other half kept as
 * it is (or left out, when its times no longer fit beside the new one's).
 * Between cache_hold and cache_release, the record waits for the other
 * half: A and AAAA of one answer make one record, not two.
 */
static int
put_pair(struct cache *c, uint32_t rkind, const char *lname, size_t nlen, int half,
    const struct view *nv)
{
	struct held	*p = &c->held;
	struct view	 h[2], other;
	bool		 have[2] = { false, false };
	long		 i;

	if (p->any && (p->rkind != rkind || p->nlen != nlen ||
	    memcmp(p->lname, lname, nlen) != 0))
		release_held(c);
	if (p->on && p->any) {
		hold_view(&p->h[half], nv, p->data[half]);
		p->have[half] = true;
		return 0;
	}
	i = store_find(c->st, rkind, lname, nlen, store_hash(c->st, rkind, lname, nlen));
	if (i >= 0)
		have[1 - half] = cache_view_of(store_at(c->st, (size_t)i), 1 - half, &h[1 - half]);
	h[half] = *nv;
	have[half] = true;
	if (!p->on)
		return write_halves(c, rkind, lname, nlen, half, have, h);
	/* Held: copied, as the store's bytes and the caller's may move. */
	p->any = true;
	p->rkind = rkind;
	memcpy(p->lname, lname, nlen);
	p->lname[nlen] = '\0';
	p->nlen = nlen;
	p->have[0] = have[0];
	p->have[1] = have[1];
	hold_view(&p->h[half], nv, p->data[half]);
	if (have[1 - half]) {
		other = h[1 - half];
		hold_view(&p->h[1 - half], &other, p->data[1 - half]);
	}
	return 0;
}

void
cache_hold(struct cache *c)
{
	c->held.on = true;
}

int
cache_release(struct cache *c)
{
	int r = release_held(c);

	c->held.on = false;
	return r;
}

int
cache_put(struct cache *c, const char *name, uint32_t kind, int status,
    uint32_t ttl, const void *data, size_t len)
{
	return cache_put_at(c, name, kind, status, ttl, c->now(c->now_arg), data, len);
}

int
cache_put_at(struct cache *c, const char *name, uint32_t kind, int status,
    uint32_t ttl, int64_t at, const void *data, size_t len)
{
	char		 lname[STORE_NAME_MAX + 1];
	long		 nlen = fold(name, lname);
	struct store_rec tmpl;
	int		 half;

	if (nlen < 0 || len > DATA_MAX ||
	    (status != CACHE_POSITIVE && status != CACHE_NXDOMAIN &&
	    status != CACHE_NODATA) || c->lim.max_entries == 0 ||
	    (cache_pair_half(kind) < 0 && cache_is_pair(kind)))
		return -EINVAL;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.kind = kind;
	tmpl.status = (uint8_t)status;
	tmpl.ttl = cache_clamp_ttl(c, status, ttl);
	tmpl.expires = at + (int64_t)tmpl.ttl * 1000;
	tmpl.failed = STORE_NO_FAILURE;
	/* An address answer in its compact form, when it has one. */
	if (status == CACHE_POSITIVE && cache_kind_is_answer(kind)) {
		int n = store_compact(data, len, lname, (size_t)nlen, tmpl.ttl, c->cbuf,
		    sizeof(c->cbuf));

		if (n >= 0) {
			tmpl.status |= STORE_S_COMPACT;
			data = c->cbuf;
			len = (size_t)n;
		}
	}
	if ((half = cache_pair_half(kind)) >= 0) {
		struct view nv = {
			.status = status, .sbits = tmpl.status & STORE_S_COMPACT,
			.expires = tmpl.expires, .ttl = tmpl.ttl, .data = data, .len = len,
		};

		return put_pair(c, rec_kind(kind), lname, (size_t)nlen, half, &nv);
	}
	return cache_put_rec(c, &tmpl, next_stamp(c), lname, (size_t)nlen, data, len);
}

/* cache_put_failure of a pair's half: A's in place, AAAA's in a new record. */
static int
put_pair_failure(struct cache *c, uint32_t rkind, const char *lname, size_t nlen,
    int half, bool notfound)
{
	struct store_rec *e = NULL;
	struct view	 v;
	int64_t		 now = c->now(c->now_arg);
	int64_t		 until = now + (int64_t)c->lim.failure_ttl * 1000;
	int32_t		 f;
	long		 i;
	bool		 have = false;

	if (c->lim.max_entries == 0)
		return -EINVAL;
	i = store_find(c->st, rkind, lname, nlen, store_hash(c->st, rkind, lname, nlen));
	if (i >= 0)
		have = cache_view_of(e = store_at(c->st, (size_t)i), half, &v);
	if (have && half == 0 && cache_failed_rel(until, e->expires, &f)) {
		e->failed = f;
		e->status = (uint8_t)((e->status & ~STORE_S_NOTFOUND) |
		    (notfound ? STORE_S_NOTFOUND : 0));
		return 0;
	}
	if (!have || !cache_failed_rel(until, v.expires, &f)) {
		/* Nothing known, or nothing left to serve: a failure alone. */
		memset(&v, 0, sizeof(v));
		v.status = CACHE_FAILED;
		v.expires = now;
	}
	v.failed_until = until;
	v.sbits = (uint8_t)((v.sbits & ~STORE_S_NOTFOUND) | (notfound ? STORE_S_NOTFOUND : 0));
	return put_pair(c, rkind, lname, nlen, half, &v);
}

int
cache_put_failure(struct cache *c, const char *name, uint32_t kind, bool notfound)
{
	char		 lname[STORE_NAME_MAX + 1];
	struct store_rec *e, tmpl;
	int64_t		 now = c->now(c->now_arg), rel;
	long		 i, nlen;
	int		 half;

	if ((nlen = fold(name, lname)) < 0 || (cache_pair_half(kind) < 0 && cache_is_pair(kind)))
		return -EINVAL;
	/* A failure is written on what is there: a held record first. */
	release_held(c);
	if ((half = cache_pair_half(kind)) >= 0)
		return put_pair_failure(c, rec_kind(kind), lname, (size_t)nlen, half,
		    notfound);
	if ((i = find(c, name, kind, lname)) < 0) {
		if (c->lim.max_entries == 0)
			return -EINVAL;
		goto fresh;
	}
	e = store_at(c->st, (size_t)i);
	rel = now + (int64_t)c->lim.failure_ttl * 1000 - e->expires;
	/*
	 * Held relative to the expiry, in 32 bits: an entry so long expired
	 * that it does not fit (24 days) has nothing left to serve, and
	 * gives way to a failure of its own.
	 */
	if (rel <= INT32_MIN || rel > INT32_MAX)
		goto fresh;
	/* The daemon's own words of the record: written in place. */
	e->failed = (int32_t)rel;
	e->status = (uint8_t)((e->status & ~STORE_S_NOTFOUND) |
	    (notfound ? STORE_S_NOTFOUND : 0));
	return 0;
fresh:
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.kind = kind;
	tmpl.status = (uint8_t)(CACHE_FAILED | (notfound ? STORE_S_NOTFOUND : 0));
	tmpl.expires = now;
	tmpl.failed = (int32_t)((int64_t)c->lim.failure_ttl * 1000);
	return cache_put_rec(c, &tmpl, next_stamp(c), lname, (size_t)nlen, NULL, 0);
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
			struct view v;

			/* Entries, as show-cache lists them: a pair's halves. */
			if (cache_is_pair(r->kind))
				gone += cache_view_of(r, 0, &v) + cache_view_of(r, 1, &v);
			else
				gone++;
			/* A later entry may shift into i: look at i again. */
			store_remove(c->st, i);
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
	return STORE_HEADER_SIZE + (size_t)st.nslots * 8 + st.live_bytes;
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
	size_t			 i, half = *cursor & 1;
	struct store_rec	*e;
	struct view		 v;
	uint32_t		 kind;
	int64_t			 left, now = c->now(c->now_arg);

	/* The cursor: a slot, and the half of a pair (a pair is two entries). */
	for (i = *cursor >> 1; i < store_nslots(c->st); i++, half = 0) {
		if ((e = store_at(c->st, i)) == NULL)
			continue;
		if (cache_is_pair(e->kind)) {
			while (half < 2 && !cache_view_of(e, (int)half, &v))
				half++;
			if (half == 2)
				continue;
			kind = e->kind | (half ? DNS_T_AAAA : DNS_T_A);
		} else {
			if (half)
				continue;
			cache_view_of(e, -1, &v);
			kind = e->kind;
		}
		*cursor = i * 2 + half + 1;
		left = v.expires - now;
		/* Two in turn: an item stays good past the next walk call. */
		c->walk_turn ^= 1;
		memcpy(c->walk_name[c->walk_turn], store_rec_name(e), e->name_len);
		c->walk_name[c->walk_turn][e->name_len] = '\0';
		ret->name = c->walk_name[c->walk_turn];
		ret->kind = kind;
		ret->status = v.status;
		ret->expired = left <= 0;
		ret->ttl_left = left > 0 ? (uint32_t)((left + 999) / 1000) : 0;
		ret->data = cache_view_data(&v, store_rec_name(e), e->name_len, c->walk_buf,
		    &ret->len);
		return 1;
	}
	*cursor = i * 2;
	return 0;
}
