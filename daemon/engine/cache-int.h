/* SPDX-License-Identifier: MIT */
/* daemon/engine/cache-int.h - the cache's insides, shared by cache.c, cache-adopt.c and cache-evict.c only. */
#ifndef NAMECACHE_CACHE_INT_H
#define NAMECACHE_CACHE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "storefmt.h"

/* One entry as a record holds it: a record's, or a half of a pair's. */
struct view {
	int		 status;
	uint8_t		 sbits;		/* STORE_S_COMPACT, STORE_S_NOTFOUND */
	int64_t		 expires;
	uint32_t	 ttl;
	int64_t		 failed_until;	/* 0: none */
	const uint8_t	*data;		/* as stored: compact or not */
	size_t		 len;
};

/* A pair's halves put one after the other, between cache_hold and
 * cache_release: written as one record, once. */
struct held {
	bool		 on;
	bool		 any;		/* a record waits */
	uint32_t	 rkind;
	char		 lname[STORE_NAME_MAX + 1];
	size_t		 nlen;
	bool		 have[2];
	struct view	 h[2];
	uint8_t		 data[2][STORE_DATA_MAX];
};

struct cache {
	struct cache_limits	 lim;
	cache_clock_fn		*now;
	void			*now_arg;
	struct store		*st;
	uint32_t		 tick;		/* the recency counter */
	unsigned		 stamp_shift;	/* slots' stamps: tick >> this */
	uint64_t		 search_fp;
	uint64_t		 modules_fp;
	uint64_t		 rand;		/* the sampler's xorshift state */
	struct cache_stats	 stats;
	struct cache_adopt_report adopt;	/* cache_open_file's */
	uint8_t			 buf[STORE_DATA_MAX];	/* a hit's data, expanded */
	uint8_t			 cbuf[STORE_DATA_MAX];	/* data put, compacted */
	uint8_t			 blob[STORE_DATA_MAX + 64];	/* a pair's record data */
	uint8_t			 walk_buf[STORE_DATA_MAX];	/* a walk item's */
	char			 walk_name[2][STORE_NAME_MAX + 1];	/* in turn */
	unsigned		 walk_turn;
	struct held		 held;
};

/* A's half (0), AAAA's (1), or -1 for a kind that is not half of a pair. */
int	 cache_pair_half(uint32_t kind);
/* Whether a record holds a pair's halves. */
bool	 cache_is_pair(uint32_t rkind);
/* Whether an entry of this kind holds a proto answer body when positive. */
bool	 cache_kind_is_answer(uint32_t kind);
/* The entry of half (-1: the record's own) in record e, or false. */
bool	 cache_view_of(const struct store_rec *e, int half, struct view *v);
/* A view's data as its kind holds it (expanded into buf), or NULL. */
const uint8_t *cache_view_data(const struct view *v, const char *lname, size_t nlen,
	    uint8_t *buf, size_t *ret_len);
/* Writes lname's pair record with the halves have[] says: 0 or -errno. */
int	 cache_write_pair(struct cache *c, uint32_t rkind, const char *lname,
	    size_t nlen, const bool have[2], const struct view h[2], uint16_t stamp);
/* A failure's time as a record keeps it, relative to the expiry. */
bool	 cache_failed_rel(int64_t failed_until, int64_t expires, int32_t *ret);
/* The slots' recency stamp now. */
uint16_t cache_stamp_of(const struct cache *c);
/* CLOCK_REALTIME in ms. */
int64_t	 cache_realtime_ms(void);
/* A store for these limits, in the file at path (NULL: anonymous memory). */
struct store *cache_store_for(const struct cache_limits *lim, const char *path);
/* The shift of the slots' recency stamps for a bound of max_entries. */
unsigned cache_stamp_shift(size_t max_entries);
/*
 * Writes the record tmpl says for (lname, tmpl->kind), stamped: the least
 * recently used evicted first to make room.  Returns 0 or -errno.
 */
int	 cache_put_rec(struct cache *c, const struct store_rec *tmpl, uint16_t stamp,
	    const char *lname, size_t nlen, const void *data, size_t len);
/*
 * Copies the store image at base (len bytes) into c's store: another
 * daemon's, checked record by record (adopt, verify_check; boot: this
 * boot's id), or c's own old one on new bounds.
 */
void	 cache_copy_image(struct cache *c, const void *base, size_t len,
	    const uint8_t *boot, bool verify_check, bool adopt,
	    struct cache_adopt_report *ret);

#endif
