/* SPDX-License-Identifier: MIT */
/* proto/shmfmt.h - the shared answer segment: layout, hashing, a bounds-checked finder. */
#ifndef NAMECACHE_SHMFMT_H
#define NAMECACHE_SHMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The daemon publishes answers in a file that clients map read-only.  One
 * writer (the daemon, single-threaded); any number of readers, in other
 * processes, that never write, never lock, and never make a system call
 * on a hit.
 *
 * Layout: a 128-byte header, a table of 64-bit slots, then records.
 *
 *   - A record is written once, in space nobody has seen, and never
 *     changed after: immutable.  The writer then stores its place in a
 *     slot with release order; a reader loads the slot with acquire order,
 *     and so sees the whole record.  No seqlock is needed, and a reader can
 *     never see a torn record.
 *   - A name has one record, whatever its spelling (SHM_EXACT or not), so
 *     a reader's probe meets at most one record that may answer it.
 *   - Replacing an answer appends a new record and swaps the slot; the old
 *     record stays, unreferenced, until the segment is replaced.
 *   - When the data area is full, or answers must vanish at once (a hosts
 *     reload, a flush), the daemon writes a new, empty segment, renames it
 *     over the old file, and marks the old one retired.  Readers check the
 *     state on every lookup and map the new file.
 *   - The daemon stamps a heartbeat into the header every second; a segment
 *     whose heartbeat is older than SHM_STALE_NS is not used (the daemon
 *     died, or hangs), and clients ask the socket, which tells them.
 *
 * Slots: 0 is empty; otherwise the record's offset from the start of the
 * data area, divided by 8, in the top 40 bits, and 24 bits of the key's
 * hash in the low bits, so that most wrong slots are passed by without
 * touching their record.  Linear probing, at most SHM_MAX_PROBE slots.
 *
 * Everything a reader reads is checked against the size of the mapping:
 * a corrupt or hostile segment yields "not found", never a wild read.
 */

#define SHM_MAGIC	0x3130484d53434e00ULL	/* "\0NCSHM01" */
#define SHM_VERSION	1
#define SHM_HEADER_SIZE	128
#define SHM_MAX_PROBE	32
#define SHM_STALE_NS	(5LL * 1000000000LL)	/* heartbeat older: ignore */
#define SHM_FOREVER	INT64_MAX		/* expiry of hosts answers */

enum shm_state {
	SHM_LIVE	= 1,
	SHM_RETIRED	= 2,
};

/*
 * A name key is a name as a client asked it, which the daemon accepted:
 * proto_name_check passes it (the daemon publishes no other).  The check
 * looks at no letter's case, so a name that matches a key passes it too,
 * and a reader does not check a name it found again.
 */
enum shm_kind {
	SHM_NAME	= 1,	/* key: the name as asked */
	SHM_ADDR	= 2,	/* key: 4 or 16 address bytes */
};

#define SHM_EXACT	0x1	/* the key matches only as spelled (not case-folded) */

struct shm_header {
	uint64_t	magic;
	uint32_t	version;
	uint32_t	header_size;
	uint64_t	file_size;
	uint64_t	generation;	/* a new number for every segment */
	uint32_t	nslots;		/* a power of two */
	uint32_t	state;		/* enum shm_state; atomic */
	uint64_t	slots_off;
	uint64_t	data_off;
	uint64_t	data_size;
	int64_t		heartbeat_ns;	/* CLOCK_MONOTONIC; atomic */
	uint64_t	key[2];		/* SipHash key of this segment */
	uint64_t	netlink;	/* bumped on every address or route
					   change; atomic.  With generation,
					   the key of a client's cached
					   source addresses (RFC 6724) */
	uint32_t	stopped;	/* atomic: the daemon stopped, and left
					   it live for the next one (a restart
					   under socket activation): readers use
					   its records while its heartbeat is
					   fresh, and a client waiting on the
					   socket waits for the next daemon
					   rather than judge this one hung */
	uint32_t	reserved0;
	uint8_t		reserved[SHM_HEADER_SIZE - 104];
};

struct shm_rec {
	uint32_t	rec_len;	/* the whole record, a multiple of 8 */
	uint32_t	body_len;
	int64_t		expires_ns;	/* CLOCK_MONOTONIC; SHM_FOREVER */
	uint32_t	ttl;		/* seconds it was given: for the 10% rule */
	uint16_t	key_len;
	uint8_t		kind;		/* enum shm_kind */
	uint8_t		family;		/* PROTO_AF_* */
	uint8_t		status;		/* PROTO_OK, PROTO_NOTFOUND, PROTO_NODATA */
	uint8_t		flags;		/* SHM_EXACT */
	uint8_t		reserved[6];
	/* then key_len bytes of key, then the body, at 8-byte alignment */
};

/* The segment of the daemon listening at sockpath: its folder's "cache". */
int	 shm_path(const char *sockpath, char *buf, size_t len);

/* The hash a key is placed by: SipHash-1-3 (hash_siphash13) with the
 * segment's key, of kind, family and key; names case-folded (name_fold). */
uint64_t shm_key_hash(const uint64_t k[2], uint8_t kind, uint8_t family,
	    const void *key, size_t len);

/*
 * The header of a segment mapped at base, len bytes long, if it is one of
 * ours and every size in it fits: else NULL.
 */
const struct shm_header *shm_check(const void *base, size_t len);

/*
 * The record for (kind, family, key) in a segment that passed shm_check,
 * or NULL.  Names match case-insensitively unless the record says
 * SHM_EXACT.  The record and its body lie inside the mapping.  Checks the
 * header on every call: shm_view_find is the same search with the header
 * checked once.
 */
const struct shm_rec *shm_find(const void *base, size_t len, uint8_t kind,
	    uint8_t family, const void *key, size_t key_len);

/*
 * A mapped segment as shm_check accepted it: its bounds and SipHash key,
 * each read once from the header and copied here, so that a header
 * rewritten after the check (by a hostile or broken writer: the daemon
 * never changes these) cannot move them.  A reader makes one when it maps
 * the segment and finds with it on every lookup.
 */
struct shm_view {
	const uint64_t	*slots;
	const uint8_t	*data;
	uint64_t	 data_size;
	uint64_t	 mask;		/* nslots - 1 */
	uint64_t	 key[2];
};

/* 0 with *ret_view when shm_check accepts the segment, else -EBADMSG. */
int	 shm_view_init(const void *base, size_t len, struct shm_view *ret_view);

/*
 * shm_find in a view: the record for (kind, family, key), or NULL, with
 * *ret_body and *ret_body_len set from the same single reads of the
 * record's lengths that were checked (shm_rec_body() would read them
 * again): the body lies inside the record, and the record inside the
 * data area, whatever the mapping says by the time they are used.
 */
const struct shm_rec *shm_view_find(const struct shm_view *, uint8_t kind,
	    uint8_t family, const void *key, size_t key_len,
	    const uint8_t **ret_body, uint32_t *ret_body_len);

const uint8_t *shm_rec_key(const struct shm_rec *);
const uint8_t *shm_rec_body(const struct shm_rec *);

/* Bytes of a record with this key and body. */
size_t	 shm_rec_size(size_t key_len, size_t body_len);

/* The slot value for a record at data offset off and hash h. */
uint64_t shm_slot(uint64_t off, uint64_t h);

#endif
