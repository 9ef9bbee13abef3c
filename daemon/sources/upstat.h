/* SPDX-License-Identifier: MIT */
/* daemon/sources/upstat.h - round trips per upstream server, from the bytes its sockets carry. */
#ifndef NAMECACHE_UPSTAT_H
#define NAMECACHE_UPSTAT_H

#include <sys/socket.h>
#include <sys/uio.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histo.h"

/*
 * The caller says what its upstream sockets do (opened, connected to a
 * server, bytes sent, bytes received, closed), with the time of each as a
 * parameter, and reads what upstat counted per server.  No I/O, no clock
 * of its own, nothing allocated after upstat_new(); single-threaded (the
 * caller's loop).
 */
struct upstat;

#define UPSTAT_SERVERS_MAX	16	/* servers counted at once: upstat.c says who gives way */
#define UPSTAT_STAMPS		4096	/* queries awaiting a reply, at most */

struct upstat_server {
	char		server[64];	/* "127.0.0.1:53", "[::1]:5353" */
	uint64_t	queries;	/* sent to it, retransmissions included */
	uint64_t	replies;	/* matched to a query sent */
	struct histo	rtt;		/* send to reply, µs */
};

/* Where a stream of length-prefixed messages is between two calls. */
struct upstat_scan {
	uint8_t		hdr[4];		/* the length, then the id */
	uint8_t		have;		/* of hdr */
	uint16_t	left;		/* of the message, past hdr */
};

/*
 * One socket, kept by the caller beside its descriptor from upstat_open()
 * to upstat_close().  Its fields are upstat.c's.  A zeroed one is closed:
 * nothing on it counts.
 */
struct upstat_sock {
	uint32_t		serial;	/* never reused; 0: closed */
	int			srv;	/* server slot; -1: not counted */
	bool			tcp;
	struct upstat_scan	out, in;
};

/* Caller frees with upstat_free(); NULL is out of memory. */
struct upstat	*upstat_new(void);
void		 upstat_free(struct upstat *);

/* s (closed) is a new socket, a stream (tcp) or datagrams. */
void	 upstat_open(struct upstat *, struct upstat_sock *s, bool tcp);

/*
 * s is connected to the server at sa: what it carries counts for that
 * server from now on, when the server has a slot or can take one.  Later
 * calls for s change nothing.
 */
void	 upstat_connect(struct upstat *, struct upstat_sock *s,
	    const struct sockaddr *sa, socklen_t len);

/*
 * n bytes went out on s at now (µs, any monotonic clock), the first n of
 * iov[0..niov): a datagram, or a piece of the stream.  Each query they end
 * is stamped with now; one sent again is stamped again.
 */
void	 upstat_sent(struct upstat *, struct upstat_sock *s,
	    const struct iovec *iov, int niov, size_t n, uint64_t now);

/* The n bytes at p came in on s at now: each reply they end takes its stamp. */
void	 upstat_received(struct upstat *, struct upstat_sock *s,
	    const void *p, size_t n, uint64_t now);

/*
 * s is closed at now, and zeroed: the stamps of its queries match nothing
 * any more, and its server may be idle from now.
 */
void	 upstat_close(struct upstat *, struct upstat_sock *s, uint64_t now);

/*
 * Calls fn for each server that was sent a query since the start or the
 * last upstat_reset().  The stats are borrowed for the call; fn must not
 * call upstat_*.
 */
void	 upstat_foreach(const struct upstat *,
	    void (*fn)(void *arg, const struct upstat_server *), void *arg);

/*
 * Counts go back to 0 and stamps are dropped (a reply to a query sent
 * before would count alone); servers with no socket open lose their slot.
 */
void	 upstat_reset(struct upstat *);

/* Stamps held, of live sockets and of closed ones not yet aged out. */
unsigned upstat_stamps(const struct upstat *);

#endif
