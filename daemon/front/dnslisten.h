/* SPDX-License-Identifier: MIT */
/* daemon/front/dnslisten.h - the DNS listener: UDP and TCP, one more front end on the engine. */
#ifndef NAMECACHE_DNSLISTEN_H
#define NAMECACHE_DNSLISTEN_H

#include <stdint.h>

struct config;
struct event_base;
struct lookup;
struct proto_kv_wr;
struct dnslisten;
struct registry_wr;

/* Per-connection limits over TCP (RFC 7766); a client past them waits. */
#define DNSLISTEN_TCP_INFLIGHT	64		/* queries read, not yet answered */
#define DNSLISTEN_TCP_OUT_HIGH	(128 * 1024)	/* stop reading above this */
#define DNSLISTEN_UDP_BATCH	32		/* datagrams per recvmmsg/sendmmsg */

/*
 * Opens the sockets of config's dns_listen, or those systemd passed
 * (namecache-dns.socket), UDP and TCP on each address.  NULL with a
 * message for the user in *ret_err (caller frees) when one cannot be
 * opened; NULL with *ret_err NULL when there is nothing to listen on.
 */
struct dnslisten *dnslisten_new(struct event_base *, struct lookup *,
	    const struct config *, char **ret_err);
void	 dnslisten_free(struct dnslisten *);
/* dns_allow, dns_sources and the limits, from a reloaded configuration. */
void	 dnslisten_configure(struct dnslisten *, const struct config *);
/* Warns when upstream (resolver_get_info's servers) names the listener itself. */
void	 dnslisten_check_upstream(const struct dnslisten *, const char *servers);
void	 dnslisten_status(const struct dnslisten *, struct proto_kv_wr *);
/* Its counters (queries, types, rcodes, TCP), a registry report. */
void	 dnslisten_report(void *dnslisten, struct registry_wr *);
void	 dnslisten_reset_stats(struct dnslisten *);

#endif
