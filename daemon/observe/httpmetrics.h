/* SPDX-License-Identifier: MIT */
/* daemon/observe/httpmetrics.h - GET /metrics over HTTP (metrics_listen), with libevent's evhttp. */
#ifndef NAMECACHE_HTTPMETRICS_H
#define NAMECACHE_HTTPMETRICS_H

#include <stdint.h>

struct event_base;
struct evbuffer;
struct config_server;
struct httpmetrics;

/* Limits on what a client of the endpoint may hold. */
#define HTTPMETRICS_CONNS	16		/* connections at once; more are closed */
#define HTTPMETRICS_DEADLINE	5		/* seconds from accept to the answer */
#define HTTPMETRICS_HEADERS	8192		/* bytes of request line and headers */

/* Appends the exposition (Prometheus text format 0.0.4) to out: 0, or -ENOMEM. */
typedef int httpmetrics_render_fn(void *arg, struct evbuffer *out);

struct httpmetrics_stats {
	uint64_t	requests;	/* GET /metrics answered 200 */
	uint64_t	not_found;	/* 404: another path */
	uint64_t	refused;	/* connections closed at once: too many open */
	uint64_t	bad;		/* other methods (405), malformed or over the limits */
};

/*
 * Binds addr (family AF_INET or AF_INET6, addr bytes, port) and serves
 * GET /metrics with render(arg, out), called on the loop for each request.
 * render and arg are borrowed, valid until httpmetrics_free().  Caller frees
 * with httpmetrics_free().  NULL with a message for the user in *ret_err
 * (caller frees with free()) when the address cannot be bound, e.g. the
 * port is taken; NULL with *ret_err NULL when out of memory.
 */
struct httpmetrics *httpmetrics_new(struct event_base *, const struct config_server *addr,
	    httpmetrics_render_fn *render, void *arg, char **ret_err);
/* Closes the socket and every connection at once. */
void	httpmetrics_free(struct httpmetrics *);
void	httpmetrics_get_stats(const struct httpmetrics *, struct httpmetrics_stats *ret);

#endif
