/* SPDX-License-Identifier: MIT */
/* proto/storefmt.h - the answer store's file: layout, hashing, and the checks a loader makes. */
#ifndef NAMECACHE_STOREFMT_H
#define NAMECACHE_STOREFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The daemon keeps its cache of answers in one file, mapped, beside its
 * socket (daemon/engine/store.c writes it).  The file outlives the daemon: a
 * daemon that starts and finds one checks it here, record by record, and
 * takes over what passes (cache.c: cache_adopt).  Nothing found on disk
 * is trusted: every size, offset and record is checked, and a record that
 * fails is dropped.
 *
 *   header (STORE_HEADER_SIZE) | slots: one or two areas of slots_cap
 *   u64 each | pages (npages x page_size)
 *
 * The slots in use are a table of nslots at slots_off.  While they double
 * (store.c moves the entries a few at a time), the table being emptied is
 * there too: old_nslots at old_off, in the other area; a key is in one of
 * the two (in both only for the moment of its move: then either copy will
 * do).  old_nslots 0, or old_off equal to slots_off: no such table.
 * Version 4 brought the second table; a file of version 3 is one of
 * version 4 with none.
 *
 * Slots: 0 is empty; else a record's offset from the start of the pages,
 * divided by 8, in the top 34 bits, a bit that says the slot is taken,
 * 13 bits of its key's hash (a tag: most wrong slots are passed by without
 * touching their record), and in the low 16 bits the entry's recency
 * stamp, the daemon's to write in place.  Linear probing from
 * store_home(); a key has at most one slot, and every slot from its key's
 * home to it is taken (a loader checks that too).
 *
 * Records: 8-byte aligned, never across a page's end.  A record is written
 * whole, in space no slot points into, before a slot is made to point at
 * it (release order): a record a crash interrupted is reachable from no
 * slot, and a loader, which walks the slots, never sees it.  What is
 * written afterwards, in place, is only the daemon's own bookkeeping
 * (failed, and the top bits of status): one aligned word or byte each.
 */

#define STORE_MAGIC		0x31524f5453434e00ULL	/* "\0NCSTOR1" */
#define STORE_VERSION		4
#define STORE_VERSION_MIN	3	/* read too: the same layout, one table */
#define STORE_HEADER_SIZE	4096
#define STORE_PAGE_MIN		4096u
#define STORE_PAGE_DEFAULT	(128u * 1024)	/* holds the largest record */
#define STORE_DATA_MAX		(65536 + 64)	/* bytes of data in a record: an
						   answer of 64 KiB, a pair's header */
#define STORE_NAME_MAX		255

enum store_state {
	STORE_LIVE	= 1,
	STORE_RETIRED	= 2,
};

struct store_header {
	uint64_t	magic;
	uint32_t	version;
	uint32_t	header_size;
	uint64_t	file_size;
	uint64_t	generation;	/* a new number for every file */
	uint64_t	key[2];		/* SipHash key of the slots and checks */
	uint8_t		boot_id[16];	/* the kernel's: times are CLOCK_MONOTONIC
					   of that boot */
	uint64_t	search_fp;	/* what DNS answers rest on: search list, ndots */
	uint64_t	modules_fp;	/* what NSS modules' answers rest on: the hosts line */
	uint32_t	nslots;		/* in use: any number (store_home); atomic */
	uint32_t	page_size;	/* a power of two, >= STORE_PAGE_MIN */
	uint64_t	slots_off;	/* the table in use; atomic */
	uint64_t	pages_off;	/* a multiple of 4096 */
	uint32_t	npages;
	uint32_t	state;		/* enum store_state; atomic */
	uint64_t	gc_cycle;	/* bumped before a page is written again; atomic */
	int64_t		heartbeat_ns;	/* CLOCK_MONOTONIC; atomic */
	int64_t		realtime_ms;	/* CLOCK_REALTIME less the daemon's clock, ms,
					   when it last beat: what carries the times
					   across a reboot (persistent_cache) */
	uint32_t	slots_cap;	/* room for this many slots in an area;
					   nslots are in use */
	uint32_t	old_nslots;	/* the table being emptied, or 0; atomic */
	uint64_t	old_off;	/* where it is; atomic */
	uint8_t		reserved[STORE_HEADER_SIZE - 152];
};

/*
 * status: the low 2 bits the entry's status; bits 2-4 the pad (0-7 zero
 * bytes after the data); bit 5 the data's form (STORE_S_COMPACT).  Bits 6
 * and 7 are the daemon's, written in place (the check leaves them out).
 */
#define STORE_STATUS_MASK	0x03
#define STORE_PAD_SHIFT		2
#define STORE_PAD_MASK		0x1c
#define STORE_S_COMPACT		0x20	/* data: store_compact's form of an answer */
#define STORE_S_NOTFOUND	0x40	/* in place: nothing found after the failure */
#define STORE_S_DEAD		0x80	/* in place: no slot points here any more */
#define STORE_S_IMMUTABLE	0x3f

#define STORE_NO_FAILURE	INT32_MIN

/*
 * len8: the whole record's length in units of 8 bytes in the low 15 bits;
 * bit 15 says which of two forms its data takes, as its kind defines
 * (cache.c: whether a pair's header is there).  The check covers it.
 */
#define STORE_LEN8_MASK		0x7fff
#define STORE_L_FORM		0x8000

/* 28 bytes, 4-aligned (expires is read as the compiler sees fit). */
struct __attribute__((packed, aligned(4))) store_rec {
	uint16_t	len8;		/* see above */
	uint8_t		name_len;	/* 1 - 255 */
	uint8_t		status;		/* see above */
	uint32_t	kind;		/* the cache's kind (cache.h) */
	int64_t		expires;	/* ms, the daemon's CLOCK_MONOTONIC */
	uint32_t	ttl;		/* seconds it was stored for */
	uint32_t	check;		/* store_rec_check of the rest */
	int32_t		failed;		/* in place: a failure remembered until
					   expires + failed (ms); STORE_NO_FAILURE */
	/* then name_len bytes of lowercased name, the data, pad zero bytes */
};

static inline size_t
store_rec_len(const struct store_rec *r)
{
	return (size_t)(r->len8 & STORE_LEN8_MASK) * 8;
}

/* Bytes of a record with a name of name_len and data of data_len bytes. */
size_t	 store_rec_size(size_t name_len, size_t data_len);

static inline const char *
store_rec_name(const struct store_rec *r)
{
	return (const char *)(r + 1);
}

static inline const uint8_t *
store_rec_data(const struct store_rec *r)
{
	return (const uint8_t *)(r + 1) + r->name_len;
}

/* The data's length: what the record holds past its name, less the pad. */
size_t	 store_rec_data_len(const struct store_rec *);

/*
 * An address answer (a proto answer body) in fewer bytes, for a record of
 * the lowercased name lname and TTL ttl: its canonical name left out when
 * it is lname, its TTL when it is ttl or 0 (the engine keeps bodies with
 * TTL 0, and stamps them as it gives them), counts in a byte each.
 * Returns the length written to out (cap bytes), or -1 when body cannot be
 * put so (then it is kept as it is).  Form:
 *
 *	u8 cflags (1: canon is lname; 2: ttl is the record's; 4: an origin;
 *	8: ttl is 0),
 *	[u32 ttl], u8 source, u8 flags, u8 naddr, u8 nalias,
 *	[u8 len, canon], naddr x (u8 family, 4|16|20 bytes),
 *	nalias x (u8 len, bytes), [u8 len, origin]
 */
int	 store_compact(const uint8_t *body, size_t len, const char *lname,
	    size_t nlen, uint32_t ttl, uint8_t *out, size_t cap);
/* The body back, into out (cap bytes): its length, or -1 if data is malformed. */
int	 store_expand(const uint8_t *data, size_t len, const char *lname, size_t nlen,
	    uint32_t ttl, uint8_t *out, size_t cap);

/* The home slot of hash h in a table of n slots (any n: Lemire's reduction). */
static inline uint32_t
store_home(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

/* The hash a key is placed by: SipHash-1-3 of kind (4 bytes, big-endian) and the lowercased name. */
uint64_t store_key_hash(const uint64_t k[2], uint32_t kind, const char *lname,
	    size_t len);

/* The value of a slot for a record at offset off (from the pages) of hash h. */
uint64_t store_slot(uint64_t off, uint64_t h);
uint64_t store_slot_off(uint64_t slot);
bool	 store_slot_tag_ok(uint64_t slot, uint64_t h);
/* The slot for the same entry, its record moved to off: tag and stamp kept. */
uint64_t store_slot_moved(uint64_t slot, uint64_t off);

static inline uint16_t
store_slot_stamp(uint64_t slot)
{
	return (uint16_t)slot;
}

static inline uint64_t
store_slot_restamp(uint64_t slot, uint16_t stamp)
{
	return (slot & ~0xffffULL) | stamp;
}

/*
 * The check of a record: SipHash-1-3 with the store's key of everything
 * but len, check and the words written in place, its low 32 bits.
 */
uint32_t store_rec_check(const uint64_t k[2], const struct store_rec *);

/* The file at base (len bytes, 8-aligned) if its header is ours, of
 * this version, and every size in it fits: NULL, with why, if not. */
const struct store_header *store_check_header(const void *base, size_t len,
	    const char **ret_why);

/*
 * The slots of a store that passed store_check_header, as one run of
 * indexes: [0, nslots) the table in use, then the one being emptied.
 */
uint32_t store_image_nslots(const struct store_header *h);
/* Slot i of that run (i below store_image_nslots). */
const uint64_t *store_image_slot(const struct store_header *h, uint32_t i);

/*
 * The record slot i (of store_image_nslots) of a store that passed store_check_header points at,
 * if it is whole and sound: inside the pages and inside one page, its
 * sizes consistent, its name lowercased and free of NULs, its status
 * known, its key's hash matching the slot's tag, every slot from its
 * home to i taken, and (when verify_check) its check right.  NULL with
 * why, if not (and for an empty slot, with why NULL).  The data is not
 * looked into: what it must be depends on its kind (cache.c).
 */
const struct store_rec *store_check_slot(const void *base, size_t len, uint32_t i,
	    bool verify_check, const char **ret_why);

#endif
