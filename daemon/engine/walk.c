/* SPDX-License-Identifier: MIT */
/* daemon/engine/walk.c - the walk of a hosts line: glibc's statuses and actions, a pure state machine. */

/*
 * glibc's getaddrinfo, gethostbyname2_r and gethostbyaddr_r ask each
 * source of the line in turn; each answers SUCCESS, NOTFOUND, UNAVAIL or
 * TRYAGAIN, and the source's action for that status says return or go on.
 * At the end of the line, the last status is the answer.  This file knows
 * only that rule, and how long the walk's answer may be published: until
 * the first of the answers it rests on expires, and never if one of them
 * was not publishable.  It asks nothing itself: lookup.c asks the sources.
 */
#include <netdb.h>
#include <errno.h>
#include <string.h>

#include "proto.h"
#include "walk.h"

void
walk_begin(struct walk_state *ws, const struct walk_line *line)
{
	/* The line's used sources only: walk_begin runs once a lookup. */
	ws->line.n = line->n;
	memcpy(ws->line.src, line->src, line->n * sizeof(line->src[0]));
	ws->i = 0;
	ws->expires = INT64_MAX;
	ws->ttl_full = UINT32_MAX;
	ws->publishable = true;
	ws->exact = false;
}

static void
end(const struct walk_state *ws, const struct stage *st, bool publishable,
    struct walk_end *ret)
{
	uint32_t ttl = st->ttl_full < ws->ttl_full ? st->ttl_full : ws->ttl_full;

	memset(ret, 0, sizeof(*ret));
	ret->publish = publishable && ws->publishable && st->expires != 0;
	ret->exact = st->exact || ws->exact;
	ret->expires = st->expires < ws->expires ? st->expires : ws->expires;
	ret->ttl = ttl == UINT32_MAX ? 0 : ttl;
}

int
walk_step(struct walk_state *ws, const struct stage *st, struct walk_end *ret_end)
{
	int act;

	if (st->status == PROTO_TOOBIG || st->status == PROTO_INTERNAL ||
	    st->status == PROTO_BUSY || ws->i >= ws->line.n) {
		end(ws, st, false, ret_end);
		return WALK_DONE;
	}
	act = ws->line.src[ws->i].action[st->nsw];
	ws->i++;
	if (act != NSW_CONTINUE || ws->i >= ws->line.n) {
		end(ws, st, true, ret_end);
		return WALK_DONE;
	}
	/* Going on: what was learnt here bounds how long the answer holds. */
	if (st->expires == 0)
		ws->publishable = false;
	else if (st->expires < ws->expires)
		ws->expires = st->expires;
	if (st->ttl_full < ws->ttl_full)
		ws->ttl_full = st->ttl_full;
	ws->exact |= st->exact;
	return WALK_ASK;
}

void
walk_end_empty(struct walk_state *ws, struct walk_end *ret_end)
{
	memset(ret_end, 0, sizeof(*ret_end));
	ws->publishable = false;
}

void
walk_stage_unavailable(struct stage *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->nsw = NSW_UNAVAIL;
	ret->status = PROTO_UNAVAIL;
	ret->herrno = NETDB_INTERNAL;
	ret->err = EBUSY;
	ret->expires = WALK_FOREVER;
	ret->ttl_full = UINT32_MAX;
}
