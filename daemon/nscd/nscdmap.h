/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscdmap.h - a database glibc's nscd client maps (the writer): hosts, passwd, group, services, netgroup. */
#ifndef NAMECACHE_NSCDMAP_H
#define NAMECACHE_NSCDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSCDMAP_FOREVER		INT64_MAX
#define NSCDMAP_REFRESH_MAX	1024	/* refreshes asked per second, at most */

struct nscdmap;

struct nscdmap_stats {
	uint64_t	published;	/* records written */
	uint64_t	unchanged;	/* publications that found the same record */
	uint64_t	swept;		/* records the sweeper marked unusable */
	uint64_t	refreshes;	/* refreshes asked before an expiry */
	uint64_t	compactions;
	uint64_t	grown;
	uint64_t	resets;		/* flushes, reloads, a full file */
	uint64_t	failures;	/* records that did not fit */
	uint64_t	sweep_max_usec;	/* the longest sweep on the loop */
	uint64_t	taken_over;	/* records a daemon before left, taken over */
	uint32_t	entries;	/* usable records */
	uint32_t	module;		/* buckets */
	uint32_t	nl_counter;	/* extra_data[0] */
	size_t		used;		/* bytes of the data area in use */
	size_t		size;		/* bytes of the data area now */
	size_t		max;		/* bytes it may grow to */
};

/*
 * Asked by the sweeper for a record in the last tenth of its lifetime
 * (at most `reloads' times after a client last asked for it): walk the
 * lookup again so that a fresh answer is published before it expires.
 * type is glibc's request type; key as glibc sends it.
 */
typedef void nscdmap_refresh_fn(void *arg, int32_t type, const void *key,
    size_t key_len);

/*
 * Makes the database at path (mode 0644, written only by this process),
 * or takes over the one a previous daemon left there, so processes that
 * mapped it go on with the same file.  module: buckets wanted (a prime
 * is chosen); max_size: bytes the data area may grow to.  Returns NULL
 * with errno set.
 */
struct nscdmap *nscdmap_open(const char *path, uint32_t module, size_t max_size);
/*
 * A file a daemon before left is opened as it is, its records still
 * read by readers: this takes them over (each checked, the expired made
 * unusable, the index rebuilt; nothing moves), now being the daemon's
 * clock.  Returns the records taken, or -errno (the file was emptied).
 * Not called: nscdmap_drop_left, or the first other call, empties it.
 */
int	 nscdmap_take_over(struct nscdmap *, int64_t now);
/* Those records, not taken over: emptied now (not counted as a reset). */
void	 nscdmap_drop_left(struct nscdmap *);
/* When that daemon last stamped the file (time()), or 0: nothing left. */
uint64_t nscdmap_left_stamp(const struct nscdmap *);
/*
 * Closes it.  Readers keep their mapping, which a daemon that starts again
 * takes over; meanwhile, with live, they go on reading its records (a
 * restart under socket activation: no gap), else they stop using them at
 * once (an odd gc_cycle sends them to the socket).
 */
void	 nscdmap_close(struct nscdmap *, bool live);
/* A read-only descriptor for clients, and the bytes they map. */
int	 nscdmap_fd(const struct nscdmap *, uint64_t *ret_mapsize);
void	 nscdmap_set_refresh(struct nscdmap *, nscdmap_refresh_fn *, void *arg,
	    unsigned reloads);
/*
 * Publishes one reply (as glibc reads it: a struct nscd_hst_reply or
 * nscd_ai_reply and its data) for (type, key) until expires (ms on the
 * daemon's monotonic clock, or NSCDMAP_FOREVER).  asked: a client asked
 * for it (else a refresh of the daemon's own).  The record it replaces
 * is marked unusable.  0, or -errno (-E2BIG: the file is at its largest
 * and full of usable records).
 */
int	 nscdmap_put(struct nscdmap *, int32_t type, const void *key, size_t key_len,
	    const void *reply, size_t len, int64_t expires, uint32_t ttl,
	    bool asked, int64_t now);
/*
 * The usable, unexpired record for (type, key): 0 with the reply it
 * holds (borrowed until the next call that writes the map) and the
 * seconds it has left, or -ENOENT.  Counts as a client's ask.
 */
int	 nscdmap_get(struct nscdmap *, int32_t type, const void *key, size_t key_len,
	    int64_t now, const uint8_t **ret, size_t *ret_len, uint32_t *ret_ttl_left);
/*
 * The usable records from index from (0: the first), for show-cache:
 * ttl_left 0 once expired.  fn returns false to stop before that record;
 * the walk then returns its index, to go on from, else 0 at the end.  An
 * index stays valid until the map is next written.
 */
typedef bool nscdmap_walk_fn(void *arg, int32_t type, const void *key, size_t key_len,
    const uint8_t *reply, size_t len, uint32_t ttl_left);
size_t	 nscdmap_walk(struct nscdmap *, size_t from, nscdmap_walk_fn *, void *arg,
	    int64_t now);
/* Marks the records of one name unusable, every type and spelling. */
int	 nscdmap_retire_name(struct nscdmap *, const char *name, size_t len);
/* Empties it: published answers vanish for readers at once. */
void	 nscdmap_reset(struct nscdmap *);
/* Once a second: expired records go unusable, refreshes are asked, the
 * timestamp readers check is stamped. */
void	 nscdmap_tick(struct nscdmap *, int64_t now);
/* A network change: readers redo their address dump (extra_data[0]). */
void	 nscdmap_netlink_changed(struct nscdmap *);
void	 nscdmap_get_stats(const struct nscdmap *, struct nscdmap_stats *);

#endif
