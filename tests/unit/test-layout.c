/* SPDX-License-Identifier: MIT */
/* tests/unit/test-layout.c - the NSS module's layouts of an answer in glibc's buffers. */

/*
 * Answers written with proto's writer, decoded, and laid out in heap
 * buffers of exactly the length given, so that under ASan a byte written
 * past one is caught.  The edge of ERANGE is found byte by byte; a body
 * changed after it was decoded (a shared-cache hit's may be) gives EBADMSG
 * or fewer aliases, never a write outside.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "layout.h"
#include "proto.h"

static uint8_t	body[512];
static size_t	body_len;

static const uint8_t v4[4] = { 192, 0, 2, 1 };
static const uint8_t v4b[4] = { 198, 51, 100, 7 };
static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* web.example: 192.0.2.1, 2001:db8::1, fe80::1%3 (scoped), 198.51.100.7; aliases www, w. */
static void
answer(struct proto_answer *a)
{
	static uint8_t		scoped[20] = { 0xfe, 0x80, [15] = 1 };
	struct proto_answer_wr	aw;
	struct proto_wr		w;

	proto_answer_set_scope(scoped, 3);
	proto_wr_init(&w, body, sizeof(body));
	proto_answer_begin(&aw, &w, 60, PROTO_SRC_CACHE, "web.example", 11);
	proto_answer_addr(&aw, PROTO_AF_INET, v4);
	proto_answer_addr(&aw, PROTO_AF_INET6, v6);
	proto_answer_addr(&aw, PROTO_AF_INET6_SCOPED, scoped);
	proto_answer_addr(&aw, PROTO_AF_INET, v4b);
	proto_answer_alias(&aw, "www", 3);
	proto_answer_alias(&aw, "w", 1);
	assert_int_equal(proto_answer_end(&aw), 0);
	body_len = w.off;
	assert_int_equal(proto_answer_decode(body, body_len, a), 0);
}

/* The shortest buffer that takes the layout: one byte less is ERANGE. */
static size_t
edge_gaih(const struct proto_answer *a)
{
	struct gaih_addrtuple	*pat;
	size_t			 len;
	char			*buf;
	int			 r;

	for (len = 0; ; len++) {
		assert_non_null(buf = malloc(len ? len : 1));
		pat = NULL;
		r = layout_gaih(a, &pat, buf, len);
		free(buf);
		if (r == 0)
			return len;
		assert_int_equal(r, -ERANGE);
		assert_null(pat);
	}
}

static void
test_gaih(void **state)
{
	struct proto_answer	 a;
	struct gaih_addrtuple	*pat = NULL, *t, first;
	char			*buf;
	size_t			 len;

	(void)state;
	answer(&a);
	len = edge_gaih(&a);
	/* Four tuples and "web.example", the buffer malloc's alignment. */
	assert_int_equal(len, 4 * sizeof(struct gaih_addrtuple) + 12);
	assert_non_null(buf = malloc(len));
	assert_int_equal(layout_gaih(&a, &pat, buf, len), 0);
	assert_ptr_equal(pat, (void *)buf);
	assert_string_equal(pat->name, "web.example");
	t = pat;
	assert_int_equal(t->family, AF_INET);
	assert_memory_equal(t->addr, v4, 4);
	assert_int_equal(t->addr[1] | t->addr[2] | t->addr[3], 0);
	t = t->next;
	assert_int_equal(t->family, AF_INET6);
	assert_memory_equal(t->addr, v6, 16);
	assert_int_equal(t->scopeid, 0);
	assert_null(t->name);
	t = t->next;
	assert_int_equal(t->family, AF_INET6);
	assert_int_equal(t->scopeid, 3);
	t = t->next;
	assert_int_equal(t->family, AF_INET);
	assert_memory_equal(t->addr, v4b, 4);
	assert_null(t->next);

	/* Storage for the first tuple, handed in: a copy there. */
	pat = &first;
	assert_int_equal(layout_gaih(&a, &pat, buf, len), 0);
	assert_ptr_equal(pat, &first);
	assert_string_equal(first.name, "web.example");
	assert_ptr_equal(first.next, (struct gaih_addrtuple *)(void *)buf + 1);

	/* A misaligned buffer: 5 bytes of pad to the tuples' alignment. */
	free(buf);
	assert_non_null(buf = malloc(len + 8));
	pat = NULL;
	assert_int_equal(layout_gaih(&a, &pat, buf + 3, len + 5), 0);
	assert_int_equal((uintptr_t)pat % _Alignof(struct gaih_addrtuple), 0);
	pat = NULL;
	assert_int_equal(layout_gaih(&a, &pat, buf + 3, len + 4), -ERANGE);
	free(buf);
}

static void
test_hostent(void **state)
{
	struct proto_answer	a;
	struct hostent		h;
	char			*buf;
	size_t			len;
	int			r;

	(void)state;
	answer(&a);
	for (len = 0; ; len++) {
		assert_non_null(buf = malloc(len ? len : 1));
		r = layout_hostent(&a, AF_INET, &h, buf, len);
		if (r == 0)
			break;
		assert_int_equal(r, -ERANGE);
		free(buf);
	}
	/* 3 + 3 pointers, 2 addresses, "web.example" "www" "w". */
	assert_int_equal(len, 6 * sizeof(char *) + 8 + 12 + 4 + 2);
	assert_string_equal(h.h_name, "web.example");
	assert_int_equal(h.h_addrtype, AF_INET);
	assert_int_equal(h.h_length, 4);
	assert_memory_equal(h.h_addr_list[0], v4, 4);
	assert_memory_equal(h.h_addr_list[1], v4b, 4);
	assert_null(h.h_addr_list[2]);
	assert_string_equal(h.h_aliases[0], "www");
	assert_string_equal(h.h_aliases[1], "w");
	assert_null(h.h_aliases[2]);
	free(buf);

	/* AF_INET6: the scoped address is its 16 bytes. */
	assert_non_null(buf = malloc(512));
	assert_int_equal(layout_hostent(&a, AF_INET6, &h, buf, 512), 0);
	assert_int_equal(h.h_length, 16);
	assert_memory_equal(h.h_addr_list[0], v6, 16);
	assert_int_equal((uint8_t)h.h_addr_list[1][0], 0xfe);
	assert_null(h.h_addr_list[2]);
	free(buf);
}

static void
test_no_address(void **state)
{
	struct proto_answer_wr	 aw;
	struct proto_answer	 a;
	struct proto_wr		 w;
	struct gaih_addrtuple	*pat = NULL;
	struct hostent		 h;
	char			 buf[256];

	(void)state;
	proto_wr_init(&w, body, sizeof(body));
	proto_answer_begin(&aw, &w, 60, PROTO_SRC_DNS, "v6only.example", 14);
	proto_answer_addr(&aw, PROTO_AF_INET6, v6);
	assert_int_equal(proto_answer_end(&aw), 0);
	assert_int_equal(proto_answer_decode(body, w.off, &a), 0);
	assert_int_equal(layout_hostent(&a, AF_INET, &h, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(layout_hostent(&a, AF_INET6, &h, buf, sizeof(buf)), 0);

	proto_wr_init(&w, body, sizeof(body));
	proto_answer_begin(&aw, &w, 60, PROTO_SRC_DNS, "none.example", 12);
	assert_int_equal(proto_answer_end(&aw), 0);
	assert_int_equal(proto_answer_decode(body, w.off, &a), 0);
	assert_int_equal(layout_gaih(&a, &pat, buf, sizeof(buf)), -ENOENT);
	assert_null(pat);
}

/* Bytes changed after the decode: fewer addresses, a longer alias. */
static void
test_changed_after_decode(void **state)
{
	struct proto_answer	 a;
	struct gaih_addrtuple	*pat = NULL;
	struct hostent		 h;
	size_t			 fam0 = 10 + 2 + 11, alias0;
	char			*buf;
	size_t			 len;

	(void)state;
	answer(&a);
	alias0 = (size_t)(a.aliases - body);
	len = 4 * sizeof(struct gaih_addrtuple) + 12;
	assert_non_null(buf = malloc(len));
	/* IPv4 read as IPv6: the walk ends early, and the layout says so. */
	body[fam0] = PROTO_AF_INET6;
	assert_int_equal(layout_gaih(&a, &pat, buf, len), -EBADMSG);
	assert_null(pat);
	body[fam0] = PROTO_AF_INET;
	assert_int_equal(layout_gaih(&a, &pat, buf, len), 0);
	free(buf);

	/* "www" made 250 bytes long: past the body, so no alias at all. */
	assert_non_null(buf = malloc(256));
	body[alias0 + 1] = 250;
	assert_int_equal(layout_hostent(&a, AF_INET, &h, buf, 256), 0);
	assert_null(h.h_aliases[0]);
	/* "w" made 3 long ("w" and 2 bytes past it would be out of the body). */
	body[alias0 + 1] = 3;
	body[alias0 + 2 + 3 + 1] = 3;
	assert_int_equal(layout_hostent(&a, AF_INET, &h, buf, 256), 0);
	assert_string_equal(h.h_aliases[0], "www");
	assert_null(h.h_aliases[1]);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gaih),
		cmocka_unit_test(test_hostent),
		cmocka_unit_test(test_no_address),
		cmocka_unit_test(test_changed_after_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
