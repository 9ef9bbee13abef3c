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

int
dnsanswer_merge(const uint8_t *a, size_t alen, const uint8_t *aaaa, size_t aaaalen,
    uint32_t ttl, uint8_t source, struct proto_wr *w)
{
	struct proto_answer	 x, y, *first;
	struct proto_answer_wr	 aw;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, n;
	uint8_t			 fam;

	if ((a && proto_answer_decode(a, alen, &x) < 0) ||
	    (aaaa && proto_answer_decode(aaaa, aaaalen, &y) < 0) || (!a && !aaaa))
		return -EINVAL;
	first = a ? &x : &y;
	proto_answer_begin(&aw, w, ttl, source, first->canon, first->canon_len);
	if (a)
		for (cur = 0; proto_answer_next_addr(&x, &cur, &fam, &addr); )
			proto_answer_addr(&aw, fam, addr);
	if (aaaa)
		for (cur = 0; proto_answer_next_addr(&y, &cur, &fam, &addr); )
			proto_answer_addr(&aw, fam, addr);
	for (cur = 0; proto_answer_next_alias(first, &cur, &s, &n); )
		proto_answer_alias(&aw, s, n);
	if (proto_answer_end(&aw) < 0)
		return -EMSGSIZE;
	/* An NSS module's answer keeps its module's name. */
	if (first->origin)
		proto_put_str(w, first->origin, first->origin_len);
	else if (a && aaaa && y.origin)
		proto_put_str(w, y.origin, y.origin_len);
	return w->err;
}

void
dnsanswer_stamp(uint8_t *body, size_t len, uint32_t ttl, uint8_t source)
{
	(void)proto_answer_stamp(body, len, ttl, source);
}

void
dnsanswer_stamp_records(uint8_t *body, size_t len, uint32_t ttl, uint8_t source)
{
	/* Each record counts down with the answer, clamped as it was. */
	(void)proto_records_stamp(body, len, ttl, source);
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

/* Whether s[i] starts a label: at the start, or after an unescaped dot. */
static bool
label_start(const char *s, size_t i)
{
	size_t bs = 0;

	if (i == 0)
		return true;
	if (s[i - 1] != '.')
		return false;
	while (bs + 2 <= i && s[i - 2 - bs] == '\\')
		bs++;
	return bs % 2 == 0;
}

/*
 * The length of the longest tail of a, starting at a label, that equals a
 * tail of b starting at a label, ignoring case and one trailing dot.
 */
static size_t
common_tail(const char *a, size_t al, const char *b, size_t bl)
{
	size_t n = 0, best = 0;

	if (al && a[al - 1] == '.')
		al--;
	if (bl && b[bl - 1] == '.')
		bl--;
	while (n < al && n < bl && name_fold_char((uint8_t)a[al - 1 - n]) ==
	    name_fold_char((uint8_t)b[bl - 1 - n])) {
		n++;
		if (label_start(a, al - n) && label_start(b, bl - n))
			best = n;
	}
	return best;
}

static void
respell(const char *name, size_t len, const char *const *names, size_t n,
    char *out)
{
	size_t best = 0, k, t, bl;
	const char *from = NULL;

	memcpy(out, name, len);
	out[len] = '\0';
	for (k = 0; k < n; k++) {
		t = common_tail(name, len, names[k], strlen(names[k]));
		if (t > best) {
			best = t;
			from = names[k];
		}
	}
	if (from == NULL)
		return;
	bl = strlen(from);
	if (bl && from[bl - 1] == '.')
		bl--;
	memcpy(out + (len && name[len - 1] == '.' ? len - 1 : len) - best,
	    from + bl - best, best);
}

int
dnsanswer_respell(const uint8_t *body, size_t len, const char *const *names,
    size_t n, struct proto_wr *w)
{
	char			 buf[DNSMSG_NAME_STRLEN];
	struct proto_answer	 a;
	struct proto_answer_wr	 aw;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, sl;
	uint8_t			 fam;

	if (proto_answer_decode(body, len, &a) < 0 || a.canon_len >= sizeof(buf))
		return -EINVAL;
	respell(a.canon, a.canon_len, names, n, buf);
	proto_answer_begin(&aw, w, a.ttl, a.source, buf, a.canon_len);
	for (cur = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); )
		proto_answer_addr(&aw, fam, addr);
	for (cur = 0; proto_answer_next_alias(&a, &cur, &s, &sl); ) {
		if (sl >= sizeof(buf))
			return -EINVAL;
		respell(s, sl, names, n, buf);
		proto_answer_alias(&aw, buf, sl);
	}
	if (proto_answer_end(&aw) < 0)
		return -EMSGSIZE;
	if (a.origin)
		proto_put_str(w, a.origin, a.origin_len);
	return w->err;
}

int
dnsanswer_respell_whole(const uint8_t *body, size_t len, const char *asked,
    struct proto_wr *w)
{
	struct proto_answer	 a;
	struct proto_answer_wr	 aw;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, sl, al = strlen(asked);
	uint8_t			 fam;

	if (proto_answer_decode(body, len, &a) < 0)
		return -EINVAL;
	s = a.canon_len == al && name_eq_fold(a.canon, asked, al) ? asked : a.canon;
	proto_answer_begin(&aw, w, a.ttl, a.source, s, a.canon_len);
	for (cur = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); )
		proto_answer_addr(&aw, fam, addr);
	for (cur = 0; proto_answer_next_alias(&a, &cur, &s, &sl); )
		proto_answer_alias(&aw, sl == al && name_eq_fold(s, asked, al) ?
		    asked : s, sl);
	if (proto_answer_end(&aw) < 0)
		return -EMSGSIZE;
	if (a.origin)
		proto_put_str(w, a.origin, a.origin_len);
	return w->err;
}
