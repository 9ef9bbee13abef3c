/* SPDX-License-Identifier: MIT */
/* client-lib/context.h - a context's blocking round trip, for control.c. */
#ifndef NAMECACHE_CONTEXT_H
#define NAMECACHE_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "namecache.h"

/* A reply to nc_ctx_call: its body, malloc'd (caller frees with free()). */
struct nc_raw_reply {
	int		 error;		/* 0, or why no reply came */
	uint16_t	 status;
	uint8_t		*body;
	size_t		 body_len;
};

/*
 * Sends the request frame req[0..len) on ctx's connection and runs ctx's
 * processing until its reply (other queries' callbacks may run).  Returns
 * 0 with *ret (any status: the caller judges it; a failure's reason is
 * already in namecache_reason()), or NAMECACHE_ERR_UNAVAILABLE, _TIMEOUT,
 * _NOMEM, _PROTOCOL.
 */
int	nc_ctx_call(struct namecache *ctx, const uint8_t *req, size_t len,
	    int timeout_ms, struct nc_raw_reply *ret);

/* Replaces ctx's reason with the one in an error body (or none). */
void	nc_ctx_set_reason(struct namecache *ctx, const uint8_t *body, size_t len);

#endif
