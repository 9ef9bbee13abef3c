/* SPDX-License-Identifier: MIT */
/* daemon/engine/store.h - records of the cache in one mapped file: slots, pages, cleaning (the writer). */
#ifndef NAMECACHE_STORE_H
#define NAMECACHE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storefmt.h"

struct store;

/*
 * Slots of the old table a put looks at, at most, while the slots double
 * (store.c): a few microseconds, and the doubling is over soon, so that
 * both tables are resident for a short while only (8 left the last one of
 * a million-entry fill under way at its end: 10 MB more of RSS).
 */
#define STORE_GROW_STEP	64
/* Bytes of the slots' areas a put allocates or gives back, at most (store.c: prepare). */
#define STORE_AREA_STEP	(64 * 1024)

struct store_stats {
	size_t		count;		/* records a slot points at */
	size_t		live_bytes;	/* their bytes */
	size_t		budget;		/* live bytes allowed (store_room) */
	size_t		file_size;	/* the mapping */
	size_t		pages_used;	/* pages written since the file was made */
	uint32_t	npages;
	uint32_t	page_size;
	uint32_t	nslots;		/* slots in use */
	uint32_t	slots_cap;	/* the most the file has room for */
	uint64_t	grows;		/* times the slots in use began to double */
	uint64_t	grow_moved;	/* entries moved by doublings, a few a put */
	uint32_t	grow_step_max;	/* the most entries one put moved */
	uint32_t	old_nslots;	/* a doubling under way: the old table's slots */
	uint64_t	cleanings;	/* pages cleaned for reuse */
	uint64_t	relocated;	/* records moved by them */
	bool		file;		/* in a file (else anonymous memory) */
};

/*
 * A store for at most max_entries records in at most max_bytes (the
 * whole file: header, slots and pages; 0: max_entries x 256 bytes of
 * pages).  path: the file it lives in (made new, beside any old one, and
 * renamed over it); NULL: anonymous memory.  page_size: a power of two
 * from STORE_PAGE_MIN (0: STORE_PAGE_DEFAULT; the largest record must fit
 * one).  NULL with errno set.
 */
struct store *store_new(const char *path, size_t max_entries, size_t max_bytes,
	    uint32_t page_size);
/* The file stays, for the next daemon to adopt (cache_adopt). */
void	 store_free(struct store *);

/* The file's path, or NULL. */
const char *store_path(const struct store *);
const struct store_header *store_header(const struct store *);

uint64_t store_hash(const struct store *, uint32_t kind, const char *lname, size_t len);
/*
 * Slot indexes: the table in use's, then (while the slots double) the
 * old table's; store_nslots counts both.  Valid until the next put.
 */
/* The slot of (kind, lname) (lowercased), or -1. */
long	 store_find(const struct store *, uint32_t kind, const char *lname, size_t len,
	    uint64_t hash);
/* The record slot i points at, or NULL for an empty slot. */
struct store_rec *store_at(const struct store *, size_t i);
uint32_t store_nslots(const struct store *);

/*
 * Writes a record for (tmpl->kind, lname) and points its slot at it,
 * replacing the record there: kind, expires, failed, ttl, status (its low
 * bits) and the form bit of len8 from tmpl; stamp in its slot.  The caller has made room
 * (store_room); pages are cleaned here as needed.  Returns the slot, or
 * -ENOSPC (no page: /run is full, or nothing could be cleaned), -EINVAL.
 */
long	 store_put(struct store *, const struct store_rec *tmpl, uint16_t stamp,
	    const char *lname, const void *data, size_t len);
/* The recency stamp of slot i's entry, and a new one (cache.c's counter). */
uint16_t store_stamp(const struct store *, size_t i);
void	 store_touch(struct store *, size_t i, uint16_t stamp);
/* Empties slot i; its record's bytes are dead until its page is cleaned. */
void	 store_remove(struct store *, size_t i);
void	 store_clear(struct store *);

/* The live budget for a bound of max_bytes on the whole file (store_new's). */
void	 store_set_max_bytes(struct store *, size_t max_bytes);
/* Whether more is held than max_entries or the budget allow. */
bool	 store_over(const struct store *, size_t max_entries);
/* Whether a record of need bytes fits the live budget and the slot bound. */
bool	 store_room(const struct store *, size_t need, size_t max_entries);
size_t	 store_count(const struct store *);
/* What a record for this name and data costs: its bytes. */
size_t	 store_cost(size_t name_len, size_t data_len);

/* CLOCK_REALTIME less the daemon's clock, ms (storefmt.h: realtime_ms). */
void	 store_set_realtime(struct store *, int64_t ms);

/* What the answers in it rest on (storefmt.h). */
void	 store_set_fps(struct store *, uint64_t search_fp, uint64_t modules_fp);

void	 store_get_stats(const struct store *, struct store_stats *ret);

/* The kernel's boot id (/proc/sys/kernel/random/boot_id); zeros if unknown. */
void	 store_boot_id(uint8_t ret[16]);

#endif
