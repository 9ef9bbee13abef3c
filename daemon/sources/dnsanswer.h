/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsanswer.h - a DNS reply turned into what the cache keeps: status, TTL, answer body. */
#ifndef NAMECACHE_DNSANSWER_H
#define NAMECACHE_DNSANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnsmsg.h"

struct proto_wr;

#define DNSANSWER_CHAIN_MAX	16	/* CNAME links followed */
#define DNSANSWER_ADDRS_MAX	512	/* addresses kept from one reply */

enum dnsanswer_mode {
	DNSANSWER_ADDR,	/* A or AAAA: a proto answer body */
	DNSANSWER_PTR,	/* PTR: a proto answer body naming one address */
	DNSANSWER_RR,	/* any type: a proto records body */
	DNSANSWER_WIRE,	/* any type, for the DNS listener: the records kept in
			   wire form (dnswire.c), a negative answer's SOA too */
};

enum dnsanswer_status {
	DNSANSWER_POSITIVE	= 0,
	DNSANSWER_NXDOMAIN	= 1,
	DNSANSWER_NODATA	= 2,
};

struct dnsanswer {
	int		status;		/* enum dnsanswer_status */
	uint32_t	ttl;		/* positive: smallest TTL of the CNAME chain
					   and the records; negative: min(SOA TTL,
					   SOA MINIMUM) of the authority section */
	bool		cacheable;	/* false for a negative answer with no SOA */
	char		canon[DNSMSG_NAME_STRLEN];	/* end of the CNAME chain */
};

/*
 * Reads the reply to a query for (qname, qtype).  The question must match
 * (name case-insensitively, type, class IN), the reply must be a response
 * with rcode NOERROR or NXDOMAIN.  Only records owned by qname, or by the
 * names its CNAME chain leads to, are used: anything else in the answer
 * section is ignored, so a reply cannot slip in other names' data.  TTLs
 * with the top bit set count as 0 (RFC 2181).
 *
 * For a positive answer, writes the body (ttl 0, source DNS; stamp it when
 * serving) into w: for DNSANSWER_ADDR the addresses in reply order with the
 * chain's names as aliases and the end of the chain as canonical name; for
 * DNSANSWER_PTR the first PTR target as name, and addr (family 4 or 6) as
 * the address; for DNSANSWER_RR every answer-section record of the chain.
 * Returns 0 with *ret filled, -EBADMSG for a reply that must be rejected,
 * or -EMSGSIZE when the body does not fit in w.
 */
int	dnsanswer_from_reply(const uint8_t *reply, size_t len, const char *qname,
	    uint16_t qtype, int mode, uint8_t family, const uint8_t *addr,
	    struct proto_wr *w, struct dnsanswer *ret);

/*
 * The AF_UNSPEC answer from an A body and an AAAA body (either may be
 * NULL): A's canonical name and aliases if it has any, its addresses, then
 * AAAA's.  Writes a body stamped with ttl and source into w.
 */
int	dnsanswer_merge(const uint8_t *a, size_t alen, const uint8_t *aaaa,
	    size_t aaaalen, uint32_t ttl, uint8_t source, struct proto_wr *w);

/*
 * Copies an answer body into w with its names spelled as the client spelled
 * the question: a name's longest tail of whole labels that equals (ignoring
 * case) a tail of one of names[0..n) takes that spelling.  A DNS server's
 * reply reads so, since it echoes the question and compresses the other
 * names against it; a shared cache must put it back for each client.
 */
int	dnsanswer_respell(const uint8_t *body, size_t len, const char *const *names,
	    size_t n, struct proto_wr *w);

/*
 * As dnsanswer_respell, for an NSS module's answer: only a name that is the
 * whole question (ignoring case) takes the question's spelling, as a module
 * that echoes the name asked would have spelled it.
 */
int	dnsanswer_respell_whole(const uint8_t *body, size_t len, const char *asked,
	    struct proto_wr *w);

/* Sets the TTL and source of an answer or records body, in place. */
void	dnsanswer_stamp(uint8_t *body, size_t len, uint32_t ttl, uint8_t source);

/* The same for a records body, and every record's TTL too. */
void	dnsanswer_stamp_records(uint8_t *body, size_t len, uint32_t ttl, uint8_t source);

/* "4.3.2.1.in-addr.arpa" or the ip6.arpa nibble name of addr; len must be
 * at least 73 (an ip6.arpa name and its NUL). */
void	dnsanswer_ptr_name(uint8_t family, const uint8_t *addr, char *out, size_t len);

#endif
