/* SPDX-License-Identifier: MIT */
/* proto/hash.h - the two hashes: SipHash-1-3 (keyed) and FNV-1a (not). */
#ifndef NAMECACHE_HASH_H
#define NAMECACHE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "name.h"

/*
 * Which one:
 *   - SipHash-1-3 with a random key for a table whose keys a client or
 *     an upstream chooses (the cache, the shared segment, calls in
 *     flight), so nobody can choose keys that collide;
 *   - FNV-1a where the keys are the host's own (the hosts file, a socket
 *     path, a program's own addresses and ports), or for a digest with a
 *     fixed key that nobody attacks, where speed is all that matters.
 * glibc's nscd map is hashed as glibc hashes it (nscd_hash, proto/nscd.h),
 * which is neither and not ours to choose.
 *
 * Pure: no I/O, no allocation, errno untouched.  The FNV-1a functions are
 * inline, so that code linking no part of proto (the Python extension)
 * uses the same ones.
 */

/* SipHash-1-3 of len bytes of data with key k (little-endian words). */
uint64_t hash_siphash13(const uint64_t k[2], const void *data, size_t len);

#define HASH_FNV1A_INIT		0xcbf29ce484222325ULL	/* the offset basis */
#define HASH_FNV1A_PRIME	0x100000001b3ULL

/* 64-bit FNV-1a of len bytes of data, from h: HASH_FNV1A_INIT, or a
 * running hash, or HASH_FNV1A_INIT mixed with a seed. */
static inline uint64_t
hash_fnv1a(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--)
		h = (h ^ *p++) * HASH_FNV1A_PRIME;
	return h;
}

/* The same of the name in data, case-folded (name_fold_char). */
static inline uint64_t
hash_fnv1a_fold(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--)
		h = (h ^ name_fold_char(*p++)) * HASH_FNV1A_PRIME;
	return h;
}

#endif
