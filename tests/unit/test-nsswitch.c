/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nsswitch.c - unit tests of the hosts: line parser (glibc's grammar). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nsswitch.h"

#define C	NSW_CONTINUE
#define R	NSW_RETURN

static void
expect_src(const struct nsw_line *l, unsigned i, const char *name, int s, int nf,
    int ua, int ta)
{
	assert_true(i < l->n);
	assert_string_equal(l->src[i].name, name);
	assert_int_equal(l->src[i].action[NSW_SUCCESS], s);
	assert_int_equal(l->src[i].action[NSW_NOTFOUND], nf);
	assert_int_equal(l->src[i].action[NSW_UNAVAIL], ua);
	assert_int_equal(l->src[i].action[NSW_TRYAGAIN], ta);
}

static void
test_defaults(void **state)
{
	struct nsw_line l;

	assert_int_equal(nsw_parse_services("files dns", &l), 0);
	assert_int_equal(l.n, 2);
	expect_src(&l, 0, "files", R, C, C, C);
	expect_src(&l, 1, "dns", R, C, C, C);
	nsw_default(&l);
	assert_int_equal(l.n, 2);
	expect_src(&l, 0, "dns", R, R, C, R);	/* [!UNAVAIL=return] */
	expect_src(&l, 1, "files", R, C, C, C);
}

static void
test_actions(void **state)
{
	struct nsw_line l;

	/* Debian's desktop line, Fedora's, with namecache first. */
	assert_int_equal(nsw_parse_services("namecache [!UNAVAIL=return] files "
	    "mdns4_minimal [NOTFOUND=return] dns myhostname", &l), 0);
	assert_int_equal(l.n, 5);
	expect_src(&l, 0, "namecache", R, R, C, R);
	expect_src(&l, 2, "mdns4_minimal", R, R, C, C);
	assert_int_equal(nsw_drop(&l, "namecache"), 1);
	assert_int_equal(l.n, 4);
	expect_src(&l, 0, "files", R, C, C, C);
	expect_src(&l, 1, "mdns4_minimal", R, R, C, C);
	expect_src(&l, 3, "myhostname", R, C, C, C);

	/* Case, blanks inside the brackets, several pairs, merge, !SUCCESS. */
	assert_int_equal(nsw_parse_services(" resolve[ notfound = Return  "
	    "TRYAGAIN=merge]files [!success=continue]", &l), 0);
	assert_int_equal(l.n, 2);
	expect_src(&l, 0, "resolve", R, R, C, NSW_MERGE);
	expect_src(&l, 1, "files", R, C, C, C);
	/* "!X=a" sets every other status, X keeps what it had. */
	assert_int_equal(nsw_parse_services("a [SUCCESS=continue !SUCCESS=return]", &l), 0);
	expect_src(&l, 0, "a", C, R, R, R);

	/* A '[' with no source before it ends the list, as in glibc. */
	assert_int_equal(nsw_parse_services("files [NOTFOUND=return] [x", &l), 0);
	assert_int_equal(l.n, 1);
	/* An empty list is a list with no source. */
	assert_int_equal(nsw_parse_services("   ", &l), 0);
	assert_int_equal(l.n, 0);
}

static void
test_rejected(void **state)
{
	static const char *const bad[] = {
		"files [NOTFOUND]",
		"files [NOTFOUND=maybe]",
		"files [FOUND=return]",
		"files [NOTFOUND=return",
		"files [=return]",
		"files [!=return]",
		"files [SUCCESS==return]",
	};
	struct nsw_line l, keep;
	size_t i;

	assert_int_equal(nsw_parse_services("files", &keep), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		l = keep;
		assert_int_equal(nsw_parse_services(bad[i], &l), -EINVAL);
		assert_true(nsw_equal(&l, &keep));	/* untouched */
	}
	/* Bounds: 16 sources, 63-byte names. */
	assert_int_equal(nsw_parse_services("a b c d e f g h i j k l m n o p", &l), 0);
	assert_int_equal(l.n, 16);
	assert_int_equal(nsw_parse_services("a b c d e f g h i j k l m n o p q", &l),
	    -E2BIG);
	assert_int_equal(nsw_parse_services(
	    "files xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", &l),
	    -E2BIG);
}

static void
test_file(void **state)
{
	static const char text[] =
	    "# /etc/nsswitch.conf\n"
	    "passwd:         files systemd\n"
	    "hosts:          files dns\n"
	    "sudoers: whatever [ this is not ours\n"
	    "  hosts   :: files myhostname\n"	/* the last one wins */
	    "hostsx: nope\n";
	struct nsw_line	 l;
	bool		 found;
	FILE		*f;

	assert_non_null(f = fmemopen((void *)text, sizeof(text) - 1, "r"));
	assert_int_equal(nsw_parse_file(f, &l, &found), 0);
	fclose(f);
	assert_true(found);
	assert_int_equal(l.n, 2);
	expect_src(&l, 1, "myhostname", R, C, C, C);

	/* No hosts line: glibc's default. */
	assert_non_null(f = fmemopen((void *)"passwd: files\n", 14, "r"));
	assert_int_equal(nsw_parse_file(f, &l, &found), 0);
	fclose(f);
	assert_false(found);
	assert_string_equal(l.src[0].name, "dns");

	/* A database's list glibc rejects makes the whole file fail. */
	assert_non_null(f = fmemopen((void *)"group: files [x=y]\nhosts: files\n", 31,
	    "r"));
	assert_int_equal(nsw_parse_file(f, &l, &found), -EINVAL);
	fclose(f);
}

static void
test_format(void **state)
{
	struct nsw_line	l;
	char		buf[256];

	assert_int_equal(nsw_parse_services("files mdns4_minimal [NOTFOUND=return] "
	    "resolve [!UNAVAIL=return] dns", &l), 0);
	nsw_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "files mdns4_minimal [NOTFOUND=return] resolve "
	    "[NOTFOUND=return TRYAGAIN=return] dns");
	/* It parses back to the same line. */
	{
		struct nsw_line again;

		assert_int_equal(nsw_parse_services(buf, &again), 0);
		assert_true(nsw_equal(&l, &again));
	}
	nsw_format(&l, buf, 8);
	assert_int_equal(strlen(buf), 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
