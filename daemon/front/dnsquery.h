/* SPDX-License-Identifier: MIT */
/* daemon/front/dnsquery.h - the DNS listener's insides, shared by its two files. */
#ifndef NAMECACHE_DNSQUERY_H
#define NAMECACHE_DNSQUERY_H

/*
 * dnslisten.c has the sockets (UDP batches, TCP connections) and the
 * listener's life; dnsquery.c a query's, from its bytes to its reply,
 * through the engine.  Private to those two.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/util.h>

#include "config.h"
#include "dnslisten.h"
#include "dnswire.h"
#include "listener.h"

struct lookup;

#define DL_NTYPES	11		/* types counted apart, "other" last */
#define DL_NRCODES	7		/* rcodes 0 to 5, then "other" */
#define UDP_IN_MAX	4096		/* a longer datagram is dropped */
#define SRC_SLOTS	4096		/* pending counts by source, hashed */
#define ANY_TTL		3600		/* the HINFO that answers ANY (RFC 8482) */

enum stage {
	ST_WIRE,	/* the records upstream gave: the answer */
	ST_LINE,	/* the hosts line's walk */
	ST_SOA,		/* negative: upstream's own, for its rcode and SOA */
};

enum { T_UDP, T_TCP };

struct dlconn;

/* One query, from its datagram or message to its reply. */
struct dlq {
	struct dnslisten	*dl;
	struct dlq		*next;		/* on the deferred list */
	struct dlconn		*conn;		/* TCP; NULL: UDP */
	int			 fd;		/* UDP: the socket it came on */
	struct sockaddr_storage	 peer;
	socklen_t		 peer_len;
	unsigned		 src;		/* its slot in srcpend */
	size_t			 query_len;
	int			 stage;		/* enum stage */
	uint8_t			 line_rcode;	/* the line's negative: NXDOMAIN or NOERROR */
	bool			 held;		/* on the heap, counted as pending */
	uint8_t			 addr[16];	/* PTR: the address asked */
	uint8_t			 family;
	struct dnswire_query	 q;
};

struct dlconn {
	struct dnslisten	*dl;
	struct dlconn		*prev, *next;
	struct bufferevent	*bev;		/* NULL once closed */
	struct sockaddr_storage	 peer;
	socklen_t		 peer_len;
	unsigned		 refs;		/* open, and each held query */
	unsigned		 inflight;
	bool			 paused;	/* reading stopped by the limits */
};

struct dlsock {
	struct dnslisten	*dl;
	struct event		*ev;
	int			 fd;
	bool			 tcp;
	bool			 passed;	/* by systemd */
	char			 name[64];	/* "udp 127.0.0.1:53" */
};

struct dnslisten_stats {
	uint64_t	queries[2];		/* by transport */
	uint64_t	types[DL_NTYPES];	/* dnslisten.c: type_names */
	uint64_t	rcodes[DL_NRCODES];	/* dnslisten.c: rcode_names */
	uint64_t	refused;		/* sources outside dns_allow */
	uint64_t	truncated;
	uint64_t	malformed;
	uint64_t	dropped;		/* no reply: unreadable, oversize, unsent */
	uint64_t	busy;			/* SERVFAIL: too many pending */
	uint64_t	tcp_accepted;
	uint64_t	tcp_rejected;		/* past dns_tcp_clients */
	uint64_t	tcp_timeouts;
};


struct dnslisten {
	struct event_base	*base;
	struct lookup		*lk;
	struct dlsock		 socks[2 * CONFIG_DNS_LISTEN_MAX + LISTENER_DNS_PASSED_MAX];
	unsigned		 nsocks;
	struct config_prefix	 allow[CONFIG_DNS_ALLOW_MAX];
	unsigned		 nallow;
	int			 sources;	/* enum config_dns_sources */
	unsigned		 max_pending, max_pending_source;
	unsigned		 pending;
	uint16_t		 srcpend[SRC_SLOTS];
	uint64_t		 src_key[2];
	unsigned		 max_conns, nconns;
	struct timeval		 idle;
	struct dlconn		*conns;
	struct dlq		*defer_head, **defer_tail;
	struct event		*defer_ev;
	struct dnslisten_stats	 st;
	/*
	 * A recvmmsg batch: datagrams in, replies out.  A reply to a query
	 * of the batch answered during its call is written into out[nout]
	 * and sent with the batch's sendmmsg; in_batch says a batch is being
	 * read.  Every buffer lives from the read to the send.
	 */
	bool			 in_batch;
	unsigned		 nout;
	struct mmsghdr		 imsg[DNSLISTEN_UDP_BATCH], omsg[DNSLISTEN_UDP_BATCH];
	struct iovec		 iiov[DNSLISTEN_UDP_BATCH], oiov[DNSLISTEN_UDP_BATCH];
	struct sockaddr_storage	 ipeer[DNSLISTEN_UDP_BATCH], opeer[DNSLISTEN_UDP_BATCH];
	uint8_t			 in[DNSLISTEN_UDP_BATCH][UDP_IN_MAX];
	uint8_t			 out[DNSLISTEN_UDP_BATCH][DNSWIRE_EDNS_SIZE];
	/* A TCP message read, and a reply (its length prefix first): each
	 * within one call. */
	uint8_t			 tcp_in[DNSWIRE_TCP_LIMIT];
	uint8_t			 scratch[2 + DNSWIRE_TCP_LIMIT];
};

/* dnsquery.c */

/* A query read from buf; q has its transport (conn or fd) and peer. */
void	dnsquery_in(struct dnslisten *, struct dlq *q, const uint8_t *buf, size_t len);
/* The stages deferred to the loop run (dl->defer_ev's callback). */
void	dnsquery_deferred(evutil_socket_t fd, short what, void *arg);
/* A held query's end without a reply (shutdown). */
void	dnsquery_release(struct dlq *);

/* dnslisten.c */

/* One reference fewer to c: freed at none. */
void	dlconn_unref(struct dlconn *c);

#endif
