/* SPDX-License-Identifier: MIT */
/* daemon/front/server.h - the Unix socket: connections, frames, limits. */
#ifndef NAMECACHE_SERVER_H
#define NAMECACHE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

struct event_base;
struct server;
struct conn;
struct server_hold;
struct registry_wr;

/* Per-connection limits; a client that breaks them is dropped. */
#define SERVER_INFLIGHT_MAX	128		/* requests not yet answered */
#define SERVER_OUT_HIGH		(256 * 1024)	/* stop reading above this */
#define SERVER_OUT_MAX		(4 * 1024 * 1024) /* drop above this */
#define SERVER_IDLE_SEC		60		/* idle_timeout's default */
#define SERVER_WRITE_SEC	10		/* a reader this slow is dropped */
#define SERVER_STREAM_MS	20		/* a stream's frames wait at most this */
#define SERVER_STREAM_BATCH	(64 * 1024)	/* or until this many bytes queue */

/* One request, as handed to the dispatcher.  Body borrowed until it returns. */
struct server_req {
	struct conn		*conn;
	struct proto_hdr	 hdr;
	const uint8_t		*body;
	size_t			 body_len;
	struct ucred		 cred;		/* SO_PEERCRED of the client */
	uint64_t		 at_us;		/* read then: µs, CLOCK_MONOTONIC */
};

typedef void server_dispatch_fn(void *arg, struct server_req *req);

/* Caller frees with server_free(); NULL is out of memory. */
struct server *server_new(struct event_base *, server_dispatch_fn *, void *arg);
/*
 * A server whose connections speak nscd's protocol: one request each,
 * dispatched with hdr.type the nscd request type (255 for any above it)
 * and body its key; the reply (server_reply_raw, server_hold_reply_raw)
 * ends the connection.
 */
struct server *server_new_nscd(struct event_base *, server_dispatch_fn *, void *arg);
void	 server_free(struct server *);

/*
 * Listens on the socket systemd passed (sd_listen_fds), or else binds path
 * with mode 0666, refusing if a daemon already answers there.  Returns 0
 * or -errno, with a message for the user in *ret_err (caller frees).
 */
int	 server_listen(struct server *, const char *path, char **ret_err);

void	 server_set_max_clients(struct server *, unsigned);

/*
 * Seconds a connection may stay silent with nothing in flight before it is
 * closed (idle_timeout).  A connection open already takes it when it
 * next resumes reading.
 */
void	 server_set_idle_timeout(struct server *, unsigned sec);

unsigned server_clients(const struct server *);
bool	 server_socket_activated(const struct server *);
/* The path of the socket systemd passed (getsockname): 0, or -errno. */
int	 server_activated_path(const struct server *, char *buf, size_t len);

/*
 * What a socket counts, under the keys of `namecachectl statistics': the
 * server its connections and frames, its dispatcher what each request
 * was (server_count).  Each server keeps its own; both sockets report
 * the same keys, which the registry sums.
 */
enum server_count {
	SERVER_REQUESTS,
	SERVER_LOOKUPS_NAME,
	SERVER_LOOKUPS_ADDR,
	SERVER_LOOKUPS_RR,		/* records of a type (query -t) */
	SERVER_BAD_REQUESTS,		/* malformed: framing or body */
	SERVER_CONNECTIONS,
	SERVER_CONNECTIONS_REJECTED,	/* max_clients */
	SERVER_CONNECTIONS_DROPPED,	/* not reading, or over a limit */
	SERVER_CONNECTIONS_IDLE_CLOSED,
	SERVER_SELF_REFUSED,		/* from the daemon's own pid: it never asks itself */
	SERVER_COUNTS
};
/* For the dispatcher: one more of what, on req's server. */
void	 server_count(const struct server_req *, enum server_count what);
/* The counts, a registry report (registry_add(reg, server_report, srv)). */
void	 server_report(void *server, struct registry_wr *);
/* "clients": connections open now (the namecache socket's alone). */
void	 server_report_clients(void *server, struct registry_wr *);
void	 server_reset_stats(struct server *);

/* Whether the request's client is in group gid (primary or supplementary). */
bool	 server_peer_in_group(const struct server_req *, gid_t gid);

#define SERVER_NO_GROUP	((gid_t)-1)

/*
 * Whether the request's client may run admin operations (SPEC: flush,
 * invalidate, reload, reset statistics, monitor): uid 0, or a member of
 * admin_gid (config's admin_gid; SERVER_NO_GROUP: no admin group), by
 * SO_PEERCRED.  The one check for every socket that takes them.
 */
bool	 server_peer_is_admin(const struct server_req *, gid_t admin_gid);

/* A 64 KiB buffer to build one reply frame in; borrowed until the next call. */
void	*server_scratch(struct server *, size_t *ret_cap);
/* The same buffer, reached from a request or a hold. */
void	*server_req_scratch(const struct server_req *, size_t *ret_cap);
/* The arg its server was made with, reached from a request or a hold. */
void	*server_req_arg(const struct server_req *);
void	*server_hold_arg(const struct server_hold *);

/* On an nscd connection: bytes as they are (none: just close), the last. */
void	 server_reply_raw(struct server_req *, const void *bytes, size_t len);
/* The request's connection, for a reply that carries a descriptor. */
int	 server_req_fd(const struct server_req *);
/* Queues a reply frame to the request's client (copied). */
void	 server_reply(struct server_req *, const void *frame, size_t len);

/*
 * For an answer that comes later: holds req's connection (counted against
 * its in-flight cap) and remembers the request's id and type.  NULL is out
 * of memory.  Every hold ends with exactly one server_hold_reply or
 * server_hold_release, which frees it; if the client has gone meanwhile,
 * the reply is dropped.
 */
struct server_hold *server_hold(struct server_req *);
void	 server_hold_reply(struct server_hold *, const void *frame, size_t len);
void	 server_hold_release(struct server_hold *);
/* On an nscd connection: the reply in glibc's bytes, the connection's last. */
void	 server_hold_reply_raw(struct server_hold *, const void *bytes, size_t len);
uint32_t server_hold_id(const struct server_hold *);
void	*server_hold_scratch(const struct server_hold *, size_t *ret_cap);
uint8_t	 server_hold_type(const struct server_hold *);
bool	 server_hold_alive(const struct server_hold *);

/*
 * A stream of frames on the request's connection, for as long as it
 * lasts (the monitor).  It holds the connection as a hold does, but a
 * client that does not read is never dropped for it: frames past the
 * limit are refused, and the stream's owner counts them lost.  NULL is
 * out of memory.
 */
struct server_stream;
struct server_stream *server_stream(struct server_req *);
/*
 * Queues frame (copied) unless more than limit bytes wait already:
 * 0, -ENOBUFS (not queued), or -EPIPE (the client has gone: end it).
 */
int	 server_stream_send(struct server_stream *, const void *frame, size_t len,
	    size_t limit);
bool	 server_stream_alive(const struct server_stream *);
/* Bytes queued to it, not yet taken by its client. */
size_t	 server_stream_queued(const struct server_stream *);
/* Frees the stream and closes its connection. */
void	 server_stream_end(struct server_stream *);

#endif
