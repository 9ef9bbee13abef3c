/* SPDX-License-Identifier: MIT */
/* tests/unit/test-search.c - the names a search tries, in glibc's res_nsearch order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "search.h"

static char	out[SEARCH_NAMES_MAX][PROTO_NAME_MAX + 2];

static void
test_short_name_domains_first(void **state)
{
	const char	*dom[] = { "one.test", "two.test", NULL };
	bool		 asis;

	assert_int_equal(search_names("x", dom, 1, out, &asis), 3);
	assert_false(asis);
	assert_string_equal(out[0], "x.one.test");
	assert_string_equal(out[1], "x.two.test");
	assert_string_equal(out[2], "x");
	assert_false(search_single("x", dom));
}

static void
test_ndots_name_as_is_first(void **state)
{
	const char	*dom[] = { "one.test", NULL };
	bool		 asis;

	assert_int_equal(search_names("a.b", dom, 1, out, &asis), 2);
	assert_true(asis);
	assert_string_equal(out[0], "a.b");
	assert_string_equal(out[1], "a.b.one.test");
	/* ndots 2: one dot is not enough. */
	assert_int_equal(search_names("a.b", dom, 2, out, &asis), 2);
	assert_false(asis);
	assert_string_equal(out[0], "a.b.one.test");
	assert_string_equal(out[1], "a.b");
}

static void
test_trailing_dot_alone(void **state)
{
	const char	*dom[] = { "one.test", NULL };
	bool		 asis;

	assert_int_equal(search_names("abs.test.", dom, 1, out, &asis), 1);
	assert_true(asis);
	assert_string_equal(out[0], "abs.test");
	assert_true(search_single("abs.test.", dom));
}

static void
test_no_domains_single(void **state)
{
	const char	*dom[] = { NULL };
	bool		 asis;

	assert_int_equal(search_names("x", dom, 1, out, &asis), 1);
	assert_string_equal(out[0], "x");
	assert_true(search_single("x", dom));
}

static void
test_too_long_left_out(void **state)
{
	char		 name[PROTO_NAME_MAX + 1];
	const char	*dom[] = { "one.test", NULL };
	bool		 asis;

	memset(name, 'a', 250);
	name[250] = '\0';
	/* name.one.test would pass 253: only the name as asked is tried. */
	assert_int_equal(search_names(name, dom, 1, out, &asis), 1);
	assert_string_equal(out[0], name);
	assert_true(search_single(name, dom));
}

static void
test_at_most_max(void **state)
{
	const char	*dom[] = { "a", "b", "c", "d", "e", "f", "g", "h", NULL };
	bool		 asis;

	assert_int_equal(search_names("x", dom, 1, out, &asis), SEARCH_NAMES_MAX);
	assert_string_equal(out[SEARCH_NAMES_MAX - 1], "x");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_name_domains_first),
		cmocka_unit_test(test_ndots_name_as_is_first),
		cmocka_unit_test(test_trailing_dot_alone),
		cmocka_unit_test(test_no_domains_single),
		cmocka_unit_test(test_too_long_left_out),
		cmocka_unit_test(test_at_most_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
