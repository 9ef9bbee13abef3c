/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnssrc.h - the dns source: the cache, the search list, coalesced fetches, stale and prefetch. */
#ifndef NAMECACHE_DNSSRC_H
#define NAMECACHE_DNSSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "proto.h"
#include "resolver.h"
#include "search.h"

struct dnssrc;
struct proto_kv_wr;

#define DNSSRC_FETCH_MAX	65536	/* upstream resolutions in flight */
#define DNSSRC_STALE_TTL	30	/* TTL of a stale answer (RFC 8767) */
#define DNSSRC_NCAND		SEARCH_NAMES_MAX	/* names a search tries */

/*
 * Upstream, as resolver.h defines it: query() calls cb exactly once, never
 * from inside query(); search() gives the search list and ndots.  The
 * daemon passes c-ares (resolver.c), the scenario tests a script.
 */
struct dnssrc_upstream {
	int	(*query)(void *arg, const char *name, uint16_t type, resolver_cb *cb,
		    void *cb_arg);
	int	(*search)(void *arg, const char *const **ret_domains, int *ret_ndots);
	void	*arg;
};

/* One kind's outcome, as a reply is built from it. */
struct dns_result {
	int		 status;	/* enum cache_status */
	uint8_t		 source;	/* PROTO_SRC_DNS, _CACHE or _STALE */
	uint32_t	 ttl;		/* what the client is told */
	uint32_t	 ttl_full;	/* what it was stored for */
	int64_t		 expires_ms;	/* on the cache's clock; 0: none */
	bool		 after_failure;	/* negative, after a candidate failed */
	bool		 coalesced;	/* waited on a fetch another began */
	const uint8_t	*data;		/* CACHE_POSITIVE: an answer body;
					   DNSANSWER_WIRE: the kept records,
					   negative answers' too */
	size_t		 len;
};

/* One record type to ask, under a cache key and kind. */
struct dnssrc_kind {
	const char	*key;		/* the name as asked (search) or the PTR name */
	uint32_t	 kind;		/* cache kind */
	uint16_t	 qtype;
	int		 mode;		/* enum dnsanswer_mode */
	bool		 search;	/* apply the search list */
};

/* A question of the dns source: one kind, or A and AAAA for AF_UNSPEC. */
struct dnssrc_ask {
	unsigned		 n;
	struct dnssrc_kind	 k[2];
	bool			 pair;		/* A and AAAA searched together */
	uint8_t			 family;	/* PTR: the address's family */
	const uint8_t		*addr;		/* PTR: 4 or 16 bytes */
	bool			 refresh;	/* refresh any live answer found */
	char			 ptr[80];	/* PTR: the in-addr/ip6.arpa name */
};

/*
 * Called exactly once per dnssrc_wait: status 0 with r[0..n) (data
 * borrowed for the call), -EBUSY when too many fetches were in flight to
 * start one, or -ECANCELED at shutdown (r is then NULL).
 */
typedef void dnssrc_done_fn(void *arg, int status, const struct dns_result *r,
    unsigned n);

/*
 * A fetch nobody waited for (a prefetch) has brought a fresh answer: the
 * caller may publish again what rests on it.  For DNSANSWER_ADDR, key (the
 * name lowercased) and the family it answers (PROTO_AF_UNSPEC: the pair);
 * for DNSANSWER_PTR, family and addr.
 */
typedef void dnssrc_refreshed_fn(void *arg, int mode, uint8_t family,
    const char *key, const uint8_t *addr);

struct dnssrc_stats {
	uint64_t	coalesced;		/* joined a fetch in flight */
	uint64_t	prefetches;
	uint64_t	failures_remembered;	/* answered from failure_ttl */
	uint64_t	upstream_bad_replies;	/* rejected by dnsanswer.c */
	uint64_t	busy;			/* refused: too many fetches */
	uint64_t	stashed;		/* A or AAAA held for the other (struct stash) */
	uint64_t	stash_hits;		/* lookups answered from one */
};

/* Borrows cache and upstream until dnssrc_free().  NULL is out of memory. */
struct dnssrc *dnssrc_new(const struct dnssrc_upstream *, struct cache *,
	    cache_clock_fn *now, void *now_arg);
/* Fetches in flight end when upstream cancels them (ECANCELED). */
void	 dnssrc_free(struct dnssrc *);
void	 dnssrc_set_prefetch(struct dnssrc *, bool);
/* Upstream resolutions in flight, at most n (0: DNSSRC_FETCH_MAX). */
void	 dnssrc_set_max_fetches(struct dnssrc *, unsigned n);
void	 dnssrc_on_refreshed(struct dnssrc *, dnssrc_refreshed_fn *, void *arg);

/* The questions (dnsquestion.c): no I/O, the cache untouched. */

/*
 * The question for a name of family, with the search list: A, AAAA, or
 * for AF_UNSPEC both as one search (each candidate asked for both, the
 * first with either's records ending it, as glibc's dns module does),
 * cached under CACHE_KIND_PAIR | type.  A search of one name (a trailing
 * dot, no search list) asks them apart, under the single types' kinds,
 * which is the same and shares their entries.
 */
void	 dnssrc_ask_name(const struct dnssrc *, struct dnssrc_ask *ret,
	    const char *name, uint8_t family);
/*
 * The question for an address: PTR, a v4-mapped or v4-compatible IPv6
 * address asked as the IPv4 address it holds, as glibc's dns module does.
 */
void	 dnssrc_ask_addr(struct dnssrc_ask *ret, uint8_t family, const uint8_t *addr);
/* The question for records of any type (query -t). */
void	 dnssrc_ask_rr(struct dnssrc_ask *ret, const char *name, uint16_t type);
/*
 * The DNS listener's question: name (absolute, no trailing dot) and type
 * as asked, no search list, the records kept in wire form under
 * CACHE_KIND_WIRE | type.  A negative answer keeps its SOA as data too.
 */
void	 dnssrc_ask_wire(struct dnssrc_ask *ret, const char *name, uint16_t type);

/*
 * What the cache answers now: fills now[i] for every kind it answers (data
 * borrowed until the next dnssrc call) and sets wants[i] for the others.
 * Starts a prefetch where one is due.  Returns how many kinds must wait.
 */
unsigned dnssrc_peek(struct dnssrc *, const struct dnssrc_ask *,
	    struct dns_result now[2], bool wants[2]);
/*
 * Waits for upstream on the kinds peek wanted, joining a fetch in flight
 * for (name, kind) or starting one.  fn gets every kind's result, now[]'s
 * included, exactly once, possibly before this returns.  Returns 0, or
 * -ENOMEM when nothing was started (fn will not be called).
 */
int	 dnssrc_wait(struct dnssrc *, const struct dnssrc_ask *,
	    const struct dns_result now[2], const bool wants[2], dnssrc_done_fn *fn,
	    void *arg);

/*
 * What the last dnssrc_peek did besides answering: DNSSRC_NOTE_PREFETCH,
 * it began refreshing an answer it gave.  (A wait's own note, that it
 * joined a fetch in flight, comes with its results: dns_result.coalesced.)
 */
#define DNSSRC_NOTE_PREFETCH	0x1u
#define DNSSRC_NOTE_COALESCED	0x2u
unsigned dnssrc_notes(const struct dnssrc *);

/* Upstream's search list and ndots now. */
void	 dnssrc_search(const struct dnssrc *, const char *const **ret_domains,
	    int *ret_ndots);
/* search_names() for name with upstream's search list and ndots now. */
int	 dnssrc_candidates(const struct dnssrc *, const char *name,
	    char out[][PROTO_NAME_MAX + 2], bool *ret_asis_first);

unsigned dnssrc_in_flight(const struct dnssrc *);
void	 dnssrc_get_stats(const struct dnssrc *, struct dnssrc_stats *ret);
void	 dnssrc_reset_stats(struct dnssrc *);

#endif
