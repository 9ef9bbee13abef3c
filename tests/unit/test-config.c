/* SPDX-License-Identifier: MIT */
/* tests/unit/test-config.c - unit tests of the namecached.conf parser. */
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

#include "buildinfo.h"
#include "config.h"
#include "log.h"

/* A group name no system has. */
#define NO_GROUP	"namecache-test-no-such-group-4f1c"

static int
setup(void **state)
{
	struct config *c = config_new();

	if (c == NULL)
		return -1;
	*state = c;
	return 0;
}

static int
teardown(void **state)
{
	config_free(*state);
	return 0;
}

/*
 * Field by field: bytes past nservers and padding may be unset, so a
 * memcmp would read uninitialised memory.
 */
static void
assert_config_equal(const struct config *a, const struct config *b)
{
	unsigned i;

	assert_ptr_equal(a->socket, b->socket);
	assert_ptr_equal(a->hosts_file, b->hosts_file);
	assert_ptr_equal(a->resolv_conf, b->resolv_conf);
	assert_ptr_equal(a->upstream, b->upstream);
	assert_ptr_equal(a->admin_group, b->admin_group);
	assert_int_equal(a->nservers, b->nservers);
	for (i = 0; i < a->nservers; i++) {
		assert_int_equal(a->servers[i].family, b->servers[i].family);
		assert_memory_equal(a->servers[i].addr, b->servers[i].addr,
		    a->servers[i].family == AF_INET ? 4 : 16);
		assert_int_equal(a->servers[i].port, b->servers[i].port);
	}
	assert_int_equal(a->cache_size, b->cache_size);
	assert_int_equal(a->min_ttl, b->min_ttl);
	assert_int_equal(a->max_ttl, b->max_ttl);
	assert_int_equal(a->negative_max_ttl, b->negative_max_ttl);
	assert_int_equal(a->failure_ttl, b->failure_ttl);
	assert_int_equal(a->serve_stale, b->serve_stale);
	assert_int_equal(a->prefetch, b->prefetch);
	assert_int_equal(a->shared, b->shared);
	assert_int_equal(a->shared_size_mb, b->shared_size_mb);
	assert_int_equal(a->max_clients, b->max_clients);
	assert_int_equal(a->idle_timeout, b->idle_timeout);
	assert_int_equal(a->admin_gid, b->admin_gid);
	assert_int_equal(a->log_level, b->log_level);
}

/* Sets key to value, which must be accepted. */
static void
set_ok(struct config *c, const char *key, const char *value)
{
	char	*err = (char *)"not touched";
	int	 r;

	r = config_set(c, key, value, &err);
	if (r != 0)
		print_message("%s = '%s': %d (%s)\n", key, value, r,
		    err ? err : "no message");
	assert_int_equal(r, 0);
	assert_null(err);
}

/* Sets key to value, which must be refused with a message naming the key. */
static void
set_bad(struct config *c, const char *key, const char *value)
{
	struct config	 before;
	char		*err = NULL;
	int		 r;

	before = *c;
	r = config_set(c, key, value, &err);
	if (r != -EINVAL)
		print_message("%s = '%s': %d, want -EINVAL\n", key, value, r);
	assert_int_equal(r, -EINVAL);
	assert_non_null(err);
	assert_true(strlen(err) > 0);
	/* The message names the key, or for upstream the bad server. */
	if (strcmp(key, "upstream") != 0 && strstr(err, key) == NULL)
		print_message("message '%s' does not name '%s'\n", err, key);
	if (strcmp(key, "upstream") != 0)
		assert_non_null(strstr(err, key));
	free(err);
	/* A refused value changes nothing. */
	assert_config_equal(&before, c);
}

/* Runs config_parse over text, as if read from path. */
static int
parse_text(struct config *c, const char *text, const char *path, char **ret_err)
{
	FILE	*f;
	char	*copy;
	int	 r;

	assert_non_null(copy = strdup(text));
	assert_non_null(f = fmemopen(copy, strlen(text), "r"));
	r = config_parse(c, f, path, ret_err);
	fclose(f);
	free(copy);
	return r;
}

/* config_parse must fail with a message holding each of the needles. */
static void
parse_bad(const char *text, const char *needle1, const char *needle2)
{
	struct config	*c;
	char		*err = NULL;

	assert_non_null(c = config_new());
	assert_int_equal(parse_text(c, text, "test.conf", &err), -EINVAL);
	assert_non_null(err);
	if (strstr(err, needle1) == NULL ||
	    (needle2 && strstr(err, needle2) == NULL))
		print_message("message '%s', want '%s' and '%s'\n", err,
		    needle1, needle2 ? needle2 : "");
	assert_non_null(strstr(err, needle1));
	if (needle2)
		assert_non_null(strstr(err, needle2));
	free(err);
	config_free(c);
}

static void
check_defaults(const struct config *c)
{
	char *err = (char *)"not touched";

	assert_string_equal(c->socket, NAMECACHE_SOCKET_PATH);
	assert_string_equal(c->socket, "/run/namecache/socket");
	assert_string_equal(c->hosts_file, "/etc/hosts");
	assert_string_equal(c->resolv_conf, "/etc/resolv.conf");
	assert_string_equal(c->upstream, "");
	assert_int_equal(c->nservers, 0);
	assert_int_equal(c->cache_size, 1000000);
	assert_int_equal(c->min_ttl, 0);
	assert_int_equal(c->max_ttl, 86400);
	assert_int_equal(c->negative_max_ttl, 3600);
	assert_int_equal(c->failure_ttl, 5);
	assert_int_equal(c->serve_stale, 86400);
	assert_true(c->prefetch);
	assert_true(c->shared);
	assert_int_equal(c->shared_size_mb, 8);
	assert_int_equal(c->max_clients, 4096);
	assert_int_equal(c->idle_timeout, 60);
	assert_string_equal(c->admin_group, "");
	assert_int_equal(c->admin_gid, (gid_t)-1);
	assert_int_equal(c->log_level, LOG_LEVEL_INFO);
	assert_int_equal(config_check(c, &err), 0);
	assert_null(err);
}

static void
test_defaults(void **state)
{
	check_defaults(*state);
	config_free(NULL);
}

static void
test_paths(void **state)
{
	static const char *const keys[] = { "socket", "hosts_file",
	    "resolv_conf" };
	struct config	*c = *state;
	size_t		 i;

	for (i = 0; i < 3; i++) {
		set_ok(c, keys[i], "/tmp/some where/file");
		set_bad(c, keys[i], "relative/path");
		set_bad(c, keys[i], "file");
		set_bad(c, keys[i], "./file");
		set_bad(c, keys[i], "~/file");
		set_bad(c, keys[i], "");
		set_ok(c, keys[i], "/");
	}
	set_ok(c, "socket", "/run/test/socket");
	set_ok(c, "hosts_file", "/tmp/hosts");
	set_ok(c, "resolv_conf", "/tmp/resolv.conf");
	assert_string_equal(c->socket, "/run/test/socket");
	assert_string_equal(c->hosts_file, "/tmp/hosts");
	assert_string_equal(c->resolv_conf, "/tmp/resolv.conf");
}

struct uint_key {
	const char	*key;
	size_t		 off;
	unsigned	 min, max;
};

static void
test_numbers(void **state)
{
#define K(f, min, max)	{ #f, offsetof(struct config, f), min, max }
	static const struct uint_key keys[] = {
		K(cache_size, 1, 100000000),
		K(min_ttl, 0, 604800),
		K(max_ttl, 1, 604800),
		K(negative_max_ttl, 0, 604800),
		K(failure_ttl, 0, 3600),
		K(serve_stale, 0, 604800),
		K(max_clients, 1, 1000000),
		K(idle_timeout, 1, 86400),
		K(shared_size_mb, 1, 4096),
	};
#undef K
	static const char *const junk[] = { "", "abc", "-1", "+5", " 5", "5 ",
	    "12abc", "1.5", "0x10", "1e3", "99999999999999999999",
	    "18446744073709551616", "4294967296", "4294967295" };
	struct config	*c = *state;
	char		 v[32];
	size_t		 i, j;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct uint_key *k = &keys[i];
		unsigned *field = (unsigned *)((char *)c + k->off);

		snprintf(v, sizeof(v), "%u", k->min);
		set_ok(c, k->key, v);
		assert_int_equal(*field, k->min);
		snprintf(v, sizeof(v), "%u", k->max);
		set_ok(c, k->key, v);
		assert_int_equal(*field, k->max);
		snprintf(v, sizeof(v), "%u", k->max - 1);
		set_ok(c, k->key, v);
		assert_int_equal(*field, k->max - 1);
		/* A leading zero is still decimal. */
		snprintf(v, sizeof(v), "0%u", k->max);
		set_ok(c, k->key, v);
		assert_int_equal(*field, k->max);
		snprintf(v, sizeof(v), "%u", k->max + 1);
		set_bad(c, k->key, v);
		if (k->min > 0) {
			snprintf(v, sizeof(v), "%u", k->min - 1);
			set_bad(c, k->key, v);
		}
		for (j = 0; j < sizeof(junk) / sizeof(junk[0]); j++)
			set_bad(c, k->key, junk[j]);
		assert_int_equal(*field, k->max);
	}
}

static void
test_booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	static const char *const bad[] = { "", "maybe", "2", "yess", "y", "n",
	    "-1", "yes no" };
	static const char *const keys[] = { "prefetch", "shared" };
	struct config	*c = *state;
	size_t		 i, k;

	for (k = 0; k < 2; k++) {
		bool *field = k == 0 ? &c->prefetch : &c->shared;

		for (i = 0; i < 4; i++) {
			set_ok(c, keys[k], no[i]);
			assert_false(*field);
			set_ok(c, keys[k], yes[i]);
			assert_true(*field);
		}
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			set_bad(c, keys[k], bad[i]);
		assert_true(*field);
	}
	set_ok(c, "prefetch", "off");
	assert_false(c->prefetch);
	assert_true(c->shared);
}

static void
check_server(const struct config_server *s, int family, const char *addr,
    unsigned port)
{
	unsigned char a[16];

	memset(a, 0, sizeof(a));
	assert_int_equal(inet_pton(family, addr, a), 1);
	assert_int_equal(s->family, family);
	assert_memory_equal(s->addr, a, family == AF_INET ? 4 : 16);
	assert_int_equal(s->port, port);
}

static void
test_upstream(void **state)
{
	static const char *const bad[] = { "1.2.3.4:0", "1.2.3.4:70000",
	    "[::1", "nothost", "1.2.3.4:", "1.2.3.4:x", "1.2.3.4:-1",
	    "1.2.3.4:65536", "[::1]:", "[::1]x", "[::1]:0", "[]:53", "[]",
	    "1.2.3", "256.1.1.1", "::1::2", "[1.2.3.4]:53x", "127.0.0.1 bogus",
	    "1.2.3.4:53 [::1]:99999", "example.org:53" };
	struct config	*c = *state;
	size_t		 i;

	set_ok(c, "upstream", "127.0.0.1:5353 [::1]:5353");
	assert_string_equal(c->upstream, "127.0.0.1:5353 [::1]:5353");
	assert_int_equal(c->nservers, 2);
	check_server(&c->servers[0], AF_INET, "127.0.0.1", 5353);
	check_server(&c->servers[1], AF_INET6, "::1", 5353);

	set_ok(c, "upstream", "::1");
	assert_int_equal(c->nservers, 1);
	check_server(&c->servers[0], AF_INET6, "::1", 53);

	set_ok(c, "upstream", "127.0.0.1");
	assert_int_equal(c->nservers, 1);
	check_server(&c->servers[0], AF_INET, "127.0.0.1", 53);

	set_ok(c, "upstream", "192.0.2.1:1,2001:db8::53\t[2001:db8::1]:65535  "
	    "[fe80::1]  10.0.0.1:53");
	assert_int_equal(c->nservers, 5);
	check_server(&c->servers[0], AF_INET, "192.0.2.1", 1);
	check_server(&c->servers[1], AF_INET6, "2001:db8::53", 53);
	check_server(&c->servers[2], AF_INET6, "2001:db8::1", 65535);
	check_server(&c->servers[3], AF_INET6, "fe80::1", 53);
	check_server(&c->servers[4], AF_INET, "10.0.0.1", 53);

	/* A refused list keeps the old one. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		set_bad(c, "upstream", bad[i]);
	assert_int_equal(c->nservers, 5);
	check_server(&c->servers[2], AF_INET6, "2001:db8::1", 65535);

	/* The most servers there may be, and one more. */
	set_ok(c, "upstream", "10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 "
	    "10.0.0.6 10.0.0.7 10.0.0.8");
	assert_int_equal(c->nservers, CONFIG_UPSTREAM_MAX);
	check_server(&c->servers[7], AF_INET, "10.0.0.8", 53);
	set_bad(c, "upstream", "10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 "
	    "10.0.0.6 10.0.0.7 10.0.0.8 10.0.0.9");

	/* Empty: back to resolv.conf's servers. */
	set_ok(c, "upstream", "");
	assert_int_equal(c->nservers, 0);
	assert_string_equal(c->upstream, "");
}

/*
 * The list-valued keys share one parser: the same separators, an empty
 * list, a bound, and a bad item anywhere refusing the whole value.  Each
 * row makes distinct items "pre N post".
 */
struct list_key {
	const char	*key;
	const char	*pre, *post;	/* item N: pre N post */
	unsigned	 max;		/* items at most; 0: no bound */
	size_t		 text;		/* offset of the value as written */
	size_t		 count;		/* offset of the count; 0: nscd_databases */
	const char	*bad;		/* a bad item */
	const char	*bad_msg;	/* config_set's message for it */
	const char	*too_many;	/* and for max + 1 items */
};

static const struct list_key list_keys[] = {
	{ "upstream", "10.0.0.", "", CONFIG_UPSTREAM_MAX,
	    offsetof(struct config, upstream), offsetof(struct config, nservers), "nothost",
	    "bad upstream server 'nothost': want ADDR, ADDR:PORT or "
	    "[ADDR6]:PORT", "more than 8 upstream servers" },
	{ "dns_listen", "127.0.0.", ":5353", CONFIG_DNS_LISTEN_MAX,
	    offsetof(struct config, dns_listen),
	    offsetof(struct config, ndns_addrs), "1.2.3.4:0",
	    "dns_listen: bad address '1.2.3.4:0': want ADDR, ADDR:PORT or "
	    "[ADDR6]:PORT", "dns_listen: more than 8 addresses" },
	{ "dns_allow", "10.", ".0.0/16", CONFIG_DNS_ALLOW_MAX,
	    offsetof(struct config, dns_allow),
	    offsetof(struct config, ndns_prefixes), "10.0.0.1/8",
	    "dns_allow: bad prefix '10.0.0.1/8': want ADDR/LEN (host bits "
	    "zero) or ADDR", "dns_allow: more than 64 prefixes" },
	{ "nscd_databases", "", "", 0,
	    offsetof(struct config, nscd_databases_text), 0, "hostz",
	    "nscd_databases: 'hostz' is not hosts, passwd, group, services "
	    "or netgroup", NULL },
};

/* Items 1 to n of row k, or its database names in turn, mixed separators. */
static void
list_text(const struct list_key *k, unsigned n, char *buf, size_t size)
{
	static const char *const seps[] = { " ", ",", "\t", " , ", ",\t" };
	size_t	 off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 1; i <= n; i++) {
		const char *sep = i == 1 ? "" : seps[i % 5];

		if (k->count == 0)
			off += (size_t)snprintf(buf + off, size - off, "%s%s", sep,
			    config_db_names[i % CONFIG_DB_COUNT]);
		else
			off += (size_t)snprintf(buf + off, size - off, "%s%s%u%s",
			    sep, k->pre, i, k->post);
		assert_true(off < size);
	}
}

/* The items row k holds: its count, or for the set of databases its size. */
static unsigned
list_count(const struct config *c, const struct list_key *k)
{
	if (k->count == 0)
		return (unsigned)__builtin_popcount(c->nscd_databases);
	return *(const unsigned *)((const char *)c + k->count);
}

/* value must be refused with exactly want, the list left as it was. */
static void
list_bad(struct config *c, const struct list_key *k, const char *value,
    const char *want)
{
	unsigned	 before = list_count(c, k);
	char		*err = NULL;

	assert_int_equal(config_set(c, k->key, value, &err), -EINVAL);
	assert_non_null(err);
	if (strcmp(err, want) != 0)
		print_message("%s = '%s': '%s', want '%s'\n", k->key, value, err,
		    want);
	assert_string_equal(err, want);
	free(err);
	assert_int_equal(list_count(c, k), before);
	set_bad(c, k->key, value);
}

static void
test_lists(void **state)
{
	struct config	*c = *state;
	char		 text[2048], two[64], bad[2200], conf[2400], want[256];
	size_t		 i;
	unsigned	 n;

	for (i = 0; i < sizeof(list_keys) / sizeof(list_keys[0]); i++) {
		const struct list_key *k = &list_keys[i];

		/* Empty, or separators alone: no items. */
		set_ok(c, k->key, "");
		assert_int_equal(list_count(c, k), 0);
		set_ok(c, k->key, " ,\t, ");
		assert_int_equal(list_count(c, k), 0);

		/* As many as there may be, or for no bound a long list. */
		n = k->max ? k->max : 4 * CONFIG_DB_COUNT;
		list_text(k, n, text, sizeof(text));
		set_ok(c, k->key, text);
		assert_int_equal(list_count(c, k), k->max ? k->max : CONFIG_DB_COUNT);
		assert_string_equal(*(char **)((char *)c + k->text), text);

		/* One more: refused, the full list kept. */
		if (k->max) {
			list_text(k, k->max + 1, bad, sizeof(bad));
			list_bad(c, k, bad, k->too_many);
		}

		/* A bad item first, in the middle or last refuses them all. */
		list_text(k, 2, two, sizeof(two));
		snprintf(bad, sizeof(bad), "%s %s", k->bad, text);
		list_bad(c, k, bad, k->bad_msg);
		snprintf(bad, sizeof(bad), "%s, %s\t%s", two, k->bad, two);
		list_bad(c, k, bad, k->bad_msg);
		snprintf(bad, sizeof(bad), "%s %s", two, k->bad);
		list_bad(c, k, bad, k->bad_msg);
		assert_int_equal(list_count(c, k), k->max ? k->max : CONFIG_DB_COUNT);
		assert_string_equal(*(char **)((char *)c + k->text), text);

		/* Read from a file: the file and line, then the same words. */
		snprintf(conf, sizeof(conf), "\n# a list\n%s = %s %s\n", k->key,
		    two, k->bad);
		snprintf(want, sizeof(want), "test.conf:3: %s", k->bad_msg);
		parse_bad(conf, want, NULL);
		if (k->max) {
			list_text(k, k->max + 1, bad, sizeof(bad));
			snprintf(conf, sizeof(conf), "%s = %s\n", k->key, bad);
			snprintf(want, sizeof(want), "test.conf:1: %s", k->too_many);
			parse_bad(conf, want, NULL);
		}
	}
}

/* What each list's items become. */
static void
test_list_items(void **state)
{
	struct config	*c = *state;

	set_ok(c, "dns_listen", "127.0.0.1,[::1]:5353\t0.0.0.0:53");
	assert_int_equal(c->ndns_addrs, 3);
	check_server(&c->dns_addrs[0], AF_INET, "127.0.0.1", 53);
	check_server(&c->dns_addrs[1], AF_INET6, "::1", 5353);
	check_server(&c->dns_addrs[2], AF_INET, "0.0.0.0", 53);

	set_ok(c, "dns_allow", "10.0.0.0/8 192.0.2.7,2001:db8::/32\t::1");
	assert_int_equal(c->ndns_prefixes, 4);
	assert_int_equal(c->dns_prefixes[0].family, AF_INET);
	assert_int_equal(c->dns_prefixes[0].len, 8);
	assert_int_equal(c->dns_prefixes[1].family, AF_INET);
	assert_int_equal(c->dns_prefixes[1].len, 32);
	assert_int_equal(c->dns_prefixes[2].family, AF_INET6);
	assert_int_equal(c->dns_prefixes[2].len, 32);
	assert_int_equal(c->dns_prefixes[3].family, AF_INET6);
	assert_int_equal(c->dns_prefixes[3].len, 128);
	/* Host bits set, or a length past the family's. */
	set_bad(c, "dns_allow", "10.0.0.1/8");
	set_bad(c, "dns_allow", "10.0.0.0/33");
	set_bad(c, "dns_allow", "::/129");
	assert_int_equal(c->ndns_prefixes, 4);

	assert_int_equal(c->nscd_databases, CONFIG_DBS_ALL);
	assert_false(c->nscd_databases_given);
	set_ok(c, "nscd_databases", "passwd,group passwd");
	assert_int_equal(c->nscd_databases,
	    (1u << CONFIG_DB_PASSWD) | (1u << CONFIG_DB_GROUP));
	assert_true(c->nscd_databases_given);
	assert_string_equal(c->nscd_databases_text, "passwd,group passwd");
	/* Said, even as nothing: sss lines are answered only when listed. */
	set_ok(c, "nscd_databases", "");
	assert_int_equal(c->nscd_databases, 0);
	assert_true(c->nscd_databases_given);
	set_bad(c, "nscd_databases", "Hosts");
	assert_int_equal(c->nscd_databases, 0);
}

static void
test_admin_group(void **state)
{
	struct config *c = *state;

	set_ok(c, "admin_group", "root");
	assert_string_equal(c->admin_group, "root");
	assert_int_equal(c->admin_gid, 0);
	set_bad(c, "admin_group", NO_GROUP);
	assert_string_equal(c->admin_group, "root");
	assert_int_equal(c->admin_gid, 0);
	/* Empty: no group, which no client's gid can equal (not even a
	 * failed SO_PEERCRED's -1: server_peer_is_admin checks). */
	set_ok(c, "admin_group", "");
	assert_string_equal(c->admin_group, "");
	assert_int_equal(c->admin_gid, (gid_t)-1);
}

static void
test_log_level(void **state)
{
	static const struct { const char *s; int level; } ok[] = {
		{ "error", LOG_LEVEL_ERROR },
		{ "warning", LOG_LEVEL_WARNING },
		{ "debug", LOG_LEVEL_DEBUG },
		{ "info", LOG_LEVEL_INFO },
	};
	static const char *const bad[] = { "", "verbose", "warn", "3",
	    "information" };
	struct config	*c = *state;
	size_t		 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		set_ok(c, "log_level", ok[i].s);
		assert_int_equal(c->log_level, ok[i].level);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		set_bad(c, "log_level", bad[i]);
	assert_int_equal(c->log_level, LOG_LEVEL_INFO);
}

static void
test_unknown_key(void **state)
{
	struct config	*c = *state;
	char		*err = NULL;

	assert_int_equal(config_set(c, "no_such_key", "1", &err), -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, "no_such_key"));
	free(err);
	err = NULL;
	assert_int_equal(config_set(c, "Cache_Size", "1", &err), -EINVAL);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(config_set(c, "", "1", &err), -EINVAL);
	assert_non_null(err);
	free(err);
	assert_int_equal(c->cache_size, 1000000);
}

static void
test_parse(void **state)
{
	struct config	*c = *state;
	char		*err = (char *)"not touched";

	assert_int_equal(parse_text(c,
	    "# namecached.conf\n"
	    "\n"
	    "   \t \n"
	    "cache_size = 5 # a comment\n"
	    "\tmin_ttl=7\n"
	    "max_ttl =  100\r\n"
	    "   # indented comment = yes\n"
	    "prefetch = no\n"
	    "shared=off   \n"
	    "upstream = 127.0.0.1:5353 [::1]:5353\n"
	    "hosts_file = /tmp/my hosts\n"
	    "log_level = debug\n"
	    "admin_group = root\n"
	    "# unknown_key = 1\n"
	    "max_clients = 10", "test.conf", &err), 0);
	assert_null(err);
	assert_int_equal(c->cache_size, 5);
	assert_int_equal(c->min_ttl, 7);
	assert_int_equal(c->max_ttl, 100);
	assert_false(c->prefetch);
	assert_false(c->shared);
	assert_int_equal(c->nservers, 2);
	check_server(&c->servers[1], AF_INET6, "::1", 5353);
	assert_string_equal(c->upstream, "127.0.0.1:5353 [::1]:5353");
	assert_string_equal(c->hosts_file, "/tmp/my hosts");
	assert_int_equal(c->log_level, LOG_LEVEL_DEBUG);
	assert_string_equal(c->admin_group, "root");
	assert_int_equal(c->max_clients, 10);
	/* Untouched keys keep their defaults. */
	assert_int_equal(c->negative_max_ttl, 3600);
	assert_string_equal(c->resolv_conf, "/etc/resolv.conf");

	/* Nothing but comments and blanks. */
	config_free(c);
	assert_non_null(c = *state = config_new());
	assert_int_equal(parse_text(c, "# only\n\n  # comments\n\t\n", "x",
	    &err), 0);
	check_defaults(c);
	assert_int_equal(parse_text(c, "", "x", &err), 0);
	check_defaults(c);
}

static void
test_parse_errors(void **state)
{
	/* An unknown key: "path:LINE:" and the key. */
	parse_bad("cache_size = 5\n\nnosuch = 1\n", "test.conf:3:", "nosuch");
	parse_bad("# one\n# two\n\n\n   \nbogus_key=1\n", "test.conf:6:",
	    "bogus_key");
	parse_bad("nosuch = 1\n", "test.conf:1:", "'nosuch'");
	/* A line without '='. */
	parse_bad("min_ttl = 1\ncache_size 5\n", "test.conf:2:", NULL);
	parse_bad("\n\n\njust words\n", "test.conf:4:", NULL);
	/* '=' only inside a comment. */
	parse_bad("max_ttl # = 5\n", "test.conf:1:", NULL);
	/* Bad values. */
	parse_bad("\ncache_size = lots\n", "test.conf:2:", "cache_size");
	parse_bad("\n\n\nmax_ttl = 0\n", "test.conf:4:", "max_ttl");
	parse_bad("prefetch = perhaps\n", "test.conf:1:", "prefetch");
	parse_bad("socket = run/socket\n", "test.conf:1:", "socket");
	parse_bad("a\n", "test.conf:1:", NULL);
	parse_bad("upstream = 1.2.3.4:0\n", "test.conf:1:", "1.2.3.4:0");
	parse_bad("admin_group = " NO_GROUP "\n", "test.conf:1:", NO_GROUP);
	parse_bad("log_level = loud\n", "test.conf:1:", "log_level");
	parse_bad(" = 5\n", "test.conf:1:", NULL);
}

/* idle_timeout: seconds, 1 to 86400; 0 would close every connection at once. */
static void
test_idle_timeout(void **state)
{
	struct config	*c = *state;
	char		*err = NULL;

	assert_int_equal(parse_text(c, "max_clients = 3\nidle_timeout = 2\n",
	    "test.conf", &err), 0);
	assert_null(err);
	assert_int_equal(c->idle_timeout, 2);
	assert_int_equal(c->max_clients, 3);
	set_ok(c, "idle_timeout", "86400");
	assert_int_equal(c->idle_timeout, 86400);
	set_bad(c, "idle_timeout", "0");
	set_bad(c, "idle_timeout", "86401");
	set_bad(c, "idle_timeout", "1m");
	set_bad(c, "idle_timeout", "");
	assert_int_equal(c->idle_timeout, 86400);
	parse_bad("\nidle_timeout = 0\n", "test.conf:2:", "idle_timeout");
}

static void
test_check(void **state)
{
	struct config	*c = *state;
	char		*err = NULL;

	set_ok(c, "min_ttl", "100");
	set_ok(c, "max_ttl", "50");
	assert_int_equal(config_check(c, &err), -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, "min_ttl"));
	free(err);
	set_ok(c, "max_ttl", "100");
	err = (char *)"not touched";
	assert_int_equal(config_check(c, &err), 0);
	assert_null(err);
}

/* Writes text to dir/name; returns the path in a static buffer. */
static const char *
write_conf(const char *dir, const char *name, const char *text)
{
	static char	 path[128];
	FILE		*f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "we"));
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	return path;
}

static void
test_load(void **state)
{
	char		 dir[] = "/tmp/test-config.XXXXXX";
	char		 missing[128], want[160];
	const char	*path;
	struct config	*c = NULL;
	char		*err;

	assert_non_null(mkdtemp(dir));
	snprintf(missing, sizeof(missing), "%s/missing.conf", dir);

	/* Missing, and allowed to be: the defaults. */
	err = (char *)"not touched";
	assert_int_equal(config_load(missing, false, &c, &err), 0);
	assert_non_null(c);
	assert_null(err);
	check_defaults(c);
	config_free(c);

	/* Missing, and required. */
	c = NULL;
	assert_int_equal(config_load(missing, true, &c, &err), -ENOENT);
	assert_null(c);
	assert_non_null(err);
	assert_non_null(strstr(err, missing));
	free(err);

	/* A good file. */
	path = write_conf(dir, "good.conf", "cache_size = 42\nmin_ttl = 10\n");
	assert_int_equal(config_load(path, true, &c, &err), 0);
	assert_null(err);
	assert_int_equal(c->cache_size, 42);
	assert_int_equal(c->min_ttl, 10);
	assert_int_equal(c->max_ttl, 86400);
	config_free(c);
	assert_int_equal(unlink(path), 0);

	/* A bad line fails the load, with path and line. */
	c = NULL;
	path = write_conf(dir, "bad.conf",
	    "cache_size = 42\n\nfrobnicate = 1\n");
	assert_int_equal(config_load(path, false, &c, &err), -EINVAL);
	assert_null(c);
	assert_non_null(err);
	snprintf(want, sizeof(want), "%s:3:", path);
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, "frobnicate"));
	free(err);
	assert_int_equal(unlink(path), 0);

	/* Values that are fine alone but not together. */
	path = write_conf(dir, "ttl.conf", "min_ttl = 500\nmax_ttl = 400\n");
	assert_int_equal(config_load(path, false, &c, &err), -EINVAL);
	assert_null(c);
	assert_non_null(err);
	assert_non_null(strstr(err, "min_ttl"));
	free(err);
	assert_int_equal(unlink(path), 0);

	/* A folder is not a config file. */
	err = NULL;
	assert_true(config_load(dir, false, &c, &err) < 0);
	assert_null(c);
	assert_non_null(err);
	assert_non_null(strstr(err, dir));
	free(err);

	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_defaults),
		T(test_paths),
		T(test_numbers),
		T(test_booleans),
		T(test_upstream),
		T(test_lists),
		T(test_list_items),
		T(test_admin_group),
		T(test_log_level),
		T(test_unknown_key),
		T(test_parse),
		cmocka_unit_test(test_parse_errors),
		T(test_idle_timeout),
		T(test_check),
		cmocka_unit_test(test_load),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
