/* SPDX-License-Identifier: MIT */
/* tests/unit/test-ttl.c - unit tests of the refresh rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ttl.h"

#define S	TTL_NS_PER_SEC
#define MS	TTL_NS_PER_MS

/* The last tenth, its edge included. */
static void
test_last_tenth(void **state)
{
	assert_false(ttl_refresh_due(300 * S, 300, 0));
	assert_false(ttl_refresh_due(30 * S + 1, 300, 0));
	assert_true(ttl_refresh_due(30 * S, 300, 0));
	assert_true(ttl_refresh_due(1, 300, 0));
	/* A tenth of a second of one second. */
	assert_false(ttl_refresh_due(100 * MS + 1, 1, 0));
	assert_true(ttl_refresh_due(100 * MS, 1, 0));
	/* A TTL that is not a multiple of ten. */
	assert_true(ttl_refresh_due(700 * MS, 7, 0));
	assert_false(ttl_refresh_due(700 * MS + 1, 7, 0));
}

/* Expired is a miss, not a refresh. */
static void
test_expired(void **state)
{
	assert_false(ttl_refresh_due(0, 300, 0));
	assert_false(ttl_refresh_due(-1, 300, 0));
	assert_false(ttl_refresh_due(-5 * S, 300, 2 * S));
	assert_false(ttl_refresh_due(INT64_MIN, 300, 2 * S));
}

/* TTL 0: never due before it is gone, unless a window says so. */
static void
test_ttl_zero(void **state)
{
	assert_false(ttl_refresh_due(1, 0, 0));
	assert_true(ttl_refresh_due(1, 0, 1500 * MS));
}

/* The sweeper's window: the last 1.5 s when a tenth is shorter. */
static void
test_window(void **state)
{
	/* 5 s: a tenth is 0.5 s, the window 1.5 s. */
	assert_true(ttl_refresh_due(1500 * MS, 5, 1500 * MS));
	assert_false(ttl_refresh_due(1500 * MS + 1, 5, 1500 * MS));
	assert_false(ttl_refresh_due(1500 * MS, 5, 0));
	/* 600 s: the tenth is the longer. */
	assert_true(ttl_refresh_due(60 * S, 600, 1500 * MS));
	assert_false(ttl_refresh_due(60 * S + 1, 600, 1500 * MS));
}

/* No overflow at the ends: a record that never expires, the largest TTL. */
static void
test_extremes(void **state)
{
	assert_false(ttl_refresh_due(INT64_MAX, UINT32_MAX, 0));
	assert_false(ttl_refresh_due(INT64_MAX, 0, 1500 * MS));
	assert_true(ttl_refresh_due((int64_t)UINT32_MAX * (S / 10), UINT32_MAX, 0));
	assert_false(ttl_refresh_due((int64_t)UINT32_MAX * (S / 10) + 1, UINT32_MAX, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_tenth),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_ttl_zero),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
