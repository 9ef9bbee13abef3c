/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-dnsanswer.c - fuzz target: DNS replies turned into cacheable answers. */

/*
 * The input is one control byte, then a DNS reply.  The question asked is
 * the reply's own (so that parsing gets past the question check), unless
 * the reply does not parse.  The control byte chooses:
 *
 *	bits 0-1	mode: DNSANSWER_ADDR, DNSANSWER_PTR, DNSANSWER_RR (3: ADDR too)
 *	bit 2		family: A / IPv4 when clear, AAAA / IPv6 when set
 *	bit 3		ask with the name in upper case and a final dot
 *	bit 4		qtype: the question's, instead of the mode's own
 *	bits 5-7	k: a second run into a writer of k/8 of the body's size
 *
 * Every result is held to dnsanswer.h's promises: the body decodes and says
 * what ans says, only names of the chain from qname appear in it, TTLs
 * have no top bit, a smaller writer gives -EMSGSIZE or the same bytes,
 * and a second run gives the same answer.  Then the body is stamped and
 * merged.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "dnsanswer.h"
#include "dnsmsg.h"
#include "fuzz.h"
#include "proto.h"

static uint8_t	body[PROTO_FRAME_MAX];
static uint8_t	again[PROTO_FRAME_MAX];
static uint8_t	merged[PROTO_FRAME_MAX];
static uint8_t	addrs[2 * PROTO_FRAME_MAX];

/* A NUL-terminated copy of a proto string (which holds no NUL). */
static void
cstr(char *out, size_t cap, const char *s, size_t n)
{
	FUZZ_CHECK(n < cap);
	memcpy(out, s, n);
	out[n] = '\0';
	FUZZ_CHECK(strlen(out) == n);
}

static void
check_addr_body(const uint8_t *b, size_t len, const struct dnsanswer *ans,
    const char *qname, uint16_t qtype, int mode, uint8_t family,
    const uint8_t *addr)
{
	struct proto_answer	 a;
	const uint8_t		*ap, *end;
	const char		*s;
	char			 name[DNSMSG_NAME_STRLEN];
	size_t			 cur, n, i;
	uint8_t			 fam;

	char			 nq[DNSMSG_NAME_STRLEN];

	/* Names come back as the reply spells them: compare with that form. */
	FUZZ_CHECK(dnsmsg_name_normalize(qname, nq, sizeof(nq)) >= 0);
	FUZZ_CHECK(proto_answer_decode(b, len, &a) == 0);
	FUZZ_CHECK(a.ttl == 0 && a.source == PROTO_SRC_DNS && a.flags == 0);
	cstr(name, sizeof(name), a.canon, a.canon_len);
	FUZZ_CHECK(strcmp(name, ans->canon) == 0);
	FUZZ_CHECK(a.naddr == a.naddr4 + a.naddr6);
	end = a.aliases;
	for (cur = 0, i = 0; proto_answer_next_addr(&a, &cur, &fam, &ap); i++) {
		if (mode == DNSANSWER_PTR)
			FUZZ_CHECK(fam == family &&
			    memcmp(ap, addr, family == PROTO_AF_INET ? 4 : 16) == 0);
		else
			FUZZ_CHECK(fam == (qtype == DNS_T_A ? PROTO_AF_INET :
			    PROTO_AF_INET6));
	}
	FUZZ_CHECK(i == a.naddr);
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &n); i++) {
		cstr(name, sizeof(name), s, n);
		/* The chain starts at the name asked. */
		if (i == 0)
			FUZZ_CHECK(strcmp(name, nq) == 0);
		end = (const uint8_t *)s + n;
	}
	FUZZ_CHECK(i == a.nalias);
	FUZZ_CHECK(end == b + len);	/* nothing after the last string */

	if (mode == DNSANSWER_PTR) {
		FUZZ_CHECK(a.naddr == 1 && a.nalias == 0);
		return;
	}
	FUZZ_CHECK(qtype == DNS_T_A || qtype == DNS_T_AAAA);
	FUZZ_CHECK(a.naddr >= 1 && a.naddr <= DNSANSWER_ADDRS_MAX);
	FUZZ_CHECK(a.nalias <= DNSANSWER_CHAIN_MAX);
	if (a.nalias == 0)
		FUZZ_CHECK(strcmp(ans->canon, nq) == 0);
}

static void
check_records_body(const uint8_t *b, size_t len, const char *qname,
    uint16_t qtype)
{
	struct proto_records	 rs;
	struct proto_record	 rec, rec2;
	char			 owner[DNSMSG_NAME_STRLEN], target[DNSMSG_NAME_STRLEN];
	size_t			 cur = 0, cur2;
	unsigned		 i = 0;
	bool			 chained;

	FUZZ_CHECK(proto_records_decode(b, len, &rs) == 0);
	FUZZ_CHECK(rs.ttl == 0 && rs.source == PROTO_SRC_DNS && rs.count >= 1);
	FUZZ_CHECK((size_t)(rs.items - b) + rs.items_len == len);
	while (proto_records_next(&rs, &cur, &rec) == 1) {
		i++;
		FUZZ_CHECK(rec.type == qtype || rec.type == DNS_T_CNAME);
		FUZZ_CHECK(rec.ttl <= 0x7fffffffu);
		FUZZ_CHECK(rec.rdata_len > 0);
		cstr(owner, sizeof(owner), rec.owner, rec.owner_len);
		/* Every owner is qname, or a CNAME target that is in the body. */
		chained = dnsmsg_name_cmp(owner, qname) == 0;
		for (cur2 = 0; !chained && proto_records_next(&rs, &cur2, &rec2) == 1; ) {
			if (rec2.type != DNS_T_CNAME)
				continue;
			cstr(target, sizeof(target), rec2.rdata, rec2.rdata_len);
			chained = dnsmsg_name_cmp(owner, target) == 0;
		}
		FUZZ_CHECK(chained);
	}
	FUZZ_CHECK(i == rs.count);
}

/* dnsanswer_from_reply into a writer of cap bytes, on the heap when small. */
static int
run(const uint8_t *reply, size_t len, const char *qname, uint16_t qtype,
    int mode, uint8_t family, const uint8_t *addr, uint8_t *out, size_t cap,
    struct dnsanswer *ans, size_t *ret_len)
{
	struct proto_wr	 w;
	int		 r;

	proto_wr_init(&w, out, cap);
	r = dnsanswer_from_reply(reply, len, qname, qtype, mode, family, addr, &w, ans);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EMSGSIZE);
	FUZZ_CHECK(w.off <= cap);
	*ret_len = w.off;
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int	 modes[] = {
		DNSANSWER_ADDR, DNSANSWER_PTR, DNSANSWER_RR, DNSANSWER_ADDR,
	};
	struct dnsmsg		 m;
	struct dnsanswer		 ans, ans2;
	struct proto_answer	 pa, pb;
	struct proto_wr		 w;
	const uint8_t		*reply;
	uint8_t			 ctl, family, addr[16], *small;
	char			 qname[DNSMSG_NAME_STRLEN], ptr[80];
	size_t			 len, blen, blen2, cap, i, n;
	uint16_t		 qtype;
	int			 mode, r, r2;

	if (size < 1)
		return 0;
	ctl = data[0];
	reply = data + 1;
	len = size - 1;
	mode = modes[ctl & 3];
	family = ctl & 4 ? PROTO_AF_INET6 : PROTO_AF_INET;
	/* The address of a PTR answer: the reply's last bytes, or zeros. */
	memset(addr, 0, sizeof(addr));
	n = len < 16 ? len : 16;
	if (n)
		memcpy(addr, reply + len - n, n);

	dnsanswer_ptr_name(family, addr, ptr, sizeof(ptr));
	FUZZ_CHECK(strlen(ptr) < sizeof(ptr));
	n = strlen(ptr);
	FUZZ_CHECK(n > 13 && (strcmp(ptr + n - 13, ".in-addr.arpa") == 0 ||
	    strcmp(ptr + n - 9, ".ip6.arpa") == 0));

	if (dnsmsg_parse(reply, len, &m) < 0) {
		/* Nothing that does not parse is an answer. */
		FUZZ_CHECK(run(reply, len, "www.example.com", DNS_T_A, mode, family,
		    addr, body, sizeof(body), &ans, &blen) == -EBADMSG);
		FUZZ_CHECK(blen == 0);
		return 0;
	}
	if (m.qdcount == 1) {
		memcpy(qname, m.qname, strlen(m.qname) + 1);
		qtype = m.qtype;
	} else {
		memcpy(qname, "www.example.com", sizeof("www.example.com"));
		qtype = DNS_T_A;
	}
	if (ctl & 8) {
		for (i = 0; qname[i]; i++)
			if (qname[i] >= 'a' && qname[i] <= 'z')
				qname[i] = (char)(qname[i] - 'a' + 'A');
		if (i > 0 && qname[i - 1] != '.' && i + 1 < DNSMSG_NAME_STRLEN) {
			qname[i] = '.';
			qname[i + 1] = '\0';
		}
	}
	if (!(ctl & 16)) {
		if (mode == DNSANSWER_ADDR)
			qtype = ctl & 4 ? DNS_T_AAAA : DNS_T_A;
		else if (mode == DNSANSWER_PTR)
			qtype = DNS_T_PTR;
	}

	r = run(reply, len, qname, qtype, mode, family, addr, body, sizeof(body),
	    &ans, &blen);
	if (r == 0) {
		FUZZ_CHECK(ans.status == DNSANSWER_POSITIVE ||
		    ans.status == DNSANSWER_NXDOMAIN || ans.status == DNSANSWER_NODATA);
		FUZZ_CHECK(ans.ttl <= 0x7fffffffu);
		FUZZ_CHECK(strlen(ans.canon) < sizeof(ans.canon));
		if (ans.status != DNSANSWER_POSITIVE) {
			FUZZ_CHECK(blen == 0);
			FUZZ_CHECK(ans.cacheable || ans.ttl == 0);
			FUZZ_CHECK(m.rcode == (ans.status == DNSANSWER_NXDOMAIN ?
			    DNS_R_NXDOMAIN : DNS_R_NOERROR));
		} else {
			FUZZ_CHECK(ans.cacheable && m.rcode == DNS_R_NOERROR);
			if (mode == DNSANSWER_RR)
				check_records_body(body, blen, qname, qtype);
			else
				check_addr_body(body, blen, &ans, qname, qtype, mode,
				    family, addr);
		}
	}

	/* The same again: no state carried from one call to the next. */
	r2 = run(reply, len, qname, qtype, mode, family, addr, again,
	    sizeof(again), &ans2, &blen2);
	FUZZ_CHECK(r2 == r && blen2 == blen && memcmp(again, body, blen) == 0);
	if (r == 0)
		FUZZ_CHECK(ans.status == ans2.status && ans.ttl == ans2.ttl &&
		    ans.cacheable == ans2.cacheable &&
		    strcmp(ans.canon, ans2.canon) == 0);

	/* A smaller writer, exactly sized on the heap: too small, or the same. */
	if (ctl >> 5) {
		cap = r == 0 ? blen * (ctl >> 5) / 8 : (size_t)(ctl >> 5) * 16;
		if ((small = malloc(cap ? cap : 1)) == NULL)
			return 0;
		r2 = run(reply, len, qname, qtype, mode, family, addr, small, cap,
		    &ans2, &blen2);
		if (r == 0 && blen <= cap)
			FUZZ_CHECK(r2 == 0 && blen2 == blen &&
			    memcmp(small, body, blen) == 0);
		else if (r == 0)
			FUZZ_CHECK(r2 == -EMSGSIZE);
		else if (r == -EBADMSG)
			FUZZ_CHECK(r2 == -EBADMSG);
		else
			FUZZ_CHECK(r2 == -EMSGSIZE);
		free(small);
	}

	if (r != 0 || ans.status != DNSANSWER_POSITIVE)
		return 0;
	/* Stamped in place: the TTL and source change, nothing else. */
	memcpy(again, body, blen);
	proto_answer_stamp(again, blen, 0x12345678, PROTO_SRC_CACHE);
	FUZZ_CHECK(memcmp(again + 5, body + 5, blen - 5) == 0);
	FUZZ_CHECK(again[0] == 0x12 && again[3] == 0x78 &&
	    again[4] == PROTO_SRC_CACHE);
	if (mode == DNSANSWER_RR)
		return 0;
	/* Merged with itself as both families, and alone (engine/answer.c). */
	{
		struct answer typed = { .status = PROTO_OK, .form = ANSWER_HOST };

		FUZZ_CHECK(proto_answer_decode(body, blen, &pb) == 0);
		FUZZ_CHECK(answer_host_merge(&pb, &pb, addrs, sizeof(addrs),
		    &typed.host) == 0);
		proto_wr_init(&w, merged, sizeof(merged));
		answer_put_body(&typed, 77, PROTO_SRC_STALE, &w);
		FUZZ_CHECK(w.err == 0);
		FUZZ_CHECK(proto_answer_decode(merged, w.off, &pa) == 0);
		FUZZ_CHECK(pa.ttl == 77 && pa.source == PROTO_SRC_STALE);
		FUZZ_CHECK(pa.naddr == 2 * pb.naddr && pa.nalias == pb.nalias);
		FUZZ_CHECK(pa.canon_len == pb.canon_len &&
		    memcmp(pa.canon, pb.canon, pb.canon_len) == 0);
		FUZZ_CHECK(answer_host_merge(NULL, &pb, addrs, 0, &typed.host) == 0);
		proto_wr_init(&w, merged, sizeof(merged));
		answer_put_body(&typed, 1, PROTO_SRC_DNS, &w);
		FUZZ_CHECK(w.off == blen && memcmp(merged + 5, body + 5, blen - 5) == 0);
	}
	return 0;
}
