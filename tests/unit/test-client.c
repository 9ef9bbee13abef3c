/* SPDX-License-Identifier: MIT */
/* tests/unit/test-client.c - the client core's socket path: $NAMECACHE_SOCKET, read once per environment. */

/*
 * ncc_socket_path keeps what it read from the environment and reads it
 * again only when the environment changed (client.c says how it tells).
 * Every change a program makes through setenv, putenv, unsetenv, clearenv
 * or a new environ must be seen at the next call, as secure_getenv would
 * see it; an unchanged environment is not read again; and a path handed
 * out stays readable, unchanged, after the environment moves on.
 * client.c is compiled in with NCC_CLIENT_TESTING: it counts its reads of
 * the environment, and each test starts with nothing kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buildinfo.h"
#include "client.h"

#define VAR	"NAMECACHE_SOCKET"

/* What secure_getenv gives, as the library turns it into a path. */
static const char *
want(void)
{
	const char *p = secure_getenv(VAR);

	return p && *p ? p : NAMECACHE_SOCKET_PATH;
}

/* The path secure_getenv gives, and then the same again without a read. */
static void
same_at(int line)
{
	unsigned n;

	assert_string_equal(ncc_socket_path(), want());
	n = ncc_socket_path_test_reads();
	assert_string_equal(ncc_socket_path(), want());
	assert_string_equal(ncc_socket_path(), want());
	if (ncc_socket_path_test_reads() != n)
		fail_msg("line %d: read again", line);
}
#define same()	same_at(__LINE__)

static int
setup(void **state)
{
	(void)state;
	unsetenv(VAR);
	ncc_socket_path_test_reset();
	return 0;
}

static void
test_set_unset(void **state)
{
	(void)state;
	same();
	assert_string_equal(ncc_socket_path(), NAMECACHE_SOCKET_PATH);
	setenv(VAR, "/tmp/a/sock", 1);
	same();
	assert_string_equal(ncc_socket_path(), "/tmp/a/sock");
	setenv(VAR, "/tmp/b/sock", 1);
	same();
	setenv(VAR, "/tmp/a/sock", 1);		/* glibc gives back its first string */
	same();
	setenv(VAR, "", 1);
	same();
	assert_string_equal(ncc_socket_path(), NAMECACHE_SOCKET_PATH);
	unsetenv(VAR);
	same();
}

/* Other names set and unset around it: its place in environ moves. */
static void
test_others_move_it(void **state)
{
	(void)state;
	setenv("TEST_CLIENT_BEFORE", "1", 1);
	setenv(VAR, "/tmp/c/sock", 1);
	setenv("TEST_CLIENT_AFTER", "1", 1);
	same();
	unsetenv("TEST_CLIENT_BEFORE");		/* shifts it down one place */
	same();
	unsetenv("TEST_CLIENT_AFTER");
	same();
	/* Absent, then set while another goes: the same length as before. */
	unsetenv(VAR);
	setenv("TEST_CLIENT_OTHER", "1", 1);
	same();
	setenv(VAR, "/tmp/d/sock", 1);
	unsetenv("TEST_CLIENT_OTHER");
	same();
	assert_string_equal(ncc_socket_path(), "/tmp/d/sock");
	/* Present, then gone while another comes. */
	unsetenv(VAR);
	setenv("TEST_CLIENT_OTHER", "2", 1);
	same();
	unsetenv("TEST_CLIENT_OTHER");
}

/* A string given to putenv is the environment: changed in place, seen. */
static void
test_putenv_in_place(void **state)
{
	static char entry[] = VAR "=/tmp/e/sock";

	(void)state;
	assert_int_equal(putenv(entry), 0);
	same();
	entry[sizeof(VAR "=/tmp/") - 1] = 'f';
	same();
	assert_string_equal(ncc_socket_path(), "/tmp/f/sock");
	unsetenv(VAR);
	same();
}

/* A new environ, and none at all. */
static void
test_new_environ(void **state)
{
	static char	 a[] = "A=1", v[] = VAR "=/tmp/g/sock", b[] = "B=2";
	char		*mine[] = { a, v, b, NULL };
	char		*none[] = { NULL };
	char		**saved = environ;

	(void)state;
	environ = mine;
	same();
	assert_string_equal(ncc_socket_path(), "/tmp/g/sock");
	environ = none;
	same();
	environ = NULL;
	same();
	environ = saved;
	same();
	/* Eight environments are kept (client.c's NSOCKENV): start again. */
	ncc_socket_path_test_reset();
	{
		/* The same length and last entry, another array: read again. */
		static char	 l[] = "L=1", x[] = "X=1", w[] = VAR "=/tmp/m/sock";
		char		*one[] = { a, x, l, NULL };
		char		*two[] = { a, w, l, NULL, NULL };

		environ = one;
		same();
		environ = two;
		same();
		assert_string_equal(ncc_socket_path(), "/tmp/m/sock");
		/* Appended in place, as realloc may leave it: read again. */
		environ = one;
		same();
		two[1] = x;
		environ = two;
		same();
		two[3] = w;
		same();
		assert_string_equal(ncc_socket_path(), "/tmp/m/sock");
	}
	environ = saved;
	same();
}

/* clearenv drops the array; a set after it makes a new one. */
static void
test_clearenv(void **state)
{
	(void)state;
	setenv(VAR, "/tmp/h/sock", 1);
	same();
	clearenv();
	same();
	assert_string_equal(ncc_socket_path(), NAMECACHE_SOCKET_PATH);
	setenv(VAR, "/tmp/h/sock", 1);
	same();
	assert_string_equal(ncc_socket_path(), "/tmp/h/sock");
}

/* A path handed out stays as it was, whatever the environment does next. */
static void
test_kept_path_stays(void **state)
{
	const char	*p;
	char		 copy[64];

	(void)state;
	setenv(VAR, "/tmp/i/sock", 1);
	p = ncc_socket_path();
	snprintf(copy, sizeof(copy), "%s", p);
	setenv(VAR, "/tmp/j/sock", 1);
	same();
	assert_string_equal(p, copy);
}

/*
 * More environments than are kept, and a value too long to keep: still
 * right, read on every call.
 */
static void
test_many_and_long(void **state)
{
	char	value[600];
	int	i;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(value, sizeof(value), "/tmp/many%d/sock", i);
		setenv(VAR, value, 1);
		assert_string_equal(ncc_socket_path(), want());
		setenv("TEST_CLIENT_COUNT", value, 1);
		assert_string_equal(ncc_socket_path(), want());
	}
	ncc_socket_path_test_reset();
	memset(value, 'x', sizeof(value) - 1);
	value[0] = '/';
	value[sizeof(value) - 1] = '\0';
	setenv(VAR, value, 1);
	assert_string_equal(ncc_socket_path(), want());
	assert_string_equal(ncc_socket_path(), want());
	unsetenv(VAR);
	same();
}

/* Switching between two values finds the first one's record again. */
static void
test_switch_back(void **state)
{
	const char *a, *b;

	(void)state;
	setenv(VAR, "/tmp/k/sock", 1);
	a = ncc_socket_path();
	setenv(VAR, "/tmp/l/sock", 1);
	b = ncc_socket_path();
	assert_string_equal(b, "/tmp/l/sock");
	setenv(VAR, "/tmp/k/sock", 1);		/* glibc's string for it, again */
	assert_ptr_equal(ncc_socket_path(), a);
	setenv(VAR, "/tmp/l/sock", 1);
	assert_ptr_equal(ncc_socket_path(), b);
	same();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_set_unset, setup),
		cmocka_unit_test_setup(test_others_move_it, setup),
		cmocka_unit_test_setup(test_putenv_in_place, setup),
		cmocka_unit_test_setup(test_new_environ, setup),
		cmocka_unit_test_setup(test_clearenv, setup),
		cmocka_unit_test_setup(test_kept_path_stays, setup),
		cmocka_unit_test_setup(test_many_and_long, setup),
		cmocka_unit_test_setup(test_switch_back, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
