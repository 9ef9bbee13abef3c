/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnssrc.c - the dns source: the cache, the search list, coalesced fetches, stale and prefetch. */

/*
 * A question (one record type, or A and AAAA for AF_UNSPEC) is answered
 * from the cache where it can be.  What the cache cannot answer waits on
 * a fetch (dnsfetch.c): one per (lowercased name, kind) in flight,
 * however many ask (coalescing).  A fetch tries the names of the search
 * list in glibc's res_nsearch order, stores what it learns (positive,
 * negative, or the failure), then wakes every waiter.  Stale answers are
 * served only when the fetch fails; an entry in the last 10% of its TTL
 * is refreshed by a fetch nobody waits for (prefetch).
 *
 * Single-threaded: everything runs on the event loop.  Upstream calls
 * back exactly once per query, never from inside the query call; a fetch
 * that fails to start finishes at once, so a waiter may be answered
 * before dnssrc_wait returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dnsanswer.h"
#include "dnssrc-int.h"
#include "name.h"
#include "search.h"

void
dnssrc_search(const struct dnssrc *ds, const char *const **ret_domains, int *ret_ndots)
{
	ds->up.search(ds->up.arg, ret_domains, ret_ndots);
}

int
dnssrc_candidates(const struct dnssrc *ds, const char *name,
    char out[][PROTO_NAME_MAX + 2], bool *ret_asis_first)
{
	const char *const	*domains;
	int			 ndots;

	ds->up.search(ds->up.arg, &domains, &ndots);
	return search_names(name, domains, ndots, out, ret_asis_first);
}


/*
 * An answer of k's type stashed on the fetch of the other type (struct
 * stash), as a cache hit: what the cache will hold once that one is in.
 */
static bool
from_stash(struct dnssrc *ds, const struct dnssrc_kind *k, struct cache_hit *hit)
{
	char		 lkey[PROTO_NAME_MAX + 2];
	struct fetch	*s;
	struct stash	*st;
	int64_t		 now = ds->now(ds->now_arg), expires;
	uint32_t	 ttl;

	if (k->kind != DNS_T_A && k->kind != DNS_T_AAAA)
		return false;
	name_fold(lkey, k->key, strnlen(k->key, PROTO_NAME_MAX + 1) + 1);
	s = dnsfetch_find(ds, lkey, k->kind == DNS_T_A ? DNS_T_AAAA : DNS_T_A);
	if (s == NULL || !(st = &s->stash)->on || st->kind != k->kind)
		return false;
	ttl = cache_clamp_ttl(ds->cache, st->status, st->ttl);
	expires = st->at + (int64_t)ttl * 1000;
	if (expires <= now)
		return false;
	memset(hit, 0, sizeof(*hit));
	hit->state = CACHE_FRESH;
	hit->status = st->status;
	hit->data = st->data;
	hit->len = st->len;
	hit->ttl = ttl;
	hit->expires = expires;
	hit->ttl_left = (uint32_t)((expires - now + 999) / 1000);
	return true;
}

/*
 * What the cache says for k, its own entry's hit given: true with *r
 * filled when it answers now, *ret_refresh when a prefetch is due.
 */
static bool
from_cache(struct dnssrc *ds, const struct dnssrc_ask *a, unsigned i,
    struct cache_hit hit, struct dns_result *r, bool *ret_refresh)
{
	const struct dnssrc_kind *k = &a->k[i];

	memset(r, 0, sizeof(*r));
	*ret_refresh = false;
	/*
	 * A or AAAA alone: where the pair's search found records of this
	 * type, this type's own search stops at the same name (every name
	 * before it had neither), so those records answer it too.
	 */
	if (hit.state == CACHE_MISS && !a->pair && k->mode == DNSANSWER_ADDR) {
		struct cache_hit ph;

		cache_peek(ds->cache, k->key, CACHE_KIND_PAIR | k->qtype, &ph);
		if ((ph.state == CACHE_FRESH || ph.state == CACHE_REFRESH) &&
		    ph.status == CACHE_POSITIVE)
			hit = ph;
	}
	/*
	 * An answer stashed for the other type's (struct stash) came after
	 * whatever the cache holds: it answers whenever the cache does not
	 * serve, an expired entry or a failure remembered as well as none.
	 */
	if (hit.state != CACHE_FRESH && hit.state != CACHE_REFRESH && !a->pair &&
	    k->mode == DNSANSWER_ADDR && from_stash(ds, k, &hit))
		ds->st.stash_hits++;
	switch (hit.state) {
	case CACHE_FRESH:
	case CACHE_REFRESH:
		r->status = hit.status;
		r->source = PROTO_SRC_CACHE;
		r->ttl = hit.ttl_left;
		r->ttl_full = hit.ttl;
		r->expires_ms = hit.expires;
		break;
	case CACHE_FAILING:
		if (hit.stale_ok) {
			r->status = CACHE_POSITIVE;
			r->source = PROTO_SRC_STALE;
			r->ttl = DNSSRC_STALE_TTL;
		} else {
			r->status = hit.failed_notfound ? CACHE_NXDOMAIN : CACHE_FAILED;
			r->after_failure = hit.failed_notfound;
			r->source = PROTO_SRC_CACHE;
			ds->st.failures_remembered++;
		}
		break;
	default:
		return false;
	}
	if (r->status == CACHE_POSITIVE || (k->mode == DNSANSWER_WIRE &&
	    hit.state != CACHE_FAILING)) {
		/* Ours until the next dnssrc call, whatever the cache does. */
		if (hit.data != ds->hit[i])
			memcpy(ds->hit[i], hit.data, hit.len);
		r->data = ds->hit[i];
		r->len = hit.len;
	}
	/* A refresh walk refreshes any live positive answer it finds. */
	*ret_refresh = (hit.state == CACHE_REFRESH || (a->refresh &&
	    hit.state == CACHE_FRESH && r->status == CACHE_POSITIVE)) && ds->prefetch;
	return true;
}

unsigned
dnssrc_peek(struct dnssrc *ds, const struct dnssrc_ask *a, struct dns_result now[2],
    bool wants[2])
{
	struct cache_hit hits[2];
	uint8_t		*bufs[2] = { ds->hit[0], ds->hit[1] };
	bool		 refresh[2] = { false, false };
	unsigned	 i, need = 0;

	ds->notes = 0;
	/* A and AAAA are one record's halves: one probe finds both. */
	if (a->n == 2)
		cache_lookup_addrs(ds->cache, a->k[0].key, a->k[0].kind & ~0xffffu, hits,
		    bufs);
	for (i = 0; i < a->n; i++) {
		if (a->n != 2)
			cache_lookup(ds->cache, a->k[i].key, a->k[i].kind, &hits[i]);
		if ((wants[i] = !from_cache(ds, a, i, hits[i], &now[i], &refresh[i])))
			need++;
	}
	/* Prefetches once every answer is copied: a fetch may write the cache. */
	for (i = 0; i < a->n; i++)
		if (refresh[i])
			dnsfetch_join(ds, a, i, NULL, 0);
	/* A pair is fetched whole: half of it is as good as none. */
	if (a->pair && need > 0) {
		wants[0] = wants[1] = true;
		need = 2;
	}
	return need;
}

int
dnssrc_wait(struct dnssrc *ds, const struct dnssrc_ask *a,
    const struct dns_result now[2], const bool wants[2], dnssrc_done_fn *fn,
    void *arg)
{
	struct waiter	*w;
	unsigned	 i;
	int		 r;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->nslots = a->n;
	w->pending = a->n;
	/* Count the pending fetches first: a fetch may finish at once. */
	for (i = 0; i < a->n; i++)
		if (!wants[i])
			dnsfetch_waiter_set(ds, w, i, &now[i]);
	for (i = 0; i < a->n; i += a->pair ? 2 : 1) {
		unsigned j, nslot = a->pair ? 2 : 1;

		if (!wants[i])
			continue;
		if ((r = dnsfetch_join(ds, a, i, w, i)) < 0) {
			/* Too many in flight: BUSY, not a failure of upstream. */
			if (r == -EBUSY)
				w->busy = true;
			for (j = 0; j < nslot; j++)
				dnsfetch_waiter_set(ds, w, i + j, &(struct dns_result){
				    .status = CACHE_FAILED });
		}
	}
	return 0;
}

/* --- the rest ------------------------------------------------------------ */

struct dnssrc *
dnssrc_new(const struct dnssrc_upstream *up, struct cache *cache,
    cache_clock_fn *now, void *now_arg)
{
	struct dnssrc *ds = calloc(1, sizeof(*ds));

	if (ds == NULL)
		return NULL;
	if (getrandom(ds->hash_key, sizeof(ds->hash_key), GRND_NONBLOCK) !=
	    sizeof(ds->hash_key))
		ds->hash_key[0] = (uint64_t)(uintptr_t)ds ^ (uint64_t)now(now_arg);
	ds->up = *up;
	ds->cache = cache;
	ds->now = now;
	ds->now_arg = now_arg;
	ds->prefetch = true;
	ds->max_fetches = DNSSRC_FETCH_MAX;
	return ds;
}

void
dnssrc_free(struct dnssrc *ds)
{
	free(ds);
}

void
dnssrc_set_prefetch(struct dnssrc *ds, bool on)
{
	ds->prefetch = on;
}

void
dnssrc_set_max_fetches(struct dnssrc *ds, unsigned n)
{
	ds->max_fetches = n ? n : DNSSRC_FETCH_MAX;
}

void
dnssrc_on_refreshed(struct dnssrc *ds, dnssrc_refreshed_fn *fn, void *arg)
{
	ds->refreshed = fn;
	ds->refreshed_arg = arg;
}

unsigned
dnssrc_notes(const struct dnssrc *ds)
{
	return ds->notes;
}

unsigned
dnssrc_in_flight(const struct dnssrc *ds)
{
	return ds->nfetches;
}

void
dnssrc_get_stats(const struct dnssrc *ds, struct dnssrc_stats *ret)
{
	*ret = ds->st;
}

void
dnssrc_reset_stats(struct dnssrc *ds)
{
	memset(&ds->st, 0, sizeof(ds->st));
}
