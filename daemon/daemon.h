/* SPDX-License-Identifier: MIT */
/* daemon/daemon.h - what the parts of namecached share; main.c owns it. */
#ifndef NAMECACHE_DAEMON_H
#define NAMECACHE_DAEMON_H

#include <stdint.h>
#include <time.h>

#include "server.h"

struct config;
struct event_base;
struct hostsfile;
struct lookup;
struct resolver;
struct shm;
struct nsspool;
struct nscdsrv;
struct dnslisten;
struct watch;
struct monitor;
struct metrics;
struct httpmetrics;
struct proto_kv_wr;
struct registry;

struct daemon {
	struct event_base	*base;
	struct config		*config;
	const char		*config_path;
	struct hostsfile		*hosts;
	struct resolver		*resolver;
	struct nsspool		*nss;
	struct watch		*nsswitch_watch;
	char			 hosts_line[1024];	/* as walked, namecache out */
	char			 nsswitch_error[256];
	struct lookup		*lookup;
	struct shm		*shm;		/* NULL: shared = no */
	struct nscdsrv		*nscd;		/* NULL: no nscd socket */
	struct dnslisten	*dns;		/* NULL: no DNS listener */
	struct server		*server;
	struct monitor		*monitor;	/* every lookup, as answered */
	struct metrics		*metrics;
	struct httpmetrics	*http;		/* NULL: metrics_listen is off */
	void			(*reload)(void);	/* as SIGHUP */
	void			(*shared_reset)(void);	/* published answers go */
	size_t			(*flush)(void);		/* every answer goes: the cache
							   too; returns its count */
	int64_t			(*clock)(void *);	/* ms, CLOCK_MONOTONIC */
	struct registry		*registry;	/* every module's numbers */
	struct {
		uint64_t	 nsswitch_reloads;	/* the hosts line read again */
		uint64_t	 heap_trims;	/* heartbeats that gave memory back */
		uint64_t	 heap_trim_max_usec;	/* the longest heartbeat, its trim in */
	}			 counters;	/* main.c's own */
	struct timespec		 started;	/* CLOCK_MONOTONIC */
};

/* The server's dispatcher: answers one request (daemon/front/protocol.c). */
void	protocol_request(void *daemon, struct server_req *req);
/* Every counter `namecachectl statistics' shows (the metrics render them too). */
void	protocol_statistics(struct daemon *, struct proto_kv_wr *);

#endif
