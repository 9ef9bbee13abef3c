/* SPDX-License-Identifier: MIT */
/* tests/unit/test-shm.c - the shared answer segment: writer, reader, format checks. */

/*
 * The writer (daemon/engine/shm.c) and the reader (client-lib/shared.c) meet in a
 * temporary folder, as the daemon and a client meet beside the socket: the
 * writer makes "<tmp>/cache" and the reader is given "<tmp>/sock".  The
 * reader keeps its mapping in static state, so every test starts and ends
 * with ncc_shared_forget().  The format's checks (proto/shmfmt.c) are also
 * driven directly, on segments built by hand in heap buffers of exactly
 * their size, so that under ASan any read outside them is caught.
 */
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "proto.h"
#include "shared.h"
#include "shm.h"
#include "shmfmt.h"

#define SEC	1000000000LL

struct fx {
	char		 dir[64];
	char		 sock[128];
	char		 path[128];
	struct shm	*s;
};

/*
 * The reader's clock (client-lib/shared.c with NCC_SHARED_TESTING): stopped
 * at the start of each test, and moved only by the test.  Expiry, the last
 * tenth, the heartbeat's age and the retry second are all read on it, so
 * nothing here waits for time to pass.  (The writer's own clock, for its
 * heartbeat at the start and its retry second, is the real one: within a
 * test they are milliseconds apart.)
 */
static int64_t
mono_ns(void)
{
	return ncc_shared_test_now();
}

/* Moves the reader's clock on by ns. */
static void
advance(int64_t ns)
{
	ncc_shared_test_clock(mono_ns() + ns);
}

/*
 * Moves the reader's clock to its next try: after an open that failed it
 * tries again a second later (retry_at) and not before.  Nothing sleeps.
 */
static void
pass_retry(void)
{
	int64_t at = ncc_shared_test_retry_at();

	if (at > mono_ns())
		ncc_shared_test_clock(at);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/test-shm.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->sock, sizeof(f->sock), "%s/sock", f->dir);
	assert_int_equal(shm_path(f->sock, f->path, sizeof(f->path)), 0);
	ncc_shared_forget();
	ncc_shared_test_clock(0);
	ncc_shared_test_clock(ncc_shared_test_now());
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;
	char		 cmd[128];

	ncc_shared_forget();
	ncc_shared_test_clock(0);
	shm_free(f->s, SHM_LEAVE_GONE);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(f);
	return 0;
}

/* A writer with nslots slots and data bytes of records. */
static struct shm *
writer(struct fx *f, uint32_t nslots, size_t data)
{
	f->s = shm_new(f->path, nslots, data);
	assert_non_null(f->s);
	return f->s;
}

static int
put(struct fx *f, uint8_t kind, uint8_t family, const void *key, size_t key_len,
    bool exact, uint8_t status, int64_t expires, uint32_t ttl, const void *body,
    size_t body_len)
{
	return shm_put(f->s, kind, family, key, key_len, exact, status, expires, ttl,
	    body, body_len);
}

static void
put_name(struct fx *f, const char *name, uint8_t family, bool exact,
    uint8_t status, const char *body)
{
	assert_int_equal(put(f, SHM_NAME, family, name, strlen(name), exact, status,
	    SHM_FOREVER, 0, body, strlen(body)), 0);
}

static int
look(struct fx *f, uint8_t kind, uint8_t family, const void *key, size_t key_len,
    struct ncc_shared_hit *hit)
{
	memset(hit, 0, sizeof(*hit));
	return ncc_shared_lookup(f->sock, kind, family, key, key_len, hit);
}

/* The name is found with this body and status. */
static void
expect_name(struct fx *f, const char *name, uint8_t family, uint8_t status,
    const char *body)
{
	struct ncc_shared_hit hit;

	if (look(f, SHM_NAME, family, name, strlen(name), &hit) != 1)
		fail_msg("%s (family %u): not found, want \"%s\"", name, family, body);
	assert_int_equal(hit.status, status);
	assert_int_equal(hit.body_len, strlen(body));
	assert_memory_equal(hit.body, body, hit.body_len);
	ncc_shared_release(&hit);
	assert_null(hit.map);
}

static void
expect_miss(struct fx *f, uint8_t kind, uint8_t family, const void *key, size_t len)
{
	struct ncc_shared_hit hit;

	if (look(f, kind, family, key, len, &hit) != 0)
		fail_msg("found what should be a miss (kind %u family %u len %zu)",
		    kind, family, len);
}

static void
expect_name_miss(struct fx *f, const char *name, uint8_t family)
{
	expect_miss(f, SHM_NAME, family, name, strlen(name));
}

static struct shm_stats
stats(struct fx *f)
{
	struct shm_stats st;

	shm_get_stats(f->s, &st);
	return st;
}

/*
 * Mappings of the segment's path (live or deleted) in this process: not the
 * writer's spare (path.XXXXXX).  The writer's helper thread unmaps the
 * segments resets retire a moment later, so this waits for the count to
 * come down to at most want (0: no wait), for up to 30 s: "hung".
 */
static int
mappings_of_want(const char *path, int want)
{
	char	 line[512], *p;
	size_t	 len = strlen(path);
	int	 n, tries;

	for (tries = 0; tries < 3000; tries++) {
		FILE *fp = fopen("/proc/self/maps", "r");

		assert_non_null(fp);
		n = 0;
		while (fgets(line, sizeof(line), fp))
			if ((p = strstr(line, path)) != NULL &&
			    (p[len] == '\n' || strncmp(p + len, " (deleted)", 10) == 0))
				n++;
		fclose(fp);
		if (want == 0 || n <= want)
			break;
		usleep(10000);
	}
	return n;
}


/* --- paths ------------------------------------------------------------------- */

static void
test_path(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(shm_path("/run/namecache/socket", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/run/namecache/cache");
	assert_int_equal(shm_path("/s", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/cache");
	assert_int_equal(shm_path("relative", buf, sizeof(buf)), -ENAMETOOLONG);
	assert_int_equal(shm_path("/a/b", buf, 9), 0);		/* "/a/cache" and NUL fit */
	assert_string_equal(buf, "/a/cache");
	assert_int_equal(shm_path("/a/b", buf, 8), -ENAMETOOLONG);
	assert_int_equal(shm_path("/0123456789/0123456789/0123456789/s", buf,
	    sizeof(buf)), -ENAMETOOLONG);
}

/* --- put and find ------------------------------------------------------------ */

static void
test_names(void **state)
{
	struct fx *f = *state;

	writer(f, 1024, 1 << 20);
	put_name(f, "Host.Example", PROTO_AF_INET, false, PROTO_OK, "folded");
	expect_name(f, "Host.Example", PROTO_AF_INET, PROTO_OK, "folded");
	expect_name(f, "host.example", PROTO_AF_INET, PROTO_OK, "folded");
	expect_name(f, "HOST.EXAMPLE", PROTO_AF_INET, PROTO_OK, "folded");
	expect_name_miss(f, "host.exampl", PROTO_AF_INET);
	expect_name_miss(f, "host.example.", PROTO_AF_INET);
	expect_name_miss(f, "Host.Example", PROTO_AF_INET6);
	expect_name_miss(f, "Host.Example", PROTO_AF_UNSPEC);
	/* As spelled only. */
	put_name(f, "Mixed.Case", PROTO_AF_INET, true, PROTO_OK, "exact");
	expect_name(f, "Mixed.Case", PROTO_AF_INET, PROTO_OK, "exact");
	expect_name_miss(f, "mixed.case", PROTO_AF_INET);
	expect_name_miss(f, "MIXED.CASE", PROTO_AF_INET);
	/*
	 * Another spelling replaces it: one record per case-folded name, so
	 * that no older record can hide a newer one from a reader's probe.
	 */
	put_name(f, "mixed.case", PROTO_AF_INET, true, PROTO_OK, "lower");
	expect_name(f, "mixed.case", PROTO_AF_INET, PROTO_OK, "lower");
	expect_name_miss(f, "Mixed.Case", PROTO_AF_INET);
	/* Folding is ASCII only: bytes above 127 are compared as they are. */
	put_name(f, "caf\xc3\xa9.example", PROTO_AF_INET, false, PROTO_OK, "utf8");
	expect_name(f, "CAF\xc3\xa9.example", PROTO_AF_INET, PROTO_OK, "utf8");
	expect_name_miss(f, "caf\xc3\x89.example", PROTO_AF_INET);
	/* Characters next to the letters fold to nothing ('@' and '`', '[' and '{'). */
	put_name(f, "a@[.x", PROTO_AF_INET, false, PROTO_OK, "punct");
	expect_name(f, "A@[.X", PROTO_AF_INET, PROTO_OK, "punct");
	expect_name_miss(f, "a`{.x", PROTO_AF_INET);
}

static void
test_addresses(void **state)
{
	struct fx	*f = *state;
	const uint8_t	 v4[4] = { 'A', 'B', 10, 1 }, v4lower[4] = { 'a', 'b', 10, 1 };
	uint8_t		 v6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	struct ncc_shared_hit hit;

	v6[15] = 7;
	writer(f, 1024, 1 << 20);
	assert_int_equal(put(f, SHM_ADDR, PROTO_AF_INET, v4, 4, false, PROTO_OK,
	    SHM_FOREVER, 0, "four", 4), 0);
	assert_int_equal(put(f, SHM_ADDR, PROTO_AF_INET6, v6, 16, false,
	    PROTO_NOTFOUND, SHM_FOREVER, 0, "", 0), 0);
	assert_int_equal(look(f, SHM_ADDR, PROTO_AF_INET, v4, 4, &hit), 1);
	assert_int_equal(hit.status, PROTO_OK);
	assert_int_equal(hit.body_len, 4);
	assert_memory_equal(hit.body, "four", 4);
	assert_int_equal(hit.ttl_left, 0);
	ncc_shared_release(&hit);
	/* Address bytes are never case-folded, even when they look like letters. */
	expect_miss(f, SHM_ADDR, PROTO_AF_INET, v4lower, 4);
	/* Nor found as a name, nor under the other family. */
	expect_miss(f, SHM_NAME, PROTO_AF_INET, v4, 4);
	expect_miss(f, SHM_ADDR, PROTO_AF_INET6, v4, 4);
	assert_int_equal(look(f, SHM_ADDR, PROTO_AF_INET6, v6, 16, &hit), 1);
	assert_int_equal(hit.status, PROTO_NOTFOUND);
	assert_int_equal(hit.body_len, 0);
	ncc_shared_release(&hit);
	v6[15] = 8;
	expect_miss(f, SHM_ADDR, PROTO_AF_INET6, v6, 16);
	expect_miss(f, SHM_ADDR, PROTO_AF_INET6, v6, 15);
}

static void
test_families_and_statuses(void **state)
{
	struct fx *f = *state;

	writer(f, 1024, 1 << 20);
	put_name(f, "f.example", PROTO_AF_INET, false, PROTO_OK, "v4");
	put_name(f, "f.example", PROTO_AF_INET6, false, PROTO_NODATA, "");
	put_name(f, "f.example", PROTO_AF_UNSPEC, false, PROTO_OK, "both");
	put_name(f, "nx.example", PROTO_AF_INET, false, PROTO_NOTFOUND, "");
	expect_name(f, "f.example", PROTO_AF_INET, PROTO_OK, "v4");
	expect_name(f, "F.example", PROTO_AF_INET6, PROTO_NODATA, "");
	expect_name(f, "f.EXAMPLE", PROTO_AF_UNSPEC, PROTO_OK, "both");
	expect_name(f, "nx.example", PROTO_AF_INET, PROTO_NOTFOUND, "");
	expect_name_miss(f, "nx.example", PROTO_AF_INET6);
}

static void
test_replace(void **state)
{
	struct fx		*f = *state;
	struct shm_stats	 st;
	int64_t			 exp = mono_ns() + 3600 * SEC;

	writer(f, 1024, 1 << 20);
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "first");
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "second");
	expect_name(f, "r.example", PROTO_AF_INET, PROTO_OK, "second");
	/* Another spelling of a folded name replaces it too. */
	put_name(f, "R.EXAMPLE", PROTO_AF_INET, false, PROTO_NOTFOUND, "");
	expect_name(f, "r.example", PROTO_AF_INET, PROTO_NOTFOUND, "");
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "third");
	expect_name(f, "R.Example", PROTO_AF_INET, PROTO_OK, "third");
	/* The same answer again appends nothing. */
	st = stats(f);
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "third");
	assert_int_equal(stats(f).used, st.used);
	assert_int_equal(stats(f).published, st.published);
	/* A new expiry is a new record. */
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "r.example", 9, false,
	    PROTO_OK, exp, 3600, "third", 5), 0);
	assert_true(stats(f).used > st.used);
	st = stats(f);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "r.example", 9, false,
	    PROTO_OK, exp, 3600, "third", 5), 0);
	assert_int_equal(stats(f).used, st.used);
	/* Many replacements of one key: one slot, the last answer. */
	for (int i = 0; i < 500; i++) {
		char body[32];

		snprintf(body, sizeof(body), "answer %d", i);
		put_name(f, "many.example", PROTO_AF_INET, false, PROTO_OK, body);
	}
	expect_name(f, "many.example", PROTO_AF_INET, PROTO_OK, "answer 499");
	expect_name(f, "r.example", PROTO_AF_INET, PROTO_OK, "third");
}

/*
 * An answer whose record is expired must not hide a newer answer for the
 * same question.  A negative answer is published case-folded, a positive
 * DNS answer as spelled: when a name asked as "Gone.Example" was NXDOMAIN,
 * and later exists and is asked as "gone.example", the writer appends the
 * new record in a later slot (neither matches the other for it), but the
 * reader's probe meets the old, folded, expired record first, returns "not
 * here", and every lookup of the name goes to the socket until the
 * segment is replaced.
 */
static void
test_expired_record_does_not_hide_a_newer_one(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	int64_t			 now = mono_ns();

	writer(f, 1024, 1 << 20);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "Gone.Example", 12, false,
	    PROTO_NOTFOUND, now - SEC, 60, "", 0), 0);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "gone.example", 12, true,
	    PROTO_OK, now + 3600 * SEC, 3600, "new", 3), 0);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "gone.example", 12, &hit), 1);
	assert_int_equal(hit.status, PROTO_OK);
	ncc_shared_release(&hit);

	/* The other way round: an exact positive, expired; then a negative. */
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET6, "Came.Back", 9, true,
	    PROTO_OK, now - SEC, 60, "old", 3), 0);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET6, "came.back", 9, false,
	    PROTO_NOTFOUND, now + 3600 * SEC, 3600, "", 0), 0);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET6, "Came.Back", 9, &hit), 1);
	assert_int_equal(hit.status, PROTO_NOTFOUND);
	ncc_shared_release(&hit);
}

/* --- time -------------------------------------------------------------------- */

static void
test_expiry(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	int64_t			 now = mono_ns();

	writer(f, 1024, 1 << 20);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "old", 3, false, PROTO_OK,
	    now - 1, 10, "x", 1), 0);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "neg", 3, false,
	    PROTO_NOTFOUND, now - SEC, 10, "", 0), 0);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "soon", 4, false, PROTO_OK,
	    now + 300 * 1000000LL, 0, "x", 1), 0);
	expect_name_miss(f, "old", PROTO_AF_INET);
	expect_name_miss(f, "neg", PROTO_AF_INET);
	/* TTL 0: no last tenth to keep out of; a hit until it expires. */
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "soon", 4, &hit), 1);
	assert_int_equal(hit.ttl_left, 1);
	ncc_shared_release(&hit);
	advance(350 * 1000000LL);
	expect_name_miss(f, "soon", PROTO_AF_INET);
	/* Hosts answers never expire, and say TTL 0. */
	put_name(f, "forever", PROTO_AF_INET, false, PROTO_OK, "h");
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "forever", 7, &hit), 1);
	assert_int_equal(hit.ttl_left, 0);
	ncc_shared_release(&hit);
}

static void
test_ten_percent(void **state)
{
	static const struct {
		const char	*name;
		int64_t		 left_ms;
		uint32_t	 ttl;
		int		 hit;
		uint32_t	 ttl_left;
	} cases[] = {
		{ "t100-5",	5000,	100,	0, 0 },
		{ "t100-9.9",	9900,	100,	0, 0 },
		{ "t100-10.5",	10500,	100,	1, 11 },
		{ "t100-50",	50000,	100,	1, 50 },
		{ "t100-50.4",	50400,	100,	1, 51 },
		{ "t10-1.5",	1500,	10,	1, 2 },
		{ "t10-0.9",	900,	10,	0, 0 },
		{ "t10-9.99",	9990,	10,	1, 10 },
		{ "t1-0.5",	500,	1,	1, 1 },
		{ "t1-0.05",	50,	1,	0, 0 },
		{ "t3600-400",	400000,	3600,	1, 400 },
		{ "t3600-300",	300000,	3600,	0, 0 },
		{ "tmax",	3600000, UINT32_MAX, 0, 0 },
	};
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	int64_t			 now = mono_ns();
	size_t			 i;

	writer(f, 1024, 1 << 20);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, cases[i].name,
		    strlen(cases[i].name), false, PROTO_OK,
		    now + cases[i].left_ms * 1000000LL, cases[i].ttl, "b", 1), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = look(f, SHM_NAME, PROTO_AF_INET, cases[i].name,
		    strlen(cases[i].name), &hit);

		if (r != cases[i].hit)
			fail_msg("%s: lookup %d, want %d", cases[i].name, r,
			    cases[i].hit);
		if (r == 1) {
			if (hit.ttl_left != cases[i].ttl_left)
				fail_msg("%s: ttl_left %u, want %u", cases[i].name,
				    hit.ttl_left, cases[i].ttl_left);
			ncc_shared_release(&hit);
		}
	}
}

/* --- new segments, retirement, liveness --------------------------------------- */

static void
test_reset_keeps_old_hits(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 held, hit;
	struct shm_stats	 st;
	uint64_t		 gen;
	char			 body[4000];
	int			 i;

	writer(f, 1024, 1 << 20);
	memset(body, 'q', sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	put_name(f, "keep.example", PROTO_AF_INET, false, PROTO_OK, body);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "keep.example", 12, &held), 1);
	gen = stats(f).generation;
	assert_int_equal(shm_reset(f->s), 0);
	st = stats(f);
	assert_int_not_equal(st.generation, gen);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.used, 0);
	/* New lookups see the new, empty segment at once. */
	expect_name_miss(f, "keep.example", PROTO_AF_INET);
	put_name(f, "keep.example", PROTO_AF_INET, false, PROTO_OK, "new");
	expect_name(f, "keep.example", PROTO_AF_INET, PROTO_OK, "new");
	/* The old hit still reads the old, whole answer. */
	assert_int_equal(held.body_len, strlen(body));
	assert_memory_equal(held.body, body, held.body_len);
	ncc_shared_release(&held);

	/* Resets with hits held and let go: old mappings do not pile up. */
	for (i = 0; i < 30; i++) {
		assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "keep.example", 12,
		    &held), 1);
		assert_int_equal(shm_reset(f->s), 0);
		put_name(f, "keep.example", PROTO_AF_INET, false, PROTO_OK,
		    i % 2 ? "odd" : "even");
		assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "keep.example", 12,
		    &hit), 1);
		assert_memory_equal(hit.body, i % 2 ? "odd" : "even", hit.body_len);
		ncc_shared_release(&hit);
		assert_int_equal(held.status, PROTO_OK);
		ncc_shared_release(&held);
	}
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "keep.example", 12, &hit), 1);
	ncc_shared_release(&hit);
	/* The writer's own mapping, and at most two of the reader's. */
	i = mappings_of_want(f->path, 3);
	print_message("mappings of the segment after 31 resets: %d\n", i);
	assert_true(i <= 3);
	ncc_shared_forget();
	assert_int_equal(mappings_of_want(f->path, 1), 1);
}

/* More generations held at once than the reader keeps mappings for. */
static void
test_hits_held_across_many_resets(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 held[12];
	char			 body[12][16];
	int			 i, n = 0, missed = 0;

	writer(f, 1024, 1 << 20);
	for (i = 0; i < 12; i++) {
		snprintf(body[i], sizeof(body[i]), "generation %d", i);
		put_name(f, "g.example", PROTO_AF_INET, false, PROTO_OK, body[i]);
		if (look(f, SHM_NAME, PROTO_AF_INET, "g.example", 9, &held[i]) == 1)
			n++;
		else
			missed++;
		assert_int_equal(shm_reset(f->s), 0);
	}
	print_message("held %d generations at once; %d lookups fell back\n", n,
	    missed);
	assert_true(n >= 4);
	for (i = 0; i < 12; i++) {
		if (held[i].map == NULL)
			continue;
		assert_int_equal(held[i].body_len, strlen(body[i]));
		assert_memory_equal(held[i].body, body[i], held[i].body_len);
	}
	for (i = 0; i < 12; i++)
		ncc_shared_release(&held[i]);
	/* Everything let go: the current segment is used again (at the next try). */
	put_name(f, "g.example", PROTO_AF_INET, false, PROTO_OK, "last");
	pass_retry();
	expect_name(f, "g.example", PROTO_AF_INET, PROTO_OK, "last");
}

static void
test_retired(void **state)
{
	struct fx	*f = *state;

	writer(f, 1024, 1 << 20);
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "one");
	expect_name(f, "r.example", PROTO_AF_INET, PROTO_OK, "one");
	/* The daemon stops, leaving the file: retired, unused at once. */
	shm_free(f->s, SHM_LEAVE_RETIRED);
	f->s = NULL;
	expect_name_miss(f, "r.example", PROTO_AF_INET);
	/* A new daemon: its answers are read at the reader's next try. */
	writer(f, 1024, 1 << 20);
	put_name(f, "r.example", PROTO_AF_INET, false, PROTO_OK, "two");
	pass_retry();
	expect_name(f, "r.example", PROTO_AF_INET, PROTO_OK, "two");
	/* The daemon stops and removes the file. */
	shm_free(f->s, SHM_LEAVE_GONE);
	f->s = NULL;
	expect_name_miss(f, "r.example", PROTO_AF_INET);
	assert_int_equal(access(f->path, F_OK), -1);
}

/* A daemon killed, and a new one started: the new one retires the old file. */
static void
test_new_writer_retires_old(void **state)
{
	struct fx	*f = *state;
	struct shm	*old;

	writer(f, 1024, 1 << 20);
	put_name(f, "k.example", PROTO_AF_INET, false, PROTO_OK, "old");
	expect_name(f, "k.example", PROTO_AF_INET, PROTO_OK, "old");
	old = f->s;
	writer(f, 1024, 1 << 20);	/* as if the first had been SIGKILLed */
	expect_name_miss(f, "k.example", PROTO_AF_INET);
	put_name(f, "k.example", PROTO_AF_INET, false, PROTO_OK, "new");
	expect_name(f, "k.example", PROTO_AF_INET, PROTO_OK, "new");
	/* The dead one's memory goes; the file it named is the new one's. */
	shm_free(old, SHM_LEAVE_RETIRED);
	expect_name(f, "k.example", PROTO_AF_INET, PROTO_OK, "new");
}

/*
 * A daemon that stops under socket activation leaves its segment live:
 * readers go on with its answers until the next daemon's replaces it.
 */
static void
test_left_live(void **state)
{
	struct fx	*f = *state;
	int64_t		 beat, age;

	writer(f, 1024, 1 << 20);
	put_name(f, "l.example", PROTO_AF_INET, false, PROTO_OK, "old");
	expect_name(f, "l.example", PROTO_AF_INET, PROTO_OK, "old");
	assert_int_equal(ncc_shared_beat(f->sock, &beat, &age), 1);
	shm_free(f->s, SHM_LEAVE_LIVE);
	f->s = NULL;
	assert_int_equal(access(f->path, F_OK), 0);
	expect_name(f, "l.example", PROTO_AF_INET, PROTO_OK, "old");
	/* Stopped: no beat for a waiting client to judge a hang by. */
	assert_int_equal(ncc_shared_beat(f->sock, &beat, &age), 0);
	/* The next daemon: the old one retired, its own read. */
	writer(f, 1024, 1 << 20);
	expect_name_miss(f, "l.example", PROTO_AF_INET);
	put_name(f, "l.example", PROTO_AF_INET, false, PROTO_OK, "new");
	expect_name(f, "l.example", PROTO_AF_INET, PROTO_OK, "new");
}

static void
test_stale_heartbeat(void **state)
{
	struct fx	*f = *state;

	writer(f, 1024, 1 << 20);
	put_name(f, "hb.example", PROTO_AF_INET, false, PROTO_OK, "alive");
	expect_name(f, "hb.example", PROTO_AF_INET, PROTO_OK, "alive");
	shm_heartbeat(f->s, mono_ns() - 10 * SEC);
	expect_name_miss(f, "hb.example", PROTO_AF_INET);
	expect_name_miss(f, "hb.example", PROTO_AF_INET);
	/* Just outside the 5 s rule, and just inside it, each looked at on
	 * the reader's next try (before it, the retry second alone says no). */
	pass_retry();
	shm_heartbeat(f->s, mono_ns() - SHM_STALE_NS - 50000000LL);
	expect_name_miss(f, "hb.example", PROTO_AF_INET);
	pass_retry();
	shm_heartbeat(f->s, mono_ns() - SHM_STALE_NS + 500000000LL);
	expect_name(f, "hb.example", PROTO_AF_INET, PROTO_OK, "alive");
	shm_heartbeat(f->s, mono_ns() - 10 * SEC);
	expect_name_miss(f, "hb.example", PROTO_AF_INET);
	pass_retry();
	shm_heartbeat(f->s, mono_ns());
	expect_name(f, "hb.example", PROTO_AF_INET, PROTO_OK, "alive");
}

/* Without a segment, the file is tried at most once a second. */
static void
test_retry_once_a_second(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	int64_t			 t0, at;

	t0 = mono_ns();
	expect_name_miss(f, "late.example", PROTO_AF_INET);
	/* The open failed at t0: the next try is a second later. */
	at = ncc_shared_test_retry_at();
	assert_int_equal(at, t0 + SEC);
	writer(f, 1024, 1 << 20);
	put_name(f, "late.example", PROTO_AF_INET, false, PROTO_OK, "late");
	/* Inside the second: not looked for again (no new try moved retry_at). */
	advance(SEC - 1);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "late.example", 12, &hit), 0);
	assert_int_equal(ncc_shared_test_retry_at(), at);
	/* At the second: tried, found, and nothing more to wait for. */
	advance(1);
	expect_name(f, "late.example", PROTO_AF_INET, PROTO_OK, "late");
	assert_int_equal(ncc_shared_test_retry_at(), 0);
}

/* --- space ------------------------------------------------------------------- */

static void
test_data_full_resets(void **state)
{
	struct fx		*f = *state;
	struct shm_stats	 st;
	char			 name[32], body[1000];
	uint64_t		 gen;
	int			 i;

	writer(f, 1024, 16384);
	st = stats(f);
	assert_int_equal(st.size, 16384);
	gen = st.generation;
	memset(body, 'd', sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	for (i = 0; stats(f).full == 0; i++) {
		assert_true(i < 40);
		snprintf(name, sizeof(name), "d%d.example", i);
		body[0] = (char)('A' + i % 26);
		put_name(f, name, PROTO_AF_INET, false, PROTO_OK, body);
		expect_name(f, name, PROTO_AF_INET, PROTO_OK, body);
	}
	st = stats(f);
	print_message("data area of %zu bytes full after %d records\n", st.size, i - 1);
	assert_int_equal(st.full, 1);
	assert_int_equal(st.resets, 1);
	assert_int_not_equal(st.generation, gen);
	/* Only the record that did not fit is in the new segment. */
	expect_name(f, name, PROTO_AF_INET, PROTO_OK, body);
	expect_name_miss(f, "d0.example", PROTO_AF_INET);
	assert_true(st.used > 0 && st.used <= 1100);
}

/* The whole file is allocated when made: a full /run is an error then, not a SIGBUS later. */
static void
test_file_allocated(void **state)
{
	struct fx	*f = *state;
	struct stat	 st;

	writer(f, 4096, 1 << 20);
	assert_int_equal(stat(f->path, &st), 0);
	assert_true((st.st_mode & 0777) == 0644);
	assert_true(st.st_size >= (1 << 20) + 4096 * 8);
	assert_true((off_t)st.st_blocks * 512 >= st.st_size);
	assert_int_equal(shm_reset(f->s), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_true((off_t)st.st_blocks * 512 >= st.st_size);
}

static void
test_sizing(void **state)
{
	uint32_t	n;
	size_t		d;

	(void)state;
	/* Small caches: room for every answer, and 4 slots each (a power of two). */
	shm_sizes(200, (size_t)16 << 20, &n, &d);
	assert_int_equal(d, 200 * 512 + (1 << 20));
	assert_int_equal(n, 1024);
	/* Large ones: the whole file at most max_bytes, a slot per 40 bytes
	 * of it rounded down to a power of two, the rest records. */
	shm_sizes(1000000, (size_t)8 << 20, &n, &d);
	assert_int_equal(n, 131072);
	assert_int_equal(d, ((size_t)8 << 20) - 131072 * 8 - 8192);
	assert_true(4096 + 4096 + n * 8 + d <= (size_t)8 << 20);
	shm_sizes(1000000, (size_t)16 << 20, &n, &d);
	assert_int_equal(n, 262144);
	assert_true(4096 + 4096 + n * 8 + d <= (size_t)16 << 20);
	shm_sizes(100000000, (size_t)4096 << 20, &n, &d);
	assert_int_equal(n, 1u << 26);
	assert_true(4096 + 4096 + (size_t)n * 8 + d <= (size_t)4096 << 20);
}

/*
 * A reset that cannot make a new segment (here: its folder is gone; in
 * life, /run is full) retires the old one all the same, since what it
 * was to remove must not stay visible; nothing is published until a new
 * segment can be made, tried again after a second.
 */
static void
test_failed_reset_retires(void **state)
{
	struct fx		*f = *state;
	struct shm_stats	 st;
	struct ncc_shared_hit	 hit;
	char			 moved[80];

	writer(f, 1024, 1 << 20);
	put_name(f, "kept.example", PROTO_AF_INET, false, PROTO_OK, "old");
	expect_name(f, "kept.example", PROTO_AF_INET, PROTO_OK, "old");
	snprintf(moved, sizeof(moved), "%s.moved", f->dir);
	assert_int_equal(rename(f->dir, moved), 0);
	assert_true(shm_reset(f->s) < 0);
	st = stats(f);
	assert_true(st.dead);
	assert_int_equal(st.failures, 1);
	/* The reader holds the old mapping: it sees it retired. */
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "kept.example", 12, &hit), 0);
	/* Publishing fails fast within the second, and does not try again. */
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "new.example", 11, false,
	    PROTO_OK, SHM_FOREVER, 0, "new", 3), -ENOSPC);
	assert_int_equal(stats(f).failures, 1);
	assert_int_equal(rename(moved, f->dir), 0);
	sleep_ms(1100);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, "new.example", 11, false,
	    PROTO_OK, SHM_FOREVER, 0, "new", 3), 0);
	st = stats(f);
	assert_false(st.dead);
	pass_retry();
	expect_name(f, "new.example", PROTO_AF_INET, PROTO_OK, "new");
	expect_name_miss(f, "kept.example", PROTO_AF_INET);
}

/* Names whose probe starts at the same slot: the 33rd starts a new segment. */
static void
test_probe_window_full(void **state)
{
	struct fx			*f = *state;
	const struct shm_header		*h;
	struct shm_stats		 st;
	char				 names[SHM_MAX_PROBE + 1][32], probe[32];
	uint64_t			 key[2], home;
	void				*map;
	int				 fd, n = 0;
	unsigned			 i;

	writer(f, 1024, 1 << 20);
	assert_int_equal(stats(f).nslots, 1024);
	/* The segment's hash key, read as any process may read it. */
	assert_true((fd = open(f->path, O_RDONLY)) >= 0);
	map = mmap(NULL, SHM_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(map != MAP_FAILED);
	h = map;
	memcpy(key, h->key, sizeof(key));
	munmap(map, SHM_HEADER_SIZE);
	home = shm_key_hash(key, SHM_NAME, PROTO_AF_INET, "p0.example", 10) & 1023;
	for (i = 0; n <= SHM_MAX_PROBE && i < 10000000; i++) {
		snprintf(probe, sizeof(probe), "p%u.example", i);
		if ((shm_key_hash(key, SHM_NAME, PROTO_AF_INET, probe,
		    strlen(probe)) & 1023) == home)
			memcpy(names[n++], probe, sizeof(probe));
	}
	assert_int_equal(n, SHM_MAX_PROBE + 1);
	for (i = 0; i < SHM_MAX_PROBE; i++)
		put_name(f, names[i], PROTO_AF_INET, false, PROTO_OK, names[i]);
	for (i = 0; i < SHM_MAX_PROBE; i++)
		expect_name(f, names[i], PROTO_AF_INET, PROTO_OK, names[i]);
	/* A name that would need a 33rd probe is simply not found. */
	expect_name_miss(f, names[SHM_MAX_PROBE], PROTO_AF_INET);
	assert_int_equal(stats(f).full, 0);
	put_name(f, names[SHM_MAX_PROBE], PROTO_AF_INET, false, PROTO_OK, "last");
	st = stats(f);
	assert_int_equal(st.full, 1);
	expect_name(f, names[SHM_MAX_PROBE], PROTO_AF_INET, PROTO_OK, "last");
	expect_name_miss(f, names[0], PROTO_AF_INET);
}

/* Keys and bodies of every size up to what fits; -E2BIG beyond, nothing published. */
static void
test_sizes(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	struct shm_stats	 st;
	uint8_t			*key, *body;
	size_t			 k, b, limit, need;

	writer(f, 1024, 1 << 20);
	limit = stats(f).size / 4;
	key = malloc(70000);
	body = malloc(limit + 16);
	assert_non_null(key);
	assert_non_null(body);
	for (k = 0; k < 70000; k++)
		key[k] = (uint8_t)('a' + k % 26);
	for (b = 0; b < limit + 16; b++)
		body[b] = (uint8_t)(b * 7 + 3);

	/* Every key length to 300 (names stop at 254, the hash at 256). */
	for (k = 0; k <= 300; k++) {
		b = (k * 37) % 600;
		key[0] = (uint8_t)('a' + k % 26);
		assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, k, true,
		    PROTO_OK, SHM_FOREVER, 0, body, b), 0);
		assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, key, k, &hit), 1);
		assert_int_equal(hit.body_len, b);
		assert_memory_equal(hit.body, body, b);
		ncc_shared_release(&hit);
	}
	/* Long keys that agree in their first 256 bytes are still two keys. */
	key[0] = 'z';
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, 280, true, PROTO_OK,
	    SHM_FOREVER, 0, "one", 3), 0);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, 281, true, PROTO_OK,
	    SHM_FOREVER, 0, "two", 3), 0);
	key[279] = '#';
	expect_miss(f, SHM_NAME, PROTO_AF_INET, key, 280);
	key[279] = (uint8_t)('a' + 279 % 26);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, key, 280, &hit), 1);
	assert_memory_equal(hit.body, "one", 3);
	ncc_shared_release(&hit);
	/* Every body length to 1100, one key. */
	for (b = 0; b <= 1100; b++) {
		assert_int_equal(put(f, SHM_ADDR, PROTO_AF_INET6, key, 16, false,
		    PROTO_OK, SHM_FOREVER, 0, body + (b % 5), b), 0);
		assert_int_equal(look(f, SHM_ADDR, PROTO_AF_INET6, key, 16, &hit), 1);
		assert_int_equal(hit.body_len, b);
		assert_memory_equal(hit.body, body + (b % 5), b);
		ncc_shared_release(&hit);
	}
	/* At the limit: a record of exactly a quarter of the data area. */
	for (k = 0; k <= 24; k += 3) {
		need = shm_rec_size(k, 0);
		b = limit - need;
		assert_int_equal(shm_rec_size(k, b), limit);
		assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, k, false,
		    PROTO_OK, SHM_FOREVER, 0, body, b), 0);
		assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, key, k, &hit), 1);
		assert_int_equal(hit.body_len, b);
		assert_memory_equal(hit.body, body, b);
		ncc_shared_release(&hit);
		st = stats(f);
		assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, k, false,
		    PROTO_NOTFOUND, SHM_FOREVER, 0, body, b + 1), -E2BIG);
		assert_int_equal(stats(f).published, st.published);
		assert_int_equal(stats(f).generation, st.generation);
		/* Still the answer from before. */
		assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, key, k, &hit), 1);
		assert_int_equal(hit.status, PROTO_OK);
		ncc_shared_release(&hit);
	}
	/* The longest key there is, and one byte more. */
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, 65535, true, PROTO_OK,
	    SHM_FOREVER, 0, "k", 1), 0);
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, key, 65535, &hit), 1);
	assert_memory_equal(hit.body, "k", 1);
	ncc_shared_release(&hit);
	assert_int_equal(put(f, SHM_NAME, PROTO_AF_INET, key, 65536, true, PROTO_OK,
	    SHM_FOREVER, 0, "k", 1), -E2BIG);
	expect_miss(f, SHM_NAME, PROTO_AF_INET, key, 65536);
	free(key);
	free(body);
}

/* --- the reader refuses files it must not trust ------------------------------- */

static void
test_reader_refuses(void **state)
{
	struct fx	*f = *state;
	char		 moved[160];
	int		 fd;

	writer(f, 1024, 1 << 20);
	put_name(f, "t.example", PROTO_AF_INET, false, PROTO_OK, "trusted");
	expect_name(f, "t.example", PROTO_AF_INET, PROTO_OK, "trusted");
	/* Writable by others: not used. */
	assert_int_equal(chmod(f->path, 0666), 0);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	assert_int_equal(chmod(f->path, 0664), 0);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	assert_int_equal(chmod(f->path, 0644), 0);
	pass_retry();
	expect_name(f, "t.example", PROTO_AF_INET, PROTO_OK, "trusted");
	/* A symbolic link: not followed. */
	snprintf(moved, sizeof(moved), "%s/real", f->dir);
	assert_int_equal(rename(f->path, moved), 0);
	assert_int_equal(symlink(moved, f->path), 0);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	assert_int_equal(unlink(f->path), 0);
	/* A folder, a short file, a file of zeros, a file of another format. */
	assert_int_equal(mkdir(f->path, 0755), 0);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	assert_int_equal(rmdir(f->path), 0);
	assert_true((fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	assert_int_equal(write(fd, "NCSHM01", 7), 7);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	assert_int_equal(ftruncate(fd, 65536), 0);
	ncc_shared_forget();
	expect_name_miss(f, "t.example", PROTO_AF_INET);
	close(fd);
	assert_int_equal(unlink(f->path), 0);
	/* Back in place: used again. */
	assert_int_equal(rename(moved, f->path), 0);
	ncc_shared_forget();
	expect_name(f, "t.example", PROTO_AF_INET, PROTO_OK, "trusted");
	/* A socket path without a folder, or too long for the reader. */
	{
		struct ncc_shared_hit	hit;
		char			longp[300];

		assert_int_equal(ncc_shared_lookup("sock", SHM_NAME, PROTO_AF_INET,
		    "t.example", 9, &hit), 0);
		memset(longp, 'x', sizeof(longp) - 1);
		longp[0] = '/';
		longp[sizeof(longp) - 1] = '\0';
		assert_int_equal(ncc_shared_lookup(longp, SHM_NAME, PROTO_AF_INET,
		    "t.example", 9, &hit), 0);
	}
}

static void
test_errno_preserved(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;

	errno = 1234;
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "e", 1, &hit), 0);
	assert_int_equal(errno, 1234);
	writer(f, 1024, 1 << 20);
	put_name(f, "e", PROTO_AF_INET, false, PROTO_OK, "x");
	ncc_shared_forget();
	errno = 4321;
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "e", 1, &hit), 1);
	assert_int_equal(errno, 4321);
	ncc_shared_release(&hit);
	assert_int_equal(errno, 4321);
	errno = 99;
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "f", 1, &hit), 0);
	assert_int_equal(errno, 99);
}

/* A child of a process holding a hit reads the segment on its own. */
static void
test_fork(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 held;
	pid_t			 pid;
	int			 status;

	writer(f, 1024, 1 << 20);
	put_name(f, "fork.example", PROTO_AF_INET, false, PROTO_OK, "parent");
	assert_int_equal(look(f, SHM_NAME, PROTO_AF_INET, "fork.example", 12, &held), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ncc_shared_hit hit;
		int i, ok = 1;

		for (i = 0; i < 100 && ok; i++) {
			ok = ncc_shared_lookup(f->sock, SHM_NAME, PROTO_AF_INET,
			    "fork.example", 12, &hit) == 1 && hit.body_len == 6 &&
			    memcmp(hit.body, "parent", 6) == 0;
			if (ok)
				ncc_shared_release(&hit);
		}
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_memory_equal(held.body, "parent", 6);
	ncc_shared_release(&held);
}

/* --- the format's checks, on segments built by hand ----------------------------- */

#define H_SLOTS		16
#define H_DATA		512
#define H_DATA_OFF	(SHM_HEADER_SIZE + H_SLOTS * 8)
#define H_SIZE		(H_DATA_OFF + H_DATA)

static const uint64_t hkey[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

/* A valid, empty segment of H_SIZE bytes in an exactly sized heap buffer. */
static uint8_t *
hand_segment(void)
{
	uint8_t			*p = calloc(1, H_SIZE);
	struct shm_header	*h = (struct shm_header *)(void *)p;

	assert_non_null(p);
	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->header_size = SHM_HEADER_SIZE;
	h->file_size = H_SIZE;
	h->generation = 7;
	h->nslots = H_SLOTS;
	h->state = SHM_LIVE;
	h->slots_off = SHM_HEADER_SIZE;
	h->data_off = H_DATA_OFF;
	h->data_size = H_DATA;
	h->key[0] = hkey[0];
	h->key[1] = hkey[1];
	return p;
}

static uint64_t *
hslots(uint8_t *p)
{
	return (uint64_t *)(void *)(p + SHM_HEADER_SIZE);
}

static struct shm_rec *
hrec(uint8_t *p, size_t off)
{
	return (struct shm_rec *)(void *)(p + H_DATA_OFF + off);
}

/* Writes a whole record at data offset off; its size. */
static size_t
hand_record(uint8_t *p, size_t off, uint8_t kind, uint8_t family, const char *key,
    const char *body)
{
	struct shm_rec	*r = hrec(p, off);
	size_t		 kl = strlen(key), bl = strlen(body);
	size_t		 n = shm_rec_size(kl, bl);

	assert_true(off + n <= H_DATA);
	memset(r, 0, n);
	r->rec_len = (uint32_t)n;
	r->body_len = (uint32_t)bl;
	r->expires_ns = SHM_FOREVER;
	r->key_len = (uint16_t)kl;
	r->kind = kind;
	r->family = family;
	r->status = PROTO_OK;
	memcpy((uint8_t *)shm_rec_key(r), key, kl);
	memcpy((uint8_t *)shm_rec_body(r), body, bl);
	return n;
}

static uint64_t
hhash(const char *key)
{
	return shm_key_hash(hkey, SHM_NAME, PROTO_AF_INET, key, strlen(key));
}

/* shm_find for a name: NULL, or a record wholly inside the buffer. */
static const struct shm_rec *
hfind(const uint8_t *p, size_t len, const char *key)
{
	const struct shm_rec *r = shm_find(p, len, SHM_NAME, PROTO_AF_INET, key,
	    strlen(key));

	if (r) {
		const uint8_t *start = (const uint8_t *)r;
		const uint8_t *end = shm_rec_body(r) + r->body_len;

		assert_true(start >= p + H_DATA_OFF && end <= p + len);
		assert_true(start + r->rec_len <= p + len);
		assert_int_equal(r->key_len, strlen(key));
	}
	return r;
}

static void
test_check_header(void **state)
{
	struct shm_header	*h;
	uint8_t			*p = hand_segment(), *q;
	int			 i;

	(void)state;
	assert_non_null(shm_check(p, H_SIZE));
	assert_null(shm_check(NULL, H_SIZE));
	assert_null(shm_check(p, SHM_HEADER_SIZE - 1));
	assert_null(shm_check(p, H_SIZE - 1));		/* file_size > len */
	/* A header that is not 8-aligned. */
	q = malloc(H_SIZE + 8);
	assert_non_null(q);
	memcpy(q + 4, p, H_SIZE);
	assert_null(shm_check(q + 4, H_SIZE));
	memcpy(q, p, H_SIZE);
	assert_non_null(shm_check(q, H_SIZE + 8));	/* a longer mapping is fine */
	free(q);

	for (i = 0; i < 22; i++) {
		q = hand_segment();
		h = (struct shm_header *)(void *)q;
		switch (i) {
		case 0:	h->magic ^= 1; break;
		case 1:	h->magic = 0; break;
		case 2:	h->version = 2; break;
		case 3:	h->version = 0; break;
		case 4:	h->header_size = 64; break;
		case 5:	h->header_size = 256; break;
		case 6:	h->file_size = H_SIZE + 1; break;
		case 7:	h->file_size = UINT64_MAX; break;
		case 8:	h->nslots = 0; break;
		case 9:	h->nslots = 12; break;			/* not a power of two */
		case 10: h->nslots = 32; break;			/* slots run into data */
		case 11: h->nslots = 1u << 31; break;
		case 12: h->slots_off = SHM_HEADER_SIZE + 4; break;	/* misaligned */
		case 13: h->slots_off = 64; break;		/* inside the header */
		case 14: h->slots_off = UINT64_MAX - 7; break;	/* wraps */
		case 15: h->slots_off = UINT64_MAX - 127; h->nslots = 16; break;
		case 16: h->data_off = H_DATA_OFF + 4; break;	/* misaligned */
		case 17: h->data_off = H_DATA_OFF - 8; break;	/* over the slots */
		case 18: h->data_off = H_SIZE + 8; h->data_size = 0; break;
		case 19: h->data_size = H_DATA + 8; break;
		case 20: h->data_size = UINT64_MAX; break;
		case 21: h->data_off = UINT64_MAX & ~7ULL; break;
		}
		if (shm_check(q, H_SIZE) != NULL)
			fail_msg("corruption %d passed shm_check", i);
		{
			struct shm_view v;

			if (shm_view_init(q, H_SIZE, &v) != -EBADMSG)
				fail_msg("corruption %d made a view", i);
		}
		/* And so nothing is ever found in it. */
		assert_null(shm_find(q, H_SIZE, SHM_NAME, PROTO_AF_INET, "x", 1));
		free(q);
	}
	/* Smaller, still valid: data right after the slots, an empty data area. */
	h = (struct shm_header *)(void *)p;
	h->data_size = 0;
	assert_non_null(shm_check(p, H_SIZE));
	h->data_off = H_SIZE;
	assert_non_null(shm_check(p, H_SIZE));
	assert_null(shm_find(p, H_SIZE, SHM_NAME, PROTO_AF_INET, "x", 1));
	free(p);
}

static void
test_find_hostile(void **state)
{
	uint8_t		*p = hand_segment();
	uint64_t	*slots = hslots(p);
	struct shm_rec	*r;
	uint64_t	 h, tag, home;
	size_t		 n, i;

	(void)state;
	/* A good record, found. */
	n = hand_record(p, 0, SHM_NAME, PROTO_AF_INET, "good", "body");
	h = hhash("good");
	slots[h & (H_SLOTS - 1)] = shm_slot(0, h);
	r = (struct shm_rec *)hfind(p, H_SIZE, "GOOD");
	assert_non_null(r);
	assert_memory_equal(shm_rec_body(r), "body", 4);
	assert_int_equal(n, shm_rec_size(4, 4));

	/* Every lie a slot or record can tell about "bad", each alone. */
	h = hhash("bad");
	home = h & (H_SLOTS - 1);
	tag = h >> 40 & 0xffffff;
	for (i = 0; i < 16; i++) {
		uint8_t	*q = hand_segment();
		uint64_t *s = hslots(q);
		size_t	 at = 64;

		hand_record(q, at, SHM_NAME, PROTO_AF_INET, "bad", "answer");
		s[home] = shm_slot(at, h);
		r = hrec(q, at);
		switch (i) {
		case 0: s[home] = shm_slot(H_DATA, h); break;		/* at the end */
		case 1: s[home] = shm_slot(H_DATA - 24, h); break;	/* header cut */
		case 2: s[home] = ((1ULL << 40) - 1) << 24 | tag; break;	/* far out */
		case 3: s[home] = shm_slot(H_DATA + 4096, h); break;
		case 4: r->rec_len = H_DATA - (uint32_t)at + 8; break;	/* past the end */
		case 5: r->rec_len = 37; break;				/* not 8-aligned */
		case 6: r->rec_len = UINT32_MAX & ~7u; break;
		case 7: r->rec_len = 8; break;				/* shorter than a header */
		case 8: r->key_len = 200; break;			/* key past rec_len */
		case 9: r->key_len = UINT16_MAX; break;
		case 10: r->body_len = 4096; break;			/* body past rec_len */
		case 11: r->body_len = UINT32_MAX; break;
		case 12: r->body_len = (uint32_t)(H_DATA - at); break;
		case 13: r->rec_len = 0; r->body_len = 0; r->key_len = 0; break;
		case 14: hslots(q)[home] = shm_slot(at, h) ^ 1; break;	/* tag differs */
		case 15: r->kind = SHM_ADDR; break;			/* another kind */
		}
		if (hfind(q, H_SIZE, "bad") != NULL)
			fail_msg("lie %zu: found", i);
		/* The same bytes in a mapping one byte short of the header's size. */
		assert_null(hfind(q, H_SIZE - 1, "bad"));
		free(q);
	}

	/* The last record ends exactly at the end of the buffer: found, in bounds. */
	{
		uint8_t		*q = hand_segment();
		size_t		 rs = shm_rec_size(3, 5), at = H_DATA - rs;

		hand_record(q, at, SHM_NAME, PROTO_AF_INET, "bad", "12345");
		hslots(q)[home] = shm_slot(at, h);
		r = (struct shm_rec *)hfind(q, H_SIZE, "bad");
		assert_non_null(r);
		assert_memory_equal(shm_rec_body(r), "12345", 5);
		/* A body one byte longer than the record has room for: no. */
		r->body_len = 9;
		assert_null(hfind(q, H_SIZE, "bad"));
		free(q);
	}

	/* A full table of slots that all match the tag but not the key: ends. */
	{
		uint8_t	*q = hand_segment();
		uint64_t *s = hslots(q);

		hand_record(q, 0, SHM_NAME, PROTO_AF_INET, "other", "o");
		for (i = 0; i < H_SLOTS; i++)
			s[i] = shm_slot(0, h);
		assert_null(hfind(q, H_SIZE, "bad"));
		/* The probe wraps from the last slot to the first. */
		hand_record(q, 64, SHM_NAME, PROTO_AF_INET, "bad", "wrapped");
		s[(home + H_SLOTS - 1) & (H_SLOTS - 1)] = shm_slot(64, h);
		r = (struct shm_rec *)hfind(q, H_SIZE, "bad");
		assert_non_null(r);
		assert_memory_equal(shm_rec_body(r), "wrapped", 7);
		free(q);
	}

	/* More slots than SHM_MAX_PROBE, all taken by others: the key is not looked for past them. */
	{
		const size_t	 ns = 64, doff = SHM_HEADER_SIZE + 64 * 8;
		const size_t	 size = doff + 4096;
		uint8_t		*q = calloc(1, size);
		struct shm_header *hd = (struct shm_header *)(void *)q;
		uint64_t	*s = (uint64_t *)(void *)(q + SHM_HEADER_SIZE);
		struct shm_rec	*o;
		uint64_t	 hb;

		assert_non_null(q);
		memcpy(hd, p, SHM_HEADER_SIZE);
		hd->file_size = size;
		hd->nslots = (uint32_t)ns;
		hd->data_off = doff;
		hd->data_size = 4096;
		o = (struct shm_rec *)(void *)(q + doff);
		o->rec_len = (uint32_t)shm_rec_size(5, 0);
		o->key_len = 5;
		o->kind = SHM_NAME;
		o->family = PROTO_AF_INET;
		memcpy((uint8_t *)shm_rec_key(o), "other", 5);
		hb = shm_key_hash(hkey, SHM_NAME, PROTO_AF_INET, "bad", 3);
		for (i = 0; i < ns; i++)
			s[i] = shm_slot(0, hb);
		o = (struct shm_rec *)(void *)(q + doff + 64);
		o->rec_len = (uint32_t)shm_rec_size(3, 0);
		o->key_len = 3;
		o->kind = SHM_NAME;
		o->family = PROTO_AF_INET;
		memcpy((uint8_t *)shm_rec_key(o), "bad", 3);
		s[(hb + SHM_MAX_PROBE) & (ns - 1)] = shm_slot(64, hb);
		assert_null(shm_find(q, size, SHM_NAME, PROTO_AF_INET, "bad", 3));
		s[(hb + SHM_MAX_PROBE - 1) & (ns - 1)] = shm_slot(64, hb);
		assert_non_null(shm_find(q, size, SHM_NAME, PROTO_AF_INET, "bad", 3));
		free(q);
	}
	free(p);
}

/*
 * A view keeps what shm_check accepted: a header rewritten afterwards (a
 * hostile writer: the daemon never does) moves no bound, and the body a
 * find returns is where the checked lengths put it.
 */
static void
test_view(void **state)
{
	uint8_t			*p = hand_segment();
	struct shm_header	*h = (struct shm_header *)(void *)p;
	struct shm_view		 v;
	const struct shm_rec	*r;
	const uint8_t		*body;
	uint32_t		 body_len;
	uint64_t		 hs;
	size_t			 at = H_DATA - shm_rec_size(4, 4);

	(void)state;
	hand_record(p, at, SHM_NAME, PROTO_AF_INET, "good", "body");
	hs = hhash("good");
	hslots(p)[hs & (H_SLOTS - 1)] = shm_slot(at, hs);
	assert_int_equal(shm_view_init(p, H_SIZE, &v), 0);
	assert_int_equal(shm_view_init(p, H_SIZE - 1, &v), -EBADMSG);
	assert_int_equal(shm_view_init(p, H_SIZE, &v), 0);
	r = shm_view_find(&v, SHM_NAME, PROTO_AF_INET, "GOOD", 4, &body, &body_len);
	assert_non_null(r);
	assert_ptr_equal(body, shm_rec_body(r));
	assert_int_equal(body_len, 4);
	assert_memory_equal(body, "body", 4);
	assert_null(shm_view_find(&v, SHM_NAME, PROTO_AF_INET6, "good", 4, &body,
	    &body_len));

	/* The header says the data area is larger, and elsewhere: the view does not follow. */
	h->data_size = UINT64_MAX;
	h->data_off = 8;
	h->nslots = 1u << 30;
	h->key[0] ^= 1;
	r = shm_view_find(&v, SHM_NAME, PROTO_AF_INET, "good", 4, &body, &body_len);
	assert_non_null(r);
	assert_ptr_equal(body, p + H_SIZE - 8);
	/* A slot beyond the data area the view was made with: not followed. */
	hslots(p)[hs & (H_SLOTS - 1)] = shm_slot(H_DATA, hs);
	assert_null(shm_view_find(&v, SHM_NAME, PROTO_AF_INET, "good", 4, &body,
	    &body_len));
	free(p);
}

/*
 * The socket path a segment was mapped for finds it at once; another name
 * in the same folder finds the same segment; a path with no folder has no
 * segment, and does not hold the next mapping back by a second.
 */
static void
test_socket_paths(void **state)
{
	struct fx		*f = *state;
	struct ncc_shared_hit	 hit;
	char			 other[160];

	writer(f, 1024, 1 << 20);
	put_name(f, "paths.example", PROTO_AF_INET, false, PROTO_OK, "here");
	memset(&hit, 0, sizeof(hit));
	assert_int_equal(ncc_shared_lookup("relative", SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 0);
	assert_int_equal(ncc_shared_lookup("", SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 0);
	expect_name(f, "paths.example", PROTO_AF_INET, PROTO_OK, "here");
	snprintf(other, sizeof(other), "%s/another-socket", f->dir);
	memset(&hit, 0, sizeof(hit));
	assert_int_equal(ncc_shared_lookup(other, SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 1);
	ncc_shared_release(&hit);
	assert_int_equal(ncc_shared_lookup("relative", SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 0);
	assert_int_equal(ncc_shared_lookup("", SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 0);
	assert_int_equal(ncc_shared_lookup("/nowhere/sock", SHM_NAME, PROTO_AF_INET,
	    "paths.example", 13, &hit), 0);
	expect_name(f, "paths.example", PROTO_AF_INET, PROTO_OK, "here");
}

/* A segment written by shm.c and copied into an exact heap buffer: every byte of it read through shm_find alone. */
static void
test_writer_output_checks(void **state)
{
	struct fx	*f = *state;
	struct stat	 st;
	uint8_t		*copy;
	char		 name[32];
	int		 fd, i;
	ssize_t		 n;

	writer(f, 1024, 65536);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "w%d.Example", i);
		put_name(f, name, i % 2 ? PROTO_AF_INET : PROTO_AF_INET6, i % 3 == 0,
		    PROTO_OK, name);
	}
	assert_true((fd = open(f->path, O_RDONLY)) >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	copy = malloc((size_t)st.st_size);
	assert_non_null(copy);
	n = pread(fd, copy, (size_t)st.st_size, 0);
	close(fd);
	assert_int_equal(n, st.st_size);
	assert_non_null(shm_check(copy, (size_t)st.st_size));
	for (i = 0; i < 50; i++) {
		const struct shm_rec *r;

		snprintf(name, sizeof(name), "w%d.Example", i);
		r = shm_find(copy, (size_t)st.st_size, SHM_NAME,
		    i % 2 ? PROTO_AF_INET : PROTO_AF_INET6, name, strlen(name));
		assert_non_null(r);
		assert_int_equal(r->body_len, strlen(name));
		assert_memory_equal(shm_rec_body(r), name, r->body_len);
		assert_int_equal(r->flags, i % 3 == 0 ? SHM_EXACT : 0);
		assert_int_equal(r->rec_len % 8, 0);
	}
	free(copy);
}

int
main(void)
{
#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		T(test_names),
		T(test_addresses),
		T(test_families_and_statuses),
		T(test_replace),
		T(test_expired_record_does_not_hide_a_newer_one),
		T(test_expiry),
		T(test_ten_percent),
		T(test_reset_keeps_old_hits),
		T(test_hits_held_across_many_resets),
		T(test_retired),
		T(test_new_writer_retires_old),
		T(test_left_live),
		T(test_stale_heartbeat),
		T(test_retry_once_a_second),
		T(test_data_full_resets),
		T(test_probe_window_full),
		T(test_sizes),
		T(test_reader_refuses),
		T(test_errno_preserved),
		T(test_fork),
		cmocka_unit_test(test_check_header),
		cmocka_unit_test(test_find_hostile),
		cmocka_unit_test(test_view),
		T(test_socket_paths),
		T(test_writer_output_checks),
		T(test_file_allocated),
		T(test_sizing),
		T(test_failed_reset_retires),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
