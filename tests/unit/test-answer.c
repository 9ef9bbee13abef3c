/* SPDX-License-Identifier: MIT */
/* tests/unit/test-answer.c - the typed answer: its merge, its body, and the socket's frame of it. */
#include <errno.h>
#include <netdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "answer.h"
#include "frame.h"
#include "proto.h"

static uint8_t	bodies[2][4096];
static uint8_t	out[PROTO_FRAME_MAX + 4096];
static uint8_t	addrs[PROTO_FRAME_MAX];

/* An answer body, as the cache keeps one, decoded into *ret. */
static void
body(int i, const char *canon, int n4, int n6, const char *alias, const char *origin,
    struct proto_answer *ret)
{
	struct proto_answer_wr	aw;
	struct proto_wr		w;
	uint8_t			a[16] = { 0 };
	int			k;

	proto_wr_init(&w, bodies[i], sizeof(bodies[i]));
	proto_answer_begin(&aw, &w, 0, PROTO_SRC_DNS, canon, strlen(canon));
	for (k = 0; k < n4; k++) {
		a[0] = 192, a[3] = (uint8_t)(k + 1);
		proto_answer_addr(&aw, PROTO_AF_INET, a);
	}
	for (k = 0; k < n6; k++) {
		memset(a, 0, sizeof(a));
		a[0] = 0x20, a[15] = (uint8_t)(k + 1);
		proto_answer_addr(&aw, PROTO_AF_INET6, a);
	}
	if (alias)
		proto_answer_alias(&aw, alias, strlen(alias));
	assert_int_equal(proto_answer_end(&aw), 0);
	if (origin)
		proto_put_str(&w, origin, strlen(origin));
	assert_int_equal(w.err, 0);
	assert_int_equal(proto_answer_decode(bodies[i], w.off, ret), 0);
}

/* The body answer_put_body writes is answer_body_size's bytes, and decodes to a. */
static void
check_body(const struct answer *a, uint32_t ttl, uint8_t source)
{
	struct proto_answer	 got;
	struct proto_wr		 w;

	proto_wr_init(&w, out, sizeof(out));
	answer_put_body(a, ttl, source, &w);
	assert_int_equal(w.err, 0);
	assert_int_equal(w.off, answer_body_size(a));
	assert_int_equal(proto_answer_decode(out, w.off, &got), 0);
	assert_int_equal(got.ttl, ttl);
	assert_int_equal(got.source, source);
	assert_int_equal(got.naddr, a->host.naddr);
	assert_int_equal(got.naddr4, a->host.naddr4);
	assert_int_equal(got.naddr6, a->host.naddr6);
	assert_int_equal(got.nalias, a->host.nalias);
	assert_int_equal(got.canon_len, a->host.canon_len);
	assert_memory_equal(got.canon, a->host.canon, got.canon_len);
	assert_int_equal(got.addrs_len, a->host.addrs_len);
	assert_memory_equal(got.addrs, a->host.addrs, got.addrs_len);
	assert_int_equal(got.origin_len, a->host.origin_len);
}

static void
test_merge(void **state)
{
	struct proto_answer	x, y;
	struct answer		a = { .status = PROTO_OK, .form = ANSWER_HOST };

	body(0, "web.example", 2, 0, "www.example", NULL, &x);
	body(1, "v6.example", 0, 3, NULL, "mdns4", &y);
	/* Both: A's name and aliases, A's addresses then AAAA's, copied. */
	assert_int_equal(answer_host_merge(&x, &y, addrs, sizeof(addrs), &a.host), 0);
	assert_ptr_equal(a.host.addrs, addrs);
	assert_int_equal(a.host.naddr, 5);
	assert_int_equal(a.host.naddr4, 2);
	assert_int_equal(a.host.naddr6, 3);
	assert_int_equal(a.host.nalias, 1);
	assert_memory_equal(a.host.canon, "web.example", 11);
	assert_int_equal(a.host.addrs_len, 2 * 5 + 3 * 17);
	/* The module's name comes from where there is one. */
	assert_int_equal(a.host.origin_len, 5);
	check_body(&a, 77, PROTO_SRC_CACHE);

	/* One alone: a view of it, nothing copied. */
	assert_int_equal(answer_host_merge(NULL, &y, addrs, 0, &a.host), 0);
	assert_ptr_equal(a.host.addrs, y.addrs);
	check_body(&a, 1, PROTO_SRC_DNS);
	/* Addresses that do not fit the buffer: -EMSGSIZE. */
	assert_int_equal(answer_host_merge(&x, &y, addrs, 2 * 5 + 3 * 17 - 1, &a.host),
	    -EMSGSIZE);
}

static void
test_frames(void **state)
{
	struct proto_answer	 x, got;
	struct proto_hdr	 h;
	struct answer		 a;
	const char		*msg;
	size_t			 n, len;
	int			 herrno, err;

	body(0, "web.example", 1, 1, "www.example", NULL, &x);
	memset(&a, 0, sizeof(a));
	a.status = PROTO_OK;
	a.form = ANSWER_HOST;
	a.host = x;
	a.ttl = 300;
	a.source = PROTO_SRC_CACHE;
	n = frame_answer(out, sizeof(out), PROTO_LOOKUP_NAME, 42, &a);
	assert_int_equal(proto_hdr_decode(out, n, &h), 0);
	assert_int_equal(h.len, n);
	assert_int_equal(h.type, PROTO_LOOKUP_NAME | PROTO_REPLY);
	assert_int_equal(h.status, PROTO_OK);
	assert_int_equal(h.id, 42);
	assert_int_equal(proto_answer_decode(out + PROTO_HDR_LEN, n - PROTO_HDR_LEN, &got), 0);
	assert_int_equal(got.ttl, 300);
	assert_int_equal(got.source, PROTO_SRC_CACHE);
	assert_int_equal(got.naddr, 2);

	/* An error and why. */
	answer_status(&a, PROTO_TRYAGAIN, "upstream DNS failed or timed out");
	n = frame_answer(out, sizeof(out), PROTO_LOOKUP_ADDR, 7, &a);
	assert_int_equal(proto_hdr_decode(out, n, &h), 0);
	assert_int_equal(h.status, PROTO_TRYAGAIN);
	assert_int_equal(proto_error_decode(out + PROTO_HDR_LEN, n - PROTO_HDR_LEN, &msg,
	    &len), 0);
	assert_int_equal(len, strlen("upstream DNS failed or timed out"));
	/* A negative answer: no body. */
	answer_status(&a, PROTO_NOTFOUND, NULL);
	assert_int_equal(frame_answer(out, sizeof(out), PROTO_LOOKUP_NAME, 1, &a),
	    PROTO_HDR_LEN);
	/* UNAVAIL: h_errno and errno for glibc's own ending. */
	answer_status(&a, PROTO_UNAVAIL, "every source on the hosts line is unavailable");
	a.herrno = NETDB_INTERNAL;
	a.err = ENOENT;
	n = frame_answer(out, sizeof(out), PROTO_LOOKUP_NAME, 1, &a);
	assert_int_equal(proto_unavail_decode(out + PROTO_HDR_LEN, n - PROTO_HDR_LEN,
	    &herrno, &err), 0);
	assert_int_equal(herrno, NETDB_INTERNAL);
	assert_int_equal(err, ENOENT);
	/* A frame that would not fit is PROTO_TOOBIG, with no body. */
	memset(&a, 0, sizeof(a));
	a.status = PROTO_OK;
	a.form = ANSWER_HOST;
	a.host = x;
	n = frame_answer(out, PROTO_HDR_LEN + 8, PROTO_LOOKUP_NAME, 3, &a);
	assert_int_equal(n, PROTO_HDR_LEN);
	assert_int_equal(proto_hdr_decode(out, n, &h), 0);
	assert_int_equal(h.status, PROTO_TOOBIG);
	assert_int_equal(h.id, 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
