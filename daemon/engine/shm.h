/* SPDX-License-Identifier: MIT */
/* daemon/engine/shm.h - publishes answers in the shared segment clients map (the writer). */
#ifndef NAMECACHE_SHM_H
#define NAMECACHE_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct registry_wr;
struct shm;

struct shm_stats {
	uint64_t	published;
	uint64_t	resets;
	uint64_t	full;		/* resets because the data area filled */
	uint64_t	failures;	/* new segments that could not be made */
	bool		dead;		/* none live now: readers ask the socket */
	size_t		used;		/* bytes of the data area in use */
	size_t		size;		/* bytes of the data area */
	uint32_t	nslots;
	uint64_t	generation;
	uint64_t	reset_max_usec;	/* the longest reset on the loop */
	uint64_t	resets_ahead;	/* resets that installed a segment made ahead */
	uint64_t	reset_last_usec;
	uint64_t	netlink_changes;	/* counter bumps (address, route changes) */
};

/*
 * Creates the segment at path (world-readable, like nscd's) with nslots
 * slots (rounded up to a power of two) and data_size bytes of records, and
 * retires any segment a previous daemon left there.  Returns NULL with
 * errno set.  Caller frees with shm_free().
 */
struct shm *shm_new(const char *path, uint32_t nslots, size_t data_size);

/*
 * The slots (a power of two) and data area for a daemon of cache_size
 * answers and a file of at most max_bytes in all: room for every cached
 * answer (512 bytes each, and 1 MiB for hosts answers), or as many as fit,
 * with about one slot per 64 bytes of records, or per 40 bytes of a file
 * at its bound.  The whole file is allocated when it is made, so that
 * a full /run is an error at that moment, never a SIGBUS on a later write.
 */
void	 shm_sizes(unsigned cache_size, size_t max_bytes, uint32_t *ret_nslots,
	    size_t *ret_data_size);

/*
 * Retires the segment a daemon that died left at path, if any: its readers
 * stop using it at once.  (shm_new does it too; the daemon calls this
 * before it listens, so no client finds the socket answering while the old
 * segment still looks live.)
 */
void	 shm_retire_file(const char *path);

/* What a daemon that stops leaves its readers. */
enum shm_leave {
	SHM_LEAVE_GONE,		/* retired (readers stop using it at once), and
				   the file removed */
	SHM_LEAVE_RETIRED,	/* retired, the file kept */
	SHM_LEAVE_LIVE,		/* live: readers go on with its answers, each
				   within its TTL, until the next daemon's
				   segment replaces it, or for SHM_STALE_NS
				   after the last heartbeat (a restart under
				   socket activation: no gap) */
};

void	 shm_free(struct shm *, enum shm_leave);

/*
 * Publishes an answer body (a proto answer) for (kind, family, key):
 * status, the time it expires (CLOCK_MONOTONIC ns, or SHM_FOREVER), and
 * the TTL it was given.  exact: the key matches only as spelled.  Returns
 * 0, or -errno (-E2BIG: does not fit; nothing is published).
 */
int	 shm_put(struct shm *, uint8_t kind, uint8_t family, const void *key,
	    size_t key_len, bool exact, uint8_t status, int64_t expires_ns,
	    uint32_t ttl, const void *body, size_t body_len);

/*
 * Retires the records of one name, every family, in any spelling (readers
 * ask the socket for it from now on; others keep their hits).  Returns how
 * many went.
 */
int	 shm_retire_name(struct shm *, const char *name, size_t len);

/*
 * Replaces the segment with an empty one: published answers vanish at
 * once.  If no new one can be made (/run full), the old one is retired
 * all the same, so readers ask the socket; publishing resumes with the
 * first new segment that can be made, tried at most once a second.
 */
int	 shm_reset(struct shm *);

/* Stamps the heartbeat readers check. */
void	 shm_heartbeat(struct shm *, int64_t now_ns);

/*
 * An address or route changed: bumps the segment's netlink counter, so
 * that clients probe their source addresses again.  A new segment starts
 * at 0 with a new generation, which clients take as a change too.
 */
void	 shm_netlink_changed(struct shm *);

void	 shm_get_stats(const struct shm *, struct shm_stats *ret);
/* Its counters (published, resets, ...), a registry report. */
void	 shm_report(void *shm, struct registry_wr *);

#endif
