/* SPDX-License-Identifier: MIT */
/* tests/unit/test-hash.c - unit tests of the two hashes. */

/*
 * SipHash-1-3's expected values: with the key 00..0f and the messages
 * 00 01 02 .. of each length, as in the reference vectors' layout (the
 * first ones are those of Rust's SipHasher13 tests); with the zero key,
 * CPython 3.11's hash() of bytes under PYTHONHASHSEED=0, which is
 * SipHash-1-3 keyed with zeros.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hash.h"

static void
test_siphash13_vectors(void **state)
{
	static const struct { size_t len; uint64_t h; } v[] = {
		{ 0,  0xabac0158050fc4dcULL },
		{ 1,  0xc9f49bf37d57ca93ULL },
		{ 7,  0xd3927d989bb11140ULL },
		{ 8,  0x369095118d299a8eULL },
		{ 15, 0xd320d86d2a519956ULL },
		{ 16, 0xcc4fdd1a7d908b66ULL },
		{ 63, 0x9d199062b7bbb3a8ULL },
	};
	const uint64_t	k[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	uint8_t		msg[64];
	size_t		i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(hash_siphash13(k, msg, v[i].len), v[i].h);
}

static void
test_siphash13_zero_key(void **state)
{
	static const uint64_t	zero[2] = { 0, 0 };
	uint8_t			msg[64];
	size_t			i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	assert_int_equal(hash_siphash13(zero, "siphash", 7), 0x8264ceeccb16bcbeULL);
	assert_int_equal(hash_siphash13(zero, "digest-sip_hash", 15),
	    0xce31007e34130c0aULL);
	assert_int_equal(hash_siphash13(zero, "a", 1), 0x407448d2b89b1813ULL);
	assert_int_equal(hash_siphash13(zero, "01234567", 8), 0xda3dcedf84ea6cc6ULL);
	/* Every length of a last partial word, 2 to 6 (and 1, 7 above). */
	assert_int_equal(hash_siphash13(zero, msg, 2), 0x010bac45c41e3669ULL);
	assert_int_equal(hash_siphash13(zero, msg, 3), 0x4d4c9a4a8ef6e0adULL);
	assert_int_equal(hash_siphash13(zero, msg, 4), 0x7cc43f98813e4dbdULL);
	assert_int_equal(hash_siphash13(zero, msg, 5), 0x5abe2169dff36275ULL);
	assert_int_equal(hash_siphash13(zero, msg, 6), 0xe3c25f87624f1cdbULL);
	assert_int_equal(hash_siphash13(zero, msg, 9), 0x75927f9d95124362ULL);
	assert_int_equal(hash_siphash13(zero, msg, 10), 0xaf9f77a65ab51a1dULL);
	assert_int_equal(hash_siphash13(zero, msg, 11), 0xfe64ce8b6617fcffULL);
	assert_int_equal(hash_siphash13(zero, msg, 12), 0xa6baf4fb0f9fe1c2ULL);
	assert_int_equal(hash_siphash13(zero, msg, 13), 0xa0cf3211850f8e0dULL);
	assert_int_equal(hash_siphash13(zero, msg, 14), 0x7f86049379fbfe67ULL);
	assert_int_equal(hash_siphash13(zero, msg, 15), 0xf30eb725bb91c9eaULL);
	assert_int_equal(hash_siphash13(zero, msg, 16), 0x8972188433a5c5b7ULL);
	assert_int_equal(hash_siphash13(zero, msg, 64), 0x75e05fd5bbc870c6ULL);
}

/* The data need not be aligned, and only len bytes are read. */
static void
test_siphash13_unaligned(void **state)
{
	const uint64_t	k[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	uint8_t		buf[80];
	size_t		i, off;

	for (off = 0; off < 8; off++) {
		memset(buf, 0xee, sizeof(buf));
		for (i = 0; i < 63; i++)
			buf[off + i] = (uint8_t)i;
		assert_int_equal(hash_siphash13(k, buf + off, 63), 0x9d199062b7bbb3a8ULL);
	}
	/* The key matters. */
	assert_int_not_equal(hash_siphash13((const uint64_t[2]){ 1, 0 }, "a", 1),
	    hash_siphash13((const uint64_t[2]){ 0, 0 }, "a", 1));
}

/* 64-bit FNV-1a's published values (Fowler, Noll, Vo). */
static void
test_fnv1a(void **state)
{
	assert_int_equal(hash_fnv1a(HASH_FNV1A_INIT, "", 0), 0xcbf29ce484222325ULL);
	assert_int_equal(hash_fnv1a(HASH_FNV1A_INIT, "a", 1), 0xaf63dc4c8601ec8cULL);
	assert_int_equal(hash_fnv1a(HASH_FNV1A_INIT, "foobar", 6),
	    0x85944171f73967e8ULL);
	/* Running: in two parts as in one. */
	assert_int_equal(hash_fnv1a(hash_fnv1a(HASH_FNV1A_INIT, "foo", 3), "bar", 3),
	    0x85944171f73967e8ULL);
}

static void
test_fnv1a_fold(void **state)
{
	assert_int_equal(hash_fnv1a_fold(HASH_FNV1A_INIT, "FooBar", 6),
	    hash_fnv1a(HASH_FNV1A_INIT, "foobar", 6));
	assert_int_equal(hash_fnv1a_fold(HASH_FNV1A_INIT, "@[`{", 4),
	    hash_fnv1a(HASH_FNV1A_INIT, "@[`{", 4));
	assert_int_not_equal(hash_fnv1a(HASH_FNV1A_INIT, "FooBar", 6),
	    hash_fnv1a(HASH_FNV1A_INIT, "foobar", 6));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash13_vectors),
		cmocka_unit_test(test_siphash13_zero_key),
		cmocka_unit_test(test_siphash13_unaligned),
		cmocka_unit_test(test_fnv1a),
		cmocka_unit_test(test_fnv1a_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
