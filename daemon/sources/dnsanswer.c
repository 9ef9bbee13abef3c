/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsanswer.c - a DNS reply turned into what the cache keeps: status, TTL, answer body. */

/*
 * What is believed from a reply: its question must be ours; from the answer
 * section, only the CNAME chain that starts at our name (16 links at most)
 * and the records owned by the end of that chain; from the authority
 * section, only an SOA, for the negative TTL.  Everything else a server
 * adds is ignored, so no reply can plant data for other names.  Pure: no
 * I/O, no allocation, no logging.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dnsanswer.h"
#include "name.h"
#include "proto.h"

#define DNS_CLASS_IN	1
#define FLAG_QR		0x8000
#define OPCODE(f)	(((f) >> 11) & 0xf)

static uint32_t
rr_ttl(uint32_t ttl)
{
	return ttl & 0x80000000u ? 0 : ttl;	/* RFC 2181, 8 */
}

/* The rdata of one record in presentation form; TXT can be long. */
static char rdata_buf[4 * 65536 + 64];

/* Whether the RR's owner is name (wire form): 1, 0, or -EBADMSG. */
static int
owned_by(const struct dnsmsg *m, const struct dnsmsg_rr *rr, const uint8_t *name)
{
	return dnsmsg_name_eq(m->buf, m->len, rr->owner_off, name);
}

int
dnsanswer_from_reply(const uint8_t *reply, size_t len, const char *qname,
    uint16_t qtype, int mode, uint8_t family, const uint8_t *addr,
    struct proto_wr *w, struct dnsanswer *ret)
{
	/* The chain in wire form: chain[0] our name, chain[nchain] its end. */
	static uint8_t		 chain[DNSANSWER_CHAIN_MAX + 1][DNSMSG_NAME_MAX];
	struct dnsmsg		 m;
	struct dnsmsg_iter	 it;
	struct dnsmsg_rr	 rr;
	struct proto_answer_wr	 aw;
	struct proto_records_wr	 rw;
	struct proto_wr		 saved = *w;
	char			 text[DNSMSG_NAME_STRLEN];
	uint8_t			 a[16];
	uint32_t		 ttl = UINT32_MAX, minimum;
	size_t			 nchain = 0, i, count = 0;
	bool			 followed, keep;
	int			 r, eq;

	ret->status = DNSANSWER_POSITIVE;
	ret->ttl = 0;
	ret->cacheable = false;
	ret->canon[0] = '\0';
	if (dnsmsg_parse_wire(reply, len, &m) < 0)
		return -EBADMSG;
	/*
	 * Our name as c-ares put it on the wire; names are compared in wire
	 * form from here on (dnsmsg_name_eq: as their texts would compare),
	 * and made text only for the answer.  A name no message can hold
	 * matches no question.
	 */
	if (dnsmsg_name_from_text(qname, chain[0]) < 0)
		return -EBADMSG;
	if (!(m.flags & FLAG_QR) || OPCODE(m.flags) != 0 || m.qdcount != 1 ||
	    m.qtype != qtype || m.qclass != DNS_CLASS_IN ||
	    dnsmsg_name_eq(reply, len, m.qname_off, chain[0]) != 1)
		return -EBADMSG;
	if (m.rcode != DNS_R_NOERROR && m.rcode != DNS_R_NXDOMAIN)
		return -EBADMSG;

	/*
	 * The chain: each pass takes the first CNAME owned by its end, from
	 * the top of the answer section (owners are compared only for
	 * CNAMEs, so a reply without any costs one cheap pass).
	 */
	for (;;) {
		followed = false;
		if (qtype == DNS_T_CNAME)
			break;		/* asked for the CNAME itself */
		it = (struct dnsmsg_iter){ .no_names = true };
		while ((r = dnsmsg_next_rr(&m, &it, &rr)) > 0) {
			if (rr.section != DNS_S_ANSWER)
				break;
			if (rr.type != DNS_T_CNAME || rr.rclass != DNS_CLASS_IN)
				continue;
			if ((eq = owned_by(&m, &rr, chain[nchain])) < 0)
				return -EBADMSG;
			if (eq == 0)
				continue;
			if (nchain == DNSANSWER_CHAIN_MAX)
				return -EBADMSG;	/* a loop, or too long */
			if (dnsmsg_rdata_name_wire(&m, &rr, chain[nchain + 1]) < 0)
				return -EBADMSG;
			if (rr_ttl(rr.ttl) < ttl)
				ttl = rr_ttl(rr.ttl);
			nchain++;
			followed = true;
			break;
		}
		if (r < 0)
			return -EBADMSG;
		if (!followed)
			break;
	}
	if (dnsmsg_name(chain[nchain], DNSMSG_NAME_MAX, 0, ret->canon,
	    sizeof(ret->canon), NULL) < 0)
		return -EBADMSG;	/* cannot happen: a name read before */

	/*
	 * The records of the chain's end: counted, their smallest TTL, and
	 * for an address answer written as they come (the writer is put back
	 * if there are none: a negative answer writes nothing).
	 */
	if (mode == DNSANSWER_ADDR)
		proto_answer_begin(&aw, w, 0, PROTO_SRC_DNS, ret->canon,
		    strlen(ret->canon));
	it = (struct dnsmsg_iter){ .no_names = true };
	while ((r = dnsmsg_next_rr(&m, &it, &rr)) > 0) {
		if (rr.section != DNS_S_ANSWER)
			break;
		if (rr.type != qtype || rr.rclass != DNS_CLASS_IN)
			continue;
		if ((eq = owned_by(&m, &rr, chain[nchain])) < 0)
			return -EBADMSG;
		if (eq == 0)
			continue;
		if (rr_ttl(rr.ttl) < ttl)
			ttl = rr_ttl(rr.ttl);
		if (mode == DNSANSWER_ADDR) {
			if (dnsmsg_rdata_addr(&m, &rr, a) < 0)
				return -EBADMSG;
			if (count < DNSANSWER_ADDRS_MAX)
				proto_answer_addr(&aw, qtype == DNS_T_A ?
				    PROTO_AF_INET : PROTO_AF_INET6, a);
		}
		count++;
	}
	if (r < 0)
		return -EBADMSG;

	if (count == 0) {
		/* Negative: the TTL comes from the SOA, or it is not cached. */
		*w = saved;
		ret->status = m.rcode == DNS_R_NXDOMAIN ? DNSANSWER_NXDOMAIN : DNSANSWER_NODATA;
		it = (struct dnsmsg_iter){ .no_names = true };
		while ((r = dnsmsg_next_rr(&m, &it, &rr)) > 0) {
			if (rr.section != DNS_S_AUTHORITY || rr.type != DNS_T_SOA ||
			    rr.rclass != DNS_CLASS_IN)
				continue;
			if (dnsmsg_rdata_soa_minimum(&m, &rr, &minimum) < 0)
				return -EBADMSG;
			ret->ttl = rr_ttl(rr.ttl) < rr_ttl(minimum) ?
			    rr_ttl(rr.ttl) : rr_ttl(minimum);
			ret->cacheable = true;
			break;
		}
		return r < 0 ? -EBADMSG : 0;
	}
	if (m.rcode != DNS_R_NOERROR)
		return -EBADMSG;	/* NXDOMAIN with the data asked: contradictory */
	ret->status = DNSANSWER_POSITIVE;
	ret->ttl = ttl;
	ret->cacheable = true;

	switch (mode) {
	case DNSANSWER_ADDR:
		for (i = 0; i < nchain; i++) {
			if ((r = dnsmsg_name(chain[i], DNSMSG_NAME_MAX, 0, text,
			    sizeof(text), NULL)) < 0)
				return -EBADMSG;	/* cannot happen */
			proto_answer_alias(&aw, text, (size_t)r);
		}
		return proto_answer_end(&aw);
	case DNSANSWER_PTR:
		it = (struct dnsmsg_iter){ .no_names = true };
		while (dnsmsg_next_rr(&m, &it, &rr) > 0 && rr.section == DNS_S_ANSWER) {
			if (rr.type != DNS_T_PTR || rr.rclass != DNS_CLASS_IN ||
			    owned_by(&m, &rr, chain[nchain]) != 1)
				continue;
			if (dnsmsg_rdata_name(&m, &rr, text, sizeof(text)) < 0)
				return -EBADMSG;
			proto_answer_begin(&aw, w, 0, PROTO_SRC_DNS, text,
			    strlen(text));
			proto_answer_addr(&aw, family, addr);
			snprintf(ret->canon, sizeof(ret->canon), "%s", text);
			return proto_answer_end(&aw);
		}
		return -EBADMSG;
	case DNSANSWER_RR:
		proto_records_begin(&rw, w, 0, PROTO_SRC_DNS);
		it = (struct dnsmsg_iter){ .no_names = true };
		while (dnsmsg_next_rr(&m, &it, &rr) > 0 && rr.section == DNS_S_ANSWER) {
			if (rr.rclass != DNS_CLASS_IN)
				continue;
			keep = false;
			for (i = 0; i < nchain && !keep; i++)
				keep = rr.type == DNS_T_CNAME &&
				    owned_by(&m, &rr, chain[i]) == 1;
			if (!keep)
				keep = rr.type == qtype &&
				    owned_by(&m, &rr, chain[nchain]) == 1;
			if (!keep)
				continue;
			if (dnsmsg_name(reply, len, rr.owner_off, text, sizeof(text),
			    NULL) < 0 ||
			    dnsmsg_rdata_str(&m, &rr, rdata_buf, sizeof(rdata_buf)) < 0)
				return -EBADMSG;
			proto_records_add(&rw, text, rr.type, rr_ttl(rr.ttl), rdata_buf);
		}
		return proto_records_end(&rw);
	}
	return -EINVAL;
}

void
dnsanswer_ptr_name(uint8_t family, const uint8_t *addr, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t off = 0;
	int i;

	if (family == PROTO_AF_INET) {
		snprintf(out, len, "%u.%u.%u.%u.in-addr.arpa", addr[3], addr[2],
		    addr[1], addr[0]);
		return;
	}
	for (i = 15; i >= 0 && off + 4 < len; i--) {
		out[off++] = hex[addr[i] & 0xf];
		out[off++] = '.';
		out[off++] = hex[addr[i] >> 4];
		out[off++] = '.';
	}
	snprintf(out + off, len - off, "ip6.arpa");
}
