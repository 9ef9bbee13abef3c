/* SPDX-License-Identifier: MIT */
/* client-lib/client.h - the blocking client core: connect, ask, read one reply. */
#ifndef NAMECACHE_CLIENT_H
#define NAMECACHE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/*
 * libc only: this core is linked into the NSS module, which every process
 * on the host may load.  Sockets are CLOEXEC; SIGPIPE is never raised.
 * All functions are thread-safe and preserve errno.
 */

struct ncc_reply {
	struct proto_hdr hdr;
	uint8_t		*frame;		/* malloc'd, for a reply larger than small */
	const uint8_t	*body;		/* inside small or frame */
	size_t		 body_len;
	uint8_t		 small[1024];	/* a reply of a usual size lands here */
};

/*
 * NAMECACHE_SOCKET (read with secure_getenv), else the built-in path.
 * Borrowed, valid until the environment changes.  The environment is read
 * again only when it changed (client.c says how that is told).
 */
const char *ncc_socket_path(void);
#ifdef NCC_CLIENT_TESTING
/* Calls that read the environment; and forget every kept path. */
unsigned ncc_socket_path_test_reads(void);
void	ncc_socket_path_test_reset(void);
#endif

/* A fresh request id for this process. */
uint32_t ncc_next_id(void);

/*
 * Connects to path without blocking.  Returns 0 with *ret_fd, or -errno:
 * -ENOENT or -ECONNREFUSED when no daemon is there, -EAGAIN when its
 * backlog is full.
 */
int	ncc_connect(const char *path, int *ret_fd);

/*
 * Sends the request frame req[0..len) on fd and reads the reply with the
 * same id, before the CLOCK_MONOTONIC deadline (milliseconds).  Returns 0
 * and fills *ret (caller frees with ncc_reply_free(); the body may point
 * into *ret itself, so *ret must not be copied), or -errno:
 * -ETIMEDOUT, -ECONNRESET when the daemon hung up, -EBADMSG for a reply
 * that does not parse, -EHOSTDOWN when the daemon has stopped beating.
 *
 * With sockpath set, a wait for the reply watches the heartbeat in the
 * daemon's segment beside it: a daemon that is hung (its loop stopped:
 * SIGSTOP, a deadlock) by ncc_shared_hung's rule ends the wait at once; a
 * daemon that beats keeps the wait going, however slow its upstream.
 */
int	ncc_call(int fd, const void *req, size_t len, int64_t deadline_ms,
	    const char *sockpath, struct ncc_reply *ret);

/*
 * As ncc_call, on a connection taken from a small per-process pool (made
 * if none is idle) and given back after a good reply.  A pooled connection
 * the daemon closed meanwhile is retried once on a new one.  Safe across
 * fork(): a child never uses its parent's connections.
 */
int	ncc_pool_call(const char *path, const void *req, size_t len,
	    int timeout_ms, struct ncc_reply *ret);

/*
 * As ncc_pool_call, before an absolute deadline.  With wait_backlog, a
 * daemon whose backlog is full is asked again until the deadline
 * (-ETIMEDOUT) instead of failing with -EAGAIN at once.
 */
int	ncc_pool_call_until(const char *path, const void *req, size_t len,
	    int64_t deadline_ms, bool wait_backlog, struct ncc_reply *ret);

/* ncc_connect, trying again while the backlog is full, until the deadline. */
int	ncc_connect_until(const char *path, int64_t deadline_ms, int *ret_fd);

/* Drops the pool's idle connections (tests, and callers about to exec). */
void	ncc_pool_clear(void);

void	ncc_reply_free(struct ncc_reply *);

int64_t	ncc_now_ms(void);

#endif
