/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-store.c - fuzz target: the cache's store file, as the next daemon finds it. */

/*
 * A daemon that starts takes over the store the one before it left
 * (cache_adopt_image): a file anyone with root could have written, cut
 * short by a full disk, or left by another version.  No input may make it
 * read outside the image, take a record that breaks the store's rules, or
 * leave the cache unusable.  The input is one control byte, then the image:
 *
 *	bit 0	verify the records' checks (off: the fuzzer reaches the rest,
 *		which a forged file could reach too)
 *	bit 1	make the header plausible: magic, version, header size and
 *		file size fitted to the image, so that most inputs get past
 *		store_check_header and the fuzzer works on slots and records
 *
 * The image is copied into a heap buffer of exactly its size (8-aligned,
 * as a mapping is), so under ASan any read past it is caught.  After the
 * copy, every entry taken is walked, looked up (its data must be the
 * walk's), and then the cache is used: entries put, replaced, invalidated
 * and evicted past its bound, which fails if the copy broke the store.
 * The seeds (corpus/store) are real stores, written by store-seeds.c, cut
 * short and bit-flipped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/fakeclock.h"
#include "cache.h"
#include "fuzz.h"
#include "storefmt.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cache_limits		 lim;
	struct cache_adopt_report	 rep;
	struct cache_item		 it;
	struct cache_hit		 hit;
	struct cache			*c;
	struct store_header		*h;
	uint64_t			*img;
	size_t				 len, cur = 0, n = 0;
	char				 name[64];
	int				 r, i;

	if (size < 1)
		return 0;
	len = size - 1;
	/* An 8-aligned copy of exactly the image's size. */
	if ((img = malloc(len ? len : 1)) == NULL)
		return 0;
	memcpy(img, data + 1, len);
	h = (struct store_header *)img;
	if ((data[0] & 2) && len >= STORE_HEADER_SIZE) {
		h->magic = STORE_MAGIC;
		h->version = STORE_VERSION;
		h->header_size = STORE_HEADER_SIZE;
		h->file_size = len;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 64;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	lim.serve_stale = 86400;
	lim.store_page = 4096;
	fakeclock_at(0);		/* the clock store-seeds.c writes at */
	if ((c = cache_new(&lim, fakeclock_now, NULL)) == NULL) {
		free(img);
		return 0;
	}
	r = cache_adopt_image(c, img, len, NULL, data[0] & 1, &rep);
	FUZZ_CHECK(r == 0 || rep.why != NULL);
	FUZZ_CHECK(rep.adopted == cache_count(c));
	FUZZ_CHECK(rep.adopted <= lim.max_entries);
	/* Every entry taken: whole, and found again by its key. */
	while (cache_walk(c, &cur, &it)) {
		const uint8_t *d = it.data;
		size_t dlen = it.len;
		uint8_t copy[STORE_DATA_MAX];

		FUZZ_CHECK(strlen(it.name) > 0 && strlen(it.name) <= STORE_NAME_MAX);
		FUZZ_CHECK(dlen <= STORE_DATA_MAX);
		memcpy(copy, d, dlen);
		cache_peek(c, it.name, it.kind, &hit);
		FUZZ_CHECK(hit.state != CACHE_MISS);
		FUZZ_CHECK(hit.len == dlen && memcmp(hit.data, copy, dlen) == 0);
		n++;
	}
	FUZZ_CHECK(n == cache_count(c));
	/* And the cache goes on working: put past its bound, replace, drop. */
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "after%d.fuzz.example", i % 80);
		FUZZ_CHECK(cache_put(c, name, 1, CACHE_POSITIVE, 60, name,
		    strlen(name)) == 0);
		cache_peek(c, name, 1, &hit);
		FUZZ_CHECK(hit.state == CACHE_FRESH && hit.len == strlen(name) &&
		    memcmp(hit.data, name, hit.len) == 0);
	}
	FUZZ_CHECK(cache_count(c) <= lim.max_entries);
	cache_invalidate(c, "after79.fuzz.example");
	cache_peek(c, "after79.fuzz.example", 1, &hit);
	FUZZ_CHECK(hit.state == CACHE_MISS);
	cache_free(c);
	free(img);
	return 0;
}
