/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-dnswire.c - fuzz target: DNS queries from clients, upstream replies kept. */

/*
 * The input is taken three ways.  As a client's query: when it reads,
 * replies with a few records are written to it under each limit, and an
 * error reply always; each is held to its limit (an error reply to the
 * query's length) and read back with dnsmsg.  As an upstream reply: its
 * records are kept, written into a reply, and compared with dnsmsg's own
 * reading of the input.  As a kept list from a file: written, or refused
 * with the reply left as it was.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dnswire.h"
#include "fuzz.h"
#include "name.h"

static uint8_t	reply[DNSWIRE_TCP_LIMIT + 1];
/* Each record's names expanded: an owner and two names of 255, 20 bytes. */
static uint8_t	kept[DNSMSG_MAX_RRS * 800];

/* "example.com A" with EDNS, DO set: the question kept records go under. */
static const uint8_t fixed_query[] = {
	0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1,
	7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1,
	0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0,
};

/*
 * A buffer of exactly limit bytes, on the heap so that ASan sees past its
 * end, full of stale bytes that read as pointers: nothing may read them.
 */
static uint8_t *
stale_buffer(size_t limit)
{
	uint8_t *p = malloc(limit);

	FUZZ_CHECK(p != NULL);
	memset(p, 0xff, limit);
	return p;
}

/* A reply as written: within its limit, parsed by dnsmsg, the question as read. */
static void
check_reply(const uint8_t *buf, size_t n, size_t limit,
    const struct dnswire_query *q, struct dnsmsg *m)
{
	FUZZ_CHECK(n >= 12 && n <= limit);
	FUZZ_CHECK(dnsmsg_parse(buf, n, m) == 0);
	FUZZ_CHECK(m->id == q->id && (m->flags & 0x8000));
	FUZZ_CHECK(m->qdcount == 1 && m->qtype == q->qtype);
	FUZZ_CHECK(memcmp(buf + 12, q->wire, q->wire_len) == 0);
	FUZZ_CHECK(m->arcount == (q->edns ? 1 : 0));
	if (m->flags & 0x0200)
		FUZZ_CHECK(m->ancount == 0 && m->nscount == 0);
}

static void
query_replies(const struct dnswire_query *q)
{
	static const uint8_t	 addr[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t	 soa[] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0,
	    0, 3, 0, 0, 0, 4, 0, 0, 0, 5 };
	struct dnswire_wr	 w;
	struct dnsmsg		 m;
	struct dnsmsg_rr	 rr;
	struct dnsmsg_iter	 it;
	const size_t		 limits[] = { q->udp_size, DNSWIRE_UDP_PLAIN,
	    DNSWIRE_TCP_LIMIT };
	uint8_t			*buf;
	unsigned		 i, j;
	size_t			 n;
	int			 r[6];

	FUZZ_CHECK(q->wire_len >= 1 && q->wire_len <= DNSMSG_NAME_MAX);
	FUZZ_CHECK(q->name_len == strlen(q->name));
	FUZZ_CHECK((q->name_len == 0) == (q->wire_len == 1));
	FUZZ_CHECK(q->udp_size >= DNSWIRE_UDP_PLAIN &&
	    q->udp_size <= DNSWIRE_EDNS_SIZE);
	FUZZ_CHECK(q->edns || (q->udp_size == DNSWIRE_UDP_PLAIN && !q->do_bit));
	for (i = 0; i < 3; i++) {
		buf = stale_buffer(limits[i]);
		dnswire_reply_begin(&w, buf, limits[i], limits[i], q,
		    DNS_R_NOERROR);
		/* The name as read goes back as its own bytes: never -EINVAL. */
		r[0] = dnswire_add_a(&w, DNS_S_ANSWER, NULL, 60, addr);
		r[1] = dnswire_add_aaaa(&w, DNS_S_ANSWER, q->name, 60, addr);
		r[2] = dnswire_add_cname(&w, DNS_S_ANSWER, q->name, 60, q->name);
		r[3] = dnswire_add_ptr(&w, DNS_S_ANSWER, NULL, 60, "x.example");
		r[4] = dnswire_add_soa(&w, DNS_S_AUTHORITY, q->name, 60, soa,
		    sizeof(soa));
		r[5] = dnswire_add_a(&w, DNS_S_ANSWER, NULL, 60, addr);
		for (j = 0; j < 5; j++)
			FUZZ_CHECK(r[j] == 0 || r[j] == -ENOSPC);
		FUZZ_CHECK(r[5] == (r[4] == 0 ? -EINVAL : -ENOSPC));
		n = dnswire_reply_end(&w);
		check_reply(buf, n, limits[i], q, &m);
		if (m.flags & 0x0200) {
			free(buf);
			continue;
		}
		FUZZ_CHECK(r[4] == 0 && m.ancount == 4 && m.nscount == 1);
		/* Every owner is the question, by pointer: its spelling too. */
		memset(&it, 0, sizeof(it));
		while (dnsmsg_next_rr(&m, &it, &rr) == 1 && rr.type != DNS_T_OPT)
			FUZZ_CHECK(q->name_len == 0 ? strcmp(rr.name, ".") == 0 :
			    strcmp(rr.name, q->name) == 0);
		free(buf);
	}
}

/* Error replies never outgrow the query, and read back. */
static void
error_replies(const struct dnswire_query *q, int verdict, size_t size)
{
	static const int	 rcodes[] = { DNS_R_REFUSED, DNS_R_SERVFAIL };
	struct dnsmsg		 m;
	size_t			 n;
	unsigned		 i;

	n = dnswire_reply_error(reply, sizeof(reply), q, size, verdict);
	if (verdict == DNSWIRE_DROP) {
		FUZZ_CHECK(n == 0);
		return;
	}
	FUZZ_CHECK(n >= 12 && n <= size);
	FUZZ_CHECK(dnsmsg_parse(reply, n, &m) == 0 && m.id == q->id);
	FUZZ_CHECK((m.rcode == (verdict & 0x0f)));
	for (i = 0; i < 2; i++) {
		n = dnswire_reply_error(reply, sizeof(reply), q, size, rcodes[i]);
		FUZZ_CHECK(n >= 12 && n <= size);
		FUZZ_CHECK(dnsmsg_parse(reply, n, &m) == 0);
		FUZZ_CHECK(m.rcode == rcodes[i]);
	}
}

/* Types whose rdata dnsmsg prints from the bytes, compression and all. */
static bool
rdata_comparable(uint16_t t)
{
	return !(t == 3 || t == 4 || (t >= 7 && t <= 9) || t == 14 ||
	    t == 17 || t == 18 || t == 21 || t == 24 || t == 26 || t == 30 ||
	    t == 35);
}

/* Each kept record, written, against the upstream record it came from. */
static void
compare_kept(const struct dnsmsg *up, const struct dnsmsg *m, uint32_t age,
    uint32_t cap)
{
	static char		 a[4 * 65536 + 64], b[4 * 65536 + 64];
	struct dnsmsg_iter	 uit, it;
	struct dnsmsg_rr	 urr, rr;
	uint32_t		 ttl, minimum;
	int			 ra, rb;

	memset(&uit, 0, sizeof(uit));
	memset(&it, 0, sizeof(it));
	while (dnsmsg_next_rr(up, &uit, &urr) == 1 &&
	    urr.section != DNS_S_ADDITIONAL) {
		if (urr.type == DNS_T_OPT)
			continue;
		FUZZ_CHECK(dnsmsg_next_rr(m, &it, &rr) == 1);
		FUZZ_CHECK(rr.section == urr.section && rr.type == urr.type &&
		    rr.rclass == urr.rclass);
		FUZZ_CHECK(dnsmsg_name_cmp(rr.name, urr.name) == 0);
		ttl = urr.ttl > 0x7fffffff ? 0 : urr.ttl;
		if (urr.type == DNS_T_SOA && urr.section == DNS_S_AUTHORITY &&
		    dnsmsg_rdata_soa_minimum(up, &urr, &minimum) == 0 &&
		    minimum < ttl)
			ttl = minimum;
		ttl = ttl > age ? ttl - age : 0;
		FUZZ_CHECK(rr.ttl == (ttl < cap ? ttl : cap));
		if (!rdata_comparable(rr.type))
			continue;
		ra = dnsmsg_rdata_str(up, &urr, a, sizeof(a));
		rb = dnsmsg_rdata_str(m, &rr, b, sizeof(b));
		FUZZ_CHECK(ra == rb);
		if (ra > 0)
			FUZZ_CHECK(name_cmp_fold(a, (size_t)ra, b, (size_t)rb) == 0);
	}
	/* Then only the reply's own OPT. */
	FUZZ_CHECK(dnsmsg_next_rr(m, &it, &rr) == 1 && rr.type == DNS_T_OPT);
}

static void
keep(const uint8_t *data, size_t size, const struct dnswire_query *fq)
{
	struct dnswire_wr	w;
	struct dnsmsg		up, m;
	uint32_t		ttl, age = size ? data[size - 1] * 7u : 0;
	/* A cap from the input too: every other one none. */
	uint32_t		cap = size > 1 && data[size - 2] & 1 ?
				    data[size - 2] * 11u : UINT32_MAX;
	uint8_t			*buf;
	size_t			n;
	bool			parsed;
	int			k, r;

	parsed = dnsmsg_parse(data, size, &up) == 0;
	k = dnswire_rrs_keep(data, size, kept, sizeof(kept));
	FUZZ_CHECK(k == -EBADMSG || (k >= 0 && parsed));
	if (k < 0)
		return;
	r = dnswire_rrs_ttl(kept, (size_t)k, &ttl);
	FUZZ_CHECK(k == 0 ? r == -ENOENT : r == 0);

	/* What keep wrote, add_kept takes: all of it, or a truncated reply. */
	dnswire_reply_begin(&w, reply, sizeof(reply), DNSWIRE_TCP_LIMIT, fq, 0);
	r = dnswire_add_kept(&w, kept, (size_t)k, age, cap);
	FUZZ_CHECK(r == 0 || r == -ENOSPC);
	n = dnswire_reply_end(&w);
	check_reply(reply, n, DNSWIRE_TCP_LIMIT, fq, &m);
	if (r == 0)
		compare_kept(&up, &m, age, cap);
	buf = stale_buffer(fq->udp_size);
	dnswire_reply_begin(&w, buf, fq->udp_size, fq->udp_size, fq, 0);
	r = dnswire_add_kept(&w, kept, (size_t)k, age, cap);
	FUZZ_CHECK(r == 0 || r == -ENOSPC);
	check_reply(buf, dnswire_reply_end(&w), fq->udp_size, fq, &m);
	free(buf);
}

/* The input as a kept list read back from a store. */
static void
kept_list(const uint8_t *data, size_t size, const struct dnswire_query *fq)
{
	struct dnswire_wr	w;
	struct dnsmsg		m;
	uint32_t		ttl;
	size_t			empty, n;
	int			r, t;

	dnswire_reply_begin(&w, reply, sizeof(reply), DNSWIRE_TCP_LIMIT, fq, 0);
	empty = dnswire_reply_end(&w);
	dnswire_reply_begin(&w, reply, sizeof(reply), DNSWIRE_TCP_LIMIT, fq, 0);
	r = dnswire_add_kept(&w, data, size, 0, UINT32_MAX);
	n = dnswire_reply_end(&w);
	t = dnswire_rrs_ttl(data, size, &ttl);
	FUZZ_CHECK(r == 0 || r == -ENOSPC || r == -EBADMSG);
	FUZZ_CHECK(t == 0 || t == -ENOENT || t == -EBADMSG);
	/* Written compressed, a list cannot outgrow itself by much. */
	if (size < 60000)
		FUZZ_CHECK(r != -ENOSPC);
	if (r == -EBADMSG)
		FUZZ_CHECK(n == empty);
	if (t == -EBADMSG)
		FUZZ_CHECK(r == -EBADMSG);
	if (r == 0)
		FUZZ_CHECK(t != -EBADMSG && (t == -ENOENT) == (size == 0));
	check_reply(reply, n, DNSWIRE_TCP_LIMIT, fq, &m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnswire_query	q, fq;
	int			v;

	v = dnswire_query_read(data, size, &q);
	FUZZ_CHECK(v == DNSWIRE_DROP || v == DNSWIRE_OK ||
	    v == DNSWIRE_FORMERR || v == DNSWIRE_NOTIMP || v == DNSWIRE_BADVERS);
	FUZZ_CHECK((v == DNSWIRE_DROP) == (size < 12 || (data[2] & 0x80)));
	if (v == DNSWIRE_OK)
		query_replies(&q);
	if (v == DNSWIRE_BADVERS)
		FUZZ_CHECK(q.edns);
	error_replies(&q, v, size);

	FUZZ_CHECK(dnswire_query_read(fixed_query, sizeof(fixed_query), &fq) ==
	    DNSWIRE_OK);
	keep(data, size, &fq);
	kept_list(data, size, &fq);
	return 0;
}
