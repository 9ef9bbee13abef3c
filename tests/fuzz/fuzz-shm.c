/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-shm.c - fuzz target: the shared segment as a reader finds it. */

/*
 * Readers run shm_check and shm_find on memory another process writes, so
 * no header, slot or record may make them read outside the mapping.  The
 * input is two control bytes, then a segment image:
 *
 *	byte 0, bits 0-1	kind of the synthetic key: NAME, ADDR, byte 1's
 *				top bits as a raw kind, NAME
 *		bits 2-3	family: UNSPEC, INET, INET6, raw (byte 1)
 *		bit 4		make the header plausible: magic, version, sizes
 *				fitted to the image (slots and records stay as
 *				the input has them), so most inputs get past
 *				shm_check and the fuzzer works on the slots
 *		bit 5		also look every key up in upper case
 *		bit 6		look up in a mapping 8 bytes shorter than the image
 *		bit 7		also make a view (shm_view_init), then put the
 *				input's own header back over the image, as a
 *				writer could after a reader checked it, and look
 *				up through the view: it must keep the bounds it
 *				was made with
 *	byte 1			length of the synthetic key, whose bytes are the
 *				image's last ones
 *
 * The image is copied into a heap buffer of exactly its size (8-aligned,
 * as a mapping is), so under ASan any read past it is caught.  Lookups:
 * the synthetic key, a few fixed ones, and the key of every record a slot
 * points at (read here with the same bounds), so that hits happen.  Every
 * hit must lie inside the data area and match what was asked.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "name.h"
#include "proto.h"
#include "shmfmt.h"

/* shm_find, and every promise it makes about a record it returns. */
static void
find(const uint8_t *base, size_t len, uint8_t kind, uint8_t family,
    const uint8_t *key, size_t key_len)
{
	const struct shm_header	*h = shm_check(base, len);
	const struct shm_rec	*r = shm_find(base, len, kind, family, key, key_len);
	const uint8_t		*data, *rp, *rk, *rb;
	size_t			 i;

	if (h == NULL) {
		FUZZ_CHECK(r == NULL);
		return;
	}
	if (r == NULL)
		return;
	data = base + h->data_off;
	rp = (const uint8_t *)r;
	FUZZ_CHECK(rp >= data && (size_t)(rp - data) % 8 == 0);
	FUZZ_CHECK((size_t)(rp - data) + sizeof(*r) <= h->data_size);
	FUZZ_CHECK(r->rec_len % 8 == 0 && r->rec_len >= sizeof(*r));
	FUZZ_CHECK((size_t)(rp - data) + r->rec_len <= h->data_size);
	FUZZ_CHECK(shm_rec_size(r->key_len, r->body_len) <= r->rec_len);
	rk = shm_rec_key(r);
	rb = shm_rec_body(r);
	FUZZ_CHECK(rk + r->key_len <= rp + r->rec_len);
	FUZZ_CHECK(rb >= rk + r->key_len && rb + r->body_len <= rp + r->rec_len);
	FUZZ_CHECK(rb + r->body_len <= base + len);
	FUZZ_CHECK(r->kind == kind && r->family == family && r->key_len == key_len);
	for (i = 0; i < key_len; i++) {
		if (kind == SHM_NAME && !(r->flags & SHM_EXACT))
			FUZZ_CHECK(name_fold_char(rk[i]) == name_fold_char(key[i]));
		else
			FUZZ_CHECK(rk[i] == key[i]);
	}
	/* Touch every byte of the body: ASan sees a read past the buffer. */
	{
		volatile uint8_t sum = 0;

		for (i = 0; i < r->body_len; i++)
			sum ^= rb[i];
		(void)sum;
	}
}

static void
find_both(const uint8_t *base, size_t len, uint8_t kind, uint8_t family,
    const uint8_t *key, size_t key_len, bool upper)
{
	uint8_t	up[300];
	size_t	i;

	find(base, len, kind, family, key, key_len);
	if (!upper || key_len > sizeof(up))
		return;
	for (i = 0; i < key_len; i++)
		up[i] = key[i] >= 'a' && key[i] <= 'z' ? (uint8_t)(key[i] - 32) : key[i];
	find(base, len, kind, family, up, key_len);
}

/*
 * shm_view_find through a view made before the header changed: whatever
 * it returns lies inside the data area the view was made with.
 */
static void
find_view(const struct shm_view *v, const uint8_t *base, size_t len, uint8_t kind,
    uint8_t family, const uint8_t *key, size_t key_len)
{
	const struct shm_rec	*r;
	const uint8_t		*body, *rp;
	uint32_t		 body_len;
	volatile uint8_t	 sum = 0;
	size_t			 i;

	r = shm_view_find(v, kind, family, key, key_len, &body, &body_len);
	if (r == NULL)
		return;
	rp = (const uint8_t *)r;
	FUZZ_CHECK(rp >= v->data && rp + sizeof(*r) <= v->data + v->data_size);
	FUZZ_CHECK(body >= rp + sizeof(*r) && body + body_len <= v->data + v->data_size);
	FUZZ_CHECK(body + body_len <= base + len);
	for (i = 0; i < body_len; i++)
		sum ^= body[i];
	(void)sum;
}

/* Header fields that fit an image of len bytes; slots and records untouched. */
static void
plausible(uint8_t *img, size_t len)
{
	struct shm_header	*h = (struct shm_header *)(void *)img;
	uint32_t		 n = 1u << (h->nslots % 12);
	uint64_t		 data_off;

	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->header_size = SHM_HEADER_SIZE;
	h->file_size = len;
	h->slots_off = SHM_HEADER_SIZE;
	while (n > 1 && SHM_HEADER_SIZE + (uint64_t)n * 8 > len)
		n >>= 1;
	h->nslots = n;
	data_off = SHM_HEADER_SIZE + (uint64_t)n * 8;
	h->data_off = data_off <= len ? data_off : len & ~(size_t)7;
	h->data_size = len - h->data_off;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t	 kinds[] = { SHM_NAME, SHM_ADDR, 0, SHM_NAME };
	static const uint8_t	 families[] = {
		PROTO_AF_UNSPEC, PROTO_AF_INET, PROTO_AF_INET6,
	};
	static const char	*fixed[] = {
		"localhost", "www.example.com", "WWW.Example.COM", "", "a",
	};
	const struct shm_header	*h;
	uint8_t			 ctl, klen, kind, family, *img;
	size_t			 len, mlen, i;
	bool			 upper;

	if (size < 2)
		return 0;
	ctl = data[0];
	klen = data[1];
	len = size - 2;
	kind = (ctl & 3) == 2 ? data[1] >> 6 : kinds[ctl & 3];
	family = (ctl >> 2 & 3) == 3 ? data[1] : families[ctl >> 2 & 3];
	upper = ctl & 32;
	if ((img = malloc(len ? len : 1)) == NULL)
		return 0;
	memcpy(img, data + 2, len);
	if ((ctl & 16) && len >= SHM_HEADER_SIZE)
		plausible(img, len);
	mlen = (ctl & 64) && len >= 8 ? len - 8 : len;

	/* Checked twice, the same answer: nothing is written. */
	h = shm_check(img, mlen);
	FUZZ_CHECK(h == shm_check(img, mlen));
	if (h) {
		FUZZ_CHECK((const uint8_t *)h == img);
		FUZZ_CHECK(h->file_size <= mlen && h->data_off <= h->file_size);
		FUZZ_CHECK(h->data_size <= h->file_size - h->data_off);
		FUZZ_CHECK(h->slots_off + (uint64_t)h->nslots * 8 <= h->data_off);
	}
	/* A mapping shorter than the header says is never used. */
	if (h)
		FUZZ_CHECK(shm_check(img, (size_t)h->file_size - 1) == NULL);

	if (klen <= len)
		find_both(img, mlen, kind, family, img + len - klen, klen, upper);
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		find_both(img, mlen, SHM_NAME, family, (const uint8_t *)fixed[i],
		    strlen(fixed[i]), upper);
	find(img, mlen, SHM_ADDR, PROTO_AF_INET, (const uint8_t *)"\x7f\0\0\1", 4);

	/* A view made now keeps its bounds when the header changes after. */
	if ((ctl & 128) && len >= SHM_HEADER_SIZE) {
		struct shm_view v;

		if (shm_view_init(img, mlen, &v) == 0) {
			memcpy(img, data + 2, SHM_HEADER_SIZE);
			if (klen <= len)
				find_view(&v, img, mlen, kind, family, img + len - klen, klen);
			for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
				find_view(&v, img, mlen, SHM_NAME, family,
				    (const uint8_t *)fixed[i], strlen(fixed[i]));
			/* The rest below reads the header again: as it was checked. */
			if ((ctl & 16))
				plausible(img, len);
			else
				memcpy(img, data + 2, SHM_HEADER_SIZE);
		}
	}

	/* The key of every record a slot points at, read with care here. */
	if (h) {
		const uint64_t	*slots = (const uint64_t *)(const void *)(img + h->slots_off);
		const uint8_t	*d = img + h->data_off;
		uint32_t	 n = h->nslots < 4096 ? h->nslots : 4096;

		for (i = 0; i < n; i++) {
			const struct shm_rec	*r;
			uint64_t		 off = (slots[i] >> 24) * 8;

			if (slots[i] == 0 || off > h->data_size ||
			    h->data_size - off < sizeof(*r))
				continue;
			r = (const struct shm_rec *)(const void *)(d + off);
			if (r->key_len > h->data_size - off - sizeof(*r))
				continue;
			find_both(img, mlen, r->kind, r->family, shm_rec_key(r),
			    r->key_len, upper);
		}
	}
	free(img);
	return 0;
}
