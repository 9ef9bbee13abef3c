/* SPDX-License-Identifier: MIT */
/* proto/shmfmt.c - the shared answer segment: layout, hashing, a bounds-checked finder. */

/*
 * Pure: no I/O, no allocation, errno untouched.  Readers call shm_find on
 * memory another process writes, so every offset and length is checked
 * against the mapping before it is used, and shared words are read with
 * atomic loads (acquire for slots, whose records must be seen whole).
 */
#include <errno.h>
#include <string.h>

#include "hash.h"
#include "name.h"
#include "shmfmt.h"

_Static_assert(sizeof(struct shm_header) == SHM_HEADER_SIZE, "header size");

#define SLOT_TAG_BITS	24
#define SLOT_TAG_MASK	((1ULL << SLOT_TAG_BITS) - 1)

uint64_t
shm_key_hash(const uint64_t k[2], uint8_t kind, uint8_t family, const void *key,
    size_t len)
{
	uint8_t		buf[2 + 256];

	/* Long keys never match (names stop at 254): hash them anyhow. */
	if (len > 256)
		len = 256;
	buf[0] = kind;
	buf[1] = family;
	if (kind == SHM_NAME)
		name_fold(buf + 2, key, len);
	else
		memcpy(buf + 2, key, len);
	return hash_siphash13(k, buf, 2 + len);
}

int
shm_path(const char *sockpath, char *buf, size_t len)
{
	const char	*slash = strrchr(sockpath, '/');
	size_t		 dir = slash ? (size_t)(slash - sockpath) : 0;

	if (slash == NULL || dir + sizeof("/cache") > len)
		return -ENAMETOOLONG;
	memcpy(buf, sockpath, dir);
	memcpy(buf + dir, "/cache", sizeof("/cache"));
	return 0;
}

size_t
shm_rec_size(size_t key_len, size_t body_len)
{
	size_t key_end = sizeof(struct shm_rec) + ((key_len + 7) & ~(size_t)7);

	return key_end + ((body_len + 7) & ~(size_t)7);
}

uint64_t
shm_slot(uint64_t off, uint64_t h)
{
	return (off / 8) << SLOT_TAG_BITS | ((h >> 40) & SLOT_TAG_MASK);
}

const uint8_t *
shm_rec_key(const struct shm_rec *r)
{
	return (const uint8_t *)(r + 1);
}

const uint8_t *
shm_rec_body(const struct shm_rec *r)
{
	return shm_rec_key(r) + ((r->key_len + 7) & ~7u);
}

const struct shm_header *
shm_check(const void *base, size_t len)
{
	const struct shm_header *h = base;
	uint64_t slots_end;

	if (base == NULL || len < SHM_HEADER_SIZE ||
	    (uintptr_t)base % 8 != 0 || h->magic != SHM_MAGIC ||
	    h->version != SHM_VERSION || h->header_size != SHM_HEADER_SIZE ||
	    h->file_size > len || h->nslots == 0 ||
	    (h->nslots & (h->nslots - 1)) != 0 || h->slots_off % 8 != 0 ||
	    h->data_off % 8 != 0)
		return NULL;
	slots_end = h->slots_off + (uint64_t)h->nslots * 8;
	if (h->slots_off < SHM_HEADER_SIZE || slots_end < h->slots_off ||
	    slots_end > h->data_off || h->data_off > h->file_size ||
	    h->data_size > h->file_size - h->data_off)
		return NULL;
	return h;
}

static bool
key_eq(const uint8_t *a, const uint8_t *b, size_t len, bool fold)
{
	return fold ? name_eq_fold(a, b, len) : memcmp(a, b, len) == 0;
}

const struct shm_rec *
shm_find(const void *base, size_t len, uint8_t kind, uint8_t family,
    const void *key, size_t key_len)
{
	const struct shm_header	*h = shm_check(base, len);
	const uint64_t		*slots;
	const uint8_t		*data;
	const struct shm_rec	*r;
	uint64_t		 hash, v, off, mask, i;

	if (h == NULL)
		return NULL;
	slots = (const uint64_t *)((const uint8_t *)base + h->slots_off);
	data = (const uint8_t *)base + h->data_off;
	hash = shm_key_hash(h->key, kind, family, key, key_len);
	mask = h->nslots - 1;
	for (i = 0; i < SHM_MAX_PROBE; i++) {
		v = __atomic_load_n(&slots[(hash + i) & mask], __ATOMIC_ACQUIRE);
		if (v == 0)
			return NULL;
		if ((v & SLOT_TAG_MASK) != ((hash >> 40) & SLOT_TAG_MASK))
			continue;
		off = (v >> SLOT_TAG_BITS) * 8;
		if (off > h->data_size || h->data_size - off < sizeof(*r))
			return NULL;
		r = (const struct shm_rec *)(data + off);
		if (r->rec_len > h->data_size - off || r->rec_len % 8 != 0 ||
		    r->rec_len < shm_rec_size(r->key_len, r->body_len))
			return NULL;
		if (r->kind == kind && r->family == family && r->key_len == key_len &&
		    key_eq(shm_rec_key(r), key, key_len,
		    kind == SHM_NAME && !(r->flags & SHM_EXACT)))
			return r;
	}
	return NULL;
}
