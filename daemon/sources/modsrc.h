/* SPDX-License-Identifier: MIT */
/* daemon/sources/modsrc.h - an NSS module as a source of the walk: its calls, and its answers cached. */
#ifndef NAMECACHE_MODSRC_H
#define NAMECACHE_MODSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "nsspool.h"

struct modsrc;

/*
 * The modules, as nsspool.h defines them: call() coalesces calls of the
 * same (module, op, family, key) and calls fn on the loop, never from
 * inside call(); missing() says a module does not load.  The daemon passes
 * the worker pool (nsspool.c), the scenario tests a script.
 */
struct modsrc_modules {
	int	(*call)(void *arg, int id, int op, uint8_t family, const void *key,
		    size_t key_len, nsspool_fn *fn, void *fn_arg);
	bool	(*missing)(void *arg, int id);
	int	(*id)(void *arg, const char *name);	/* a module's id, or -errno */
	void	*arg;
};

/* A question for one module. */
struct modsrc_ask {
	int		 mod;		/* the module's id */
	int		 op;		/* NSSPOOL_NAME, NSSPOOL_ADDR */
	uint8_t		 family;
	const char	*name;		/* NSSPOOL_NAME: as the client spelled it */
	size_t		 name_len;
	const uint8_t	*addr;		/* NSSPOOL_ADDR: 4 or 16 bytes */
};

/* A module's answer, fresh or from the cache. */
struct modsrc_answer {
	uint16_t	 status;	/* PROTO_OK, _NOTFOUND, _NODATA, _TRYAGAIN,
					   _UNAVAIL, _NOTFOUND_TRYAGAIN */
	uint8_t		 source;	/* PROTO_SRC_NSS, or _CACHE */
	const uint8_t	*body;		/* PROTO_OK: borrowed for the call */
	size_t		 len;
	uint32_t	 ttl;		/* what the client is told */
	uint32_t	 ttl_full;	/* what it was stored for */
	int64_t		 expires;	/* ms on the cache's clock; 0: not kept */
	int		 herrno;	/* TRYAGAIN, UNAVAIL: the module's */
	int		 err;
};

/* Called exactly once per modsrc_call: status 0 with *a, or -ECANCELED. */
typedef void modsrc_done_fn(void *arg, int status, const struct modsrc_answer *a);

struct modsrc_stats {
	uint64_t	calls;		/* sent to the pool (after the cache) */
	uint64_t	busy;		/* refused: too many calls in flight */
};

/* Borrows modules and cache until modsrc_free().  NULL is out of memory. */
struct modsrc *modsrc_new(const struct modsrc_modules *, struct cache *,
	    cache_clock_fn *now, void *now_arg);
void	 modsrc_free(struct modsrc *);
/* TTLs of answers when the module gives none. */
void	 modsrc_set_ttls(struct modsrc *, uint32_t positive, uint32_t negative);

/* The id of module `name' (loaded on first use), or -errno. */
int	 modsrc_module_id(struct modsrc *, const char *name);
/* Whether the module does not load: it is UNAVAIL, with no call. */
bool	 modsrc_unavailable(struct modsrc *, int mod);
/*
 * The cached answer to q, in *ret (body borrowed until the next cache
 * call): true, or false when the module must be called.
 */
bool	 modsrc_peek(struct modsrc *, const struct modsrc_ask *q,
	    struct modsrc_answer *ret);
/*
 * Calls the module; fn gets its answer, which is cached under the exact
 * spelling asked: SUCCESS for the module's TTL (else the positive TTL),
 * NOTFOUND for the negative TTL; TRYAGAIN, UNAVAIL and NOTFOUND with
 * h_errno TRY_AGAIN (PROTO_NOTFOUND_TRYAGAIN) never.  Returns 0,
 * or -EBUSY (too many calls in flight), -ENOMEM; fn is then not called.
 */
int	 modsrc_call(struct modsrc *, const struct modsrc_ask *q, modsrc_done_fn *fn,
	    void *arg);

/*
 * The cache key of a module's answer for name, which keeps its case (a
 * module may tell "VM" from "vm", the cache does not): each capital as \1
 * and its lower case.  out holds 2 * 253 + 2.  And the name again from
 * a key, for show-cache.
 */
void	 modsrc_key(const char *name, char *out, size_t len);
void	 modsrc_key_text(const char *key, char *out, size_t len);
/* The module id of a cache kind that is a module's (CACHE_KIND_NSS). */
int	 modsrc_kind_module(uint32_t kind);

void	 modsrc_get_stats(const struct modsrc *, struct modsrc_stats *ret);
void	 modsrc_reset_stats(struct modsrc *);

#endif
