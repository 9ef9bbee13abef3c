/* SPDX-License-Identifier: MIT */
/* daemon/front/protocol.h - the namecache protocol's requests, and what a front end may ask of the daemon. */
#ifndef NAMECACHE_PROTOCOL_H
#define NAMECACHE_PROTOCOL_H

#include <stddef.h>

struct config;
struct event_base;
struct lookup;
struct metrics;
struct monitor;
struct nscdsrv;
struct nsspool;
struct proto_kv_wr;
struct registry;
struct server;

/*
 * What a front end may ask of the daemon as a whole: the operations that
 * reach parts it was not given (the shared segment, the nscd map, the
 * configuration, every module's counters).  main.c fills it; each call
 * gets arg back, on the loop, and returns when done.  The front ends see
 * nothing else of main.c's.
 */
struct daemon_ops {
	void	*arg;
	/* As SIGHUP: the configuration, hosts file and resolv.conf read again. */
	void	(*reload)(void *arg);
	/*
	 * Every hosts answer goes, from the cache and from what clients map
	 * (the shared segment, the nscd map).  Returns how many the cache held.
	 */
	size_t	(*flush)(void *arg);
	/*
	 * One name's answers go, wherever they are (the cache, under every
	 * spelling a module was asked, the shared segment, the nscd map).
	 * name is read during the call.  Returns how many the cache held.
	 */
	size_t	(*invalidate)(void *arg, const char *name);
	/* Every module's counters back to zero, and the metrics' histograms. */
	void	(*reset_statistics)(void *arg);
	/* `namecachectl status': the settings in force, the state of each part. */
	void	(*status)(void *arg, struct proto_kv_wr *);
};

/* The parts the namecache protocol answers with: borrowed, until protocol_free(). */
struct protocol_parts {
	struct lookup		*lookup;	/* lookups; show-cache walks its cache */
	struct nsspool		*nss;		/* show-cache names a module's answers */
	struct registry		*registry;	/* statistics */
	struct monitor		*monitor;	/* PROTO_MONITOR */
	struct metrics		*metrics;	/* PROTO_METRICS */
	struct daemon_ops	 ops;		/* copied */
};

struct protocol;

/*
 * The front end and its socket, not listening yet (server_listen on
 * protocol_server()).  Caller frees with protocol_free(); NULL is out of
 * memory.
 */
struct protocol *protocol_new(struct event_base *, const struct protocol_parts *);
/* Closes the socket and every connection. */
void	 protocol_free(struct protocol *);
/* Its socket: borrowed, valid until protocol_free(). */
struct server *protocol_server(struct protocol *);
/* c's admin_group, max_clients and idle_timeout (at start, on reload); c: read now. */
void	 protocol_configure(struct protocol *, const struct config *c);
/*
 * The nscd front end, once it is open (it opens after this socket): its
 * databases for show-cache and flush-caches.  Borrowed, valid until
 * protocol_free(); NULL: none.
 */
void	 protocol_set_nscd(struct protocol *, struct nscdsrv *);

#endif
