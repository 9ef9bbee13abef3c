/* SPDX-License-Identifier: MIT */
/* daemon/daemon.h - namecached's parts as main.c holds them: private to main.c. */
#ifndef NAMECACHE_DAEMON_H
#define NAMECACHE_DAEMON_H

#include <stdint.h>
#include <time.h>

struct config;
struct dnslisten;
struct event_base;
struct hostsfile;
struct httpmetrics;
struct lookup;
struct metrics;
struct monitor;
struct nscdsrv;
struct nsspool;
struct protocol;
struct registry;
struct resolver;
struct shm;
struct watch;

/*
 * No module reads this: each is given the parts it needs when it is made,
 * and the front ends reach the daemon as a whole through daemon_ops
 * (protocol.h).
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
	struct {
		uint64_t	 nsswitch_reloads;	/* the hosts line read again */
		uint64_t	 heap_trims;	/* heartbeats that gave memory back */
		uint64_t	 heap_trim_max_usec;	/* the longest heartbeat */
	}			 counters;	/* main.c's own */
	struct timespec		 started;	/* CLOCK_MONOTONIC */
};

#endif
