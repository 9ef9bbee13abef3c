/* SPDX-License-Identifier: MIT */
/* daemon/observe/monitor.h - every lookup as it is answered: to monitors, to the query log. */
#ifndef NAMECACHE_MONITOR_H
#define NAMECACHE_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lookup.h"

struct monitor;
struct nsspool;
struct registry_wr;
struct server_req;

#define MONITOR_MAX		16		/* monitors at once */
#define MONITOR_QUEUE_MAX	(256 * 1024)	/* bytes queued to one, at most */

/* Words of the names the module ids stand for: borrowed. */
struct monitor *monitor_new(const struct nsspool *);
/*
 * monitor_quiet: its watchers ended and its query log off, so what ends
 * after it (the lookups a stop cancels) reports nothing; at a stop, before
 * the parts whose lookups end, and monitor_free after them.
 */
void	monitor_quiet(struct monitor *);
void	monitor_free(struct monitor *);
void	monitor_set_log(struct monitor *, bool log_queries);

/*
 * A PROTO_MONITOR request, its client already checked as admin: replies
 * with the header, then streams every lookup to it.  0, or -EBUSY (too
 * many monitors) or -ENOMEM, with nothing replied.
 */
int	monitor_subscribe(struct monitor *, struct server_req *);
unsigned monitor_count(const struct monitor *);

/* The engine's observer (lookup_set_observer). */
void	monitor_lookup(struct monitor *, const struct lookup_done *);

/* A lookup of nscd's other databases (passwd, group, services, netgroup), answered. */
struct monitor_db {
	const struct lookup_client *client;
	int32_t		 type;		/* glibc's request type */
	const uint8_t	*key;		/* as glibc sent it */
	size_t		 key_len;
	uint8_t		 cache;		/* PROTO_CACHE_HIT, _MISS, _COALESCED */
	const char	*source;	/* the module that said; NULL: the map */
	uint16_t	 status;	/* PROTO_OK, _NOTFOUND, _TRYAGAIN (no answer) */
	uint64_t	 usec;
	uint64_t	 end_us;	/* µs, CLOCK_MONOTONIC */
};
void	monitor_db_lookup(struct monitor *, const struct monitor_db *);

/* Once a second: losses told to monitors that read again, gone ones freed. */
void	monitor_tick(struct monitor *);

/* The source's word (the others are proto/event.h's): "files", "dns", the module's name, "none". */
const char *monitor_source_str(const struct monitor *, const struct lookup_done *);

/* Monitors attached, events queued and lost, lines logged: a registry report. */
void	monitor_report(void *monitor, struct registry_wr *);
void	monitor_reset_stats(struct monitor *);

#endif
