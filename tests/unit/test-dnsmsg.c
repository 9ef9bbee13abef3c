/* SPDX-License-Identifier: MIT */
/* tests/unit/test-dnsmsg.c - unit tests of the DNS message reader. */

/*
 * Messages are built here byte by byte (struct mb, dnsbuild.h), so that
 * each test states exactly what is on the wire, compression pointers
 * included.  Truncation tests copy each prefix into a heap buffer of
 * exactly that size, so a read past the end is an ASan report.
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
#include <ares.h>

#include "dnsbuild.h"
#include "dnsmsg.h"

#define QR_RD_RA	0x8180

static struct mb	mb;

static void
parse_ok(const struct mb *m, struct dnsmsg *msg)
{
	assert_int_equal(dnsmsg_parse(m->buf, m->len, msg), 0);
}

static void
parse_bad(const struct mb *m)
{
	struct dnsmsg msg;

	assert_int_equal(dnsmsg_parse(m->buf, m->len, &msg), -EBADMSG);
}

/* The rdata of the only answer in mb, as dnsmsg_rdata_str returns it. */
static int
only_rdata_str(char *out, size_t outlen)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;

	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	return dnsmsg_rdata_str(&msg, &rr, out, outlen);
}

/* A response to "www.example.com A" whose one answer has this rdata. */
static void
build_one(uint16_t type, const void *rdata, size_t rdlen)
{
	size_t at;

	mb_hdr(&mb, 1, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "www.example.com", type);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, type, CLASS_IN, 300);
	mb_bytes(&mb, rdata, rdlen);
	mb_rr_end(&mb, at);
}

static void
expect_rdata_bad(uint16_t type, const void *rdata, size_t rdlen)
{
	char out[DNSMSG_NAME_STRLEN * 2];

	build_one(type, rdata, rdlen);
	assert_int_equal(only_rdata_str(out, sizeof(out)), -EBADMSG);
}

static void
test_header_question(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;
	size_t			rr_off;

	mb_hdr(&mb, 0xbeef, 0x8183, 1, 1, 0, 0);
	mb_question(&mb, "WWW.Example.COM", DNS_T_AAAA);
	rr_off = mb.len;
	mb_rr_raw(&mb, "www.example.com", DNS_T_A, 42, "\xc0\x00\x02\x01", 4);
	parse_ok(&mb, &msg);
	assert_ptr_equal(msg.buf, mb.buf);
	assert_int_equal(msg.len, mb.len);
	assert_int_equal(msg.id, 0xbeef);
	assert_int_equal(msg.flags, 0x8183);
	assert_int_equal(msg.rcode, DNS_R_NXDOMAIN);
	assert_int_equal(msg.qdcount, 1);
	assert_int_equal(msg.ancount, 1);
	assert_int_equal(msg.nscount, 0);
	assert_int_equal(msg.arcount, 0);
	assert_string_equal(msg.qname, "WWW.Example.COM");	/* case as sent */
	assert_int_equal(msg.qtype, DNS_T_AAAA);
	assert_int_equal(msg.qclass, CLASS_IN);
	assert_int_equal(msg.rr_off, rr_off);

	memset(&it, 0, sizeof(it));
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 1);
	assert_string_equal(rr.name, "www.example.com");
	assert_int_equal(rr.type, DNS_T_A);
	assert_int_equal(rr.rclass, CLASS_IN);
	assert_int_equal(rr.ttl, 42);
	assert_int_equal(rr.rdlen, 4);
	assert_int_equal(rr.rdata_off, mb.len - 4);
	assert_int_equal(rr.section, DNS_S_ANSWER);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 0);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 0);

	/* Bytes after the last RR are allowed. */
	mb_u32(&mb, 0xdeadbeef);
	parse_ok(&mb, &msg);

	/* Shorter than a header. */
	assert_int_equal(dnsmsg_parse(mb.buf, 11, &msg), -EBADMSG);
	assert_int_equal(dnsmsg_parse(mb.buf, 0, &msg), -EBADMSG);
}

static void
test_qdcount(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;

	/* No question: some FORMERR and NOTIMP replies look like this. */
	mb_hdr(&mb, 7, 0x8001, 0, 1, 0, 0);
	mb_rr_raw(&mb, "example.com", DNS_T_A, 1, "\x01\x02\x03\x04", 4);
	parse_ok(&mb, &msg);
	assert_string_equal(msg.qname, "");
	assert_int_equal(msg.qtype, 0);
	assert_int_equal(msg.qclass, 0);
	assert_int_equal(msg.rr_off, 12);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "example.com");

	mb_hdr(&mb, 7, 0x0100, 0, 0, 0, 0);
	parse_ok(&mb, &msg);

	/* Two questions. */
	mb_hdr(&mb, 7, QR_RD_RA, 2, 0, 0, 0);
	mb_question(&mb, "a.example", DNS_T_A);
	mb_question(&mb, "b.example", DNS_T_A);
	parse_bad(&mb);

	/* The root as the question. */
	mb_hdr(&mb, 7, QR_RD_RA, 1, 0, 0, 0);
	mb_question(&mb, ".", DNS_T_NS);
	parse_ok(&mb, &msg);
	assert_string_equal(msg.qname, ".");
}

static void
test_counts(void **state)
{
	struct dnsmsg	msg;
	unsigned	i;

	/* One more answer announced than present. */
	mb_hdr(&mb, 1, QR_RD_RA, 1, 2, 0, 0);
	mb_question(&mb, "example.com", DNS_T_A);
	mb_rr_raw(&mb, "example.com", DNS_T_A, 1, "\x01\x02\x03\x04", 4);
	parse_bad(&mb);

	/* Or an authority or additional record. */
	mb.buf[7] = 1;
	mb.buf[9] = 1;
	parse_bad(&mb);
	mb.buf[9] = 0;
	mb.buf[11] = 1;
	parse_bad(&mb);
	mb.buf[11] = 0;
	parse_ok(&mb, &msg);

	/* A question announced, none there. */
	mb_hdr(&mb, 1, QR_RD_RA, 1, 0, 0, 0);
	parse_bad(&mb);

	/* DNSMSG_MAX_RRS records are fine, one more is not. */
	mb_hdr(&mb, 1, QR_RD_RA, 0, DNSMSG_MAX_RRS / 2, DNSMSG_MAX_RRS / 4,
	    DNSMSG_MAX_RRS / 4);
	for (i = 0; i < DNSMSG_MAX_RRS + 1; i++)
		mb_rr_raw(&mb, ".", 65280, 0, NULL, 0);
	parse_ok(&mb, &msg);
	mb.buf[11]++;
	parse_bad(&mb);
	mb.buf[11]--;
	mb.buf[6] = mb.buf[8] = mb.buf[10] = 0xff;
	parse_bad(&mb);
}

/* One RR of every type with a presentation form, and what it must read. */
static void
test_rdata_types(void **state)
{
	static const char *const want[] = {
		"192.0.2.1",
		"2001:db8::1",
		"ns1.example.com.",
		"web.example.com.",
		"host.example.com.",
		"10 mail.example.com.",
		("ns1.example.com. hostmaster.example.com. 2024010101 7200 "
		    "3600 1209600 300"),
		"\"hello world\" \"a\\\"b\\\\c\\001\\255~\" \"\"",
		"10 60 5060 sip.example.com.",
		"0 issue \"letsencrypt.org\"",
		"128 iodef \"mailto:a\\\"b@example.com\"",
		"\\# 4 0a0000ff",
		"\\# 0",
		".",
		"0 .",
		". . 0 0 0 0 0",
		"\\# 6 000a00020001",
	};
	static const uint16_t types[] = {
		DNS_T_A, DNS_T_AAAA, DNS_T_NS, DNS_T_CNAME, DNS_T_PTR, DNS_T_MX,
		DNS_T_SOA, DNS_T_TXT, DNS_T_SRV, DNS_T_CAA, DNS_T_CAA, 65280,
		65534, DNS_T_NS, DNS_T_MX, DNS_T_SOA, DNS_T_OPT,
	};
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;
	char			out[DNSMSG_NAME_STRLEN * 2], tb[DNSMSG_TYPE_STRLEN];
	size_t			at, ex;
	unsigned		i;
	int			r;

	mb_hdr(&mb, 1, QR_RD_RA, 1, 16, 0, 1);
	mb_question(&mb, "www.example.com", 255);
	ex = 16;	/* "example.com" inside the question */

	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 300);
	mb_bytes(&mb, "\xc0\x00\x02\x01", 4);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_AAAA, CLASS_IN, 300);
	mb_bytes(&mb, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, ex);
	at = mb_rr_fixed(&mb, DNS_T_NS, CLASS_IN, 300);
	mb_labels(&mb, "ns1");
	mb_ptr(&mb, ex);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 300);
	mb_labels(&mb, "web");
	mb_ptr(&mb, ex);
	mb_rr_end(&mb, at);

	mb_name(&mb, "1.2.0.192.in-addr.arpa");
	at = mb_rr_fixed(&mb, DNS_T_PTR, CLASS_IN, 300);
	mb_name(&mb, "host.example.com");	/* uncompressed */
	mb_rr_end(&mb, at);

	mb_ptr(&mb, ex);
	at = mb_rr_fixed(&mb, DNS_T_MX, CLASS_IN, 300);
	mb_u16(&mb, 10);
	mb_labels(&mb, "mail");
	mb_ptr(&mb, ex);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, ex);
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 300);
	mb_labels(&mb, "ns1");
	mb_ptr(&mb, ex);
	mb_labels(&mb, "hostmaster");
	mb_ptr(&mb, ex);
	mb_u32(&mb, 2024010101);
	mb_u32(&mb, 7200);
	mb_u32(&mb, 3600);
	mb_u32(&mb, 1209600);
	mb_u32(&mb, 300);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_TXT, CLASS_IN, 300);
	mb_bytes(&mb, "\x0bhello world", 12);
	mb_bytes(&mb, "\x08" "a\"b\\c\x01\xff~", 9);
	mb_u8(&mb, 0);				/* an empty string */
	mb_rr_end(&mb, at);

	mb_name(&mb, "_sip._udp.example.com");
	at = mb_rr_fixed(&mb, DNS_T_SRV, CLASS_IN, 300);
	mb_u16(&mb, 10);
	mb_u16(&mb, 60);
	mb_u16(&mb, 5060);
	mb_name(&mb, "sip.example.com");
	mb_rr_end(&mb, at);

	mb_ptr(&mb, ex);
	at = mb_rr_fixed(&mb, DNS_T_CAA, CLASS_IN, 300);
	mb_bytes(&mb, "\x00\x05issueletsencrypt.org", 22);
	mb_rr_end(&mb, at);

	mb_ptr(&mb, ex);
	at = mb_rr_fixed(&mb, DNS_T_CAA, CLASS_IN, 300);
	mb_bytes(&mb, "\x80\x05iodefmailto:a\"b@example.com", 29);
	mb_rr_end(&mb, at);

	mb_rr_raw(&mb, "example.com", 65280, 300, "\x0a\x00\x00\xff", 4);
	mb_rr_raw(&mb, "example.com", 65534, 300, NULL, 0);

	mb_name(&mb, ".");
	at = mb_rr_fixed(&mb, DNS_T_NS, CLASS_IN, 300);
	mb_name(&mb, ".");
	mb_rr_end(&mb, at);

	mb_name(&mb, ".");
	at = mb_rr_fixed(&mb, DNS_T_MX, CLASS_IN, 300);
	mb_u16(&mb, 0);
	mb_name(&mb, ".");			/* RFC 7505 null MX */
	mb_rr_end(&mb, at);

	mb_name(&mb, ".");
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 300);
	mb_name(&mb, ".");
	mb_name(&mb, ".");
	mb_bytes(&mb, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
	mb_rr_end(&mb, at);

	/* EDNS in the additional section: unknown rdata format to us. */
	mb_name(&mb, ".");
	at = mb_rr_fixed(&mb, DNS_T_OPT, CLASS_IN, 0);
	mb_bytes(&mb, "\x00\x0a\x00\x02\x00\x01", 6);
	mb_rr_end(&mb, at);

	parse_ok(&mb, &msg);
	memset(&it, 0, sizeof(it));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 1);
		assert_int_equal(rr.type, types[i]);
		r = dnsmsg_rdata_str(&msg, &rr, out, sizeof(out));
		if (r < 0 || strcmp(out, want[i]) != 0)
			print_message("RR %u (%s): %d '%s'\n", i,
			    dnsmsg_type_str(rr.type, tb, sizeof(tb)), r, out);
		assert_string_equal(out, want[i]);
		assert_int_equal(r, strlen(want[i]));
	}
	assert_int_equal(rr.section, DNS_S_ADDITIONAL);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 0);
}

static void
test_rdata_short_buffer(void **state)
{
	const char	*want = "ns1.example.com. hostmaster.example.com. 1 2 3 4 5";
	char		 out[80];
	size_t		 at, n, len = strlen(want);

	mb_hdr(&mb, 1, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "example.com", DNS_T_SOA);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 300);
	mb_name(&mb, "ns1.example.com");
	mb_name(&mb, "hostmaster.example.com");
	mb_bytes(&mb, "\0\0\0\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0\5", 20);
	mb_rr_end(&mb, at);

	assert_int_equal(only_rdata_str(out, sizeof(out)), len);
	assert_string_equal(out, want);
	assert_int_equal(only_rdata_str(out, len + 1), len);
	/* Too short: -ENOSPC, and what was written is a terminated prefix. */
	for (n = 1; n <= len; n++) {
		memset(out, 'x', sizeof(out));
		assert_int_equal(only_rdata_str(out, n), -ENOSPC);
		assert_int_equal(strlen(out), n - 1);
		assert_memory_equal(out, want, n - 1);
		assert_int_equal(out[n], 'x');
	}
	assert_int_equal(only_rdata_str(out, 0), -ENOSPC);

	/* A malformed rdata is -EBADMSG whatever the buffer. */
	expect_rdata_bad(DNS_T_A, "\1\2\3", 3);
	assert_int_equal(only_rdata_str(out, 1), -EBADMSG);
}

static void
test_rdata_bad(void **state)
{
	/* Two root names and five u32: 22 bytes; then one byte too many. */
	static const uint8_t soa[23] = {
		0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5,
		9,
	};
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	uint8_t			addr[16];
	uint32_t		minimum;

	expect_rdata_bad(DNS_T_A, "\1\2\3", 3);
	expect_rdata_bad(DNS_T_A, "\1\2\3\4\5", 5);
	expect_rdata_bad(DNS_T_A, NULL, 0);
	expect_rdata_bad(DNS_T_AAAA, "0123456789abcde", 15);
	expect_rdata_bad(DNS_T_AAAA, "0123456789abcdefg", 17);
	/* Names that stop short of the rdata's end, or run past it. */
	expect_rdata_bad(DNS_T_NS, "\3ns1\0\0", 6);
	expect_rdata_bad(DNS_T_CNAME, "\3ns1", 4);
	expect_rdata_bad(DNS_T_PTR, NULL, 0);
	expect_rdata_bad(DNS_T_MX, "\0\12\4mail\0\0", 9);
	expect_rdata_bad(DNS_T_MX, "\0\12\4mail", 7);
	expect_rdata_bad(DNS_T_MX, "\0", 1);
	expect_rdata_bad(DNS_T_MX, "\0\12", 2);
	/* SOA: one byte short of MINIMUM, one byte over. */
	expect_rdata_bad(DNS_T_SOA, soa, 21);
	expect_rdata_bad(DNS_T_SOA, soa, 23);
	expect_rdata_bad(DNS_T_SOA, "\0", 1);
	/* TXT: empty rdata, a string running past the end. */
	expect_rdata_bad(DNS_T_TXT, NULL, 0);
	expect_rdata_bad(DNS_T_TXT, "\5abcd", 5);
	expect_rdata_bad(DNS_T_TXT, "\1a\1", 3);
	/* SRV: fixed fields cut, target missing or cut. */
	expect_rdata_bad(DNS_T_SRV, "\0\1\0\2\0", 5);
	expect_rdata_bad(DNS_T_SRV, "\0\1\0\2\0\3", 6);
	expect_rdata_bad(DNS_T_SRV, "\0\1\0\2\0\3\3sip", 10);
	/* CAA: no tag, tag too long or not alphanumeric, cut. */
	expect_rdata_bad(DNS_T_CAA, "\0\0value", 7);
	expect_rdata_bad(DNS_T_CAA, "\0\20abcdefghijklmnop", 18);
	expect_rdata_bad(DNS_T_CAA, "\0\5iss-e", 7);
	expect_rdata_bad(DNS_T_CAA, "\0\5iss", 5);
	expect_rdata_bad(DNS_T_CAA, "\0", 1);

	build_one(DNS_T_SOA, soa, 22);
	assert_int_equal(only_rdata_str(out, sizeof(out)), 13);
	assert_string_equal(out, ". . 1 2 3 4 5");

	/* A CAA with an empty value is fine. */
	build_one(DNS_T_CAA, "\0\5issue", 7);
	assert_int_equal(only_rdata_str(out, sizeof(out)), 10);
	assert_string_equal(out, "0 issue \"\"");

	/* SRV with a compressed target: against RFC 2782, accepted anyway. */
	build_one(DNS_T_SRV, "\0\1\0\2\0\3\3sip\xc0\x10", 12);
	assert_int_equal(only_rdata_str(out, sizeof(out)), 22);
	assert_string_equal(out, "1 2 3 sip.example.com.");

	/* The typed getters agree. */
	build_one(DNS_T_A, "\1\2\3", 3);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_addr(&msg, &rr, addr), -EBADMSG);
	build_one(DNS_T_AAAA, "0123456789abcdefg", 17);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_addr(&msg, &rr, addr), -EBADMSG);
	build_one(DNS_T_CNAME, "\3ns1\0\0", 6);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), -EBADMSG);
	build_one(DNS_T_MX, "\0\12\4mail\0", 8);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), -EINVAL);
	assert_int_equal(dnsmsg_rdata_addr(&msg, &rr, addr), -EINVAL);
	assert_int_equal(dnsmsg_rdata_soa_minimum(&msg, &rr, &minimum), -EINVAL);

	/* An rr that does not belong to msg is caught, not followed. */
	rr.rdata_off = msg.len - 2;
	rr.rdlen = 3;
	assert_int_equal(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)), -EBADMSG);
	rr.rdata_off = msg.len + 100;
	rr.rdlen = 0;
	assert_int_equal(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)), -EBADMSG);
}

static void
test_rdata_getters(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	uint8_t			addr[16];

	build_one(DNS_T_A, "\xc0\x00\x02\x07", 4);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_addr(&msg, &rr, addr), 4);
	assert_memory_equal(addr, "\xc0\x00\x02\x07", 4);

	build_one(DNS_T_AAAA, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_addr(&msg, &rr, addr), 16);
	assert_memory_equal(addr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);

	/* Compressed into the question: "web" + pointer to "example.com". */
	build_one(DNS_T_CNAME, "\3web\xc0\x10", 6);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), 15);
	assert_string_equal(out, "web.example.com");
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, 15), -ENOSPC);

	build_one(DNS_T_PTR, "\0", 1);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), 1);
	assert_string_equal(out, ".");

	build_one(DNS_T_NS, "\xc0\x0c", 2);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), 15);
	assert_string_equal(out, "www.example.com");
}

static void
test_soa_minimum(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	uint32_t		minimum = 0;
	size_t			at;

	/* NXDOMAIN with the zone's SOA in the authority section (RFC 2308). */
	mb_hdr(&mb, 9, 0x8183, 1, 0, 1, 0);
	mb_question(&mb, "nope.example.com", DNS_T_A);
	mb_ptr(&mb, 17);
	at = mb_rr_fixed(&mb, DNS_T_SOA, CLASS_IN, 900);
	mb_labels(&mb, "ns1");
	mb_ptr(&mb, 17);
	mb_labels(&mb, "hostmaster");
	mb_ptr(&mb, 17);
	mb_u32(&mb, 2024010101);
	mb_u32(&mb, 7200);
	mb_u32(&mb, 3600);
	mb_u32(&mb, 1209600);
	mb_u32(&mb, 300);
	mb_rr_end(&mb, at);
	parse_ok(&mb, &msg);
	assert_int_equal(msg.rcode, DNS_R_NXDOMAIN);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.section, DNS_S_AUTHORITY);
	assert_string_equal(rr.name, "example.com");
	assert_int_equal(rr.ttl, 900);
	assert_int_equal(dnsmsg_rdata_soa_minimum(&msg, &rr, &minimum), 0);
	assert_int_equal(minimum, 300);

	/* MINIMUM with the top bit set comes back as sent. */
	mb.buf[mb.len - 4] = 0xff;
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_soa_minimum(&msg, &rr, &minimum), 0);
	assert_int_equal(minimum, 0xff00012c);

	/* One byte short: -EBADMSG, and *ret_minimum untouched. */
	mb.len--;
	mb_rr_end(&mb, at);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	minimum = 77;
	assert_int_equal(dnsmsg_rdata_soa_minimum(&msg, &rr, &minimum), -EBADMSG);
	assert_int_equal(minimum, 77);
}

/* Answer, authority, additional, in order, each with its section. */
static void
test_sections(void **state)
{
	static const struct {
		const char	*name;
		uint16_t	 type;
		int		 section;
	} want[] = {
		{ "www.example.com",	DNS_T_CNAME,	DNS_S_ANSWER },
		{ "web.example.com",	DNS_T_A,	DNS_S_ANSWER },
		{ "example.com",	DNS_T_NS,	DNS_S_AUTHORITY },
		{ "example.com",	DNS_T_NS,	DNS_S_AUTHORITY },
		{ "ns1.example.com",	DNS_T_A,	DNS_S_ADDITIONAL },
		{ ".",			DNS_T_OPT,	DNS_S_ADDITIONAL },
	};
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;
	unsigned		i;

	mb_hdr(&mb, 3, QR_RD_RA, 1, 2, 2, 2);
	mb_question(&mb, "www.example.com", DNS_T_A);
	mb_rr_raw(&mb, "www.example.com", DNS_T_CNAME, 1, "\3web\xc0\x10", 6);
	mb_rr_raw(&mb, "web.example.com", DNS_T_A, 2, "\1\2\3\4", 4);
	mb_rr_raw(&mb, "example.com", DNS_T_NS, 3, "\3ns1\xc0\x10", 6);
	mb_rr_raw(&mb, "example.com", DNS_T_NS, 4, "\3ns2\xc0\x10", 6);
	mb_rr_raw(&mb, "ns1.example.com", DNS_T_A, 5, "\5\6\7\10", 4);
	mb_rr_raw(&mb, ".", DNS_T_OPT, 0, NULL, 0);
	parse_ok(&mb, &msg);

	memset(&it, 0, sizeof(it));
	for (i = 0; i < 6; i++) {
		assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 1);
		assert_string_equal(rr.name, want[i].name);
		assert_int_equal(rr.type, want[i].type);
		assert_int_equal(rr.section, want[i].section);
		assert_int_equal(it.index, i + 1);
	}
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 0);

	/* Only additional records. */
	mb_hdr(&mb, 3, QR_RD_RA, 0, 0, 0, 1);
	mb_rr_raw(&mb, ".", DNS_T_OPT, 0, NULL, 0);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.section, DNS_S_ADDITIONAL);
	mb_hdr(&mb, 3, QR_RD_RA, 0, 0, 1, 0);
	mb_rr_raw(&mb, ".", DNS_T_OPT, 0, NULL, 0);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(rr.section, DNS_S_AUTHORITY);
}

/* A struct dnsmsg that dnsmsg_parse never saw: the iterator still checks. */
static void
test_next_rr_unparsed(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;

	mb_hdr(&mb, 3, QR_RD_RA, 0, 1, 0, 0);
	mb_rr_raw(&mb, "a", DNS_T_A, 0, "\1\2\3\4", 4);
	parse_ok(&mb, &msg);
	msg.ancount = 2;
	memset(&it, 0, sizeof(it));
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 1);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), -EBADMSG);
	msg.rr_off = msg.len + 10;
	memset(&it, 0, sizeof(it));
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), -EBADMSG);
	msg.len = 20;
	msg.rr_off = 12;
	memset(&it, 0, sizeof(it));
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), -EBADMSG);
}

static void
test_compression(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	size_t			owner, at;

	/* Owner -> question; another owner -> that pointer (pointer to pointer). */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 3, 0, 0);
	mb_question(&mb, "www.example.com", DNS_T_A);
	owner = mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 60);
	mb_labels(&mb, "edge");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, owner);
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&mb, "\1\1\1\1", 4);
	mb_rr_end(&mb, at);
	mb_labels(&mb, "x");
	mb_ptr(&mb, owner + 12);		/* "edge" + ptr, inside the CNAME */
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&mb, "\2\2\2\2", 4);
	mb_rr_end(&mb, at);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_string_equal(rr.name, "www.example.com");
	assert_int_equal(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)), 17);
	assert_string_equal(out, "edge.example.com.");
	rr_at(&msg, 1, &rr);
	assert_string_equal(rr.name, "www.example.com");
	rr_at(&msg, 2, &rr);
	assert_string_equal(rr.name, "x.edge.example.com");

	/* The question itself pointing forward, or at itself. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_ptr(&mb, 18);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb_name(&mb, "example.com");
	parse_bad(&mb);
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_ptr(&mb, 12);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_bad(&mb);

	/* A label, then a pointer back to that label: a loop. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_labels(&mb, "a");
	mb_ptr(&mb, 12);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_bad(&mb);

	/*
	 * A pointer back into the name being read, to a byte that is not a
	 * label start: no loop ("x\000y" then the root), but no encoder
	 * writes this, and the rule that forbids loops forbids it too.
	 */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_bytes(&mb, "\3x\0y", 4);
	mb_ptr(&mb, 14);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_bad(&mb);
	assert_int_equal(dnsmsg_name(mb.buf, mb.len, 12, out, sizeof(out), NULL),
	    -EBADMSG);

	/* A forward pointer from an answer's owner, to bytes after the RR. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "example.com", DNS_T_A);
	mb_ptr(&mb, mb.len + 12);
	mb_rr_fixed(&mb, 65280, CLASS_IN, 0);
	mb_name(&mb, "b");
	parse_bad(&mb);

	/* An rdata name pointing forward, into the next RR. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 2, 0, 0);
	mb_question(&mb, "example.com", DNS_T_A);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 60);
	mb_ptr(&mb, mb.len + 2);
	mb_rr_end(&mb, at);
	mb_rr_raw(&mb, "b", DNS_T_A, 0, "\1\2\3\4", 4);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)), -EBADMSG);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), -EBADMSG);

	/* A pointer into the header: odd, but backwards and decodable. */
	mb_hdr(&mb, 0, 0, 1, 0, 0, 0);
	mb_ptr(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb.buf[0] = 0;			/* id 0: the root */
	parse_ok(&mb, &msg);
	assert_string_equal(msg.qname, ".");
	mb.buf[0] = 0x40;		/* id 0x40..: an extended label type */
	parse_bad(&mb);

	/* The other half of a pointer is cut off. */
	mb_hdr(&mb, 0, 0, 1, 0, 0, 0);
	mb_u8(&mb, 0xc0);
	parse_bad(&mb);
}

/*
 * A chain of pointers, each to the one before, ending at "example.com":
 * DNSMSG_MAX_POINTERS are followed, one more is not.
 */
static void
test_pointer_chain(void **state)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	char			out[DNSMSG_NAME_STRLEN];
	size_t			chain[DNSMSG_MAX_POINTERS + 1], at, next;
	unsigned		i;

	mb_hdr(&mb, 5, QR_RD_RA, 1, 2, 0, 0);
	mb_question(&mb, "example.com", DNS_T_A);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, 65280, CLASS_IN, 60);
	chain[0] = mb_ptr(&mb, 12);
	for (i = 1; i <= DNSMSG_MAX_POINTERS; i++)
		chain[i] = mb_ptr(&mb, chain[i - 1]);
	mb_rr_end(&mb, at);

	/* Directly: starting at chain[i] follows i + 1 pointers. */
	assert_int_equal(dnsmsg_name(mb.buf, mb.len, chain[DNSMSG_MAX_POINTERS - 1],
	    out, sizeof(out), &next), 11);
	assert_string_equal(out, "example.com");
	assert_int_equal(next, chain[DNSMSG_MAX_POINTERS - 1] + 2);
	assert_int_equal(dnsmsg_name(mb.buf, mb.len, chain[DNSMSG_MAX_POINTERS],
	    out, sizeof(out), &next), -EBADMSG);

	/* Through an owner name: one pointer more than where it points. */
	mb_ptr(&mb, chain[DNSMSG_MAX_POINTERS - 2]);
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&mb, "\1\2\3\4", 4);
	mb_rr_end(&mb, at);
	parse_ok(&mb, &msg);
	rr_at(&msg, 1, &rr);
	assert_string_equal(rr.name, "example.com");
	mb.buf[at - 9] = (uint8_t)chain[DNSMSG_MAX_POINTERS - 1];
	assert_int_equal(mb.buf[at - 10], 0xc0 | chain[DNSMSG_MAX_POINTERS - 1] >> 8);
	parse_bad(&mb);
}

/* A question of 252 wire bytes, then an RR owned by "b..b" + a pointer to it. */
static void
build_long_suffix(const char *label, uint8_t prefix)
{
	unsigned i;

	mb_hdr(&mb, 1, QR_RD_RA, 1, 1, 0, 0);
	for (i = 0; i < 3; i++) {
		mb_u8(&mb, 63);
		mb_bytes(&mb, label, 63);
	}
	mb_u8(&mb, 58);
	mb_bytes(&mb, label, 58);
	mb_u8(&mb, 0);				/* 3 x 64 + 59 + 1 = 252 */
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	mb_u8(&mb, prefix);
	mb_bytes(&mb, "bbb", prefix);
	mb_ptr(&mb, 12);			/* 1 + prefix + 252 */
	mb_rr_fixed(&mb, 65280, CLASS_IN, 0);
}

/* The names at the limits: 255 wire bytes, labels of 63. */
static void
test_name_limits(void **state)
{
	struct dnsmsg	msg;
	char		label[64], want[DNSMSG_NAME_STRLEN];
	size_t		i;

	memset(label, 'a', 63);
	label[63] = '\0';

	/* 3 x 64 + 62 + 1 = 255 bytes: accepted. */
	mb_hdr(&mb, 1, QR_RD_RA, 1, 0, 0, 0);
	for (i = 0; i < 3; i++) {
		mb_u8(&mb, 63);
		mb_bytes(&mb, label, 63);
	}
	mb_u8(&mb, 61);
	mb_bytes(&mb, label, 61);
	mb_u8(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_ok(&mb, &msg);
	snprintf(want, sizeof(want), "%s.%s.%s.%.61s", label, label, label, label);
	assert_string_equal(msg.qname, want);
	assert_int_equal(strlen(msg.qname), 253);

	/* 256: rejected. */
	mb_hdr(&mb, 1, QR_RD_RA, 1, 0, 0, 0);
	for (i = 0; i < 3; i++) {
		mb_u8(&mb, 63);
		mb_bytes(&mb, label, 63);
	}
	mb_u8(&mb, 62);
	mb_bytes(&mb, label, 62);
	mb_u8(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_bad(&mb);

	/* Through compression: "bb" or "bbb" before a 252-byte suffix. */
	build_long_suffix(label, 2);
	parse_ok(&mb, &msg);
	build_long_suffix(label, 3);
	parse_bad(&mb);

	/* Label of 63 fine; length bytes 64 (0x40) and 128 (0x80) are types. */
	mb_hdr(&mb, 1, QR_RD_RA, 1, 0, 0, 0);
	mb_u8(&mb, 63);
	mb_bytes(&mb, label, 63);
	mb_u8(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_ok(&mb, &msg);
	assert_string_equal(msg.qname, label);
	mb_hdr(&mb, 1, QR_RD_RA, 1, 0, 0, 0);
	mb_u8(&mb, 64);
	mb_bytes(&mb, label, 63);
	mb_u8(&mb, 'a');
	mb_u8(&mb, 0);
	mb_u16(&mb, DNS_T_A);
	mb_u16(&mb, CLASS_IN);
	parse_bad(&mb);
	mb.buf[12] = 0x80;
	parse_bad(&mb);
	mb.buf[12] = 0x41;	/* RFC 6891's bit-string label type */
	parse_bad(&mb);
}

/* The wire form: expanded, case kept, the same limits as the string form. */
static void
test_name_wire(void **state)
{
	static const uint8_t want[] = "\004Edge\007EXAMPLE\003com";
	uint8_t		wire[DNSMSG_NAME_MAX];
	char		label[64];
	size_t		next = 0, at;

	mb_hdr(&mb, 5, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "www.EXAMPLE.com", DNS_T_A);
	at = mb_labels(&mb, "Edge");
	mb_ptr(&mb, 16);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, at, wire, &next),
	    sizeof(want));
	assert_memory_equal(wire, want, sizeof(want));	/* the root label too */
	assert_int_equal(next, mb.len);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, at, NULL, NULL),
	    sizeof(want));
	/* The root: one byte. */
	mb_u8(&mb, 0);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, mb.len - 1, wire,
	    &next), 1);
	assert_int_equal(wire[0], 0);
	assert_int_equal(next, mb.len);

	/* A loop, and a pointer past the end: nothing written to next. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_labels(&mb, "a");
	mb_ptr(&mb, 12);
	next = 7;
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, 12, wire, &next),
	    -EBADMSG);
	assert_int_equal(next, 7);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len - 1, 12, wire, NULL),
	    -EBADMSG);

	/* 255 bytes through a pointer fit the buffer exactly; 256 do not. */
	memset(label, 'a', 63);
	label[63] = '\0';
	build_long_suffix(label, 2);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, 12 + 252 + 4, wire,
	    NULL), 255);
	assert_int_equal(wire[254], 0);
	assert_memory_equal(wire, "\002bb\077aaa", 6);
	build_long_suffix(label, 3);
	assert_int_equal(dnsmsg_name_wire(mb.buf, mb.len, 12 + 252 + 4, wire,
	    NULL), -EBADMSG);
}

static void
test_name_escapes(void **state)
{
	static const uint8_t wire[] = {
		3, 'a', '.', 'b',
		3, 'c', '\\', 'D',
		6, 0, 0xff, ' ', '*', '"', 'z',
		3, '_', '-', '9',
		0,
	};
	/* As glibc's ns_name_ntop: specials get a backslash, '*' passes. */
	const char	*want = "a\\.b.c\\\\D.\\000\\255\\032*\\\"z._-9";
	char		 out[DNSMSG_NAME_STRLEN];
	size_t		 next = 0, n;

	assert_int_equal(dnsmsg_name(wire, sizeof(wire), 0, out, sizeof(out),
	    &next), strlen(want));
	assert_string_equal(out, want);
	assert_int_equal(next, sizeof(wire));

	/* Counting only, and too small a buffer. */
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), 0, NULL, 0, NULL),
	    strlen(want));
	n = strlen(want);
	next = 99;
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), 0, out, n, &next),
	    -ENOSPC);
	assert_int_equal(next, 99);
	assert_int_equal(strlen(out), n - 1);
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), 0, out, 0, NULL),
	    -ENOSPC);

	/* The root, and off at or past the end. */
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), sizeof(wire) - 1, out,
	    sizeof(out), &next), 1);
	assert_string_equal(out, ".");
	assert_int_equal(next, sizeof(wire));
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), sizeof(wire), out,
	    sizeof(out), NULL), -EBADMSG);
	assert_int_equal(dnsmsg_name(wire, sizeof(wire), SIZE_MAX, out,
	    sizeof(out), NULL), -EBADMSG);
	/* A label running past the end. */
	assert_int_equal(dnsmsg_name(wire, 3, 0, out, sizeof(out), NULL),
	    -EBADMSG);
	assert_int_equal(dnsmsg_name(wire, 4, 0, out, sizeof(out), NULL),
	    -EBADMSG);

	/* The longest presentation form fits DNSMSG_NAME_STRLEN. */
	{
		uint8_t	big[DNSMSG_NAME_MAX];
		size_t	i, o = 0;

		for (i = 0; i < 4; i++) {
			size_t l = i < 3 ? 63 : 61;

			big[o++] = (uint8_t)l;
			memset(big + o, 0xff, l);
			o += l;
		}
		big[o++] = 0;
		assert_int_equal(o, DNSMSG_NAME_MAX);
		assert_int_equal(dnsmsg_name(big, o, 0, out, sizeof(out), &next),
		    250 * 4 + 3);
		assert_true(250 * 4 + 3 < DNSMSG_NAME_STRLEN);
	}
}

/* A client's name in the form names read from messages take. */
static void
test_name_normalize(void **state)
{
	char out[DNSMSG_NAME_STRLEN];

	assert_int_equal(dnsmsg_name_normalize("www.Example.com.", out, sizeof(out)), 15);
	assert_string_equal(out, "www.Example.com");
	dnsmsg_name_normalize("semi;colon.example", out, sizeof(out));
	assert_string_equal(out, "semi\\;colon.example");
	dnsmsg_name_normalize("caf\xc3\xa9.example", out, sizeof(out));
	assert_string_equal(out, "caf\\195\\169.example");
	dnsmsg_name_normalize("a\\.b.c", out, sizeof(out));	/* an escaped dot */
	assert_string_equal(out, "a\\.b.c");
	dnsmsg_name_normalize("star*.x", out, sizeof(out));
	assert_string_equal(out, "star*.x");
	dnsmsg_name_normalize(".", out, sizeof(out));
	assert_string_equal(out, ".");
	assert_int_equal(dnsmsg_name_normalize("abc", out, 3), -ENOSPC);
}

/* Every byte, alone in a label: as itself, after a backslash, or \DDD. */
static void
test_name_every_byte(void **state)
{
	static const char	specials[] = "\".;\\()@$";
	uint8_t			wire[3] = { 1, 0, 0 };
	char			out[DNSMSG_NAME_STRLEN], want[8];
	unsigned		c;

	for (c = 0; c < 256; c++) {
		wire[1] = (uint8_t)c;
		if (c != 0 && strchr(specials, (int)c) != NULL)
			snprintf(want, sizeof(want), "\\%c", (char)c);
		else if (c > 0x20 && c < 0x7f)
			snprintf(want, sizeof(want), "%c", (char)c);
		else
			snprintf(want, sizeof(want), "\\%03u", c);
		assert_int_equal(dnsmsg_name(wire, sizeof(wire), 0, out,
		    sizeof(out), NULL), strlen(want));
		assert_string_equal(out, want);
	}
}

/* A client's name in wire form, read as c-ares 1.18 reads it. */
static void
test_name_from_text(void **state)
{
	static const char *const same[] = {
		"www.Example.com.", "www.Example.com", "a\\.b.c", "semi;colon.x",
		"caf\xc3\xa9.example", "star*.x", "a\\\\", "a\\", "\\065bc", ".", "",
	};
	uint8_t		wire[DNSMSG_NAME_MAX];
	char		text[DNSMSG_NAME_STRLEN], norm[DNSMSG_NAME_STRLEN];
	char		name[300];
	size_t		i;
	int		n;

	assert_int_equal(dnsmsg_name_from_text("www.Example.com.", wire), 17);
	assert_memory_equal(wire, "\3www\7Example\3com", 17);
	assert_int_equal(dnsmsg_name_from_text("www.Example.com", wire), 17);
	assert_memory_equal(wire, "\3www\7Example\3com", 17);
	assert_int_equal(dnsmsg_name_from_text("", wire), 1);
	assert_int_equal(wire[0], 0);
	assert_int_equal(dnsmsg_name_from_text(".", wire), 1);
	assert_int_equal(wire[0], 0);
	/* A backslash takes the next byte as it is, digits too; a last one is itself. */
	assert_int_equal(dnsmsg_name_from_text("a\\.b.c", wire), 7);
	assert_memory_equal(wire, "\3a.b\1c", 7);
	assert_int_equal(dnsmsg_name_from_text("\\065", wire), 5);
	assert_memory_equal(wire, "\003065", 5);
	assert_int_equal(dnsmsg_name_from_text("a\\", wire), 4);
	assert_memory_equal(wire, "\2a\\", 4);
	/* Names no message holds. */
	assert_int_equal(dnsmsg_name_from_text("a..b", wire), -EINVAL);
	assert_int_equal(dnsmsg_name_from_text(".a", wire), -EINVAL);
	assert_int_equal(dnsmsg_name_from_text("a..", wire), -EINVAL);
	assert_int_equal(dnsmsg_name_from_text("..", wire), -EINVAL);
	memset(name, 'a', 63);
	name[63] = '\0';
	assert_int_equal(dnsmsg_name_from_text(name, wire), 65);
	strcpy(name + 63, "a");
	assert_int_equal(dnsmsg_name_from_text(name, wire), -EINVAL);
	/* 255 bytes with the root: 3 labels of 63 and one of 61 and their lengths. */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	assert_int_equal(dnsmsg_name_from_text(name, wire), 255);
	assert_int_equal(wire[254], 0);
	name[253] = 'a';
	name[254] = '\0';
	assert_int_equal(dnsmsg_name_from_text(name, wire), -EINVAL);
	/* Read back as text: dnsmsg_name_normalize's. */
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		n = dnsmsg_name_from_text(same[i], wire);
		assert_true(n > 0);
		assert_int_equal(dnsmsg_name(wire, (size_t)n, 0, text, sizeof(text),
		    NULL), dnsmsg_name_normalize(same[i], norm, sizeof(norm)));
		assert_string_equal(text, norm);
	}
}

/* A name in a message against one in wire form, as their texts compare. */
static void
test_name_eq(void **state)
{
	uint8_t	wire[DNSMSG_NAME_MAX];
	size_t	q, edge, loop;

	mb_hdr(&mb, 5, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "www.EXAMPLE.com", DNS_T_A);
	q = 12;
	edge = mb_labels(&mb, "Edge");
	mb_ptr(&mb, 16);			/* "Edge.EXAMPLE.com" */

	dnsmsg_name_from_text("www.example.COM", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 1);
	dnsmsg_name_from_text("www.example.com.", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 1);
	dnsmsg_name_from_text("edge.example.com", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, edge, wire), 1);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 0);
	/* Shorter, longer, another last label. */
	dnsmsg_name_from_text("example.com", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 0);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q + 4, wire), 1);
	dnsmsg_name_from_text("www.example.com.x", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 0);
	dnsmsg_name_from_text("www.example.cop", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, q, wire), 0);
	/* Only ASCII letters fold: '[' is not '{'. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 0, 0, 0);
	mb_question(&mb, "a[", DNS_T_A);
	dnsmsg_name_from_text("A[", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, 12, wire), 1);
	dnsmsg_name_from_text("a{", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, 12, wire), 0);
	/* Bad names: a pointer to itself, a pointer forward, past the end. */
	mb_hdr(&mb, 5, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "www.example.com", DNS_T_A);
	loop = mb_ptr(&mb, mb.len);
	dnsmsg_name_from_text("www.example.com", wire);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, loop, wire), -EBADMSG);
	mb.buf[12] = 0xc0;
	mb.buf[13] = 20;
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, 12, wire), -EBADMSG);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, mb.len, wire), -EBADMSG);
	assert_int_equal(dnsmsg_name_eq(mb.buf, mb.len, SIZE_MAX, wire), -EBADMSG);
}

/* Owners left in the message, targets in wire form, the question not decoded. */
static void
test_wire_readers(void **state)
{
	static const uint8_t	want[] = "\3web\7example\3com";
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr, named;
	struct dnsmsg_iter	it = { .no_names = true };
	uint8_t			wire[DNSMSG_NAME_MAX];
	char			out[DNSMSG_NAME_STRLEN];

	build_one(DNS_T_CNAME, "\3web\xc0\x10", 6);
	assert_int_equal(dnsmsg_parse_wire(mb.buf, mb.len, &msg), 0);
	assert_string_equal(msg.qname, "");
	assert_int_equal(msg.qname_off, 12);
	assert_int_equal(msg.qtype, DNS_T_CNAME);
	assert_int_equal(dnsmsg_name(mb.buf, mb.len, msg.qname_off, out,
	    sizeof(out), NULL), 15);
	assert_string_equal(out, "www.example.com");
	parse_ok(&mb, &msg);
	assert_int_equal(msg.qname_off, 12);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 1);
	assert_string_equal(rr.name, "");
	rr_at(&msg, 0, &named);
	assert_int_equal(rr.owner_off, named.owner_off);
	assert_int_equal(rr.owner_off, 12 + 17 + 4);
	assert_int_equal(rr.type, named.type);
	assert_int_equal(rr.rdata_off, named.rdata_off);
	assert_int_equal(rr.rdlen, named.rdlen);
	assert_int_equal(rr.ttl, named.ttl);
	assert_int_equal(rr.section, named.section);
	assert_int_equal(dnsmsg_name(mb.buf, mb.len, rr.owner_off, out,
	    sizeof(out), NULL), 15);
	assert_string_equal(out, named.name);
	assert_int_equal(dnsmsg_next_rr(&msg, &it, &rr), 0);

	assert_int_equal(dnsmsg_rdata_name_wire(&msg, &named, wire), sizeof(want));
	assert_memory_equal(wire, want, sizeof(want));
	/* A byte after the name inside the rdata, and not a name type. */
	build_one(DNS_T_CNAME, "\3web\xc0\x10\0", 7);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name_wire(&msg, &rr, wire), -EBADMSG);
	assert_int_equal(dnsmsg_rdata_name(&msg, &rr, out, sizeof(out)), -EBADMSG);
	build_one(DNS_T_CNAME, "\3web", 4);	/* runs out at the rdata's end */
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name_wire(&msg, &rr, wire), -EBADMSG);
	build_one(DNS_T_A, "\1\2\3\4", 4);
	parse_ok(&mb, &msg);
	rr_at(&msg, 0, &rr);
	assert_int_equal(dnsmsg_rdata_name_wire(&msg, &rr, wire), -EINVAL);
	rr.type = DNS_T_PTR;
	rr.rdata_off = msg.len + 1;
	assert_int_equal(dnsmsg_rdata_name_wire(&msg, &rr, wire), -EBADMSG);
}

/* The query dnsmsg_query writes is c-ares' own, byte for byte, refusals too. */
static void
test_query_as_cares(void **state)
{
	static const char *const names[] = {
		"www.example.com", "WWW.Example.COM.", "m1.bench.example", "a",
		".", "", "a\\.b.c", "a\\\\b", "a\\", "\\", "\\065", "semi;colon",
		"caf\xc3\xa9.example", "a..b", ".a", "a..", "..", "x.onion",
		"x.ONION.", "onion", "x.onion.x", "x\\.onion", "1.2.3.4.in-addr.arpa",
	};
	uint8_t		 ours[DNSMSG_QUERY_MAX];
	unsigned char	*theirs;
	char		 name[400];
	size_t		 i, l;
	int		 n, len, st;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) + 5; i++) {
		if (i < sizeof(names) / sizeof(names[0]))
			snprintf(name, sizeof(name), "%s", names[i]);
		else {
			/* Labels of 62 to 64 bytes, names of about 255. */
			l = 60 + (i - sizeof(names) / sizeof(names[0]));
			memset(name, 'a', sizeof(name));
			name[l] = '.';
			name[2 * l + 1] = '.';
			name[3 * l + 2] = '.';
			name[253 + (i % 3)] = '\0';
		}
		n = dnsmsg_query(name, DNS_T_AAAA, 0xbeef, 1232, ours);
		st = ares_create_query(name, 1, DNS_T_AAAA, 0xbeef, 1, &theirs,
		    &len, 1232);
		if (st != ARES_SUCCESS) {
			assert_int_equal(n, -EINVAL);
			continue;
		}
		assert_int_equal(n, len);
		assert_memory_equal(ours, theirs, (size_t)len);
		ares_free_string(theirs);
	}
}

static void
test_name_cmp(void **state)
{
	assert_int_equal(dnsmsg_name_cmp("www.Example.COM", "WWW.example.com"), 0);
	assert_int_equal(dnsmsg_name_cmp("www.example.com.", "www.example.com"), 0);
	assert_int_equal(dnsmsg_name_cmp("www.example.com", "www.example.com."), 0);
	assert_int_equal(dnsmsg_name_cmp("www.example.com.", "www.example.com."), 0);
	assert_int_equal(dnsmsg_name_cmp(".", ""), 0);
	assert_int_equal(dnsmsg_name_cmp(".", "."), 0);
	assert_int_equal(dnsmsg_name_cmp("", ""), 0);
	/* One trailing dot only. */
	assert_true(dnsmsg_name_cmp("a..", "a") != 0);
	assert_true(dnsmsg_name_cmp("..", "") != 0);
	/* An escaped dot is part of the label, not a trailing dot. */
	assert_true(dnsmsg_name_cmp("a\\.", "a") != 0);
	assert_int_equal(dnsmsg_name_cmp("a\\.", "A\\."), 0);
	assert_int_equal(dnsmsg_name_cmp("a\\\\.", "a\\\\"), 0);
	assert_true(dnsmsg_name_cmp("a\\\\\\.", "a\\\\\\") != 0);
	/* Escapes compare literally. */
	assert_true(dnsmsg_name_cmp("\\065", "a") != 0);
	assert_int_equal(dnsmsg_name_cmp("X\\255y", "x\\255Y"), 0);
	/* An order, like strcasecmp. */
	assert_true(dnsmsg_name_cmp("a.example", "b.example") < 0);
	assert_true(dnsmsg_name_cmp("B.example", "a.example") > 0);
	assert_true(dnsmsg_name_cmp("example", "example.com") < 0);
	assert_true(dnsmsg_name_cmp("example.com.", "example") > 0);
}

static void
test_types(void **state)
{
	char buf[DNSMSG_TYPE_STRLEN];

	assert_string_equal(dnsmsg_type_str(DNS_T_A, buf, sizeof(buf)), "A");
	assert_string_equal(dnsmsg_type_str(DNS_T_NS, buf, sizeof(buf)), "NS");
	assert_string_equal(dnsmsg_type_str(DNS_T_CNAME, buf, sizeof(buf)), "CNAME");
	assert_string_equal(dnsmsg_type_str(DNS_T_SOA, buf, sizeof(buf)), "SOA");
	assert_string_equal(dnsmsg_type_str(DNS_T_PTR, buf, sizeof(buf)), "PTR");
	assert_string_equal(dnsmsg_type_str(DNS_T_MX, buf, sizeof(buf)), "MX");
	assert_string_equal(dnsmsg_type_str(DNS_T_TXT, buf, sizeof(buf)), "TXT");
	assert_string_equal(dnsmsg_type_str(DNS_T_AAAA, buf, sizeof(buf)), "AAAA");
	assert_string_equal(dnsmsg_type_str(DNS_T_SRV, buf, sizeof(buf)), "SRV");
	assert_string_equal(dnsmsg_type_str(DNS_T_OPT, buf, sizeof(buf)), "OPT");
	assert_string_equal(dnsmsg_type_str(DNS_T_CAA, buf, sizeof(buf)), "CAA");
	assert_string_equal(dnsmsg_type_str(0, buf, sizeof(buf)), "TYPE0");
	assert_string_equal(dnsmsg_type_str(65534, buf, sizeof(buf)), "TYPE65534");
	assert_string_equal(dnsmsg_type_str(65535, buf, sizeof(buf)), "TYPE65535");

	assert_int_equal(dnsmsg_type_from_str("A"), DNS_T_A);
	assert_int_equal(dnsmsg_type_from_str("aaaa"), DNS_T_AAAA);
	assert_int_equal(dnsmsg_type_from_str("Mx"), DNS_T_MX);
	assert_int_equal(dnsmsg_type_from_str("cname"), DNS_T_CNAME);
	assert_int_equal(dnsmsg_type_from_str("ns"), DNS_T_NS);
	assert_int_equal(dnsmsg_type_from_str("soa"), DNS_T_SOA);
	assert_int_equal(dnsmsg_type_from_str("ptr"), DNS_T_PTR);
	assert_int_equal(dnsmsg_type_from_str("txt"), DNS_T_TXT);
	assert_int_equal(dnsmsg_type_from_str("srv"), DNS_T_SRV);
	assert_int_equal(dnsmsg_type_from_str("opt"), DNS_T_OPT);
	assert_int_equal(dnsmsg_type_from_str("caa"), DNS_T_CAA);
	assert_int_equal(dnsmsg_type_from_str("TYPE65534"), 65534);
	assert_int_equal(dnsmsg_type_from_str("type1"), DNS_T_A);
	assert_int_equal(dnsmsg_type_from_str("Type0"), 0);
	assert_int_equal(dnsmsg_type_from_str("TYPE65535"), 65535);
	assert_int_equal(dnsmsg_type_from_str("TYPE65536"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE99999999999999999999"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE-1"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE+1"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE1x"), -1);
	assert_int_equal(dnsmsg_type_from_str("TYPE 1"), -1);
	assert_int_equal(dnsmsg_type_from_str(""), -1);
	assert_int_equal(dnsmsg_type_from_str("AA"), -1);
	assert_int_equal(dnsmsg_type_from_str("A "), -1);
	assert_int_equal(dnsmsg_type_from_str("ANY"), -1);
}

/* A realistic answer: CNAME chain, addresses, NS, glue, OPT. */
static void
build_realistic(void)
{
	size_t at, web, ns1, ns2;

	mb_hdr(&mb, 0x4242, QR_RD_RA, 1, 3, 2, 4);
	mb_question(&mb, "www.example.com", DNS_T_A);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_CNAME, CLASS_IN, 3600);
	web = mb_labels(&mb, "web");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, web);			/* web.example.com, in the CNAME */
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&mb, "\xc0\x00\x02\x01", 4);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, web);
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 60);
	mb_bytes(&mb, "\xc0\x00\x02\x02", 4);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, 16);
	at = mb_rr_fixed(&mb, DNS_T_NS, CLASS_IN, 86400);
	ns1 = mb_labels(&mb, "ns1");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, 16);
	at = mb_rr_fixed(&mb, DNS_T_NS, CLASS_IN, 86400);
	ns2 = mb_labels(&mb, "ns2");
	mb_ptr(&mb, 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, ns1);			/* ns1.example.com */
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 86400);
	mb_bytes(&mb, "\xc6\x33\x64\x01", 4);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, ns1);
	at = mb_rr_fixed(&mb, DNS_T_AAAA, CLASS_IN, 86400);
	mb_bytes(&mb, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x53", 16);
	mb_rr_end(&mb, at);
	mb_ptr(&mb, ns2);			/* ns2.example.com */
	at = mb_rr_fixed(&mb, DNS_T_TXT, CLASS_IN, 300);
	mb_bytes(&mb, "\x05hello\x05world", 12);
	mb_rr_end(&mb, at);
	mb_name(&mb, ".");
	at = mb_rr_fixed(&mb, DNS_T_OPT, CLASS_IN, 0);
	mb_bytes(&mb, "\x00\x0a\x00\x08\x01\x02\x03\x04\x05\x06\x07\x08", 12);
	mb_rr_end(&mb, at);
}

static void
test_realistic(void **state)
{
	static const char *const want[] = {
		"www.example.com CNAME web.example.com.",
		"web.example.com A 192.0.2.1",
		"web.example.com A 192.0.2.2",
		"example.com NS ns1.example.com.",
		"example.com NS ns2.example.com.",
		"ns1.example.com A 198.51.100.1",
		"ns1.example.com AAAA 2001:db8::53",
		"ns2.example.com TXT \"hello\" \"world\"",
		". OPT \\# 12 000a00080102030405060708",
	};
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;
	char			rd[DNSMSG_NAME_STRLEN], line[3 * DNSMSG_NAME_STRLEN];
	char			tb[DNSMSG_TYPE_STRLEN];
	unsigned		i;

	build_realistic();
	parse_ok(&mb, &msg);
	memset(&it, 0, sizeof(it));
	for (i = 0; dnsmsg_next_rr(&msg, &it, &rr) == 1; i++) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_true(dnsmsg_rdata_str(&msg, &rr, rd, sizeof(rd)) > 0);
		snprintf(line, sizeof(line), "%s %s %s", rr.name,
		    dnsmsg_type_str(rr.type, tb, sizeof(tb)), rd);
		assert_string_equal(line, want[i]);
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
}

/* Every strict prefix of a realistic message is malformed, and read safely. */
static void
test_truncation(void **state)
{
	struct dnsmsg		 msg;
	struct dnsmsg_rr	 rr;
	struct dnsmsg_iter	 it;
	char			 out[DNSMSG_NAME_STRLEN];
	uint8_t			*p;
	size_t			 n, off;

	build_realistic();
	for (n = 0; n < mb.len; n++) {
		assert_non_null(p = malloc(n ? n : 1));
		memcpy(p, mb.buf, n);
		if (dnsmsg_parse(p, n, &msg) != -EBADMSG)
			print_message("prefix of %zu bytes parsed\n", n);
		assert_int_equal(dnsmsg_parse(p, n, &msg), -EBADMSG);
		/* Names at every offset: any result, but inside the buffer. */
		for (off = 0; off <= n; off++)
			(void)dnsmsg_name(p, n, off, out, sizeof(out), NULL);
		free(p);
	}

	/* The whole message, at the very end of its own allocation. */
	assert_non_null(p = malloc(mb.len));
	memcpy(p, mb.buf, mb.len);
	assert_int_equal(dnsmsg_parse(p, mb.len, &msg), 0);
	memset(&it, 0, sizeof(it));
	while (dnsmsg_next_rr(&msg, &it, &rr) == 1)
		assert_true(dnsmsg_rdata_str(&msg, &rr, out, sizeof(out)) > 0);
	assert_int_equal(it.index, 9);
	free(p);
}

/* rdlength running past the end of the message. */
static void
test_rdlength(void **state)
{
	struct dnsmsg	msg;
	size_t		at;

	mb_hdr(&mb, 1, QR_RD_RA, 1, 1, 0, 0);
	mb_question(&mb, "example.com", DNS_T_A);
	mb_ptr(&mb, 12);
	at = mb_rr_fixed(&mb, DNS_T_A, CLASS_IN, 1);
	mb_bytes(&mb, "\1\2\3\4", 4);
	mb_rr_end(&mb, at);
	parse_ok(&mb, &msg);
	mb.buf[at + 1] = 5;
	parse_bad(&mb);
	mb.buf[at] = 0xff;
	mb.buf[at + 1] = 0xff;
	parse_bad(&mb);
	/* Shorter than the A needs: the message parses, the rdata does not. */
	expect_rdata_bad(DNS_T_A, "\1\2\3", 3);
	expect_rdata_bad(DNS_T_AAAA, "\1\2\3\4", 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_question),
		cmocka_unit_test(test_qdcount),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_rdata_types),
		cmocka_unit_test(test_rdata_short_buffer),
		cmocka_unit_test(test_rdata_bad),
		cmocka_unit_test(test_rdata_getters),
		cmocka_unit_test(test_soa_minimum),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_next_rr_unparsed),
		cmocka_unit_test(test_compression),
		cmocka_unit_test(test_pointer_chain),
		cmocka_unit_test(test_name_limits),
		cmocka_unit_test(test_name_wire),
		cmocka_unit_test(test_name_escapes),
		cmocka_unit_test(test_name_normalize),
		cmocka_unit_test(test_name_every_byte),
		cmocka_unit_test(test_name_from_text),
		cmocka_unit_test(test_name_eq),
		cmocka_unit_test(test_wire_readers),
		cmocka_unit_test(test_query_as_cares),
		cmocka_unit_test(test_name_cmp),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_realistic),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_rdlength),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
