/* SPDX-License-Identifier: MIT */
/* tests/unit/test-proto.c - unit tests of the wire protocol codec. */

/*
 * Every decoder is also fed every strict prefix of each valid body, copied
 * to the end of a heap buffer of exactly that size, so that a read past the
 * end is a failed assertion here and a report under ASan.
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

#include "nscd.h"
#include "proto.h"

#define BUFSZ	(PROTO_FRAME_MAX + 1024)

static uint8_t	frame[BUFSZ];
static uint8_t	filler[PROTO_FRAME_MAX + 1];	/* a source apart from frame */

/* A decoder reduced to "does this body decode": 0 or -errno. */
typedef int	(*decode_fn)(const uint8_t *, size_t);

static int
dec_lookup_name(const uint8_t *b, size_t n)
{
	struct proto_lookup_name req;

	return proto_lookup_name_decode(b, n, &req, NULL);
}

static int
dec_lookup_addr(const uint8_t *b, size_t n)
{
	struct proto_lookup_addr req;

	return proto_lookup_addr_decode(b, n, &req, NULL);
}

static int
dec_answer(const uint8_t *b, size_t n)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, len;
	uint8_t			 fam;
	int			 r;

	if ((r = proto_answer_decode(b, n, &a)) < 0)
		return r;
	/* The iterators must stay inside what the decoder accepted. */
	for (cur = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); )
		assert_true(addr + (fam == PROTO_AF_INET ? 4 : 16) <= b + n);
	for (cur = 0; proto_answer_next_alias(&a, &cur, &s, &len); )
		assert_true((const uint8_t *)s + len <= b + n);
	return 0;
}

static int
dec_kv(const uint8_t *b, size_t n)
{
	struct proto_kv_rd	kr;
	struct proto_kv		kv;
	int			r;

	if ((r = proto_kv_init(&kr, b, n)) < 0)
		return r;
	while ((r = proto_kv_next(&kr, &kv)) > 0)
		;
	return r;
}

static int
dec_error(const uint8_t *b, size_t n)
{
	const char	*msg;
	size_t		 len;

	return proto_error_decode(b, n, &msg, &len);
}

/*
 * The whole body decodes; each strict prefix of it (from min_len bytes
 * up) fails with -EBADMSG.
 */
static void
check_truncation(decode_fn fn, const uint8_t *body, size_t len, size_t min_len)
{
	uint8_t	*buf;
	size_t	 n;
	int	 r;

	for (n = min_len; n <= len; n++) {
		/* The prefix ends where the allocation ends. */
		assert_non_null(buf = malloc(n + 1));
		memcpy(buf + 1, body, n);
		r = fn(buf + 1, n);
		free(buf);
		if (r != (n == len ? 0 : -EBADMSG))
			print_message("prefix of %zu of %zu bytes: %d\n", n,
			    len, r);
		assert_int_equal(r, n == len ? 0 : -EBADMSG);
	}
}

/* Fills name[0..len) with labels of 63 characters and dots between. */
static void
make_name(char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		name[i] = i % 64 == 63 ? '.' : (char)('a' + i % 26);
	name[len] = '\0';
}

/* Decodes the header of frame[0..n) and checks it; returns the body length. */
static size_t
check_hdr(int n, uint8_t type, uint16_t status, uint32_t id)
{
	struct proto_hdr h;

	assert_true(n >= PROTO_HDR_LEN);
	assert_int_equal(proto_hdr_decode(frame, (size_t)n, &h), 0);
	assert_int_equal(h.len, n);
	assert_int_equal(h.version, PROTO_VERSION);
	assert_int_equal(h.type, type);
	assert_int_equal(h.status, status);
	assert_int_equal(h.id, id);
	return (size_t)n - PROTO_HDR_LEN;
}

static void
test_reader_str(void **state)
{
	static const uint8_t ok[] = { 0, 3, 'a', 'b', 'c', 0, 0 };
	static const uint8_t nul[] = { 0, 3, 'a', 0, 'c' };
	static const uint8_t big[] = { 0, 4, 'a', 'b', 'c' };
	static const uint8_t huge[] = { 0xff, 0xff, 'a' };
	struct rd	 rd;
	const char	*s;
	size_t		 n = 99;

	rd_init(&rd, ok, sizeof(ok));
	s = proto_get_str(&rd, &n);
	assert_non_null(s);
	assert_int_equal(n, 3);
	assert_memory_equal(s, "abc", 3);
	s = proto_get_str(&rd, &n);	/* an empty string is fine */
	assert_non_null(s);
	assert_int_equal(n, 0);
	assert_int_equal(rd.err, 0);

	n = 99;
	rd_init(&rd, nul, sizeof(nul));
	assert_null(proto_get_str(&rd, &n));
	assert_int_equal(n, 0);
	assert_int_equal(rd.err, -EBADMSG);

	/* A length field larger than what is left. */
	n = 99;
	rd_init(&rd, big, sizeof(big));
	assert_null(proto_get_str(&rd, &n));
	assert_int_equal(n, 0);
	assert_int_equal(rd.err, -EBADMSG);

	rd_init(&rd, huge, sizeof(huge));
	assert_null(proto_get_str(&rd, &n));
	assert_int_equal(rd.err, -EBADMSG);

	rd_init(&rd, huge, 1);
	assert_null(proto_get_str(&rd, &n));
	assert_int_equal(rd.err, -EBADMSG);
}

static void
test_writer(void **state)
{
	static const uint8_t want[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
	    0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0, 2, 'h',
	    'i', 'x', 'y' };
	uint8_t		 buf[64];
	struct proto_wr	 w;

	memset(buf, 0xaa, sizeof(buf));
	proto_wr_init(&w, buf, sizeof(buf));
	proto_put_u8(&w, 0x01);
	proto_put_u16(&w, 0x0203);
	proto_put_u32(&w, 0x04050607);
	proto_put_u64(&w, 0x08090a0b0c0d0e0fULL);
	proto_put_str(&w, "hi", 2);
	proto_put_bytes(&w, "xy", 2);
	proto_put_bytes(&w, NULL, 0);
	assert_int_equal(w.err, 0);
	assert_int_equal(w.off, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(buf[sizeof(want)], 0xaa);
}

static void
test_writer_overflow(void **state)
{
	uint8_t		 buf[8], big[1];
	struct proto_wr	 w;

	memset(buf, 0xaa, sizeof(buf));
	proto_wr_init(&w, buf, 3);
	proto_put_u32(&w, 0x01020304);
	assert_int_equal(w.err, -EMSGSIZE);
	assert_int_equal(w.off, 0);
	assert_int_equal(buf[0], 0xaa);
	/* Sticky: what would fit is not written either. */
	proto_put_u8(&w, 1);
	assert_int_equal(w.err, -EMSGSIZE);
	assert_int_equal(w.off, 0);
	assert_int_equal(buf[0], 0xaa);

	proto_wr_init(&w, buf, 8);
	proto_put_u64(&w, 1);
	assert_int_equal(w.err, 0);
	proto_put_u8(&w, 1);
	assert_int_equal(w.err, -EMSGSIZE);

	proto_wr_init(&w, buf, 8);
	proto_put_str(&w, "1234567", 7);	/* 2 + 7 bytes */
	assert_int_equal(w.err, -EMSGSIZE);

	/* A string too long for its u16 length. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_put_str(&w, (const char *)filler, (size_t)UINT16_MAX + 1);
	assert_int_equal(w.err, -EMSGSIZE);
	proto_wr_init(&w, big, sizeof(big));
	proto_put_u16(&w, 1);
	assert_int_equal(w.err, -EMSGSIZE);

	/* Every encoder reports the overflow. */
	for (size_t cap = 0; cap < 12 + 2 + 2 + 11; cap++) {
		proto_wr_init(&w, frame, cap);
		assert_int_equal(proto_lookup_name_encode(&w, 1, PROTO_AF_INET,
		    "example.org"), -EMSGSIZE);
	}
	for (size_t cap = 0; cap < 12 + 2 + 16; cap++) {
		proto_wr_init(&w, frame, cap);
		assert_int_equal(proto_lookup_addr_encode(&w, 1, PROTO_AF_INET6,
		    frame), -EMSGSIZE);
	}
	for (size_t cap = 0; cap < 12; cap++) {
		proto_wr_init(&w, frame, cap);
		assert_int_equal(proto_simple_encode(&w, PROTO_STATUS, 1),
		    -EMSGSIZE);
	}
	proto_wr_init(&w, frame, 12 + 2 + 2 + 11);
	assert_int_equal(proto_lookup_name_encode(&w, 1, PROTO_AF_INET,
	    "example.org"), 12 + 2 + 2 + 11);
}

static void
test_hdr_decode(void **state)
{
	uint8_t		 b[PROTO_HDR_LEN + 4];
	struct proto_hdr h;
	size_t		 n;

	memset(b, 0, sizeof(b));
	/* len 20, version 1, type 0x82, status 0x0304, id 0xdeadbeef */
	b[3] = 20;
	b[4] = PROTO_VERSION;
	b[5] = 0x82;
	b[6] = 0x03;
	b[7] = 0x04;
	b[8] = 0xde;
	b[9] = 0xad;
	b[10] = 0xbe;
	b[11] = 0xef;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), 0);
	assert_int_equal(h.len, 20);
	assert_int_equal(h.version, PROTO_VERSION);
	assert_int_equal(h.type, 0x82);
	assert_int_equal(h.status, 0x0304);
	assert_int_equal(h.id, 0xdeadbeef);
	assert_int_equal(proto_hdr_decode(b, PROTO_HDR_LEN, &h), 0);

	/* Short: wait for more, at every length. */
	for (n = 0; n < PROTO_HDR_LEN; n++) {
		uint8_t *p = malloc(n + 1);

		assert_non_null(p);
		memcpy(p + 1, b, n);
		assert_int_equal(proto_hdr_decode(p + 1, n, &h), -EAGAIN);
		free(p);
	}

	/* Lengths: 12 .. 65536. */
	b[0] = b[1] = b[2] = 0;
	b[3] = 12;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), 0);
	b[3] = 11;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EMSGSIZE);
	b[3] = 0;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EMSGSIZE);
	b[1] = 0x01;		/* 65536 */
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), 0);
	assert_int_equal(h.len, PROTO_FRAME_MAX);
	b[3] = 1;		/* 65537 */
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EMSGSIZE);
	b[0] = 0xff;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EMSGSIZE);

	/* Another version: refused, but the header is filled in. */
	b[0] = b[1] = b[2] = 0;
	b[3] = 16;
	b[4] = PROTO_VERSION + 1;
	memset(&h, 0, sizeof(h));
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EPROTONOSUPPORT);
	assert_int_equal(h.len, 16);
	assert_int_equal(h.version, PROTO_VERSION + 1);
	assert_int_equal(h.type, 0x82);
	assert_int_equal(h.status, 0x0304);
	assert_int_equal(h.id, 0xdeadbeef);
	b[4] = 0;
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &h), -EPROTONOSUPPORT);
	assert_int_equal(h.id, 0xdeadbeef);
}

static void
test_frame_end(void **state)
{
	struct proto_wr	w;
	int		n;

	/* The biggest frame there may be. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_STATISTICS | PROTO_REPLY, PROTO_OK, 7);
	proto_put_bytes(&w, filler, PROTO_FRAME_MAX - PROTO_HDR_LEN);
	n = proto_frame_end(&w);
	assert_int_equal(n, PROTO_FRAME_MAX);
	check_hdr(n, PROTO_STATISTICS | PROTO_REPLY, PROTO_OK, 7);

	/* One byte more: refused, although the buffer holds it. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_STATISTICS | PROTO_REPLY, PROTO_OK, 7);
	proto_put_bytes(&w, filler, PROTO_FRAME_MAX - PROTO_HDR_LEN + 1);
	assert_int_equal(w.err, 0);
	assert_int_equal(proto_frame_end(&w), -EMSGSIZE);

	/* An overflowed writer. */
	proto_wr_init(&w, frame, 20);
	proto_frame_begin(&w, PROTO_STATUS | PROTO_REPLY, PROTO_OK, 7);
	proto_put_u64(&w, 1);
	proto_put_u8(&w, 1);
	assert_int_equal(proto_frame_end(&w), -EMSGSIZE);

	/* begin resets the writer for the next frame. */
	proto_frame_begin(&w, PROTO_STATUS | PROTO_REPLY, PROTO_BUSY, 8);
	proto_put_u32(&w, 1);
	n = proto_frame_end(&w);
	assert_int_equal(n, 16);
	check_hdr(n, PROTO_STATUS | PROTO_REPLY, PROTO_BUSY, 8);
}

static void
lookup_name_round_trip(uint8_t family, const char *name, uint32_t id)
{
	struct proto_lookup_name req;
	struct proto_wr		 w;
	const char		*why = NULL;
	size_t			 blen;
	int			 n;

	proto_wr_init(&w, frame, sizeof(frame));
	n = proto_lookup_name_encode(&w, id, family, name);
	assert_int_equal(n, PROTO_HDR_LEN + 4 + strlen(name));
	blen = check_hdr(n, PROTO_LOOKUP_NAME, 0, id);
	memset(&req, 0x55, sizeof(req));
	assert_int_equal(proto_lookup_name_decode(frame + PROTO_HDR_LEN, blen,
	    &req, &why), 0);
	assert_int_equal(req.family, family);
	assert_int_equal(req.flags, 0);
	assert_int_equal(req.name_len, strlen(name));
	assert_string_equal(req.name, name);
	check_truncation(dec_lookup_name, frame + PROTO_HDR_LEN, blen, 0);
}

static void
test_lookup_name(void **state)
{
	char name[PROTO_NAME_MAX + 2];

	lookup_name_round_trip(PROTO_AF_UNSPEC, "example.org", 1);
	lookup_name_round_trip(PROTO_AF_INET, "www.Example.ORG.", 0xffffffff);
	lookup_name_round_trip(PROTO_AF_INET6, "localhost", 0);
	lookup_name_round_trip(PROTO_AF_INET, "a", 42);
	make_name(name, PROTO_NAME_MAX);
	lookup_name_round_trip(PROTO_AF_INET6, name, 3);
	strcat(name, ".");
	lookup_name_round_trip(PROTO_AF_UNSPEC, name, 4);
}

static void
test_lookup_name_bad(void **state)
{
	struct proto_lookup_name req;
	struct proto_wr		 w;
	const char		*why;
	uint8_t			 b[16];

	proto_wr_init(&w, frame, sizeof(frame));
	assert_int_equal(proto_lookup_name_encode(&w, 1, 5, "example.org"),
	    -EINVAL);
	assert_int_equal(proto_lookup_name_encode(&w, 1, PROTO_AF_INET, ""),
	    -EINVAL);
	assert_int_equal(proto_lookup_name_encode(&w, 1, PROTO_AF_INET, "a..b"),
	    -EINVAL);
	assert_int_equal(proto_lookup_name_encode(&w, 1, PROTO_AF_INET, "a\tb"),
	    -EINVAL);

	/* Unknown family. */
	memcpy(b, "\x05\x00\x00\x03" "abc", 7);
	why = NULL;
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, &why), -EINVAL);
	assert_non_null(why);
	b[0] = 0xff;
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), -EINVAL);
	b[0] = PROTO_AF_INET;
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), 0);
	assert_string_equal(req.name, "abc");

	/* The name's length is larger than what follows. */
	memcpy(b, "\x04\x00\x00\x0a" "abc", 7);
	why = NULL;
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, &why), -EBADMSG);
	assert_non_null(why);
	memcpy(b, "\x04\x00\xff\xff" "abc", 7);
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), -EBADMSG);

	/* A NUL byte, a control byte, DEL, an empty label, an empty name. */
	memcpy(b, "\x04\x00\x00\x03" "a\0c", 7);
	why = NULL;
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "NUL"));
	memcpy(b, "\x04\x00\x00\x03" "a\x01" "c", 7);
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), -EINVAL);
	memcpy(b, "\x04\x00\x00\x03" "a\x7f" "c", 7);
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), -EINVAL);
	memcpy(b, "\x04\x00\x00\x03" "a..", 7);
	assert_int_equal(proto_lookup_name_decode(b, 7, &req, NULL), -EINVAL);
	memcpy(b, "\x04\x00\x00\x00", 4);
	assert_int_equal(proto_lookup_name_decode(b, 4, &req, NULL), -EINVAL);

	/* Bytes after the fields are ignored (new trailing fields). */
	memcpy(b, "\x06\x00\x00\x03" "abcXYZ", 10);
	assert_int_equal(proto_lookup_name_decode(b, 10, &req, NULL), 0);
	assert_int_equal(req.family, PROTO_AF_INET6);
	assert_int_equal(req.name_len, 3);
	assert_string_equal(req.name, "abc");
}

/* Checks a name, written as a lookup body, with the decoder too. */
static int
name_check_both(const char *name, size_t len)
{
	struct proto_lookup_name req;
	const char		*why = NULL, *why2 = NULL;
	uint8_t			*b;
	int			 r, r2;

	r = proto_name_check(name, len, &why);
	if (r < 0)
		assert_non_null(why);
	else
		assert_null(why);
	assert_int_equal(proto_name_check(name, len, NULL), r);

	assert_non_null(b = malloc(4 + len));
	b[0] = PROTO_AF_INET;
	b[1] = 0;
	b[2] = (uint8_t)(len >> 8);
	b[3] = (uint8_t)len;
	memcpy(b + 4, name, len);
	r2 = proto_lookup_name_decode(b, 4 + len, &req, &why2);
	free(b);
	assert_int_equal(r2, r);
	if (r == 0) {
		assert_int_equal(req.name_len, len);
		assert_memory_equal(req.name, name, len);
		assert_int_equal(req.name[len], '\0');
	} else
		assert_string_equal(why2, why);
	return r;
}

static void
test_name_check(void **state)
{
	char	name[PROTO_NAME_MAX + 8], label[80];
	char	c;

	assert_int_equal(name_check_both("a", 1), 0);
	assert_int_equal(name_check_both("example.org", 11), 0);
	assert_int_equal(name_check_both("example.org.", 12), 0);
	assert_int_equal(name_check_both("xn--bcher-kva.example", 21), 0);
	assert_int_equal(name_check_both("_srv._tcp.example", 17), 0);
	assert_int_equal(name_check_both("h\xc3\xa9.example", 11), 0);

	/* Length: 253 characters, one more for a trailing dot. */
	make_name(name, 253);
	assert_int_equal(name_check_both(name, 253), 0);
	name[253] = '.';
	assert_int_equal(name_check_both(name, 254), 0);
	make_name(name, 254);
	assert_int_equal(name_check_both(name, 254), -EINVAL);
	name[254] = '.';
	assert_int_equal(name_check_both(name, 255), -EINVAL);
	make_name(name, 255);
	assert_int_equal(name_check_both(name, 255), -EINVAL);

	/* Labels: 63 characters. */
	memset(label, 'x', sizeof(label));
	assert_int_equal(name_check_both(label, 63), 0);
	assert_int_equal(name_check_both(label, 64), -EINVAL);
	memcpy(name, "a.", 2);
	memset(name + 2, 'y', 63);
	memcpy(name + 65, ".b", 2);
	assert_int_equal(name_check_both(name, 67), 0);
	memset(name + 2, 'y', 64);
	memcpy(name + 66, ".b", 2);
	assert_int_equal(name_check_both(name, 68), -EINVAL);
	/* The label before a trailing dot counts too. */
	label[64] = '.';
	assert_int_equal(name_check_both(label + 1, 64), 0);
	assert_int_equal(name_check_both(label, 65), -EINVAL);
	label[64] = 'x';

	/* Empty names and labels. */
	assert_int_equal(name_check_both("", 0), -EINVAL);
	assert_int_equal(name_check_both(".", 1), -EINVAL);
	assert_int_equal(name_check_both("..", 2), -EINVAL);
	assert_int_equal(name_check_both(".a", 2), -EINVAL);
	assert_int_equal(name_check_both("a..b", 4), -EINVAL);
	assert_int_equal(name_check_both("a..", 3), -EINVAL);

	/* NUL, control and DEL bytes, anywhere. */
	assert_int_equal(name_check_both("a\0b", 3), -EINVAL);
	assert_int_equal(name_check_both("\0", 1), -EINVAL);
	assert_int_equal(name_check_both("ab\0", 3), -EINVAL);
	assert_int_equal(name_check_both("ab.\0", 4), -EINVAL);
	for (c = 1; c < 0x20; c++) {
		name[0] = 'a';
		name[1] = c;
		name[2] = 'b';
		assert_int_equal(name_check_both(name, 3), -EINVAL);
	}
	assert_int_equal(name_check_both("a\x7f", 2), -EINVAL);
	assert_int_equal(name_check_both("a b", 3), 0);	/* printable */
}

/* The check as it was written first, byte by byte: the reference. */
static int
name_check_ref(const char *name, size_t len, const char **ret_why)
{
	const char	*why = NULL;
	size_t		 i, label = 0;

	if (len > 0 && name[len - 1] == '.' && len > 1)
		len--;
	if (len == 0)
		why = "empty name";
	else if (len > PROTO_NAME_MAX)
		why = "name longer than 253 characters";
	for (i = 0; why == NULL && i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '\0')
			why = "NUL byte in name";
		else if (c < 0x20 || c == 0x7f)
			why = "control character in name";
		else if (c == '.') {
			if (label == 0)
				why = "empty label in name";
			label = 0;
		} else if (++label > PROTO_LABEL_MAX)
			why = "label longer than 63 characters";
	}
	if (why == NULL && label == 0)
		why = "empty label in name";
	if (why) {
		*ret_why = why;
		return -EINVAL;
	}
	return 0;
}

/*
 * The same verdict and reason as the reference, for every byte in every
 * place of names built to sit on each limit: labels of 62 to 65, names of
 * 252 to 256, dots doubled, leading and trailing, and a second fault after
 * the first (which one is reported is part of the answer).
 */
static void
test_name_check_same_as_byte_loop(void **state)
{
	static const unsigned char extra[] = { 0, 1, 0x1f, ' ', '-', '.', '/',
	    '0', 'A', 'z', '~', 0x7f, 0x80, 0xc3, 0xff };
	char		 name[300];
	const char	*why, *why_ref;
	size_t		 len, at, i, j, k, n = 0;
	int		 r, r_ref;

	(void)state;
	for (len = 1; len < sizeof(name); len = len < 70 ? len + 1 :
	    len < 250 ? len + 30 : len + 1) {
		for (k = 0; k < 6; k++) {
			/* A base name: one label, labels of 63/64, or dots every 5. */
			for (i = 0; i < len; i++)
				name[i] = k == 0 ? 'a' :
				    k == 1 ? (i % 64 == 63 ? '.' : 'b') :
				    k == 2 ? (i % 65 == 64 ? '.' : 'c') :
				    k == 3 ? (i % 5 == 4 ? '.' : 'd') :
				    k == 4 ? (i % 66 == 65 ? '.' : 'e') : (i % 2 ? '.' : 'f');
			for (at = 0; at < len; at += len > 80 ? 7 : 1)
				for (j = 0; j < sizeof(extra); j++) {
					char saved = name[at];

					name[at] = (char)extra[j];
					why = why_ref = NULL;
					r = proto_name_check(name, len, &why);
					r_ref = name_check_ref(name, len, &why_ref);
					if (r != r_ref || (r && strcmp(why, why_ref) != 0))
						fail_msg("len %zu base %zu byte 0x%02x at %zu: "
						    "%d \"%s\", want %d \"%s\"", len, k, extra[j],
						    at, r, why ? why : "", r_ref,
						    why_ref ? why_ref : "");
					/* A second fault further on. */
					if (at + 3 < len) {
						char saved2 = name[at + 3];

						name[at + 3] = '\x01';
						r = proto_name_check(name, len, &why);
						r_ref = name_check_ref(name, len, &why_ref);
						assert_int_equal(r, r_ref);
						if (r)
							assert_string_equal(why, why_ref);
						name[at + 3] = saved2;
					}
					name[at] = saved;
					n++;
				}
		}
	}
	print_message("%zu names checked against the byte loop\n", n);
}

static void
lookup_addr_round_trip(uint8_t family, const uint8_t *addr, uint32_t id)
{
	struct proto_lookup_addr req;
	struct proto_wr		 w;
	size_t			 alen = family == PROTO_AF_INET ? 4 : 16, blen;
	int			 n;

	proto_wr_init(&w, frame, sizeof(frame));
	n = proto_lookup_addr_encode(&w, id, family, addr);
	assert_int_equal(n, PROTO_HDR_LEN + 2 + alen);
	blen = check_hdr(n, PROTO_LOOKUP_ADDR, 0, id);
	memset(&req, 0x55, sizeof(req));
	assert_int_equal(proto_lookup_addr_decode(frame + PROTO_HDR_LEN, blen,
	    &req, NULL), 0);
	assert_int_equal(req.family, family);
	assert_int_equal(req.flags, 0);
	assert_memory_equal(req.addr, addr, alen);
	if (alen == 4) {
		static const uint8_t zero[12];

		assert_memory_equal(req.addr + 4, zero, 12);
	}
	check_truncation(dec_lookup_addr, frame + PROTO_HDR_LEN, blen, 0);
}

static void
test_lookup_addr(void **state)
{
	static const uint8_t a4[4] = { 192, 0, 2, 1 };
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0x01 };
	static const uint8_t ones[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct proto_lookup_addr req;
	struct proto_wr		 w;
	const char		*why;
	uint8_t			 b[20];

	lookup_addr_round_trip(PROTO_AF_INET, a4, 9);
	lookup_addr_round_trip(PROTO_AF_INET6, a6, 10);
	lookup_addr_round_trip(PROTO_AF_INET, ones, 0xffffffff);
	lookup_addr_round_trip(PROTO_AF_INET6, ones, 0);

	/* Unknown families: UNSPEC has no address. */
	proto_wr_init(&w, frame, sizeof(frame));
	assert_int_equal(proto_lookup_addr_encode(&w, 1, PROTO_AF_UNSPEC, a6),
	    -EINVAL);
	assert_int_equal(proto_lookup_addr_encode(&w, 1, 5, a6), -EINVAL);
	memset(b, 0, sizeof(b));
	b[0] = PROTO_AF_UNSPEC;
	why = NULL;
	assert_int_equal(proto_lookup_addr_decode(b, 18, &req, &why), -EINVAL);
	assert_non_null(why);
	b[0] = 5;
	assert_int_equal(proto_lookup_addr_decode(b, 18, &req, NULL), -EINVAL);
	b[0] = 0x84;
	assert_int_equal(proto_lookup_addr_decode(b, 18, &req, NULL), -EINVAL);

	/* An IPv6 family with only 4 bytes of address. */
	b[0] = PROTO_AF_INET6;
	why = NULL;
	assert_int_equal(proto_lookup_addr_decode(b, 6, &req, &why), -EBADMSG);
	assert_non_null(why);
	/* Trailing bytes are ignored. */
	b[0] = PROTO_AF_INET;
	memcpy(b + 2, a4, 4);
	assert_int_equal(proto_lookup_addr_decode(b, 18, &req, NULL), 0);
	assert_memory_equal(req.addr, a4, 4);
}

static void
test_simple(void **state)
{
	static const uint8_t types[] = { PROTO_STATISTICS, PROTO_STATUS };
	struct proto_wr	w;
	size_t		i;
	int		n;

	for (i = 0; i < sizeof(types); i++) {
		proto_wr_init(&w, frame, sizeof(frame));
		n = proto_simple_encode(&w, types[i], 1000 + (uint32_t)i);
		assert_int_equal(n, PROTO_HDR_LEN);
		assert_int_equal(check_hdr(n, types[i], 0, 1000 + (uint32_t)i),
		    0);
	}
}

/* What an answer should hold. */
struct want {
	uint32_t	 ttl;
	uint8_t		 source;
	const char	*canon;
	size_t		 naddr;
	const uint8_t	*fams;		/* naddr families */
	const uint8_t	*addrs;		/* naddr x 16 bytes */
	size_t		 nalias;
	const char	*const *aliases;
};

/* Writes want as a reply frame into frame[]; returns the frame size. */
static int
answer_write(const struct want *wt, uint32_t id)
{
	struct proto_answer_wr	aw;
	struct proto_wr		w;
	size_t			i;

	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_OK, id);
	proto_answer_begin(&aw, &w, wt->ttl, wt->source, wt->canon,
	    strlen(wt->canon));
	for (i = 0; i < wt->naddr; i++)
		proto_answer_addr(&aw, wt->fams[i], wt->addrs + 16 * i);
	for (i = 0; i < wt->nalias; i++)
		proto_answer_alias(&aw, wt->aliases[i], strlen(wt->aliases[i]));
	assert_int_equal(proto_answer_end(&aw), 0);
	return proto_frame_end(&w);
}

static void
answer_check(const struct want *wt)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, i, len, strings = 0, n4 = 0, n6 = 0, blen;
	uint8_t			 fam;
	int			 n;

	n = answer_write(wt, 77);
	assert_true(n > 0);
	blen = check_hdr(n, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_OK, 77);

	memset(&a, 0x55, sizeof(a));
	assert_int_equal(proto_answer_decode(frame + PROTO_HDR_LEN, blen, &a),
	    0);
	assert_int_equal(a.ttl, wt->ttl);
	assert_int_equal(a.source, wt->source);
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.naddr, wt->naddr);
	assert_int_equal(a.nalias, wt->nalias);
	assert_int_equal(a.canon_len, strlen(wt->canon));
	assert_memory_equal(a.canon, wt->canon, a.canon_len);

	for (i = 0; i < wt->naddr; i++) {
		if (wt->fams[i] == PROTO_AF_INET)
			n4++;
		else
			n6++;
	}
	assert_int_equal(a.naddr4, n4);
	assert_int_equal(a.naddr6, n6);

	/* The addresses, exactly and in order. */
	cur = 0;
	for (i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		assert_true(i < wt->naddr);
		assert_int_equal(fam, wt->fams[i]);
		assert_memory_equal(addr, wt->addrs + 16 * i,
		    fam == PROTO_AF_INET ? 4 : 16);
	}
	assert_int_equal(i, wt->naddr);
	assert_int_equal(proto_answer_next_addr(&a, &cur, &fam, &addr), 0);

	/* The aliases, exactly and in order. */
	strings = strlen(wt->canon) + 1;
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &len); i++) {
		assert_true(i < wt->nalias);
		assert_int_equal(len, strlen(wt->aliases[i]));
		assert_memory_equal(s, wt->aliases[i], len);
		strings += len + 1;
	}
	assert_int_equal(i, wt->nalias);
	assert_int_equal(cur, a.aliases_len);
	assert_int_equal(proto_answer_next_alias(&a, &cur, &s, &len), 0);
	assert_int_equal(a.strings_size, strings);

	check_truncation(dec_answer, frame + PROTO_HDR_LEN, blen, 0);
}

static void
test_answer(void **state)
{
	static const uint8_t fams1[] = { PROTO_AF_INET };
	static const uint8_t addrs1[16] = { 10, 0, 0, 1 };
	static const uint8_t fams3[] = { PROTO_AF_INET6, PROTO_AF_INET,
	    PROTO_AF_INET6 };
	static const uint8_t addrs3[48] = {
	    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	    192, 0, 2, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const char *const aliases[] = { "www", "w3.example.org",
	    "x", "", "Mixed.Case" };
	static const char *const one[] = { "alias" };
	struct want	wt;

	/* No address, no alias (a NODATA-like body still decodes). */
	memset(&wt, 0, sizeof(wt));
	wt.canon = "empty.example";
	wt.source = PROTO_SRC_DNS;
	wt.ttl = 300;
	answer_check(&wt);

	/* An empty canonical name. */
	wt.canon = "";
	answer_check(&wt);

	wt.canon = "one.example";
	wt.source = PROTO_SRC_HOSTS;
	wt.ttl = 0;
	wt.naddr = 1;
	wt.fams = fams1;
	wt.addrs = addrs1;
	answer_check(&wt);

	wt.nalias = 1;
	wt.aliases = one;
	answer_check(&wt);

	wt.canon = "mixed.example.org";
	wt.source = PROTO_SRC_STALE;
	wt.ttl = 0xffffffff;
	wt.naddr = 3;
	wt.fams = fams3;
	wt.addrs = addrs3;
	wt.nalias = 5;
	wt.aliases = aliases;
	answer_check(&wt);

	/* Aliases with no address. */
	wt.naddr = 0;
	wt.source = PROTO_SRC_CACHE;
	answer_check(&wt);
}

static void
test_answer_many(void **state)
{
	enum { NADDR = 600, NALIAS = 300 };
	uint8_t		*fams, *addrs;
	char		**al, *names;
	struct want	 wt;
	size_t		 i;

	assert_non_null(fams = malloc(NADDR));
	assert_non_null(addrs = calloc(NADDR, 16));
	assert_non_null(al = calloc(NALIAS, sizeof(*al)));
	assert_non_null(names = calloc(NALIAS, 32));
	for (i = 0; i < NADDR; i++) {
		fams[i] = i % 3 == 0 ? PROTO_AF_INET6 : PROTO_AF_INET;
		addrs[16 * i] = (uint8_t)i;
		addrs[16 * i + 1] = (uint8_t)(i >> 8);
		addrs[16 * i + 3] = 0x5a;
		addrs[16 * i + 15] = (uint8_t)~i;
	}
	for (i = 0; i < NALIAS; i++) {
		al[i] = names + 32 * i;
		snprintf(al[i], 32, "alias-%zu.%.*s", i, (int)(i % 16),
		    "abcdefghijklmnop");
	}
	memset(&wt, 0, sizeof(wt));
	wt.ttl = 86400;
	wt.source = PROTO_SRC_DNS;
	wt.canon = "many.example";
	wt.naddr = NADDR;
	wt.fams = fams;
	wt.addrs = addrs;
	wt.nalias = NALIAS;
	wt.aliases = (const char *const *)al;
	answer_check(&wt);
	free(fams);
	free(addrs);
	free(al);
	free(names);
}

static void
test_answer_bad(void **state)
{
	static const uint8_t a4[4] = { 1, 2, 3, 4 };
	struct proto_answer_wr	aw;
	struct proto_answer	a;
	struct proto_wr		w;
	uint8_t			b[64];
	size_t			n;

	/* ttl, source, flags, naddr 2, nalias 1, "ab", 4 1.2.3.4, 6 ::1, "c" */
	static const uint8_t good[] = { 0, 0, 0, 5, 1, 0, 0, 2, 0, 1, 0, 2,
	    'a', 'b', 4, 1, 2, 3, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 1, 0, 1, 'c' };

	assert_int_equal(proto_answer_decode(good, sizeof(good), &a), 0);
	assert_int_equal(a.naddr, 2);
	assert_int_equal(a.naddr4, 1);
	assert_int_equal(a.naddr6, 1);
	assert_int_equal(a.nalias, 1);
	assert_int_equal(a.strings_size, 3 + 2);
	check_truncation(dec_answer, good, sizeof(good), 0);

	/* Counts larger than what is there. */
	memcpy(b, good, sizeof(good));
	b[7] = 3;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	memcpy(b, good, sizeof(good));
	b[9] = 2;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	memcpy(b, good, sizeof(good));
	b[6] = 0xff;
	b[8] = 0xff;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);

	/* A canonical name longer than the body; an alias too. */
	memcpy(b, good, sizeof(good));
	b[11] = 200;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	memcpy(b, good, sizeof(good));
	b[sizeof(good) - 2] = 2;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);

	/* A NUL inside a string. */
	memcpy(b, good, sizeof(good));
	b[13] = '\0';
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	memcpy(b, good, sizeof(good));
	b[sizeof(good) - 1] = '\0';
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);

	/* Unknown families. */
	memcpy(b, good, sizeof(good));
	b[14] = 5;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	memcpy(b, good, sizeof(good));
	b[19] = PROTO_AF_UNSPEC;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);
	/*
	 * The family gives the length: with IPv6 read as IPv4, a third
	 * address starts inside the IPv6 bytes, at a family of 0.
	 */
	memcpy(b, good, sizeof(good));
	b[7] = 3;
	b[19] = PROTO_AF_INET;
	assert_int_equal(proto_answer_decode(b, sizeof(good), &a), -EBADMSG);

	/* Trailing bytes are ignored. */
	memcpy(b, good, sizeof(good));
	b[sizeof(good)] = 0xee;
	assert_int_equal(proto_answer_decode(b, sizeof(good) + 1, &a), 0);
	assert_int_equal(a.nalias, 1);
	assert_null(a.origin);

	/* ...unless they are a string: the NSS module that answered. */
	memcpy(b + sizeof(good), "\0\x0amyhostname", 12);
	assert_int_equal(proto_answer_decode(b, sizeof(good) + 12, &a), 0);
	assert_int_equal(a.origin_len, 10);
	assert_memory_equal(a.origin, "myhostname", 10);
	/* A string cut short is no origin, and no error. */
	assert_int_equal(proto_answer_decode(b, sizeof(good) + 8, &a), 0);
	assert_null(a.origin);

	/* The writer: bad family, an address after an alias, no room. */
	proto_wr_init(&w, b, sizeof(b));
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
	proto_answer_addr(&aw, 5, a4);
	assert_int_equal(proto_answer_end(&aw), -EMSGSIZE);

	proto_wr_init(&w, b, sizeof(b));
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
	proto_answer_addr(&aw, PROTO_AF_UNSPEC, a4);
	assert_int_equal(proto_answer_end(&aw), -EMSGSIZE);

	proto_wr_init(&w, b, sizeof(b));
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
	proto_answer_alias(&aw, "y", 1);
	proto_answer_addr(&aw, PROTO_AF_INET, a4);
	assert_int_equal(proto_answer_end(&aw), -EMSGSIZE);

	for (n = 0; n < 10 + 3 + 5 + 3; n++) {
		proto_wr_init(&w, b, n);
		proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
		proto_answer_addr(&aw, PROTO_AF_INET, a4);
		proto_answer_alias(&aw, "y", 1);
		assert_int_equal(proto_answer_end(&aw), -EMSGSIZE);
	}
	proto_wr_init(&w, b, n);
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
	proto_answer_addr(&aw, PROTO_AF_INET, a4);
	proto_answer_alias(&aw, "y", 1);
	assert_int_equal(proto_answer_end(&aw), 0);
	assert_int_equal(w.off, n);
	assert_int_equal(proto_answer_decode(b, n, &a), 0);
	assert_int_equal(a.naddr4, 1);
	assert_int_equal(a.nalias, 1);
}

/*
 * The walks read again what the decoder walked; a shared-cache hit's body
 * may have changed in between.  Each step is checked again: a walk stops
 * at a family that is unknown or too long for what is left, and at an
 * alias longer than what is left, and never reads past the extents the
 * decoder found.
 */
static void
test_answer_walk_after_change(void **state)
{
	/* ttl, source, flags, naddr 2, nalias 1, "ab", 4 1.2.3.4, 6 ::1, "c" */
	static const uint8_t good[] = { 0, 0, 0, 5, 1, 0, 0, 2, 0, 1, 0, 2,
	    'a', 'b', 4, 1, 2, 3, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 1, 0, 1, 'c' };
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*str;
	uint8_t			 b[sizeof(good)], fam;
	size_t			 cur, n;

	(void)state;
	memcpy(b, good, sizeof(good));
	assert_int_equal(proto_answer_decode(b, sizeof(b), &a), 0);
	assert_int_equal(a.addrs_len, 5 + 17);

	/* As decoded: two addresses, one alias. */
	cur = 0;
	assert_true(proto_answer_next_addr(&a, &cur, &fam, &addr));
	assert_int_equal(fam, PROTO_AF_INET);
	assert_true(proto_answer_next_addr(&a, &cur, &fam, &addr));
	assert_int_equal(fam, PROTO_AF_INET6);
	assert_false(proto_answer_next_addr(&a, &cur, &fam, &addr));

	/* The first family made longer than the rest (scoped, 20 bytes). */
	b[14] = PROTO_AF_INET6_SCOPED;
	cur = 0;
	assert_true(proto_answer_next_addr(&a, &cur, &fam, &addr));
	assert_int_equal(fam, PROTO_AF_INET6_SCOPED);
	assert_int_equal(cur, 21);
	assert_false(proto_answer_next_addr(&a, &cur, &fam, &addr));
	b[14] = PROTO_AF_INET6;		/* 17 bytes: then 5 left, at a 0 */
	cur = 0;
	assert_true(proto_answer_next_addr(&a, &cur, &fam, &addr));
	assert_false(proto_answer_next_addr(&a, &cur, &fam, &addr));
	/* Unknown. */
	b[14] = 9;
	cur = 0;
	assert_false(proto_answer_next_addr(&a, &cur, &fam, &addr));
	/* The second made scoped: 21 bytes where 17 are left. */
	b[14] = PROTO_AF_INET;
	b[19] = PROTO_AF_INET6_SCOPED;
	cur = 0;
	assert_true(proto_answer_next_addr(&a, &cur, &fam, &addr));
	assert_false(proto_answer_next_addr(&a, &cur, &fam, &addr));
	/* The second made IPv4: more addresses than counted, read in bounds. */
	b[19] = PROTO_AF_INET;
	b[24] = PROTO_AF_INET;
	b[29] = PROTO_AF_INET;
	for (cur = 0, n = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); n++)
		assert_true(cur <= a.addrs_len);
	assert_int_equal(n, 4);

	/* An alias made longer than what is left, or cut to one byte. */
	memcpy(b, good, sizeof(good));
	b[sizeof(good) - 2] = 2;
	cur = 0;
	assert_false(proto_answer_next_alias(&a, &cur, &str, &n));
	b[sizeof(good) - 3] = 1;
	b[sizeof(good) - 2] = 0;
	cur = 0;
	assert_false(proto_answer_next_alias(&a, &cur, &str, &n));
	/* Shorter: found, then one byte left, which is no alias. */
	b[sizeof(good) - 3] = 0;
	b[sizeof(good) - 2] = 0;
	cur = 0;
	assert_true(proto_answer_next_alias(&a, &cur, &str, &n));
	assert_int_equal(n, 0);
	assert_false(proto_answer_next_alias(&a, &cur, &str, &n));
}

static void
test_answer_too_many_addrs(void **state)
{
	static const uint8_t a4[4] = { 1, 2, 3, 4 };
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	uint8_t			*big;
	size_t			 i, cap = 16 + (size_t)(UINT16_MAX + 1) * 5;

	/* A u16 count cannot go past 65535, whatever the buffer. */
	assert_non_null(big = malloc(cap));
	proto_wr_init(&w, big, cap);
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_DNS, "x", 1);
	for (i = 0; i < UINT16_MAX; i++)
		proto_answer_addr(&aw, PROTO_AF_INET, a4);
	assert_int_equal(w.err, 0);
	proto_answer_addr(&aw, PROTO_AF_INET, a4);
	assert_int_equal(proto_answer_end(&aw), -EMSGSIZE);
	free(big);
}

static void
test_kv(void **state)
{
	struct proto_kv_wr	kw;
	struct proto_kv_rd	kr;
	struct proto_kv		kv;
	struct proto_wr		w;
	char			key64[PROTO_KEY_MAX + 2];
	size_t			blen;
	int			n;

	memset(key64, 'k', PROTO_KEY_MAX);
	key64[PROTO_KEY_MAX] = '\0';

	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_STATISTICS | PROTO_REPLY, PROTO_OK, 5);
	proto_kv_begin(&kw, &w);
	proto_kv_u64(&kw, "zero", 0);
	proto_kv_str(&kw, "version", "0.1.0");
	proto_kv_u64(&kw, "max", UINT64_MAX);
	proto_kv_str(&kw, "empty", "");
	proto_kv_u64(&kw, key64, 0x0123456789abcdefULL);
	assert_int_equal(proto_kv_end(&kw), 0);
	n = proto_frame_end(&w);
	blen = check_hdr(n, PROTO_STATISTICS | PROTO_REPLY, PROTO_OK, 5);

	assert_int_equal(proto_kv_init(&kr, frame + PROTO_HDR_LEN, blen), 0);
	assert_int_equal(kr.left, 5);
	assert_int_equal(proto_kv_next(&kr, &kv), 1);
	assert_int_equal(kv.key_len, 4);
	assert_memory_equal(kv.key, "zero", 4);
	assert_int_equal(kv.kind, PROTO_KV_U64);
	assert_true(kv.u64 == 0);
	assert_int_equal(proto_kv_next(&kr, &kv), 1);
	assert_int_equal(kv.key_len, 7);
	assert_memory_equal(kv.key, "version", 7);
	assert_int_equal(kv.kind, PROTO_KV_STR);
	assert_int_equal(kv.str_len, 5);
	assert_memory_equal(kv.str, "0.1.0", 5);
	assert_int_equal(proto_kv_next(&kr, &kv), 1);
	assert_memory_equal(kv.key, "max", 3);
	assert_int_equal(kv.kind, PROTO_KV_U64);
	assert_true(kv.u64 == UINT64_MAX);
	assert_int_equal(proto_kv_next(&kr, &kv), 1);
	assert_int_equal(kv.key_len, 5);
	assert_memory_equal(kv.key, "empty", 5);
	assert_int_equal(kv.kind, PROTO_KV_STR);
	assert_int_equal(kv.str_len, 0);
	assert_non_null(kv.str);
	assert_int_equal(proto_kv_next(&kr, &kv), 1);
	assert_int_equal(kv.key_len, PROTO_KEY_MAX);
	assert_memory_equal(kv.key, key64, PROTO_KEY_MAX);
	assert_true(kv.u64 == 0x0123456789abcdefULL);
	assert_int_equal(proto_kv_next(&kr, &kv), 0);
	assert_int_equal(proto_kv_next(&kr, &kv), 0);

	check_truncation(dec_kv, frame + PROTO_HDR_LEN, blen, 0);

	/* No pairs at all. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_kv_begin(&kw, &w);
	assert_int_equal(proto_kv_end(&kw), 0);
	assert_int_equal(w.off, 2);
	assert_int_equal(proto_kv_init(&kr, frame, w.off), 0);
	assert_int_equal(proto_kv_next(&kr, &kv), 0);
	check_truncation(dec_kv, frame, w.off, 0);
}

static void
test_kv_bad(void **state)
{
	struct proto_kv_wr	 kw;
	struct proto_kv_rd	 kr;
	struct proto_kv		 kv;
	struct proto_wr		 w;
	char			 key65[PROTO_KEY_MAX + 2];
	uint8_t			 b[128];
	size_t			 n;

	memset(key65, 'k', PROTO_KEY_MAX + 1);
	key65[PROTO_KEY_MAX + 1] = '\0';

	/* The writer refuses empty and long keys. */
	proto_wr_init(&w, b, sizeof(b));
	proto_kv_begin(&kw, &w);
	proto_kv_u64(&kw, "", 1);
	assert_int_equal(proto_kv_end(&kw), -EMSGSIZE);
	proto_wr_init(&w, b, sizeof(b));
	proto_kv_begin(&kw, &w);
	proto_kv_str(&kw, key65, "x");
	assert_int_equal(proto_kv_end(&kw), -EMSGSIZE);
	/* And runs out of room cleanly. */
	for (n = 0; n < 2 + 2 + 1 + 1 + 8; n++) {
		proto_wr_init(&w, b, n);
		proto_kv_begin(&kw, &w);
		proto_kv_u64(&kw, "k", 1);
		assert_int_equal(proto_kv_end(&kw), -EMSGSIZE);
	}

	/* count 1: key "k", kind, then a u64. */
	memcpy(b, "\x00\x01\x00\x01k\x00\x00\x00\x00\x00\x00\x00\x00\x07", 14);
	assert_int_equal(dec_kv(b, 14), 0);
	b[5] = 2;		/* unknown kind */
	assert_int_equal(proto_kv_init(&kr, b, 14), 0);
	assert_int_equal(proto_kv_next(&kr, &kv), -EBADMSG);
	assert_int_equal(proto_kv_next(&kr, &kv), -EBADMSG);
	b[5] = PROTO_KV_STR;	/* a string of 0 bytes, then garbage */
	assert_int_equal(dec_kv(b, 14), 0);
	b[7] = 0xff;		/* a string longer than the body */
	assert_int_equal(dec_kv(b, 14), -EBADMSG);
	b[5] = PROTO_KV_U64;
	b[7] = 0;
	b[1] = 2;		/* a count larger than what is there */
	assert_int_equal(dec_kv(b, 14), -EBADMSG);
	b[1] = 1;
	b[3] = 0x40;		/* a key longer than the body */
	assert_int_equal(dec_kv(b, 14), -EBADMSG);
	b[3] = 0;		/* an empty key */
	assert_int_equal(proto_kv_init(&kr, b, 13), 0);
	assert_int_equal(proto_kv_next(&kr, &kv), -EBADMSG);

	/* A key of 65 bytes, built by hand. */
	b[0] = 0;
	b[1] = 1;
	b[2] = 0;
	b[3] = PROTO_KEY_MAX + 1;
	memcpy(b + 4, key65, PROTO_KEY_MAX + 1);
	n = 4 + PROTO_KEY_MAX + 1;
	b[n++] = PROTO_KV_U64;
	memset(b + n, 0, 8);
	n += 8;
	assert_int_equal(dec_kv(b, n), -EBADMSG);
	b[3] = PROTO_KEY_MAX;
	memmove(b + 4 + PROTO_KEY_MAX, b + 5 + PROTO_KEY_MAX, 9);
	assert_int_equal(dec_kv(b, n - 1), 0);

	assert_int_equal(proto_kv_init(&kr, b, 0), -EBADMSG);
	assert_int_equal(proto_kv_init(&kr, b, 1), -EBADMSG);
}

static void
test_error_body(void **state)
{
	struct proto_wr	 w;
	const char	*msg;
	size_t		 len, blen;
	uint8_t		 b[8];
	int		 n;

	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_BADNAME,
	    3);
	proto_error_body(&w, "label longer than 63 characters");
	n = proto_frame_end(&w);
	blen = check_hdr(n, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_BADNAME, 3);
	assert_int_equal(blen, 2 + 31);
	assert_int_equal(proto_error_decode(frame + PROTO_HDR_LEN, blen, &msg,
	    &len), 0);
	assert_int_equal(len, 31);
	assert_memory_equal(msg, "label longer than 63 characters", 31);
	/* The empty prefix is a valid body with no reason: start at 1. */
	check_truncation(dec_error, frame + PROTO_HDR_LEN, blen, 1);

	/* No reason: an empty body. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_STATUS | PROTO_REPLY, PROTO_DENIED, 4);
	proto_error_body(&w, NULL);
	n = proto_frame_end(&w);
	assert_int_equal(check_hdr(n, PROTO_STATUS | PROTO_REPLY, PROTO_DENIED,
	    4), 0);
	msg = "x";
	len = 9;
	assert_int_equal(proto_error_decode(frame + PROTO_HDR_LEN, 0, &msg,
	    &len), 0);
	assert_null(msg);
	assert_int_equal(len, 0);

	/* An empty reason. */
	proto_wr_init(&w, b, sizeof(b));
	proto_error_body(&w, "");
	assert_int_equal(w.off, 2);
	assert_int_equal(proto_error_decode(b, 2, &msg, &len), 0);
	assert_non_null(msg);
	assert_int_equal(len, 0);

	/* A length larger than the body; a NUL in the reason. */
	memcpy(b, "\x00\x05" "abc", 5);
	msg = "x";
	assert_int_equal(proto_error_decode(b, 5, &msg, &len), -EBADMSG);
	assert_null(msg);
	assert_int_equal(len, 0);
	memcpy(b, "\x00\x03" "a\0c", 5);
	assert_int_equal(proto_error_decode(b, 5, &msg, &len), -EBADMSG);
	assert_null(msg);

	/* No room for the reason. */
	proto_wr_init(&w, b, 4);
	proto_error_body(&w, "abc");
	assert_int_equal(w.err, -EMSGSIZE);
}

static void
test_hdr_encode(void **state)
{
	static const uint8_t want[PROTO_HDR_LEN] = {
	    0, 0, 0, 20, PROTO_VERSION, 0x82, 0x03, 0x04, 0xde, 0xad, 0xbe, 0xef,
	};
	struct proto_hdr h = { 20, PROTO_VERSION, 0x82, 0x0304, 0xdeadbeef }, back;
	struct proto_wr	 w;
	uint8_t		 b[PROTO_HDR_LEN + 2], copy[BUFSZ];
	size_t		 n;
	int		 len;

	memset(b, 0xaa, sizeof(b));
	assert_int_equal(proto_hdr_encode(&h, b, sizeof(b)), PROTO_HDR_LEN);
	assert_memory_equal(b, want, PROTO_HDR_LEN);
	assert_int_equal(b[PROTO_HDR_LEN], 0xaa);	/* nothing past the header */
	assert_int_equal(proto_hdr_decode(b, sizeof(b), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));

	/* Too short: nothing written. */
	for (n = 0; n < PROTO_HDR_LEN; n++) {
		memset(b, 0xaa, sizeof(b));
		assert_int_equal(proto_hdr_encode(&h, b, n), -EMSGSIZE);
		assert_int_equal(b[0], 0xaa);
	}

	/* As proto_frame_begin writes a header. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, 0x82, 0x0304, 0xdeadbeef);
	assert_int_equal(w.off, PROTO_HDR_LEN);
	h.len = 0;
	assert_int_equal(proto_hdr_encode(&h, b, sizeof(b)), PROTO_HDR_LEN);
	assert_memory_equal(b, frame, PROTO_HDR_LEN);

	/* A new id for an encoded frame: decode, set, encode; the body stays. */
	proto_wr_init(&w, frame, sizeof(frame));
	len = proto_lookup_name_encode(&w, 0, PROTO_AF_INET6, "www.example.org");
	assert_true(len > PROTO_HDR_LEN);
	memcpy(copy, frame, (size_t)len);
	assert_int_equal(proto_hdr_decode(frame, (size_t)len, &h), 0);
	h.id = 0x01020304;
	assert_int_equal(proto_hdr_encode(&h, frame, (size_t)len), PROTO_HDR_LEN);
	assert_int_equal(check_hdr(len, PROTO_LOOKUP_NAME, 0, 0x01020304),
	    (size_t)len - PROTO_HDR_LEN);
	assert_memory_equal(frame + 8, "\x01\x02\x03\x04", 4);
	assert_memory_equal(frame, copy, 8);
	assert_memory_equal(frame + PROTO_HDR_LEN, copy + PROTO_HDR_LEN,
	    (size_t)len - PROTO_HDR_LEN);
}

static int
dec_cache_page(const uint8_t *b, size_t n)
{
	struct proto_cache_page	pg;
	struct proto_cache_item	it;
	size_t			cur = 0;
	int			r;

	if ((r = proto_cache_page_decode(b, n, &pg)) < 0)
		return r;
	while (proto_cache_page_next(&pg, &cur, &it))
		assert_true((const uint8_t *)it.name + it.name_len <= b + n);
	assert_int_equal(cur, pg.items_len);
	return 0;
}

static void
test_cache_page(void **state)
{
	static const uint8_t next_be[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
	struct proto_cache_item	 items[2] = {
		{ "www.example.org", 15, 28, PROTO_OK, 0, 300, NULL, 0 },
		{ "192.0.2.1", 9, PROTO_CACHE_KIND_NSS | 0x380 | PROTO_AF_INET,
		  PROTO_NOTFOUND, PROTO_CACHE_EXPIRED, 0, "mdns4_minimal", 13 },
	};
	struct proto_cache_page	 pg;
	struct proto_cache_item	 it;
	struct proto_wr		 w;
	size_t			 page_off, cur, i, blen;
	uint64_t		 cursor;
	int			 n;

	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 9);
	proto_cache_page_begin(&w, &page_off);
	assert_int_equal(page_off, PROTO_HDR_LEN);
	for (i = 0; i < 2; i++)
		proto_cache_page_item(&w, &items[i]);
	assert_int_equal(proto_cache_page_end(&w, page_off, 0x0102030405060708ull, 2), 0);
	n = proto_frame_end(&w);
	blen = check_hdr(n, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 9);

	/* The cursor first in the body, big-endian, then the count. */
	assert_memory_equal(frame + PROTO_HDR_LEN, next_be, 8);
	assert_memory_equal(frame + PROTO_HDR_LEN + 8, "\x00\x02", 2);
	assert_int_equal(proto_show_cache_decode(frame + PROTO_HDR_LEN, blen,
	    &cursor), 0);
	assert_true(cursor == 0x0102030405060708ull);

	assert_int_equal(proto_cache_page_decode(frame + PROTO_HDR_LEN, blen, &pg), 0);
	assert_true(pg.next == 0x0102030405060708ull);
	assert_int_equal(pg.count, 2);
	for (cur = 0, i = 0; proto_cache_page_next(&pg, &cur, &it); i++) {
		assert_true(i < 2);
		assert_int_equal(it.name_len, items[i].name_len);
		assert_memory_equal(it.name, items[i].name, it.name_len);
		assert_int_equal(it.kind, items[i].kind);
		assert_int_equal(it.status, items[i].status);
		assert_int_equal(it.flags, items[i].flags);
		assert_int_equal(it.ttl, items[i].ttl);
		assert_int_equal(it.origin_len, items[i].origin_len);
		if (items[i].origin)
			assert_memory_equal(it.origin, items[i].origin, it.origin_len);
		else
			assert_null(it.origin);
	}
	assert_int_equal(i, 2);
	check_truncation(dec_cache_page, frame + PROTO_HDR_LEN, blen, 0);

	/* The last page: cursor 0, no items. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 10);
	proto_cache_page_begin(&w, &page_off);
	assert_int_equal(proto_cache_page_end(&w, page_off, 0, 0), 0);
	n = proto_frame_end(&w);
	assert_int_equal(n, PROTO_HDR_LEN + 10);
	assert_int_equal(proto_cache_page_decode(frame + PROTO_HDR_LEN, 10, &pg), 0);
	assert_true(pg.next == 0);
	assert_int_equal(pg.count, 0);
	check_truncation(dec_cache_page, frame + PROTO_HDR_LEN, 10, 0);

	/* A page that overflows its buffer fails, at every size. */
	for (i = 0; i < PROTO_HDR_LEN + 10 + 2 + 15 + 10; i++) {
		proto_wr_init(&w, frame, i);
		proto_frame_begin(&w, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 1);
		proto_cache_page_begin(&w, &page_off);
		proto_cache_page_item(&w, &items[0]);
		assert_int_equal(proto_cache_page_end(&w, page_off, 7, 1), -EMSGSIZE);
	}
	proto_wr_init(&w, frame, i);
	proto_frame_begin(&w, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 1);
	proto_cache_page_begin(&w, &page_off);
	proto_cache_page_item(&w, &items[0]);
	assert_int_equal(proto_cache_page_end(&w, page_off, 7, 1), 0);
	assert_int_equal(proto_frame_end(&w), (int)i);

	/* An offset past what was written is the caller's mistake. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_SHOW_CACHE | PROTO_REPLY, PROTO_OK, 1);
	assert_int_equal(proto_cache_page_end(&w, PROTO_HDR_LEN + 1, 7, 1), -EINVAL);
	assert_int_equal(proto_cache_page_end(&w, PROTO_HDR_LEN, 7, 1), -EMSGSIZE);
}

static void
test_answer_stamp(void **state)
{
	static const uint8_t fams[] = { PROTO_AF_INET };
	static const uint8_t addrs[16] = { 10, 0, 0, 1 };
	static const struct want wt = { 300, PROTO_SRC_DNS, "a.example", 1, fams,
	    addrs, 0, NULL };
	struct proto_answer	a;
	uint8_t			copy[BUFSZ];
	size_t			blen, n;
	int			len;

	len = answer_write(&wt, 1);
	blen = check_hdr(len, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_OK, 1);
	memcpy(copy, frame, (size_t)len);
	assert_int_equal(proto_answer_stamp(frame + PROTO_HDR_LEN, blen, 0x01020304,
	    PROTO_SRC_CACHE), 0);
	assert_memory_equal(frame + PROTO_HDR_LEN, "\x01\x02\x03\x04\x03", 5);
	assert_memory_equal(frame + PROTO_HDR_LEN + 5, copy + PROTO_HDR_LEN + 5,
	    blen - 5);
	assert_int_equal(proto_answer_decode(frame + PROTO_HDR_LEN, blen, &a), 0);
	assert_int_equal(a.ttl, 0x01020304);
	assert_int_equal(a.source, PROTO_SRC_CACHE);
	assert_int_equal(a.naddr, 1);

	/* Five bytes are enough; fewer: nothing written. */
	memset(copy, 0xaa, 8);
	assert_int_equal(proto_answer_stamp(copy, 5, UINT32_MAX, 9), 0);
	assert_memory_equal(copy, "\xff\xff\xff\xff\x09\xaa", 6);
	for (n = 0; n < 5; n++) {
		memset(copy, 0xaa, 8);
		assert_int_equal(proto_answer_stamp(copy, n, 0, 0), -EBADMSG);
		assert_memory_equal(copy, "\xaa\xaa\xaa\xaa\xaa", 5);
	}
}

static void
test_records_stamp(void **state)
{
	struct proto_records_wr	 rw;
	struct proto_records	 recs;
	struct proto_record	 rec;
	struct proto_wr		 w;
	uint8_t			 copy[BUFSZ];
	size_t			 blen, cur, i, ttl1, ttl2;
	int			 n;

	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_QUERY_RR | PROTO_REPLY, PROTO_OK, 3);
	proto_records_begin(&rw, &w, 600, PROTO_SRC_DNS);
	proto_records_add(&rw, "example.org", 15, 600, "10 mx.example.org.");
	proto_records_add(&rw, "example.org", 16, 500, "\"v=spf1 -all\"");
	assert_int_equal(proto_records_end(&rw), 0);
	n = proto_frame_end(&w);
	blen = check_hdr(n, PROTO_QUERY_RR | PROTO_REPLY, PROTO_OK, 3);
	memcpy(copy, frame + PROTO_HDR_LEN, blen);

	assert_int_equal(proto_records_stamp(frame + PROTO_HDR_LEN, blen, 42,
	    PROTO_SRC_STALE), 0);
	assert_int_equal(proto_records_decode(frame + PROTO_HDR_LEN, blen, &recs), 0);
	assert_int_equal(recs.ttl, 42);
	assert_int_equal(recs.source, PROTO_SRC_STALE);
	assert_int_equal(recs.count, 2);
	for (cur = 0, i = 0; proto_records_next(&recs, &cur, &rec); i++) {
		assert_int_equal(rec.ttl, 42);
		assert_int_equal(rec.type, i == 0 ? 15 : 16);
		assert_int_equal(rec.owner_len, 11);
		assert_memory_equal(rec.owner, "example.org", 11);
	}
	assert_int_equal(i, 2);

	/* Only the ttls and the source changed: body, then each record's. */
	ttl1 = 8 + 2 + 11 + 2;
	ttl2 = ttl1 + 4 + 2 + strlen("10 mx.example.org.") + 2 + 11 + 2;
	for (i = 0; i < blen; i++)
		if (copy[i] != frame[PROTO_HDR_LEN + i])
			assert_true(i < 5 || (i >= ttl1 && i < ttl1 + 4) ||
			    (i >= ttl2 && i < ttl2 + 4));
	assert_memory_equal(frame + PROTO_HDR_LEN + ttl2, "\0\0\0\x2a", 4);

	/* Cut short: the ttl and source when they fit, the records' never. */
	for (i = 0; i < blen; i++) {
		memcpy(frame, copy, blen);
		assert_int_equal(proto_records_stamp(frame, i, 7, PROTO_SRC_CACHE),
		    -EBADMSG);
		if (i >= 5)
			assert_memory_equal(frame, "\x00\x00\x00\x07\x03", 5);
		else
			assert_memory_equal(frame, copy, 5);
		assert_memory_equal(frame + 5, copy + 5, blen - 5);
	}
}

static void
test_answer_scope(void **state)
{
	static const uint8_t fe80[16] = { 0xfe, 0x80, [15] = 1 };
	struct proto_answer_wr	 aw;
	struct proto_answer	 a;
	struct proto_wr		 w;
	const uint8_t		*addr;
	uint8_t			 sa[20], fam;
	size_t			 cur = 0;

	memcpy(sa, fe80, 16);
	proto_answer_set_scope(sa, 0x01020304);
	assert_memory_equal(sa + 16, "\x01\x02\x03\x04", 4);
	assert_int_equal(proto_answer_scope(PROTO_AF_INET6_SCOPED, sa), 0x01020304);
	assert_int_equal(proto_answer_scope(PROTO_AF_INET6, sa), 0);

	/* Through an answer, whole. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_answer_begin(&aw, &w, 1, PROTO_SRC_NSS, "host", 4);
	proto_answer_addr(&aw, PROTO_AF_INET6_SCOPED, sa);
	assert_int_equal(proto_answer_end(&aw), 0);
	assert_int_equal(proto_answer_decode(frame, w.off, &a), 0);
	assert_int_equal(proto_answer_next_addr(&a, &cur, &fam, &addr), 1);
	assert_int_equal(fam, PROTO_AF_INET6_SCOPED);
	assert_memory_equal(addr, sa, 20);
	assert_int_equal(proto_answer_scope(fam, addr), 0x01020304);
}

/* glibc's request header, in host order as its client writes it. */
static size_t
nscd_req(uint8_t *out, int32_t version, int32_t type, int32_t key_len)
{
	struct nscd_req_hdr h = { version, type, key_len };

	memcpy(out, &h, sizeof(h));
	return sizeof(h);
}

static void
test_nscd_req_decode(void **state)
{
	struct nscd_req_hdr	 h, poison;
	uint8_t			 b[NSCD_REQ_HDR_LEN + 16], *p;
	size_t			 n;

	memset(&poison, 0x5a, sizeof(poison));
	n = nscd_req(b, NSCD_VERSION, NSCD_GETAI, 12);
	assert_int_equal(n, NSCD_REQ_HDR_LEN);
	memcpy(b + n, "example.org", 12);
	assert_int_equal(nscd_req_decode(b, n + 12, &h), 0);
	assert_int_equal(h.version, NSCD_VERSION);
	assert_int_equal(h.type, NSCD_GETAI);
	assert_int_equal(h.key_len, 12);
	/* The header alone is enough: the key is the caller's to wait for. */
	assert_int_equal(nscd_req_decode(b, n, &h), 0);

	/* Truncated: wait for more, at every length; nothing written. */
	for (n = 0; n < NSCD_REQ_HDR_LEN; n++) {
		assert_non_null(p = malloc(n + 1));
		memcpy(p + 1, b, n);
		h = poison;
		assert_int_equal(nscd_req_decode(p + 1, n, &h), -EAGAIN);
		assert_memory_equal(&h, &poison, sizeof(h));
		free(p);
	}
	assert_int_equal(nscd_req_decode(NULL, 0, &h), -EAGAIN);

	/* Key lengths: 0 .. NSCD_KEY_MAX. */
	nscd_req(b, NSCD_VERSION, NSCD_GETSTAT, 0);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), 0);
	assert_int_equal(h.key_len, 0);
	nscd_req(b, NSCD_VERSION, NSCD_GETHOSTBYNAME, NSCD_KEY_MAX);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), 0);
	assert_int_equal(h.key_len, NSCD_KEY_MAX);
	h = poison;
	nscd_req(b, NSCD_VERSION, NSCD_GETHOSTBYNAME, NSCD_KEY_MAX + 1);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EMSGSIZE);
	nscd_req(b, NSCD_VERSION, NSCD_GETHOSTBYNAME, -1);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EMSGSIZE);
	nscd_req(b, NSCD_VERSION, NSCD_GETHOSTBYNAME, INT32_MIN);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EMSGSIZE);
	nscd_req(b, NSCD_VERSION, NSCD_GETHOSTBYNAME, INT32_MAX);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EMSGSIZE);
	assert_memory_equal(&h, &poison, sizeof(h));

	/* Another version. */
	nscd_req(b, NSCD_VERSION - 1, NSCD_GETAI, 12);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EPROTONOSUPPORT);
	nscd_req(b, NSCD_VERSION + 1, NSCD_GETAI, 12);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EPROTONOSUPPORT);
	nscd_req(b, -NSCD_VERSION, NSCD_GETAI, 12);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EPROTONOSUPPORT);
	/* Big-endian 2 is another version on the machines namecache builds for. */
	memset(b, 0, 4);
	b[3] = NSCD_VERSION;
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EPROTONOSUPPORT);
	assert_memory_equal(&h, &poison, sizeof(h));

	/* Types: any but a negative one (the server refuses unknown ones). */
	nscd_req(b, NSCD_VERSION, -1, 0);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), -EBADMSG);
	assert_memory_equal(&h, &poison, sizeof(h));
	nscd_req(b, NSCD_VERSION, NSCD_LASTREQ + 1000, 0);
	assert_int_equal(nscd_req_decode(b, NSCD_REQ_HDR_LEN, &h), 0);
	assert_int_equal(h.type, NSCD_LASTREQ + 1000);
}

static void
test_strings(void **state)
{
	int i;

	for (i = PROTO_OK; i <= PROTO_NOTFOUND_TRYAGAIN; i++) {
		assert_non_null(proto_status_str(i));
		assert_string_not_equal(proto_status_str(i), "unknown status");
	}
	assert_string_equal(proto_status_str(PROTO_OK), "success");
	assert_string_equal(proto_status_str(-1), "unknown status");
	assert_string_equal(proto_status_str(PROTO_NOTFOUND_TRYAGAIN + 1), "unknown status");
	assert_string_not_equal(proto_status_str(PROTO_NOTFOUND_TRYAGAIN),
	    proto_status_str(PROTO_NOTFOUND));
	assert_string_not_equal(proto_status_str(PROTO_NOTFOUND_TRYAGAIN),
	    proto_status_str(PROTO_TRYAGAIN));
	assert_string_equal(proto_source_str(PROTO_SRC_NSS), "nss");
	assert_string_equal(proto_source_str(PROTO_SRC_HOSTS), "hosts");
	assert_string_equal(proto_source_str(PROTO_SRC_DNS), "dns");
	assert_string_equal(proto_source_str(PROTO_SRC_CACHE), "cache");
	assert_string_equal(proto_source_str(PROTO_SRC_STALE), "stale");
	assert_string_equal(proto_source_str(PROTO_SRC_NONE), "none");
	assert_string_equal(proto_source_str(99), "none");
}

/*
 * NOTFOUND_TRYAGAIN travels as any status: a reply header with a reason
 * body.  Through nscd it is refused, as TRYAGAIN is (glibc reads every
 * negative GETAI reply as EAI_NONAME); NOTFOUND and NODATA are not.
 */
static void
test_notfound_tryagain(void **state)
{
	static const int32_t	 types[] = { NSCD_GETAI, NSCD_GETHOSTBYNAME,
	    NSCD_GETHOSTBYNAMEv6 };
	struct proto_hdr	 h;
	struct proto_wr		 w;
	const char		*msg;
	size_t			 len;
	uint8_t			 out[512];
	int			 n;

	(void)state;
	proto_wr_init(&w, frame, sizeof(frame));
	proto_frame_begin(&w, PROTO_LOOKUP_NAME | PROTO_REPLY, PROTO_NOTFOUND_TRYAGAIN, 42);
	proto_error_body(&w, "www.example.org: SERVFAIL, then NXDOMAIN");
	n = proto_frame_end(&w);
	assert_true(n > PROTO_HDR_LEN);
	assert_int_equal(proto_hdr_decode(frame, (size_t)n, &h), 0);
	assert_int_equal(h.status, 12);
	assert_int_equal(h.id, 42);
	assert_int_equal(proto_error_decode(frame + PROTO_HDR_LEN, (size_t)n - PROTO_HDR_LEN,
	    &msg, &len), 0);
	assert_memory_equal(msg, "www.example.org: SERVFAIL", 25);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_int_equal(nscd_reply_from(types[i], PROTO_NOTFOUND_TRYAGAIN, NULL,
		    out, sizeof(out)), 0);
		assert_int_equal(nscd_reply_from(types[i], PROTO_TRYAGAIN, NULL,
		    out, sizeof(out)), 0);
		assert_true(nscd_reply_from(types[i], PROTO_NOTFOUND, NULL,
		    out, sizeof(out)) > 0);
		assert_true(nscd_reply_from(types[i], PROTO_NODATA, NULL,
		    out, sizeof(out)) > 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_str),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_writer_overflow),
		cmocka_unit_test(test_hdr_decode),
		cmocka_unit_test(test_frame_end),
		cmocka_unit_test(test_lookup_name),
		cmocka_unit_test(test_lookup_name_bad),
		cmocka_unit_test(test_name_check),
		cmocka_unit_test(test_name_check_same_as_byte_loop),
		cmocka_unit_test(test_lookup_addr),
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_answer_many),
		cmocka_unit_test(test_answer_bad),
		cmocka_unit_test(test_answer_walk_after_change),
		cmocka_unit_test(test_answer_too_many_addrs),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_kv_bad),
		cmocka_unit_test(test_error_body),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_hdr_encode),
		cmocka_unit_test(test_cache_page),
		cmocka_unit_test(test_answer_stamp),
		cmocka_unit_test(test_records_stamp),
		cmocka_unit_test(test_answer_scope),
		cmocka_unit_test(test_nscd_req_decode),
		cmocka_unit_test(test_notfound_tryagain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
