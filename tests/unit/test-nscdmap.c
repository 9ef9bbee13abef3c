/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nscdmap.c - glibc's nscd map: records taken over at a restart, then compacted. */

/*
 * A map a daemon before left is taken over in the order of its hash
 * chains, not of its offsets; a compaction after that must move each
 * record with its hash entry.  (It moved the data and kept the entry's old
 * offset when a record stayed at its index: the next lookup of the bucket
 * read past the data.)  The map here cannot grow, so making room compacts.
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

#include "nscdmap.h"

#define TYPE	14		/* GETAI, as the hosts database's records */
#define KEYS	300

static void
key_of(int i, char *k, size_t len)
{
	snprintf(k, len, "host%04d.test", i);
}

static int
put(struct nscdmap *m, int i, int gen, int64_t now)
{
	char	k[32];
	uint8_t	reply[48];

	key_of(i, k, sizeof(k));
	memset(reply, 0, sizeof(reply));
	snprintf((char *)reply, sizeof(reply), "%s gen %d", k, gen);
	return nscdmap_put(m, TYPE, k, strlen(k) + 1, reply, sizeof(reply),
	    NSCDMAP_FOREVER, 0, true, now);
}

static void
check(struct nscdmap *m, int i, int gen, int64_t now)
{
	const uint8_t	*r;
	size_t		 len;
	uint32_t	 ttl;
	char		 k[32], want[48];

	key_of(i, k, sizeof(k));
	snprintf(want, sizeof(want), "%s gen %d", k, gen);
	assert_int_equal(nscdmap_get(m, TYPE, k, strlen(k) + 1, now, &r, &len, &ttl), 0);
	assert_int_equal(len, 48);
	assert_string_equal((const char *)r, want);
}

static void
test_taken_over_then_compacted(void **state)
{
	char			 dir[] = "/tmp/nc-nscdmap-XXXXXX", path[64];
	struct nscdmap		*m;
	struct nscdmap_stats	 st;
	int			 i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nscd-hosts", dir);
	/* A map that cannot grow past 64 KiB: making room compacts. */
	assert_non_null(m = nscdmap_open(path, 211, 64 << 10));
	for (i = 0; i < KEYS; i++)
		assert_int_equal(put(m, i, 0, 1000), 0);
	for (i = KEYS / 2; i < KEYS; i++)	/* space for a compaction */
		assert_int_equal(put(m, i, 1, 1000), 0);
	nscdmap_get_stats(m, &st);
	assert_int_equal(st.compactions, 0);
	nscdmap_close(m, true);		/* left whole, as a stop leaves it */

	assert_non_null(m = nscdmap_open(path, 211, 64 << 10));
	assert_int_not_equal(nscdmap_left_stamp(m), 0);
	assert_int_equal(nscdmap_take_over(m, 2000), KEYS);
	/* Other names, until room is made: the taken records move. */
	for (i = KEYS; i < KEYS + KEYS / 2; i++)
		assert_int_equal(put(m, i, 2, 3000), 0);
	nscdmap_get_stats(m, &st);
	assert_true(st.compactions > 0);
	assert_int_equal(st.resets, 0);
	assert_int_equal(st.failures, 0);
	for (i = 0; i < KEYS + KEYS / 2; i++)
		check(m, i, i < KEYS / 2 ? 0 : i < KEYS ? 1 : 2, 3000);
	nscdmap_close(m, false);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken_over_then_compacted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
