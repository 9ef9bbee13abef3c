/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nomem-parsers.c - the daemon's files read with each allocation failing in turn. */

/*
 * namecached.conf, the hosts file, nsswitch.conf: each read with
 * allocation 1, 2, ... failing (nomem.h), until a read reaches none.
 * A read ends in -ENOMEM (the daemon then keeps what it had), or in
 * success with everything the file says: never with part of the file
 * taken for the whole of it, nor a crash or a leak.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "hosts.h"
#include "nsswitch.h"
#include "proto.h"
#include "nomem.h"

static char	dir[64];
static char	path[128];

static void
write_file(const char *text)
{
	FILE *f;

	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A clean failure: -ENOMEM, once the failure was made. */
static void
nomem_only(int r)
{
	assert_int_equal(r, -ENOMEM);
	assert_true(nomem_failed());
}

static const char conf_text[] =
    "# a namecached.conf\n"
    "cache_size = 1234\n"
    "min_ttl = 7\n"
    "max_ttl = 7000\n"
    "upstream = 127.0.0.1:5353 [::1]:53\n"
    "nscd_uncached_modules = systemd ldap\n"
    "dns_listen = 127.0.0.1:5300\n"
    "dns_allow = 10.0.0.0/8\n"
    "admin_group = \n"
    "log_queries = yes\n";

static void
read_conf(void)
{
	struct config	*c = NULL;
	char		*err = NULL;
	int		 r;

	if ((r = config_load(path, true, &c, &err)) < 0) {
		nomem_only(r);
		free(err);
		assert_null(c);
		return;
	}
	assert_null(err);
	assert_int_equal(c->cache_size, 1234);
	assert_int_equal(c->min_ttl, 7);
	assert_int_equal(c->max_ttl, 7000);
	assert_int_equal(c->nservers, 2);
	assert_string_equal(c->nscd_uncached_modules, "systemd ldap");
	assert_int_equal(c->ndns_addrs, 1);
	assert_true(c->log_queries);
	config_free(c);
}

/* 300 lines: the index grows; aliases, IPv6, comments. */
static char	*hosts_text;

static void
make_hosts(void)
{
	size_t	cap = 64 * 1024, off = 0;
	int	i;

	assert_non_null(hosts_text = malloc(cap));
	off += (size_t)snprintf(hosts_text + off, cap - off,
	    "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# a comment\n");
	for (i = 0; i < 300; i++)
		off += (size_t)snprintf(hosts_text + off, cap - off,
		    "10.%d.%d.1 h%d.example h%d alias%d # host %d\n"
		    "fd00::%x h%d.example\n", i / 250, i % 250, i, i, i, i, i, i);
}

static void
found(const struct hosts *h, const char *name, int family)
{
	uint8_t		buf[4096];
	struct proto_wr	w;

	proto_wr_init(&w, buf, sizeof(buf));
	assert_int_equal(hosts_lookup_name(h, name, family, &w), 1);
}

static void
read_hosts(void)
{
	struct hosts	*h;
	uint8_t		 a[4] = { 10, 0, 7, 1 }, buf[4096];
	struct proto_wr	 w;
	int		 r;

	if ((r = hosts_load(path, HOSTS_MULTI, &h, NULL)) < 0) {
		nomem_only(r);
		return;
	}
	found(h, "localhost", PROTO_AF_INET);
	found(h, "h0.example", PROTO_AF_UNSPEC);
	found(h, "h299.example", PROTO_AF_INET6);
	found(h, "alias150", PROTO_AF_INET);
	proto_wr_init(&w, buf, sizeof(buf));
	assert_int_equal(hosts_lookup_addr(h, PROTO_AF_INET, a, &w), 1);
	hosts_free(h);
}

static void
read_nsswitch(void)
{
	struct nsw_line	 l;
	char		 text[256];
	bool		 was_found;
	FILE		*f;
	int		 r;

	assert_non_null(f = fopen(path, "re"));
	r = nsw_parse_file(f, &l, &was_found);
	fclose(f);
	if (r < 0) {
		nomem_only(r);
		return;
	}
	assert_true(was_found);
	nsw_format(&l, text, sizeof(text));
	assert_string_equal(text, "files mymachines [NOTFOUND=return] dns");
}

static void
every_failure(const char *what, const char *text, void (*read)(void))
{
	long n, count;

	snprintf(dir, sizeof(dir), "/tmp/nc-nomem-parsers-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/file", dir);
	write_file(text);
	for (n = 1; ; n++) {
		nomem_arm(n);
		read();
		count = nomem_count();
		nomem_arm(0);
		if (count < n)
			break;
	}
	unlink(path);
	rmdir(dir);
	print_message("%s: %ld allocations, each failed in turn\n", what, n - 1);
	assert_true(n > 1);
	assert_int_equal(nomem_leaks(), 0);
}

static void
test_conf(void **state)
{
	every_failure("namecached.conf", conf_text, read_conf);
}

static void
test_hosts(void **state)
{
	make_hosts();
	every_failure("hosts file", hosts_text, read_hosts);
	free(hosts_text);
}

static void
test_nsswitch(void **state)
{
	every_failure("nsswitch.conf", "passwd: files\n"
	    "hosts: files mymachines [NOTFOUND=return] dns\n"
	    "group: files\n", read_nsswitch);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_nsswitch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
