/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nssent.h - a module's passwd, group, initgroups, services and netgroup calls, on a worker. */
#ifndef NAMECACHE_NSSENT_H
#define NAMECACHE_NSSENT_H

#include <stddef.h>
#include <stdint.h>

struct nssmods_call;
struct nssmods_buf;

/*
 * ERANGE grows a worker's buffer up to this (a group of tens of thousands
 * of members needs a few MiB); past it the call is TRYAGAIN with ERANGE.
 * A buffer grown past NSSENT_BUFFER_KEEP is freed after its call.
 */
#define NSSENT_BUFFER_MAX	(16u << 20)
#define NSSENT_BUFFER_KEEP	(1u << 20)

/*
 * The bodies of a successful call (nsspool_result.body):
 *   NSSPOOL_PW*, _GR*, _SERV*   glibc's nscd reply (proto/nscddb.h)
 *   NSSPOOL_INITGR              u32 how (NSSENT_INITGR_DYN or _COMPAT),
 *                               then the module's gids, u32 each
 *   NSSPOOL_NETGR               its entries, in order: 't' host NUL user
 *                               NUL domain NUL ("" for none), or 'g' a
 *                               netgroup's name NUL
 * Integers in host order.
 */
#define NSSENT_INITGR_DYN	0u	/* initgroups_dyn: duplicates are glibc's to drop */
#define NSSENT_INITGR_COMPAT	1u	/* getgrent_r: none, in order */

/* The module's functions for these databases; NULL: it has none. */
struct nssent_fns {
	void	*getpwnam_r, *getpwuid_r;
	void	*getgrnam_r, *getgrgid_r;
	void	*initgroups_dyn, *setgrent, *getgrent_r, *endgrent;
	void	*getservbyname_r, *getservbyport_r;
	void	*setnetgrent, *getnetgrent_r, *endnetgrent;
};

/* Looks the functions of module `name' up in handle. */
void	 nssent_load(struct nssent_fns *, void *handle, const char *name);
/* Makes call c (an op from NSSPOOL_PWNAM on) on the calling worker. */
void	 nssent_run(const struct nssent_fns *, struct nssmods_call *c,
	    struct nssmods_buf *b);

#endif
