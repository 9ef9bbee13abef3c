/* SPDX-License-Identifier: MIT */
/* tests/unit/test-dnsanswer.c - unit tests of DNS replies turned into cacheable answers. */

/*
 * Replies are built here with a tiny builder (struct mb) that counts the
 * records of each section in the header as they are added, so a test reads
 * as the reply it sends.  Every reply is handed over in a heap buffer of
 * exactly its size, so that a read past the end is an ASan report.
 * Answer bodies are decoded with proto/ and flattened to one string,
 * "canonical|addr addr|alias alias", records bodies to one line per
 * record, "owner TYPE ttl rdata", so an assertion shows the whole answer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "answer.h"
#include "dnsanswer.h"
#include "dnsmsg.h"
#include "proto.h"

#define MB_MAX		65536
#define F_QR_RD_RA	0x8180		/* a response, recursion desired and available */
#define F_NXDOMAIN	0x8183
#define CLASS_IN	1
#define CLASS_CH	3

/* A reply under construction; RRs go to the section last chosen. */
struct mb {
	uint8_t	buf[MB_MAX];
	size_t	len;
	int	section;		/* enum dnsmsg_section */
};

static struct mb	mb;

/* The output of the last run(). */
static uint8_t		body[PROTO_FRAME_MAX];
static size_t		body_len;
static struct dnsanswer	ans;

static void
mb_u8(uint8_t v)
{
	assert_true(mb.len < MB_MAX);
	mb.buf[mb.len++] = v;
}

static void
mb_u16(uint16_t v)
{
	mb_u8((uint8_t)(v >> 8));
	mb_u8((uint8_t)v);
}

static void
mb_u32(uint32_t v)
{
	mb_u16((uint16_t)(v >> 16));
	mb_u16((uint16_t)v);
}

static void
mb_bytes(const void *p, size_t n)
{
	assert_true(n <= MB_MAX - mb.len);
	if (n)
		memcpy(mb.buf + mb.len, p, n);
	mb.len += n;
}

/* The labels of a dotted name ("" and "." have none), no root label. */
static size_t
mb_labels(const char *name)
{
	size_t		 start = mb.len, n;
	const char	*dot;

	while (*name && strcmp(name, ".") != 0) {
		dot = strchr(name, '.');
		n = dot ? (size_t)(dot - name) : strlen(name);
		assert_true(n >= 1 && n <= 63);
		mb_u8((uint8_t)n);
		mb_bytes(name, n);
		name += n + (dot ? 1 : 0);
	}
	return start;
}

/* A whole uncompressed name; returns its offset. */
static size_t
mb_name(const char *name)
{
	size_t start = mb_labels(name);

	mb_u8(0);
	return start;
}

/* A compression pointer to off. */
static void
mb_ptr(size_t off)
{
	assert_true(off < 0x4000);
	mb_u16((uint16_t)(0xc000 | off));
}

/* A header with no records yet, and the question (qdcount 1) unless qname is NULL. */
static void
mb_begin_class(uint16_t flags, const char *qname, uint16_t qtype, uint16_t qclass)
{
	mb.len = 0;
	mb.section = DNS_S_ANSWER;
	mb_u16(0x4242);
	mb_u16(flags);
	mb_u16(qname ? 1 : 0);
	mb_u16(0);
	mb_u16(0);
	mb_u16(0);
	if (qname) {
		mb_name(qname);
		mb_u16(qtype);
		mb_u16(qclass);
	}
}

static void
mb_begin(uint16_t flags, const char *qname, uint16_t qtype)
{
	mb_begin_class(flags, qname, qtype, CLASS_IN);
}

static void
mb_section(int section)
{
	mb.section = section;
}

/*
 * After the owner name: type, class, ttl and a place for rdlength; counts
 * the RR in its section.  Returns where rdlength goes, for mb_rr_end.
 */
static size_t
mb_rr_fixed_class(uint16_t type, uint16_t rclass, uint32_t ttl)
{
	size_t	at, count = 6 + 2 * (size_t)(mb.section - DNS_S_ANSWER);
	int	n = mb.buf[count] << 8 | mb.buf[count + 1];

	n++;
	mb.buf[count] = (uint8_t)(n >> 8);
	mb.buf[count + 1] = (uint8_t)n;
	mb_u16(type);
	mb_u16(rclass);
	mb_u32(ttl);
	at = mb.len;
	mb_u16(0);
	return at;
}

static size_t
mb_rr_fixed(uint16_t type, uint32_t ttl)
{
	return mb_rr_fixed_class(type, CLASS_IN, ttl);
}

/* Patches rdlength to what was written since mb_rr_fixed. */
static void
mb_rr_end(size_t at)
{
	size_t n = mb.len - at - 2;

	assert_true(n <= UINT16_MAX);
	mb.buf[at] = (uint8_t)(n >> 8);
	mb.buf[at + 1] = (uint8_t)n;
}

/* An RR with raw rdata; owner a dotted name. */
static void
rr_raw(const char *owner, uint16_t type, uint32_t ttl, const void *rdata,
    size_t rdlen)
{
	size_t at;

	mb_name(owner);
	at = mb_rr_fixed(type, ttl);
	mb_bytes(rdata, rdlen);
	mb_rr_end(at);
}

/* An A or AAAA record of a text address. */
static void
rr_addr_class(const char *owner, uint16_t rclass, uint32_t ttl, const char *text)
{
	uint8_t a[16];
	size_t	at;
	bool	v6 = strchr(text, ':') != NULL;

	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, text, a), 1);
	mb_name(owner);
	at = mb_rr_fixed_class(v6 ? DNS_T_AAAA : DNS_T_A, rclass, ttl);
	mb_bytes(a, v6 ? 16 : 4);
	mb_rr_end(at);
}

static void
rr_addr(const char *owner, uint32_t ttl, const char *text)
{
	rr_addr_class(owner, CLASS_IN, ttl, text);
}

/* A CNAME, PTR or NS record, its target uncompressed. */
static void
rr_name(const char *owner, uint16_t type, uint32_t ttl, const char *target)
{
	size_t at;

	mb_name(owner);
	at = mb_rr_fixed(type, ttl);
	mb_name(target);
	mb_rr_end(at);
}

static void
rr_cname(const char *owner, uint32_t ttl, const char *target)
{
	rr_name(owner, DNS_T_CNAME, ttl, target);
}

static void
rr_soa(const char *owner, uint32_t ttl, uint32_t minimum)
{
	size_t at;

	mb_name(owner);
	at = mb_rr_fixed(DNS_T_SOA, ttl);
	mb_name("ns1.example.com");
	mb_name("hostmaster.example.com");
	mb_u32(2024010101);
	mb_u32(7200);
	mb_u32(3600);
	mb_u32(1209600);
	mb_u32(minimum);
	mb_rr_end(at);
}

/*
 * dnsanswer_from_reply on the reply in mb, from an exact-size heap copy, into
 * a writer of cap bytes (also exact-size on the heap).  The body lands in
 * body[0..body_len), the answer in ans.
 */
static int
run_cap(const char *qname, uint16_t qtype, int mode, uint8_t family,
    const uint8_t *addr, size_t cap)
{
	struct proto_wr	 w;
	uint8_t		*reply, *out;
	int		 r;

	assert_true(cap <= sizeof(body));
	assert_non_null(reply = malloc(mb.len ? mb.len : 1));
	memcpy(reply, mb.buf, mb.len);
	assert_non_null(out = malloc(cap ? cap : 1));
	proto_wr_init(&w, out, cap);
	memset(&ans, 0xa5, sizeof(ans));
	r = dnsanswer_from_reply(reply, mb.len, qname, qtype, mode, family, addr,
	    &w, &ans);
	assert_true(w.off <= cap);
	body_len = w.off;
	memcpy(body, out, w.off);
	free(out);
	free(reply);
	return r;
}

static int
run(const char *qname, uint16_t qtype, int mode)
{
	return run_cap(qname, qtype, mode, 0, NULL, sizeof(body));
}

/* Flattens an answer body; its ttl and source must be these. */
static char *
flatten_answer(const uint8_t *b, size_t len, uint32_t ttl, uint8_t source)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*s;
	char			*out = NULL, text[INET6_ADDRSTRLEN];
	size_t			 outlen = 0, cur, n, i;
	uint8_t			 fam;
	FILE			*f;

	assert_int_equal(proto_answer_decode(b, len, &a), 0);
	assert_int_equal(a.ttl, ttl);
	assert_int_equal(a.source, source);
	assert_int_equal(a.flags, 0);
	assert_non_null(f = open_memstream(&out, &outlen));
	fprintf(f, "%.*s|", (int)a.canon_len, a.canon);
	cur = 0;
	for (i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		assert_true(fam == PROTO_AF_INET || fam == PROTO_AF_INET6);
		assert_non_null(inet_ntop(fam == PROTO_AF_INET ? AF_INET :
		    AF_INET6, addr, text, sizeof(text)));
		fprintf(f, "%s%s", i ? " " : "", text);
	}
	assert_int_equal(i, a.naddr);
	fputc('|', f);
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &n); i++)
		fprintf(f, "%s%.*s", i ? " " : "", (int)n, s);
	assert_int_equal(i, a.nalias);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* Flattens a records body: "owner TYPE ttl rdata" lines, joined by '\n'. */
static char *
flatten_records(const uint8_t *b, size_t len)
{
	struct proto_records	 rs;
	struct proto_record	 rec;
	char			*out = NULL, tb[DNSMSG_TYPE_STRLEN];
	size_t			 outlen = 0, cur = 0;
	unsigned		 i;
	FILE			*f;

	assert_int_equal(proto_records_decode(b, len, &rs), 0);
	assert_int_equal(rs.ttl, 0);
	assert_int_equal(rs.source, PROTO_SRC_DNS);
	assert_non_null(f = open_memstream(&out, &outlen));
	for (i = 0; proto_records_next(&rs, &cur, &rec) == 1; i++)
		fprintf(f, "%s%.*s %s %u %.*s", i ? "\n" : "",
		    (int)rec.owner_len, rec.owner,
		    dnsmsg_type_str(rec.type, tb, sizeof(tb)), rec.ttl,
		    (int)rec.rdata_len, rec.rdata);
	assert_int_equal(i, rs.count);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* A positive DNSANSWER_ADDR reply: its TTL, canonical name and flattened body. */
static void
expect_addr(const char *qname, uint16_t qtype, uint32_t ttl, const char *want)
{
	char	*got;
	int	 r;

	r = run(qname, qtype, DNSANSWER_ADDR);
	if (r != 0)
		print_message("%s type %u: %d\n", qname, qtype, r);
	assert_int_equal(r, 0);
	assert_int_equal(ans.status, DNSANSWER_POSITIVE);
	assert_true(ans.cacheable);
	assert_int_equal(ans.ttl, ttl);
	got = flatten_answer(body, body_len, 0, PROTO_SRC_DNS);
	assert_string_equal(got, want);
	/* The canonical name is also in ans. */
	assert_int_equal(strncmp(got, ans.canon, strlen(ans.canon)), 0);
	assert_int_equal(got[strlen(ans.canon)], '|');
	free(got);
}

static void
expect_records(const char *qname, uint16_t qtype, uint32_t ttl, const char *want)
{
	char	*got;
	int	 r;

	r = run(qname, qtype, DNSANSWER_RR);
	if (r != 0)
		print_message("%s type %u: %d\n", qname, qtype, r);
	assert_int_equal(r, 0);
	assert_int_equal(ans.status, DNSANSWER_POSITIVE);
	assert_true(ans.cacheable);
	assert_int_equal(ans.ttl, ttl);
	got = flatten_records(body, body_len);
	assert_string_equal(got, want);
	free(got);
}

/* A negative reply: status, TTL, cacheable; nothing is written. */
static void
expect_negative(const char *qname, uint16_t qtype, int status, uint32_t ttl,
    bool cacheable)
{
	int mode;

	for (mode = DNSANSWER_ADDR; mode <= DNSANSWER_RR; mode++) {
		assert_int_equal(run(qname, qtype, mode), 0);
		assert_int_equal(ans.status, status);
		assert_int_equal(ans.ttl, ttl);
		assert_int_equal(ans.cacheable, cacheable);
		assert_int_equal(body_len, 0);
	}
}

static void
expect_bad(const char *qname, uint16_t qtype)
{
	int mode;

	for (mode = DNSANSWER_ADDR; mode <= DNSANSWER_RR; mode++)
		assert_int_equal(run(qname, qtype, mode), -EBADMSG);
}

static void
test_a(void **state)
{
	size_t at;

	/* The owners compressed to the question, as servers send them. */
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_A, 300);
	mb_bytes("\xc0\x00\x02\x01", 4);
	mb_rr_end(at);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_A, 200);
	mb_bytes("\xc0\x00\x02\x02", 4);
	mb_rr_end(at);
	expect_addr("www.example.com", DNS_T_A, 200,
	    "www.example.com|192.0.2.1 192.0.2.2|");
	assert_string_equal(ans.canon, "www.example.com");
	/*
	 * The name asked is matched without regard to case or a final dot,
	 * and names come back without the dot, as glibc's dn_expand gives them.
	 */
	expect_addr("WWW.Example.COM.", DNS_T_A, 200,
	    "WWW.Example.COM|192.0.2.1 192.0.2.2|");
	expect_records("www.example.com", DNS_T_A, 200,
	    "www.example.com A 300 192.0.2.1\n"
	    "www.example.com A 200 192.0.2.2");

	/* The question in another case than the name asked. */
	mb_begin(F_QR_RD_RA, "WWW.EXAMPLE.COM", DNS_T_A);
	rr_addr("Www.Example.Com", 60, "192.0.2.9");
	expect_addr("www.example.com", DNS_T_A, 60, "www.example.com|192.0.2.9|");
}

static void
test_aaaa(void **state)
{
	mb_begin(F_QR_RD_RA, "v6.example.com", DNS_T_AAAA);
	rr_addr("v6.example.com", 3600, "2001:db8::1");
	rr_addr("v6.example.com", 3600, "2001:db8::2:0:0:1");
	/* An A in the reply to an AAAA query is not an answer. */
	rr_addr("v6.example.com", 10, "192.0.2.1");
	expect_addr("v6.example.com", DNS_T_AAAA, 3600,
	    "v6.example.com|2001:db8::1 2001:db8::2:0:0:1|");

	/* Only an A: NODATA for AAAA. */
	mb_begin(F_QR_RD_RA, "v4only.example.com", DNS_T_AAAA);
	rr_addr("v4only.example.com", 10, "192.0.2.1");
	expect_negative("v4only.example.com", DNS_T_AAAA, DNSANSWER_NODATA, 0, false);
}

/* The chain is followed from qname; the TTL is the smallest on it. */
static void
test_cname_chain(void **state)
{
	size_t at, web, edge;

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_CNAME, 3600);
	web = mb_labels("web");
	mb_ptr(16);				/* web.example.com */
	mb_rr_end(at);
	mb_ptr(web);
	at = mb_rr_fixed(DNS_T_CNAME, 60);
	edge = mb_labels("edge.cdn");
	mb_ptr(16);				/* edge.cdn.example.com */
	mb_rr_end(at);
	mb_ptr(edge);
	at = mb_rr_fixed(DNS_T_CNAME, 600);
	mb_labels("e1.akamai");
	mb_name("net");
	mb_rr_end(at);
	rr_addr("e1.akamai.net", 300, "198.51.100.7");
	rr_addr("e1.akamai.net", 300, "198.51.100.8");
	expect_addr("www.example.com", DNS_T_A, 60,
	    "e1.akamai.net|198.51.100.7 198.51.100.8|"
	    "www.example.com web.example.com edge.cdn.example.com");
	assert_string_equal(ans.canon, "e1.akamai.net");
	expect_records("www.example.com", DNS_T_A, 60,
	    "www.example.com CNAME 3600 web.example.com.\n"
	    "web.example.com CNAME 60 edge.cdn.example.com.\n"
	    "edge.cdn.example.com CNAME 600 e1.akamai.net.\n"
	    "e1.akamai.net A 300 198.51.100.7\n"
	    "e1.akamai.net A 300 198.51.100.8");

	/* Out of order, and the smallest TTL on a record. */
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_AAAA);
	rr_addr("c.example", 5, "2001:db8::c");
	rr_cname("b.example", 100, "c.example");
	rr_cname("a.example", 200, "b.example");
	expect_addr("a.example", DNS_T_AAAA, 5, "c.example|2001:db8::c|a.example b.example");

	/* Records of a name in the middle of the chain are not the answer. */
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_A);
	rr_addr("a.example", 100, "192.0.2.1");
	rr_cname("a.example", 100, "b.example");
	rr_addr("b.example", 100, "192.0.2.2");
	expect_addr("a.example", DNS_T_A, 100, "b.example|192.0.2.2|a.example");

	/* A chain that ends without the records: NODATA for its end. */
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_A);
	rr_cname("a.example", 100, "b.example");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example", 600, 300);
	expect_negative("a.example", DNS_T_A, DNSANSWER_NODATA, 300, true);
	assert_string_equal(ans.canon, "b.example");

	/* Asking for the CNAME itself: it is the answer, not followed. */
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_CNAME);
	rr_cname("a.example", 100, "b.example");
	rr_cname("b.example", 50, "c.example");
	expect_records("a.example", DNS_T_CNAME, 100,
	    "a.example CNAME 100 b.example.");
	assert_string_equal(ans.canon, "a.example");
}

/* A chain of n CNAMEs, c0.example -> ... -> cn.example, then an A there. */
static void
build_chain(unsigned n)
{
	char		owner[32], target[32];
	unsigned	i;

	mb_begin(F_QR_RD_RA, "c0.example", DNS_T_A);
	for (i = 0; i < n; i++) {
		snprintf(owner, sizeof(owner), "c%u.example", i);
		snprintf(target, sizeof(target), "c%u.example", i + 1);
		rr_cname(owner, 1000 - i, target);
	}
	snprintf(owner, sizeof(owner), "c%u.example", n);
	rr_addr(owner, 2000, "192.0.2.1");
}

static void
test_chain_limit(void **state)
{
	char		*got, want[1024];
	size_t		 off;
	unsigned	 i;

	build_chain(DNSANSWER_CHAIN_MAX);
	off = (size_t)snprintf(want, sizeof(want), "c16.example|192.0.2.1|");
	for (i = 0; i < DNSANSWER_CHAIN_MAX; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off, "%sc%u.example",
		    i ? " " : "", i);
	expect_addr("c0.example", DNS_T_A, 1000 - 15, want);
	assert_int_equal(run("c0.example", DNS_T_A, DNSANSWER_RR), 0);
	got = flatten_records(body, body_len);
	assert_non_null(strstr(got, "c15.example CNAME 985 c16.example.\n"
	    "c16.example A 2000 192.0.2.1"));
	free(got);

	build_chain(DNSANSWER_CHAIN_MAX + 1);
	expect_bad("c0.example", DNS_T_A);

	/* Without the A at the end: still too long, not NODATA. */
	build_chain(DNSANSWER_CHAIN_MAX + 1);
	mb.len -= 4 + 10 + 13;		/* drop the A, its header and owner */
	mb.buf[7]--;
	expect_bad("c0.example", DNS_T_A);
}

static void
test_cname_loop(void **state)
{
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_A);
	rr_cname("a.example", 60, "b.example");
	rr_cname("b.example", 60, "a.example");
	rr_addr("a.example", 60, "192.0.2.1");
	rr_addr("b.example", 60, "192.0.2.2");
	expect_bad("a.example", DNS_T_A);

	mb_begin(F_QR_RD_RA, "self.example", DNS_T_A);
	rr_cname("self.example", 60, "SELF.example.");
	expect_bad("self.example", DNS_T_A);

	/* A loop that does not start at qname. */
	mb_begin(F_QR_RD_RA, "a.example", DNS_T_AAAA);
	rr_cname("a.example", 60, "b.example");
	rr_cname("b.example", 60, "c.example");
	rr_cname("c.example", 60, "b.example");
	expect_bad("a.example", DNS_T_AAAA);
}

/* Nothing in a reply can plant data for a name that was not asked. */
static void
test_poisoning(void **state)
{
	mb_begin(F_QR_RD_RA, "www.example", DNS_T_A);
	rr_addr("bank.example", 86400, "203.0.113.66");
	rr_addr("www.example", 300, "192.0.2.1");
	rr_addr("www.example.evil", 86400, "203.0.113.67");
	rr_addr("example", 86400, "203.0.113.68");
	rr_cname("bank.example", 86400, "www.example");
	rr_addr_class("www.example", CLASS_CH, 86400, "203.0.113.69");
	rr_raw("bank.example", DNS_T_A, 86400, "\1\2\3", 3);	/* malformed, not ours */
	mb_section(DNS_S_AUTHORITY);
	rr_addr("www.example", 86400, "203.0.113.70");
	rr_cname("www.example", 86400, "bank.example");
	mb_section(DNS_S_ADDITIONAL);
	rr_addr("www.example", 86400, "203.0.113.71");
	rr_cname("www.example", 86400, "bank.example");
	rr_addr("bank.example", 86400, "203.0.113.72");
	expect_addr("www.example", DNS_T_A, 300, "www.example|192.0.2.1|");
	expect_records("www.example", DNS_T_A, 300, "www.example A 300 192.0.2.1");

	/* Only another name's data: NODATA, not bank's address. */
	mb_begin(F_QR_RD_RA, "www.example", DNS_T_A);
	rr_addr("bank.example", 86400, "203.0.113.66");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example", 3600, 60);
	expect_negative("www.example", DNS_T_A, DNSANSWER_NODATA, 60, true);

	/* A chain through other names: only the chain's end answers. */
	mb_begin(F_QR_RD_RA, "www.example", DNS_T_A);
	rr_cname("www.example", 300, "cdn.example");
	rr_addr("bank.example", 86400, "203.0.113.66");
	rr_addr("cdn.example", 300, "192.0.2.5");
	rr_addr("www.example", 300, "203.0.113.67");
	expect_addr("www.example", DNS_T_A, 300, "cdn.example|192.0.2.5|www.example");
}

static void
test_question_mismatch(void **state)
{
	/* Another name. */
	mb_begin(F_QR_RD_RA, "www.example.org", DNS_T_A);
	rr_addr("www.example.org", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);
	expect_bad("www.example", DNS_T_A);
	expect_bad("ww.example.org", DNS_T_A);

	/* Another type. */
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);

	/* Another class. */
	mb_begin_class(F_QR_RD_RA, "www.example.com", DNS_T_A, CLASS_CH);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);

	/* No question. */
	mb_begin(F_QR_RD_RA, NULL, 0);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);

	/* The same reply with the right question is fine. */
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_addr("www.example.com", DNS_T_A, 60, "www.example.com|192.0.2.1|");
}

static void
test_not_response(void **state)
{
	/* QR clear: a query. */
	mb_begin(0x0100, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);

	/* A response, but to another opcode (STATUS). */
	mb_begin(0x8000 | 2 << 11 | 0x0180, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_bad("www.example.com", DNS_T_A);

	/* AA and AD do not matter. */
	mb_begin(0x8000 | 0x0400 | 0x0020 | 0x0180, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "192.0.2.1");
	expect_addr("www.example.com", DNS_T_A, 60, "www.example.com|192.0.2.1|");
}

static void
test_rcode(void **state)
{
	static const uint16_t bad[] = {
		DNS_R_FORMERR, DNS_R_SERVFAIL, DNS_R_NOTIMP, DNS_R_REFUSED, 6, 9, 15,
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mb_begin(F_QR_RD_RA | bad[i], "www.example.com", DNS_T_A);
		rr_addr("www.example.com", 60, "192.0.2.1");
		mb_section(DNS_S_AUTHORITY);
		rr_soa("example.com", 60, 60);
		expect_bad("www.example.com", DNS_T_A);
	}

	/* NXDOMAIN with the very data asked for contradicts itself. */
	mb_begin(F_NXDOMAIN, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "192.0.2.1");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 60, 60);
	expect_bad("www.example.com", DNS_T_A);
}

/* Negative answers: min(SOA TTL, SOA MINIMUM), or not cacheable. */
static void
test_negative(void **state)
{
	size_t at;

	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 900, 60);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 60, true);
	assert_string_equal(ans.canon, "nope.example.com");

	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 30, 300);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 30, true);

	/* NODATA: NOERROR and no answer. */
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 3600, 600);
	expect_negative("www.example.com", DNS_T_AAAA, DNSANSWER_NODATA, 600, true);

	/* Without an SOA: not cacheable. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 0, false);
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	expect_negative("www.example.com", DNS_T_AAAA, DNSANSWER_NODATA, 0, false);

	/* An SOA only in the additional section, or of class CH, is no SOA. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_name("example.com", DNS_T_NS, 3600, "ns1.example.com");
	mb_name("example.com");
	at = mb_rr_fixed_class(DNS_T_SOA, CLASS_CH, 100);
	mb_name("a");
	mb_name("b");
	mb_bytes("\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1", 20);
	mb_rr_end(at);
	mb_section(DNS_S_ADDITIONAL);
	rr_soa("example.com", 100, 100);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 0, false);

	/* Two SOAs: the first. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 120, 120);
	rr_soa("com", 5, 5);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 120, true);

	/* TTLs with the top bit set count as 0, in the SOA too. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 0x80000000u, 300);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 0, true);
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 300, 0xffffffffu);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 0, true);
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 0x7fffffffu, 0x7fffffffu);
	expect_negative("nope.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 0x7fffffffu, true);

	/* NXDOMAIN at the end of a chain: the canonical name is the end. */
	mb_begin(F_NXDOMAIN, "www.example.com", DNS_T_A);
	rr_cname("www.example.com", 3600, "gone.example.net");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.net", 900, 90);
	expect_negative("www.example.com", DNS_T_A, DNSANSWER_NXDOMAIN, 90, true);
	assert_string_equal(ans.canon, "gone.example.net");

	/* A malformed SOA in a negative answer: rejected. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_A);
	mb_section(DNS_S_AUTHORITY);
	rr_raw("example.com", DNS_T_SOA, 60, "\0\0\0\0\0\0\0\0\0\0", 10);
	expect_bad("nope.example.com", DNS_T_A);
}

/* RFC 2181, 8: a TTL with the top bit set is 0. */
static void
test_ttl_top_bit(void **state)
{
	static const struct {
		uint32_t	sent, want;
	} cases[] = {
		{ 0x80000000u, 0 },
		{ 0xffffffffu, 0 },
		{ 0x80000001u, 0 },
		{ 0x7fffffffu, 0x7fffffffu },
		{ 0, 0 },
	};
	char		want[128];
	unsigned	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
		rr_addr("www.example.com", cases[i].sent, "192.0.2.1");
		expect_addr("www.example.com", DNS_T_A, cases[i].want,
		    "www.example.com|192.0.2.1|");
		snprintf(want, sizeof(want), "www.example.com A %u 192.0.2.1",
		    cases[i].want);
		expect_records("www.example.com", DNS_T_A, cases[i].want, want);

		/* On a CNAME of the chain. */
		mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
		rr_cname("www.example.com", cases[i].sent, "web.example.com");
		rr_addr("web.example.com", 0x7fffffffu, "192.0.2.1");
		expect_addr("www.example.com", DNS_T_A, cases[i].want,
		    "web.example.com|192.0.2.1|www.example.com");
	}
}

/* Addresses come out in the order of the reply. */
static void
test_order(void **state)
{
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	rr_addr("www.example.com", 60, "10.0.0.3");
	rr_addr("www.example.com", 60, "10.0.0.1");
	rr_addr("other.example.com", 60, "10.9.9.9");
	rr_addr("www.example.com", 60, "10.0.0.2");
	rr_addr("www.example.com", 60, "2001:db8::1");
	rr_addr("WWW.EXAMPLE.COM", 60, "10.0.0.10");
	rr_addr("www.example.com", 60, "10.0.0.1");	/* repeated: kept */
	expect_addr("www.example.com", DNS_T_A, 60,
	    "www.example.com|10.0.0.3 10.0.0.1 10.0.0.2 10.0.0.10 10.0.0.1|");

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	rr_addr("www.example.com", 60, "2001:db8::ff");
	rr_addr("www.example.com", 60, "::1");
	rr_addr("www.example.com", 60, "2001:db8::a");
	expect_addr("www.example.com", DNS_T_AAAA, 60,
	    "www.example.com|2001:db8::ff ::1 2001:db8::a|");
}

/* 600 addresses: the first DNSANSWER_ADDRS_MAX are kept. */
static void
test_addrs_max(void **state)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	uint8_t			 fam;
	char			 text[32];
	size_t			 cur = 0;
	unsigned		 i;

	mb_begin(F_QR_RD_RA, "many.example", DNS_T_A);
	for (i = 0; i < 600; i++) {
		snprintf(text, sizeof(text), "10.0.%u.%u", i >> 8, i & 0xff);
		rr_addr("many.example", i == 599 ? 7 : 300, text);
	}
	assert_int_equal(run("many.example", DNS_T_A, DNSANSWER_ADDR), 0);
	assert_int_equal(proto_answer_decode(body, body_len, &a), 0);
	assert_int_equal(a.naddr, DNSANSWER_ADDRS_MAX);
	assert_int_equal(a.naddr4, DNSANSWER_ADDRS_MAX);
	for (i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		assert_int_equal(fam, PROTO_AF_INET);
		assert_int_equal(addr[0], 10);
		assert_int_equal(addr[2], i >> 8);
		assert_int_equal(addr[3], i & 0xff);
	}
	assert_int_equal(i, DNSANSWER_ADDRS_MAX);
	/* The TTL is the smallest of all the records, the dropped ones too. */
	assert_int_equal(ans.ttl, 7);
}

static void
test_ptr_name(void **state)
{
	static const struct {
		int		 family;
		const char	*addr, *want;
	} cases[] = {
		{ PROTO_AF_INET, "1.2.3.4", "4.3.2.1.in-addr.arpa" },
		{ PROTO_AF_INET, "192.0.2.1", "1.2.0.192.in-addr.arpa" },
		{ PROTO_AF_INET, "0.0.0.0", "0.0.0.0.in-addr.arpa" },
		{ PROTO_AF_INET, "255.255.255.255", "255.255.255.255.in-addr.arpa" },
		{ PROTO_AF_INET6, "2001:db8::1",
		    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2"
		    ".ip6.arpa" },
		{ PROTO_AF_INET6, "::1",
		    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0"
		    ".ip6.arpa" },
		{ PROTO_AF_INET6, "fe80::abcd:ef01:2345:6789",
		    "9.8.7.6.5.4.3.2.1.0.f.e.d.c.b.a.0.0.0.0.0.0.0.0.0.0.0.0.0.8.e.f"
		    ".ip6.arpa" },
	};
	char		out[128], small[16];
	uint8_t		a[16];
	unsigned	i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(inet_pton(cases[i].family == PROTO_AF_INET ?
		    AF_INET : AF_INET6, cases[i].addr, a), 1);
		dnsanswer_ptr_name((uint8_t)cases[i].family, a, out, sizeof(out));
		assert_string_equal(out, cases[i].want);
		/*
		 * Exactly big enough; and too small, which no caller does
		 * (the text is then cut short, not a name to look up), still
		 * NUL-terminated and in bounds.
		 */
		dnsanswer_ptr_name((uint8_t)cases[i].family, a, out,
		    strlen(cases[i].want) + 1);
		assert_string_equal(out, cases[i].want);
		for (n = 1; n < sizeof(small); n++) {
			memset(small, 'x', sizeof(small));
			dnsanswer_ptr_name((uint8_t)cases[i].family, a, small, n);
			assert_true(strlen(small) < n);
			assert_int_equal(small[n], 'x');
		}
	}
}

static void
run_ptr(const char *text, int expect_r)
{
	uint8_t	a[16];
	char	name[128];
	bool	v6 = strchr(text, ':') != NULL;
	int	r;

	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, text, a), 1);
	dnsanswer_ptr_name(v6 ? PROTO_AF_INET6 : PROTO_AF_INET, a, name, sizeof(name));
	r = run_cap(name, DNS_T_PTR, DNSANSWER_PTR,
	    v6 ? PROTO_AF_INET6 : PROTO_AF_INET, a, sizeof(body));
	assert_int_equal(r, expect_r);
}

static void
test_ptr(void **state)
{
	char *got;

	mb_begin(F_QR_RD_RA, "4.3.2.1.in-addr.arpa", DNS_T_PTR);
	rr_name("4.3.2.1.in-addr.arpa", DNS_T_PTR, 3600, "host.example.com");
	rr_name("4.3.2.1.in-addr.arpa", DNS_T_PTR, 600, "other.example.com");
	run_ptr("1.2.3.4", 0);
	assert_int_equal(ans.status, DNSANSWER_POSITIVE);
	assert_int_equal(ans.ttl, 600);
	assert_string_equal(ans.canon, "host.example.com");
	got = flatten_answer(body, body_len, 0, PROTO_SRC_DNS);
	assert_string_equal(got, "host.example.com|1.2.3.4|");
	free(got);

	mb_begin(F_QR_RD_RA,
	    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
	    DNS_T_PTR);
	mb_ptr(12);
	{
		size_t at = mb_rr_fixed(DNS_T_PTR, 86400);

		mb_name("v6host.example.com");
		mb_rr_end(at);
	}
	run_ptr("2001:db8::1", 0);
	assert_int_equal(ans.ttl, 86400);
	got = flatten_answer(body, body_len, 0, PROTO_SRC_DNS);
	assert_string_equal(got, "v6host.example.com|2001:db8::1|");
	free(got);

	/* RFC 2317 classless delegation: a CNAME to the PTR. */
	mb_begin(F_QR_RD_RA, "130.2.0.192.in-addr.arpa", DNS_T_PTR);
	rr_cname("130.2.0.192.in-addr.arpa", 300, "130.128-25.2.0.192.in-addr.arpa");
	rr_name("130.128-25.2.0.192.in-addr.arpa", DNS_T_PTR, 900, "mail.example.org");
	rr_name("other.in-addr.arpa", DNS_T_PTR, 900, "evil.example");
	run_ptr("192.0.2.130", 0);
	assert_int_equal(ans.ttl, 300);
	assert_string_equal(ans.canon, "mail.example.org");
	got = flatten_answer(body, body_len, 0, PROTO_SRC_DNS);
	assert_string_equal(got, "mail.example.org|192.0.2.130|");
	free(got);

	/* A PTR for another address is not ours. */
	mb_begin(F_QR_RD_RA, "4.3.2.1.in-addr.arpa", DNS_T_PTR);
	rr_name("5.3.2.1.in-addr.arpa", DNS_T_PTR, 3600, "evil.example");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("2.1.in-addr.arpa", 3600, 100);
	run_ptr("1.2.3.4", 0);
	assert_int_equal(ans.status, DNSANSWER_NODATA);
	assert_int_equal(ans.ttl, 100);
	assert_int_equal(body_len, 0);

	/* NXDOMAIN. */
	mb_begin(F_NXDOMAIN, "4.3.2.1.in-addr.arpa", DNS_T_PTR);
	mb_section(DNS_S_AUTHORITY);
	rr_soa("2.1.in-addr.arpa", 3600, 100);
	run_ptr("1.2.3.4", 0);
	assert_int_equal(ans.status, DNSANSWER_NXDOMAIN);

	/* The question must be the address's name. */
	mb_begin(F_QR_RD_RA, "4.3.2.1.in-addr.arpa", DNS_T_PTR);
	rr_name("4.3.2.1.in-addr.arpa", DNS_T_PTR, 3600, "host.example.com");
	run_ptr("1.2.3.5", -EBADMSG);
}

static void
test_records(void **state)
{
	size_t at;

	mb_begin(F_QR_RD_RA, "example.com", DNS_T_MX);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_MX, 300);
	mb_u16(10);
	mb_labels("mail");
	mb_ptr(12);
	mb_rr_end(at);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_MX, 3600);
	mb_u16(20);
	mb_name("mx2.example.net");
	mb_rr_end(at);
	rr_raw("example.org", DNS_T_MX, 300, "\0\x05\3evil\0", 8);
	mb_section(DNS_S_ADDITIONAL);
	rr_addr("mail.example.com", 300, "192.0.2.25");
	expect_records("example.com", DNS_T_MX, 300,
	    "example.com MX 300 10 mail.example.com.\n"
	    "example.com MX 3600 20 mx2.example.net.");

	mb_begin(F_QR_RD_RA, "example.com", DNS_T_TXT);
	rr_raw("example.com", DNS_T_TXT, 60, "\x0bv=spf1 -all", 12);
	rr_raw("example.com", DNS_T_TXT, 120, "\x05hello\x05world\x00", 13);
	expect_records("example.com", DNS_T_TXT, 60,
	    "example.com TXT 60 \"v=spf1 -all\"\n"
	    "example.com TXT 120 \"hello\" \"world\" \"\"");

	mb_begin(F_QR_RD_RA, "_sip._udp.example.com", DNS_T_SRV);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_SRV, 300);
	mb_u16(10);
	mb_u16(60);
	mb_u16(5060);
	mb_name("sip.example.com");
	mb_rr_end(at);
	expect_records("_sip._udp.example.com", DNS_T_SRV, 300,
	    "_sip._udp.example.com SRV 300 10 60 5060 sip.example.com.");

	mb_begin(F_QR_RD_RA, "example.com", DNS_T_CAA);
	rr_raw("example.com", DNS_T_CAA, 300, "\x00\x05issueletsencrypt.org", 22);
	rr_raw("example.com", DNS_T_CAA, 300, "\x80\x05iodefmailto:sec@example.com",
	    29);
	expect_records("example.com", DNS_T_CAA, 300,
	    "example.com CAA 300 0 issue \"letsencrypt.org\"\n"
	    "example.com CAA 300 128 iodef \"mailto:sec@example.com\"");

	/* Through a chain: its CNAMEs first (in reply order), then the records. */
	mb_begin(F_QR_RD_RA, "Www.Example.com", DNS_T_MX);
	rr_addr("www.example.com", 60, "192.0.2.1");
	rr_cname("Www.Example.com", 600, "mx.example.net");
	rr_raw("other.example", DNS_T_MX, 1, "\0\x05\3evil\0", 8);
	rr_cname("other.example", 1, "mx.example.net");
	mb_name("mx.example.net");
	at = mb_rr_fixed(DNS_T_MX, 900);
	mb_u16(0);
	mb_name(".");				/* RFC 7505 null MX */
	mb_rr_end(at);
	expect_records("www.example.com", DNS_T_MX, 600,
	    "Www.Example.com CNAME 600 mx.example.net.\n"
	    "mx.example.net MX 900 0 .");

	/* Unknown types in RFC 3597 form. */
	mb_begin(F_QR_RD_RA, "example.com", 65280);
	rr_raw("example.com", 65280, 300, "\x0a\x00\x00\xff", 4);
	expect_records("example.com", 65280, 300,
	    "example.com TYPE65280 300 \\# 4 0a0000ff");

	/* Malformed rdata for the name asked: rejected. */
	mb_begin(F_QR_RD_RA, "example.com", DNS_T_MX);
	rr_raw("example.com", DNS_T_MX, 300, "\0\x0a\x05mail", 7);
	assert_int_equal(run("example.com", DNS_T_MX, DNSANSWER_RR), -EBADMSG);
	mb_begin(F_QR_RD_RA, "example.com", DNS_T_A);
	rr_raw("example.com", DNS_T_A, 300, "\1\2\3", 3);
	assert_int_equal(run("example.com", DNS_T_A, DNSANSWER_ADDR), -EBADMSG);
	assert_int_equal(run("example.com", DNS_T_A, DNSANSWER_RR), -EBADMSG);
}

/* Two answer bodies from replies, for answer_host_merge (engine/answer.c). */
static void
make_body(const char *qname, uint16_t qtype, uint8_t *out, size_t *ret_len)
{
	assert_int_equal(run(qname, qtype, DNSANSWER_ADDR), 0);
	memcpy(out, body, body_len);
	*ret_len = body_len;
}

/*
 * The bodies decoded, merged as a typed answer, and written as the
 * protocol's answer body into a writer of cap bytes.  -EINVAL: nothing,
 * or not an answer body.
 */
static int
merge(const uint8_t *a, size_t alen, const uint8_t *aaaa, size_t aaaalen,
    uint32_t ttl, uint8_t source, size_t cap)
{
	static uint8_t	 addrs[PROTO_FRAME_MAX];
	struct answer	 typed = { .status = PROTO_OK, .form = ANSWER_HOST };
	struct proto_answer x, y;
	struct proto_wr	 w;
	uint8_t		*out;
	int		 r;

	if ((a && proto_answer_decode(a, alen, &x) < 0) ||
	    (aaaa && proto_answer_decode(aaaa, aaaalen, &y) < 0) || (!a && !aaaa))
		return -EINVAL;
	if ((r = answer_host_merge(a ? &x : NULL, aaaa ? &y : NULL, addrs,
	    sizeof(addrs), &typed.host)) < 0)
		return r;
	assert_non_null(out = malloc(cap ? cap : 1));
	proto_wr_init(&w, out, cap);
	answer_put_body(&typed, ttl, source, &w);
	assert_true(w.off <= cap);
	memcpy(body, out, w.off);
	body_len = w.off;
	free(out);
	return w.err;
}

static void
expect_merge(const uint8_t *a, size_t alen, const uint8_t *aaaa,
    size_t aaaalen, uint32_t ttl, uint8_t source, const char *want)
{
	char *got;

	assert_int_equal(merge(a, alen, aaaa, aaaalen, ttl, source,
	    sizeof(body)), 0);
	got = flatten_answer(body, body_len, ttl, source);
	assert_string_equal(got, want);
	free(got);
}

static void
test_merge(void **state)
{
	static uint8_t	a[4096], aaaa[4096], aaaa2[4096];
	size_t		alen, aaaalen, aaaa2len, need, cap;

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	rr_cname("www.example.com", 60, "web.example.com");
	rr_addr("web.example.com", 60, "192.0.2.1");
	rr_addr("web.example.com", 60, "192.0.2.2");
	make_body("www.example.com", DNS_T_A, a, &alen);
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	rr_cname("www.example.com", 60, "v6.example.net");
	rr_cname("v6.example.net", 60, "v6b.example.net");
	rr_addr("v6b.example.net", 60, "2001:db8::1");
	make_body("www.example.com", DNS_T_AAAA, aaaa, &aaaalen);
	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_AAAA);
	rr_addr("www.example.com", 60, "2001:db8::2");
	make_body("www.example.com", DNS_T_AAAA, aaaa2, &aaaa2len);

	expect_merge(a, alen, NULL, 0, 42, PROTO_SRC_CACHE,
	    "web.example.com|192.0.2.1 192.0.2.2|www.example.com");
	expect_merge(NULL, 0, aaaa, aaaalen, 43, PROTO_SRC_DNS,
	    "v6b.example.net|2001:db8::1|www.example.com v6.example.net");
	/* Both: A's name and aliases, A's addresses then AAAA's. */
	expect_merge(a, alen, aaaa, aaaalen, 44, PROTO_SRC_STALE,
	    "web.example.com|192.0.2.1 192.0.2.2 2001:db8::1|www.example.com");
	expect_merge(a, alen, aaaa2, aaaa2len, 45, PROTO_SRC_CACHE,
	    "web.example.com|192.0.2.1 192.0.2.2 2001:db8::2|www.example.com");
	expect_merge(aaaa2, aaaa2len, a, alen, 0, PROTO_SRC_DNS,
	    "www.example.com|2001:db8::2 192.0.2.1 192.0.2.2|");

	/* Nothing, or not an answer body: -EINVAL. */
	assert_int_equal(merge(NULL, 0, NULL, 0, 1, PROTO_SRC_DNS, sizeof(body)),
	    -EINVAL);
	assert_int_equal(merge(a, alen - 1, aaaa, aaaalen, 1, PROTO_SRC_DNS,
	    sizeof(body)), -EINVAL);
	assert_int_equal(merge(a, alen, aaaa, 3, 1, PROTO_SRC_DNS, sizeof(body)),
	    -EINVAL);

	/* Too small a writer: -EMSGSIZE at every size short of the body. */
	assert_int_equal(merge(a, alen, aaaa, aaaalen, 1, PROTO_SRC_DNS,
	    sizeof(body)), 0);
	need = body_len;
	for (cap = 0; cap < need; cap++)
		assert_int_equal(merge(a, alen, aaaa, aaaalen, 1, PROTO_SRC_DNS,
		    cap), -EMSGSIZE);
	assert_int_equal(merge(a, alen, aaaa, aaaalen, 1, PROTO_SRC_DNS, need), 0);

	/* Addresses that do not fit the buffer they are merged into. */
	{
		struct proto_answer x, y, m;
		uint8_t small[4];

		assert_int_equal(proto_answer_decode(a, alen, &x), 0);
		assert_int_equal(proto_answer_decode(aaaa, aaaalen, &y), 0);
		assert_int_equal(answer_host_merge(&x, &y, small, sizeof(small), &m),
		    -EMSGSIZE);
		/* One part alone is not copied: it points where it was. */
		assert_int_equal(answer_host_merge(&x, NULL, small, 0, &m), 0);
		assert_ptr_equal(m.addrs, x.addrs);
	}
}

static void
test_stamp(void **state)
{
	uint8_t		copy[PROTO_FRAME_MAX];
	size_t		len;
	char		*got;

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	rr_cname("www.example.com", 60, "web.example.com");
	rr_addr("web.example.com", 60, "192.0.2.1");
	assert_int_equal(run("www.example.com", DNS_T_A, DNSANSWER_ADDR), 0);
	len = body_len;
	memcpy(copy, body, len);
	proto_answer_stamp(body, len, 0x01020304, PROTO_SRC_STALE);
	got = flatten_answer(body, len, 0x01020304, PROTO_SRC_STALE);
	assert_string_equal(got, "web.example.com|192.0.2.1|www.example.com");
	free(got);
	assert_memory_equal(body + 5, copy + 5, len - 5);
	proto_answer_stamp(body, len, 0, PROTO_SRC_DNS);
	assert_memory_equal(body, copy, len);
	proto_answer_stamp(body, len, UINT32_MAX, PROTO_SRC_CACHE);
	got = flatten_answer(body, len, UINT32_MAX, PROTO_SRC_CACHE);
	free(got);

	/* A records body is stamped the same way. */
	assert_int_equal(run("www.example.com", DNS_T_A, DNSANSWER_RR), 0);
	proto_answer_stamp(body, body_len, 77, PROTO_SRC_CACHE);
	{
		struct proto_records rs;

		assert_int_equal(proto_records_decode(body, body_len, &rs), 0);
		assert_int_equal(rs.ttl, 77);
		assert_int_equal(rs.source, PROTO_SRC_CACHE);
		assert_int_equal(rs.count, 2);
	}

	/* Shorter than a ttl and a source: left alone. */
	memcpy(copy, "\1\2\3\4\5", 5);
	proto_answer_stamp(copy, 4, 0xffffffff, 9);
	assert_memory_equal(copy, "\1\2\3\4\5", 5);
	proto_answer_stamp(copy, 0, 0xffffffff, 9);
	assert_memory_equal(copy, "\1\2\3\4\5", 5);
	proto_answer_stamp(copy, 5, 0x0a0b0c0d, 2);
	assert_memory_equal(copy, "\x0a\x0b\x0c\x0d\x02", 5);
}

/* A writer too small: -EMSGSIZE at every size short of the body. */
static void
expect_emsgsize(const char *qname, uint16_t qtype, int mode, uint8_t family,
    const uint8_t *addr)
{
	uint8_t	full[PROTO_FRAME_MAX];
	size_t	need, cap;

	assert_int_equal(run_cap(qname, qtype, mode, family, addr, sizeof(body)), 0);
	need = body_len;
	assert_true(need > 0);
	memcpy(full, body, need);
	for (cap = 0; cap < need; cap++)
		assert_int_equal(run_cap(qname, qtype, mode, family, addr, cap),
		    -EMSGSIZE);
	assert_int_equal(run_cap(qname, qtype, mode, family, addr, need), 0);
	assert_int_equal(body_len, need);
	assert_memory_equal(body, full, need);
}

static void
test_emsgsize(void **state)
{
	static const uint8_t v4[4] = { 1, 2, 3, 4 };

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	rr_cname("www.example.com", 60, "web.example.com");
	rr_addr("web.example.com", 60, "192.0.2.1");
	rr_addr("web.example.com", 60, "192.0.2.2");
	expect_emsgsize("www.example.com", DNS_T_A, DNSANSWER_ADDR, 0, NULL);
	expect_emsgsize("www.example.com", DNS_T_A, DNSANSWER_RR, 0, NULL);

	mb_begin(F_QR_RD_RA, "4.3.2.1.in-addr.arpa", DNS_T_PTR);
	rr_name("4.3.2.1.in-addr.arpa", DNS_T_PTR, 3600, "host.example.com");
	expect_emsgsize("4.3.2.1.in-addr.arpa", DNS_T_PTR, DNSANSWER_PTR,
	    PROTO_AF_INET, v4);
}

/* The realistic reply of test-dnsmsg: a chain, glue, EDNS. */
static void
build_realistic(void)
{
	size_t at, web, ns1, ns2;

	mb_begin(F_QR_RD_RA, "www.example.com", DNS_T_A);
	mb_ptr(12);
	at = mb_rr_fixed(DNS_T_CNAME, 3600);
	web = mb_labels("web");
	mb_ptr(16);
	mb_rr_end(at);
	mb_ptr(web);
	at = mb_rr_fixed(DNS_T_A, 60);
	mb_bytes("\xc0\x00\x02\x01", 4);
	mb_rr_end(at);
	mb_ptr(web);
	at = mb_rr_fixed(DNS_T_A, 60);
	mb_bytes("\xc0\x00\x02\x02", 4);
	mb_rr_end(at);
	mb_section(DNS_S_AUTHORITY);
	mb_ptr(16);
	at = mb_rr_fixed(DNS_T_NS, 86400);
	ns1 = mb_labels("ns1");
	mb_ptr(16);
	mb_rr_end(at);
	mb_ptr(16);
	at = mb_rr_fixed(DNS_T_NS, 86400);
	ns2 = mb_labels("ns2");
	mb_ptr(16);
	mb_rr_end(at);
	mb_section(DNS_S_ADDITIONAL);
	mb_ptr(ns1);
	at = mb_rr_fixed(DNS_T_A, 86400);
	mb_bytes("\xc6\x33\x64\x01", 4);
	mb_rr_end(at);
	mb_ptr(ns2);
	at = mb_rr_fixed(DNS_T_AAAA, 86400);
	mb_bytes("\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x53", 16);
	mb_rr_end(at);
	mb_name(".");
	at = mb_rr_fixed_class(DNS_T_OPT, 1232, 0);
	mb_bytes("\x00\x0a\x00\x08\x01\x02\x03\x04\x05\x06\x07\x08", 12);
	mb_rr_end(at);
}

/*
 * Every strict prefix of a reply is rejected, and read within its bounds
 * (run_cap hands each prefix over in a buffer of exactly its size).
 */
static void
test_truncation(void **state)
{
	static const uint8_t v4[4] = { 192, 0, 2, 1 };
	size_t		 n, full;
	int		 mode;

	build_realistic();
	expect_addr("www.example.com", DNS_T_A, 60,
	    "web.example.com|192.0.2.1 192.0.2.2|www.example.com");
	full = mb.len;
	for (n = 0; n < full; n++) {
		mb.len = n;
		for (mode = DNSANSWER_ADDR; mode <= DNSANSWER_RR; mode++) {
			int r = run_cap("www.example.com", DNS_T_A, mode,
			    PROTO_AF_INET, v4, sizeof(body));

			if (r != -EBADMSG)
				print_message("prefix of %zu bytes, mode %d: %d\n",
				    n, mode, r);
			assert_int_equal(r, -EBADMSG);
		}
	}

	/* A negative reply, the same way. */
	mb_begin(F_NXDOMAIN, "nope.example.com", DNS_T_AAAA);
	rr_cname("nope.example.com", 60, "gone.example.com");
	mb_section(DNS_S_AUTHORITY);
	rr_soa("example.com", 900, 60);
	expect_negative("nope.example.com", DNS_T_AAAA, DNSANSWER_NXDOMAIN, 60, true);
	full = mb.len;
	for (n = 0; n < full; n++) {
		mb.len = n;
		assert_int_equal(run("nope.example.com", DNS_T_AAAA, DNSANSWER_ADDR),
		    -EBADMSG);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a),
		cmocka_unit_test(test_aaaa),
		cmocka_unit_test(test_cname_chain),
		cmocka_unit_test(test_chain_limit),
		cmocka_unit_test(test_cname_loop),
		cmocka_unit_test(test_poisoning),
		cmocka_unit_test(test_question_mismatch),
		cmocka_unit_test(test_not_response),
		cmocka_unit_test(test_rcode),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_ttl_top_bit),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_addrs_max),
		cmocka_unit_test(test_ptr_name),
		cmocka_unit_test(test_ptr),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_emsgsize),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
