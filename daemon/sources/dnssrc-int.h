/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnssrc-int.h - the dns source's insides, shared by dnssrc.c and dnsfetch.c only. */
#ifndef NAMECACHE_DNSSRC_INT_H
#define NAMECACHE_DNSSRC_INT_H

/*
 * dnssrc.c answers questions from the cache and waits on fetches;
 * dnsfetch.c runs the fetches: one resolution in flight per (name, kind),
 * the search of its candidates, what it stores, and the waiters it wakes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "dnssrc.h"

#define FETCH_BUCKETS	4096

/* A question's wait on its fetches: one slot per kind, done when all are in. */
struct waiter {
	dnssrc_done_fn		*fn;
	void			*arg;
	unsigned		 nslots;
	unsigned		 pending;
	bool			 busy;		/* a fetch could not start */
	bool			 joined;	/* a fetch it waits on was in flight */
	struct dns_result	 slot[2];
	uint8_t			*owned[2];	/* slot data, copied */
};

struct fwait {
	struct fwait	*next;
	struct waiter	*w;
	unsigned	 slot;
};

/* How one query of a candidate ended, as res_search weighs it. */
enum outcome {
	O_POSITIVE,	/* NOERROR with records of our chain */
	O_NXDOMAIN,
	O_NODATA,	/* NOERROR, none */
	O_SERVFAIL,	/* SERVFAIL or REFUSED: the next candidate is tried */
	O_FAILED,	/* a timeout, no memory: the search stops */
	O_BAD,		/* a reply dnsanswer.c rejects */
	O_CANCELED,	/* shutdown */
};

/* One record type of a fetch: the only one, or A or AAAA of a pair. */
struct half {
	struct fetch	*f;
	uint16_t	 qtype;
	uint32_t	 kind;		/* the cache kind its result goes under */
	int		 outcome;	/* enum outcome, once answered */
	uint32_t	 ttl;		/* the reply's (dnsanswer.c: positive or SOA) */
	bool		 cacheable;	/* negative: it had an SOA */
	uint8_t		*body;		/* O_POSITIVE: the answer body */
	size_t		 len;
};

/*
 * A or AAAA asked apart for one name (AF_UNSPEC with one candidate): the
 * one answered first waits here, on the fetch of the other, so that the
 * two are put together and make one record (cache_hold), not a record of
 * one half that the other replaces.  Meanwhile lookups are answered from
 * it as from the cache (from_cache) wherever the cache does not serve (no
 * entry, an expired one, a failure: it came after them), and its expiry
 * counts from when it came (at).
 */
struct stash {
	bool		 on;
	uint32_t	 kind;		/* DNS_T_A or DNS_T_AAAA */
	int		 status;	/* CACHE_POSITIVE, _NXDOMAIN, _NODATA */
	uint32_t	 ttl;		/* as the answer gave it (cache_put clamps) */
	int64_t		 at;		/* ms, when it came */
	uint8_t		*data;
	size_t		 len;
};

/*
 * One resolution in flight: a single type, or A and AAAA asked together
 * for each candidate, as glibc's dns module asks them for AF_UNSPEC (the
 * search stops at the first candidate where either has records).
 */
struct fetch {
	struct fetch	*hnext;
	unsigned	 bucket;	/* in ds->fetches: by its key alone */
	struct dnssrc	*ds;
	char		 key[PROTO_NAME_MAX + 2];	/* lowercased */
	uint32_t	 kind;		/* the single half's, or CACHE_KIND_PAIR */
	int		 mode;				/* ANSWER_* */
	uint8_t		 family;			/* for PTR */
	uint8_t		 addr[16];
	unsigned	 nhalf;
	unsigned	 pending;	/* halves of this candidate not answered */
	struct half	 half[2];
	int		 ncand;
	int		 icand;
	struct fwait	*waiters;
	bool		 asis_first;	/* cand[0] is the name as asked */
	int		 asis_outcome;	/* how cand[0] ended */
	bool		 got_nodata;
	bool		 got_servfail;
	bool		 later_servfail;	/* after cand[0] */
	bool		 any_negative;
	bool		 neg_cacheable;
	uint32_t	 neg_ttl;
	struct stash	 stash;		/* the other type's answer, for one record */
	/* The names tried, in order: ncand of them, allocated with the fetch
	   (room for DNSSRC_NCAND would be 2 KiB, nearly all unused). */
	char		 cand[][PROTO_NAME_MAX + 2];
};

struct dnssrc {
	struct dnssrc_upstream	 up;
	struct cache		*cache;		/* borrowed */
	cache_clock_fn		*now;
	void			*now_arg;
	bool			 prefetch;
	unsigned		 notes;		/* DNSSRC_NOTE_* of the last peek */
	unsigned		 max_fetches;
	dnssrc_refreshed_fn	*refreshed;
	void			*refreshed_arg;
	uint64_t		 hash_key[2];	/* fetch_bucket's, random */
	struct fetch		*fetches[FETCH_BUCKETS];
	unsigned		 nfetches;
	struct dnssrc_stats	 st;
	/* A fetch's answer, borrowed by its waiters while they wake. */
	uint8_t			 fetched[PROTO_FRAME_MAX];
	/* Cache hits of one peek, borrowed until the next dnssrc call
	 * (cache_lookup_addrs expands records into them). */
	uint8_t			 hit[2][CACHE_DATA_MAX];
};

/* dnsfetch.c */

/* The fetch of (key, kind) in flight, or NULL. */
struct fetch *dnsfetch_find(struct dnssrc *, const char *key, uint32_t kind);
/*
 * The fetch for question a's kind i (for a pair, both): joined if in
 * flight, else started.  With w set, w waits on it from slot on (one slot
 * per half); without, it is a prefetch.  Returns 0, or -errno when
 * nothing could be started (w is then not attached).
 */
int	dnsfetch_join(struct dnssrc *, const struct dnssrc_ask *a, unsigned i,
	    struct waiter *w, unsigned slot);
/* Slot slot of w has its result r (copied while other slots are still
 * out; r's data must live through the call): w's callback once all are in. */
void	dnsfetch_waiter_set(struct dnssrc *, struct waiter *w, unsigned slot,
	    const struct dns_result *r);

#endif
