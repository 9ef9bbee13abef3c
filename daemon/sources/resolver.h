/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolver.h - c-ares on the libevent loop: queries upstream, never blocks. */
#ifndef NAMECACHE_RESOLVER_H
#define NAMECACHE_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "histo.h"

struct event_base;
struct registry_wr;
struct resolver;

/*
 * Called exactly once per query, never from inside resolver_query().
 * status is 0 with a reply (NOERROR or NXDOMAIN: the caller reads it), or
 * -ETIMEDOUT when no server answered, -EIO when the servers failed
 * (SERVFAIL, REFUSED, NOTIMP, FORMERR), -EBADMSG for bad replies,
 * -ECONNREFUSED, -ENOMEM, or -ECANCELED at shutdown.  reply is borrowed for
 * the call.
 */
typedef void resolver_cb(void *arg, int status, const uint8_t *reply, size_t len);

#define RESOLVER_SEARCH_MAX	6

struct resolver_info {
	const char	*resolv_conf;
	char		 servers[512];	/* "127.0.0.1:53 [::1]:5353" */
	char		 search[512];	/* "example.com corp.example" */
	int		 ndots;
	int		 timeout_ms;
	int		 attempts;
	uint64_t	 generation;	/* channels built so far */
	unsigned	 in_flight;
};

/* Caller frees with resolver_free(); NULL is out of memory. */
struct resolver *resolver_new(struct event_base *);
void	 resolver_free(struct resolver *);

/*
 * Builds a new c-ares channel from resolv_conf (nameservers, search,
 * ndots, timeout, attempts), with servers[0..n) replacing its nameservers
 * when n > 0, and watches resolv_conf to do it again when it changes.
 * Queries in flight finish on the old channel.  Returns 0, or -errno with
 * a message in *ret_err (caller frees).
 */
int	 resolver_configure(struct resolver *, const char *resolv_conf,
	    const struct config_server *servers, unsigned n, char **ret_err);

/* Rebuilds the channel from the same settings (SIGHUP, resolv.conf change). */
int	 resolver_rebuild(struct resolver *);

/*
 * Sends one query for (name, type, class IN), no search list.  Returns 0,
 * and cb will be called; or -errno, and it will not.
 */
int	 resolver_query(struct resolver *, const char *name, uint16_t type,
	    resolver_cb *cb, void *arg);

/* The search list and ndots of the current channel.  Borrowed. */
int	 resolver_search(const struct resolver *, const char *const **ret_domains,
	    int *ret_ndots);

/* Called after a rebuild that changed the search list or ndots. */
void	 resolver_on_change(struct resolver *, void (*fn)(void *), void *arg);

void	 resolver_get_info(const struct resolver *, struct resolver_info *ret);

/*
 * Per upstream server, kept across channel rebuilds, for at most
 * RESOLVER_SERVERS_MAX servers (upstat.c says which give way).  A reply
 * counts when its id matches a query sent on the same socket and not yet
 * answered; a retransmission restarts the clock.
 */
#define RESOLVER_SERVERS_MAX	16

struct resolver_server_stats {
	char		server[64];	/* "127.0.0.1:53", "[::1]:5353" */
	uint64_t	queries;	/* sent to it, retransmissions included */
	uint64_t	replies;	/* matched to a query sent */
	struct histo	rtt;		/* send to reply, µs */
};

/*
 * Calls fn for each upstream server queried since the start or the last
 * reset, on the loop's thread.  The stats are borrowed for the call; fn
 * must not call resolver_*.
 */
void	 resolver_foreach_server(const struct resolver *,
	    void (*fn)(void *arg, const struct resolver_server_stats *), void *arg);
void	 resolver_reset_server_stats(struct resolver *);
/* Its counters of queries and their outcomes, a registry report; and back to zero. */
void	 resolver_report(void *resolver, struct registry_wr *);
void	 resolver_reset_stats(struct resolver *);

#endif
