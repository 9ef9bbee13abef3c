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

/* "4.3.2.1.in-addr.arpa" or the ip6.arpa nibble name of addr; len must be
 * at least 73 (an ip6.arpa name and its NUL). */
void	dnsanswer_ptr_name(uint8_t family, const uint8_t *addr, char *out, size_t len);

#endif
