/* SPDX-License-Identifier: MIT */
/* daemon/lookup.c - answers lookups: the host's hosts line, source by source, through the cache. */

/*
 * A lookup walks the hosts line of nsswitch.conf (nsswitch.c), namecache's
 * own entry taken out, as glibc's getaddrinfo, gethostbyname2_r and
 * gethostbyaddr_r walk it: each source answers SUCCESS, NOTFOUND, UNAVAIL
 * or TRYAGAIN, and the source's action for that status says whether the
 * walk returns or goes on; at the end of the line, the last status is the
 * answer.  "files" is the hosts index, "dns" is c-ares through the cache,
 * and every other source is the real NSS module, called on the worker
 * pool (nsspool.c), its answers cached like DNS answers: for the TTL the
 * module gave, else nss_positive_ttl or nss_negative_ttl.  A walk that
 * waits (on DNS, on a module) holds the request and goes on when the
 * answer comes.  The answer is published in the shared segment until the
 * first of the answers it rests on expires (a hosts answer never does:
 * a reload resets the segment).
 *
 * DNS: A and AAAA are cached apart, so AF_UNSPEC is the two merged, A
 * first, as glibc's dns module gives them.
 *
 * What the cache cannot answer waits on a fetch: one per (name, kind) in
 * flight, however many clients ask (coalescing).  A fetch tries the names
 * of the search list in glibc's res_nsearch order, stores what it learns
 * (positive, negative, or the failure), then wakes every waiter.  Stale
 * answers are served only when the fetch fails; entries in the last 10% of
 * their TTL are refreshed by a fetch nobody waits for (prefetch).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "hostsrc.h"
#include "nsspool.h"
#include "nsswitch.h"
#include "log.h"
#include "lookup.h"
#include "nscd.h"
#include "nscdmap.h"
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

struct walk;

/* A walk's wait on DNS: one slot per record type, answered when all are in. */
struct waiter {
	struct walk		*walk;		/* goes on with the result */
	char			 asked[PROTO_NAME_MAX + 2];	/* for W_NAME */
	int			 what;		/* W_* */
	uint8_t			 family;	/* for W_NAME */
	unsigned		 nslots;
	unsigned		 pending;
	bool			 busy;		/* a fetch could not start: too many */
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

enum { SRC_FILES, SRC_DNS, SRC_MODULE, SRC_NONE };

/* The hosts line, its sources resolved to what answers them. */
struct chain {
	unsigned	 n;
	struct {
		uint8_t	 kind;		/* SRC_* */
		int	 mod;		/* SRC_MODULE: nsspool's id */
		uint8_t	 action[NSW_NSTATUS];
	} src[NSW_SOURCES_MAX];
};

struct lookup {
	struct lookup_env	 env;
	struct cache		*cache;
	struct shm		*shm;		/* NULL: shared = no */
	struct nscdmap		*nmap;		/* glibc's nscd mapping, or NULL */
	bool			 force_refresh;	/* a refresh walk is being run */
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
	struct chain		 chain;
	uint32_t		 nss_positive_ttl;
	uint32_t		 nss_negative_ttl;
	unsigned		 max_fetches;	/* upstream resolutions in flight */
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

/* glibc's nscd request type for a published key. */
static int32_t
nscd_type_of(const struct pubkey *pk)
{
	if (pk->kind == SHM_ADDR)
		return pk->family == PROTO_AF_INET ? NSCD_GETHOSTBYADDR :
		    NSCD_GETHOSTBYADDRv6;
	return pk->family == PROTO_AF_UNSPEC ? NSCD_GETAI :
	    pk->family == PROTO_AF_INET ? NSCD_GETHOSTBYNAME : NSCD_GETHOSTBYNAMEv6;
}

/*
 * Publishes a reply (a whole frame in lk->frame) for readers that do not
 * ask, until expires (ms on the cache's clock, or SHM_FOREVER): answers
 * and negative answers; never a stale answer or a failure.  Both stores
 * take it from here: the shared segment (the NSS module and libnamecache
 * read it), where a DNS answer's names are spelled as this client spelled
 * its question, so it matches that spelling only (exact); and glibc's
 * nscd database, in glibc's format, under the key as asked (glibc
 * compares keys byte for byte).  asked: a client is waiting for it (not a
 * refresh of the daemon's own).
 */
static void
publish(struct lookup *lk, const struct pubkey *pk, uint16_t status, bool exact,
    int64_t expires, uint32_t ttl, size_t len, bool asked)
{
	int64_t now = lk->env.now(lk->env.now_arg);

	if ((lk->shm == NULL && lk->nmap == NULL) || pk == NULL || pk->kind == 0 ||
	    (status != PROTO_OK && status != PROTO_NOTFOUND && status != PROTO_NODATA))
		return;
	if (expires != SHM_FOREVER && expires <= now)
		return;
	len -= PROTO_HDR_LEN;
	if (lk->nmap) {
		uint8_t	key[PROTO_NAME_MAX + 2];
		int	n;
		int32_t	type = nscd_type_of(pk);

		n = nscd_reply_from(type, status, lk->frame + PROTO_HDR_LEN, len,
		    lk->published, sizeof(lk->published));
		memcpy(key, pk->key, pk->len);
		key[pk->len] = '\0';
		if (n > 0)
			nscdmap_put(lk->nmap, type, key, pk->len +
			    (pk->kind == SHM_NAME), lk->published, (size_t)n,
			    expires == SHM_FOREVER ? NSCDMAP_FOREVER : expires, ttl,
			    asked, now);
	}
	if (lk->shm == NULL)
		return;
	/*
	 * Stamped alike every time (readers count the TTL down from the
	 * record's expiry), so asking again finds the same bytes and the
	 * writer appends nothing.
	 */
	memcpy(lk->published, lk->frame + PROTO_HDR_LEN, len);
	if (status == PROTO_OK && expires != SHM_FOREVER)
		answer_stamp(lk->published, len, 0, PROTO_SRC_CACHE);
	shm_put(lk->shm, pk->kind, pk->family, pk->key, pk->len, exact, (uint8_t)status,
	    expires == SHM_FOREVER ? SHM_FOREVER : expires * 1000000, ttl,
	    lk->published, len);
}

/* What one step of a walk found: its reply frame is in lk->frame. */
struct stage {
	int		 nsw;		/* enum nsw_status */
	uint16_t	 status;	/* the frame's PROTO_* */
	uint8_t		 source;	/* PROTO_SRC_* of the answer, for counting */
	bool		 exact;		/* published for this spelling only */
	int64_t		 expires;	/* ms on the cache's clock, SHM_FOREVER,
					   or 0: never publish */
	uint32_t	 ttl_full;
	int		 herrno;	/* UNAVAIL: h_errno of the source */
	int		 err;
	size_t		 len;
};

static int
nsw_of(uint16_t status)
{
	switch (status) {
	case PROTO_OK:		return NSW_SUCCESS;
	case PROTO_NOTFOUND:
	case PROTO_NODATA:	return NSW_NOTFOUND;
	case PROTO_TRYAGAIN:	return NSW_TRYAGAIN;
	default:		return NSW_UNAVAIL;
	}
}

static size_t
build_reply(struct lookup *lk, uint8_t type, uint32_t id, int what,
    const char *asked, const struct result *r, unsigned n, struct stage *st)
{
	const struct result	*pos[2] = { NULL, NULL };
	struct proto_wr		 w;
	uint32_t		 ttl = UINT32_MAX, ttl_full = UINT32_MAX;
	int64_t			 expires = INT64_MAX;
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
	/* Published until the first of the results it rests on expires. */
	for (i = 0; i < n; i++) {
		if (status == PROTO_OK && r[i].status != R_POSITIVE)
			continue;
		if (r[i].expires_ms < expires)
			expires = r[i].expires_ms;
		if (r[i].ttl_full < ttl_full)
			ttl_full = r[i].ttl_full;
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
			status = PROTO_INTERNAL;
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
	memset(st, 0, sizeof(*st));
	st->nsw = nsw_of(status);
	st->status = status;
	st->source = status == PROTO_OK ? source : PROTO_SRC_DNS;
	st->exact = what == W_NAME && status == PROTO_OK;
	/* Never a stale answer, a failure, or one with no expiry to keep. */
	if (expires != INT64_MAX && source != PROTO_SRC_STALE &&
	    (status == PROTO_OK || status == PROTO_NOTFOUND || status == PROTO_NODATA))
		st->expires = expires;
	st->ttl_full = ttl_full;
	st->len = (size_t)len;
	return (size_t)len;
}

/* One count per reply, by where its answer came from. */
static void
count_reply(struct lookup *lk, uint16_t status, uint8_t source)
{
	if (status == PROTO_OK && source == PROTO_SRC_STALE)
		lk->env.stats->stale_served++;
	else if (status == PROTO_OK && source == PROTO_SRC_DNS)
		lk->env.stats->dns_answers++;
	else if (status == PROTO_OK && source == PROTO_SRC_HOSTS)
		lk->env.stats->hosts_answers++;
	else if (status == PROTO_OK && source == PROTO_SRC_NSS)
		lk->env.stats->nss_answers++;
	else if (status == PROTO_OK)
		lk->env.stats->cache_answers++;
	else if (status == PROTO_NOTFOUND || status == PROTO_NODATA)
		lk->env.stats->not_found++;
	else
		lk->env.stats->errors++;
}

/* --- the walk along the hosts line --------------------------------------- */

struct walk {
	struct lookup		*lk;
	struct server_req	*req;		/* until it waits */
	struct server_hold	*hold;		/* once it waits */
	uint8_t			 type;
	uint32_t		 id;
	int			 what;		/* W_NAME, W_ADDR */
	uint8_t			 family;
	uint8_t			 addr[16];
	char			 name[PROTO_NAME_MAX + 2];
	size_t			 name_len;
	struct pubkey		 pk;
	struct chain		 chain;		/* the line when the walk began */
	unsigned		 i;
	int64_t			 expires;	/* the earliest of the steps' */
	uint32_t		 ttl_full;
	bool			 publishable;	/* no step was unpublishable */
	bool			 exact;		/* a step answered for this spelling */
};

static void walk_run(struct walk *);

static void
walk_free(struct walk *wk)
{
	free(wk);
}

static void
walk_send(struct walk *wk, size_t len)
{
	struct lookup *lk = wk->lk;

	if (wk->hold)
		server_hold_reply(wk->hold, lk->frame, len);
	else if (wk->req)
		server_reply(wk->req, lk->frame, len);
	/* else: a walk of the daemon's own, to publish (republish()) */
	walk_free(wk);
}

/* The walk ends on st, whose frame is in lk->frame. */
static void
walk_finish(struct walk *wk, struct stage *st)
{
	struct lookup	*lk = wk->lk;
	struct proto_wr	 w;

	if (st->nsw == NSW_UNAVAIL && st->status != PROTO_TOOBIG &&
	    st->status != PROTO_INTERNAL && st->status != PROTO_BUSY) {
		proto_wr_init(&w, lk->frame, sizeof(lk->frame));
		proto_frame_begin(&w, wk->type | PROTO_REPLY, PROTO_UNAVAIL, wk->id);
		proto_unavail_body(&w, st->herrno, st->err,
		    "every source on the hosts line is unavailable");
		st->status = PROTO_UNAVAIL;
		st->len = (size_t)proto_frame_end(&w);
	}
	if (wk->publishable && st->expires != 0) {
		int64_t	 expires = st->expires < wk->expires ? st->expires : wk->expires;
		uint32_t ttl = st->ttl_full < wk->ttl_full ? st->ttl_full : wk->ttl_full;

		publish(lk, &wk->pk, st->status, st->exact || wk->exact, expires,
		    ttl == UINT32_MAX ? 0 : ttl, st->len, wk->hold || wk->req);
	}
	if (wk->hold || wk->req)
		count_reply(lk, st->status, st->source);
	walk_send(wk, st->len);
}

/* A step is done: its action says whether the walk returns or goes on. */
static void
walk_step_done(struct walk *wk, struct stage *st)
{
	int		 act;

	if (st->status == PROTO_TOOBIG || st->status == PROTO_INTERNAL ||
	    st->status == PROTO_BUSY) {
		wk->publishable = false;
		walk_finish(wk, st);
		return;
	}
	act = wk->chain.src[wk->i].action[st->nsw];
	wk->i++;
	if (act != NSW_CONTINUE || wk->i >= wk->chain.n) {
		walk_finish(wk, st);
		return;
	}
	/* Going on: what was learnt here bounds how long the answer holds. */
	if (st->expires == 0)
		wk->publishable = false;
	else if (st->expires < wk->expires)
		wk->expires = st->expires;
	if (st->ttl_full < wk->ttl_full)
		wk->ttl_full = st->ttl_full;
	wk->exact |= st->exact;
	/*
	 * SUCCESS=continue drops what was found: glibc's walk ends with the
	 * last source's status and answer (each call overwrites the last).
	 */
	walk_run(wk);
}

/* The walk must wait: it holds the request from now on. */
static bool
walk_hold(struct walk *wk)
{
	if (wk->hold || wk->req == NULL)
		return true;	/* held already, or nobody's to hold */
	if ((wk->hold = server_hold(wk->req)) == NULL)
		return false;
	wk->req = NULL;
	return true;
}

static void
walk_fail(struct walk *wk, uint16_t status, const char *why)
{
	struct proto_wr	w;
	struct stage	st;
	int		len;

	memset(&st, 0, sizeof(st));
	proto_wr_init(&w, wk->lk->frame, sizeof(wk->lk->frame));
	proto_frame_begin(&w, wk->type | PROTO_REPLY, status, wk->id);
	proto_error_body(&w, why);
	len = proto_frame_end(&w);
	st.nsw = NSW_UNAVAIL;
	st.status = status;
	st.len = (size_t)(len < 0 ? 0 : len);
	wk->publishable = false;
	walk_finish(wk, &st);
}

/* files: the hosts index. */
static void
step_files(struct walk *wk)
{
	struct lookup	*lk = wk->lk;
	struct proto_wr	 w;
	struct stage	 st;
	int		 r, len;

	memset(&st, 0, sizeof(st));
	proto_wr_init(&w, lk->frame, sizeof(lk->frame));
	proto_frame_begin(&w, wk->type | PROTO_REPLY, PROTO_OK, wk->id);
	if (wk->what == W_NAME)
		r = hosts_lookup_name(hostsrc_get(lk->env.hosts), wk->name, wk->family,
		    &w);
	else
		r = hosts_lookup_addr(hostsrc_get(lk->env.hosts), wk->family, wk->addr,
		    &w);
	if (r > 0 && (len = proto_frame_end(&w)) > 0) {
		st.nsw = NSW_SUCCESS;
		st.status = PROTO_OK;
		st.source = PROTO_SRC_HOSTS;
		/* Hosts answers last until the file changes (a reload resets). */
		st.expires = SHM_FOREVER;
		st.ttl_full = UINT32_MAX;
		st.len = (size_t)len;
		walk_step_done(wk, &st);
		return;
	}
	if (r < 0) {
		walk_fail(wk, PROTO_TOOBIG, "answer larger than the 64 KiB frame limit");
		return;
	}
	proto_frame_begin(&w, wk->type | PROTO_REPLY, PROTO_NOTFOUND, wk->id);
	st.len = (size_t)proto_frame_end(&w);
	st.status = PROTO_NOTFOUND;
	st.nsw = NSW_NOTFOUND;
	st.source = PROTO_SRC_HOSTS;
	st.expires = SHM_FOREVER;
	st.ttl_full = UINT32_MAX;
	if ((r = hostsrc_error(lk->env.hosts)) != 0) {
		/* As glibc's files module when it cannot open the file. */
		st.nsw = NSW_UNAVAIL;
		st.status = PROTO_UNAVAIL;
		st.herrno = NETDB_INTERNAL;
		st.err = -r;
		st.expires = 0;
	}
	walk_step_done(wk, &st);
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
	struct walk	*wk = w->walk;
	struct stage	 st;

	if (w->busy) {
		waiter_free(w);
		lk->env.stats->busy++;
		walk_fail(wk, PROTO_BUSY, "too many upstream resolutions in flight");
		return;
	}
	build_reply(lk, wk->type, wk->id, w->what, w->asked, w->slot, w->nslots, &st);
	waiter_free(w);
	walk_step_done(wk, &st);
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
		if (w->walk->hold)
			server_hold_release(w->walk->hold);
		walk_free(w->walk);
		waiter_free(w);
	}
}

static void republish(struct lookup *, const struct fetch *);

static void
fetch_finish(struct fetch *f, const struct result *r)
{
	struct lookup	*lk = f->lk;
	struct fwait	*fw, *next;

	fetch_unlink(f);
	/*
	 * A prefetch nobody waited for: its answer is in the cache now, and
	 * readers of the shared segment, who left its old record alone in
	 * its last 10%, would go on asking the socket until it expired.
	 */
	if (f->waiters == NULL && r->status == R_POSITIVE && r->source == PROTO_SRC_DNS)
		republish(lk, f);
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
	if (lk->nfetches >= lk->max_fetches) {
		free(fw);
		return -EBUSY;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		free(fw);
		return -ENOMEM;
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
	/* A refresh walk refreshes any live positive answer it finds. */
	if ((hit.state == CACHE_REFRESH || (lk->force_refresh &&
	    hit.state == CACHE_FRESH && r->status == R_POSITIVE)) && lk->prefetch)
		fetch_join(lk, k->key, k->kind, k->qtype, k->mode, family, addr,
		    k->search, NULL, 0);
	return 0;
}

/* Answers from the cache what it can, and waits for upstream on the rest. */

/*
 * dns: the cache, then upstream.  Answers from the cache what it can, and
 * waits for upstream on the rest; the walk goes on from waiter_done.
 */
static void
resolve(struct walk *wk, uint8_t family, const uint8_t *addr,
    const struct kind_req *k, unsigned n)
{
	struct lookup	*lk = wk->lk;
	const char	*asked = k[0].key;
	struct result	 now[2];
	struct waiter	*w;
	struct stage	 st;
	unsigned	 i, need = 0;
	bool		 wants[2] = { false, false };

	for (i = 0; i < n; i++)
		if ((wants[i] = from_cache(lk, &k[i], family, addr, &now[i],
		    lk->tmp[i]) != 0))
			need++;
	if (need == 0) {
		build_reply(lk, wk->type, wk->id, wk->what, asked, now, n, &st);
		walk_step_done(wk, &st);
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL || !walk_hold(wk)) {
		free(w);
		build_reply(lk, wk->type, wk->id, wk->what, asked,
		    &(struct result){ .status = R_FAILED }, 1, &st);
		st.expires = 0;
		walk_step_done(wk, &st);
		return;
	}
	w->walk = wk;
	w->what = wk->what;
	w->family = family;
	snprintf(w->asked, sizeof(w->asked), "%s", asked);
	w->nslots = n;
	w->pending = n;
	/* Count the pending fetches first: a fetch may finish at once. */
	for (i = 0; i < n; i++)
		if (!wants[i])
			waiter_set(lk, w, i, &now[i]);
	for (i = 0; i < n; i++) {
		int r;

		if (!wants[i])
			continue;
		if ((r = fetch_join(lk, k[i].key, k[i].kind, k[i].qtype, k[i].mode,
		    family, addr, k[i].search, w, i)) < 0) {
			/* Too many in flight: BUSY, not a failure of upstream. */
			if (r == -EBUSY)
				w->busy = true;
			waiter_set(lk, w, i, &(struct result){ .status = R_FAILED });
		}
	}
}

static void
step_dns(struct walk *wk)
{
	struct kind_req	 k[2];
	unsigned	 n = 0;
	char		 name[80];
	const uint8_t	*a = wk->addr;
	uint8_t		 family = wk->family;

	if (wk->what == W_NAME) {
		if (wk->family != PROTO_AF_INET6)
			k[n++] = (struct kind_req){ wk->name, DNS_T_A, DNS_T_A,
			    ANSWER_ADDR, true };
		if (wk->family != PROTO_AF_INET)
			k[n++] = (struct kind_req){ wk->name, DNS_T_AAAA, DNS_T_AAAA,
			    ANSWER_ADDR, true };
		resolve(wk, wk->family, NULL, k, n);
		return;
	}
	/*
	 * As glibc's dns module: a v4-mapped address, or a v4-compatible one
	 * other than ::1 and ::, is asked as the IPv4 address it holds, and
	 * answered as one.
	 */
	if (family == PROTO_AF_INET6 &&
	    memcmp(a, "\0\0\0\0\0\0\0\0\0\0", 10) == 0 &&
	    ((a[10] == 0xff && a[11] == 0xff) ||
	    (a[10] == 0 && a[11] == 0 && memcmp(a + 12, "\0\0\0\1", 4) != 0 &&
	    memcmp(a + 12, "\0\0\0\0", 4) != 0))) {
		family = PROTO_AF_INET;
		a += 12;
	}
	answer_ptr_name(family, a, name, sizeof(name));
	k[0] = (struct kind_req){ name, DNS_T_PTR, DNS_T_PTR, ANSWER_PTR, false };
	resolve(wk, family, a, k, 1);
}

/* --- NSS modules --------------------------------------------------------- */

/*
 * A module's answers are cached under the name (or the address's text) and
 * a kind of their own: CACHE_KIND_NSS | module << 8 | op << 7 | family.
 */
static uint32_t
module_kind(int mod, int what, uint8_t family)
{
	return CACHE_KIND_NSS | (uint32_t)mod << 8 | (what == W_ADDR ? 0x80u : 0) |
	    family;
}

static void
module_key(const struct walk *wk, char *key, size_t len)
{
	if (wk->what == W_NAME)
		lookup_nss_key(wk->name, key, len);
	else
		inet_ntop(wk->family == PROTO_AF_INET ? AF_INET : AF_INET6, wk->addr,
		    key, (socklen_t)len);
}

/* The frame for a module's answer, from the module or the cache. */
static void
module_frame(struct walk *wk, int status, const uint8_t *body, size_t len,
    uint32_t ttl, uint32_t ttl_full, int64_t expires, uint8_t source,
    struct stage *st)
{
	struct lookup	*lk = wk->lk;
	struct proto_wr	 w, rw;
	int		 n;

	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, lk->frame, sizeof(lk->frame));
	proto_frame_begin(&w, wk->type | PROTO_REPLY, (uint16_t)status, wk->id);
	if (status == PROTO_OK) {
		size_t at = w.off;

		proto_wr_init(&rw, lk->respelled, sizeof(lk->respelled));
		if (wk->what == W_NAME && answer_respell_whole(body, len, wk->name,
		    &rw) == 0)
			proto_put_bytes(&w, lk->respelled, rw.off);
		else
			proto_put_bytes(&w, body, len);
		if (w.err == 0)
			answer_stamp(w.p + at, w.off - at, ttl, source);
	}
	if ((n = proto_frame_end(&w)) < 0) {
		proto_frame_begin(&w, wk->type | PROTO_REPLY, PROTO_TOOBIG, wk->id);
		n = proto_frame_end(&w);
		status = PROTO_TOOBIG;
	}
	st->status = (uint16_t)status;
	st->nsw = nsw_of((uint16_t)status);
	st->source = source;
	/* A module may answer "vm" and not "VM": whatever it said, it said
	 * for this spelling only. */
	st->exact = wk->what == W_NAME;
	st->expires = expires;
	st->ttl_full = ttl_full;
	st->len = (size_t)n;
}

struct modcall {
	struct walk	*wk;
	int		 mod;
};

static void
module_done(void *arg, const struct nsspool_result *r)
{
	struct modcall	*mc = arg;
	struct walk	*wk = mc->wk;
	struct lookup	*lk;
	struct stage	 st;
	char		 key[2 * PROTO_NAME_MAX + 4];
	uint32_t	 ttl, kind;
	int64_t		 now;

	if (r->status == -ECANCELED) {
		if (wk->hold)
			server_hold_release(wk->hold);
		walk_free(wk);
		free(mc);
		return;
	}
	lk = wk->lk;
	now = lk->env.now(lk->env.now_arg);
	module_key(wk, key, sizeof(key));
	kind = module_kind(mc->mod, wk->what, wk->family);
	memset(&st, 0, sizeof(st));
	switch (r->status) {
	case NSW_SUCCESS:
		ttl = r->ttl >= 0 ? (uint32_t)r->ttl : lk->nss_positive_ttl;
		ttl = cache_clamp_ttl(lk->cache, CACHE_POSITIVE, ttl);
		cache_put(lk->cache, key, kind, CACHE_POSITIVE, ttl, r->body, r->len);
		module_frame(wk, PROTO_OK, r->body, r->len, ttl, ttl,
		    now + (int64_t)ttl * 1000, PROTO_SRC_NSS, &st);
		break;
	case NSW_NOTFOUND:
		ttl = cache_clamp_ttl(lk->cache, CACHE_NXDOMAIN, lk->nss_negative_ttl);
		/* A TTL the module gave bounds the negative answer too. */
		if (r->ttl >= 0 && (uint32_t)r->ttl < ttl)
			ttl = (uint32_t)r->ttl;
		if (ttl > 0)
			cache_put(lk->cache, key, kind, r->herrno == NO_DATA ?
			    CACHE_NODATA : CACHE_NXDOMAIN, ttl, NULL, 0);
		module_frame(wk, r->herrno == NO_DATA ? PROTO_NODATA : PROTO_NOTFOUND,
		    NULL, 0, 0, ttl, ttl > 0 ? now + (int64_t)ttl * 1000 : 0,
		    PROTO_SRC_NSS, &st);
		break;
	case NSW_TRYAGAIN:
		/* Not kept: the next lookup asks again. */
		module_frame(wk, PROTO_TRYAGAIN, NULL, 0, 0, 0, 0, PROTO_SRC_NSS, &st);
		st.herrno = r->herrno;
		st.err = r->err;
		break;
	default:
		module_frame(wk, PROTO_UNAVAIL, NULL, 0, 0, 0, 0, PROTO_SRC_NSS, &st);
		st.nsw = NSW_UNAVAIL;
		st.herrno = r->herrno;
		st.err = r->err;
		break;
	}
	free(mc);
	walk_step_done(wk, &st);
}

static void
step_module(struct walk *wk, int mod)
{
	struct lookup	*lk = wk->lk;
	struct cache_hit hit;
	struct modcall	*mc;
	struct stage	 st;
	char		 key[2 * PROTO_NAME_MAX + 4];
	uint32_t	 kind = module_kind(mod, wk->what, wk->family);
	int		 r;

	if (nsspool_missing(lk->env.nss, mod)) {
		/*
		 * A module that does not load says UNAVAIL, as in glibc, and
		 * will say it again: no call, and it does not stop the walk's
		 * answer from being published (the line's next change starts
		 * anew).
		 */
		memset(&st, 0, sizeof(st));
		st.nsw = NSW_UNAVAIL;
		st.status = PROTO_UNAVAIL;
		st.herrno = NETDB_INTERNAL;
		st.err = EBUSY;
		st.expires = SHM_FOREVER;
		st.ttl_full = UINT32_MAX;
		walk_step_done(wk, &st);
		return;
	}
	module_key(wk, key, sizeof(key));
	cache_lookup(lk->cache, key, kind, &hit);
	if (hit.state == CACHE_FRESH || hit.state == CACHE_REFRESH) {
		if (hit.status == CACHE_POSITIVE)
			module_frame(wk, PROTO_OK, hit.data, hit.len, hit.ttl_left,
			    hit.ttl, hit.expires, PROTO_SRC_CACHE, &st);
		else
			module_frame(wk, hit.status == CACHE_NODATA ? PROTO_NODATA :
			    PROTO_NOTFOUND, NULL, 0, 0, hit.ttl, hit.expires,
			    PROTO_SRC_CACHE, &st);
		walk_step_done(wk, &st);
		return;
	}
	if ((mc = malloc(sizeof(*mc))) == NULL || !walk_hold(wk)) {
		free(mc);
		walk_fail(wk, PROTO_INTERNAL, "out of memory");
		return;
	}
	mc->wk = wk;
	mc->mod = mod;
	if (wk->what == W_NAME)
		r = nsspool_call(lk->env.nss, mod, NSSPOOL_NAME, wk->family, wk->name,
		    wk->name_len + 1, module_done, mc);
	else
		r = nsspool_call(lk->env.nss, mod, NSSPOOL_ADDR, wk->family, wk->addr,
		    wk->family == PROTO_AF_INET ? 4 : 16, module_done, mc);
	if (r < 0) {
		free(mc);
		if (r == -EBUSY) {
			lk->env.stats->busy++;
			walk_fail(wk, PROTO_BUSY, "too many NSS module calls in flight");
		} else
			walk_fail(wk, PROTO_INTERNAL, "out of memory");
	}
}

/* Runs the walk from source wk->i until it waits or ends. */
static void
walk_run(struct walk *wk)
{
	struct stage st;

	if (wk->i >= wk->chain.n) {
		/* An empty line: glibc's status stays UNAVAIL. */
		memset(&st, 0, sizeof(st));
		st.nsw = NSW_UNAVAIL;
		st.status = PROTO_UNAVAIL;
		wk->publishable = false;
		walk_finish(wk, &st);
		return;
	}
	switch (wk->chain.src[wk->i].kind) {
	case SRC_FILES:
		step_files(wk);
		break;
	case SRC_DNS:
		step_dns(wk);
		break;
	case SRC_MODULE:
		step_module(wk, wk->chain.src[wk->i].mod);
		break;
	default:
		/* A source no module can be: as a module that does not load. */
		memset(&st, 0, sizeof(st));
		st.nsw = NSW_UNAVAIL;
		st.status = PROTO_UNAVAIL;
		st.herrno = NETDB_INTERNAL;
		st.err = EBUSY;
		walk_step_done(wk, &st);
		break;
	}
}

static struct walk *
walk_new(struct lookup *lk, struct server_req *req, int what, uint8_t family)
{
	struct walk *wk = calloc(1, sizeof(*wk));

	if (wk == NULL && req == NULL)
		return NULL;
	if (wk == NULL) {
		struct proto_wr	w;
		int		len;

		proto_wr_init(&w, lk->frame, sizeof(lk->frame));
		proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_INTERNAL,
		    req->hdr.id);
		proto_error_body(&w, "out of memory");
		if ((len = proto_frame_end(&w)) > 0)
			server_reply(req, lk->frame, (size_t)len);
		return NULL;
	}
	wk->lk = lk;
	wk->req = req;
	wk->type = req ? req->hdr.type : (what == W_ADDR ? PROTO_LOOKUP_ADDR :
	    PROTO_LOOKUP_NAME);
	wk->id = req ? req->hdr.id : 0;
	wk->what = what;
	wk->family = family;
	wk->chain = lk->chain;
	wk->expires = INT64_MAX;
	wk->ttl_full = UINT32_MAX;
	wk->publishable = true;
	return wk;
}

/* A walk of (name, family), published under the name as given. */
static struct walk *
walk_name(struct lookup *lk, struct server_req *req, uint8_t family,
    const char *name, size_t len)
{
	struct walk *wk;

	if (len == 0 || len > PROTO_NAME_MAX + 1 ||
	    (wk = walk_new(lk, req, W_NAME, family)) == NULL)
		return NULL;
	memcpy(wk->name, name, len);
	wk->name[len] = '\0';
	wk->name_len = len;
	wk->pk.kind = SHM_NAME;
	wk->pk.family = family;
	wk->pk.len = len;
	memcpy(wk->pk.key, name, len);
	return wk;
}

/* A walk of an address (4 or 16 bytes, as family says), published under it. */
static struct walk *
walk_addr(struct lookup *lk, struct server_req *req, uint8_t family, const void *addr)
{
	struct walk *wk;

	if ((wk = walk_new(lk, req, W_ADDR, family)) == NULL)
		return NULL;
	wk->pk.len = family == PROTO_AF_INET ? 4 : 16;
	memcpy(wk->addr, addr, wk->pk.len);
	wk->pk.kind = SHM_ADDR;
	wk->pk.family = family;
	memcpy(wk->pk.key, addr, wk->pk.len);
	return wk;
}

/*
 * Walks again, with nobody waiting, every published key a refreshed
 * fetch answers: (name, its family and AF_UNSPEC) for A or AAAA, the
 * address for PTR.  The walk finds the fetch's answer in the cache and
 * publishes what a client asking now would be told.
 */
static void
republish(struct lookup *lk, const struct fetch *f)
{
	struct walk	*wk;
	uint8_t		 fams[2];
	unsigned	 i, n = 0;

	if (lk->shm == NULL && lk->nmap == NULL)
		return;
	if (f->mode == ANSWER_PTR) {
		if ((wk = walk_addr(lk, NULL, f->family, f->addr)) != NULL)
			walk_run(wk);
		return;
	}
	if (f->mode != ANSWER_ADDR)
		return;
	fams[n++] = f->qtype == DNS_T_A ? PROTO_AF_INET : PROTO_AF_INET6;
	fams[n++] = PROTO_AF_UNSPEC;
	for (i = 0; i < n; i++) {
		if ((wk = walk_name(lk, NULL, fams[i], f->key, strlen(f->key))) == NULL)
			return;
		lk->env.stats->republished++;
		walk_run(wk);
	}
}

void
lookup_name(struct lookup *lk, struct server_req *req,
    const struct proto_lookup_name *q)
{
	struct walk *wk;

	if ((wk = walk_name(lk, req, q->family, q->name, q->name_len)) != NULL)
		walk_run(wk);
}

void
lookup_addr(struct lookup *lk, struct server_req *req,
    const struct proto_lookup_addr *q)
{
	struct walk *wk;

	if ((wk = walk_addr(lk, req, q->family, q->addr)) != NULL)
		walk_run(wk);
}

void
lookup_refresh_name(struct lookup *lk, uint8_t family, const char *name, size_t len)
{
	struct walk *wk;

	if ((wk = walk_name(lk, NULL, family, name, len)) == NULL)
		return;
	lk->force_refresh = true;
	walk_run(wk);
	lk->force_refresh = false;
}

void
lookup_refresh_addr(struct lookup *lk, uint8_t family, const void *addr)
{
	struct walk *wk;

	if ((wk = walk_addr(lk, NULL, family, addr)) == NULL)
		return;
	lk->force_refresh = true;
	walk_run(wk);
	lk->force_refresh = false;
}

void
lookup_set_nscdmap(struct lookup *lk, struct nscdmap *m)
{
	lk->nmap = m;
}

/* Records of any type: DNS only, whatever the hosts line says. */
void
lookup_rr(struct lookup *lk, struct server_req *req, const struct proto_query_rr *q)
{
	struct kind_req k = { q->name, CACHE_KIND_RR | q->type, q->type, ANSWER_RR,
	    true };
	struct walk *wk;

	if ((wk = walk_new(lk, req, W_RR, PROTO_AF_UNSPEC)) == NULL)
		return;
	/* One step, DNS, whose answer is final: never published. */
	wk->chain.n = 1;
	wk->chain.src[0].kind = SRC_DNS;
	memset(wk->chain.src[0].action, NSW_RETURN, NSW_NSTATUS);
	wk->publishable = false;
	resolve(wk, PROTO_AF_UNSPEC, NULL, &k, 1);
}

/*
 * A module may tell names apart by case (nss-myhostname answers "vm" and
 * not "VM"), and the cache compares names without it: each capital is
 * kept as \1 and its lower case (names never hold control bytes).  A key
 * that no longer fits the cache is not cached.
 */
void
lookup_nss_key(const char *name, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; name[i] && o + 2 < len; i++) {
		if (name[i] >= 'A' && name[i] <= 'Z') {
			out[o++] = '\1';
			out[o++] = (char)(name[i] + 32);
		} else
			out[o++] = name[i];
	}
	out[o] = '\0';
}

void
lookup_nss_key_text(const char *key, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; key[i] && o + 1 < len; i++) {
		if (key[i] == '\1' && key[i + 1]) {
			i++;
			out[o++] = (char)(key[i] >= 'a' && key[i] <= 'z' ? key[i] - 32 :
			    key[i]);
		} else
			out[o++] = key[i];
	}
	out[o] = '\0';
}

void
lookup_set_line(struct lookup *lk, const struct nsw_line *l)
{
	unsigned i;
	int	 mod;

	memset(&lk->chain, 0, sizeof(lk->chain));
	for (i = 0; i < l->n; i++) {
		memcpy(lk->chain.src[i].action, l->src[i].action, NSW_NSTATUS);
		if (strcmp(l->src[i].name, "files") == 0)
			lk->chain.src[i].kind = SRC_FILES;
		else if (strcmp(l->src[i].name, "dns") == 0)
			lk->chain.src[i].kind = SRC_DNS;
		else if (lk->env.nss &&
		    (mod = nsspool_module(lk->env.nss, l->src[i].name)) >= 0) {
			lk->chain.src[i].kind = SRC_MODULE;
			lk->chain.src[i].mod = mod;
		} else
			lk->chain.src[i].kind = SRC_NONE;
	}
	lk->chain.n = l->n;
}

void
lookup_set_max_fetches(struct lookup *lk, unsigned n)
{
	lk->max_fetches = n ? n : LOOKUP_FETCH_MAX;
}

void
lookup_set_nss_ttls(struct lookup *lk, uint32_t positive, uint32_t negative)
{
	lk->nss_positive_ttl = positive;
	lk->nss_negative_ttl = negative;
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
	lk->max_fetches = LOOKUP_FETCH_MAX;
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
