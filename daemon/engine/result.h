/* SPDX-License-Identifier: MIT */
/* daemon/engine/result.h - each step's answer, in glibc's shape: what the walk weighs and a front end gets. */
#ifndef NAMECACHE_RESULT_H
#define NAMECACHE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "answer.h"
#include "dnssrc.h"
#include "modsrc.h"
#include "proto.h"
#include "walk.h"

struct hosts;
struct result;

/* What a lookup asks, as far as its answer's shape goes. */
enum result_what {
	RESULT_NAME,	/* an address lookup by name: respelled, A and AAAA merged */
	RESULT_ADDR,	/* a name by address */
	RESULT_RR,	/* records of any type (query -t) */
	RESULT_WIRE,	/* records of any type in wire form (the DNS listener) */
};

/* The question an answer is for. */
struct result_to {
	int		 what;		/* enum result_what */
	uint8_t		 family;
	const char	*name;		/* RESULT_NAME, _RR: as the client spelled it */
	const uint8_t	*addr;		/* RESULT_ADDR */
};

/* Caller frees with result_free(); NULL is out of memory. */
struct result *result_new(void);
void	 result_free(struct result *);

/*
 * The answer the last result_* call built: borrowed, valid until the next
 * result_* call on r (it points into r, the hosts index's answer, the
 * cache's records or the walk's own name).  Each call below fills *st
 * with what the walk weighs.
 */
struct answer *result_answer(struct result *r);

/*
 * files: the hosts index h answers to, or NOTFOUND; hosts_error (0 or
 * -errno: the file could not be read) makes it UNAVAIL, as glibc's files
 * module says when it cannot open the file.
 */
void	 result_files(struct result *, const struct result_to *, const struct hosts *h,
	    int hosts_error, struct stage *st);
/*
 * dns: one result, or A's and AAAA's merged (A first, as glibc's dns module
 * gives them).  The names are respelled as the client spelled its question
 * (cand[0..ncand): the names its search tried).  Nothing positive: a
 * failure wins, then NODATA, then NXDOMAIN.  Published until the first of
 * the results it rests on expires; never a stale answer or a failure.
 */
void	 result_dns(struct result *, const struct result_to *,
	    char cand[][PROTO_NAME_MAX + 2], int ncand, const struct dns_result *res,
	    unsigned n, struct stage *st);
/* A module's answer, its names respelled only where they are the question. */
void	 result_module(struct result *, const struct result_to *,
	    const struct modsrc_answer *a, struct stage *st);
/* An answer that is no source's: status and why (never published). */
void	 result_error(struct result *, uint16_t status, const char *why,
	    struct stage *st);
/*
 * The walk ended on UNAVAIL (st): the answer becomes PROTO_UNAVAIL with
 * the last source's h_errno and errno, so the NSS module can give glibc's
 * own ending.  Other stages are left as they are.
 */
void	 result_end_unavail(struct result *, struct stage *st);

#endif
