/* SPDX-License-Identifier: MIT */
/* tests/unit/test-resolvconf.c - glibc's timeout: and attempts: read from resolv.conf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "resolvconf.h"

static void
parse(const char *text, int *t, int *a)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	resolvconf_timeouts(f, t, a);
	fclose(f);
}

static void
test_defaults(void **state)
{
	int t, a;

	resolvconf_timeouts(NULL, &t, &a);
	assert_int_equal(t, 5000);
	assert_int_equal(a, 2);
	parse("nameserver 127.0.0.1\nsearch example.com\n", &t, &a);
	assert_int_equal(t, 5000);
	assert_int_equal(a, 2);
}

static void
test_options(void **state)
{
	int t, a;

	parse("options ndots:2 timeout:1 attempts:3\n", &t, &a);
	assert_int_equal(t, 1000);
	assert_int_equal(a, 3);
	/* A later option wins; glibc's caps and floor. */
	parse("options timeout:2\noptions timeout:99 attempts:0\n", &t, &a);
	assert_int_equal(t, 30000);
	assert_int_equal(a, 1);
	parse("options attempts:9 timeout:0\n", &t, &a);
	assert_int_equal(t, 1000);
	assert_int_equal(a, 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
