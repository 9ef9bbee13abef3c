/* SPDX-License-Identifier: MIT */
/* daemon/engine/reply.h - builds the reply frame of each step of a walk, in glibc's shape. */
#ifndef NAMECACHE_REPLY_H
#define NAMECACHE_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnssrc.h"
#include "modsrc.h"
#include "proto.h"
#include "walk.h"

struct hosts;
struct reply;

/* What a lookup asks, as far as its reply's shape goes. */
enum reply_what {
	REPLY_NAME,	/* an address lookup by name: respelled, A and AAAA merged */
	REPLY_ADDR,	/* a name by address */
	REPLY_RR,	/* records of any type (query -t) */
	REPLY_WIRE,	/* records of any type in wire form (the DNS listener) */
};

/* The request a reply answers. */
struct reply_to {
	uint8_t		 type;		/* PROTO_* request type */
	uint32_t	 id;
	int		 what;		/* enum reply_what */
	uint8_t		 family;
	const char	*name;		/* REPLY_NAME, _RR: as the client spelled it */
	const uint8_t	*addr;		/* REPLY_ADDR */
};

/* Caller frees with reply_free(); NULL is out of memory. */
struct reply *reply_new(void);
void	 reply_free(struct reply *);

/*
 * The frame the last reply_* call built: borrowed, valid until the next
 * reply_* call on r.  Each call below fills *st with what the walk weighs,
 * st->len the frame's length.
 */
const uint8_t *reply_frame(const struct reply *r);

/*
 * files: the hosts index h answers to, or NOTFOUND; hosts_error (0 or
 * -errno: the file could not be read) makes it UNAVAIL, as glibc's files
 * module says when it cannot open the file.
 */
void	 reply_files(struct reply *, const struct reply_to *, const struct hosts *h,
	    int hosts_error, struct stage *st);
/*
 * dns: one result, or A's and AAAA's merged (A first, as glibc's dns module
 * gives them).  The names are respelled as the client spelled its question
 * (cand[0..ncand): the names its search tried).  Nothing positive: a
 * failure wins, then NODATA, then NXDOMAIN.  Published until the first of
 * the results it rests on expires; never a stale answer or a failure.
 */
void	 reply_dns(struct reply *, const struct reply_to *,
	    char cand[][PROTO_NAME_MAX + 2], int ncand, const struct dns_result *res,
	    unsigned n, struct stage *st);
/* A module's answer, its names respelled only where they are the question. */
void	 reply_module(struct reply *, const struct reply_to *,
	    const struct modsrc_answer *a, struct stage *st);
/* A reply that is no source's answer: status and why (never published). */
void	 reply_error(struct reply *, const struct reply_to *, uint16_t status,
	    const char *why, struct stage *st);
/*
 * The walk ended on UNAVAIL (st): the reply becomes PROTO_UNAVAIL with the
 * last source's h_errno and errno, so the NSS module can give glibc's own
 * ending.  Other stages are left as they are.
 */
void	 reply_end_unavail(struct reply *, const struct reply_to *, struct stage *st);

#endif
