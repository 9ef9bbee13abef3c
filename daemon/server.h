/* SPDX-License-Identifier: MIT */
/* daemon/server.h - the Unix socket: connections, frames, limits. */
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
struct stats;

/* Per-connection limits; a client that breaks them is dropped. */
#define SERVER_INFLIGHT_MAX	128		/* requests not yet answered */
#define SERVER_OUT_HIGH		(256 * 1024)	/* stop reading above this */
#define SERVER_OUT_MAX		(4 * 1024 * 1024) /* drop above this */
#define SERVER_IDLE_SEC		60		/* idle connections are closed */
#define SERVER_WRITE_SEC	10		/* a reader this slow is dropped */

/* One request, as handed to the dispatcher.  Body borrowed until it returns. */
struct server_req {
	struct conn		*conn;
	struct proto_hdr	 hdr;
	const uint8_t		*body;
	size_t			 body_len;
	struct ucred		 cred;		/* SO_PEERCRED of the client */
};

typedef void server_dispatch_fn(void *arg, struct server_req *req);

/* Caller frees with server_free(); NULL is out of memory. */
struct server *server_new(struct event_base *, struct stats *,
	    server_dispatch_fn *, void *arg);
void	 server_free(struct server *);

/*
 * Listens on the socket systemd passed (sd_listen_fds), or else binds path
 * with mode 0666, refusing if a daemon already answers there.  Returns 0
 * or -errno, with a message for the user in *ret_err (caller frees).
 */
int	 server_listen(struct server *, const char *path, char **ret_err);

void	 server_set_max_clients(struct server *, unsigned);
unsigned server_clients(const struct server *);
bool	 server_socket_activated(const struct server *);

/* A 64 KiB buffer to build one reply frame in; borrowed until the next call. */
void	*server_scratch(struct server *, size_t *ret_cap);

/* Queues a reply frame to the request's client (copied). */
void	 server_reply(struct server_req *, const void *frame, size_t len);

#endif
