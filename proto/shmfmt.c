/* SPDX-License-Identifier: MIT */
/* proto/shmfmt.c - the shared answer segment: layout, hashing, a bounds-checked finder. */

/*
 * Pure: no I/O, no allocation, errno untouched.  Readers call shm_find on
 * memory another process writes, so every offset and length is checked
 * against the mapping before it is used, and shared words are read with
 * atomic loads (acquire for slots, whose records must be seen whole), each
 * once: what is used is what was checked.
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

/*
 * Shared words are read once each, relaxed: the compiler may not read a
 * field again after it was checked, and a writer's later store cannot
 * change what was checked.
 */
#define ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

/* The header's checks, on its fields read once; fills *v when they pass. */
static bool
header_ok(const void *base, size_t len, struct shm_view *v)
{
	const struct shm_header *h = base;
	uint64_t	 file_size, slots_off, data_off, data_size, slots_end;
	uint32_t	 nslots;

	if (base == NULL || len < SHM_HEADER_SIZE || (uintptr_t)base % 8 != 0 ||
	    ONCE(h->magic) != SHM_MAGIC || ONCE(h->version) != SHM_VERSION ||
	    ONCE(h->header_size) != SHM_HEADER_SIZE)
		return false;
	file_size = ONCE(h->file_size);
	nslots = ONCE(h->nslots);
	slots_off = ONCE(h->slots_off);
	data_off = ONCE(h->data_off);
	data_size = ONCE(h->data_size);
	if (file_size > len || nslots == 0 || (nslots & (nslots - 1)) != 0 ||
	    slots_off % 8 != 0 || data_off % 8 != 0)
		return false;
	slots_end = slots_off + (uint64_t)nslots * 8;
	if (slots_off < SHM_HEADER_SIZE || slots_end < slots_off ||
	    slots_end > data_off || data_off > file_size ||
	    data_size > file_size - data_off)
		return false;
	v->slots = (const uint64_t *)(const void *)((const uint8_t *)base + slots_off);
	v->data = (const uint8_t *)base + data_off;
	v->data_size = data_size;
	v->mask = nslots - 1;
	v->key[0] = ONCE(h->key[0]);
	v->key[1] = ONCE(h->key[1]);
	return true;
}

const struct shm_header *
shm_check(const void *base, size_t len)
{
	struct shm_view v;

	return header_ok(base, len, &v) ? base : NULL;
}

int
shm_view_init(const void *base, size_t len, struct shm_view *ret_view)
{
	struct shm_view v;

	if (!header_ok(base, len, &v))
		return -EBADMSG;
	*ret_view = v;
	return 0;
}

static bool
key_eq(const uint8_t *a, const uint8_t *b, size_t len, bool fold)
{
	/* Equal bytes match either way: most hits are spelled as published. */
	if (memcmp(a, b, len) == 0)
		return true;
	return fold && name_eq_fold(a, b, len);
}

const struct shm_rec *
shm_view_find(const struct shm_view *v, uint8_t kind, uint8_t family,
    const void *key, size_t key_len, const uint8_t **ret_body,
    uint32_t *ret_body_len)
{
	const struct shm_rec	*r;
	uint64_t		 hash, tag, s, off, i;
	uint32_t		 rec_len, body_len;
	size_t			 rkey_len, key_end;

	hash = shm_key_hash(v->key, kind, family, key, key_len);
	tag = (hash >> 40) & SLOT_TAG_MASK;
	for (i = 0; i < SHM_MAX_PROBE; i++) {
		s = __atomic_load_n(&v->slots[(hash + i) & v->mask], __ATOMIC_ACQUIRE);
		if (s == 0)
			return NULL;
		if ((s & SLOT_TAG_MASK) != tag)
			continue;
		off = (s >> SLOT_TAG_BITS) * 8;
		if (off > v->data_size || v->data_size - off < sizeof(*r))
			return NULL;
		r = (const struct shm_rec *)(const void *)(v->data + off);
		rec_len = ONCE(r->rec_len);
		rkey_len = ONCE(r->key_len);
		body_len = ONCE(r->body_len);
		if (rec_len > v->data_size - off || rec_len % 8 != 0 ||
		    rec_len < shm_rec_size(rkey_len, body_len))
			return NULL;
		if (ONCE(r->kind) == kind && ONCE(r->family) == family &&
		    rkey_len == key_len &&
		    key_eq(shm_rec_key(r), key, key_len,
		    kind == SHM_NAME && !(ONCE(r->flags) & SHM_EXACT))) {
			key_end = sizeof(*r) + ((rkey_len + 7) & ~(size_t)7);
			*ret_body = (const uint8_t *)r + key_end;
			*ret_body_len = body_len;
			return r;
		}
	}
	return NULL;
}

const struct shm_rec *
shm_find(const void *base, size_t len, uint8_t kind, uint8_t family,
    const void *key, size_t key_len)
{
	struct shm_view	 v;
	const uint8_t	*body;
	uint32_t	 body_len;

	if (!header_ok(base, len, &v))
		return NULL;
	return shm_view_find(&v, kind, family, key, key_len, &body, &body_len);
}
