/* SPDX-License-Identifier: MIT */
/* daemon/sources/modsrc.c - an NSS module as a source of the walk: its calls, and its answers cached. */

/*
 * A module's answers are cached like DNS answers, under the name (or the
 * address's text) and a kind of their own: CACHE_KIND_NSS | module << 8 |
 * op << 7 | family.  A module may tell spellings apart (nss-myhostname
 * answers "vm" and not "VM") and the cache compares names without case,
 * so a name's key keeps its capitals (modsrc_key), and the pool coalesces
 * calls by the exact bytes: each spelling gets the module's own answer.
 * Single-threaded, on the event loop; the calls themselves run on the
 * pool's threads (nsspool.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "modsrc.h"
#include "name.h"
#include "nsswitch.h"
#include "proto.h"

struct modsrc {
	struct modsrc_modules	 mods;
	struct cache		*cache;		/* borrowed */
	cache_clock_fn		*now;
	void			*now_arg;
	uint32_t		 positive_ttl;
	uint32_t		 negative_ttl;
	struct modsrc_stats	 st;
};

/* A call in flight: what to cache its answer under, and whom to tell. */
struct call {
	struct modsrc	*ms;
	modsrc_done_fn	*fn;
	void		*arg;
	uint32_t	 kind;
	char		 key[2 * PROTO_NAME_MAX + 4];
};

static uint32_t
kind_of(const struct modsrc_ask *q)
{
	return CACHE_KIND_NSS | (uint32_t)q->mod << 8 |
	    (q->op == NSSPOOL_ADDR ? 0x80u : 0) | q->family;
}

int
modsrc_kind_module(uint32_t kind)
{
	return (int)(kind >> 8 & 0xff);
}

static void
key_of(const struct modsrc_ask *q, char *key, size_t len)
{
	if (q->op == NSSPOOL_NAME)
		modsrc_key(q->name, key, len);
	else
		inet_ntop(q->family == PROTO_AF_INET ? AF_INET : AF_INET6, q->addr,
		    key, (socklen_t)len);
}

int
modsrc_module_id(struct modsrc *ms, const char *name)
{
	return ms->mods.id(ms->mods.arg, name);
}

bool
modsrc_unavailable(struct modsrc *ms, int mod)
{
	return ms->mods.missing(ms->mods.arg, mod);
}

bool
modsrc_peek(struct modsrc *ms, const struct modsrc_ask *q, struct modsrc_answer *ret)
{
	struct cache_hit hit;
	char		 key[2 * PROTO_NAME_MAX + 4];

	key_of(q, key, sizeof(key));
	cache_lookup(ms->cache, key, kind_of(q), &hit);
	if (hit.state != CACHE_FRESH && hit.state != CACHE_REFRESH)
		return false;
	memset(ret, 0, sizeof(*ret));
	ret->source = PROTO_SRC_CACHE;
	ret->ttl_full = hit.ttl;
	ret->expires = hit.expires;
	if (hit.status == CACHE_POSITIVE) {
		ret->status = PROTO_OK;
		ret->body = hit.data;
		ret->len = hit.len;
		ret->ttl = hit.ttl_left;
	} else
		ret->status = hit.status == CACHE_NODATA ? PROTO_NODATA :
		    PROTO_NOTFOUND;
	return true;
}

static void
call_done(void *arg, const struct nsspool_result *r)
{
	struct call		*c = arg;
	struct modsrc		*ms = c->ms;
	struct modsrc_answer	 a;
	uint32_t		 ttl;
	int64_t			 now;

	if (r->status == -ECANCELED) {
		c->fn(c->arg, -ECANCELED, NULL);
		free(c);
		return;
	}
	now = ms->now(ms->now_arg);
	memset(&a, 0, sizeof(a));
	a.source = PROTO_SRC_NSS;
	switch (r->status) {
	case NSW_SUCCESS:
		ttl = r->ttl >= 0 ? (uint32_t)r->ttl : ms->positive_ttl;
		ttl = cache_clamp_ttl(ms->cache, CACHE_POSITIVE, ttl);
		cache_put(ms->cache, c->key, c->kind, CACHE_POSITIVE, ttl, r->body,
		    r->len);
		a.status = PROTO_OK;
		a.body = r->body;
		a.len = r->len;
		a.ttl = a.ttl_full = ttl;
		a.expires = now + (int64_t)ttl * 1000;
		break;
	case NSW_NOTFOUND:
		if (r->herrno == TRY_AGAIN) {
			/* NOTFOUND after a temporary failure (nss_dns after a
			 * SERVFAIL then NXDOMAIN): said as such, never kept. */
			a.status = PROTO_NOTFOUND_TRYAGAIN;
			a.herrno = r->herrno;
			a.err = r->err;
			break;
		}
		ttl = cache_clamp_ttl(ms->cache, CACHE_NXDOMAIN, ms->negative_ttl);
		/* A TTL the module gave bounds the negative answer too. */
		if (r->ttl >= 0 && (uint32_t)r->ttl < ttl)
			ttl = (uint32_t)r->ttl;
		if (ttl > 0)
			cache_put(ms->cache, c->key, c->kind, r->herrno == NO_DATA ?
			    CACHE_NODATA : CACHE_NXDOMAIN, ttl, NULL, 0);
		a.status = r->herrno == NO_DATA ? PROTO_NODATA : PROTO_NOTFOUND;
		a.ttl_full = ttl;
		a.expires = ttl > 0 ? now + (int64_t)ttl * 1000 : 0;
		break;
	case NSW_TRYAGAIN:
		/* Not kept: the next lookup asks again. */
		a.status = PROTO_TRYAGAIN;
		a.herrno = r->herrno;
		a.err = r->err;
		break;
	default:
		a.status = PROTO_UNAVAIL;
		a.herrno = r->herrno;
		a.err = r->err;
		break;
	}
	c->fn(c->arg, 0, &a);
	free(c);
}

int
modsrc_call(struct modsrc *ms, const struct modsrc_ask *q, modsrc_done_fn *fn,
    void *arg)
{
	struct call	*c;
	int		 r;

	if ((c = malloc(sizeof(*c))) == NULL)
		return -ENOMEM;
	c->ms = ms;
	c->fn = fn;
	c->arg = arg;
	c->kind = kind_of(q);
	key_of(q, c->key, sizeof(c->key));
	if (q->op == NSSPOOL_NAME)
		r = ms->mods.call(ms->mods.arg, q->mod, NSSPOOL_NAME, q->family, q->name,
		    q->name_len + 1, call_done, c);
	else
		r = ms->mods.call(ms->mods.arg, q->mod, NSSPOOL_ADDR, q->family, q->addr,
		    q->family == PROTO_AF_INET ? 4 : 16, call_done, c);
	if (r < 0) {
		free(c);
		if (r == -EBUSY)
			ms->st.busy++;
		return r;
	}
	ms->st.calls++;
	return 0;
}

void
modsrc_key(const char *name, char *out, size_t len)
{
	size_t i, o = 0;

	/* Names never hold control bytes; a key too long is not cached. */
	for (i = 0; name[i] && o + 2 < len; i++) {
		uint8_t c = name_fold_char((uint8_t)name[i]);

		if (c != (uint8_t)name[i])
			out[o++] = '\1';
		out[o++] = (char)c;
	}
	out[o] = '\0';
}

void
modsrc_key_text(const char *key, char *out, size_t len)
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

struct modsrc *
modsrc_new(const struct modsrc_modules *mods, struct cache *cache,
    cache_clock_fn *now, void *now_arg)
{
	struct modsrc *ms = calloc(1, sizeof(*ms));

	if (ms == NULL)
		return NULL;
	ms->mods = *mods;
	ms->cache = cache;
	ms->now = now;
	ms->now_arg = now_arg;
	return ms;
}

void
modsrc_free(struct modsrc *ms)
{
	free(ms);
}

void
modsrc_set_ttls(struct modsrc *ms, uint32_t positive, uint32_t negative)
{
	ms->positive_ttl = positive;
	ms->negative_ttl = negative;
}

void
modsrc_get_stats(const struct modsrc *ms, struct modsrc_stats *ret)
{
	*ret = ms->st;
}

void
modsrc_reset_stats(struct modsrc *ms)
{
	memset(&ms->st, 0, sizeof(ms->st));
}
