/* SPDX-License-Identifier: MIT */
/* daemon/daemon.h - namecached's parts as main.c holds them: main.c's, and its two helpers'. */
#ifndef NAMECACHE_DAEMON_H
#define NAMECACHE_DAEMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct dnslisten;
struct event_base;
struct hostsfile;
struct httpmetrics;
struct lockfile;
struct lookup;
struct metrics;
struct monitor;
struct nscdsrv;
struct nsspool;
struct protocol;
struct registry;
struct proto_kv_wr;
struct resolver;
struct shm;
struct watch;
struct daemon_ops;

/*
 * main.c owns the one struct daemon (a static); parts.c and admin.c, the
 * files split from it, are handed a pointer.  No module includes this
 * header: each is given the parts it needs when it is made, and the
 * front ends reach the daemon as a whole through daemon_ops (protocol.h).
 */
struct daemon {
	struct event_base	*base;
	struct config		*config;
	const char		*config_path;
	struct registry		*registry;	/* every module's numbers */
	struct hostsfile	*hosts;
	struct resolver		*resolver;
	struct nsspool		*nss;
	struct watch		*nsswitch_watch;
	char			 hosts_line[1024];	/* as walked, namecache out */
	char			 nsswitch_error[256];
	struct lookup		*lookup;
	struct shm		*shm;		/* NULL: shared = no */
	struct nscdsrv		*nscd;		/* NULL: no nscd socket */
	struct dnslisten	*dns;		/* NULL: no DNS listener */
	struct protocol		*proto;		/* namecache's socket and requests */
	struct monitor		*monitor;	/* every lookup, as answered */
	struct metrics		*metrics;
	struct httpmetrics	*http;		/* NULL: metrics_listen is off */
	/*
	 * The locks on what the daemon owns (parts.c: own), held until
	 * parts_stop: the socket's folder, the segment's when it is another
	 * (socket activation), persistent_cache's store.
	 */
	struct lockfile		*locks[3];
	struct {
		uint64_t	 nsswitch_reloads;	/* the hosts line read again */
		uint64_t	 heap_trims;	/* heartbeats that gave memory back */
		uint64_t	 heap_trim_max_usec;	/* the longest heartbeat */
	}			 counters;	/* main.c's own */
	struct timespec		 started;	/* CLOCK_MONOTONIC */
};

/*
 * parts.c: makes every part and wires them, in order, by d->config: the
 * namecache socket listening, the segment, the nscd front end and the
 * metrics endpoint open, every report registered.  ops and clock are
 * borrowed for the daemon's life.  0, or -1 with the reason logged;
 * either way parts_stop() frees what was made.
 */
int	parts_start(struct daemon *, const struct daemon_ops *ops,
	    int64_t (*clock)(void *));
/* A reload: the keys that change only on restart said so, and put back in c as in old. */
void	parts_restart_only(const struct config *old, struct config *c);
/* A reload's configuration applied to each part; takes ownership of c, frees the old. */
void	parts_apply(struct daemon *, struct config *c);
/* Frees every part (NULL ones too), in an order where none outlives what it calls. */
void	parts_stop(struct daemon *);

/*
 * admin.c: what daemon_ops does, with the daemon as arg (reload is
 * main.c's).  admin_flush is the daemon's one flush (cache, shared
 * segment, nscd map); admin_shared_reset drops what clients map alone,
 * after a change that makes it stale.
 */
void	admin_shared_reset(struct daemon *);
size_t	admin_flush(void *daemon);
size_t	admin_invalidate(void *daemon, const char *name);
void	admin_reset_statistics(void *daemon);
void	admin_status(void *daemon, struct proto_kv_wr *);

#endif
