/* SPDX-License-Identifier: MIT */
/* daemon/engine/answer.h - a lookup's answer, typed: what the engine hands every front end. */
#ifndef NAMECACHE_ANSWER_H
#define NAMECACHE_ANSWER_H

/*
 * The engine answers a lookup with a struct answer, never with a front
 * end's bytes: the socket front end writes the namecache protocol from it
 * (front/frame.c), the nscd front end glibc's records (proto/nscd.c), the
 * DNS listener DNS messages (front/dnsquery.c), the monitor its events and
 * the publisher the shared segment's records.  No front end decodes
 * another's wire.
 *
 * An answer borrows everything it points to (the cache's records, the
 * hosts index's answer, the names the engine respelled for this client)
 * for the call that hands it over: a front end that keeps anything copies
 * it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct proto_wr;

/* What the answer holds besides its status. */
enum answer_form {
	ANSWER_NONE,	/* the status alone: a negative answer, or an error and why */
	ANSWER_HOST,	/* a name's or an address's: canonical name, addresses, aliases */
	ANSWER_RECORDS,	/* records of any type in presentation form (query -t) */
	ANSWER_WIRE,	/* DNS records in wire form, a negative answer's SOA among
			   them (the DNS listener's questions) */
};

/* The DNS listener's records, as dnswire.c keeps them. */
struct answer_wire {
	const uint8_t	*rrs;
	size_t		 len;
	uint32_t	 age;		/* seconds since upstream gave them */
	uint32_t	 cap;		/* told with their TTL less age, at most this */
};

struct answer {
	uint16_t	 status;	/* PROTO_*: OK, NOTFOUND, NODATA, ..., UNAVAIL */
	uint8_t		 form;		/* enum answer_form */
	uint8_t		 source;	/* PROTO_SRC_*, as the client is told */
	uint8_t		 cache;		/* enum lookup_cache: how the cache took part */
	uint32_t	 ttl;		/* seconds the client may keep it */
	/*
	 * ANSWER_HOST: canonical name, addresses (PROTO_AF_* each, A's
	 * before AAAA's), aliases, and the NSS module that gave it (origin).
	 * Its ttl and source are the answer's.
	 */
	struct proto_answer host;
	/* ANSWER_RECORDS: each record is told with the answer's ttl. */
	struct proto_records records;
	struct answer_wire wire;	/* ANSWER_WIRE */
	/* PROTO_UNAVAIL: h_errno (-1: NETDB_INTERNAL) and errno of the last source. */
	int		 herrno;
	int		 err;
	const char	*why;		/* an error's reason, for people; NULL: none */
};

/* An answer of status alone (why: a static string, or NULL). */
void	 answer_status(struct answer *ret, uint16_t status, const char *why);

/*
 * The answer of AF_UNSPEC from A's and AAAA's (either may be NULL, not
 * both), as glibc's dns module gives them: A's canonical name and aliases
 * when it has an answer, its addresses, then AAAA's.  Where both have
 * addresses they are copied into buf (cap bytes); else *ret points where
 * the one answer does.  Returns 0, or -EMSGSIZE when they do not fit.
 */
int	 answer_host_merge(const struct proto_answer *a, const struct proto_answer *aaaa,
	    uint8_t *buf, size_t cap, struct proto_answer *ret);

/*
 * The bytes of the body namecache's protocol gives a PROTO_OK answer
 * (ANSWER_HOST or ANSWER_RECORDS), so that one too large for a frame is
 * told as such before anyone writes it.
 */
size_t	 answer_body_size(const struct answer *);

/*
 * Writes the answer's body as namecache's protocol carries it (an answer
 * or records body, docs/protocol.md), with ttl and source as given: the
 * socket's frames, the shared segment's records and the monitor's events
 * all hold this.  Errors stay in w (w->err).
 */
void	 answer_put_body(const struct answer *, uint32_t ttl, uint8_t source,
	    struct proto_wr *w);

#endif
