/* SPDX-License-Identifier: MIT */
/* tests/unit/test-store.c - the cache's store: its file, its pages, and what the next daemon takes over. */

/*
 * Scenarios of issue 22, on a fake clock: a cache in a file, stopped (or
 * killed: the file is the same), and a new cache that opens the same path
 * and takes over what still holds.  Times are milliseconds since
 * FAKECLOCK_T0 (fakeclock.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache.h"
#include "dnsmsg.h"
#include "fakeclock.h"
#include "proto.h"
#include "store.h"
#include "storefmt.h"

/* A pair's halves, as AF_UNSPEC's search keys them. */
#define PA	(CACHE_KIND_PAIR | DNS_T_A)
#define PAAAA	(CACHE_KIND_PAIR | DNS_T_AAAA)

static char	dir[64];
static char	path[128];

static struct cache_limits
limits(void)
{
	struct cache_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 1000;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	lim.serve_stale = 60;
	return lim;
}

static int
setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/nc-store-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/store", dir);
	return 0;
}

static int
teardown(void **state)
{
	char p[160];

	unlink(path);
	snprintf(p, sizeof(p), "%s.new", path);
	unlink(p);
	rmdir(dir);
	return 0;
}

/* A cache in the file at path, taking over what is there; *rep says what. */
static struct cache *
open_cache(const struct cache_limits *lim, uint64_t search_fp, uint64_t modules_fp,
    struct cache_adopt_report *rep)
{
	struct cache *c;

	assert_non_null(c = cache_new(lim, fakeclock_now, NULL));
	cache_set_fps(c, search_fp, modules_fp);
	assert_int_equal(cache_open_file(c, path, rep), 0);
	return c;
}

/* An address answer body for name: canon, one IPv4 address. */
static size_t
answer(uint8_t *buf, size_t cap, const char *canon, const char *a4)
{
	struct proto_wr		w;
	struct proto_answer_wr	aw;
	uint8_t			addr[4];

	proto_wr_init(&w, buf, cap);
	proto_answer_begin(&aw, &w, 300, PROTO_SRC_DNS, canon, strlen(canon));
	assert_int_equal(inet_pton(AF_INET, a4, addr), 1);
	proto_answer_addr(&aw, PROTO_AF_INET, addr);
	assert_true(proto_answer_end(&aw) >= 0);
	return w.off;
}

static void
put_answer(struct cache *c, const char *name, uint32_t kind, uint32_t ttl,
    const char *a4)
{
	uint8_t	body[300];
	size_t	n = answer(body, sizeof(body), name, a4);

	assert_int_equal(cache_put(c, name, kind, CACHE_POSITIVE, ttl, body, n), 0);
}

/* The address of (name, kind)'s answer, or "" when it has none. */
static const char *
addr_of(struct cache *c, const char *name, uint32_t kind, int *ret_state)
{
	static char		 buf[64];
	struct cache_hit	 h;
	struct proto_answer	 ans;
	size_t			 cur = 0;
	uint8_t			 fam;
	const uint8_t		*a;

	cache_peek(c, name, kind, &h);
	*ret_state = h.state;
	buf[0] = '\0';
	if (h.state == CACHE_MISS || h.status != CACHE_POSITIVE)
		return buf;
	assert_int_equal(proto_answer_decode(h.data, h.len, &ans), 0);
	if (proto_answer_next_addr(&ans, &cur, &fam, &a))
		inet_ntop(AF_INET, a, buf, sizeof(buf));
	return buf;
}

/* Answers fresh, stale and gone: the next daemon takes what may still serve. */
static void
test_adopt_times(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	struct cache_hit		 h;
	int				 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	assert_null(rep.why);
	assert_int_equal(rep.adopted, 0);
	put_answer(c, "long.example", DNS_T_A, 3600, "192.0.2.1");
	put_answer(c, "short.example", DNS_T_A, 10, "192.0.2.2");
	put_answer(c, "gone.example", DNS_T_A, 1, "192.0.2.3");
	assert_int_equal(cache_put(c, "nx.example", DNS_T_A, CACHE_NXDOMAIN, 5,
	    NULL, 0), 0);
	assert_int_equal(cache_put(c, "nodata.example", CACHE_KIND_PAIR | DNS_T_AAAA,
	    CACHE_NODATA, 100, NULL, 0), 0);
	assert_int_equal(cache_put_failure(c, "down.example", DNS_T_A, false), 0);
	/* A failure mark on a live answer survives with it. */
	assert_int_equal(cache_put_failure(c, "long.example", DNS_T_A, false), 0);
	cache_free(c);

	/* 20 s on: short is stale (serve_stale 15), gone is past it (19 s). */
	fakeclock_at(20000);
	lim.serve_stale = 15;
	c = open_cache(&lim, 1, 2, &rep);
	assert_null(rep.why);
	assert_int_equal(rep.adopted, 3);	/* long, short (stale), nodata */
	assert_int_equal(rep.stale, 1);
	assert_int_equal(rep.expired, 3);	/* gone, nx, and down's failure */
	assert_int_equal(rep.dropped, 0);
	assert_string_equal(addr_of(c, "long.example", DNS_T_A, &st), "192.0.2.1");
	assert_int_equal(st, CACHE_FRESH);
	cache_peek(c, "long.example", DNS_T_A, &h);
	assert_int_equal(h.ttl_left, 3580);	/* counted from when it came */
	assert_int_equal(h.ttl, 3600);
	/* short: expired, but may be served stale when upstream fails. */
	cache_peek(c, "short.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_EXPIRED);
	assert_true(h.stale_ok);
	assert_int_equal(cache_put_failure(c, "short.example", DNS_T_A, false), 0);
	assert_string_equal(addr_of(c, "short.example", DNS_T_A, &st), "192.0.2.2");
	assert_int_equal(st, CACHE_FAILING);
	cache_peek(c, "nodata.example", CACHE_KIND_PAIR | DNS_T_AAAA, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	assert_int_equal(h.status, CACHE_NODATA);
	assert_int_equal(h.ttl_left, 80);
	cache_peek(c, "nx.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_peek(c, "down.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_free(c);
}

/* What answers rest on: another search list drops DNS answers, another hosts line modules'. */
static void
test_adopt_fingerprints(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	int				 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	put_answer(c, "dns.example", DNS_T_A, 600, "192.0.2.1");
	put_answer(c, "myhost", CACHE_KIND_NSS | 1 << 8 | 2, 600, "127.0.1.1");
	cache_free(c);

	c = open_cache(&lim, 1, 99, &rep);	/* another hosts line */
	assert_int_equal(rep.adopted, 1);
	assert_int_equal(rep.mismatched, 1);
	assert_string_equal(addr_of(c, "dns.example", DNS_T_A, &st), "192.0.2.1");
	addr_of(c, "myhost", CACHE_KIND_NSS | 1 << 8 | 2, &st);
	assert_int_equal(st, CACHE_MISS);
	put_answer(c, "myhost", CACHE_KIND_NSS | 1 << 8 | 2, 600, "127.0.1.1");
	cache_free(c);

	c = open_cache(&lim, 7, 99, &rep);	/* another search list */
	assert_int_equal(rep.adopted, 1);
	assert_int_equal(rep.mismatched, 1);
	addr_of(c, "dns.example", DNS_T_A, &st);
	assert_int_equal(st, CACHE_MISS);
	assert_string_equal(addr_of(c, "myhost", CACHE_KIND_NSS | 1 << 8 | 2, &st),
	    "127.0.1.1");
	cache_free(c);
}

/* Reads the file at path whole. */
static uint8_t *
slurp(size_t *ret_len)
{
	struct stat	 st;
	uint8_t		*buf;
	int		 fd;

	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_non_null(buf = malloc((size_t)st.st_size));
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*ret_len = (size_t)st.st_size;
	return buf;
}

static void
spill(const uint8_t *buf, size_t len)
{
	int fd;

	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* A cache of n answers at path, closed. */
static void
fill(unsigned n)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	char				 name[64];
	unsigned			 i;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "host%u.example", i);
		put_answer(c, name, DNS_T_A, 600, "192.0.2.9");
	}
	cache_free(c);
}

/* A file refused whole: one reason, and the daemon starts empty. */
static void
expect_refused(const char *want)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c = open_cache(&lim, 1, 2, &rep);

	assert_non_null(rep.why);
	if (want && strstr(rep.why, want) == NULL)
		fail_msg("refused for \"%s\", want \"%s\"", rep.why, want);
	assert_int_equal(rep.adopted, 0);
	assert_int_equal(cache_count(c), 0);
	cache_free(c);
}

static void
test_refused_whole(void **state)
{
	struct store_header	*h;
	uint8_t			*img;
	size_t			 len;

	fill(10);
	img = slurp(&len);
	h = (struct store_header *)img;

	/* Another version. */
	h->version++;
	spill(img, len);
	expect_refused("another version");
	h->version--;
	/* Cut short (a full disk), at the header and in the pages. */
	spill(img, 100);
	expect_refused("shorter than a header");
	spill(img, len - 4096);
	expect_refused("size");
	/* Another boot, and no real time stamped to carry its times over. */
	{
		int64_t rt = h->realtime_ms;

		h->boot_id[3] ^= 1;
		h->realtime_ms = 0;
		spill(img, len);
		expect_refused("boot");
		h->boot_id[3] ^= 1;
		h->realtime_ms = rt;
	}
	/* Garbage. */
	memset(img, 0x5a, len);
	spill(img, len);
	expect_refused("magic");
	free(img);
	/* Not a regular file of ours: a directory where the file was. */
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	{
		struct cache_limits		 lim = limits();
		struct cache_adopt_report	 rep;
		struct cache			*c;

		assert_non_null(c = cache_new(&lim, fakeclock_now, NULL));
		/* It cannot be replaced by a file either: the cache stays in memory. */
		assert_true(cache_open_file(c, path, &rep) < 0);
		put_answer(c, "still.example", DNS_T_A, 60, "192.0.2.1");
		assert_int_equal(cache_count(c), 1);
		cache_free(c);
	}
	rmdir(path);
}

/*
 * Damaged records go, one by one, and the rest is taken: a record whose
 * bytes changed (its check), a slot pointing outside the pages or at the
 * middle of a record, and a record a crash cut off half written.
 */
static void
test_damaged_records(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	struct store_header		*h;
	struct store_rec		*r;
	uint64_t			*slots;
	uint8_t				*img;
	size_t				 len, i, hit = 0, n = 0;
	int				 st;

	fill(50);
	img = slurp(&len);
	h = (struct store_header *)img;
	slots = (uint64_t *)(img + h->slots_off);
	for (i = 0; i < h->nslots && hit < 3; i++) {
		if (slots[i] == 0)
			continue;
		r = (struct store_rec *)(img + h->pages_off + store_slot_off(slots[i]));
		switch (hit++) {
		case 0:		/* a byte of its data changed */
			((uint8_t *)r)[store_rec_len(r) - 9] ^= 0x40;
			break;
		case 1:		/* its slot points past the pages */
			slots[i] = store_slot((uint64_t)h->npages * h->page_size + 64,
			    0) | (slots[i] & 0xffffff);
			break;
		case 2:		/* its slot points into it, not at it */
			slots[i] += 1ULL << 24;
			break;
		}
	}
	/*
	 * Half written: the next record's bytes in the open page, its slot
	 * never stored (the daemon died between the two).  Nothing points at
	 * it: it is never seen.
	 */
	spill(img, len);
	free(img);
	c = open_cache(&lim, 1, 2, &rep);
	assert_null(rep.why);
	assert_int_equal(rep.dropped, 3);
	assert_int_equal(rep.adopted, 47);
	for (i = 0; i < 50; i++) {
		char name[64];

		snprintf(name, sizeof(name), "host%zu.example", i);
		if (strcmp(addr_of(c, name, DNS_T_A, &st), "192.0.2.9") == 0)
			n++;
	}
	assert_int_equal(n, 47);
	cache_free(c);
}

/* A record half written when the daemon died: bytes in the open page, no slot. */
static void
test_half_written(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	struct store_header		*h;
	struct store_rec		*r, *last = NULL;
	uint64_t			*slots, end = 0;
	uint8_t				*img;
	size_t				 len, i;
	int				 st;

	fill(5);
	img = slurp(&len);
	h = (struct store_header *)img;
	slots = (uint64_t *)(img + h->slots_off);
	for (i = 0; i < h->nslots; i++) {
		if (slots[i] && store_slot_off(slots[i]) >= end) {
			last = (struct store_rec *)(img + h->pages_off +
			    store_slot_off(slots[i]));
			end = store_slot_off(slots[i]) + store_rec_len(last);
		}
	}
	assert_non_null(last);
	/* A copy of the last record, renamed, its data half there. */
	r = (struct store_rec *)(img + h->pages_off + end);
	memcpy(r, last, store_rec_len(last) / 2);
	((char *)(r + 1))[4] = '9';
	spill(img, len);
	free(img);
	c = open_cache(&lim, 1, 2, &rep);
	assert_int_equal(rep.adopted, 5);
	assert_int_equal(rep.dropped, 0);
	assert_int_equal(cache_count(c), 5);
	addr_of(c, "host9.example", DNS_T_A, &st);
	assert_int_equal(st, CACHE_MISS);
	cache_free(c);
}

/*
 * Pages cleaned while entries come and go (a store of 4 KiB pages), then
 * taken over: every live entry is there, none that went, and memory
 * follows what is held, not the bound.
 */
static void
test_cleaning(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_stats		 ss;
	struct cache			*c;
	char				 name[64], want[32];
	unsigned			 i, round;
	int				 st;

	lim.store_page = 4096;
	lim.max_entries = 300;
	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 300; i++) {
			snprintf(name, sizeof(name), "h%u.example", (i * 7 + round) % 400);
			snprintf(want, sizeof(want), "192.0.2.%u", round);
			put_answer(c, name, DNS_T_A, 600, want);
		}
	}
	cache_get_store_stats(c, &ss);
	assert_true(ss.cleanings > 0);
	assert_true(ss.relocated > 0);
	assert_int_equal(ss.count, 300);
	/* The pages written hold the live bytes with a fifth to spare, at most. */
	assert_true(ss.pages_used * ss.page_size <= ss.live_bytes * 5 / 4 +
	    3 * (size_t)ss.page_size);
	/* What it holds (sampled LRU: not exactly the last 300 put). */
	{
		struct cache_item	 it;
		size_t			 cur = 0, n = 0;
		static char		 held[300][2][64];

		while (cache_walk(c, &cur, &it)) {
			assert_true(n < 300);
			snprintf(held[n][0], 64, "%s", it.name);
			snprintf(held[n][1], 64, "%s", addr_of(c, it.name, it.kind, &st));
			n++;
		}
		assert_int_equal(n, 300);
		cache_free(c);
		c = open_cache(&lim, 1, 2, &rep);
		assert_int_equal(rep.adopted, 300);
		assert_int_equal(rep.dropped, 0);
		for (i = 0; i < 300; i++)
			assert_string_equal(addr_of(c, held[i][0], DNS_T_A, &st),
			    held[i][1]);
	}
	cache_free(c);
}

/* The store's bounds change at a reload: a new file, every entry in it. */
static void
test_rebuild(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_stats		 a, b;
	struct cache			*c;
	char				 name[64];
	unsigned			 i;
	int				 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "r%u.example", i);
		put_answer(c, name, DNS_T_A, 600, "192.0.2.5");
	}
	cache_get_store_stats(c, &a);
	lim.max_entries = 100000;
	cache_set_limits(c, &lim);
	cache_get_store_stats(c, &b);
	assert_true(b.slots_cap > a.slots_cap);
	assert_true(b.file);
	assert_int_equal(cache_count(c), 500);
	assert_string_equal(addr_of(c, "r499.example", DNS_T_A, &st), "192.0.2.5");
	cache_free(c);
	/* The new file is the one at path. */
	c = open_cache(&lim, 1, 2, &rep);
	assert_int_equal(rep.adopted, 500);
	cache_free(c);
}

/* A body with everything the compact form keeps: canon, aliases, an origin. */
static size_t
full_body(uint8_t *buf, size_t cap, const char *canon, uint32_t ttl, bool origin)
{
	struct proto_wr		w;
	struct proto_answer_wr	aw;
	uint8_t			a4[4] = { 192, 0, 2, 77 }, a6[16] = { 0x20, 1, 0xd, 0xb8 };
	uint8_t			s6[20] = { 0xfe, 0x80 };

	proto_wr_init(&w, buf, cap);
	proto_answer_begin(&aw, &w, ttl, PROTO_SRC_DNS, canon, strlen(canon));
	proto_answer_addr(&aw, PROTO_AF_INET, a4);
	proto_answer_addr(&aw, PROTO_AF_INET6, a6);
	proto_answer_set_scope(s6, 3);
	proto_answer_addr(&aw, PROTO_AF_INET6_SCOPED, s6);
	proto_answer_alias(&aw, "Alias.One.Example", 17);
	proto_answer_alias(&aw, "b.example", 9);
	assert_true(proto_answer_end(&aw) >= 0);
	if (origin)
		proto_put_str(&w, "myhostname", 10);
	assert_int_equal(w.err, 0);
	return w.off;
}

/* The compact form gives back the very bytes that were put. */
static void
test_compact_round_trip(void **state)
{
	static const struct {
		const char	*name, *canon;
		uint32_t	 ttl, rec_ttl;
		bool		 origin;
	} cases[] = {
		{ "www.example", "www.example", 300, 300, false },
		{ "www.example", "WWW.Example", 300, 300, false },	/* canon spelled otherwise */
		{ "www.example", "cdn.example.net", 300, 60, false },	/* another TTL */
		{ "www.example", "www.example", 0, 300, false },	/* as the engine keeps it */
		{ "www.example", "www.example", 0, 0, false },
		{ "myhost", "myhost", 60, 60, true },			/* a module's */
	};
	uint8_t	body[512], c[512], back[512];
	size_t	i, n;
	int	k, m;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = full_body(body, sizeof(body), cases[i].canon, cases[i].ttl, cases[i].origin);
		k = store_compact(body, n, cases[i].name, strlen(cases[i].name),
		    cases[i].rec_ttl, c, sizeof(c));
		assert_true(k > 0 && (size_t)k < n);
		m = store_expand(c, (size_t)k, cases[i].name, strlen(cases[i].name),
		    cases[i].rec_ttl, back, sizeof(back));
		assert_int_equal(m, (int)n);
		assert_memory_equal(back, body, n);
		/* Cut short anywhere: refused, never read past. */
		for (m = 0; m < k; m++)
			assert_int_equal(store_expand(c, (size_t)m, cases[i].name,
			    strlen(cases[i].name), cases[i].rec_ttl, back, sizeof(back)), -1);
	}
	/* What the form cannot hold is refused (and kept as it is). */
	n = full_body(body, sizeof(body), "x.example", 1, false);
	body[n++] = 0;	/* a trailing byte that is no origin */
	assert_int_equal(store_compact(body, n, "x.example", 9, 1, c, sizeof(c)), -1);
	/*
	 * The reference answer, as the DNS source keeps it (TTL 0 in the body,
	 * 3600 in the record): 15 bytes, and a 72-byte record (28 + 26 + 15,
	 * padded).
	 */
	n = answer(body, sizeof(body), "f123456.fill.bench.example", "192.0.2.1");
	{
		uint8_t a2[4] = { 192, 0, 2, 2 };
		struct proto_wr w;
		struct proto_answer_wr aw;

		proto_wr_init(&w, body, sizeof(body));
		proto_answer_begin(&aw, &w, 0, PROTO_SRC_DNS, "f123456.fill.bench.example", 26);
		proto_answer_addr(&aw, PROTO_AF_INET, a2);
		proto_answer_addr(&aw, PROTO_AF_INET, a2);
		assert_true(proto_answer_end(&aw) >= 0);
		n = w.off;
	}
	k = store_compact(body, n, "f123456.fill.bench.example", 26, 3600, c, sizeof(c));
	assert_int_equal(k, 15);
	assert_int_equal(store_rec_size(26, (size_t)k), 72);
}

/*
 * Halves put between cache_hold and cache_release make one record, written
 * once: an AF_UNSPEC answer costs one record's bytes, not an A record that
 * dies when AAAA comes.
 */
static void
test_held_pair(void **state)
{
	struct cache_limits	 lim = limits();
	struct cache_adopt_report rep;
	struct cache_stats	 cs;
	struct store_stats	 a, b;
	struct cache_hit	 h;
	struct cache		*c;
	int			 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	/* Not held: two writes, the first record dead. */
	put_answer(c, "apart.example", PA, 300, "192.0.2.1");
	assert_int_equal(cache_put(c, "apart.example", PAAAA, CACHE_NODATA, 60, NULL, 0), 0);
	cache_get_stats(c, &cs);
	assert_int_equal(cs.insertions, 2);
	cache_get_store_stats(c, &a);
	/* Held: one write, and the same bytes live. */
	cache_hold(c);
	put_answer(c, "held.example", PA, 300, "192.0.2.1");
	assert_int_equal(cache_put(c, "held.example", PAAAA, CACHE_NODATA, 60, NULL, 0), 0);
	cache_get_stats(c, &cs);
	assert_int_equal(cs.insertions, 2);		/* nothing written yet */
	assert_int_equal(cache_release(c), 0);
	cache_get_stats(c, &cs);
	assert_int_equal(cs.insertions, 3);
	cache_get_store_stats(c, &b);
	assert_int_equal(b.live_bytes - a.live_bytes, a.live_bytes);
	fakeclock_at(1000);
	assert_string_equal(addr_of(c, "held.example", PA, &st), "192.0.2.1");
	cache_peek(c, "held.example", PAAAA, &h);
	assert_int_equal(h.status, CACHE_NODATA);
	assert_int_equal(h.ttl_left, 59);
	/*
	 * Held, then another name: the first is written before it.  A failure
	 * is written on what is there: the held record first.  The other
	 * half of a name already known is kept.
	 */
	cache_hold(c);
	put_answer(c, "one.example", PA, 300, "192.0.2.11");
	put_answer(c, "two.example", PA, 300, "192.0.2.12");
	assert_int_equal(cache_put_failure(c, "two.example", PAAAA, false), 0);
	put_answer(c, "held.example", PA, 300, "192.0.2.2");
	assert_int_equal(cache_release(c), 0);
	assert_string_equal(addr_of(c, "one.example", PA, &st), "192.0.2.11");
	assert_string_equal(addr_of(c, "two.example", PA, &st), "192.0.2.12");
	cache_peek(c, "two.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_FAILING);
	assert_string_equal(addr_of(c, "held.example", PA, &st), "192.0.2.2");
	cache_peek(c, "held.example", PAAAA, &h);
	assert_int_equal(h.status, CACHE_NODATA);
	assert_int_equal(cache_count(c), 4);
	cache_free(c);
}

/* A and AAAA of AF_UNSPEC: one record, each half with its own times. */
static void
test_pairs(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct cache			*c;
	struct cache_hit		 h;
	struct cache_item		 it;
	size_t				 cur = 0, n = 0;
	int				 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	put_answer(c, "both.example", PA, 300, "192.0.2.1");
	assert_int_equal(cache_put(c, "both.example", PAAAA, CACHE_NODATA, 60, NULL, 0), 0);
	/* The AAAA half alone first, then A. */
	assert_int_equal(cache_put(c, "six.example", PAAAA, CACHE_NXDOMAIN, 30, NULL, 0), 0);
	put_answer(c, "six.example", PA, 600, "192.0.2.6");
	assert_int_equal(cache_count(c), 2);
	fakeclock_at(1000);
	assert_string_equal(addr_of(c, "both.example", PA, &st), "192.0.2.1");
	cache_peek(c, "both.example", PA, &h);
	assert_int_equal(h.ttl_left, 299);
	cache_peek(c, "both.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_FRESH);
	assert_int_equal(h.status, CACHE_NODATA);
	assert_int_equal(h.ttl_left, 59);
	cache_peek(c, "six.example", PAAAA, &h);
	assert_int_equal(h.status, CACHE_NXDOMAIN);
	assert_int_equal(h.ttl_left, 29);
	/* A half alone is not the single type's entry. */
	cache_peek(c, "both.example", DNS_T_A, &h);
	assert_int_equal(h.state, CACHE_MISS);
	/* A failure of each half: A's in place, AAAA's in a new record. */
	fakeclock_at(61000);
	assert_int_equal(cache_put_failure(c, "both.example", PAAAA, true), 0);
	cache_peek(c, "both.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_FAILING);
	assert_true(h.failed_notfound);
	assert_string_equal(addr_of(c, "both.example", PA, &st), "192.0.2.1");
	assert_int_equal(st, CACHE_FRESH);
	assert_int_equal(cache_put_failure(c, "both.example", PA, false), 0);
	cache_peek(c, "both.example", PA, &h);
	assert_int_equal(h.state, CACHE_FRESH);	/* a refresh's failure */
	assert_false(h.failed_notfound);
	cache_peek(c, "both.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_FAILING);
	/* The walk: two entries a pair. */
	while (cache_walk(c, &cur, &it)) {
		assert_true(it.kind == PA || it.kind == PAAAA);
		n++;
	}
	assert_int_equal(n, 4);
	/* A failure of a half never known: the other half stays. */
	assert_int_equal(cache_put_failure(c, "new.example", PAAAA, false), 0);
	cache_peek(c, "new.example", PA, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_peek(c, "new.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_FAILING);
	cache_free(c);

	/* Taken over half by half: six's AAAA (30 s) is gone, its A stays. */
	fakeclock_at(100000);
	c = open_cache(&lim, 1, 2, &rep);
	assert_null(rep.why);
	assert_int_equal(rep.dropped, 0);
	assert_int_equal(rep.adopted, 2);	/* both, six */
	assert_int_equal(rep.expired, 1);	/* new: a failure only */
	assert_string_equal(addr_of(c, "six.example", PA, &st), "192.0.2.6");
	cache_peek(c, "six.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_MISS);
	assert_string_equal(addr_of(c, "both.example", PA, &st), "192.0.2.1");
	cache_peek(c, "both.example", PAAAA, &h);
	assert_int_equal(h.state, CACHE_MISS);	/* NODATA expired at 60 s */
	assert_int_equal(cache_invalidate(c, "six.example"), 1);
	cache_peek(c, "six.example", PA, &h);
	assert_int_equal(h.state, CACHE_MISS);
	cache_free(c);
}

/*
 * A store on disk (persistent_cache) found after a reboot: its times were
 * that boot's clock, and carry over through the real time it stamped.
 */
static void
test_across_a_reboot(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_header		*h;
	struct cache			*c;
	struct cache_hit		 hit;
	uint8_t				*img, boot[16];
	size_t				 len;
	int				 st;

	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	put_answer(c, "kept.example", DNS_T_A, 3600, "192.0.2.1");
	put_answer(c, "short.example", DNS_T_A, 1, "192.0.2.2");
	cache_free(c);
	img = slurp(&len);
	h = (struct store_header *)img;
	store_boot_id(boot);
	h->boot_id[0] ^= 0xff;		/* the boot before */
	h->realtime_ms -= 100000;	/* and 100 s of real time ago */

	/* This boot's clock started again: 5 s since boot, say. */
	fakeclock_ms = 5000;
	assert_non_null(c = cache_new(&lim, fakeclock_now, NULL));
	cache_set_fps(c, 1, 2);
	assert_int_equal(cache_adopt_image(c, img, len, boot, true, &rep), 0);
	assert_true(rep.rebooted);
	assert_int_equal(rep.adopted, 1);
	/* short expired 99 s ago, past serve_stale (60): left out. */
	assert_int_equal(rep.expired, 1);
	assert_string_equal(addr_of(c, "kept.example", DNS_T_A, &st), "192.0.2.1");
	cache_peek(c, "kept.example", DNS_T_A, &hit);
	/* Its TTL counts on from where it was, less the 100 s. */
	assert_true(hit.ttl_left <= 3500 && hit.ttl_left >= 3490);
	assert_true(hit.expires > fakeclock_ms);
	cache_free(c);

	/* A store without the stamp cannot be carried over: left aside. */
	h->realtime_ms = 0;
	assert_non_null(c = cache_new(&lim, fakeclock_now, NULL));
	cache_set_fps(c, 1, 2);
	assert_int_equal(cache_adopt_image(c, img, len, boot, true, &rep), -EINVAL);
	assert_non_null(strstr(rep.why, "boot"));
	assert_int_equal(cache_count(c), 0);
	cache_free(c);
	free(img);
}

/* The slots in use double as the entries grow, and a grown table is taken over whole. */
static void
test_slots_grow(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_stats		 ss;
	struct cache			*c;
	char				 name[64];
	unsigned			 i, n = 0;
	int				 st;

	lim.max_entries = 100000;
	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	cache_get_store_stats(c, &ss);
	assert_int_equal(ss.nslots, 4096);
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "g%u.example", i);
		put_answer(c, name, DNS_T_A, 600, "192.0.2.3");
	}
	cache_get_store_stats(c, &ss);
	assert_true(ss.grows >= 3);
	assert_true(ss.nslots >= 20000 * 4 / 3 && ss.nslots <= ss.slots_cap);
	for (i = 0; i < 20000; i += 7)  {
		snprintf(name, sizeof(name), "g%u.example", i);
		assert_string_equal(addr_of(c, name, DNS_T_A, &st), "192.0.2.3");
	}
	cache_free(c);
	c = open_cache(&lim, 1, 2, &rep);
	assert_int_equal(rep.adopted, 20000);
	assert_int_equal(rep.dropped, 0);
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "g%u.example", i);
		n += strcmp(addr_of(c, name, DNS_T_A, &st), "192.0.2.3") == 0;
	}
	assert_int_equal(n, 20000);
	/* A flush starts the table small again. */
	cache_flush(c);
	cache_get_store_stats(c, &ss);
	assert_int_equal(ss.nslots, 4096);
	put_answer(c, "after.example", DNS_T_A, 600, "192.0.2.4");
	assert_string_equal(addr_of(c, "after.example", DNS_T_A, &st), "192.0.2.4");
	addr_of(c, "g5.example", DNS_T_A, &st);
	assert_int_equal(st, CACHE_MISS);
	cache_free(c);
}

/*
 * A doubling in steps: while the slots double, every entry put before and
 * during it is found at every put, no put moves more than
 * STORE_GROW_STEP entries (a counter), and a daemon killed in the middle
 * leaves both tables, which the next one takes over whole.
 */
static void
test_slots_grow_in_steps(void **state)
{
	struct cache_limits		 lim = limits();
	struct cache_adopt_report	 rep;
	struct store_stats		 ss;
	struct cache			*c;
	char				 name[64];
	unsigned			 i, j, n = 0, during = 0, first = 0;
	int				 st;

	lim.max_entries = 100000;
	fakeclock_at(0);
	c = open_cache(&lim, 1, 2, &rep);
	/* Up to the first doubling, then through it, checking at every put. */
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "s%u.example", i);
		put_answer(c, name, DNS_T_A, 600, "192.0.2.5");
		cache_get_store_stats(c, &ss);
		if (ss.old_nslots == 0) {
			if (during > 0)
				break;
			continue;
		}
		if (during++ == 0)
			first = i;
		assert_true(ss.grow_step_max <= STORE_GROW_STEP);
		/* Every entry, at every fourth put (and the first and last). */
		if (during % 4 != 1)
			continue;
		for (j = 0; j <= i; j++) {
			snprintf(name, sizeof(name), "s%u.example", j);
			if (strcmp(addr_of(c, name, DNS_T_A, &st), "192.0.2.5") != 0)
				fail_msg("s%u.example lost at put %u of a doubling", j, during);
		}
	}
	/* And after it. */
	for (j = 0; j <= i; j++) {
		snprintf(name, sizeof(name), "s%u.example", j);
		assert_string_equal(addr_of(c, name, DNS_T_A, &st), "192.0.2.5");
	}
	/* It took many puts, each a few moves; all moved, none lost. */
	assert_int_equal(ss.grows, 1);
	assert_int_equal(ss.nslots, 8192);
	assert_true(during >= 4096 / STORE_GROW_STEP - 1);
	assert_true(ss.grow_step_max >= 1 && ss.grow_step_max <= STORE_GROW_STEP);
	assert_int_equal(ss.grow_moved, first);
	assert_int_equal(cache_count(c), i + 1);
	/* The next doubling, stopped halfway: the file has both tables. */
	for (i = i + 1; i < 20000; i++) {
		snprintf(name, sizeof(name), "s%u.example", i);
		put_answer(c, name, DNS_T_A, 600, "192.0.2.5");
		cache_get_store_stats(c, &ss);
		if (ss.grows == 2 && ss.old_nslots > 0 && n++ == 100)
			break;
	}
	assert_int_equal(n, 101);
	assert_int_equal(ss.old_nslots, 8192);
	n = (unsigned)cache_count(c);
	cache_free(c);		/* as a SIGKILL leaves it: the file is the same */
	c = open_cache(&lim, 1, 2, &rep);
	assert_null(rep.why);
	assert_int_equal(rep.adopted, n);
	assert_int_equal(rep.dropped, 0);
	for (i = 0, j = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%u.example", i);
		j += strcmp(addr_of(c, name, DNS_T_A, &st), "192.0.2.5") == 0;
	}
	assert_int_equal(j, n);
	cache_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adopt_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_fingerprints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_half_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleaning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebuild, setup, teardown),
		cmocka_unit_test(test_compact_round_trip),
		cmocka_unit_test_setup_teardown(test_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_across_a_reboot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slots_grow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slots_grow_in_steps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
