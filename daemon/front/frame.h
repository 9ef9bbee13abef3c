/* SPDX-License-Identifier: MIT */
/* daemon/front/frame.h - an engine's answer as the namecache protocol's reply frame. */
#ifndef NAMECACHE_FRAME_H
#define NAMECACHE_FRAME_H

#include <stddef.h>
#include <stdint.h>

struct answer;

/*
 * The reply to a request of type `type' with id `id' (docs/protocol.md),
 * written into buf (cap bytes, PROTO_FRAME_MAX at most are used): an
 * answer or records body for PROTO_OK, the DNS listener's records for
 * ANSWER_WIRE, PROTO_UNAVAIL's h_errno and errno, an error's reason.  A
 * frame that does not fit is PROTO_TOOBIG with no body.  Returns its
 * length (0 only when cap cannot hold a header).
 */
size_t	frame_answer(uint8_t *buf, size_t cap, uint8_t type, uint32_t id,
	    const struct answer *a);

#endif
