/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nssmods.h - the host's NSS modules, loaded and called as glibc calls them. */
#ifndef NAMECACHE_NSSMODS_H
#define NAMECACHE_NSSMODS_H

#include <nss.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsspool.h"
#include "proto.h"

struct nssmods;

/* One call: what nsspool asks, and what nssmods_run found. */
struct nssmods_call {
	int		 mod;		/* an id from nssmods_add() */
	int		 op;		/* enum nsspool_op */
	uint8_t		 family;
	size_t		 key_len;
	uint8_t		 key[NSSPOOL_KEY_MAX];	/* a name is NUL-terminated */
	struct nsspool_result res;	/* set by nssmods_run */
	uint8_t		*body;		/* res.body's buffer: caller frees */
};

/* A worker thread's buffers, grown on ERANGE and kept from call to call. */
struct nssmods_buf {
	char	*p;
	size_t	 len;
};

/*
 * glibc's loop around a module call that fills a caller's buffer, for
 * every such call (hosts, passwd, group, services, the enumerations):
 * while the module says TRYAGAIN with ERANGE (and, for a hosts function,
 * h_errno NETDB_INTERNAL), b is doubled from 1 KiB up to max and the
 * module called again.
 *
 *	struct nssmods_retry t = { b, max, false };
 *
 *	while ((r = nssmods_retry(&t, &s, &err, &herr)) > 0)
 *		s = fn(..., b->p, b->len, &err, &herr);
 *
 * Returns 1: call (again), *err and *herr zeroed; 0: *s is the module's
 * say; -ENOMEM: no first buffer (*s TRYAGAIN, *err ENOMEM); -ERANGE: still
 * ERANGE at max, or no memory to double b (*s, *err as the module left
 * them).  *herr is NETDB_INTERNAL on both failures; herr is NULL for the
 * functions that have no h_errno.
 */
struct nssmods_retry {
	struct nssmods_buf	*b;
	size_t			 max;
	bool			 called;
};
int	 nssmods_retry(struct nssmods_retry *, enum nss_status *s, int *err, int *herr);

/* Caller frees with nssmods_free(); NULL is out of memory. */
struct nssmods *nssmods_new(void);
/* Unloads the modules: no call may be running in any of them. */
void	 nssmods_free(struct nssmods *);

/*
 * The id of module `name', added on first mention: -EINVAL for an empty
 * or overlong name, a path, or namecache itself; -E2BIG past
 * NSSPOOL_MODULES_MAX names.  On the loop alone.
 */
int	 nssmods_add(struct nssmods *, const char *name);
unsigned nssmods_count(const struct nssmods *);
/* Borrowed, valid until nssmods_free(); "?" for an unknown id. */
const char *nssmods_name(const struct nssmods *, int id);
/* Whether module id was tried and does not load. */
bool	 nssmods_missing(struct nssmods *, int id);

/*
 * Makes call c on the calling (worker) thread, loading its module first
 * if it is the first call; blocks as long as the module does.  b and b2
 * (zeroed to start; the caller frees their p) are the thread's buffers.
 */
void	 nssmods_run(struct nssmods *, struct nssmods_call *c,
	    struct nssmods_buf *b, struct nssmods_buf *b2);

#endif
