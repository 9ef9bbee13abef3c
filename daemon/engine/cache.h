/* SPDX-License-Identifier: MIT */
/* daemon/engine/cache.h - TTL cache of answers, keyed by (name, kind). */
#ifndef NAMECACHE_CACHE_H
#define NAMECACHE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cache;

struct cache_limits {
	size_t		max_entries;	/* cache_size */
	size_t		max_bytes;	/* cache_size_mb: entries' heap; 0: none */
	uint32_t	min_ttl;	/* clamps on positive TTLs */
	uint32_t	max_ttl;
	uint32_t	negative_max_ttl;
	uint32_t	failure_ttl;	/* seconds a failure is remembered */
	uint32_t	serve_stale;	/* seconds past expiry an answer may serve */
	uint32_t	store_page;	/* bytes of a store page (0: 128 KiB); a
					   test's small store */
};

/* Milliseconds on a clock that never goes back (CLOCK_MONOTONIC in the daemon). */
typedef int64_t	cache_clock_fn(void *arg);

/* What an entry holds. */
enum cache_status {
	CACHE_POSITIVE	= 0,	/* data is an answer */
	CACHE_NXDOMAIN	= 1,	/* the name does not exist */
	CACHE_NODATA	= 2,	/* the name exists without this kind */
	CACHE_FAILED	= 3,	/* upstream failed; nothing else known */
};

/* What a lookup found. */
enum cache_state {
	CACHE_MISS	= 0,	/* nothing: ask upstream */
	CACHE_FRESH	= 1,	/* serve it */
	CACHE_REFRESH	= 2,	/* serve it, and refresh it: in the last 10% of its TTL */
	CACHE_EXPIRED	= 3,	/* ask upstream; if that fails, stale_ok says
				   whether the old answer may be served */
	CACHE_FAILING	= 4,	/* upstream failed within failure_ttl: don't ask
				   again; serve stale if stale_ok, else fail */
};

struct cache_hit {
	int		 state;		/* enum cache_state */
	int		 status;	/* enum cache_status of the data */
	const uint8_t	*data;		/* borrowed, valid until the next cache call */
	size_t		 len;
	uint32_t	 ttl_left;	/* seconds, rounded up; 0 once expired */
	uint32_t	 ttl;		/* seconds it was stored for */
	int64_t		 expires;	/* when, on the cache's clock (ms) */
	bool		 stale_ok;	/* expired positive data within serve_stale */
	bool		 failed_notfound;	/* CACHE_FAILING: nothing was found
						   after the failure (see
						   cache_put_failure) */
};

/* One entry, as show-cache lists them. */
struct cache_item {
	const char	*name;		/* borrowed, valid until the next cache call */
	uint32_t	 kind;
	int		 status;
	uint32_t	 ttl_left;
	bool		 expired;
	size_t		 len;
	const uint8_t	*data;
};

struct cache_stats {
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	evictions;
	uint64_t	insertions;
	uint64_t	put_max_usec;	/* the longest write: room made, the
					   store's put (a doubling's step) */
};

/*
 * A cache bounded by limits->max_entries and by limits->max_bytes of heap
 * (each entry counted by what the allocator gave it), evicting the least
 * recently used when either is passed.
 * now() gives the time.  Caller frees with cache_free(); NULL means out of
 * memory.
 */
struct cache *cache_new(const struct cache_limits *, cache_clock_fn *now, void *arg);
void	 cache_free(struct cache *);

/* New limits apply from now on; shrinking evicts at once. */
void	 cache_set_limits(struct cache *, const struct cache_limits *);

/*
 * Kinds: a DNS type for an address or PTR lookup's answer (DNS_T_A, _AAAA,
 * _PTR); CACHE_KIND_RR | type for the records of a query -t; CACHE_KIND_NSS
 * and more for an NSS module's answers.
 */
#define CACHE_KIND_RR	0x10000u
/* CACHE_KIND_NSS | module << 8 | ...: an NSS module's answers (modsrc.c). */
#define CACHE_KIND_NSS	0x20000u
/* CACHE_KIND_PAIR | DNS_T_A or _AAAA: a half of AF_UNSPEC's search (dnssrc.c). */
#define CACHE_KIND_PAIR	0x40000u
/* CACHE_KIND_WIRE | type: the DNS listener's records, kept in wire form. */
#define CACHE_KIND_WIRE	0x80000u

/* The most bytes one entry's data takes, expanded (STORE_DATA_MAX). */
#define CACHE_DATA_MAX	(65536 + 64)

/*
 * Looks (name, kind) up; name is compared case-insensitively.  Counts a hit
 * or a miss and makes the entry the most recently used.
 */
void	 cache_lookup(struct cache *, const char *name, uint32_t kind,
	    struct cache_hit *ret_hit);

/*
 * cache_lookup of both halves of a name's addresses, which one record
 * holds: mark 0 for DNS_T_A and DNS_T_AAAA asked apart, CACHE_KIND_PAIR
 * for the pair.  ret[0] is A's, ret[1] AAAA's; a compact record's data is
 * written into bufs[i] (CACHE_DATA_MAX bytes each), else it is borrowed
 * as cache_lookup's.  One probe for both.
 */
void	 cache_lookup_addrs(struct cache *, const char *name, uint32_t mark,
	    struct cache_hit ret[2], uint8_t *bufs[2]);

/* As cache_lookup, but counts nothing and leaves the recency order alone. */
void	 cache_peek(struct cache *, const char *name, uint32_t kind,
	    struct cache_hit *ret_hit);

/* The TTL an entry of this status would be stored with. */
uint32_t cache_clamp_ttl(const struct cache *, int status, uint32_t ttl);

/*
 * Stores an answer for (name, kind), replacing any entry: status, the TTL
 * the answer carried (clamped here: [min_ttl, max_ttl] for positive data,
 * negative_max_ttl for NXDOMAIN and NODATA), and data (copied; up to 64 KiB).
 * Returns 0 or -ENOMEM, -EINVAL.
 */
int	 cache_put(struct cache *, const char *name, uint32_t kind, int status,
	    uint32_t ttl, const void *data, size_t len);
/* cache_put of an answer that came at at (ms, the cache's clock): its
 * expiry counts from then. */
int	 cache_put_at(struct cache *, const char *name, uint32_t kind, int status,
	    uint32_t ttl, int64_t at, const void *data, size_t len);

/*
 * Between these, a pair's halves (CACHE_KIND_PAIR | DNS_T_A, | DNS_T_AAAA;
 * DNS_T_A, DNS_T_AAAA) put one after the other for one name make one
 * record, written at cache_release (or at the next put of another name,
 * or a failure): an AF_UNSPEC answer costs one record's bytes, not two.
 * Only puts may come between.  cache_release returns what the write did.
 */
void	 cache_hold(struct cache *);
int	 cache_release(struct cache *);

/*
 * Remembers that upstream failed for (name, kind), for failure_ttl seconds.
 * An existing entry keeps its data, so it can be served stale.  notfound:
 * the failure was the search's first query, and the rest found nothing
 * (glibc's NOTFOUND with TRY_AGAIN); a lookup meanwhile says so.
 */
int	 cache_put_failure(struct cache *, const char *name, uint32_t kind,
	    bool notfound);

/* Drops every kind of name.  Returns how many entries went (a pair's
 * halves two, as cache_walk lists them). */
size_t	 cache_invalidate(struct cache *, const char *name);
void	 cache_flush(struct cache *);

size_t	 cache_count(const struct cache *);
/* Bytes held in the store: its header, its slots, and the entries' records
 * (as max_bytes counts them; dead bytes not yet given back are not). */
size_t	 cache_memory(const struct cache *);
void	 cache_get_stats(const struct cache *, struct cache_stats *ret);
void	 cache_reset_stats(struct cache *);

/*
 * Walks the entries, in no particular order.  *cursor starts at 0 and is
 * advanced; returns 1 with *ret_item, or 0 at the end.  The cursor (a place
 * in the hash table) stays valid across other calls, but entries added or
 * removed meanwhile may be seen twice or not at all.
 */
int	 cache_walk(struct cache *, size_t *cursor, struct cache_item *ret_item);

struct store_stats;
/* The store's figures (store.h). */
void	 cache_get_store_stats(const struct cache *, struct store_stats *ret);

/* What cache_open_file took over from the store a previous daemon left. */
struct cache_adopt_report {
	const char	*why;		/* the whole file was refused: why; else NULL */
	size_t		 adopted;	/* entries taken over */
	size_t		 stale;		/* of them, expired, kept for serve_stale */
	size_t		 expired;	/* past use: dropped */
	size_t		 mismatched;	/* resting on another search list or hosts line */
	size_t		 dropped;	/* failed a check: dropped */
	size_t		 no_room;	/* past this daemon's bounds */
	uint64_t	 usec;		/* the time it took, checks and copy */
	bool		 rebooted;	/* written before the last boot: its times
					   carried over through the real time */
};

/*
 * Stamps the store with the real time against the daemon's clock, which
 * carries its times over a reboot (persistent_cache): at open, at every
 * heartbeat, and at cache_free.
 */
void	 cache_heartbeat(struct cache *);

/* What cache_open_file took over (zeros before it, or without a file). */
void	 cache_get_adopt_report(const struct cache *, struct cache_adopt_report *ret);

/*
 * What the answers rest on, written into the store and compared with
 * the store found at start: search_fp, the search list and ndots (DNS
 * answers); modules_fp, the hosts line (NSS modules' answers).
 */
void	 cache_set_fps(struct cache *, uint64_t search_fp, uint64_t modules_fp);

/*
 * Moves the cache into a file at path (beside the socket), taking over
 * what a previous daemon left there: every record checked, those past
 * use or resting on other settings (cache_set_fps, called before) left
 * out; the file is then replaced by a new one.  *ret says what was taken
 * (ret->why: why the old file was refused as a whole).  The cache stays
 * in memory when no file can be made: -errno.
 */
int	 cache_open_file(struct cache *, const char *path,
	    struct cache_adopt_report *ret);

/*
 * The checks and the copy of cache_open_file, on a store image at base
 * (len bytes): boot_id (NULL: not compared) must be the image's;
 * verify_check: records' checks are verified (the fuzzer turns it off, to
 * reach the rest).  -EINVAL when the image is refused as a whole.
 */
int	 cache_adopt_image(struct cache *, const void *base, size_t len,
	    const uint8_t boot_id[16], bool verify_check,
	    struct cache_adopt_report *ret);

#endif
