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

int
dnsanswer_from_reply(const uint8_t *reply, size_t len, const char *qname,
    uint16_t qtype, int mode, uint8_t family, const uint8_t *addr,
    struct proto_wr *w, struct dnsanswer *ret)
{
	static char		 chain[DNSANSWER_CHAIN_MAX + 1][DNSMSG_NAME_STRLEN];
	struct dnsmsg		 m;
	struct dnsmsg_iter	 it;
	struct dnsmsg_rr	 rr;
	struct proto_answer_wr	 aw;
	struct proto_records_wr	 rw;
	char			 target[DNSMSG_NAME_STRLEN];
	uint8_t			 a[16];
	uint32_t		 ttl = UINT32_MAX, minimum;
	size_t			 nchain = 0, i, count = 0;
	bool			 followed;
	int			 r;

	memset(ret, 0, sizeof(*ret));
	if (dnsmsg_parse(reply, len, &m) < 0)
		return -EBADMSG;
	/* Our name as the message spells names, escapes and all. */
	if (dnsmsg_name_normalize(qname, chain[0], sizeof(chain[0])) < 0)
		return -EBADMSG;
	if (!(m.flags & FLAG_QR) || OPCODE(m.flags) != 0 || m.qdcount != 1 ||
	    m.qtype != qtype || m.qclass != DNS_CLASS_IN ||
	    dnsmsg_name_cmp(m.qname, chain[0]) != 0)
		return -EBADMSG;
	if (m.rcode != DNS_R_NOERROR && m.rcode != DNS_R_NXDOMAIN)
		return -EBADMSG;

	/* The chain: chain[nchain] is where it ends. */
	for (;;) {
		followed = false;
		if (qtype == DNS_T_CNAME)
			break;		/* asked for the CNAME itself */
		memset(&it, 0, sizeof(it));
		while ((r = dnsmsg_next_rr(&m, &it, &rr)) > 0) {
			if (rr.section != DNS_S_ANSWER)
				break;
			if (rr.type != DNS_T_CNAME || rr.rclass != DNS_CLASS_IN ||
			    dnsmsg_name_cmp(rr.name, chain[nchain]) != 0)
				continue;
			if (dnsmsg_rdata_name(&m, &rr, target, sizeof(target)) < 0)
				return -EBADMSG;
			if (nchain == DNSANSWER_CHAIN_MAX)
				return -EBADMSG;	/* a loop, or too long */
			if (rr_ttl(rr.ttl) < ttl)
				ttl = rr_ttl(rr.ttl);
			snprintf(chain[++nchain], sizeof(chain[0]), "%s", target);
			followed = true;
			break;
		}
		if (r < 0)
			return -EBADMSG;
		if (!followed)
			break;
	}

	memset(&it, 0, sizeof(it));
	while ((r = dnsmsg_next_rr(&m, &it, &rr)) > 0) {
		if (rr.section != DNS_S_ANSWER)
			break;
		if (rr.type == qtype && rr.rclass == DNS_CLASS_IN &&
		    dnsmsg_name_cmp(rr.name, chain[nchain]) == 0) {
			count++;
			if (rr_ttl(rr.ttl) < ttl)
				ttl = rr_ttl(rr.ttl);
		}
	}
	if (r < 0)
		return -EBADMSG;
	snprintf(ret->canon, sizeof(ret->canon), "%s", chain[nchain]);

	if (count == 0) {
		/* Negative: the TTL comes from the SOA, or it is not cached. */
		ret->status = m.rcode == DNS_R_NXDOMAIN ? DNSANSWER_NXDOMAIN : DNSANSWER_NODATA;
		memset(&it, 0, sizeof(it));
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
		proto_answer_begin(&aw, w, 0, PROTO_SRC_DNS, chain[nchain],
		    strlen(chain[nchain]));
		count = 0;
		memset(&it, 0, sizeof(it));
		while (dnsmsg_next_rr(&m, &it, &rr) > 0 && rr.section == DNS_S_ANSWER) {
			if (rr.type != qtype || rr.rclass != DNS_CLASS_IN ||
			    dnsmsg_name_cmp(rr.name, chain[nchain]) != 0)
				continue;
			if (dnsmsg_rdata_addr(&m, &rr, a) < 0)
				return -EBADMSG;
			if (count++ < DNSANSWER_ADDRS_MAX)
				proto_answer_addr(&aw, qtype == DNS_T_A ?
				    PROTO_AF_INET : PROTO_AF_INET6, a);
		}
		for (i = 0; i < nchain; i++)
			proto_answer_alias(&aw, chain[i], strlen(chain[i]));
		return proto_answer_end(&aw);
	case DNSANSWER_PTR:
		memset(&it, 0, sizeof(it));
		while (dnsmsg_next_rr(&m, &it, &rr) > 0 && rr.section == DNS_S_ANSWER) {
			if (rr.type != DNS_T_PTR || rr.rclass != DNS_CLASS_IN ||
			    dnsmsg_name_cmp(rr.name, chain[nchain]) != 0)
				continue;
			if (dnsmsg_rdata_name(&m, &rr, target, sizeof(target)) < 0)
				return -EBADMSG;
			proto_answer_begin(&aw, w, 0, PROTO_SRC_DNS, target,
			    strlen(target));
			proto_answer_addr(&aw, family, addr);
			snprintf(ret->canon, sizeof(ret->canon), "%s", target);
			return proto_answer_end(&aw);
		}
		return -EBADMSG;
	case DNSANSWER_RR:
		proto_records_begin(&rw, w, 0, PROTO_SRC_DNS);
		memset(&it, 0, sizeof(it));
		while (dnsmsg_next_rr(&m, &it, &rr) > 0 && rr.section == DNS_S_ANSWER) {
			bool keep = false;

			if (rr.rclass != DNS_CLASS_IN)
				continue;
			for (i = 0; i < nchain && !keep; i++)
				keep = rr.type == DNS_T_CNAME &&
				    dnsmsg_name_cmp(rr.name, chain[i]) == 0;
			if (!keep)
				keep = rr.type == qtype &&
				    dnsmsg_name_cmp(rr.name, chain[nchain]) == 0;
			if (!keep)
				continue;
			if (dnsmsg_rdata_str(&m, &rr, rdata_buf, sizeof(rdata_buf)) < 0)
				return -EBADMSG;
			proto_records_add(&rw, rr.name, rr.type, rr_ttl(rr.ttl), rdata_buf);
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
