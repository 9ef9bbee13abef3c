/* SPDX-License-Identifier: MIT */
/* tests/unit/test-dnswire.c - unit tests of the DNS listener's wire format. */

/*
 * Queries and upstream messages are built byte by byte (struct mb,
 * dnsbuild.h), so each test states what is on the wire.  Replies are
 * held to hand-built expected bytes where the layout matters, and always
 * read back with dnsmsg's reader, the daemon's own parser of DNS.
 * Truncation tests copy each prefix into a heap buffer of exactly that
 * size, so a read past the end is an ASan report.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dnsbuild.h"
#include "dnswire.h"
#include "name.h"

#define T_TSIG		250
#define T_HTTPS		65

static struct mb	mb, alt;
static uint8_t		reply[65536];

/* A query: header with one question and nothing else. */
static void
mb_query(struct mb *m, uint16_t id, uint16_t flags, const char *qname,
    uint16_t qtype)
{
	mb_hdr(m, id, flags, 1, 0, 0, 0);
	mb_question(m, qname, qtype);
}

/* An OPT at the end, counted in ARCOUNT; options raw. */
static void
mb_opt(struct mb *m, uint16_t size, uint32_t ttl, const void *opts,
    size_t olen)
{
	size_t at;

	mb_u8(m, 0);
	at = mb_rr_fixed(m, DNS_T_OPT, size, ttl);
	mb_bytes(m, opts, olen);
	mb_rr_end(m, at);
	m->buf[11]++;
}

static int
read_mb(struct dnswire_query *q)
{
	return dnswire_query_read(mb.buf, mb.len, q);
}

static void
parse_ok(const uint8_t *p, size_t len, struct dnsmsg *msg)
{
	assert_int_equal(dnsmsg_parse(p, len, msg), 0);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- reading queries ---------------------------------------------- */

static void
test_query_plain(void **state)
{
	struct dnswire_query q;

	mb_query(&mb, 0xbeef, 0x0110, "wWw.ExAmple.COM", DNS_T_AAAA);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.id, 0xbeef);
	assert_int_equal(q.flags, 0x0110);
	assert_int_equal(q.opcode, 0);
	assert_true(q.rd);
	assert_true(q.cd);
	assert_int_equal(q.wire_len, 17);
	assert_memory_equal(q.wire, mb.buf + 12, 17);	/* case as sent */
	assert_string_equal(q.name, "wWw.ExAmple.COM");
	assert_int_equal(q.name_len, 15);
	assert_true(q.name_plain);
	assert_int_equal(q.qtype, DNS_T_AAAA);
	assert_int_equal(q.qclass, CLASS_IN);
	assert_false(q.edns);
	assert_false(q.do_bit);
	assert_int_equal(q.udp_size, DNSWIRE_UDP_PLAIN);

	/* Bytes after the last record are ignored. */
	mb_u32(&mb, 0xdeadbeef);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_string_equal(q.name, "wWw.ExAmple.COM");

	/* Other classes are the caller's; so are AXFR and ANY. */
	mb_query(&mb, 1, 0, "version.bind", 16);
	mb.buf[mb.len - 1] = 3;
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.qclass, 3);
	mb_query(&mb, 1, 0, "example.com", 252);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	mb_query(&mb, 1, 0, "example.com", 255);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.qtype, 255);

	/* The root: "" and not for the hosts walk. */
	mb_query(&mb, 1, 0x0100, ".", DNS_T_NS);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.wire_len, 1);
	assert_string_equal(q.name, "");
	assert_int_equal(q.name_len, 0);
	assert_false(q.name_plain);

	/* Service labels are plain; a wildcard is not. */
	mb_query(&mb, 1, 0, "_sip._tcp.host-1.example", DNS_T_SRV);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_true(q.name_plain);
	mb_query(&mb, 1, 0, "*.example", DNS_T_A);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_false(q.name_plain);
	assert_string_equal(q.name, "*.example");
}

static void
test_query_edns(void **state)
{
	static const uint8_t cookie[] = { 0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct dnswire_query q;

	/* 4096 asked: 1232 used.  DO, and a client cookie, read past. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 4096, 0x8000, cookie, sizeof(cookie));
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_true(q.edns);
	assert_true(q.do_bit);
	assert_int_equal(q.udp_size, DNSWIRE_EDNS_SIZE);

	/* Below 512 counts as 512 (RFC 6891 6.2.3); between, as asked. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 100, 0, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_true(q.edns);
	assert_false(q.do_bit);
	assert_int_equal(q.udp_size, 512);
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 800, 0, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.udp_size, 800);

	/* Version 1: BADVERS, the OPT's size and DO still read. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1400, 0x00018000, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_BADVERS);
	assert_true(q.edns);
	assert_true(q.do_bit);
	assert_int_equal(q.wire_len, 13);

	/* Two OPTs. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, NULL, 0);
	mb_opt(&mb, 1232, 0, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_false(q.edns);
	assert_int_equal(q.wire_len, 13);	/* echoed in the FORMERR */

	/* An option longer than the rdata, or a partial option header. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, "\x00\x0a\x00\x09" "12345678", 12);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, "\x00\x0a\x00", 3);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	/* A giant but well-formed option is fine. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	memset(alt.buf, 'x', 60000);
	alt.buf[0] = 0;
	alt.buf[1] = 12;
	alt.buf[2] = (uint8_t)((60000 - 4) >> 8);
	alt.buf[3] = (uint8_t)(60000 - 4);
	mb_opt(&mb, 1232, 0, alt.buf, 60000);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	alt.buf[3]++;
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, alt.buf, 60000);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/* The OPT's owner must be the root. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_labels(&mb, "x");
	mb_opt(&mb, 1232, 0, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/* Any other additional record: a TSIG alone, or after an OPT. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_name(&mb, "key.example");
	mb_rr_end(&mb, mb_rr_fixed(&mb, T_TSIG, 255, 0));
	mb.buf[11] = 1;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, NULL, 0);
	mb_name(&mb, "key.example");
	mb_rr_end(&mb, mb_rr_fixed(&mb, T_TSIG, 255, 0));
	mb.buf[11] = 2;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/* ARCOUNT promising an OPT that is not there. */
	mb_query(&mb, 7, 0x0100, "example.com", DNS_T_A);
	mb.buf[11] = 1;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
}

static void
test_query_header(void **state)
{
	struct dnswire_query q;

	/* Under a header: nothing to answer to. */
	mb_query(&mb, 0x1111, 0x0100, "example.com", DNS_T_A);
	assert_int_equal(dnswire_query_read(mb.buf, 11, &q), DNSWIRE_DROP);
	assert_int_equal(dnswire_query_read(mb.buf, 0, &q), DNSWIRE_DROP);
	assert_int_equal(dnswire_query_read(mb.buf, 12, &q), DNSWIRE_FORMERR);
	assert_int_equal(q.id, 0x1111);
	assert_int_equal(q.wire_len, 0);

	/* A reply sent to us. */
	mb.buf[2] |= 0x80;
	assert_int_equal(read_mb(&q), DNSWIRE_DROP);

	/* NOTIFY, UPDATE, STATUS: NOTIMP, header read only. */
	mb_query(&mb, 0x2222, 4 << 11, "example.com", DNS_T_SOA);
	assert_int_equal(read_mb(&q), DNSWIRE_NOTIMP);
	assert_int_equal(q.opcode, 4);
	assert_int_equal(q.id, 0x2222);
	assert_int_equal(q.wire_len, 0);
	mb.buf[2] = 5 << 3 | 1;		/* UPDATE, RD */
	assert_int_equal(read_mb(&q), DNSWIRE_NOTIMP);
	assert_int_equal(q.opcode, 5);
	assert_true(q.rd);
	mb.buf[2] = 2 << 3;
	mb.buf[5] = 0;
	assert_int_equal(read_mb(&q), DNSWIRE_NOTIMP);

	/* QDCOUNT 0 and 2. */
	mb_hdr(&mb, 3, 0x0100, 0, 0, 0, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_int_equal(q.wire_len, 0);
	mb_query(&mb, 3, 0x0100, "a.example", DNS_T_A);
	mb_name(&mb, "b.example");
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb.buf[5] = 2;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_int_equal(q.wire_len, 0);

	/* An answer or an authority record in a query; the question is read. */
	mb_query(&mb, 3, 0x0100, "a.example", DNS_T_A);
	mb_ptr(&mb, 12);
	mb_rr_end(&mb, mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 0));
	mb.buf[7] = 1;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_int_equal(q.wire_len, 11);
	assert_string_equal(q.name, "a.example");
	mb.buf[7] = 0;
	mb.buf[9] = 1;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/* Meta types as questions. */
	mb_query(&mb, 3, 0x0100, "a.example", DNS_T_OPT);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_int_equal(q.qtype, DNS_T_OPT);
	mb_query(&mb, 3, 0x0100, "a.example", T_TSIG);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	mb_query(&mb, 3, 0x0100, "a.example", 128);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
}

static void
test_query_names(void **state)
{
	struct dnswire_query	q;
	char			label[64], want[DNSMSG_NAME_STRLEN];
	unsigned		i;

	/* A pointer to itself, a loop through a label, a pointer forward. */
	mb_hdr(&mb, 1, 0, 1, 0, 0, 0);
	mb_ptr(&mb, 12);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	assert_int_equal(q.wire_len, 0);
	mb_hdr(&mb, 1, 0, 1, 0, 0, 0);
	mb_labels(&mb, "a");
	mb_ptr(&mb, 12);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	mb_hdr(&mb, 1, 0, 1, 0, 0, 0);
	mb_ptr(&mb, 18);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb_name(&mb, "example");
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/*
	 * A pointer backwards, into the header: id 0x0161 and flags 0x0100
	 * read as the labels "a" and "\000", QDCOUNT's 0x00 ends the name.
	 * Accepted, and kept expanded.
	 */
	mb_hdr(&mb, 0x0161, 0x0100, 1, 0, 0, 0);
	mb_ptr(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.wire_len, 5);
	assert_memory_equal(q.wire, "\001a\001\000\000", 5);
	assert_string_equal(q.name, "a.\\000");
	assert_false(q.name_plain);

	/* 255 bytes in wire form, and 256. */
	memset(label, 'a', 63);
	label[63] = '\0';
	snprintf(want, sizeof(want), "%s.%s.%s.%.61s", label, label, label,
	    label);
	mb_query(&mb, 1, 0, want, DNS_T_A);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_int_equal(q.wire_len, 255);
	assert_int_equal(q.name_len, 253);
	assert_true(q.name_plain);
	snprintf(want, sizeof(want), "%s.%s.%s.%.62s", label, label, label,
	    label);
	mb_query(&mb, 1, 0, want, DNS_T_A);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);

	/* Odd bytes: escaped as dnsmsg escapes them, not for the hosts walk. */
	mb_hdr(&mb, 1, 0, 1, 0, 0, 0);
	mb_bytes(&mb, "\003a b\003x\000y\003a.b\002\303\251\007Example\0", 24);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	assert_int_equal(read_mb(&q), DNSWIRE_OK);
	assert_string_equal(q.name, "a\\032b.x\\000y.a\\.b.\\195\\169.Example");
	assert_int_equal(q.name_len, strlen(q.name));
	assert_false(q.name_plain);
	assert_memory_equal(q.wire, mb.buf + 12, 24);

	/* One odd byte is enough. */
	for (i = 0; i < 256; i++) {
		mb_hdr(&mb, 1, 0, 1, 0, 0, 0);
		mb_bytes(&mb, "\003a", 2);
		mb_u8(&mb, (uint8_t)i);
		mb_bytes(&mb, "b\003com\0", 6);
		mb_u16(&mb, DNS_T_A);
		mb_u16(&mb, CLASS_IN);
		assert_int_equal(read_mb(&q), DNSWIRE_OK);
		assert_int_equal(q.name_plain, (i >= 'a' && i <= 'z') ||
		    (i >= 'A' && i <= 'Z') || (i >= '0' && i <= '9') ||
		    i == '-' || i == '_');
	}
}

/* Every prefix of a query with EDNS, each in a buffer of its own size. */
static void
test_query_truncated(void **state)
{
	struct dnswire_query	 q;
	uint8_t			*p;
	size_t			 n;
	int			 v;

	mb_query(&mb, 9, 0x0100, "www.example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0x8000, "\x00\x0a\x00\x02\x01\x02", 6);
	for (n = 0; n <= mb.len; n++) {
		assert_non_null(p = malloc(n ? n : 1));
		memcpy(p, mb.buf, n);
		v = dnswire_query_read(p, n, &q);
		if (n < 12)
			assert_int_equal(v, DNSWIRE_DROP);
		else if (n < mb.len)
			assert_int_equal(v, DNSWIRE_FORMERR);
		else
			assert_int_equal(v, DNSWIRE_OK);
		free(p);
	}
}

/* ---- writing replies ---------------------------------------------- */

static void
read_query(struct dnswire_query *q)
{
	assert_int_equal(read_mb(q), DNSWIRE_OK);
}

/* An A, AAAA and CNAME answer, byte for byte. */
static void
test_reply_bytes(void **state)
{
	static const uint8_t	 a[4] = { 192, 0, 2, 1 };
	static const uint8_t	 aaaa[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct dnswire_query	 q;
	struct dnswire_wr	 w;
	struct dnsmsg		 msg;
	struct dnsmsg_rr	 rr;
	char			 out[DNSMSG_NAME_STRLEN];
	size_t			 n, at, web;

	mb_query(&mb, 0x1234, 0x0110, "wWw.Example.com", DNS_T_A);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q,
	    DNS_R_NOERROR);
	assert_int_equal(dnswire_add_cname(&w, DNS_S_ANSWER, NULL, 300,
	    "web.example.com"), 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, "web.example.com", 60,
	    a), 0);
	assert_int_equal(dnswire_add_aaaa(&w, DNS_S_ANSWER, "WEB.example.com.",
	    60, aaaa), 0);
	n = dnswire_reply_end(&w);

	/* QR RD RA CD; the question as sent; every owner a pointer. */
	mb_hdr(&alt, 0x1234, 0x8190, 1, 3, 0, 0);
	mb_bytes(&alt, mb.buf + 12, 17 + 4);
	mb_ptr(&alt, 12);
	at = mb_rr_fixed(&alt, DNS_T_CNAME, CLASS_IN, 300);
	web = mb_labels(&alt, "web");
	mb_ptr(&alt, 16);			/* "Example.com" of the question */
	mb_rr_end(&alt, at);
	mb_ptr(&alt, web);
	at = mb_rr_fixed(&alt, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&alt, a, 4);
	mb_rr_end(&alt, at);
	mb_ptr(&alt, web);
	at = mb_rr_fixed(&alt, DNS_T_AAAA, CLASS_IN, 60);
	mb_bytes(&alt, aaaa, 16);
	mb_rr_end(&alt, at);
	assert_int_equal(n, alt.len);
	assert_memory_equal(reply, alt.buf, n);

	/* And dnsmsg reads it: owners in the question's spelling. */
	parse_ok(reply, n, &msg);
	assert_string_equal(msg.qname, "wWw.Example.com");
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "wWw.Example.com");
	assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_string_equal(out, "web.Example.com.");
	rr_at(&msg, 2, &rr);
	assert_string_equal(rr.name, "web.Example.com");
	assert_int_equal(rr.ttl, 60);
	assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_string_equal(out, "2001:db8::1");

	/* A PTR; an owner equal to the question but for case: 0xc00c. */
	mb_query(&mb, 2, 0x0100, "1.2.0.192.in-addr.arpa", DNS_T_PTR);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 0);
	assert_int_equal(dnswire_add_ptr(&w, DNS_S_ANSWER,
	    "1.2.0.192.IN-ADDR.arpa", 3600, "host.example"), 0);
	n = dnswire_reply_end(&w);
	assert_int_equal(n, 12 + 24 + 4 + 2 + 10 + 14);
	assert_int_equal(get16(reply + 40), 0xc00c);
	parse_ok(reply, n, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.type, DNS_T_PTR);
	assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_string_equal(out, "host.example.");
}

/* Owners and targets in presentation form: escapes, limits. */
static void
test_reply_names(void **state)
{
	static const uint8_t	a[4] = { 10, 0, 0, 1 };
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			name[300];
	size_t			n, empty;

	mb_query(&mb, 1, 0, "example", DNS_T_A);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	empty = w.len;
	/* Escapes as dnsmsg_name writes them come back as the same bytes. */
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER,
	    "a\\.b.\\032\\000\\255.\\065.", 1, a), 0);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "a\\.b.\\032\\000\\255.A");
	assert_memory_equal(reply + empty, "\003a.b\003\040\000\377\001A\000", 11);

	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, "", 1, a), 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, ".", 1, a), 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, "a..b", 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, ".a", 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, "a\\", 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, "\\256", 1, a), -EINVAL);
	assert_int_equal(dnswire_add_cname(&w, DNS_S_ANSWER, NULL, 1, "a.."),
	    -EINVAL);
	/* Labels of 63 and 64; names of 255 and 256 wire bytes. */
	memset(name, 'x', 64);
	name[63] = '\0';
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, name, 1, a), 0);
	name[63] = 'x';
	name[64] = '\0';
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, name, 1, a), -EINVAL);
	memset(name, 'x', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, name, 1, a), 0);
	name[253] = '.';
	name[254] = '\0';
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, name, 1, a), 0);
	name[253] = 'x';
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, name, 1, a), -EINVAL);
	/* Refused records left nothing behind. */
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.ancount, 5);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, ".");

	/* Sections: answer, then authority; never back, never additional. */
	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ADDITIONAL, NULL, 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, 0, NULL, 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, DNS_S_AUTHORITY, NULL, 1, a), 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 1, a), -EINVAL);
	assert_int_equal(dnswire_add_a(&w, DNS_S_AUTHORITY, NULL, 1, a), 0);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.ancount, 0);
	assert_int_equal(msg.nscount, 2);
}

/* A reply with the OPT: 1232, DO echoed, version 0. */
static void
test_reply_edns(void **state)
{
	static const uint8_t	a[4] = { 192, 0, 2, 7 };
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	size_t			n;

	mb_query(&mb, 5, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 4096, 0x8000, NULL, 0);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 5, a), 0);
	n = dnswire_reply_end(&w);
	assert_int_equal(n, 12 + 17 + 16 + 11);
	assert_memory_equal(reply + n - 11,
	    "\000\000\051\004\320\000\000\200\000\000\000", 11);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.flags, 0x8180);
	assert_int_equal(msg.arcount, 1);
	rr_at(&msg, 1, &rr);
	assert_int_equal(rr.section, DNS_S_ADDITIONAL);
	assert_int_equal(rr.type, DNS_T_OPT);
	assert_int_equal(rr.rclass, DNSWIRE_EDNS_SIZE);
	assert_int_equal(rr.ttl, 0x8000);

	/* Without DO, none echoed. */
	mb_query(&mb, 5, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 512, 0, NULL, 0);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 3);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.rcode, DNS_R_NXDOMAIN);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.ttl, 0);
}

/*
 * Fills a reply to "www.example.com A" with 16-byte A records until one
 * does not fit; returns how many did.
 */
static unsigned
fill(struct dnswire_wr *w, size_t limit, const struct dnswire_query *q)
{
	static const uint8_t	a[4] = { 1, 2, 3, 4 };
	unsigned		i;
	int			r;

	dnswire_reply_begin(w, reply, sizeof(reply), limit, q, 0);
	for (i = 0; (r = dnswire_add_a(w, DNS_S_ANSWER, NULL, 9, a)) == 0; i++)
		assert_true(i < 5000);
	assert_int_equal(r, -ENOSPC);
	return i;
}

static void
test_reply_truncation(void **state)
{
	static const uint8_t	a[4] = { 1, 2, 3, 4 };
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	size_t			n;
	unsigned		i;

	/* Without EDNS: 512.  Header and question 33, then 16 a record. */
	mb_query(&mb, 5, 0x0100, "www.example.com", DNS_T_A);
	read_query(&q);
	assert_int_equal(fill(&w, q.udp_size, &q), (512 - 33) / 16);
	/* Truncated: later records refused, even small ones. */
	assert_int_equal(dnswire_add_cname(&w, DNS_S_AUTHORITY, ".", 1, "."),
	    -ENOSPC);
	n = dnswire_reply_end(&w);
	assert_int_equal(n, 33);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.flags, 0x8380);		/* TC */
	assert_int_equal(msg.ancount, 0);
	assert_int_equal(msg.qdcount, 1);

	/* The client's EDNS size, to the byte: 30 records fill 524. */
	mb_query(&mb, 5, 0x0100, "www.example.com", DNS_T_A);
	mb_opt(&mb, 33 + 30 * 16 + 11, 0x8000, NULL, 0);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 0);
	for (i = 0; i < 30; i++)
		assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 9, a), 0);
	n = dnswire_reply_end(&w);
	assert_int_equal(n, q.udp_size);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.flags & 0x0200, 0);
	assert_int_equal(msg.ancount, 30);
	/* One more: TC, header, question and OPT (DO still echoed). */
	assert_int_equal(fill(&w, q.udp_size, &q), 30);
	n = dnswire_reply_end(&w);
	assert_int_equal(n, 33 + 11);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.flags, 0x8380);
	assert_int_equal(msg.arcount, 1);
	assert_int_equal(reply[n - 4], 0x80);

	/* A client asking 4096 gets 1232; over TCP, 65535. */
	mb_query(&mb, 5, 0x0100, "www.example.com", DNS_T_A);
	mb_opt(&mb, 4096, 0, NULL, 0);
	read_query(&q);
	assert_int_equal(fill(&w, q.udp_size, &q), (1232 - 11 - 33) / 16);
	assert_true(dnswire_reply_end(&w) <= DNSWIRE_EDNS_SIZE);
	assert_int_equal(fill(&w, DNSWIRE_TCP_LIMIT, &q),
	    (65535 - 11 - 33) / 16);
	/* A limit above the buffer is cut to it. */
	dnswire_reply_begin(&w, reply, 600, 65535, &q, 0);
	for (i = 0; dnswire_add_a(&w, DNS_S_ANSWER, NULL, 9, a) == 0; i++)
		;
	assert_int_equal(i, (600 - 11 - 33) / 16);
	assert_true(dnswire_reply_end(&w) <= 600);
}

/*
 * A record that stops fitting in its owner's first label, then a target of
 * the owner's length: nothing is compared with the bytes not written.
 * The buffer's stale bytes read as a pointer far past its end.
 */
static void
test_reply_stale_bytes(void **state)
{
	static const uint8_t	 a[4] = { 1, 2, 3, 4 };
	struct dnswire_query	 q;
	struct dnswire_wr	 w;
	uint8_t			*buf;
	unsigned		 i;

	mb_query(&mb, 5, 0x0100, "x", DNS_T_A);
	read_query(&q);
	assert_non_null(buf = malloc(512));
	memset(buf, 0xff, 512);
	dnswire_reply_begin(&w, buf, 512, 512, &q, 0);
	for (i = 0; i < 30; i++)
		assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 1, a), 0);
	assert_int_equal(dnswire_add_cname(&w, DNS_S_ANSWER,
	    "aaaaaaaaaaaaaaaa.x", 1, "bbbbbbbbbbbbbbbb.x"), -ENOSPC);
	assert_int_equal(dnswire_reply_end(&w), 19);
	free(buf);
}

static size_t
soa_rdata(struct mb *m, uint32_t minimum)
{
	m->len = 0;
	mb_name(m, "ns1.example.com");
	mb_name(m, "hostmaster.example.com");
	mb_u32(m, 2024010101);
	mb_u32(m, 7200);
	mb_u32(m, 3600);
	mb_u32(m, 1209600);
	mb_u32(m, minimum);
	return m->len;
}

/* A negative answer: the SOA in authority, its names compressed. */
static void
test_reply_soa(void **state)
{
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	uint32_t		minimum;
	size_t			n;

	mb_query(&mb, 5, 0x0100, "nope.Example.com", DNS_T_AAAA);
	mb_opt(&mb, 1232, 0x8000, NULL, 0);
	read_query(&q);
	soa_rdata(&alt, 300);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q,
	    DNS_R_NXDOMAIN);
	assert_int_equal(dnswire_add_soa(&w, DNS_S_AUTHORITY, "example.com", 120,
	    alt.buf, alt.len), 0);
	/* Rdata that is not an SOA: refused, nothing left behind. */
	assert_int_equal(dnswire_add_soa(&w, DNS_S_AUTHORITY, "example.com", 1,
	    alt.buf, alt.len - 1), -EBADMSG);
	assert_int_equal(dnswire_add_soa(&w, DNS_S_AUTHORITY, "example.com", 1,
	    alt.buf, alt.len + 1), -EBADMSG);
	assert_int_equal(dnswire_add_soa(&w, DNS_S_AUTHORITY, "example.com", 1,
	    alt.buf + 1, alt.len - 1), -EBADMSG);
	n = dnswire_reply_end(&w);
	/* Owner, MNAME's and RNAME's suffix: pointers to the question's. */
	assert_int_equal(n, 12 + 22 + 2 + 10 + (4 + 2) + (11 + 2) + 20 + 11);
	assert_int_equal(get16(reply + 34), 0xc000 | 17);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.rcode, DNS_R_NXDOMAIN);
	assert_int_equal(msg.nscount, 1);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.section, DNS_S_AUTHORITY);
	assert_string_equal(rr.name, "Example.com");
	assert_int_equal(rr.ttl, 120);
	assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_string_equal(out, "ns1.Example.com. hostmaster.Example.com. "
	    "2024010101 7200 3600 1209600 300");
	assert_int_equal(dnsmsg_rdata_soa_minimum(&msg, &rr, &minimum), 0);
	assert_int_equal(minimum, 300);
}

/* ---- error replies ------------------------------------------------ */

/* An error reply to mb's query, held to the query's length and parsed. */
static size_t
error_reply(int rcode, struct dnsmsg *msg)
{
	struct dnswire_query	q;
	size_t			n;

	(void)read_mb(&q);
	n = dnswire_reply_error(reply, sizeof(reply), &q, mb.len, rcode);
	assert_true(n >= 12 && n <= mb.len);
	parse_ok(reply, n, msg);
	assert_int_equal(msg->id, get16(mb.buf));
	assert_true(msg->flags & 0x8000);
	return n;
}

static void
test_reply_error(void **state)
{
	struct dnswire_query	q;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			label[64], name[DNSMSG_NAME_STRLEN];
	size_t			n;

	/* Dropped: nothing. */
	mb_query(&mb, 1, 0x8000, "example.com", DNS_T_A);
	assert_int_equal(read_mb(&q), DNSWIRE_DROP);
	assert_int_equal(dnswire_reply_error(reply, sizeof(reply), &q, mb.len,
	    DNSWIRE_DROP), 0);

	/* REFUSED: the question echoed, RA clear, no longer than the query. */
	mb_query(&mb, 0x4444, 0x0110, "Example.COM", DNS_T_A);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, mb.len);
	assert_int_equal(msg.flags, 0x8115);
	assert_memory_equal(reply + 12, mb.buf + 12, n - 12);
	/* SERVFAIL: RA set. */
	n = error_reply(DNS_R_SERVFAIL, &msg);
	assert_int_equal(msg.flags, 0x8192);

	/* A header alone (QDCOUNT 0): FORMERR, a header alone. */
	mb_hdr(&mb, 0x5555, 0x0100, 0, 0, 0, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	n = error_reply(DNSWIRE_FORMERR, &msg);
	assert_int_equal(n, 12);
	assert_int_equal(msg.flags, 0x8181);
	assert_int_equal(msg.qdcount, 0);

	/* A header promising a question that is not there: 12 bytes back. */
	mb_query(&mb, 0x5556, 0x0100, "example.com", DNS_T_A);
	mb.len = 12;
	assert_int_equal(read_mb(&q), DNSWIRE_FORMERR);
	n = error_reply(DNSWIRE_FORMERR, &msg);
	assert_int_equal(n, 12);
	assert_int_equal(msg.qdcount, 0);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, 12);

	/* NOTIMP: opcode echoed, header only. */
	mb_query(&mb, 0x6666, 4 << 11 | 0x0100, "example.com", DNS_T_SOA);
	n = error_reply(DNSWIRE_NOTIMP, &msg);
	assert_int_equal(n, 12);
	assert_int_equal(msg.flags, 0x8000 | 4 << 11 | 0x0184);

	/* BADVERS: in the OPT's extended rcode, header rcode 0, version 0. */
	mb_query(&mb, 0x7777, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0x00028000, NULL, 0);
	assert_int_equal(read_mb(&q), DNSWIRE_BADVERS);
	n = error_reply(DNSWIRE_BADVERS, &msg);
	assert_int_equal(n, mb.len);
	assert_int_equal(msg.rcode, 0);
	assert_int_equal(msg.arcount, 1);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.type, DNS_T_OPT);
	assert_int_equal(rr.ttl, 0x01008000);
	/* No room for the OPT: no reply rather than one saying NOERROR. */
	assert_int_equal(dnswire_reply_error(reply, sizeof(reply), &q, 22,
	    DNSWIRE_BADVERS), 0);

	/* A FORMERR for an EDNS fault carries no OPT. */
	mb_query(&mb, 0x7777, 0x0100, "example.com", DNS_T_A);
	mb_opt(&mb, 1232, 0, "\x00\x0a\x00\x09", 4);
	n = error_reply(DNSWIRE_FORMERR, &msg);
	assert_int_equal(msg.arcount, 0);
	assert_int_equal(msg.qdcount, 1);

	/*
	 * The question through a pointer: expanded it is longer than the
	 * query, so it is left out.  Trailing bytes make room for it.
	 */
	mb_hdr(&mb, 0x0161, 0x0100, 1, 0, 0, 0);
	mb_ptr(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, 12);
	assert_int_equal(msg.qdcount, 0);
	mb_u16(&mb, 0);
	mb_u8(&mb, 0);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, mb.len);
	assert_int_equal(msg.qdcount, 1);
	assert_string_equal(msg.qname, "a.\\000");

	/* A 255-byte question, with and without EDNS: never longer. */
	memset(label, 'q', 63);
	label[63] = '\0';
	snprintf(name, sizeof(name), "%s.%s.%s.%.61s", label, label, label,
	    label);
	mb_query(&mb, 0x8888, 0x0100, name, DNS_T_TXT);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, mb.len);
	mb_opt(&mb, 1232, 0, NULL, 0);
	n = error_reply(DNS_R_REFUSED, &msg);
	assert_int_equal(n, mb.len);
	assert_int_equal(msg.arcount, 1);
	/* A short buffer: what fits of it, else nothing. */
	assert_int_equal(dnswire_reply_error(reply, 11, &q, mb.len,
	    DNS_R_REFUSED), 0);
	(void)read_mb(&q);
	assert_int_equal(dnswire_reply_error(reply, 30, &q, mb.len,
	    DNS_R_REFUSED), 23);
}

/* ---- kept records ------------------------------------------------- */

static uint8_t	kept[65536 * 2];

/*
 * An upstream reply to "www.example.com MX", compressed everywhere it may
 * be: owners, a CNAME's target, MX exchanges, the SOA's names.  Glue and
 * an OPT in additional, which are not kept.
 */
static void
build_upstream(void)
{
	size_t at, mail;

	mb_hdr(&mb, 0x4321, 0x8180, 1, 3, 2, 2);
	mb_name(&mb, "www.example.com");
	mb_u16(&mb, DNS_T_MX);
	mb_u16(&mb, CLASS_IN);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 3600);
	mail = mb_labels(&mb, "Mail");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, mail);
	at = mb_rr_fixed(&mb, DNS_T_MX, CLASS_IN, 300);
	mb_u16(&mb, 10);
	mb_labels(&mb, "mx1");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, mail);
	at = mb_rr_fixed(&mb, DNS_T_MX, CLASS_IN, 60);
	mb_u16(&mb, 20);
	mb_name(&mb, "mx2.other.net");
	mb_rr_end(&mb, at);
	mb_ptr(&mb, 16);
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 3600);
	mb_labels(&mb, "ns1");
	mb_ptr(&mb, 16);
	mb_labels(&mb, "hostmaster");
	mb_ptr(&mb, 16);
	mb_u32(&mb, 1);
	mb_u32(&mb, 2);
	mb_u32(&mb, 3);
	mb_u32(&mb, 4);
	mb_u32(&mb, 600);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, 16);
	at = mb_rr_fixed(&mb, DNS_T_NS, CLASS_IN, 86400);
	mb_labels(&mb, "ns1");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_name(&mb, "mx1.example.com");
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 300);
	mb_bytes(&mb, "\1\2\3\4", 4);
	mb_rr_end(&mb, at);
	mb_u8(&mb, 0);
	at = mb_rr_fixed(&mb, DNS_T_OPT, 1232, 0);
	mb_rr_end(&mb, at);
}

/* A positive answer told without its authority; every TTL capped. */
static void
test_keep_answers_cap(void **state)
{
	static const uint32_t	want_ttl[] = { 250, 200, 0, 250, 250 };
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	size_t			n;
	unsigned		i;
	int			k, a;

	(void)state;
	build_upstream();
	k = dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept));
	assert_true(k > 0);
	a = dnswire_rrs_answers(kept, (size_t)k);
	assert_true(a > 0 && a < k);
	mb_query(&mb, 0x2222, 0x0100, "www.example.com", DNS_T_MX);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)a, 0, UINT32_MAX), 0);
	parse_ok(reply, dnswire_reply_end(&w), &msg);
	assert_int_equal(msg.ancount, 3);
	assert_int_equal(msg.nscount, 0);
	/* Aged 100 s, at most 250: the cache's own remaining TTL. */
	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)k, 100, 250), 0);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	for (i = 0; i < 5; i++) {
		rr_at(&msg, i, &rr);
		assert_int_equal(rr.ttl, want_ttl[i]);
	}
	/* No records, and a malformed list. */
	assert_int_equal(dnswire_rrs_answers(kept, 0), 0);
	assert_int_equal(dnswire_rrs_answers(kept, 3), -EBADMSG);
}

static void
test_keep_roundtrip(void **state)
{
	static const uint8_t first[] =
	    "\001\003www\007example\003com\000\000\005\000\001\000\000\016\020"
	    "\000\022\004Mail\007example\003com";
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		up, msg;
	struct dnsmsg_rr	urr, rr;
	char			uout[DNSMSG_NAME_STRLEN], out[DNSMSG_NAME_STRLEN];
	uint32_t		ttl, want_ttl[] = { 3500, 200, 0, 500, 86300 };
	unsigned		i;
	size_t			n;
	int			k;

	build_upstream();
	k = dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept));
	assert_true(k > 0);
	/* The first record, every name expanded, case as upstream sent it. */
	assert_memory_equal(kept, first, sizeof(first));
	/* The smallest TTL: the second MX's; the SOA's is capped at 600. */
	assert_int_equal(dnswire_rrs_ttl(kept, (size_t)k, &ttl), 0);
	assert_int_equal(ttl, 60);
	parse_ok(mb.buf, mb.len, &up);
	memcpy(alt.buf, mb.buf, mb.len);	/* the upstream message, kept aside */
	alt.len = mb.len;

	/* Into a reply to another spelling of the question, 100 s later. */
	mb_query(&mb, 0x1111, 0x0100, "WWW.example.com", DNS_T_MX);
	mb_opt(&mb, 1232, 0, NULL, 0);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)k, 100, UINT32_MAX), 0);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.ancount, 3);
	assert_int_equal(msg.nscount, 2);
	assert_int_equal(msg.arcount, 1);		/* ours */
	parse_ok(alt.buf, alt.len, &up);
	for (i = 0; i < 5; i++) {
		rr_at(&up, i, &urr);
		rr_at(&msg, i, &rr);
		assert_int_equal(rr.section, urr.section);
		assert_int_equal(dnsmsg_name_cmp(rr.name, urr.name), 0);
		assert_int_equal(rr.type, urr.type);
		assert_int_equal(rr.rclass, urr.rclass);
		assert_int_equal(rr.ttl, want_ttl[i]);
		assert_true(dnsmsg_rdata_str(&up, &urr, uout, sizeof(uout)) > 0);
		assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
		assert_int_equal(name_cmp_fold(out, strlen(out), uout,
		    strlen(uout)), 0);
	}
	/* Compressed again: the CNAME owner is the question (0xc00c). */
	assert_int_equal(get16(reply + 12 + 17 + 4), 0xc00c);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "WWW.example.com");
	assert_true(n < alt.len);

	/* Kept records after the question's own: answers then authority. */
	dnswire_reply_begin(&w, reply, sizeof(reply), 65535, &q, 0);
	assert_int_equal(dnswire_add_cname(&w, DNS_S_ANSWER, NULL, 5,
	    "mail.example.com"), 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)k, 0, UINT32_MAX), 0);
	assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 5,
	    (const uint8_t *)"\1\1\1\1"), -EINVAL);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.ancount, 4);

	/* Past 512 with what came before: truncated. */
	mb_query(&mb, 0x1111, 0x0100, "www.example.com", DNS_T_MX);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), q.udp_size, &q, 0);
	for (i = 0; i < 25; i++)
		assert_int_equal(dnswire_add_a(&w, DNS_S_ANSWER, NULL, 5,
		    (const uint8_t *)"\1\1\1\1"), 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)k, 0, UINT32_MAX), -ENOSPC);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_true(msg.flags & 0x0200);
	assert_int_equal(msg.ancount + msg.nscount, 0);
}

/* Types whose names must not be compressed, and types unknown. */
static void
test_keep_types(void **state)
{
	static const uint8_t	https[] = { 0, 1, 0xc0, 0x0c, 0, 1, 0, 3, 2,
	    'h', '2' };
	struct dnswire_query	q;
	struct dnswire_wr	w;
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	uint32_t		ttl;
	size_t			at, n;
	int			k;

	/* An SRV whose target was compressed anyway (RFC 2052 servers). */
	mb_hdr(&mb, 1, 0x8180, 1, 3, 0, 0);
	mb_name(&mb, "_sip._udp.example.com");
	mb_u16(&mb, DNS_T_SRV);
	mb_u16(&mb, CLASS_IN);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_SRV, CLASS_IN, 0x80000000);
	mb_bytes(&mb, "\0\012\0\074\023\304", 6);
	mb_labels(&mb, "sip");
	mb_ptr(&mb, 22);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, T_HTTPS, CLASS_IN, 50);
	mb_bytes(&mb, https, sizeof(https));
	mb_rr_end(&mb, at);
	/* OPT in the answer section is not kept. */
	mb_u8(&mb, 0);
	mb_rr_end(&mb, mb_rr_fixed(&mb, DNS_T_OPT, 512, 0));
	k = dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept));
	assert_int_equal(k, (1 + 23 + 10 + 6 + 17) + (1 + 23 + 10 + 11));
	/* A TTL with the top bit set is 0. */
	assert_int_equal(dnswire_rrs_ttl(kept, (size_t)k, &ttl), 0);
	assert_int_equal(ttl, 0);

	mb_query(&mb, 2, 0, "_SIP._udp.example.com", DNS_T_SRV);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, kept, (size_t)k, 7, UINT32_MAX), 0);
	n = dnswire_reply_end(&w);
	parse_ok(reply, n, &msg);
	assert_int_equal(msg.ancount, 2);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "_SIP._udp.example.com");
	assert_int_equal(rr.rdlen, 6 + 17);		/* written expanded */
	assert_int_equal(rr.ttl, 0);
	assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_string_equal(out, "10 60 5060 sip.example.com.");
	rr_at(&msg, 1, &rr);
	assert_int_equal(rr.type, T_HTTPS);
	assert_int_equal(rr.ttl, 43);
	assert_int_equal(rr.rdlen, sizeof(https));	/* as it came, byte for byte */
	assert_memory_equal(reply + rr.rdata_off, https, sizeof(https));

	/* No records at all: an empty list. */
	mb_hdr(&mb, 1, 0x8183, 1, 0, 0, 0);
	mb_name(&mb, "nope.example");
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	assert_int_equal(dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept)), 0);
	assert_int_equal(dnswire_rrs_ttl(kept, 0, &ttl), -ENOENT);
}

static void
test_keep_malformed(void **state)
{
	uint8_t		*p;
	size_t		 n, at;
	int		 k;

	build_upstream();
	k = dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept));
	assert_true(k > 0);
	/* Every cap short of it. */
	for (n = 0; n < (size_t)k; n++)
		assert_int_equal(dnswire_rrs_keep(mb.buf, mb.len, kept, n),
		    -ENOSPC);
	/* Every prefix: the counts promise more. */
	for (n = 0; n < mb.len; n++) {
		assert_non_null(p = malloc(n ? n : 1));
		memcpy(p, mb.buf, n);
		assert_int_equal(dnswire_rrs_keep(p, n, kept, sizeof(kept)),
		    -EBADMSG);
		free(p);
	}

	/* An MX with a byte past its name; a CNAME pointing forward. */
	mb_hdr(&mb, 1, 0x8180, 1, 1, 0, 0);
	mb_name(&mb, "example.com");
	mb_u16(&mb, DNS_T_MX);
	mb_u16(&mb, CLASS_IN);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_MX, CLASS_IN, 1);
	mb_u16(&mb, 10);
	mb_ptr(&mb, 12);
	mb_rr_end(&mb, at);
	assert_true(dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept)) > 0);
	mb_u8(&mb, 0);
	mb_rr_end(&mb, at);
	assert_int_equal(dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept)),
	    -EBADMSG);
	mb_hdr(&mb, 1, 0x8180, 1, 1, 0, 0);
	mb_name(&mb, "example.com");
	mb_u16(&mb, DNS_T_CNAME);
	mb_u16(&mb, CLASS_IN);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 1);
	mb_ptr(&mb, mb.len + 2);
	mb_name(&mb, "x");
	mb_rr_end(&mb, at);
	assert_int_equal(dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept)),
	    -EBADMSG);
	/* An SOA one byte short. */
	mb_hdr(&mb, 1, 0x8180, 1, 0, 1, 0);
	mb_name(&mb, "example.com");
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 1);
	mb_bytes(&mb, "\0\0", 2);
	mb_bytes(&mb, alt.buf, 19);
	mb_rr_end(&mb, at);
	assert_int_equal(dnswire_rrs_keep(mb.buf, mb.len, kept, sizeof(kept)),
	    -EBADMSG);
}

/* A kept list read from a file is checked as warily as a message. */
static void
test_kept_bad_lists(void **state)
{
	static const uint8_t a[] = "\001\001a\000\000\001\000\001\000\000\000\011"
	    "\000\004\001\002\003\004";
	static const uint8_t cname[] = "\001\001a\000\000\005\000\001\000\000"
	    "\000\011\000\002\001b";
	struct dnswire_query	q;
	struct dnswire_wr	w;
	uint8_t			list[256];
	size_t			alen = sizeof(a) - 1, empty, n;
	uint32_t		ttl;

	mb_query(&mb, 2, 0, "a", DNS_T_A);
	read_query(&q);
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);
	empty = dnswire_reply_end(&w);

	/* Good: two A records, answer then authority. */
	memcpy(list, a, alen);
	memcpy(list + alen, a, alen);
	list[alen] = DNS_S_AUTHORITY;
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, list, 2 * alen, 0, UINT32_MAX), 0);
	assert_int_equal(dnswire_reply_end(&w), empty + 2 * 16);
	assert_int_equal(dnswire_rrs_ttl(list, 2 * alen, &ttl), 0);
	assert_int_equal(ttl, 9);

#define BAD(len) do {							\
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);	\
	assert_int_equal(dnswire_add_kept(&w, list, (len), 0, UINT32_MAX), -EBADMSG); \
	assert_int_equal(dnswire_reply_end(&w), empty);		\
	assert_int_equal(dnswire_rrs_ttl(list, (len), &ttl), -EBADMSG); \
} while (0)
	/* Authority then answer; section 0 or 3. */
	list[0] = DNS_S_AUTHORITY;
	list[alen] = DNS_S_ANSWER;
	BAD(2 * alen);
	list[0] = DNS_S_ANSWER;
	list[alen] = DNS_S_ADDITIONAL;
	BAD(2 * alen);
	list[alen] = 0;
	BAD(2 * alen);
	/* The first good, the second cut anywhere: the first is undone. */
	list[alen] = DNS_S_ANSWER;
	for (n = alen + 1; n < 2 * alen; n++)
		BAD(n);
	/* An owner with a pointer, however it points. */
	list[1] = 0xc0;
	list[2] = 0;
	BAD(alen);
	/* A CNAME whose rdata is not a name: seen when written. */
	memcpy(list, cname, sizeof(cname) - 1);
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, list, sizeof(cname) - 1, 0, UINT32_MAX),
	    -EBADMSG);
	assert_int_equal(dnswire_reply_end(&w), empty);
	list[sizeof(cname) - 1] = 0;
	list[13] = 3;
	dnswire_reply_begin(&w, reply, sizeof(reply), 512, &q, 0);
	assert_int_equal(dnswire_add_kept(&w, list, sizeof(cname), 0, UINT32_MAX), 0);
	assert_true(dnswire_reply_end(&w) > empty);
#undef BAD
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_plain),
		cmocka_unit_test(test_query_edns),
		cmocka_unit_test(test_query_header),
		cmocka_unit_test(test_query_names),
		cmocka_unit_test(test_query_truncated),
		cmocka_unit_test(test_reply_bytes),
		cmocka_unit_test(test_reply_names),
		cmocka_unit_test(test_reply_edns),
		cmocka_unit_test(test_reply_truncation),
		cmocka_unit_test(test_reply_stale_bytes),
		cmocka_unit_test(test_reply_soa),
		cmocka_unit_test(test_reply_error),
		cmocka_unit_test(test_keep_roundtrip),
		cmocka_unit_test(test_keep_answers_cap),
		cmocka_unit_test(test_keep_types),
		cmocka_unit_test(test_keep_malformed),
		cmocka_unit_test(test_kept_bad_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
