/* SPDX-License-Identifier: MIT */
/* tests/unit/test-name.c - unit tests of the one case fold of names. */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "name.h"

/* Every byte: A-Z go to a-z, and nothing else moves. */
static void
test_fold_char(void **state)
{
	unsigned c;

	for (c = 0; c < 256; c++) {
		uint8_t want = c >= 'A' && c <= 'Z' ? (uint8_t)(c - 'A' + 'a') : (uint8_t)c;

		assert_int_equal(name_fold_char((uint8_t)c), want);
	}
	/* The neighbours of the range stay. */
	assert_int_equal(name_fold_char('@'), '@');
	assert_int_equal(name_fold_char('['), '[');
	assert_int_equal(name_fold_char('`'), '`');
	assert_int_equal(name_fold_char('{'), '{');
	assert_int_equal(name_fold_char(0xc9), 0xc9);	/* Latin-1 E acute */
}

static void
test_fold(void **state)
{
	char buf[32];
	const char *s = "Mixed.CASE-Name_9.\xc9x";

	errno = 1234;
	name_fold(buf, s, strlen(s) + 1);
	assert_string_equal(buf, "mixed.case-name_9.\xc9x");
	assert_int_equal(errno, 1234);
	/* In place. */
	strcpy(buf, "ABC");
	name_fold(buf, buf, 3);
	assert_string_equal(buf, "abc");
	/* Nothing: nothing written. */
	memset(buf, 'Q', sizeof(buf));
	name_fold(buf, "X", 0);
	assert_int_equal(buf[0], 'Q');
}

static void
test_eq_fold(void **state)
{
	assert_true(name_eq_fold("Example.COM", "example.com", 11));
	assert_true(name_eq_fold("", "", 0));
	assert_true(name_eq_fold("abc", "abd", 2));		/* len bytes only */
	assert_false(name_eq_fold("example.com", "examp1e.com", 11));
	/* '@' and '`' are 0x20 apart as 'A' and 'a' are, and still differ. */
	assert_false(name_eq_fold("@", "`", 1));
	assert_false(name_eq_fold("[", "{", 1));
	/* Bytes past ASCII are compared as they are. */
	assert_false(name_eq_fold("\xc9", "\xe9", 1));
	assert_true(name_eq_fold("\xc9", "\xc9", 1));
	/* NUL is a byte like another. */
	assert_true(name_eq_fold("a\0B", "A\0b", 3));
	assert_false(name_eq_fold("a\0b", "a\0c", 3));
}

static void
test_streq_fold(void **state)
{
	assert_true(name_streq_fold("LocalHost", "localhost"));
	assert_true(name_streq_fold("", ""));
	assert_false(name_streq_fold("localhost", "localhost."));
	assert_false(name_streq_fold("localhost.", "localhost"));
	assert_false(name_streq_fold("", "a"));
	assert_false(name_streq_fold("@", "`"));
	assert_false(name_streq_fold("\xc9", "\xe9"));
}

static void
test_cmp_fold(void **state)
{
	assert_int_equal(name_cmp_fold("ABC", 3, "abc", 3), 0);
	assert_int_equal(name_cmp_fold("abc", 3, "abd", 3), -1);
	assert_int_equal(name_cmp_fold("ABD", 3, "abc", 3), 1);
	/* A prefix first. */
	assert_int_equal(name_cmp_fold("ab", 2, "abc", 3), -1);
	assert_int_equal(name_cmp_fold("ABC", 3, "ab", 2), 1);
	assert_int_equal(name_cmp_fold("", 0, "", 0), 0);
	/* Folded before ordering: 'Z' is 'z', after '_' (0x5f), unlike raw. */
	assert_int_equal(name_cmp_fold("Z", 1, "_", 1), 1);
	/* Unsigned bytes: 0xc9 after 'z'. */
	assert_int_equal(name_cmp_fold("\xc9", 1, "z", 1), 1);
}

/*
 * The locale does not move the fold: in a Turkish locale, strcasecmp
 * may fold 'I' to a dotless i; names never do.
 */
static void
test_locale(void **state)
{
	const char *const locs[] = { "tr_TR.ISO-8859-9", "tr_TR.UTF-8", "C.UTF-8" };
	size_t i;

	for (i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
		if (setlocale(LC_ALL, locs[i]) == NULL)
			continue;
		assert_true(name_eq_fold("INFO", "info", 4));
		assert_int_equal(name_fold_char('I'), 'i');
		assert_false(name_eq_fold("\xdd", "i", 1));
	}
	setlocale(LC_ALL, "C");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_char),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_eq_fold),
		cmocka_unit_test(test_streq_fold),
		cmocka_unit_test(test_cmp_fold),
		cmocka_unit_test(test_locale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
