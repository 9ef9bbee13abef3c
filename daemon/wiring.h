/* SPDX-License-Identifier: MIT */
/* daemon/wiring.h - the real parts behind the lookup engine's seams. */
#ifndef NAMECACHE_WIRING_H
#define NAMECACHE_WIRING_H

#include "lookup.h"

struct hostsfile;
struct nscddb_modules;
struct nsspool;
struct resolver;
struct server_req;

/* The engine's world in the daemon: the live hosts index, c-ares and the worker pool.  All borrowed. */
void	wiring_lookup_env(struct lookup_env *ret, struct hostsfile *, struct resolver *,
	    struct nsspool *, cache_clock_fn *now, void *now_arg);

/* The worker pool as the walks' modules (modsrc.h). */
void	wiring_modules(struct modsrc_modules *ret, struct nsspool *);
/* The worker pool as the modules of nscd's other databases' walks. */
void	wiring_nscddb_modules(struct nscddb_modules *ret, struct nsspool *);

/*
 * The client of a request on a Unix socket (namecache's or nscd's
 * protocol: fe is LOOKUP_FE_SOCKET or _NSCD), as the engine shows it.
 */
void	wiring_client(struct lookup_client *ret, const struct server_req *req,
	    uint8_t fe);

#endif
