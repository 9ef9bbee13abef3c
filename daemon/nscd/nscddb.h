/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscddb.h - nscd's other databases: passwd, group, initgroups, services, netgroup. */
#ifndef NAMECACHE_NSCDDB_H
#define NAMECACHE_NSCDDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "config.h"
#include "event.h"
#include "nsspool.h"
#include "nsswitch.h"

struct nscddb;
struct nscdmap;
struct proto_kv_wr;
struct registry_wr;

#define NSCDDB_REPLY_MAX	(4u << 20)	/* larger answers: glibc walks NSS itself */
#define NSCDDB_NETGROUPS_MAX	4096	/* netgroups one expansion visits */

struct nscddb_stats {
	uint64_t	requests;	/* lookups asked, from the socket */
	uint64_t	hits;		/* answered from the map */
	uint64_t	misses;		/* walks started for a client */
	uint64_t	coalesced;	/* asks that joined a walk in flight */
	uint64_t	refreshes;	/* walks the sweeper asked, nobody waiting */
	uint64_t	module_calls;
	uint64_t	pool_jobs;	/* walks sent to a worker: one trip each */
	uint64_t	found;		/* walks' answers: found, */
	uint64_t	notfound;	/*   not found, */
	uint64_t	failed;		/*   refused (TRYAGAIN, too large, busy) */
	uint64_t	uncached;	/* answers not kept: an uncached module's */
	uint64_t	invalidations;
};

/*
 * A lookup's reply, as glibc reads it (borrowed for the call); len 0:
 * refuse (found = -1), so glibc walks NSS itself.
 */
/*
 * How an answer came, for the monitor: from the map at once (a hit), or
 * from a walk begun (a miss) or joined (coalesced).
 */
struct nscddb_how {
	uint8_t		 cache;		/* PROTO_CACHE_HIT, _MISS, _COALESCED */
	const char	*source;	/* the module whose say ended the walk;
					   NULL: the map's */
};
typedef void nscddb_done_fn(void *arg, const void *reply, size_t len,
    const struct nscddb_how *how);

/*
 * The modules, as the walks use them: id() gives a module's id (or
 * -errno), on the loop; missing() says it does not load, from any
 * thread; job() queues a walk on a worker and ask() calls a module from
 * there, as nsspool_job and nsspool_ask do.  The daemon passes the
 * worker pool, tests/unit/test-nscddb.c a script.
 */
struct nscddb_modules {
	int	(*id)(void *arg, const char *name);
	bool	(*missing)(void *arg, int id);
	int	(*job)(void *arg, int first, const struct nsspool_job_fns *fns,
		    void *job_arg);
	int	(*ask)(struct nsspool_worker *wk, int id, int op, uint8_t family,
		    const void *key, size_t key_len, struct nsspool_result *ret);
	void	*arg;
};

/*
 * The databases, walking modules through mods (the worker pool, or a
 * test's script) on clock now.  dir: the folder of the mapped files
 * (nscd-passwd, nscd-group, nscd-services, nscd-netgroup), NULL for none;
 * map_max: bytes each may grow to.  NULL with errno set.
 */
struct nscddb *nscddb_new(const struct nscddb_modules *mods, cache_clock_fn *now,
	    void *now_arg, const char *dir, size_t map_max);
/* Walks in flight are answered with a refusal; live as nscdmap_close's. */
void	 nscddb_free(struct nscddb *, bool live);
/* nscd_databases, the TTLs, nscd_uncached_modules, nscd_reloads. */
void	 nscddb_configure(struct nscddb *, const struct config *);
/*
 * Reads the passwd, group, initgroups, services and netgroup lines of the
 * nsswitch.conf at path (glibc's defaults where one is missing).  A line
 * that changed drops its database's answers.  0 or -errno (the lines stay).
 */
int	 nscddb_load_lines(struct nscddb *, const char *path);
/* db's line, as walked (namecache out). */
void	 nscddb_line_text(const struct nscddb *, int db, char *buf, size_t len);
/* The database of a request type (CONFIG_DB_*), or -1: not one of these. */
int	 nscddb_db_of(int32_t type);
/* NULL: db is answered; else why it is refused ("sss", "not listed"). */
const char *nscddb_refused(const struct nscddb *, int db);
/*
 * Answers glibc's request (type, key): from the map at once (fn called
 * before the return), or after a walk of the line.  Returns 0 (fn is
 * called exactly once), or -EINVAL for a key this type cannot have and
 * -EPERM for a database not answered (fn is then not called).
 */
int	 nscddb_ask(struct nscddb *, int32_t type, const void *key, size_t key_len,
	    nscddb_done_fn *fn, void *arg);
/* The map of db, for GETFD*: NULL when db is refused or has none. */
struct nscdmap *nscddb_map(struct nscddb *, int db);
/* Drops db's answers, for readers at once.  Returns how many went. */
size_t	 nscddb_invalidate(struct nscddb *, int db, const char *why);
/* Once a second: expiries, refreshes, the maps' timestamps. */
void	 nscddb_tick(struct nscddb *, int64_t now);
void	 nscddb_get_stats(const struct nscddb *, int db, struct nscddb_stats *);
void	 nscddb_reset_stats(struct nscddb *);
void	 nscddb_status(struct nscddb *, struct proto_kv_wr *);
/* Each database's counters, a registry report (in the nscd front end's). */
void	 nscddb_report(void *nscddb, struct registry_wr *);
/*
 * The cached answers of db from index from, as nscdmap_walk pages them:
 * glibc's request type, what it looks up by ("name", "uid", ...), its key
 * as text, found or not, seconds left, and a summary.
 */
typedef bool nscddb_entry_fn(void *arg, int32_t type, const char *what,
    const char *key, bool found, uint32_t ttl_left, const char *summary);
size_t	 nscddb_walk(struct nscddb *, int db, size_t from, nscddb_entry_fn *,
	    void *arg);
/* The file each database's files module reads, whose edits invalidate it. */
const char *nscddb_file(int db);

#endif
