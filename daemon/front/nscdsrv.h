/* SPDX-License-Identifier: MIT */
/* daemon/front/nscdsrv.h - glibc's nscd protocol on its own socket: hosts, passwd, group, services, netgroup. */
#ifndef NAMECACHE_NSCDSRV_H
#define NAMECACHE_NSCDSRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

struct config;
struct event_base;
struct lookup;
struct metrics;
struct monitor;
struct nscddb;
struct nscdmap;
struct nsspool;
struct proto_kv_wr;
struct registry_wr;

struct nscdsrv_stats {
	uint64_t	requests[23];	/* by glibc's request type; [22]: any other */
	uint64_t	refused;	/* found = -1 replies */
	uint64_t	refused_hosts;	/* of them, hosts lookups */
	uint64_t	fds_sent;	/* mappings handed out */
	uint64_t	denied;		/* INVALIDATE by a non-admin */
	uint64_t	netlink_changes;
};

struct nscdsrv;

/*
 * The parts the nscd front end answers with: borrowed, valid until
 * nscdsrv_free().  Of the daemon's operations it calls flush alone (an
 * INVALIDATE of hosts).
 */
struct nscdsrv_parts {
	struct event_base	*base;
	struct lookup		*lookup;	/* hosts; it publishes in the map */
	struct nsspool		*nss;		/* the other databases' modules */
	struct monitor		*monitor;	/* each lookup, as the engine's */
	struct metrics		*metrics;
	int64_t			(*clock)(void *arg);	/* ms, CLOCK_MONOTONIC */
	struct daemon_ops	 ops;		/* copied */
	bool			 comes_back;	/* a stop is followed by a start:
						   namecache's socket is systemd's */
};

/*
 * Listens on path (or the socket systemd passed as "nscd"), and keeps the
 * mapped hosts database at map_path, by config (borrowed, valid until the
 * next nscdsrv_configure()).  Returns NULL with a message in *ret_err
 * (caller frees).
 */
struct nscdsrv *nscdsrv_new(const struct nscdsrv_parts *, const struct config *,
	    const char *path, const char *map_path, char **ret_err);
/* Readers stop using the mapping at once; the file stays, for the next daemon. */
void	 nscdsrv_free(struct nscdsrv *);
struct nscdmap *nscdsrv_map(struct nscdsrv *);
/* Once a second, on the daemon's clock (ms). */
void	 nscdsrv_tick(struct nscdsrv *, int64_t now);
/* An address or route changed: bumps the mapping's netlink counter. */
void	 nscdsrv_netlink_changed(struct nscdsrv *);
/* A reload's nscd_* keys (c: borrowed, valid until the next call); NULL: a no-op. */
void	 nscdsrv_configure(struct nscdsrv *, const struct config *);
/* nsswitch.conf changed: the other databases' lines again. */
void	 nscdsrv_load_lines(struct nscdsrv *);
/* Drops one database's answers (CONFIG_DB_PASSWD, ...): how many went. */
size_t	 nscdsrv_flush_db(struct nscdsrv *, int db, const char *why);
struct nscddb *nscdsrv_db(struct nscdsrv *);
void	 nscdsrv_status(struct nscdsrv *, struct proto_kv_wr *);
/* Its socket's counters, its map's and its databases': a registry report. */
void	 nscdsrv_report(void *nscdsrv, struct registry_wr *);
void	 nscdsrv_reset_stats(struct nscdsrv *);

#endif
