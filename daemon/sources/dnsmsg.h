/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsmsg.h - a bounds-checked reader of DNS messages (RFC 1035), fuzzed; and the query we send. */
#ifndef NAMECACHE_DNSMSG_H
#define NAMECACHE_DNSMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rd.h"

/*
 * Everything here reads untrusted bytes from the network.  No function
 * reads outside [buf, buf + len), follows more than DNSMSG_MAX_POINTERS
 * compression pointers in one name, or accepts a name over 255 bytes in
 * wire form.  A pointer must point before the run of labels it ends (the
 * name's start, or the previous pointer's target), so no loop can exist.
 * The one writer, dnsmsg_query, makes the upstream query as c-ares would.
 * Nothing allocates, logs or touches errno.
 */

#define DNSMSG_NAME_MAX		255	/* wire form, root label included */
#define DNSMSG_NAME_STRLEN	1024	/* presentation form, \DDD escapes included, NUL */
#define DNSMSG_MAX_POINTERS	64	/* compression pointers in one name */
#define DNS_HDR_LEN		12	/* a message's header */
#define DNSMSG_MAX_RRS		2048	/* answer + authority + additional */
#define DNSMSG_TYPE_STRLEN	16	/* "TYPE65535" and a NUL fit */

enum dnsmsg_type {
	DNS_T_A		= 1,
	DNS_T_NS	= 2,
	DNS_T_CNAME	= 5,
	DNS_T_SOA	= 6,
	DNS_T_PTR	= 12,
	DNS_T_MX	= 15,
	DNS_T_TXT	= 16,
	DNS_T_AAAA	= 28,
	DNS_T_SRV	= 33,
	DNS_T_OPT	= 41,
	DNS_T_CAA	= 257,
};

enum dnsmsg_rcode {
	DNS_R_NOERROR	= 0,
	DNS_R_FORMERR	= 1,
	DNS_R_SERVFAIL	= 2,
	DNS_R_NXDOMAIN	= 3,
	DNS_R_NOTIMP	= 4,
	DNS_R_REFUSED	= 5,
	DNS_R_BADVERS	= 16,	/* extended (RFC 6891): its high bits go in the OPT */
};

enum dnsmsg_section {
	DNS_S_ANSWER	= 1,
	DNS_S_AUTHORITY	= 2,
	DNS_S_ADDITIONAL = 3,
};

/* A parsed message: the header, and where each section starts. */
struct dnsmsg {
	const uint8_t	*buf;
	size_t		 len;
	uint16_t	 id;
	uint16_t	 flags;		/* QR, opcode, AA, TC, RD, RA, Z, rcode bits */
	uint8_t		 rcode;		/* low 4 bits of flags */
	uint16_t	 qdcount, ancount, nscount, arcount;
	/* The first question, when qdcount >= 1. */
	char		 qname[DNSMSG_NAME_STRLEN];	/* presentation, case kept as sent */
	size_t		 qname_off;	/* where that name is, for dnsmsg_name_eq */
	uint16_t	 qtype;
	uint16_t	 qclass;
	size_t		 rr_off;	/* offset of the first answer RR */
};

/* One resource record; rdata points into the message. */
struct dnsmsg_rr {
	char		 name[DNSMSG_NAME_STRLEN];	/* owner, presentation form */
	size_t		 owner_off;	/* where the owner is, for dnsmsg_name_eq */
	uint16_t	 type;
	uint16_t	 rclass;
	uint32_t	 ttl;		/* as sent; callers clamp */
	uint16_t	 rdlen;
	size_t		 rdata_off;	/* offset of rdata in the message */
	int		 section;	/* enum dnsmsg_section */
};

/*
 * Walks the RRs of a parsed message in order; zero it before the first
 * call.  With no_names set, an RR's owner is not decoded (rr->name is
 * left empty) but only stepped over: a reader that compares names in wire
 * form, at rr->owner_off with dnsmsg_name_eq (which checks what it reads),
 * skips the text it would not read.
 */
struct dnsmsg_iter {
	size_t		 off;
	unsigned	 index;		/* RRs read so far */
	bool		 no_names;
};

/*
 * Parses the header and the first question, and checks that every RR of
 * every section is in bounds: each owner name decodes, each rdata fits, and
 * the counts match what is there (trailing bytes after the last RR are
 * allowed).  Returns 0, or -EBADMSG for anything malformed (including more
 * than DNSMSG_MAX_RRS records or more than one question).
 */
int	dnsmsg_parse(const uint8_t *buf, size_t len, struct dnsmsg *ret_msg);

/*
 * The same checks, without the question's text: ret_msg->qname is left
 * empty, the name is at ret_msg->qname_off.  For a reader that compares
 * names in wire form (dnsmsg_name_eq).
 */
int	dnsmsg_parse_wire(const uint8_t *buf, size_t len, struct dnsmsg *ret_msg);

/* 1 with *ret_rr filled, 0 after the last RR, -EBADMSG (only if the
 * message was not parsed by dnsmsg_parse: never a read out of bounds). */
int	dnsmsg_next_rr(const struct dnsmsg *, struct dnsmsg_iter *, struct dnsmsg_rr *ret_rr);

/*
 * Decodes the (possibly compressed) name at off into presentation form:
 * labels joined by '.', no trailing dot, the root as ".", escaped as
 * glibc's ns_name_ntop does: the zone-file specials " . ; \ ( ) @ $ with a
 * backslash, bytes outside 0x21..0x7e as \DDD, all else as it is.  *ret_next (if set) gets the offset just past the name's encoding at
 * off.  Returns the length of the string, -EBADMSG, or -ENOSPC when out is
 * too small (DNSMSG_NAME_STRLEN always fits).  With out NULL and outlen 0
 * it only checks the name and returns the length it would have.
 */
int	dnsmsg_name(const uint8_t *buf, size_t len, size_t off, char *out,
	    size_t outlen, size_t *ret_next);

/*
 * The name at off in wire form, every pointer followed, case as sent: the
 * same rules as dnsmsg_name, into out (DNSMSG_NAME_MAX bytes; NULL only
 * checks).  *ret_next (if set) as for dnsmsg_name.  Returns the length of
 * the wire form, root label included (1 for the root), or -EBADMSG.
 */
int	dnsmsg_name_wire(const uint8_t *buf, size_t len, size_t off,
	    uint8_t *out, size_t *ret_next);

/*
 * Both at once, in one read: the name as dnsmsg_name writes it into out,
 * and in wire form into wire as dnsmsg_name_wire does, its length in
 * *ret_wire_len.  Returns the text's length, or -EBADMSG, -ENOSPC.
 */
int	dnsmsg_name_both(const uint8_t *buf, size_t len, size_t off, char *out,
	    size_t outlen, uint8_t *wire, size_t *ret_wire_len, size_t *ret_next);

/*
 * A name as a client wrote it, in the form dnsmsg_name gives names read
 * from a message, so the two compare: labels split at unescaped dots, a
 * backslash taking the next byte literally (as c-ares 1.18 encodes names),
 * then escaped as dnsmsg_name escapes.  No trailing dot.  Returns the
 * length, or -ENOSPC.
 */
int	dnsmsg_name_normalize(const char *in, char *out, size_t outlen);

/*
 * A name as a client wrote it, read as dnsmsg_name_normalize reads it (as
 * c-ares 1.18 puts it on the wire), into wire form: out holds
 * DNSMSG_NAME_MAX bytes.  "" and "." are the root.  Returns the length,
 * root label included, or -EINVAL for an empty label, a label over 63
 * bytes or a name over 255: names no message can hold.  Where it
 * succeeds, dnsmsg_name of its output is dnsmsg_name_normalize's text.
 */
int	dnsmsg_name_from_text(const char *in, uint8_t *out);

/*
 * The one message written here: the query c-ares 1.18's
 * ares_create_query(name, C_IN, type, id, 1, ..., payload) makes, byte
 * for byte and with the same refusals, into out (DNSMSG_QUERY_MAX bytes),
 * without its allocation.  A header with RD, QDCOUNT 1 and ARCOUNT 1; the
 * name as dnsmsg_name_from_text reads it; type, class IN; an OPT whose
 * class is payload.  Names ending in ".onion" or ".onion." (any case) are
 * refused, as c-ares refuses them (RFC 7686), and so are names no message
 * holds.  Returns the length, or -EINVAL.
 */
#define DNSMSG_QUERY_MAX	(12 + DNSMSG_NAME_MAX + 4 + 11)
int	dnsmsg_query(const char *name, uint16_t type, uint16_t id, uint16_t payload,
	    uint8_t *out);

/* Case-insensitive (ASCII) comparison of two presentation-form names,
 * ignoring one trailing dot on either.  0 when equal. */
int	dnsmsg_name_cmp(const char *a, const char *b);

/*
 * Whether the (possibly compressed) name at off is wire, a name in wire
 * form (as dnsmsg_name_wire or dnsmsg_name_from_text give it), ASCII case
 * aside: 1 or 0, as dnsmsg_name_cmp of their texts would say, without
 * writing either.  Stops at the first difference; -EBADMSG when what it
 * read up to there breaks dnsmsg_name's rules.
 */
int	dnsmsg_name_eq(const uint8_t *buf, size_t len, size_t off, const uint8_t *wire);

/*
 * The rdata of rr in presentation form (RFC 1035 master file syntax), for
 * namecachectl query -t: A, AAAA, NS, CNAME, PTR, MX, SOA, TXT, SRV, CAA
 * as usual ("10 mail.example.com." for MX: names get a trailing dot here),
 * anything else as RFC 3597 "\# LEN HEX".  Returns the length written, or
 * -EBADMSG when the rdata does not parse for its type, -ENOSPC when out
 * is too small.
 */
int	dnsmsg_rdata_str(const struct dnsmsg *, const struct dnsmsg_rr *, char *out,
	    size_t outlen);

/* For A/AAAA: copies the 4/16 address bytes and returns 4/16.  For
 * CNAME/PTR/NS: the target name, as dnsmsg_name writes it, and its length.
 * -EBADMSG when rdlen is wrong for the type, -EINVAL for another type. */
int	dnsmsg_rdata_addr(const struct dnsmsg *, const struct dnsmsg_rr *, uint8_t *out);
int	dnsmsg_rdata_name(const struct dnsmsg *, const struct dnsmsg_rr *, char *out,
	    size_t outlen);
/* The same target in wire form, as dnsmsg_name_wire writes it into out
 * (DNSMSG_NAME_MAX bytes): its length, -EBADMSG or -EINVAL as above. */
int	dnsmsg_rdata_name_wire(const struct dnsmsg *, const struct dnsmsg_rr *,
	    uint8_t *out);

/* For SOA: the MINIMUM field (the TTL of the record is rr->ttl).  0,
 * -EBADMSG for a malformed SOA, -EINVAL for another type. */
int	dnsmsg_rdata_soa_minimum(const struct dnsmsg *, const struct dnsmsg_rr *,
	    uint32_t *ret_minimum);

/* The mnemonic of a type ("A", "MX", "TYPE65534", written into buf of
 * DNSMSG_TYPE_STRLEN bytes), and back (-1 unknown).  Accepts "TYPEnnn"
 * too.  Case-insensitive. */
const char *dnsmsg_type_str(uint16_t type, char *buf, size_t len);
int	dnsmsg_type_from_str(const char *);

/*
 * A name's labels in a message, one at a time, for the readers of names
 * (dnsmsg.c, dnsname.c): every compression pointer followed with the
 * rules above (backwards only, at most DNSMSG_MAX_POINTERS), every byte
 * bounds-checked.  The fields are the walk's own.
 */
struct dnsmsg_labels {
	struct rd	 rd;		/* at the next byte to read */
	size_t		 seg;		/* a pointer must point before this */
	size_t		 next;		/* just past the name's encoding; 0: not yet known */
	unsigned	 ptrs;
};
void	dnsmsg_labels_init(struct dnsmsg_labels *, const uint8_t *buf, size_t len,
	    size_t off);
/* The next label's length, 0 at the root (the end), or -EBADMSG. */
int	dnsmsg_labels_next(struct dnsmsg_labels *);
/* Its n bytes (n from _next), or NULL past the message's end. */
const uint8_t *dnsmsg_labels_take(struct dnsmsg_labels *, size_t n);
/* After the root: the offset just past the name's own encoding. */
size_t	dnsmsg_labels_end(const struct dnsmsg_labels *);

#endif
