/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsfetch.c - the dns source's fetches: one resolution in flight per (name, kind), and its waiters. */

/*
 * A fetch tries the names of the search list in glibc's res_nsearch
 * order, A and AAAA together for a pair, stores what it learns
 * (positive, negative, or the failure), then wakes every waiter with
 * the results.  Coalescing: a question for (name, kind) in flight joins
 * its fetch.  Single-threaded: upstream calls back on the loop, never
 * from inside a query call.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dnsanswer.h"
#include "dnssrc-int.h"
#include "dnswire.h"
#include "hash.h"
#include "log.h"
#include "name.h"
#include "search.h"

/*
 * Clients choose the names: a keyed hash, so they cannot choose
 * collisions.  By name alone, so that a fetch's bucket (kept in it) is
 * also its sibling's, the other type of the same name.
 */
static unsigned
fetch_bucket(const struct dnssrc *ds, const char *key)
{
	return (unsigned)(hash_siphash13(ds->hash_key, key, strlen(key)) %
	    FETCH_BUCKETS);
}

static struct fetch *
find_in(struct dnssrc *ds, unsigned b, const char *key, uint32_t kind)
{
	struct fetch *f;

	for (f = ds->fetches[b]; f; f = f->hnext)
		if (f->kind == kind && strcmp(f->key, key) == 0)
			return f;
	return NULL;
}

struct fetch *
dnsfetch_find(struct dnssrc *ds, const char *key, uint32_t kind)
{
	return find_in(ds, fetch_bucket(ds, key), key, kind);
}

static void
fetch_unlink(struct fetch *f)
{
	struct fetch **pp = &f->ds->fetches[f->bucket];

	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	f->ds->nfetches--;
}


/* --- waiters ------------------------------------------------------------- */

static void
waiter_free(struct waiter *w)
{
	unsigned i;

	for (i = 0; i < w->nslots; i++)
		free(w->owned[i]);
	free(w);
}

/*
 * Gives slot its result and answers once all slots are in.  Data is
 * copied when the waiter must keep it past this call; the last slot's
 * is borrowed, the answer being given now.
 */
void
dnsfetch_waiter_set(struct dnssrc *ds, struct waiter *w, unsigned slot,
    const struct dns_result *r)
{
	struct dns_result *s = &w->slot[slot];

	*s = *r;
	if (r->len && w->pending > 1) {
		if ((w->owned[slot] = malloc(r->len)) == NULL) {
			s->status = CACHE_FAILED;
			s->data = NULL;
			s->len = 0;
		} else {
			memcpy(w->owned[slot], r->data, r->len);
			s->data = w->owned[slot];
		}
	}
	if (--w->pending > 0)
		return;
	if (w->busy) {
		ds->st.busy++;
		w->fn(w->arg, -EBUSY, NULL, 0);
	} else {
		for (unsigned i = 0; i < w->nslots; i++)
			w->slot[i].coalesced = w->joined;
		w->fn(w->arg, 0, w->slot, w->nslots);
	}
	waiter_free(w);
}

/* At shutdown: the waiter is told once, when its last slot goes. */
static void
waiter_cancel(struct waiter *w)
{
	if (--w->pending > 0)
		return;
	w->fn(w->arg, -ECANCELED, NULL, 0);
	waiter_free(w);
}

/* --- fetches ------------------------------------------------------------- */

/* The other type of an address question asked alone, or 0. */
static uint32_t
other_type(const struct fetch *f)
{
	if (f->nhalf != 1 || f->mode != DNSANSWER_ADDR)
		return 0;
	return f->kind == DNS_T_A ? DNS_T_AAAA : f->kind == DNS_T_AAAA ? DNS_T_A : 0;
}

/* The fetch of the other type of f's name, in flight, if any. */
static struct fetch *
sibling(struct fetch *f)
{
	uint32_t other = other_type(f);

	return other ? find_in(f->ds, f->bucket, f->key, other) : NULL;
}

/* A stashed answer goes into the cache (between cache_hold and _release). */
static void
stash_put(struct fetch *f)
{
	struct stash *st = &f->stash;

	if (!st->on)
		return;
	cache_put_at(f->ds->cache, f->key, st->kind, st->status, st->ttl, st->at,
	    st->data, st->len);
	free(st->data);
	memset(st, 0, sizeof(*st));
}

/*
 * Puts f's answer for kind, or stashes it on the fetch of the other type
 * when that one is in flight: the two then make one record.  A newer
 * answer of the same kind replaces a stashed one.
 */
static void
put_answer(struct fetch *f, uint32_t kind, int status, uint32_t ttl,
    const void *data, size_t len)
{
	struct dnssrc	*ds = f->ds;
	struct fetch	*s = sibling(f);
	struct stash	*st;

	if (s == NULL || (st = &s->stash, st->on && st->kind != kind)) {
		cache_put(ds->cache, f->key, kind, status, ttl, data, len);
		return;
	}
	free(st->data);
	memset(st, 0, sizeof(*st));
	if (len && (st->data = malloc(len)) == NULL) {
		cache_put(ds->cache, f->key, kind, status, ttl, data, len);
		return;
	}
	if (len)
		memcpy(st->data, data, len);
	st->on = true;
	st->kind = kind;
	st->status = status;
	st->ttl = ttl;
	st->at = ds->now(ds->now_arg);
	st->len = len;
	ds->st.stashed++;
}

static void
fetch_free(struct fetch *f)
{
	unsigned i;

	/* Put already when it ended (fetch_positive, _negative, _failed);
	 * dropped at shutdown. */
	free(f->stash.data);
	for (i = 0; i < f->nhalf; i++)
		free(f->half[i].body);
	free(f);
}

/* Every waiter gets the fetch's results, one per half, and the fetch ends. */
static void
fetch_finish(struct fetch *f, const struct dns_result *r)
{
	struct dnssrc	*ds = f->ds;
	struct fwait	*fw, *next;
	unsigned	 i;
	bool		 fresh = false;

	fetch_unlink(f);
	for (i = 0; i < f->nhalf; i++)
		fresh |= r[i].status == CACHE_POSITIVE && r[i].source == PROTO_SRC_DNS;
	/*
	 * A prefetch nobody waited for: its answer is in the cache now, and
	 * readers of the shared stores, who left the old one alone in its
	 * last 10%, would go on asking the socket until it expired.
	 */
	if (f->waiters == NULL && fresh && ds->refreshed)
		ds->refreshed(ds->refreshed_arg, f->mode, f->nhalf == 2 ?
		    PROTO_AF_UNSPEC : f->half[0].qtype == DNS_T_AAAA ? PROTO_AF_INET6 :
		    f->mode == DNSANSWER_PTR ? f->family : PROTO_AF_INET, f->key, f->addr);
	for (fw = f->waiters; fw; fw = next) {
		next = fw->next;
		for (i = 0; i < f->nhalf; i++)
			dnsfetch_waiter_set(ds, fw->w, fw->slot + i, &r[i]);
		free(fw);
	}
	fetch_free(f);
}

/* Shutdown: every waiter is told once, and the fetch ends. */
static void
fetch_cancel(struct fetch *f)
{
	struct fwait	*fw, *next;
	unsigned	 i;

	fetch_unlink(f);
	for (fw = f->waiters; fw; fw = next) {
		next = fw->next;
		for (i = 0; i < f->nhalf; i++)
			waiter_cancel(fw->w);
		free(fw);
	}
	fetch_free(f);
}

/*
 * Upstream failed for now: remembered for failure_ttl, and an expired
 * answer is served stale if it may be (RFC 8767).  notfound: the search
 * found nothing after its first query failed (glibc's NOTFOUND with
 * TRY_AGAIN), which is what a client is told when nothing stale is there.
 */
static void
fetch_failed(struct fetch *f, bool notfound)
{
	struct dnssrc		*ds = f->ds;
	struct cache_hit	 hit;
	struct dns_result	 r[2];
	unsigned		 i;

	memset(r, 0, sizeof(r));
	cache_hold(ds->cache);
	stash_put(f);
	for (i = 0; i < f->nhalf; i++) {
		cache_put_failure(ds->cache, f->key, f->half[i].kind, notfound);
		cache_peek(ds->cache, f->key, f->half[i].kind, &hit);
		if (hit.stale_ok) {
			r[i].status = CACHE_POSITIVE;
			r[i].source = PROTO_SRC_STALE;
			r[i].ttl = DNSSRC_STALE_TTL;
			r[i].data = hit.data;
			r[i].len = hit.len;
		} else {
			r[i].status = notfound ? CACHE_NXDOMAIN : CACHE_FAILED;
			r[i].after_failure = notfound;
			r[i].source = PROTO_SRC_DNS;
		}
	}
	cache_release(ds->cache);
	/* Stale data is served whole or not at all: never half a pair. */
	if (f->nhalf == 2 && (r[0].source == PROTO_SRC_STALE) !=
	    (r[1].source == PROTO_SRC_STALE))
		for (i = 0; i < 2; i++)
			if (r[i].source != PROTO_SRC_STALE) {
				r[i].status = CACHE_NODATA;
				r[i].source = PROTO_SRC_STALE;
			}
	fetch_finish(f, r);
}

/* The search is over with no records: as res_search reports it. */
static void
fetch_negative(struct fetch *f)
{
	struct dnssrc		*ds = f->ds;
	struct dns_result	 r[2];
	int			 o;
	unsigned		 i;

	/*
	 * When the name was tried as asked first, its outcome is the one
	 * reported; else NODATA from any, else a server failure.  A first
	 * query that failed for now (SERVFAIL, REFUSED) while every later
	 * one was answered is glibc's NOTFOUND with TRY_AGAIN.
	 */
	if (f->asis_first)
		o = f->asis_outcome;
	else if (f->got_nodata)
		o = O_NODATA;
	else if (f->got_servfail)
		o = O_SERVFAIL;
	else
		o = O_NXDOMAIN;
	if (o == O_SERVFAIL) {
		fetch_failed(f, f->asis_first && f->ncand > 1 && !f->later_servfail);
		return;
	}
	memset(r, 0, sizeof(r));
	cache_hold(ds->cache);		/* both halves (or a stashed one): one record */
	stash_put(f);
	for (i = 0; i < f->nhalf; i++) {
		r[i].status = o == O_NODATA ? CACHE_NODATA : CACHE_NXDOMAIN;
		r[i].source = PROTO_SRC_DNS;
		r[i].ttl = cache_clamp_ttl(ds->cache, r[i].status, f->neg_ttl);
		r[i].ttl_full = r[i].ttl;
		/*
		 * With no SOA to say for how long (from any candidate), a
		 * negative answer is not kept, by the cache nor in the stores.
		 */
		/* A wire answer (one name, one half) keeps its SOA. */
		if (f->mode == DNSANSWER_WIRE) {
			r[i].data = f->half[i].body;
			r[i].len = f->half[i].len;
		}
		if (f->neg_cacheable && f->any_negative) {
			r[i].expires_ms = ds->now(ds->now_arg) + (int64_t)r[i].ttl * 1000;
			put_answer(f, f->half[i].kind, r[i].status, f->neg_ttl,
			    r[i].data, r[i].len);
		}
	}
	cache_release(ds->cache);
	fetch_finish(f, r);
}

/* A candidate has records: each half's result is stored and given. */
static void
fetch_positive(struct fetch *f)
{
	struct dnssrc		*ds = f->ds;
	struct dns_result	 r[2];
	int64_t			 now = ds->now(ds->now_arg);
	uint32_t		 pos_ttl = UINT32_MAX;
	unsigned		 i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < f->nhalf; i++)
		if (f->half[i].outcome == O_POSITIVE && f->half[i].ttl < pos_ttl)
			pos_ttl = f->half[i].ttl;
	cache_hold(ds->cache);		/* both halves (or a stashed one): one record */
	stash_put(f);
	for (i = 0; i < f->nhalf; i++) {
		struct half *h = &f->half[i];
		uint32_t ttl;

		r[i].source = PROTO_SRC_DNS;
		switch (h->outcome) {
		case O_POSITIVE:
			r[i].status = CACHE_POSITIVE;
			r[i].ttl = cache_clamp_ttl(ds->cache, CACHE_POSITIVE, h->ttl);
			r[i].data = h->body;
			r[i].len = h->len;
			put_answer(f, h->kind, CACHE_POSITIVE, h->ttl, h->body, h->len);
			break;
		case O_NXDOMAIN:
		case O_NODATA:
			/*
			 * The other type's records answer the pair: this one
			 * has none there, for its SOA's time, or else for as
			 * long as the records it came with.
			 */
			ttl = h->cacheable ? h->ttl : pos_ttl;
			r[i].status = CACHE_NODATA;
			r[i].ttl = cache_clamp_ttl(ds->cache, CACHE_NODATA, ttl);
			put_answer(f, h->kind, CACHE_NODATA, ttl, NULL, 0);
			break;
		default:
			/* Failed for now: the records of the other answer. */
			r[i].status = CACHE_FAILED;
			cache_put_failure(ds->cache, f->key, h->kind, false);
			break;
		}
		r[i].ttl_full = r[i].ttl;
		if (r[i].status != CACHE_FAILED)
			r[i].expires_ms = now + (int64_t)r[i].ttl * 1000;
	}
	cache_release(ds->cache);
	fetch_finish(f, r);
}

static void fetch_next(struct fetch *);

/* Every half of the candidate is in: on to the next, or done. */
static void
fetch_weigh(struct fetch *f)
{
	struct dnssrc	*ds = f->ds;
	unsigned	 i, bad = 0, failed = 0, pos = 0;
	int		 o;

	for (i = 0; i < f->nhalf; i++) {
		switch (f->half[i].outcome) {
		case O_CANCELED:
			fetch_cancel(f);
			return;
		case O_POSITIVE:	pos++; break;
		case O_BAD:		bad++; break;
		case O_FAILED:		failed++; break;
		}
	}
	ds->st.upstream_bad_replies += bad;
	if (pos > 0) {
		fetch_positive(f);
		return;
	}
	if (bad > 0 || failed > 0) {
		fetch_failed(f, false);
		return;
	}
	/*
	 * Nothing, and no failure that stops the search.  For a pair, as
	 * glibc's __res_context_query reads the two replies: the A reply's
	 * rcode unless it is NOERROR, else the AAAA reply's.
	 */
	o = f->half[0].outcome;
	if (f->nhalf == 2 && o == O_NODATA)
		o = f->half[1].outcome;
	if (f->icand == 0)
		f->asis_outcome = o;
	if (o == O_SERVFAIL) {
		f->got_servfail = true;
		if (f->icand > 0)
			f->later_servfail = true;
	} else {
		if (o == O_NODATA)
			f->got_nodata = true;
		for (i = 0; i < f->nhalf; i++) {
			const struct half *h = &f->half[i];

			if (h->outcome != O_NXDOMAIN && h->outcome != O_NODATA)
				continue;
			if (!h->cacheable)
				f->neg_cacheable = false;
			else if (!f->any_negative || h->ttl < f->neg_ttl)
				f->neg_ttl = h->ttl;
			f->any_negative = true;
		}
	}
	f->icand++;
	fetch_next(f);
}

static void
half_done(struct half *h, int outcome)
{
	h->outcome = outcome;
	if (--h->f->pending == 0)
		fetch_weigh(h->f);
}

static void
half_cb(void *arg, int status, const uint8_t *reply, size_t len)
{
	struct half	*h = arg;
	struct fetch	*f = h->f;
	struct dnssrc	*ds = f->ds;
	struct dnsanswer	 ans;
	struct proto_wr	 w;

	log_debug("upstream: %s type %u: %s", f->cand[f->icand], h->qtype,
	    status == 0 ? "reply" : strerror(-status));
	switch (status) {
	case 0:
		break;
	case -ECANCELED:
		half_done(h, O_CANCELED);
		return;
	case -EIO:
	case -ECONNREFUSED:
		/*
		 * SERVFAIL or REFUSED (c-ares 1.18 reports a REFUSED rcode as
		 * a refused connection): glibc tries the next search domain,
		 * and so do we.
		 */
		half_done(h, O_SERVFAIL);
		return;
	default:
		half_done(h, O_FAILED);
		return;
	}
	/* A wire answer is read as query -t's is, then kept as it came. */
	proto_wr_init(&w, ds->fetched, sizeof(ds->fetched));
	if (dnsanswer_from_reply(reply, len, f->cand[f->icand], h->qtype,
	    f->mode == DNSANSWER_WIRE ? DNSANSWER_RR : f->mode, f->family, f->addr, &w,
	    &ans) < 0) {
		half_done(h, O_BAD);
		return;
	}
	h->ttl = ans.ttl;
	h->cacheable = ans.cacheable;
	if (f->mode == DNSANSWER_WIRE) {
		/* Room for the frame's header and the body's own. */
		int k = dnswire_rrs_keep(reply, len, ds->fetched,
		    sizeof(ds->fetched) - PROTO_HDR_LEN - 16);

		if (k < 0) {
			half_done(h, k == -ENOSPC ? O_FAILED : O_BAD);
			return;
		}
		/* A positive answer is kept without its authority section. */
		if (ans.status == DNSANSWER_POSITIVE &&
		    (k = dnswire_rrs_answers(ds->fetched, (size_t)k)) < 0) {
			half_done(h, O_BAD);
			return;
		}
		w.off = (size_t)k;
	} else if (ans.status != DNSANSWER_POSITIVE) {
		half_done(h, ans.status == DNSANSWER_NODATA ? O_NODATA : O_NXDOMAIN);
		return;
	}
	free(h->body);
	h->body = NULL;
	h->len = 0;
	if (w.off > 0 && (h->body = malloc(w.off)) == NULL) {
		half_done(h, O_FAILED);
		return;
	}
	if (w.off > 0)
		memcpy(h->body, ds->fetched, w.off);
	h->len = w.off;
	half_done(h, ans.status == DNSANSWER_POSITIVE ? O_POSITIVE :
	    ans.status == DNSANSWER_NODATA ? O_NODATA : O_NXDOMAIN);
}

/* Asks the next candidate (each half of it), or ends the search. */
static void
fetch_next(struct fetch *f)
{
	unsigned i, n = f->nhalf;

	if (f->icand >= f->ncand) {
		fetch_negative(f);
		return;
	}
	f->pending = n;
	for (i = 0; i < n; i++) {
		struct half *h = &f->half[i];

		h->outcome = O_FAILED;
		if (f->ds->up.query(f->ds->up.arg, f->cand[f->icand], h->qtype,
		    half_cb, h) < 0)
			half_done(h, O_FAILED);	/* the last may weigh at once */
	}
}

int
dnsfetch_join(struct dnssrc *ds, const struct dnssrc_ask *a, unsigned i,
    struct waiter *w, unsigned slot)
{
	const struct dnssrc_kind *k = &a->k[a->pair ? 0 : i];
	struct fetch	*f;
	struct fwait	*fw = NULL;
	char		 lkey[PROTO_NAME_MAX + 2];
	char		 cand[DNSSRC_NCAND][PROTO_NAME_MAX + 2];
	uint32_t	 kind = a->pair ? CACHE_KIND_PAIR : k->kind;
	unsigned	 b, h;
	int		 c, ncand;
	bool		 asis_first;

	name_fold(lkey, k->key, strnlen(k->key, PROTO_NAME_MAX + 1) + 1);
	if (w && (fw = malloc(sizeof(*fw))) == NULL)
		return -ENOMEM;
	b = fetch_bucket(ds, lkey);
	if ((f = find_in(ds, b, lkey, kind)) != NULL) {
		if (fw) {
			fw->w = w;
			fw->slot = slot;
			fw->next = f->waiters;
			f->waiters = fw;
			w->joined = true;
			ds->st.coalesced += f->nhalf;	/* queries saved */
		}
		return 0;
	}
	if (ds->nfetches >= ds->max_fetches) {
		free(fw);
		return -EBUSY;
	}
	if (k->search)
		ncand = dnssrc_candidates(ds, k->key, cand, &asis_first);
	else {
		memcpy(cand[0], k->key, strlen(k->key) + 1);
		ncand = 1;
		asis_first = true;
	}
	if ((f = calloc(1, offsetof(struct fetch, cand) +
	    (size_t)ncand * sizeof(f->cand[0]))) == NULL) {
		free(fw);
		return -ENOMEM;
	}
	for (c = 0; c < ncand; c++)
		memcpy(f->cand[c], cand[c], strlen(cand[c]) + 1);
	f->ncand = ncand;
	f->asis_first = asis_first;
	f->ds = ds;
	memcpy(f->key, lkey, sizeof(f->key));
	f->kind = kind;
	f->mode = k->mode;
	f->family = a->family;
	if (a->addr)
		memcpy(f->addr, a->addr, a->family == PROTO_AF_INET ? 4 : 16);
	f->nhalf = a->pair ? 2 : 1;
	for (h = 0; h < f->nhalf; h++) {
		f->half[h].f = f;
		f->half[h].qtype = a->k[a->pair ? h : i].qtype;
		f->half[h].kind = a->k[a->pair ? h : i].kind;
	}
	f->neg_cacheable = true;
	if (fw) {
		fw->w = w;
		fw->slot = slot;
		fw->next = NULL;
		f->waiters = fw;
	} else {
		ds->st.prefetches++;
		ds->notes |= DNSSRC_NOTE_PREFETCH;
	}
	f->bucket = b;
	f->hnext = ds->fetches[b];
	ds->fetches[b] = f;
	ds->nfetches++;
	fetch_next(f);
	return 0;
}
