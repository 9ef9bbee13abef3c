/* SPDX-License-Identifier: MIT */
/* daemon/observe/httpmetrics.h - GET /metrics over HTTP (metrics_listen), with libevent's evhttp. */
#ifndef NAMECACHE_HTTPMETRICS_H
#define NAMECACHE_HTTPMETRICS_H

#include <stdint.h>

struct event_base;
struct evbuffer;
struct config_server;
struct httpmetrics;
struct registry_wr;

/* Limits on what a client of the endpoint may hold. */
#define HTTPMETRICS_CONNS	16		/* connections at once; more are closed */
#define HTTPMETRICS_DEADLINE	5		/* seconds from accept to the answer */
#define HTTPMETRICS_HEADERS	8192		/* bytes of request line and headers */

/* Appends the exposition (Prometheus text format 0.0.4) to out: 0, or -ENOMEM. */
typedef int httpmetrics_render_fn(void *arg, struct evbuffer *out);

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
/* Its counters (requests answered, refused, ...), a registry report. */
void	httpmetrics_report(void *httpmetrics, struct registry_wr *);

#endif
