/* SPDX-License-Identifier: MIT */
/* daemon/stats.h - the daemon's counters, as namecachectl statistics shows them. */
#ifndef NAMECACHE_STATS_H
#define NAMECACHE_STATS_H

#include <stdint.h>

struct proto_kv_wr;

/* Single-threaded: only the event loop touches these. */
struct stats {
	uint64_t	requests;
	uint64_t	lookups_name;
	uint64_t	lookups_addr;
	uint64_t	hosts_answers;
	uint64_t	not_found;
	uint64_t	bad_requests;
	uint64_t	errors;
	uint64_t	connections;
	uint64_t	connections_rejected;
	uint64_t	connections_dropped;
	uint64_t	connections_idle_closed;
	uint64_t	hosts_reloads;
	uint64_t	hosts_reload_failures;
};

void	stats_write(const struct stats *, struct proto_kv_wr *);

#endif
