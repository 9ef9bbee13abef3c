/* SPDX-License-Identifier: MIT */
/* daemon/lookup.c - answers lookups: the hosts file, then the cache, then DNS. */

/*
 * The order is glibc's "hosts: files dns".  A name the hosts file lists
 * for the family asked is answered from it, with no DNS; otherwise (and
 * for a family it does not list) the answer comes from DNS, through the
 * cache: A and AAAA are cached apart, so AF_UNSPEC is the two merged, A
 * first, as glibc's dns module gives them.
 *
 * What the cache cannot answer waits on a fetch: one per (name, kind) in
 * flight, however many clients ask (coalescing).  A fetch tries the names
 * of the search list in glibc's res_nsearch order, stores what it learns
 * (positive, negative, or the failure), then wakes every waiter.  Stale
 * answers are served only when the fetch fails; entries in the last 10% of
 * their TTL are refreshed by a fetch nobody waits for (prefetch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "hostsrc.h"
#include "log.h"
#include "lookup.h"
#include "resolver.h"
#include "shm.h"
#include "shmfmt.h"
#include "stats.h"

#define FETCH_BUCKETS	4096
#define NCAND		(RESOLVER_SEARCH_MAX + 2)

enum {
	R_POSITIVE	= CACHE_POSITIVE,
	R_NXDOMAIN	= CACHE_NXDOMAIN,
	R_NODATA	= CACHE_NODATA,
	R_FAILED	= CACHE_FAILED,
};

enum { W_NAME, W_ADDR, W_RR };

/* One kind's outcome, as a reply is built from it. */
struct result {
	int		 status;	/* R_* */
	uint8_t		 source;	/* PROTO_SRC_DNS, _CACHE or _STALE */
	uint32_t	 ttl;		/* what the client is told */
	uint32_t	 ttl_full;	/* what it was stored for: the 10% rule */
	int64_t		 expires_ms;	/* on the cache's clock */
	const uint8_t	*data;
	size_t		 len;
	uint8_t		*owned;		/* data, when a waiter keeps it */
};

/* What a reply is published under in the shared segment; kind 0: nothing. */
struct pubkey {
	uint8_t		kind;		/* SHM_NAME, SHM_ADDR */
	uint8_t		family;
	size_t		len;
	uint8_t		key[PROTO_NAME_MAX + 2];
};

struct waiter {
	struct server_hold	*hold;
	struct pubkey		 pk;
	char			 asked[PROTO_NAME_MAX + 2];	/* for W_NAME */
	int			 what;		/* W_* */
	uint8_t			 family;	/* for W_NAME */
	unsigned		 nslots;
	unsigned		 pending;
	struct result		 slot[2];
};

struct fwait {
	struct fwait	*next;
	struct waiter	*w;
	unsigned	 slot;
};

struct fetch {
	struct fetch	*hnext;
	struct lookup	*lk;
	char		 key[PROTO_NAME_MAX + 2];	/* lowercased */
	uint32_t	 kind;
	uint16_t	 qtype;
	int		 mode;				/* ANSWER_* */
	uint8_t		 family;			/* for PTR */
	uint8_t		 addr[16];
	char		 cand[NCAND][PROTO_NAME_MAX + 2];
	int		 ncand;
	int		 icand;
	struct fwait	*waiters;
	bool		 asis_first;	/* cand[0] is the name as asked */
	int		 asis_status;	/* R_*: how cand[0] failed */
	bool		 got_nodata;
	bool		 got_servfail;
	bool		 any_negative;
	bool		 neg_cacheable;
	uint32_t	 neg_ttl;
};

struct lookup {
	struct lookup_env	 env;
	struct cache		*cache;
	struct shm		*shm;		/* NULL: shared = no */
	bool			 prefetch;
	struct fetch		*fetches[FETCH_BUCKETS];
	unsigned		 nfetches;
	uint8_t			 frame[PROTO_FRAME_MAX];	/* replies */
	uint8_t			 body[PROTO_FRAME_MAX];		/* merged answers */
	uint8_t			 fetched[PROTO_FRAME_MAX];	/* a fetch's answer,
							   while its waiters wake */
	uint8_t			 tmp[2][PROTO_FRAME_MAX];	/* cache hits */
	uint8_t			 respelled[PROTO_FRAME_MAX];
	uint8_t			 published[PROTO_FRAME_MAX];
	char			 spelled[NCAND][DNSMSG_NAME_STRLEN];
};

static void fetch_next(struct fetch *);

static void
lower(char *dst, const char *src, size_t cap)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++)
		dst[i] = src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32 : src[i];
	dst[i] = '\0';
}

static unsigned
fetch_bucket(const char *key, uint32_t kind)
{
	uint32_t h = 2166136261u ^ kind;

	for (; *key; key++)
		h = (h ^ (uint8_t)*key) * 16777619u;
	return (h ^ (h >> 15)) % FETCH_BUCKETS;
}

static struct fetch *
fetch_find(struct lookup *lk, const char *key, uint32_t kind)
{
	struct fetch *f;

	for (f = lk->fetches[fetch_bucket(key, kind)]; f; f = f->hnext)
		if (f->kind == kind && strcmp(f->key, key) == 0)
			return f;
	return NULL;
}

static void
fetch_unlink(struct fetch *f)
{
	struct fetch **pp = &f->lk->fetches[fetch_bucket(f->key, f->kind)];

	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	f->lk->nfetches--;
}

/*
 * The names to try, in glibc's res_nsearch order: a name ending in a dot
 * alone; with at least ndots dots, the name first; then the name in each
 * search domain; then the name itself, if not tried yet.
 */
static int
candidates(struct lookup *lk, const char *name, char out[][PROTO_NAME_MAX + 2],
    bool *ret_asis_first)
{
	const char *const	*domains;
	size_t			 len = strlen(name), dl;
	int			 ndots, dots = 0, n = 0, i;
	bool			 as_is = false;

	*ret_asis_first = true;
	if (len > 0 && name[len - 1] == '.') {
		memcpy(out[0], name, len - 1);
		out[0][len - 1] = '\0';
		return 1;
	}
	resolver_search(lk->env.resolver, &domains, &ndots);
	for (i = 0; name[i]; i++)
		dots += name[i] == '.';
	if (dots >= ndots) {
		memcpy(out[n++], name, len + 1);
		as_is = true;
	}
	for (i = 0; domains[i] && n < NCAND - 1; i++) {
		dl = strlen(domains[i]);
		if (len + 1 + dl > PROTO_NAME_MAX)
			continue;
		memcpy(out[n], name, len);
		out[n][len] = '.';
		memcpy(out[n] + len + 1, domains[i], dl + 1);
		n++;
	}
	if (!as_is)
		memcpy(out[n++], name, len + 1);
	*ret_asis_first = as_is;
	return n;
}

/*
 * Builds the reply to a request of type `type' and id from one result (or
 * two, merged, for AF_UNSPEC) into lk->frame.  Returns the frame's length.
 */
static int candidates(struct lookup *, const char *, char [][PROTO_NAME_MAX + 2],
    bool *);

/* The answer body p, its names spelled as `asked' was, written into w. */
static void
put_respelled(struct lookup *lk, struct proto_wr *w, const uint8_t *p, size_t len,
    const char *asked)
{
	char		 cand[NCAND][PROTO_NAME_MAX + 2];
	const char	*names[NCAND];
	struct proto_wr	 rw;
	bool		 asis;
	int		 i, n;

	n = candidates(lk, asked, cand, &asis);
	for (i = 0; i < n; i++) {
		/* Spelled as names read from replies are, escapes and all. */
		if (dnsmsg_name_normalize(cand[i], lk->spelled[i],
		    sizeof(lk->spelled[i])) < 0)
			memcpy(lk->spelled[i], cand[i], strnlen(cand[i],
			    sizeof(cand[i]) - 1) + 1);
		names[i] = lk->spelled[i];
	}
	/* An absolute name's spelling keeps its dot out of the comparison. */
	proto_wr_init(&rw, lk->respelled, sizeof(lk->respelled));
	if (answer_respell(p, len, names, (size_t)n, &rw) == 0)
		proto_put_bytes(w, lk->respelled, rw.off);
	else
		proto_put_bytes(w, p, len);
}

/*
 * Publishes a reply (a whole frame in lk->frame) for readers of the shared
 * segment: answers until they expire, negative answers as well; never a
 * stale answer or a failure.  A DNS answer's names are spelled as this
 * client spelled its question, so it matches that spelling only.
 */
static void
publish(struct lookup *lk, const struct pubkey *pk, uint16_t status, uint8_t source,
    bool exact, const struct result *r, unsigned n, size_t len)
{
	int64_t		 expires = INT64_MAX;
	uint32_t	 ttl = UINT32_MAX;
	unsigned	 i;

	if (lk->shm == NULL || pk == NULL || pk->kind == 0 || source == PROTO_SRC_STALE ||
	    (status != PROTO_OK && status != PROTO_NOTFOUND && status != PROTO_NODATA))
		return;
	for (i = 0; i < n; i++) {
		if (status == PROTO_OK && r[i].status != R_POSITIVE)
			continue;
		if (r[i].expires_ms < expires)
			expires = r[i].expires_ms;
		if (r[i].ttl_full < ttl)
			ttl = r[i].ttl_full;
	}
	if (expires == INT64_MAX || expires <= lk->env.now(lk->env.now_arg))
		return;
	/*
	 * Stamped alike every time (readers count the TTL down from the
	 * record's expiry), so asking again finds the same bytes and the
	 * writer appends nothing.
	 */
	len -= PROTO_HDR_LEN;
	memcpy(lk->published, lk->frame + PROTO_HDR_LEN, len);
	if (status == PROTO_OK)
		answer_stamp(lk->published, len, 0, PROTO_SRC_CACHE);
	shm_put(lk->shm, pk->kind, pk->family, pk->key, pk->len, exact, (uint8_t)status,
	    expires * 1000000, ttl, lk->published, len);
}

static size_t
build_reply(struct lookup *lk, uint8_t type, uint32_t id, int what,
    const char *asked, const struct pubkey *pk, const struct result *r, unsigned n)
{
	const struct result	*pos[2] = { NULL, NULL };
	struct proto_wr		 w;
	uint32_t		 ttl = UINT32_MAX;
	uint8_t			 source = PROTO_SRC_CACHE;
	uint16_t		 status;
	unsigned		 i, npos = 0;
	int			 len;

	for (i = 0; i < n; i++) {
		if (r[i].status == R_POSITIVE) {
			pos[i] = &r[i];
			npos++;
			if (r[i].ttl < ttl)
				ttl = r[i].ttl;
			if (r[i].source == PROTO_SRC_STALE)
				source = PROTO_SRC_STALE;
			else if (r[i].source == PROTO_SRC_DNS && source != PROTO_SRC_STALE)
				source = PROTO_SRC_DNS;
		}
	}
	if (npos > 0)
		status = PROTO_OK;
	else {
		/* Nothing positive: a failure wins, then NODATA, then NXDOMAIN. */
		status = PROTO_NOTFOUND;
		for (i = 0; i < n; i++)
			if (r[i].status == R_NODATA)
				status = PROTO_NODATA;
		for (i = 0; i < n; i++)
			if (r[i].status == R_FAILED)
				status = PROTO_TRYAGAIN;
	}
	proto_wr_init(&w, lk->frame, sizeof(lk->frame));
	proto_frame_begin(&w, type | PROTO_REPLY, status, id);
	if (status != PROTO_OK) {
		if (status == PROTO_TRYAGAIN)
			proto_error_body(&w, "upstream DNS failed or timed out");
	} else if (n == 2 && what == W_NAME) {
		struct proto_wr bw;

		proto_wr_init(&bw, lk->body, sizeof(lk->body));
		if (answer_merge(pos[0] ? pos[0]->data : NULL, pos[0] ? pos[0]->len : 0,
		    pos[1] ? pos[1]->data : NULL, pos[1] ? pos[1]->len : 0, ttl,
		    source, &bw) < 0) {
			proto_frame_begin(&w, type | PROTO_REPLY, PROTO_INTERNAL, id);
			proto_error_body(&w, "cannot merge the A and AAAA answers");
		} else
			put_respelled(lk, &w, lk->body, bw.off, asked);
	} else {
		const struct result *p = pos[0] ? pos[0] : pos[1];
		size_t at = w.off;

		if (what == W_NAME)
			put_respelled(lk, &w, p->data, p->len, asked);
		else
			proto_put_bytes(&w, p->data, p->len);
		if (w.err == 0 && what == W_RR)
			answer_stamp_records(w.p + at, w.off - at, ttl, source);
		else if (w.err == 0)
			answer_stamp(w.p + at, w.off - at, ttl, source);
	}
	if ((len = proto_frame_end(&w)) < 0) {
		proto_frame_begin(&w, type | PROTO_REPLY, PROTO_TOOBIG, id);
		len = proto_frame_end(&w);
		status = PROTO_TOOBIG;
	}
	publish(lk, pk, status, source, what == W_NAME && status == PROTO_OK, r, n,
	    (size_t)len);
	/* One count per reply, by where its answer came from. */
	if (status == PROTO_OK && source == PROTO_SRC_STALE)
		lk->env.stats->stale_served++;
	else if (status == PROTO_OK && source == PROTO_SRC_DNS)
		lk->env.stats->dns_answers++;
	else if (status == PROTO_OK)
		lk->env.stats->cache_answers++;
	else if (status == PROTO_TRYAGAIN)
		lk->env.stats->errors++;
	else
		lk->env.stats->not_found++;
	return (size_t)len;
}

static void
waiter_free(struct waiter *w)
{
	unsigned i;

	for (i = 0; i < w->nslots; i++)
		free(w->slot[i].owned);
	free(w);
}

static void
waiter_done(struct lookup *lk, struct waiter *w)
{
	size_t len;

	len = build_reply(lk, server_hold_type(w->hold), server_hold_id(w->hold),
	    w->what, w->asked, &w->pk, w->slot, w->nslots);
	server_hold_reply(w->hold, lk->frame, len);
	waiter_free(w);
}

/* Gives slot its result (copying data) and answers once all slots are in. */
static void
waiter_set(struct lookup *lk, struct waiter *w, unsigned slot,
    const struct result *r)
{
	struct result *s = &w->slot[slot];

	*s = *r;
	s->owned = NULL;
	if (r->len) {
		if ((s->owned = malloc(r->len)) == NULL) {
			s->status = R_FAILED;
			s->data = NULL;
			s->len = 0;
		} else {
			memcpy(s->owned, r->data, r->len);
			s->data = s->owned;
		}
	}
	if (--w->pending == 0)
		waiter_done(lk, w);
}

/* At shutdown: let the hold go without a reply. */
static void
waiter_drop(struct waiter *w)
{
	if (--w->pending == 0) {
		server_hold_release(w->hold);
		waiter_free(w);
	}
}

static void
fetch_finish(struct fetch *f, const struct result *r)
{
	struct lookup	*lk = f->lk;
	struct fwait	*fw, *next;

	fetch_unlink(f);
	for (fw = f->waiters; fw; fw = next) {
		next = fw->next;
		waiter_set(lk, fw->w, fw->slot, r);
		free(fw);
	}
	free(f);
}

static void
fetch_failed(struct fetch *f)
{
	struct lookup	*lk = f->lk;
	struct cache_hit hit;
	struct result	 r;

	memset(&r, 0, sizeof(r));
	cache_put_failure(lk->cache, f->key, f->kind);
	cache_peek(lk->cache, f->key, f->kind, &hit);
	if (hit.stale_ok) {
		r.status = R_POSITIVE;
		r.source = PROTO_SRC_STALE;
		r.ttl = LOOKUP_STALE_TTL;
		r.data = hit.data;
		r.len = hit.len;
	} else {
		r.status = R_FAILED;
		r.source = PROTO_SRC_DNS;
	}
	fetch_finish(f, &r);
}

static void
fetch_negative(struct fetch *f)
{
	struct lookup	*lk = f->lk;
	struct result	 r;

	/*
	 * As res_nsearch: when the name was tried as asked first, its failure
	 * is the one reported; else NODATA from any, else a server failure.
	 */
	memset(&r, 0, sizeof(r));
	if (f->asis_first)
		r.status = f->asis_status;
	else if (f->got_nodata)
		r.status = R_NODATA;
	else if (f->got_servfail)
		r.status = R_FAILED;
	else
		r.status = R_NXDOMAIN;
	if (r.status == R_FAILED) {
		fetch_failed(f);
		return;
	}
	r.source = PROTO_SRC_DNS;
	r.ttl = cache_clamp_ttl(lk->cache, r.status, f->neg_ttl);
	r.ttl_full = r.ttl;
	/*
	 * With no SOA to say for how long (from any candidate), a negative
	 * answer is not kept, by the cache nor in the shared segment.
	 */
	if (f->neg_cacheable && f->any_negative) {
		r.expires_ms = lk->env.now(lk->env.now_arg) + (int64_t)r.ttl * 1000;
		cache_put(lk->cache, f->key, f->kind, r.status, f->neg_ttl, NULL, 0);
	}
	fetch_finish(f, &r);
}

static void
fetch_cb(void *arg, int status, const uint8_t *reply, size_t len)
{
	struct fetch	*f = arg;
	struct lookup	*lk = f->lk;
	struct fwait	*fw, *next;
	struct answer	 ans;
	struct proto_wr	 w;
	struct result	 r;

	log_debug("upstream: %s type %u: %s", f->cand[f->icand], f->qtype,
	    status == 0 ? "reply" : strerror(-status));
	if (status == -ECANCELED) {
		fetch_unlink(f);
		for (fw = f->waiters; fw; fw = next) {
			next = fw->next;
			waiter_drop(fw->w);
			free(fw);
		}
		free(f);
		return;
	}
	if (status == 0) {
		proto_wr_init(&w, lk->fetched, sizeof(lk->fetched));
		if (answer_from_reply(reply, len, f->cand[f->icand], f->qtype,
		    f->mode, f->family, f->addr, &w, &ans) < 0) {
			lk->env.stats->upstream_bad_replies++;
			fetch_failed(f);
			return;
		}
		if (ans.status == ANSWER_POSITIVE) {
			memset(&r, 0, sizeof(r));
			r.status = R_POSITIVE;
			r.source = PROTO_SRC_DNS;
			r.ttl = cache_clamp_ttl(lk->cache, CACHE_POSITIVE, ans.ttl);
			r.ttl_full = r.ttl;
			r.expires_ms = lk->env.now(lk->env.now_arg) +
			    (int64_t)r.ttl * 1000;
			r.data = lk->fetched;
			r.len = w.off;
			cache_put(lk->cache, f->key, f->kind, CACHE_POSITIVE, ans.ttl,
			    lk->fetched, w.off);
			fetch_finish(f, &r);
			return;
		}
		if (ans.status == ANSWER_NODATA)
			f->got_nodata = true;
		if (f->icand == 0)
			f->asis_status = ans.status == ANSWER_NODATA ? R_NODATA :
			    R_NXDOMAIN;
		if (!ans.cacheable)
			f->neg_cacheable = false;
		else if (!f->any_negative || ans.ttl < f->neg_ttl)
			f->neg_ttl = ans.ttl;
		f->any_negative = true;
		f->icand++;
		fetch_next(f);
		return;
	}
	if (status == -EIO || status == -ECONNREFUSED) {
		/*
		 * SERVFAIL or REFUSED (c-ares 1.18 reports a REFUSED rcode as
		 * a refused connection): glibc tries the next search domain,
		 * and so do we.
		 */
		f->got_servfail = true;
		if (f->icand == 0)
			f->asis_status = R_FAILED;
		f->icand++;
		fetch_next(f);
		return;
	}
	fetch_failed(f);
}

static void
fetch_next(struct fetch *f)
{
	if (f->icand >= f->ncand) {
		fetch_negative(f);
		return;
	}
	if (resolver_query(f->lk->env.resolver, f->cand[f->icand], f->qtype,
	    fetch_cb, f) < 0)
		fetch_failed(f);
}

/*
 * The fetch for (key, kind): joined if in flight, else started.  With w
 * set, w waits on it in slot; without, it is a prefetch.  Returns 0, or
 * -errno when nothing could be started (w is then not attached).
 */
static int
fetch_join(struct lookup *lk, const char *key, uint32_t kind, uint16_t qtype,
    int mode, uint8_t family, const uint8_t *addr, bool search,
    struct waiter *w, unsigned slot)
{
	struct fetch	*f;
	struct fwait	*fw = NULL;
	char		 lkey[PROTO_NAME_MAX + 2];
	unsigned	 b;

	lower(lkey, key, sizeof(lkey));
	if (w && (fw = malloc(sizeof(*fw))) == NULL)
		return -ENOMEM;
	if ((f = fetch_find(lk, lkey, kind)) != NULL) {
		if (fw) {
			fw->w = w;
			fw->slot = slot;
			fw->next = f->waiters;
			f->waiters = fw;
			lk->env.stats->coalesced++;
		}
		return 0;
	}
	if (lk->nfetches >= LOOKUP_FETCH_MAX || (f = calloc(1, sizeof(*f))) == NULL) {
		free(fw);
		return -EBUSY;
	}
	f->lk = lk;
	memcpy(f->key, lkey, sizeof(f->key));
	f->kind = kind;
	f->qtype = qtype;
	f->mode = mode;
	f->family = family;
	if (addr)
		memcpy(f->addr, addr, family == PROTO_AF_INET ? 4 : 16);
	f->neg_cacheable = true;
	if (search)
		f->ncand = candidates(lk, key, f->cand, &f->asis_first);
	else {
		memcpy(f->cand[0], key, strlen(key) + 1);
		f->ncand = 1;
		f->asis_first = true;
	}
	if (fw) {
		fw->w = w;
		fw->slot = slot;
		fw->next = NULL;
		f->waiters = fw;
	} else
		lk->env.stats->prefetches++;
	b = fetch_bucket(f->key, kind);
	f->hnext = lk->fetches[b];
	lk->fetches[b] = f;
	lk->nfetches++;
	fetch_next(f);
	return 0;
}

struct kind_req {
	const char	*key;
	uint32_t	 kind;
	uint16_t	 qtype;
	int		 mode;
	bool		 search;
};

/*
 * What the cache says for k: 0 with *r filled (data copied to buf) when it
 * answers now, 1 when upstream must be asked.  Starts a prefetch when due.
 */
static int
from_cache(struct lookup *lk, const struct kind_req *k, uint8_t family,
    const uint8_t *addr, struct result *r, uint8_t *buf)
{
	struct cache_hit hit;

	memset(r, 0, sizeof(*r));
	cache_lookup(lk->cache, k->key, k->kind, &hit);
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
			r->status = R_POSITIVE;
			r->source = PROTO_SRC_STALE;
			r->ttl = LOOKUP_STALE_TTL;
		} else {
			r->status = R_FAILED;
			r->source = PROTO_SRC_CACHE;
			lk->env.stats->failures_remembered++;
		}
		break;
	default:
		return 1;
	}
	if (r->status == R_POSITIVE) {
		memcpy(buf, hit.data, hit.len);
		r->data = buf;
		r->len = hit.len;
	}
	if (hit.state == CACHE_REFRESH && lk->prefetch)
		fetch_join(lk, k->key, k->kind, k->qtype, k->mode, family, addr,
		    k->search, NULL, 0);
	return 0;
}

/* Answers from the cache what it can, and waits for upstream on the rest. */
static void
resolve(struct lookup *lk, struct server_req *req, int what, uint8_t family,
    const uint8_t *addr, const struct kind_req *k, unsigned n,
    const struct pubkey *pk)
{
	const char *asked = k[0].key;
	struct result	 now[2];
	struct waiter	*w;
	unsigned	 i, need = 0;
	bool		 wants[2] = { false, false };
	size_t		 len;

	for (i = 0; i < n; i++)
		if ((wants[i] = from_cache(lk, &k[i], family, addr, &now[i],
		    lk->tmp[i]) != 0))
			need++;
	if (need == 0) {
		len = build_reply(lk, req->hdr.type, req->hdr.id, what, asked, pk,
		    now, n);
		server_reply(req, lk->frame, len);
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->hold = server_hold(req)) == NULL) {
		free(w);
		len = build_reply(lk, req->hdr.type, req->hdr.id, what, asked, NULL,
		    &(struct result){ .status = R_FAILED }, 1);
		server_reply(req, lk->frame, len);
		return;
	}
	w->what = what;
	w->family = family;
	snprintf(w->asked, sizeof(w->asked), "%s", asked);
	if (pk)
		w->pk = *pk;
	w->nslots = n;
	w->pending = n;
	/* Count the pending fetches first: a fetch may finish at once. */
	for (i = 0; i < n; i++)
		if (!wants[i])
			waiter_set(lk, w, i, &now[i]);
	for (i = 0; i < n; i++) {
		if (!wants[i])
			continue;
		if (fetch_join(lk, k[i].key, k[i].kind, k[i].qtype, k[i].mode,
		    family, addr, k[i].search, w, i) < 0)
			waiter_set(lk, w, i, &(struct result){ .status = R_FAILED });
	}
}

void
lookup_name(struct lookup *lk, struct server_req *req,
    const struct proto_lookup_name *q)
{
	struct kind_req	 k[2];
	struct proto_wr	 w;
	struct pubkey	 pk;
	unsigned	 n = 0;
	int		 r, len;

	/* Files first: what the hosts file lists for this family, it answers. */
	proto_wr_init(&w, lk->frame, sizeof(lk->frame));
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	r = hosts_lookup_name(hostsrc_get(lk->env.hosts), q->name, q->family, &w);
	pk.kind = SHM_NAME;
	pk.family = q->family;
	pk.len = q->name_len;
	memcpy(pk.key, q->name, q->name_len);
	if (r > 0 && (len = proto_frame_end(&w)) > 0) {
		lk->env.stats->hosts_answers++;
		/* Hosts answers last until the file changes (a reload resets). */
		if (lk->shm)
			shm_put(lk->shm, SHM_NAME, q->family, q->name, q->name_len,
			    false, PROTO_OK, SHM_FOREVER, 0, lk->frame + PROTO_HDR_LEN,
			    (size_t)len - PROTO_HDR_LEN);
		server_reply(req, lk->frame, (size_t)len);
		return;
	}
	if (r < 0) {
		proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_TOOBIG,
		    req->hdr.id);
		proto_error_body(&w, "answer larger than the 64 KiB frame limit");
		if ((len = proto_frame_end(&w)) > 0)
			server_reply(req, lk->frame, (size_t)len);
		return;
	}
	if (q->family != PROTO_AF_INET6)
		k[n++] = (struct kind_req){ q->name, DNS_T_A, DNS_T_A, ANSWER_ADDR, true };
	if (q->family != PROTO_AF_INET)
		k[n++] = (struct kind_req){ q->name, DNS_T_AAAA, DNS_T_AAAA,
		    ANSWER_ADDR, true };
	resolve(lk, req, W_NAME, q->family, NULL, k, n, &pk);
}

void
lookup_addr(struct lookup *lk, struct server_req *req,
    const struct proto_lookup_addr *q)
{
	struct kind_req	 k;
	struct proto_wr	 w;
	struct pubkey	 pk;
	char		 name[80];
	int		 r, len;

	proto_wr_init(&w, lk->frame, sizeof(lk->frame));
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	r = hosts_lookup_addr(hostsrc_get(lk->env.hosts), q->family, q->addr, &w);
	pk.kind = SHM_ADDR;
	pk.family = q->family;
	pk.len = q->family == PROTO_AF_INET ? 4 : 16;
	memcpy(pk.key, q->addr, pk.len);
	if (r > 0 && (len = proto_frame_end(&w)) > 0) {
		lk->env.stats->hosts_answers++;
		if (lk->shm)
			shm_put(lk->shm, SHM_ADDR, q->family, q->addr, pk.len, false,
			    PROTO_OK, SHM_FOREVER, 0, lk->frame + PROTO_HDR_LEN,
			    (size_t)len - PROTO_HDR_LEN);
		server_reply(req, lk->frame, (size_t)len);
		return;
	}
	/*
	 * As glibc's dns module: a v4-mapped address, or a v4-compatible one
	 * other than ::1 and ::, is asked as the IPv4 address it holds, and
	 * answered as one.
	 */
	if (q->family == PROTO_AF_INET6 &&
	    memcmp(q->addr, "\0\0\0\0\0\0\0\0\0\0", 10) == 0 &&
	    ((q->addr[10] == 0xff && q->addr[11] == 0xff) ||
	    (q->addr[10] == 0 && q->addr[11] == 0 &&
	    memcmp(q->addr + 12, "\0\0\0\1", 4) != 0 &&
	    memcmp(q->addr + 12, "\0\0\0\0", 4) != 0))) {
		answer_ptr_name(PROTO_AF_INET, q->addr + 12, name, sizeof(name));
		k = (struct kind_req){ name, DNS_T_PTR, DNS_T_PTR, ANSWER_PTR, false };
		resolve(lk, req, W_ADDR, PROTO_AF_INET, q->addr + 12, &k, 1, &pk);
		return;
	}
	answer_ptr_name(q->family, q->addr, name, sizeof(name));
	k = (struct kind_req){ name, DNS_T_PTR, DNS_T_PTR, ANSWER_PTR, false };
	resolve(lk, req, W_ADDR, q->family, q->addr, &k, 1, &pk);
}

void
lookup_rr(struct lookup *lk, struct server_req *req, const struct proto_query_rr *q)
{
	struct kind_req k = { q->name, CACHE_KIND_RR | q->type, q->type, ANSWER_RR,
	    true };

	resolve(lk, req, W_RR, PROTO_AF_UNSPEC, NULL, &k, 1, NULL);
}

struct lookup *
lookup_new(const struct lookup_env *env, const struct cache_limits *lim,
    bool prefetch)
{
	struct lookup *lk = calloc(1, sizeof(*lk));

	if (lk == NULL)
		return NULL;
	lk->env = *env;
	lk->prefetch = prefetch;
	if ((lk->cache = cache_new(lim, env->now, env->now_arg)) == NULL) {
		free(lk);
		return NULL;
	}
	return lk;
}

void
lookup_configure(struct lookup *lk, const struct cache_limits *lim, bool prefetch)
{
	cache_set_limits(lk->cache, lim);
	lk->prefetch = prefetch;
}

void
lookup_free(struct lookup *lk)
{
	if (lk == NULL)
		return;
	/* Fetches still in flight end when the resolver is freed (ECANCELED). */
	cache_free(lk->cache);
	free(lk);
}

void
lookup_set_shm(struct lookup *lk, struct shm *shm)
{
	lk->shm = shm;
}

struct cache *
lookup_cache(struct lookup *lk)
{
	return lk->cache;
}

unsigned
lookup_in_flight(const struct lookup *lk)
{
	return lk->nfetches;
}
