/* SPDX-License-Identifier: MIT */
/* tests/unit/test-hosts.c - unit tests of the hosts file parser and index. */

/*
 * Answers are decoded with proto_answer_decode and flattened to one string,
 * "canonical|addr addr|alias alias", so that an assertion shows the whole
 * answer when it fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hosts.h"
#include "proto.h"

#define ANSWER_MAX	PROTO_FRAME_MAX

static uint8_t	answer[ANSWER_MAX];

/* Parses len bytes of data (NUL bytes allowed) from a malloc'd copy. */
static struct hosts *
parse_buf(const char *data, size_t len, unsigned flags)
{
	struct hosts	*h = NULL;
	char		*d;

	assert_non_null(d = malloc(len ? len : 1));
	memcpy(d, data, len);
	assert_int_equal(hosts_parse(d, len, flags, &h), 0);
	assert_non_null(h);
	return h;
}

static struct hosts *
parse_str(const char *s, unsigned flags)
{
	struct hosts	*h = NULL;
	char		*d;

	assert_non_null(d = strdup(s));
	assert_int_equal(hosts_parse(d, strlen(s), flags, &h), 0);
	assert_non_null(h);
	return h;
}

/* A literal with NUL bytes in it: its length comes from sizeof. */
#define PARSE_BIN(lit, flags)	parse_buf(lit, sizeof(lit) - 1, flags)

/* Flattens the answer in answer[0..len) to a malloc'd string. */
static char *
answer_flatten(size_t len)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*s;
	char			*out = NULL, text[INET6_ADDRSTRLEN];
	size_t			 outlen = 0, cur, n, i, strings;
	uint8_t			 fam;
	FILE			*f;

	assert_int_equal(proto_answer_decode(answer, len, &a), 0);
	assert_int_equal(a.ttl, 0);
	assert_int_equal(a.source, PROTO_SRC_HOSTS);
	assert_int_equal(a.naddr, a.naddr4 + a.naddr6);
	assert_non_null(f = open_memstream(&out, &outlen));
	fprintf(f, "%.*s|", (int)a.canon_len, a.canon);
	cur = 0;
	for (i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		assert_true(fam == PROTO_AF_INET || fam == PROTO_AF_INET6);
		assert_non_null(inet_ntop(fam == PROTO_AF_INET ? AF_INET :
		    AF_INET6, addr, text, sizeof(text)));
		fprintf(f, "%s%s", i ? " " : "", text);
	}
	assert_int_equal(i, a.naddr);
	fputc('|', f);
	strings = a.canon_len + 1;
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &n); i++) {
		fprintf(f, "%s%.*s", i ? " " : "", (int)n, s);
		strings += n + 1;
	}
	assert_int_equal(i, a.nalias);
	assert_int_equal(a.strings_size, strings);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void
expect_name(const struct hosts *h, const char *name, int family,
    const char *want)
{
	struct proto_wr	 w;
	char		*got;
	int		 r;

	proto_wr_init(&w, answer, sizeof(answer));
	r = hosts_lookup_name(h, name, family, &w);
	if (r != 1)
		print_message("lookup of '%s' in family %d: %d\n", name,
		    family, r);
	assert_int_equal(r, 1);
	got = answer_flatten(w.off);
	assert_string_equal(got, want);
	free(got);
}

static void
expect_no_name(const struct hosts *h, const char *name, int family)
{
	struct proto_wr	w;
	int		r;

	proto_wr_init(&w, answer, sizeof(answer));
	r = hosts_lookup_name(h, name, family, &w);
	if (r != 0)
		print_message("lookup of '%s' in family %d: %d, want 0\n", name,
		    family, r);
	assert_int_equal(r, 0);
}

/* Looks up the text address (its family from its form) in view family. */
static int
lookup_addr(const struct hosts *h, int family, const char *text, char **ret)
{
	struct proto_wr	w;
	uint8_t		a[16];
	int		r;

	memset(a, 0, sizeof(a));
	if (family == PROTO_AF_INET)
		assert_int_equal(inet_pton(AF_INET, text, a), 1);
	else
		assert_int_equal(inet_pton(AF_INET6, text, a), 1);
	proto_wr_init(&w, answer, sizeof(answer));
	r = hosts_lookup_addr(h, family, a, &w);
	if (r == 1 && ret)
		*ret = answer_flatten(w.off);
	return r;
}

static void
expect_addr(const struct hosts *h, int family, const char *text,
    const char *want)
{
	char	*got = NULL;
	int	 r;

	r = lookup_addr(h, family, text, &got);
	if (r != 1)
		print_message("lookup of %s in family %d: %d\n", text,
		    family, r);
	assert_int_equal(r, 1);
	assert_string_equal(got, want);
	free(got);
}

static void
expect_no_addr(const struct hosts *h, int family, const char *text)
{
	assert_int_equal(lookup_addr(h, family, text, NULL), 0);
}

static struct hosts_info
info_of(const struct hosts *h)
{
	struct hosts_info i;

	memset(&i, 0x55, sizeof(i));
	hosts_get_info(h, &i);
	return i;
}

static void
test_comments_blanks(void **state)
{
	struct hosts		*h;
	struct hosts_info	 i;

	h = parse_str(
	    "# a comment line\n"
	    "\n"
	    "   \t  \n"
	    "  10.0.0.1   alpha  a1 # an inline comment beta\n"
	    "\t10.0.0.2\tbeta\tb1\t\tb2\t\n"
	    "10.0.0.3 gamma#nospace\n"
	    "#10.0.0.4 delta\n"
	    "   # an indented comment epsilon\n"
	    "10.0.0.5# zeta\n"
	    "#\n", 0);
	i = info_of(h);
	assert_int_equal(i.lines, 10);
	assert_int_equal(i.entries, 4);
	assert_int_equal(i.invalid, 0);
	assert_int_equal(i.names, 6);	/* alpha a1 beta b1 b2 gamma */
	assert_int_equal(i.flags, 0);

	expect_name(h, "alpha", PROTO_AF_INET, "alpha|10.0.0.1|a1");
	expect_name(h, "a1", PROTO_AF_UNSPEC, "alpha|10.0.0.1|a1");
	expect_name(h, "beta", PROTO_AF_INET, "beta|10.0.0.2|b1 b2");
	expect_name(h, "b2", PROTO_AF_INET, "beta|10.0.0.2|b1 b2");
	expect_name(h, "gamma", PROTO_AF_INET, "gamma|10.0.0.3|");
	expect_no_name(h, "nospace", PROTO_AF_INET);
	expect_no_name(h, "delta", PROTO_AF_INET);
	expect_no_name(h, "epsilon", PROTO_AF_INET);
	expect_no_name(h, "zeta", PROTO_AF_INET);
	expect_no_name(h, "comment", PROTO_AF_INET);
	expect_no_name(h, "#", PROTO_AF_INET);
	expect_no_addr(h, PROTO_AF_INET, "10.0.0.4");
	/* An address cut short by '#': a line with no name. */
	expect_addr(h, PROTO_AF_INET, "10.0.0.5", "|10.0.0.5|");
	expect_addr(h, PROTO_AF_INET, "10.0.0.2", "beta|10.0.0.2|b1 b2");
	hosts_free(h);
}

static void
test_line_endings(void **state)
{
	struct hosts *h;

	h = parse_str(
	    "10.1.0.1 crlf alias1\r\n"
	    "10.1.0.2\vvt\fff\r\n"
	    "\f\v10.1.0.3 lead\r\n"
	    "\r\n"
	    "10.1.0.4\r\n"
	    "10.1.0.5 \r tail \r\n", 0);
	assert_int_equal(info_of(h).entries, 5);
	expect_name(h, "crlf", PROTO_AF_INET, "crlf|10.1.0.1|alias1");
	expect_name(h, "alias1", PROTO_AF_INET, "crlf|10.1.0.1|alias1");
	expect_no_name(h, "alias1\r", PROTO_AF_INET);
	expect_name(h, "vt", PROTO_AF_INET, "vt|10.1.0.2|ff");
	expect_name(h, "ff", PROTO_AF_INET, "vt|10.1.0.2|ff");
	expect_name(h, "lead", PROTO_AF_INET, "lead|10.1.0.3|");
	expect_addr(h, PROTO_AF_INET, "10.1.0.4", "|10.1.0.4|");
	expect_name(h, "tail", PROTO_AF_INET, "tail|10.1.0.5|");
	hosts_free(h);
}

static void
test_ipv6_forms(void **state)
{
	struct hosts *h;

	h = parse_str(
	    "2001:db8::1 compressed c1\n"
	    "2001:0db8:0000:0000:0000:0000:0000:0002 uncompressed\n"
	    "FE80::ABCD upper\n"
	    "fe80:0:0:0:0:0:0:abce mixed\n"
	    "::ffff:10.11.12.13 v4tail\n"
	    ":: unspecified\n", 0);
	assert_int_equal(info_of(h).entries, 6);
	assert_int_equal(info_of(h).invalid, 0);
	expect_name(h, "compressed", PROTO_AF_INET6,
	    "compressed|2001:db8::1|c1");
	expect_name(h, "uncompressed", PROTO_AF_INET6,
	    "uncompressed|2001:db8::2|");
	expect_name(h, "upper", PROTO_AF_INET6, "upper|fe80::abcd|");
	expect_name(h, "mixed", PROTO_AF_UNSPEC, "mixed|fe80::abce|");
	expect_name(h, "unspecified", PROTO_AF_INET6, "unspecified|::|");
	expect_no_name(h, "unspecified", PROTO_AF_INET);
	expect_addr(h, PROTO_AF_INET6, "2001:db8::2",
	    "uncompressed|2001:db8::2|");
	expect_addr(h, PROTO_AF_INET6, "fe80::abcd", "upper|fe80::abcd|");
	expect_addr(h, PROTO_AF_INET6, "::ffff:10.11.12.13",
	    "v4tail|::ffff:10.11.12.13|");
	hosts_free(h);
}

static void
test_invalid_addresses(void **state)
{
	static const char *const bad[] = { "bad1", "bad2", "bad3", "bad4",
	    "bad5", "bad6", "bad7", "bad8", "bad9", "bad10" };
	struct hosts		*h;
	struct hosts_info	 i;
	size_t			 k;

	h = parse_str(
	    "999.1.1.1 bad1\n"
	    "1.2.3 bad2\n"
	    "01.2.3.4 bad3\n"
	    "fe80::1%eth0 bad4\n"
	    "garbage bad5\n"
	    "1.2.3.4.5 bad6\n"
	    "256.0.0.1 bad7\n"
	    "2001:db8:::1 bad8\n"
	    "0x7f.0.0.1 bad9\n"
	    "1.2.3.4/24 bad10\n"
	    "10.2.0.1 good bad1\n", 0);
	i = info_of(h);
	assert_int_equal(i.lines, 11);
	assert_int_equal(i.invalid, 10);
	assert_int_equal(i.entries, 1);
	assert_int_equal(i.names, 2);
	for (k = 1; k < sizeof(bad) / sizeof(bad[0]); k++) {
		expect_no_name(h, bad[k], PROTO_AF_INET);
		expect_no_name(h, bad[k], PROTO_AF_INET6);
		expect_no_name(h, bad[k], PROTO_AF_UNSPEC);
	}
	/* bad1 is only found through the good line. */
	expect_name(h, "bad1", PROTO_AF_UNSPEC, "good|10.2.0.1|bad1");
	expect_no_addr(h, PROTO_AF_INET, "1.2.3.4");
	expect_no_addr(h, PROTO_AF_INET6, "fe80::1");
	hosts_free(h);
}

static void
test_address_only(void **state)
{
	struct hosts		*h;
	struct hosts_info	 i;

	h = parse_str(
	    "10.3.0.1\n"
	    "10.3.0.2   \t\n"
	    "2001:db8::3\n"
	    "10.3.0.3 named\n", 0);
	i = info_of(h);
	assert_int_equal(i.entries, 4);
	assert_int_equal(i.names, 1);
	expect_no_name(h, "", PROTO_AF_INET);
	expect_no_name(h, "", PROTO_AF_UNSPEC);
	expect_addr(h, PROTO_AF_INET, "10.3.0.1", "|10.3.0.1|");
	expect_addr(h, PROTO_AF_INET, "10.3.0.2", "|10.3.0.2|");
	expect_addr(h, PROTO_AF_INET6, "2001:db8::3", "|2001:db8::3|");
	expect_addr(h, PROTO_AF_INET, "10.3.0.3", "named|10.3.0.3|");
	expect_name(h, "named", PROTO_AF_INET, "named|10.3.0.3|");
	hosts_free(h);
}

static void
test_case_insensitive(void **state)
{
	struct hosts *h;

	h = parse_str("10.4.0.1 MixedCase Alias.Example\n"
	    "10.4.0.2 lower\n", 0);
	assert_int_equal(info_of(h).names, 3);
	expect_name(h, "mixedcase", PROTO_AF_INET,
	    "MixedCase|10.4.0.1|Alias.Example");
	expect_name(h, "MIXEDCASE", PROTO_AF_INET,
	    "MixedCase|10.4.0.1|Alias.Example");
	expect_name(h, "alias.EXAMPLE", PROTO_AF_UNSPEC,
	    "MixedCase|10.4.0.1|Alias.Example");
	expect_name(h, "LoWeR", PROTO_AF_INET, "lower|10.4.0.2|");
	expect_no_name(h, "mixedcas", PROTO_AF_INET);
	expect_no_name(h, "mixedcasee", PROTO_AF_INET);
	expect_no_name(h, "alias", PROTO_AF_INET);
	hosts_free(h);
}

static const char multi_file[] =
    "10.5.0.1 web www\n"
    "10.5.0.2 other\n"
    "10.5.0.3 WEB web2\n"
    "10.5.0.4 www.example web\n"
    "10.5.0.5 web web3\n"
    "2001:db8::5 web v6web\n";

static void
test_repeated_single(void **state)
{
	struct hosts *h;

	h = parse_str(multi_file, 0);
	/* Without "multi on", only the first line of the view. */
	expect_name(h, "web", PROTO_AF_INET, "web|10.5.0.1|www");
	expect_name(h, "WEB", PROTO_AF_INET, "web|10.5.0.1|www");
	expect_name(h, "web", PROTO_AF_UNSPEC, "web|10.5.0.1|www");
	expect_name(h, "web", PROTO_AF_INET6, "web|2001:db8::5|v6web");
	expect_name(h, "web2", PROTO_AF_INET, "WEB|10.5.0.3|web2");
	expect_name(h, "www.example", PROTO_AF_INET,
	    "www.example|10.5.0.4|web");
	expect_no_name(h, "www.example", PROTO_AF_INET6);
	hosts_free(h);
}

static void
test_repeated_multi(void **state)
{
	struct hosts *h;

	h = parse_str(multi_file, HOSTS_MULTI);
	assert_int_equal(info_of(h).flags, HOSTS_MULTI);
	/*
	 * The first line's name is canonical.  Aliases go line by line; a
	 * later line adds its own name after its aliases, unless it is the
	 * canonical name exactly: "WEB" differs in case, so it is added.
	 */
	expect_name(h, "web", PROTO_AF_INET,
	    "web|10.5.0.1 10.5.0.3 10.5.0.4 10.5.0.5|"
	    "www web2 WEB web www.example web3");
	expect_name(h, "Web", PROTO_AF_INET,
	    "web|10.5.0.1 10.5.0.3 10.5.0.4 10.5.0.5|"
	    "www web2 WEB web www.example web3");
	expect_name(h, "web", PROTO_AF_UNSPEC,
	    "web|10.5.0.1 10.5.0.3 10.5.0.4 10.5.0.5 2001:db8::5|"
	    "www web2 WEB web www.example web3 v6web");
	expect_name(h, "web", PROTO_AF_INET6, "web|2001:db8::5|v6web");
	/* A name on one line only gives that line. */
	expect_name(h, "www", PROTO_AF_INET, "web|10.5.0.1|www");
	expect_name(h, "other", PROTO_AF_INET, "other|10.5.0.2|");
	/* Starting from a later line. */
	expect_name(h, "www.example", PROTO_AF_INET,
	    "www.example|10.5.0.4|web");
	/* Reverse lookups stay on the first line. */
	expect_addr(h, PROTO_AF_INET, "10.5.0.3", "WEB|10.5.0.3|web2");
	hosts_free(h);
}

static const char view_file[] =
    "::1 localhost ip6-localhost\n"
    "127.0.0.1 localhost loopback\n"
    "::ffff:1.2.3.4 mapped\n"
    "2001:db8::5 v6only dual\n"
    "10.6.0.1 dual\n"
    "fe80::1 linklocal\n"
    "::ffff:10.6.0.1 mapped2\n";

static void
test_views_single(void **state)
{
	struct hosts	*h;
	struct proto_wr	 w;
	uint8_t		 lo[16] = { 127, 0, 0, 1 };

	h = parse_str(view_file, 0);
	/* AF_INET reads ::1 as 127.0.0.1, and v4-mapped as IPv4. */
	expect_name(h, "localhost", PROTO_AF_INET,
	    "localhost|127.0.0.1|ip6-localhost");
	expect_name(h, "localhost", PROTO_AF_INET6,
	    "localhost|::1|ip6-localhost");
	expect_name(h, "localhost", PROTO_AF_UNSPEC,
	    "localhost|::1|ip6-localhost");
	expect_no_name(h, "loopback", PROTO_AF_INET6);
	expect_name(h, "loopback", PROTO_AF_INET,
	    "localhost|127.0.0.1|loopback");
	expect_name(h, "mapped", PROTO_AF_INET, "mapped|1.2.3.4|");
	expect_name(h, "mapped", PROTO_AF_INET6, "mapped|::ffff:1.2.3.4|");
	expect_name(h, "mapped", PROTO_AF_UNSPEC, "mapped|::ffff:1.2.3.4|");
	/* Other IPv6 lines are invisible to AF_INET. */
	expect_no_name(h, "v6only", PROTO_AF_INET);
	expect_no_name(h, "linklocal", PROTO_AF_INET);
	expect_name(h, "v6only", PROTO_AF_INET6, "v6only|2001:db8::5|dual");
	/* IPv4 lines are invisible to AF_INET6. */
	expect_name(h, "dual", PROTO_AF_INET, "dual|10.6.0.1|");
	expect_name(h, "dual", PROTO_AF_INET6, "v6only|2001:db8::5|dual");
	expect_name(h, "dual", PROTO_AF_UNSPEC, "v6only|2001:db8::5|dual");
	expect_no_name(h, "ip6-localhost", PROTO_AF_INET + 1);
	expect_no_name(h, "ip6-localhost", 99);

	/* Reverse: the first line with that address in the view. */
	expect_addr(h, PROTO_AF_INET, "127.0.0.1",
	    "localhost|127.0.0.1|ip6-localhost");
	expect_addr(h, PROTO_AF_INET6, "::1", "localhost|::1|ip6-localhost");
	expect_addr(h, PROTO_AF_INET, "1.2.3.4", "mapped|1.2.3.4|");
	expect_addr(h, PROTO_AF_INET6, "::ffff:1.2.3.4",
	    "mapped|::ffff:1.2.3.4|");
	expect_addr(h, PROTO_AF_INET, "10.6.0.1", "dual|10.6.0.1|");
	expect_addr(h, PROTO_AF_INET6, "::ffff:10.6.0.1",
	    "mapped2|::ffff:10.6.0.1|");
	expect_addr(h, PROTO_AF_INET6, "2001:db8::5",
	    "v6only|2001:db8::5|dual");
	expect_addr(h, PROTO_AF_INET6, "fe80::1", "linklocal|fe80::1|");
	expect_no_addr(h, PROTO_AF_INET6, "::ffff:127.0.0.1");
	expect_no_addr(h, PROTO_AF_INET, "0.0.0.1");
	expect_no_addr(h, PROTO_AF_INET6, "::2");
	/* No reverse lookup without a family. */
	proto_wr_init(&w, answer, sizeof(answer));
	assert_int_equal(hosts_lookup_addr(h, PROTO_AF_UNSPEC, lo, &w), 0);
	assert_int_equal(hosts_lookup_addr(h, 99, lo, &w), 0);
	hosts_free(h);
}

static void
test_views_multi(void **state)
{
	struct hosts *h;

	h = parse_str(view_file, HOSTS_MULTI);
	expect_name(h, "localhost", PROTO_AF_INET,
	    "localhost|127.0.0.1 127.0.0.1|ip6-localhost loopback");
	expect_name(h, "localhost", PROTO_AF_INET6,
	    "localhost|::1|ip6-localhost");
	/* AF_UNSPEC: the addresses as written, in file order. */
	expect_name(h, "localhost", PROTO_AF_UNSPEC,
	    "localhost|::1 127.0.0.1|ip6-localhost loopback");
	expect_name(h, "dual", PROTO_AF_UNSPEC,
	    "v6only|2001:db8::5 10.6.0.1|dual dual");
	expect_name(h, "dual", PROTO_AF_INET, "dual|10.6.0.1|");
	expect_name(h, "dual", PROTO_AF_INET6, "v6only|2001:db8::5|dual");
	expect_addr(h, PROTO_AF_INET, "127.0.0.1",
	    "localhost|127.0.0.1|ip6-localhost");
	hosts_free(h);
}

static void
test_reverse_first(void **state)
{
	struct hosts *h;

	h = parse_str(
	    "10.7.0.1 first one\n"
	    "10.7.0.1 second two\n"
	    "2001:db8::7 six\n"
	    "2001:0db8:0::7 seven\n", HOSTS_MULTI);
	expect_addr(h, PROTO_AF_INET, "10.7.0.1", "first|10.7.0.1|one");
	expect_addr(h, PROTO_AF_INET6, "2001:db8::7", "six|2001:db8::7|");
	expect_name(h, "seven", PROTO_AF_INET6, "seven|2001:db8::7|");
	hosts_free(h);
}

static void
test_same_name_twice(void **state)
{
	struct hosts		*h;
	struct hosts_info	 i;

	h = parse_str(
	    "10.8.0.1 dup dup DUP other\n"
	    "10.8.0.2 dup\n", HOSTS_MULTI);
	i = info_of(h);
	assert_int_equal(i.names, 2);
	/* The first line once, although it names dup three times. */
	expect_name(h, "dup", PROTO_AF_INET,
	    "dup|10.8.0.1 10.8.0.2|dup DUP other");
	expect_name(h, "other", PROTO_AF_INET, "dup|10.8.0.1|dup DUP other");
	hosts_free(h);

	h = parse_str("10.8.0.3 x X x\n", 0);
	expect_name(h, "x", PROTO_AF_UNSPEC, "x|10.8.0.3|X x");
	hosts_free(h);
}

static void
test_nul_bytes(void **state)
{
	struct hosts		*h;
	struct hosts_info	 i;

	h = PARSE_BIN(
	    "10.9.0.1 before\0hidden 10.9.9.9\n"
	    "10.9.0.2 after\n"
	    "10.9.0.3 x\0y z\n"
	    "10.9.0.4\0 nameless\n"
	    "\0" "10.9.0.5 gone\n"
	    "10.9.0.6 end\0", 0);
	i = info_of(h);
	assert_int_equal(i.lines, 6);
	assert_int_equal(i.entries, 5);
	expect_name(h, "before", PROTO_AF_INET, "before|10.9.0.1|");
	expect_no_name(h, "hidden", PROTO_AF_INET);
	expect_name(h, "after", PROTO_AF_INET, "after|10.9.0.2|");
	expect_name(h, "x", PROTO_AF_INET, "x|10.9.0.3|");
	expect_no_name(h, "y", PROTO_AF_INET);
	expect_no_name(h, "z", PROTO_AF_INET);
	expect_addr(h, PROTO_AF_INET, "10.9.0.4", "|10.9.0.4|");
	expect_no_name(h, "nameless", PROTO_AF_INET);
	expect_no_name(h, "gone", PROTO_AF_INET);
	expect_no_addr(h, PROTO_AF_INET, "10.9.0.5");
	expect_name(h, "end", PROTO_AF_INET, "end|10.9.0.6|");
	hosts_free(h);

	/* Nothing but NUL bytes and newlines. */
	h = PARSE_BIN("\0\0\n\0\n", 0);
	assert_int_equal(info_of(h).entries, 0);
	hosts_free(h);
}

static void
test_no_final_newline(void **state)
{
	struct hosts *h;

	h = parse_str("10.10.0.1 a\n10.10.0.2 last alias", 0);
	assert_int_equal(info_of(h).lines, 2);
	expect_name(h, "last", PROTO_AF_INET, "last|10.10.0.2|alias");
	expect_name(h, "alias", PROTO_AF_INET, "last|10.10.0.2|alias");
	hosts_free(h);

	h = parse_str("10.10.0.3 only", 0);
	expect_name(h, "only", PROTO_AF_INET, "only|10.10.0.3|");
	hosts_free(h);

	h = parse_str("10.10.0.4", 0);
	expect_addr(h, PROTO_AF_INET, "10.10.0.4", "|10.10.0.4|");
	hosts_free(h);

	h = parse_str("10.10.0.5 x # no newline", 0);
	expect_name(h, "x", PROTO_AF_INET, "x|10.10.0.5|");
	hosts_free(h);

	h = parse_str("::1", 0);
	expect_addr(h, PROTO_AF_INET, "127.0.0.1", "|127.0.0.1|");
	hosts_free(h);
}

static void
test_long_line(void **state)
{
	enum { NALIAS = 5000 };
	struct hosts	*h;
	struct proto_wr	 w;
	char		*buf, *want, *p, *q, *got;
	size_t		 cap = 64 + NALIAS * 16, k;
	uint8_t		 a[4] = { 10, 11, 0, 1 };

	assert_non_null(buf = malloc(cap));
	assert_non_null(want = malloc(cap));
	p = buf + sprintf(buf, "10.11.0.1 canon");
	q = want + sprintf(want, "canon|10.11.0.1|");
	for (k = 0; k < NALIAS; k++) {
		p += sprintf(p, "%salias%zu", k % 7 ? " " : "\t ", k);
		q += sprintf(q, "%salias%zu", k ? " " : "", k);
	}
	strcpy(p, "\n10.11.0.2 next\n");
	h = parse_str(buf, 0);
	assert_int_equal(info_of(h).names, NALIAS + 2);
	expect_name(h, "canon", PROTO_AF_INET, want);
	expect_name(h, "alias4999", PROTO_AF_INET, want);
	expect_name(h, "ALIAS2500", PROTO_AF_UNSPEC, want);
	expect_name(h, "next", PROTO_AF_INET, "next|10.11.0.2|");
	expect_addr(h, PROTO_AF_INET, "10.11.0.1", want);

	/* Too large for the writer: -EMSGSIZE, never a partial answer. */
	proto_wr_init(&w, answer, 1000);
	assert_int_equal(hosts_lookup_name(h, "canon", PROTO_AF_INET, &w),
	    -EMSGSIZE);
	proto_wr_init(&w, answer, 1000);
	assert_int_equal(hosts_lookup_addr(h, PROTO_AF_INET, a, &w), -EMSGSIZE);
	proto_wr_init(&w, answer, 0);
	assert_int_equal(hosts_lookup_name(h, "next", PROTO_AF_INET, &w),
	    -EMSGSIZE);
	/* Exactly big enough is fine. */
	proto_wr_init(&w, answer, sizeof(answer));
	assert_int_equal(hosts_lookup_name(h, "next", PROTO_AF_INET, &w), 1);
	k = w.off;
	proto_wr_init(&w, answer, k);
	assert_int_equal(hosts_lookup_name(h, "next", PROTO_AF_INET, &w), 1);
	got = answer_flatten(w.off);
	assert_string_equal(got, "next|10.11.0.2|");
	free(got);
	proto_wr_init(&w, answer, k - 1);
	assert_int_equal(hosts_lookup_name(h, "next", PROTO_AF_INET, &w),
	    -EMSGSIZE);
	hosts_free(h);
	free(buf);
	free(want);
}

static void
test_too_many_aliases(void **state)
{
	enum { NALIAS = 70000 };
	struct hosts	*h;
	struct proto_wr	 w;
	uint8_t		*big;
	char		*buf, *p;
	size_t		 k, cap = (size_t)NALIAS * 8 + 64;

	/* More aliases than a u16 count holds: -EMSGSIZE, whatever the room. */
	assert_non_null(buf = malloc(cap));
	p = buf + sprintf(buf, "10.12.0.1 c");
	for (k = 0; k < NALIAS; k++)
		p += sprintf(p, " a%zu", k);
	*p = '\0';
	h = parse_str(buf, 0);
	assert_non_null(big = malloc(2 * cap));
	proto_wr_init(&w, big, 2 * cap);
	assert_int_equal(hosts_lookup_name(h, "a69999", PROTO_AF_INET, &w),
	    -EMSGSIZE);
	free(big);
	hosts_free(h);
	free(buf);
}

/*
 * glibc 2.36's nss_readline drops leading blanks with a memmove that leaves
 * the terminator behind: a line with k leading blanks and no '\n' in its
 * string (a NUL inside it, or the last line) reads k bytes longer.
 */
static void
test_readline_quirk(void **state)
{
	struct hosts *h;

	h = parse_str(" 10.0.0.1 foo", HOSTS_MULTI);
	expect_name(h, "fooo", PROTO_AF_INET, "fooo|10.0.0.1|");
	expect_no_name(h, "foo", PROTO_AF_INET);
	hosts_free(h);

	h = PARSE_BIN(" 10.0.0.1 bar\0baz\n  10.0.0.2 x\n\t10.0.0.3 y", HOSTS_MULTI);
	expect_name(h, "barr", PROTO_AF_INET, "barr|10.0.0.1|");
	expect_no_name(h, "bar", PROTO_AF_INET);
	expect_name(h, "x", PROTO_AF_INET, "x|10.0.0.2|");	/* a '\n': no quirk */
	expect_name(h, "yy", PROTO_AF_INET, "yy|10.0.0.3|");
	hosts_free(h);

	/* Five blanks: the line's last five bytes, ".4 ab", come back (glibc too). */
	h = parse_str("     10.0.0.4 ab", HOSTS_MULTI);
	expect_name(h, "ab", PROTO_AF_INET, "ab.4|10.0.0.4|ab");
	hosts_free(h);
}

static void
test_empty(void **state)
{
	struct hosts		*h;
	struct hosts_info	 i;
	struct proto_wr		 w;
	uint8_t			 a[16] = { 0 };

	assert_non_null(h = hosts_new_empty(HOSTS_MULTI));
	i = info_of(h);
	assert_int_equal(i.lines, 0);
	assert_int_equal(i.entries, 0);
	assert_int_equal(i.invalid, 0);
	assert_int_equal(i.names, 0);
	assert_int_equal(i.text, 0);
	assert_true(i.memory > 0);
	assert_int_equal(i.flags, HOSTS_MULTI);
	expect_no_name(h, "localhost", PROTO_AF_UNSPEC);
	expect_no_name(h, "", PROTO_AF_INET);
	proto_wr_init(&w, answer, sizeof(answer));
	assert_int_equal(hosts_lookup_addr(h, PROTO_AF_INET, a, &w), 0);
	assert_int_equal(hosts_lookup_addr(h, PROTO_AF_INET6, a, &w), 0);
	assert_int_equal(w.off, 0);
	hosts_free(h);
	hosts_free(NULL);

	/* An empty buffer and a file of blanks parse to the same. */
	h = parse_buf("", 0, 0);
	assert_int_equal(info_of(h).entries, 0);
	assert_int_equal(info_of(h).lines, 0);
	hosts_free(h);
	h = parse_str("\n\n \t\n", 0);
	assert_int_equal(info_of(h).entries, 0);
	assert_int_equal(info_of(h).lines, 3);
	expect_no_name(h, "", PROTO_AF_INET);
	hosts_free(h);
}

/* A temporary folder for files, removed by the caller. */
static void
write_file(const char *path, const char *text)
{
	FILE *f;

	assert_non_null(f = fopen(path, "we"));
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static void
test_load(void **state)
{
	char		 dir[] = "/tmp/test-hosts.XXXXXX";
	char		 path[64], missing[64];
	struct hosts	*h = NULL;
	struct stat	 st;
	const char	*text = "127.0.0.1 localhost\n::1 localhost six\n";

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hosts", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	write_file(path, text);

	memset(&st, 0, sizeof(st));
	assert_int_equal(hosts_load(path, HOSTS_MULTI, &h, &st), 0);
	assert_non_null(h);
	assert_int_equal(st.st_size, strlen(text));
	assert_true(st.st_ino != 0);
	assert_int_equal(info_of(h).entries, 2);
	assert_int_equal(info_of(h).flags, HOSTS_MULTI);
	expect_name(h, "localhost", PROTO_AF_UNSPEC,
	    "localhost|127.0.0.1 ::1|six");
	hosts_free(h);

	/* Without ret_st. */
	h = NULL;
	assert_int_equal(hosts_load(path, 0, &h, NULL), 0);
	expect_name(h, "six", PROTO_AF_INET, "localhost|127.0.0.1|six");
	hosts_free(h);

	/* A missing file: an empty index, and a zeroed stat. */
	h = NULL;
	memset(&st, 0x55, sizeof(st));
	assert_int_equal(hosts_load(missing, 0, &h, &st), 0);
	assert_non_null(h);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_ino, 0);
	assert_int_equal(info_of(h).entries, 0);
	expect_no_name(h, "localhost", PROTO_AF_INET);
	hosts_free(h);

	/* A path through a missing folder, too. */
	snprintf(missing, sizeof(missing), "%s/nodir/hosts", dir);
	h = NULL;
	assert_int_equal(hosts_load(missing, 0, &h, NULL), 0);
	assert_non_null(h);
	hosts_free(h);

	/* A folder is an error. */
	h = NULL;
	assert_true(hosts_load(dir, 0, &h, NULL) < 0);
	assert_null(h);

	/* An empty file. */
	write_file(path, "");
	h = NULL;
	assert_int_equal(hosts_load(path, 0, &h, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(info_of(h).lines, 0);
	hosts_free(h);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static unsigned
conf_flags(const char *dir, const char *text)
{
	char		path[64];
	unsigned	flags;

	snprintf(path, sizeof(path), "%s/host.conf", dir);
	write_file(path, text);
	flags = hosts_conf_flags(path);
	assert_int_equal(unlink(path), 0);
	return flags;
}

static void
test_conf_flags(void **state)
{
	char dir[] = "/tmp/test-hostconf.XXXXXX", path[64];

	assert_non_null(mkdtemp(dir));
	assert_int_equal(conf_flags(dir, "multi on\n"), HOSTS_MULTI);
	assert_int_equal(conf_flags(dir, "multi off\n"), 0);
	assert_int_equal(conf_flags(dir, "multi on\nmulti off\n"), 0);
	assert_int_equal(conf_flags(dir, "multi off\nmulti on\n"), HOSTS_MULTI);
	assert_int_equal(conf_flags(dir, "multi on\nmulti bogus\n"),
	    HOSTS_MULTI);
	assert_int_equal(conf_flags(dir, "# multi on\n"), 0);
	assert_int_equal(conf_flags(dir, "multi # on\n"), 0);
	assert_int_equal(conf_flags(dir,
	    "order hosts,bind\n\tmulti   on   # comment\nreorder on\n"),
	    HOSTS_MULTI);
	assert_int_equal(conf_flags(dir, "MULTI ON"), HOSTS_MULTI);
	assert_int_equal(conf_flags(dir, "multi\n"), 0);
	assert_int_equal(conf_flags(dir, "multion\n"), 0);
	assert_int_equal(conf_flags(dir, ""), 0);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(hosts_conf_flags(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
line_addr(size_t n, char *out, size_t outlen)
{
	snprintf(out, outlen, "10.%zu.%zu.%zu", n >> 16 & 0xff, n >> 8 & 0xff,
	    n & 0xff);
}

static void
test_scale(void **state)
{
	enum { LINES = 1000000 };
	struct hosts		*h = NULL;
	struct hosts_info	 i;
	char			*buf, *p, addr[32], name[64], want[160];
	size_t			 n, len, cap = (size_t)LINES * 48;
	double			 t0, t1, per_line;

	assert_non_null(buf = malloc(cap));
	for (p = buf, n = 0; n < LINES; n++) {
		line_addr(n, addr, sizeof(addr));
		p += sprintf(p, "%s host%zu.example host%zu\n", addr, n, n);
	}
	len = (size_t)(p - buf);
	assert_true(len < cap);

	t0 = now_seconds();
	assert_int_equal(hosts_parse(buf, len, 0, &h), 0);
	t1 = now_seconds();
	buf = NULL;		/* hosts_parse owns it */

	i = info_of(h);
	assert_int_equal(i.lines, LINES);
	assert_int_equal(i.entries, LINES);
	assert_int_equal(i.invalid, 0);
	assert_int_equal(i.names, 2 * LINES);

	for (n = 0; n < LINES; n += LINES - 1) {
		line_addr(n, addr, sizeof(addr));
		snprintf(want, sizeof(want), "host%zu.example|%s|host%zu", n,
		    addr, n);
		snprintf(name, sizeof(name), "host%zu", n);
		expect_name(h, name, PROTO_AF_INET, want);
		snprintf(name, sizeof(name), "HOST%zu.example", n);
		expect_name(h, name, PROTO_AF_UNSPEC, want);
		expect_addr(h, PROTO_AF_INET, addr, want);
	}
	expect_name(h, "host500000", PROTO_AF_INET,
	    "host500000.example|10.7.161.32|host500000");
	expect_no_name(h, "host1000000", PROTO_AF_INET);
	expect_no_name(h, "host0", PROTO_AF_INET6);

	per_line = (double)(i.memory - i.text) / LINES;
	print_message("hosts scale: %d lines, %zu bytes of file, parsed in "
	    "%.3f s; index %zu bytes, names %zu bytes; %.1f bytes a line "
	    "besides the names\n", LINES, len, t1 - t0, i.memory, i.text,
	    per_line);
	assert_true(i.memory > i.text);
	assert_true(i.memory - i.text < (size_t)LINES * 100);
	hosts_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comments_blanks),
		cmocka_unit_test(test_line_endings),
		cmocka_unit_test(test_ipv6_forms),
		cmocka_unit_test(test_invalid_addresses),
		cmocka_unit_test(test_address_only),
		cmocka_unit_test(test_case_insensitive),
		cmocka_unit_test(test_repeated_single),
		cmocka_unit_test(test_repeated_multi),
		cmocka_unit_test(test_views_single),
		cmocka_unit_test(test_views_multi),
		cmocka_unit_test(test_reverse_first),
		cmocka_unit_test(test_same_name_twice),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_too_many_aliases),
		cmocka_unit_test(test_readline_quirk),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_conf_flags),
		cmocka_unit_test(test_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
