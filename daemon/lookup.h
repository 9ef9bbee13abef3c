/* SPDX-License-Identifier: MIT */
/* daemon/lookup.h - answers lookups: the host's hosts line, source by source, through the cache. */
#ifndef NAMECACHE_LOOKUP_H
#define NAMECACHE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "proto.h"
#include "server.h"

struct event_base;
struct hostsrc;
struct lookup;
struct nsspool;
struct nsw_line;
struct resolver;
struct stats;

#define LOOKUP_FETCH_MAX	65536	/* upstream resolutions in flight */
#define LOOKUP_STALE_TTL	30	/* TTL of a stale answer (RFC 8767) */

struct lookup_env {
	struct event_base	*base;
	struct hostsrc		*hosts;
	struct resolver		*resolver;
	struct server		*server;
	struct nsspool		*nss;		/* modules other than files and dns */
	struct stats		*stats;
	cache_clock_fn		*now;
	void			*now_arg;
};

/* Caller frees with lookup_free(); NULL is out of memory. */
struct lookup *lookup_new(const struct lookup_env *, const struct cache_limits *,
	    bool prefetch);
void	 lookup_free(struct lookup *);
void	 lookup_configure(struct lookup *, const struct cache_limits *, bool prefetch);

/* Answer the request now, or hold it and answer when upstream has. */
void	 lookup_name(struct lookup *, struct server_req *,
	    const struct proto_lookup_name *);
void	 lookup_addr(struct lookup *, struct server_req *,
	    const struct proto_lookup_addr *);
void	 lookup_rr(struct lookup *, struct server_req *, const struct proto_query_rr *);

/*
 * The hosts line to walk (namecache's own entry already taken out): files
 * and dns answered natively, every other source by its NSS module.
 */
void	 lookup_set_line(struct lookup *, const struct nsw_line *);
/* Upstream resolutions in flight, at most (max_fetches); more is BUSY. */
void	 lookup_set_max_fetches(struct lookup *, unsigned);
/* TTLs of NSS modules' answers when the module gives none. */
void	 lookup_set_nss_ttls(struct lookup *, uint32_t positive, uint32_t negative);

/* The cache key of a module's answer for name (which keeps its case), and
 * the name again from one, for show-cache.  out holds 2 * 253 + 2. */
void	 lookup_nss_key(const char *name, char *out, size_t len);
void	 lookup_nss_key_text(const char *key, char *out, size_t len);

/* Where answers are published for clients to read without asking; NULL: nowhere. */
struct shm;
void	 lookup_set_shm(struct lookup *, struct shm *);

/* glibc's nscd database, published into with the segment; NULL: none. */
struct nscdmap;
void	 lookup_set_nscdmap(struct lookup *, struct nscdmap *);
/*
 * Walks (name, family) or (address) again with nobody waiting: what a
 * client asking now would be told is published, and an answer in the
 * last tenth of its TTL is refreshed upstream (the sweeper of the nscd
 * database asks this before its records expire).
 */
void	 lookup_refresh_name(struct lookup *, uint8_t family, const char *name,
	    size_t len);
void	 lookup_refresh_addr(struct lookup *, uint8_t family, const void *addr);
/* Borrowed, for admin operations and statistics. */
struct cache *lookup_cache(struct lookup *);
unsigned lookup_in_flight(const struct lookup *);

#endif
