/* SPDX-License-Identifier: MIT */
/* daemon/front/dnswire.h - the DNS listener's wire format: client queries in, replies out. */
#ifndef NAMECACHE_DNSWIRE_H
#define NAMECACHE_DNSWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnsmsg.h"

/*
 * Queries come from any client the listener lets in, kept records from
 * upstream or from a store on disk: every byte of both is bounds-checked,
 * and no reply is written past its limit.  No sockets, no allocation, no
 * logging, errno untouched.  dnswire.c's design block gives the rules
 * chosen where the RFCs leave a choice.
 */

#define DNSWIRE_EDNS_SIZE	1232	/* advertised (DNS flag day 2020) */
#define DNSWIRE_UDP_PLAIN	512	/* a UDP reply's limit without EDNS0 */
#define DNSWIRE_TCP_LIMIT	65535	/* a TCP message's limit: its length prefix */
#define DNSWIRE_WR_NAMES	32	/* names a reply remembers for compression */

/*
 * What dnswire_query_read found.  Each verdict that calls for a reply is
 * the rcode that reply carries, so dnswire_reply_error takes a verdict or
 * an rcode alike (DNS_R_REFUSED, DNS_R_SERVFAIL).
 */
enum dnswire_verdict {
	DNSWIRE_DROP	= -1,			/* no reply: header unreadable, or QR set */
	DNSWIRE_OK	= DNS_R_NOERROR,	/* a query to answer */
	DNSWIRE_FORMERR	= DNS_R_FORMERR,	/* header readable, the rest is not */
	DNSWIRE_NOTIMP	= DNS_R_NOTIMP,		/* an opcode other than QUERY */
	DNSWIRE_BADVERS	= DNS_R_BADVERS,	/* EDNS version > 0 (RFC 6891 6.1.3) */
};

/*
 * A query as read: a copy, nothing points into the datagram, so the
 * listener may reuse its buffer while the engine works.
 */
struct dnswire_query {
	uint16_t	 id;
	uint16_t	 flags;		/* as sent */
	uint8_t		 opcode;
	bool		 rd, cd;
	/*
	 * The question: wire_len 0 when it was not read.  Every compression
	 * pointer followed: the echo never points into bytes not copied.
	 */
	uint8_t		 wire[DNSMSG_NAME_MAX];	/* case as sent, for 0x20 clients */
	size_t		 wire_len;		/* root label included */
	uint16_t	 qtype, qclass;
	/* As dnsmsg_name writes it, \DDD escapes and all; "" for the root. */
	char		 name[DNSMSG_NAME_STRLEN];
	size_t		 name_len;
	/*
	 * Only letters, digits, '-' and '_' in its labels, and not the root:
	 * a name the hosts line's walk may take.  Else only the upstream path.
	 */
	bool		 name_plain;
	bool		 edns;		/* one well-formed OPT came */
	uint16_t	 udp_size;	/* the client's EDNS size in [512, 1232]; 512 without */
	bool		 do_bit;
};

/*
 * Reads a query from buf: a UDP datagram, or a TCP message without its
 * length prefix.  Returns an enum dnswire_verdict.  *ret_q is written in
 * every case, as far as the query was read, so that an error reply can
 * echo the id, opcode, flags, question and OPT.
 */
int	dnswire_query_read(const uint8_t *buf, size_t len,
	    struct dnswire_query *ret_q);

/*
 * A reply being written.  Public so that it can live on the stack; its
 * fields are private to dnswire.c.
 */
struct dnswire_wr {
	uint8_t		*buf;		/* borrowed, until dnswire_reply_end */
	size_t		 room;		/* the limit less the OPT's 11 bytes */
	size_t		 len;
	size_t		 qend;		/* just past the question */
	uint16_t	 flags;
	uint16_t	 count[2];	/* answer, authority */
	int		 section;	/* of the last record written */
	bool		 tc;		/* a record did not fit: the rest are refused */
	bool		 full;		/* the record being written did not fit */
	bool		 edns, do_bit;
	unsigned	 nnames;
	struct {
		uint16_t off;		/* where a name (or a suffix) was written */
		uint8_t	 len;		/* its wire length, root label included */
	}		 names[DNSWIRE_WR_NAMES];
};

/*
 * Starts a reply to q (read DNSWIRE_OK) in buf, borrowed until
 * dnswire_reply_end: id, opcode, RD and CD echoed, QR and RA set, AA and
 * AD clear, rcode; the question echoed as read.  limit: the most bytes
 * the reply may take, q->udp_size over UDP or DNSWIRE_TCP_LIMIT over TCP,
 * at least DNSWIRE_UDP_PLAIN; cap: buf's size (a limit above it is cut).
 */
void	dnswire_reply_begin(struct dnswire_wr *, uint8_t *buf, size_t cap,
	    size_t limit, const struct dnswire_query *q, uint8_t rcode);

/*
 * A record of class IN in section DNS_S_ANSWER or DNS_S_AUTHORITY, in
 * that order.  owner and target in presentation form, as dnsmsg_name
 * writes names (a trailing dot allowed); owner NULL is the question's
 * name.  Returns 0; -ENOSPC when the record did not fit (or an earlier
 * one did not): the reply is then truncated and later records are
 * refused; -EINVAL for a bad name, a bad section or one out of order,
 * -EBADMSG for rdata that does not parse.  A record refused leaves the
 * reply as it was.
 */
int	dnswire_add_a(struct dnswire_wr *, int section, const char *owner,
	    uint32_t ttl, const uint8_t addr[4]);
int	dnswire_add_aaaa(struct dnswire_wr *, int section, const char *owner,
	    uint32_t ttl, const uint8_t addr[16]);
int	dnswire_add_cname(struct dnswire_wr *, int section, const char *owner,
	    uint32_t ttl, const char *target);
int	dnswire_add_ptr(struct dnswire_wr *, int section, const char *owner,
	    uint32_t ttl, const char *target);
/*
 * The SOA of a negative answer (RFC 2308), rdata in wire form with its
 * names uncompressed, as kept: MNAME, RNAME, five 32-bit fields.  ttl: the
 * remaining negative TTL.
 */
int	dnswire_add_soa(struct dnswire_wr *, int section, const char *owner,
	    uint32_t ttl, const uint8_t *rdata, size_t rdlen);
/*
 * Records kept by dnswire_rrs_keep, in the sections they were kept from,
 * each TTL lowered by age seconds (never below 0) and at most cap (the
 * cache entry's own remaining TTL, or a stale answer's 30 s; UINT32_MAX:
 * none).  Returns as the adds above; -EBADMSG (nothing written) when kept
 * is not a well-formed list.
 */
int	dnswire_add_kept(struct dnswire_wr *, const uint8_t *kept,
	    size_t kept_len, uint32_t age, uint32_t cap);

/*
 * Ends the reply: an OPT when the query had one (size DNSWIRE_EDNS_SIZE,
 * DO echoed, version 0, no options).  When a record did not fit, TC is
 * set and every answer and authority record dropped: header, question
 * and OPT only.  Returns the reply's length, at most the limit.
 */
size_t	dnswire_reply_end(struct dnswire_wr *);

/*
 * An error reply to q (as far as dnswire_query_read read it), rcode an
 * error verdict or any rcode, BADVERS included: header with q's id,
 * opcode, RD and CD, RA set but for REFUSED; the question when it was
 * read; an OPT when q had one.  Never longer than query_len, the query's
 * own length (no amplification): what would not fit is left out, the
 * question first.  Returns the length, 0 for DNSWIRE_DROP or a buffer
 * shorter than a header.
 */
size_t	dnswire_reply_error(uint8_t *buf, size_t cap,
	    const struct dnswire_query *q, size_t query_len, int rcode);

/*
 * Kept records: the answer and authority records of an upstream reply,
 * self-contained, to be written into any later reply.  Each is: section
 * (one byte, DNS_S_ANSWER or DNS_S_AUTHORITY), owner in wire form, type,
 * class, TTL, rdlength, rdata, in network order; every name expanded, in
 * owners and in the rdata of the types that may carry compressed names
 * (RFC 3597 4).  No OPT, nothing of the additional section.  A TTL with
 * its top bit set is kept as 0 (RFC 2181 8), an authority SOA's TTL as
 * min(TTL, MINIMUM) (RFC 2308 5), so that aging counts down the negative
 * TTL.
 *
 * From msg, a whole upstream message as sent, into out.  Returns the
 * length kept (0: no records), -EBADMSG for a malformed message, or
 * -ENOSPC when out is too small.
 */
int	dnswire_rrs_keep(const uint8_t *msg, size_t len, uint8_t *out,
	    size_t cap);

/*
 * The smallest TTL of the kept records (for the cache's lifetime): 0,
 * -ENOENT when there are none, -EBADMSG when kept is not a well-formed
 * list (records in bounds; their rdata is checked when written).
 */
int	dnswire_rrs_ttl(const uint8_t *kept, size_t len, uint32_t *ret_ttl);

/*
 * How many bytes of kept are answer-section records (they come first):
 * a positive answer is told without its authority section.  -EBADMSG
 * when kept is not a well-formed list.
 */
int	dnswire_rrs_answers(const uint8_t *kept, size_t len);

#endif
