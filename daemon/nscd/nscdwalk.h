/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscdwalk.h - one walk of a database's line for one key: nscddb.c's, inside. */
#ifndef NAMECACHE_NSCDWALK_H
#define NAMECACHE_NSCDWALK_H

/*
 * What nscddb.c and nscdwalk.c share: the databases and their state
 * (nscddb.c keeps them), and the walks of a line (nscdwalk.c runs them,
 * and publishes what they find in the database's map).  Nothing else
 * includes this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nscddb.h"

#define NSCDWALK_BUCKETS	256	/* walks in flight, by (type, key) */

struct walk;

/* A client waiting on a walk. */
struct waiter {
	struct waiter	*next;
	nscddb_done_fn	*fn;
	void		*arg;
	bool		 joined;	/* the walk was under way already */
};

/* One database (passwd, group, services, netgroup): its lines, TTLs, map. */
struct db {
	struct nscddb	*ndb;
	int		 id;		/* CONFIG_DB_* */
	struct nsw_line	 line;
	struct nsw_line	 initgr;	/* group's: the initgroups line */
	bool		 has_initgr;	/* glibc walks it, not the group line */
	bool		 names_sss;
	bool		 listed;	/* in nscd_databases */
	bool		 forced;	/* nscd_databases was given: sss too */
	uint32_t	 ttl, neg_ttl;
	uint64_t	 gen;		/* invalidations, to drop walks begun before */
	struct nscdmap	*map;
	char		*map_path;
	struct nscddb_stats st;
};

/* All of them, the modules they walk, and the walks in flight. */
struct nscddb {
	struct nscddb_modules	 mods;
	cache_clock_fn		*now;
	void			*now_arg;
	struct db		 dbs[CONFIG_DB_COUNT];
	struct walk		*table[NSCDWALK_BUCKETS];
	char			*uncached;	/* nscd_uncached_modules, "" for none */
	unsigned		 reloads;
	unsigned		 inflight;
	bool			 lines_loaded;	/* once: later loads are changes */
};

static inline int64_t
nscddb_now(const struct nscddb *ndb)
{
	return ndb->now(ndb->now_arg);
}

/* Whether module is in nscd_uncached_modules: answers never kept. */
bool	 nscddb_uncached(const struct nscddb *, const char *module);
/*
 * Adds wt to the walk of (type, key) in flight: true, or false when
 * there is none (wt NULL: only whether there is one).
 */
bool	 nscdwalk_join(struct nscddb *, int32_t type, const void *key, size_t len,
	    struct waiter *wt);
/*
 * Walks db's line for (type, key), glibc's key as it came; wt (NULL for a
 * refresh) is answered at the end, maybe before this returns.  Returns
 * 0, or -EINVAL for a key glibc never sends, -ENOMEM (wt is then not
 * answered, and is the caller's).
 */
int	 nscdwalk_start(struct nscddb *, struct db *, int32_t type, const void *key,
	    size_t len, struct waiter *wt);
/* Every walk in flight answers its waiters with a refusal, now. */
void	 nscdwalk_cancel_all(struct nscddb *);

#endif
