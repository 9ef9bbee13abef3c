/* SPDX-License-Identifier: MIT */
/* daemon/observe/stats.h - the daemon's counters, as namecachectl statistics shows them. */
#ifndef NAMECACHE_STATS_H
#define NAMECACHE_STATS_H

#include <stdint.h>

struct proto_kv_wr;

/*
 * The counters of the server, the hosts source and the resolver.  The
 * lookup engine's are its own (lookup_write_stats).  Single-threaded:
 * only the event loop touches these.
 */
struct stats {
	uint64_t	requests;
	uint64_t	lookups_name;
	uint64_t	lookups_addr;
	uint64_t	lookups_rr;
	uint64_t	bad_requests;
	uint64_t	connections;
	uint64_t	connections_rejected;
	uint64_t	connections_dropped;
	uint64_t	connections_idle_closed;
	uint64_t	hosts_reloads;
	uint64_t	hosts_reload_failures;
	uint64_t	hosts_reloads_unchanged;	/* the same bytes: kept */
	uint64_t	upstream_queries;	/* sent to a server */
	uint64_t	upstream_replies;
	uint64_t	upstream_timeouts;
	uint64_t	upstream_failures;	/* SERVFAIL, REFUSED, bad replies */
	uint64_t	nsswitch_reloads;	/* the hosts line read again */
	uint64_t	heap_trims;		/* heartbeats that gave memory back */
	uint64_t	heap_trim_max_usec;	/* the longest heartbeat, its trim in */
};

void	stats_write(const struct stats *, struct proto_kv_wr *);

#endif
