/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolver-int.h - the resolver's insides, shared by resolver.c and resolver-sock.c only. */
#ifndef NAMECACHE_RESOLVER_INT_H
#define NAMECACHE_RESOLVER_INT_H

#include <sys/socket.h>

#include <stdbool.h>
#include <stdint.h>

#include <ares.h>
#include <event2/event.h>

#include "resolver.h"
#include "upstat.h"

#define IDPOOL		64	/* random ids drawn at once */
#define READ_AHEAD	7	/* replies read with the one c-ares asks for */
#define UDP_READ_MAX	(4096 + 1)	/* c-ares 1.18's UDP read: MAXENDSSZ + 1 */
#define CHAN_SOCKS	32	/* sockets timed per channel: c-ares 1.18 has a UDP
				   and a TCP one per server; more are not timed */

struct sockev {
	struct sockev	*next;
	int		 fd;
	short		 what;
	bool		 refused;	/* the next read says ECONNREFUSED */
	struct event	*ev;
};

/* An upstream socket, for its round trips. */
struct upsock {
	bool			 used;
	int			 fd;
	struct upstat_sock	 st;
};

struct chan {
	struct chan	*next;
	struct resolver	*r;
	ares_channel	 ares;
	struct event	*timer;
	uint64_t	 timer_at;	/* µs (mono_us) the timer's deadline is no
					   earlier than; 0: not armed */
	struct sockev	*socks;
	unsigned	 pending;
	unsigned	 sent;		/* queries sent on it */
	uint64_t	 generation;	/* the settings it was built with */
	bool		 retired;
	bool		 in_send;	/* a callback now would be synchronous */
	char		*domains[RESOLVER_SEARCH_MAX + 1];
	int		 ndots;
	int		 timeout_ms;
	int		 attempts;
	char		 servers[512];
	uint64_t	 ids[65536 / 64];	/* ids of the queries in flight */
	struct upsock	 us[CHAN_SOCKS];
};

/*
 * The replies one recvmmsg read past the first, while c-ares' read loop
 * (read_udp_packets) runs for one readiness of one UDP socket.
 */
struct readahead {
	int		 fd;		/* the socket read; -1 outside sock_cb */
	bool		 drained;	/* recvmmsg found fewer than it could take */
	unsigned	 n, next;	/* held, handed over */
	struct {
		size_t			 len;
		socklen_t		 fromlen;
		struct sockaddr_storage	 from;
	}		 msg[READ_AHEAD];
	uint8_t		 buf[READ_AHEAD][UDP_READ_MAX];
};

struct resolver {
	struct event_base	*base;
	struct {
		uint64_t	 queries;	/* sent to a server */
		uint64_t	 replies;
		uint64_t	 timeouts;
		uint64_t	 failures;	/* SERVFAIL, REFUSED, bad replies */
	}			 st;
	struct chan		*cur;
	struct chan		*all;
	struct chan		*spare;		/* retired, reset, idle: for reuse */
	unsigned		 nspare;
	unsigned		 nchans;	/* on the lists all and spare */
	struct event		*gc;
	struct watch		*watch;
	char			*resolv_conf;
	struct config_server	 servers[CONFIG_UPSTREAM_MAX];
	unsigned		 nservers;
	uint64_t		 generation;
	struct ares_addr_port_node *srv;	/* the current channel's servers */
	void			(*changed)(void *);
	void			*changed_arg;
	uint16_t		 idpool[IDPOOL];	/* random, not yet used */
	unsigned		 nidpool;
	struct readahead	 ra;
	struct upstat		*upstat;	/* round trips per server */
};

/*
 * resolver-sock.c: what a channel hands c-ares when it is made, so that
 * its sockets live on the loop and its bytes are counted.
 */
/* The channel's timer follows ares_timeout: armed, moved or stopped. */
void	resolver_timer_update(struct chan *);
/* The same after a query's first send, begun at sent_us (mono_us). */
void	resolver_timer_sent(struct chan *, uint64_t sent_us);
/* The channel timer's callback (evtimer_new); arg is the channel. */
void	resolver_timer_cb(evutil_socket_t, short, void *arg);
/* ARES_OPT_SOCK_STATE_CB, with the channel as its data. */
void	resolver_sock_state_cb(void *data, ares_socket_t, int readable, int writable);
/* For ares_set_socket_functions, with the channel as its user data. */
extern const struct ares_socket_functions resolver_sock_funcs;

#endif
