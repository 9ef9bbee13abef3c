/* SPDX-License-Identifier: MIT */
/* tests/unit/test-rd.c - unit tests of the one reader of untrusted bytes (proto/rd.h). */

/*
 * Each bad read is made at the very end of a heap buffer of exactly its
 * size, so that a reader that looked one byte too far is an ASan report
 * as well as a failed assertion.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rd.h"

static const uint8_t b[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };

/* The first len bytes of b, alone in a heap buffer of that size. */
static uint8_t *
heap_copy(size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, b, len);
	return p;
}

static void
test_reader(void **state)
{
	struct rd	rd;

	rd_init(&rd, b, sizeof(b));
	assert_int_equal(rd_u8(&rd), 0x01);
	assert_int_equal(rd_u16(&rd), 0x0203);
	assert_int_equal(rd_u32(&rd), 0x04050607);
	assert_true(rd_u64(&rd) == 0x08090a0b0c0d0e0fULL);
	assert_int_equal(rd.err, 0);
	assert_int_equal(rd.off, sizeof(b));
	assert_non_null(rd_bytes(&rd, 0));
	assert_int_equal(rd.err, 0);

	/* Past the end: 0 and a sticky error, the cursor left where it was. */
	assert_int_equal(rd_u8(&rd), 0);
	assert_int_equal(rd.err, -EBADMSG);
	assert_int_equal(rd.off, sizeof(b));

	rd_init(&rd, b, 3);
	assert_int_equal(rd_u32(&rd), 0);
	assert_int_equal(rd.err, -EBADMSG);
	/* Sticky: a field that would fit still fails. */
	assert_int_equal(rd_u8(&rd), 0);
	assert_null(rd_bytes(&rd, 1));
	assert_int_equal(rd.err, -EBADMSG);

	rd_init(&rd, b, 7);
	assert_true(rd_u64(&rd) == 0);
	assert_int_equal(rd.err, -EBADMSG);

	rd_init(&rd, b, 1);
	assert_int_equal(rd_u16(&rd), 0);
	assert_int_equal(rd.err, -EBADMSG);

	rd_init(&rd, b, 4);
	assert_null(rd_bytes(&rd, 5));
	assert_int_equal(rd.err, -EBADMSG);
	rd_init(&rd, b, 4);
	assert_null(rd_bytes(&rd, SIZE_MAX));
	assert_int_equal(rd.err, -EBADMSG);
}

/* Big-endian, whatever the host's order. */
static void
test_big_endian(void **state)
{
	static const uint8_t ff[] = { 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8 };
	struct rd	rd;

	rd_init(&rd, ff, sizeof(ff));
	assert_int_equal(rd_u16(&rd), 0xfffe);
	rd_init(&rd, ff, sizeof(ff));
	assert_true(rd_u32(&rd) == 0xfffefdfcU);
	rd_init(&rd, ff, sizeof(ff));
	assert_true(rd_u64(&rd) == 0xfffefdfcfbfaf9f8ULL);
	assert_true(rd_done(&rd));
}

/*
 * Every getter, one byte short of its field, at the end of the buffer:
 * 0, -EBADMSG, the cursor where it was; and every getter after that
 * fails, even one that would fit.
 */
static void
test_each_getter_short(void **state)
{
	static const size_t	 sizes[] = { 1, 2, 4, 8, 3 };
	struct rd		 rd;
	uint8_t			*p;
	size_t			 i, k, at;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (at = 0; at + sizes[i] <= sizeof(b); at++) {
			p = heap_copy(at + sizes[i] - 1);
			rd_init(&rd, p, at + sizes[i] - 1);
			assert_non_null(rd_bytes(&rd, at));
			switch (sizes[i]) {
			case 1:	assert_int_equal(rd_u8(&rd), 0); break;
			case 2:	assert_int_equal(rd_u16(&rd), 0); break;
			case 4:	assert_true(rd_u32(&rd) == 0); break;
			case 8:	assert_true(rd_u64(&rd) == 0); break;
			default: assert_null(rd_bytes(&rd, sizes[i])); break;
			}
			assert_int_equal(rd.err, -EBADMSG);
			assert_int_equal(rd.off, at);
			assert_false(rd_done(&rd));

			/* Sticky: a smaller field, or none at all, fails now. */
			assert_int_equal(rd_u8(&rd), 0);
			assert_null(rd_bytes(&rd, 0));
			rd_seek(&rd, 0);
			assert_int_equal(rd.off, at);
			for (k = 0; k < 2; k++)
				assert_int_equal(rd_u16(&rd), 0);
			assert_int_equal(rd.err, -EBADMSG);
			free(p);
		}
	}
}

/* A span is checked against what is left, not against the start. */
static void
test_span(void **state)
{
	struct rd	 rd;
	uint8_t		*p = heap_copy(sizeof(b));

	rd_init(&rd, p, sizeof(b));
	assert_ptr_equal(rd_bytes(&rd, 5), p);
	assert_int_equal(rd_left(&rd), sizeof(b) - 5);
	assert_ptr_equal(rd_bytes(&rd, sizeof(b) - 5), p + 5);
	assert_true(rd_done(&rd));
	assert_int_equal(rd_left(&rd), 0);

	/* One too many, and the wrap-around cases an adding check would miss. */
	rd_init(&rd, p, sizeof(b));
	rd_bytes(&rd, 5);
	assert_null(rd_bytes(&rd, sizeof(b) - 4));
	assert_int_equal(rd.err, -EBADMSG);
	assert_int_equal(rd.off, 5);
	rd_init(&rd, p, sizeof(b));
	rd_bytes(&rd, 5);
	assert_null(rd_bytes(&rd, SIZE_MAX - 4));
	assert_int_equal(rd.off, 5);
	rd_init(&rd, p, sizeof(b));
	rd_bytes(&rd, 1);
	assert_null(rd_bytes(&rd, SIZE_MAX));
	assert_int_equal(rd.err, -EBADMSG);

	/* The span ends the reader's view, not the buffer: a cut message. */
	rd_init(&rd, p, 4);
	assert_null(rd_bytes(&rd, 5));
	assert_int_equal(rd.err, -EBADMSG);
	free(p);
}

/* Seek, as DNS compression pointers need: anywhere up to len, not past it. */
static void
test_seek(void **state)
{
	struct rd	 rd;
	uint8_t		*p = heap_copy(sizeof(b));

	rd_init(&rd, p, sizeof(b));
	rd_seek(&rd, 12);
	assert_int_equal(rd_u16(&rd), 0x0d0e);
	rd_seek(&rd, 2);			/* backwards */
	assert_int_equal(rd_u8(&rd), 0x03);
	rd_seek(&rd, sizeof(b));		/* the end itself: nothing left */
	assert_int_equal(rd.err, 0);
	assert_true(rd_done(&rd));
	assert_int_equal(rd_u8(&rd), 0);
	assert_int_equal(rd.err, -EBADMSG);

	/* Past the end: the error, the cursor where it was. */
	rd_init(&rd, p, sizeof(b));
	rd_u8(&rd);
	rd_seek(&rd, sizeof(b) + 1);
	assert_int_equal(rd.err, -EBADMSG);
	assert_int_equal(rd.off, 1);
	/* And sticky: a seek back does not clear it. */
	rd_seek(&rd, 0);
	assert_int_equal(rd.err, -EBADMSG);
	assert_int_equal(rd_u8(&rd), 0);

	rd_init(&rd, p, sizeof(b));
	rd_seek(&rd, SIZE_MAX);
	assert_int_equal(rd.err, -EBADMSG);
	assert_int_equal(rd.off, 0);

	/* The view, not the buffer: a seek inside the buffer but past len fails. */
	rd_init(&rd, p, 4);
	rd_seek(&rd, 5);
	assert_int_equal(rd.err, -EBADMSG);
	free(p);
}

/* rd_done: every byte read and no error; a failed read is never done. */
static void
test_done(void **state)
{
	struct rd rd;

	rd_init(&rd, b, 0);
	assert_true(rd_done(&rd));
	assert_int_equal(rd_left(&rd), 0);

	rd_init(&rd, b, 3);
	rd_u16(&rd);
	assert_false(rd_done(&rd));		/* a byte left */
	assert_int_equal(rd_left(&rd), 1);
	rd_u16(&rd);
	assert_false(rd_done(&rd));		/* an error */
	assert_int_equal(rd_left(&rd), 1);
	rd_u8(&rd);
	assert_false(rd_done(&rd));		/* sticky: still the error */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_each_getter_short),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
