/* SPDX-License-Identifier: MIT */
/* daemon/engine/lookup.c - the lookup engine: the host's hosts line, source by source, through the cache. */

/*
 * A lookup walks the hosts line of nsswitch.conf (walk.c has the rule),
 * namecache's own entry taken out, as glibc's getaddrinfo,
 * gethostbyname2_r and gethostbyaddr_r walk it.  This file asks each
 * source in turn and carries the walk across the waits:
 *
 *   files   the hosts index, at once                       (result_files)
 *   dns     the cache, else a fetch upstream      (dnssrc.c, result_dns)
 *   other   the cache, else the module on a worker (modsrc.c, result_module)
 *
 * A walk starts on its caller's stack, so that a hit allocates nothing;
 * one that must wait moves to the heap (walk_hold), holds its request
 * (the front end's hold), and goes on from the source's callback.  Its
 * end is a typed answer (answer.h, built by result.c), handed to the
 * front end to write in its own wire, counted, and published (publish.c)
 * until the first of the answers it rests on expires.
 *
 * The engine touches the world only through its seams (lookup.h): the
 * front end's replies, the hosts index, upstream DNS, the NSS modules and
 * the clock.  Single-threaded: everything runs on the event loop.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnsanswer.h"
#include "clock.h"
#include "lookup.h"
#include "nsswitch.h"
#include "publish.h"
#include "registry.h"
#include "result.h"
#include "shmfmt.h"
#include "store.h"
#include "walk.h"

struct lookup {
	struct lookup_env	 env;
	struct cache		*cache;
	struct dnssrc		*dns;
	struct modsrc		*mods;
	struct publish		*pub;
	/* Answers are built here, one at a time; each is sent, published
	 * and done with before the next is built. */
	struct result		*result;
	struct walk_line	 line;		/* what new walks walk */
	struct lookup_stats	 st;		/* the replies' counts */
	lookup_observe_fn	*observe;	/* told of every lookup answered */
	void			*observe_arg;
};

/* One lookup, from its request to its reply. */
struct walk {
	struct lookup		*lk;
	const struct lookup_frontend *fe;	/* NULL: the engine's own walk */
	void			*ctx;		/* the front end's request, until it waits */
	void			*hold;		/* once it waits */
	struct result_to	 to;		/* names and addr point below */
	char			 name[PROTO_NAME_MAX + 2];
	size_t			 name_len;
	uint8_t			 addr[16];
	struct publish_key	 pk;
	struct walk_state	 ws;
	uint16_t		 rr_type;	/* RESULT_RR: the type asked */
	struct lookup_client	 client;	/* who asked (fe 0: not known) */
	uint64_t		 t0;		/* µs, CLOCK_MONOTONIC: asked then */
	unsigned		 at;		/* the source asked last */
	unsigned		 notes;		/* DNSSRC_NOTE_* of its dns steps */
	bool			 refresh;	/* refresh live answers it meets */
	bool			 absolute;	/* LOOKUP_ABSOLUTE: no search list */
	bool			 heap;		/* moved there to wait: freed at its end */
};

static void walk_run(struct walk *);

static void
walk_send(struct walk *wk, const struct answer *a)
{
	if (wk->hold)
		wk->fe->hold_reply(wk->hold, a);
	else if (wk->ctx)
		wk->fe->reply(wk->ctx, a);
	/* else: a walk of the engine's own, to publish */
	if (wk->heap)
		free(wk);
}

/* At shutdown: the walk ends with no reply. */
static void
walk_cancel(struct walk *wk)
{
	if (wk->hold)
		wk->fe->hold_release(wk->hold);
	if (wk->heap)
		free(wk);
}

/* One count per reply, by where its answer came from. */
static void
count_reply(struct lookup *lk, uint16_t status, uint8_t source)
{
	if (status == PROTO_OK && source == PROTO_SRC_STALE)
		lk->st.stale_served++;
	else if (status == PROTO_OK && source == PROTO_SRC_DNS)
		lk->st.dns_answers++;
	else if (status == PROTO_OK && source == PROTO_SRC_HOSTS)
		lk->st.hosts_answers++;
	else if (status == PROTO_OK && source == PROTO_SRC_NSS)
		lk->st.nss_answers++;
	else if (status == PROTO_OK)
		lk->st.cache_answers++;
	else if (status == PROTO_NOTFOUND || status == PROTO_NODATA)
		lk->st.not_found++;
	else
		lk->st.errors++;
}

/* How the cache took part in the walk's answer (st: its last stage). */
static uint8_t
walk_cache(const struct walk *wk, const struct stage *st)
{
	/* Stale first: it is what the client was told, however it came. */
	if (st->source == PROTO_SRC_STALE)
		return LOOKUP_STALE;
	if (wk->notes & DNSSRC_NOTE_COALESCED)
		return LOOKUP_COALESCED;
	if (wk->heap)
		return LOOKUP_MISS;
	if (wk->notes & DNSSRC_NOTE_PREFETCH)
		return LOOKUP_PREFETCH;
	return LOOKUP_HIT;
}

/* Tells the observer how the walk's answer came: source, cache, time. */
static void
walk_observe(struct walk *wk, const struct stage *st, const struct answer *a)
{
	struct lookup		*lk = wk->lk;
	struct lookup_done	 d;
	unsigned		 kind = wk->ws.line.n ? wk->ws.line.src[wk->at].kind :
				    WALK_NONE;
	uint64_t		 now = mono_us();

	memset(&d, 0, sizeof(d));
	d.client = wk->client.fe ? &wk->client : NULL;
	d.question = wk->to.what == RESULT_NAME ? LOOKUP_Q_NAME :
	    wk->to.what == RESULT_ADDR ? LOOKUP_Q_ADDR : LOOKUP_Q_RR;
	d.family = wk->to.family;
	d.rr_type = wk->rr_type;
	d.wire = wk->to.what == RESULT_WIRE;
	d.name = wk->name;
	d.addr = wk->addr;
	d.source = kind == WALK_FILES ? LOOKUP_SRC_FILES : kind == WALK_DNS ?
	    LOOKUP_SRC_DNS : kind == WALK_MODULE ? LOOKUP_SRC_MODULE :
	    LOOKUP_SRC_NONE;
	d.mod = kind == WALK_MODULE ? wk->ws.line.src[wk->at].mod : -1;
	d.cache = a->cache;
	d.status = st->status;
	d.usec = now > wk->t0 ? now - wk->t0 : 0;
	d.end_us = now;
	d.answer = a;
	lk->observe(lk->observe_arg, &d);
}

/* The walk ends on st, whose answer is the result's. */
static void
walk_finish(struct walk *wk, struct stage *st, const struct walk_end *end)
{
	struct lookup	*lk = wk->lk;
	struct answer	*a = result_answer(lk->result);
	bool		 asked = wk->hold || wk->ctx;

	result_end_unavail(lk->result, st);
	a->cache = walk_cache(wk, st);
	if (end->publish)
		publish_answer(lk->pub, &wk->pk, a, end->exact, end->expires,
		    end->ttl, asked);
	if (asked) {
		count_reply(lk, st->status, st->source);
		if (lk->observe)
			walk_observe(wk, st, a);
	}
	walk_send(wk, a);
}

/* A step is done: its action says whether the walk returns or goes on. */
static void
walk_step_done(struct walk *wk, struct stage *st)
{
	struct walk_end end;

	if (walk_step(&wk->ws, st, &end) == WALK_DONE)
		walk_finish(wk, st, &end);
	else
		walk_run(wk);
}

static void
walk_fail(struct walk *wk, uint16_t status, const char *why)
{
	struct stage st;

	result_error(wk->lk->result, status, why, &st);
	walk_step_done(wk, &st);
}

/*
 * The walk must wait: it moves to the heap (*wkp is then the copy; the
 * stack's is done with) and holds the request from now on.  False, *wkp
 * unchanged, when it cannot.
 */
static bool
walk_hold(struct walk **wkp)
{
	struct walk *wk = *wkp, *h;

	if (wk->heap)
		return true;	/* moved and held already */
	if ((h = malloc(sizeof(*h))) == NULL)
		return false;
	memcpy(h, wk, sizeof(*h));
	h->heap = true;
	h->to.name = h->name;		/* they pointed into the stack's */
	h->to.addr = h->addr;
	if (h->ctx && (h->hold = h->fe->hold(h->ctx)) == NULL) {
		free(h);
		return false;
	}
	h->ctx = NULL;
	*wkp = h;
	return true;
}

/* --- files --------------------------------------------------------------- */

static void
step_files(struct walk *wk)
{
	struct lookup		*lk = wk->lk;
	const struct lookup_hosts *h = &lk->env.hosts;
	struct stage		 st;

	result_files(lk->result, &wk->to, h->get(h->arg), h->error(h->arg), &st);
	walk_step_done(wk, &st);
}

/* --- dns ----------------------------------------------------------------- */

/* The name the dns source is asked: absolute ones end in a dot, so no search. */
static const char *
dns_name(const struct walk *wk, char buf[PROTO_NAME_MAX + 2])
{
	if (!wk->absolute || wk->name_len == 0 || wk->name[wk->name_len - 1] == '.' ||
	    wk->name_len > PROTO_NAME_MAX)
		return wk->name;
	memcpy(buf, wk->name, wk->name_len);
	buf[wk->name_len] = '.';
	buf[wk->name_len + 1] = '\0';
	return buf;
}

static void
dns_done(void *arg, int status, const struct dns_result *r, unsigned n)
{
	struct walk	*wk = arg;
	struct lookup	*lk = wk->lk;
	struct stage	 st;
	char		 cand[DNSSRC_NCAND][PROTO_NAME_MAX + 2];
	char		 dotted[PROTO_NAME_MAX + 2];
	bool		 asis;
	int		 ncand = 0;

	if (status == -ECANCELED) {
		walk_cancel(wk);
		return;
	}
	if (status == -EBUSY) {
		walk_fail(wk, PROTO_BUSY, "too many upstream resolutions in flight");
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (r[i].coalesced)
			wk->notes |= DNSSRC_NOTE_COALESCED;
	if (wk->to.what == RESULT_NAME)
		ncand = dnssrc_candidates(lk->dns, dns_name(wk, dotted), cand, &asis);
	result_dns(lk->result, &wk->to, cand, ncand, r, n, &st);
	walk_step_done(wk, &st);
}

static void
step_dns(struct walk *wk)
{
	struct lookup		*lk = wk->lk;
	struct dnssrc_ask	 a;
	struct dns_result	 now[2];
	bool			 wants[2];
	unsigned		 need;
	/* The key is copied by dnssrc_wait: the buffer may go with the call. */
	char			 dotted[PROTO_NAME_MAX + 2];

	if (wk->to.what == RESULT_NAME)
		dnssrc_ask_name(lk->dns, &a, dns_name(wk, dotted), wk->to.family);
	else if (wk->to.what == RESULT_ADDR)
		dnssrc_ask_addr(&a, wk->to.family, wk->addr);
	else if (wk->to.what == RESULT_WIRE)
		dnssrc_ask_wire(&a, wk->name, wk->rr_type);
	else
		dnssrc_ask_rr(&a, wk->name, wk->rr_type);
	a.refresh = wk->refresh;
	need = dnssrc_peek(lk->dns, &a, now, wants);
	wk->notes |= dnssrc_notes(lk->dns);
	if (need == 0) {
		dns_done(wk, 0, now, a.n);
		return;
	}
	if (!walk_hold(&wk) || dnssrc_wait(lk->dns, &a, now, wants, dns_done, wk) < 0) {
		struct stage st;

		result_dns(lk->result, &wk->to, NULL, 0,
		    &(struct dns_result){ .status = CACHE_FAILED }, 1, &st);
		st.expires = 0;
		walk_step_done(wk, &st);
	}
	/* else dns_done goes on, perhaps already has: wk may be gone. */
}

/* --- NSS modules --------------------------------------------------------- */

static void
module_done(void *arg, int status, const struct modsrc_answer *a)
{
	struct walk	*wk = arg;
	struct stage	 st;

	if (status == -ECANCELED) {
		walk_cancel(wk);
		return;
	}
	result_module(wk->lk->result, &wk->to, a, &st);
	walk_step_done(wk, &st);
}

static void
step_module(struct walk *wk, int mod)
{
	struct lookup		*lk = wk->lk;
	struct modsrc_answer	 a;
	struct stage		 st;
	struct modsrc_ask	 q = {
		.mod = mod,
		.op = wk->to.what == RESULT_ADDR ? NSSPOOL_ADDR : NSSPOOL_NAME,
		.family = wk->to.family,
		.name = wk->name,
		.name_len = wk->name_len,
		.addr = wk->addr,
	};
	int			 r;

	if (modsrc_unavailable(lk->mods, mod)) {
		walk_stage_unavailable(&st);
		walk_step_done(wk, &st);
		return;
	}
	if (modsrc_peek(lk->mods, &q, &a)) {
		result_module(lk->result, &wk->to, &a, &st);
		walk_step_done(wk, &st);
		return;
	}
	if (!walk_hold(&wk)) {
		walk_fail(wk, PROTO_INTERNAL, "out of memory");
		return;
	}
	q.name = wk->name;		/* the heap's copy, now */
	q.addr = wk->addr;
	if ((r = modsrc_call(lk->mods, &q, module_done, wk)) == -EBUSY)
		walk_fail(wk, PROTO_BUSY, "too many NSS module calls in flight");
	else if (r < 0)
		walk_fail(wk, PROTO_INTERNAL, "out of memory");
}

/* --- the walk ------------------------------------------------------------ */

/* Runs the walk from its current source until it waits or ends. */
static void
walk_run(struct walk *wk)
{
	struct walk_end	end;
	struct stage	st;
	unsigned	i = wk->ws.i;

	if (i >= wk->ws.line.n) {
		/* An empty line: glibc's status stays UNAVAIL. */
		memset(&st, 0, sizeof(st));
		st.nsw = NSW_UNAVAIL;
		st.status = PROTO_UNAVAIL;
		walk_end_empty(&wk->ws, &end);
		walk_finish(wk, &st, &end);
		return;
	}
	wk->at = i;
	switch (wk->ws.line.src[i].kind) {
	case WALK_FILES:
		step_files(wk);
		break;
	case WALK_DNS:
		step_dns(wk);
		break;
	case WALK_MODULE:
		step_module(wk, wk->ws.line.src[i].mod);
		break;
	default:
		walk_stage_unavailable(&st);
		walk_step_done(wk, &st);
		break;
	}
}

/*
 * req NULL: a walk of the engine's own, to publish what it finds.  wk is
 * the caller's (its stack): the walk moves to the heap if it must wait.
 */
static struct walk *
walk_new(struct walk *wk, struct lookup *lk, const struct lookup_req *req, int what,
    uint8_t family)
{
	/* The fixed part; names and keys are written before they are read. */
	memset(wk, 0, offsetof(struct walk, name));
	memset(&wk->pk, 0, offsetof(struct publish_key, key));
	wk->name[0] = '\0';
	wk->name_len = 0;
	wk->rr_type = 0;
	memset(&wk->client, 0, sizeof(wk->client));
	wk->t0 = 0;
	wk->at = 0;
	wk->notes = 0;
	wk->refresh = wk->absolute = wk->heap = false;
	wk->lk = lk;
	if (req != NULL) {
		wk->fe = req->fe;
		wk->ctx = req->ctx;
		wk->absolute = (req->flags & LOOKUP_ABSOLUTE) != 0;
		if (req->client)
			wk->client = *req->client;
		if (lk->observe)
			wk->t0 = req->at_us ? req->at_us : mono_us();
	}
	wk->to.what = what;
	wk->to.family = family;
	wk->to.name = wk->name;
	wk->to.addr = wk->addr;
	walk_begin(&wk->ws, &lk->line);
	return wk;
}

/* A walk of (name, family), published under the name as given; NULL: a bad name. */
static struct walk *
walk_name(struct walk *wk, struct lookup *lk, const struct lookup_req *req,
    uint8_t family, const char *name, size_t len)
{
	if (len == 0 || len > PROTO_NAME_MAX + 1)
		return NULL;
	walk_new(wk, lk, req, RESULT_NAME, family);
	memcpy(wk->name, name, len);
	wk->name[len] = '\0';
	wk->name_len = len;
	/* An absolute walk is no glibc lookup of the name: it is not published. */
	wk->pk.kind = wk->absolute ? 0 : SHM_NAME;
	wk->pk.family = family;
	wk->pk.len = len;
	memcpy(wk->pk.key, name, len);
	return wk;
}

/* A walk of an address (4 or 16 bytes, as family says), published under it. */
static struct walk *
walk_addr(struct walk *wk, struct lookup *lk, const struct lookup_req *req,
    uint8_t family, const void *addr)
{
	walk_new(wk, lk, req, RESULT_ADDR, family);
	wk->pk.len = family == PROTO_AF_INET ? 4 : 16;
	memcpy(wk->addr, addr, wk->pk.len);
	wk->pk.kind = SHM_ADDR;
	wk->pk.family = family;
	memcpy(wk->pk.key, addr, wk->pk.len);
	return wk;
}

/*
 * A prefetch brought a fresh answer: walk again, with nobody waiting,
 * every key it answers ((name, its family and AF_UNSPEC) for A or AAAA,
 * (name, AF_UNSPEC) for the pair, the address for PTR), so the stores
 * hold what a client asking now would be told.
 */
static void
refreshed(void *arg, int mode, uint8_t family, const char *key,
    const uint8_t *addr)
{
	struct lookup	*lk = arg;
	struct walk	 w, *wk;
	uint8_t		 fams[2] = { family, PROTO_AF_UNSPEC };
	unsigned	 i, n;

	if (!publish_enabled(lk->pub))
		return;
	if (mode == DNSANSWER_PTR) {
		walk_run(walk_addr(&w, lk, NULL, family, addr));
		return;
	}
	if (mode != DNSANSWER_ADDR)
		return;
	/* A or AAAA alone answers AF_UNSPEC too, where the pair is asked
	 * apart (a search of one name); the pair answers only AF_UNSPEC. */
	n = family == PROTO_AF_UNSPEC ? 1 : 2;
	for (i = 0; i < n; i++) {
		if ((wk = walk_name(&w, lk, NULL, fams[i], key, strlen(key))) == NULL)
			return;
		lk->st.republished++;
		walk_run(wk);
	}
}

void
lookup_name(struct lookup *lk, const struct lookup_req *req,
    const struct proto_lookup_name *q)
{
	struct walk w, *wk;

	if ((wk = walk_name(&w, lk, req, q->family, q->name, q->name_len)) != NULL)
		walk_run(wk);
}

void
lookup_addr(struct lookup *lk, const struct lookup_req *req,
    const struct proto_lookup_addr *q)
{
	walk_run(walk_addr(&(struct walk){ 0 }, lk, req, q->family, q->addr));
}

void
lookup_rr(struct lookup *lk, const struct lookup_req *req, const struct proto_query_rr *q)
{
	struct walk_line	 line;
	struct walk		 w, *wk = &w;
	size_t			 len = strnlen(q->name, PROTO_NAME_MAX + 1);

	walk_new(wk, lk, req, req->flags & LOOKUP_WIRE ? RESULT_WIRE : RESULT_RR,
	    PROTO_AF_UNSPEC);
	memcpy(wk->name, q->name, len);
	wk->name[len] = '\0';
	wk->name_len = len;
	/* One step, DNS, whose answer is final: never published. */
	memset(&line, 0, sizeof(line));
	line.n = 1;
	line.src[0].kind = WALK_DNS;
	memset(line.src[0].action, NSW_RETURN, NSW_NSTATUS);
	walk_begin(&wk->ws, &line);
	wk->ws.publishable = false;
	wk->rr_type = q->type;
	walk_run(wk);
}

void
lookup_refresh_name(struct lookup *lk, uint8_t family, const char *name, size_t len)
{
	struct walk w, *wk;

	if ((wk = walk_name(&w, lk, NULL, family, name, len)) == NULL)
		return;
	wk->refresh = true;
	walk_run(wk);
}

void
lookup_refresh_addr(struct lookup *lk, uint8_t family, const void *addr)
{
	struct walk w, *wk = walk_addr(&w, lk, NULL, family, addr);

	wk->refresh = true;
	walk_run(wk);
}

void
lookup_set_line(struct lookup *lk, const struct nsw_line *l)
{
	unsigned i;
	int	 mod;

	memset(&lk->line, 0, sizeof(lk->line));
	for (i = 0; i < l->n; i++) {
		memcpy(lk->line.src[i].action, l->src[i].action, NSW_NSTATUS);
		if (strcmp(l->src[i].name, "files") == 0)
			lk->line.src[i].kind = WALK_FILES;
		else if (strcmp(l->src[i].name, "dns") == 0)
			lk->line.src[i].kind = WALK_DNS;
		else if ((mod = modsrc_module_id(lk->mods, l->src[i].name)) >= 0) {
			lk->line.src[i].kind = WALK_MODULE;
			lk->line.src[i].mod = mod;
		} else
			lk->line.src[i].kind = WALK_NONE;
	}
	lk->line.n = l->n;
}

bool
lookup_line_has_dns(const struct lookup *lk)
{
	for (unsigned i = 0; i < lk->line.n; i++)
		if (lk->line.src[i].kind == WALK_DNS)
			return true;
	return false;
}

void
lookup_set_max_fetches(struct lookup *lk, unsigned n)
{
	dnssrc_set_max_fetches(lk->dns, n);
}

void
lookup_set_nss_ttls(struct lookup *lk, uint32_t positive, uint32_t negative)
{
	modsrc_set_ttls(lk->mods, positive, negative);
}

void
lookup_set_shm(struct lookup *lk, struct shm *shm)
{
	publish_set_shm(lk->pub, shm);
}

void
lookup_set_nscdmap(struct lookup *lk, struct nscdmap *m)
{
	publish_set_nscdmap(lk->pub, m);
}

struct lookup *
lookup_new(const struct lookup_env *env, const struct cache_limits *lim,
    bool prefetch)
{
	struct lookup *lk = calloc(1, sizeof(*lk));

	if (lk == NULL)
		return NULL;
	lk->env = *env;
	if ((lk->cache = cache_new(lim, env->now, env->now_arg)) == NULL ||
	    (lk->dns = dnssrc_new(&env->upstream, lk->cache, env->now,
	    env->now_arg)) == NULL ||
	    (lk->mods = modsrc_new(&env->modules, lk->cache, env->now,
	    env->now_arg)) == NULL ||
	    (lk->pub = publish_new(env->now, env->now_arg)) == NULL ||
	    (lk->result = result_new()) == NULL) {
		lookup_free(lk);
		return NULL;
	}
	dnssrc_set_prefetch(lk->dns, prefetch);
	dnssrc_on_refreshed(lk->dns, refreshed, lk);
	return lk;
}

void
lookup_configure(struct lookup *lk, const struct cache_limits *lim, bool prefetch)
{
	cache_set_limits(lk->cache, lim);
	dnssrc_set_prefetch(lk->dns, prefetch);
}

void
lookup_free(struct lookup *lk)
{
	if (lk == NULL)
		return;
	/* Fetches still in flight end when upstream is freed (ECANCELED). */
	result_free(lk->result);
	publish_free(lk->pub);
	modsrc_free(lk->mods);
	dnssrc_free(lk->dns);
	cache_free(lk->cache);
	free(lk);
}

void
lookup_set_observer(struct lookup *lk, lookup_observe_fn *fn, void *arg)
{
	lk->observe = fn;
	lk->observe_arg = arg;
}

struct cache *
lookup_cache(struct lookup *lk)
{
	return lk->cache;
}

unsigned
lookup_in_flight(const struct lookup *lk)
{
	return dnssrc_in_flight(lk->dns);
}

void
lookup_get_stats(const struct lookup *lk, struct lookup_stats *ret)
{
	struct dnssrc_stats	ds;
	struct modsrc_stats	ms;

	dnssrc_get_stats(lk->dns, &ds);
	modsrc_get_stats(lk->mods, &ms);
	*ret = lk->st;
	ret->busy = ds.busy + ms.busy;
	ret->coalesced = ds.coalesced;
	ret->pair_stashed = ds.stashed;
	ret->pair_stash_hits = ds.stash_hits;
	ret->prefetches = ds.prefetches;
	ret->failures_remembered = ds.failures_remembered;
	ret->upstream_bad_replies = ds.upstream_bad_replies;
	ret->module_calls = ms.calls;
}

void
lookup_report(void *arg, struct registry_wr *wr)
{
	const struct lookup	*lk = arg;
	struct lookup_stats	 s;
	struct cache_stats	 cs;

	/* Keys are part of the protocol: add new ones, never rename. */
	lookup_get_stats(lk, &s);
	cache_get_stats(lk->cache, &cs);
	registry_counter(wr, "hosts_answers", s.hosts_answers,
	    "Answers the hosts file gave");
	registry_counter(wr, "not_found", s.not_found,
	    "Lookups answered not found or no data");
	registry_counter(wr, "errors", s.errors, "Lookups answered with a failure");
	registry_counter(wr, "dns_answers", s.dns_answers,
	    "Answers upstream DNS gave");
	registry_counter(wr, "cache_answers", s.cache_answers,
	    "Answers the cache gave");
	registry_counter(wr, "upstream_bad_replies", s.upstream_bad_replies, NULL);
	registry_counter(wr, "coalesced", s.coalesced,
	    "Upstream queries saved by joining a fetch in flight");
	registry_counter(wr, "pair_stashed", s.pair_stashed, NULL);
	registry_counter(wr, "pair_stash_hits", s.pair_stash_hits, NULL);
	registry_counter(wr, "stale_served", s.stale_served,
	    "Expired answers served while upstream failed (serve_stale)");
	registry_counter(wr, "prefetches", s.prefetches,
	    "Answers refreshed before they expired");
	registry_counter(wr, "failures_remembered", s.failures_remembered, NULL);
	registry_counter(wr, "nss_answers", s.nss_answers,
	    "Answers an NSS module gave");
	registry_counter(wr, "busy", s.busy, "Lookups refused: too many upstream "
	    "fetches or module calls in flight");
	registry_counter(wr, "republished", s.republished, NULL);
	registry_gauge(wr, "cache_entries", cache_count(lk->cache),
	    "Answers in the cache");
	registry_gauge(wr, "cache_memory_bytes", cache_memory(lk->cache),
	    "Memory the cache's answers take");
	registry_counter(wr, "cache_hits", cs.hits,
	    "Cache lookups that found an answer");
	registry_counter(wr, "cache_misses", cs.misses,
	    "Cache lookups that found none");
	registry_counter(wr, "cache_evictions", cs.evictions,
	    "Answers evicted to make room");
	registry_gauge(wr, "upstream_in_flight", dnssrc_in_flight(lk->dns),
	    "Upstream resolutions in flight");
	{
		struct store_stats		ss;
		struct cache_adopt_report	ar;

		/* The store the entries live in (store.c), and what it took over. */
		cache_get_store_stats(lk->cache, &ss);
		cache_get_adopt_report(lk->cache, &ar);
		registry_gauge(wr, "cache_store_file", ss.file, NULL);
		registry_gauge(wr, "cache_store_bytes", ss.file_size, NULL);
		registry_gauge(wr, "cache_store_written_bytes",
		    (uint64_t)ss.pages_used * ss.page_size, NULL);
		registry_gauge(wr, "cache_store_live_bytes", ss.live_bytes, NULL);
		registry_gauge(wr, "cache_store_budget_bytes", ss.budget, NULL);
		registry_gauge(wr, "cache_store_slots", ss.nslots, NULL);
		registry_counter(wr, "cache_store_cleanings", ss.cleanings, NULL);
		registry_counter(wr, "cache_store_relocated", ss.relocated, NULL);
		/* Doublings of the slots, in steps: the most a put moved. */
		registry_counter(wr, "cache_store_grows", ss.grows, NULL);
		registry_counter(wr, "cache_store_grow_moved", ss.grow_moved, NULL);
		registry_gauge(wr, "cache_store_grow_step_max", ss.grow_step_max, NULL);
		registry_gauge(wr, "cache_put_max_usec", cs.put_max_usec,
		    "The longest write into the cache (a loop stall it caused)");
		/* What this daemon took over at start: levels, not counts. */
		registry_gauge(wr, "cache_adopted", ar.adopted, NULL);
		registry_gauge(wr, "cache_adopted_stale", ar.stale, NULL);
		registry_gauge(wr, "cache_adopt_expired", ar.expired, NULL);
		registry_gauge(wr, "cache_adopt_mismatched", ar.mismatched, NULL);
		registry_gauge(wr, "cache_adopt_dropped", ar.dropped, NULL);
		registry_gauge(wr, "cache_adopt_usec", ar.usec, NULL);
	}
}

void
lookup_reset_stats(struct lookup *lk)
{
	memset(&lk->st, 0, sizeof(lk->st));
	dnssrc_reset_stats(lk->dns);
	modsrc_reset_stats(lk->mods);
	cache_reset_stats(lk->cache);
}
