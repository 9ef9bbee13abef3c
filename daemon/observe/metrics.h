/* SPDX-License-Identifier: MIT */
/* daemon/observe/metrics.h - the daemon's counters and histograms in Prometheus' text format. */
#ifndef NAMECACHE_METRICS_H
#define NAMECACHE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "lookup.h"

struct evbuffer;
struct metrics;
struct nsspool;
struct registry;
struct resolver;
struct server_req;

/*
 * Renders registry's numbers, and the families of the modules (nss) and
 * of the upstream servers (resolver): all borrowed, valid until
 * metrics_free().  Caller frees with metrics_free(); NULL is out of memory.
 */
struct metrics *metrics_new(struct registry *registry, const struct nsspool *nss,
	    const struct resolver *resolver);
void	metrics_free(struct metrics *);
/* The shared segment's size in bytes, as configured: 0 (the start) is none. */
void	metrics_set_shared_size(struct metrics *, uint64_t bytes);

/* Counts a lookup answered (the engine's observer calls it). */
void	metrics_lookup(struct metrics *, const struct lookup_done *, const char *source);
struct monitor_db;
/* Counts a lookup of nscd's other databases, answered. */
void	metrics_db_lookup(struct metrics *, const struct monitor_db *);
void	metrics_reset(struct metrics *);

/*
 * Appends the exposition (text format 0.0.4) to out: every counter of
 * `namecachectl statistics', the lookups by front end, the latency
 * histograms (lookups by source and cache status, upstream round trips
 * by server, module calls by module), and build information.  0, or
 * -ENOMEM.
 */
int	metrics_render(void *metrics, struct evbuffer *out);

/* PROTO_METRICS: a page of the text (proto/event.h). */
void	metrics_request(struct metrics *, struct server_req *);

#endif
