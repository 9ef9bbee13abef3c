/* SPDX-License-Identifier: MIT */
/* proto/hash.c - the two hashes: SipHash-1-3 (keyed) and FNV-1a (not). */
#include <string.h>

#include "hash.h"

static inline uint64_t
rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND do {						\
	v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);	\
	v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);	\
} while (0)

/* One round per 8-byte word, three to finish (Aumasson and Bernstein). */
uint64_t
hash_siphash13(const uint64_t k[2], const void *data, size_t len)
{
	const uint8_t	*p = data, *end = p + (len & ~(size_t)7);
	uint64_t	 v0 = 0x736f6d6570736575ULL ^ k[0];
	uint64_t	 v1 = 0x646f72616e646f6dULL ^ k[1];
	uint64_t	 v2 = 0x6c7967656e657261ULL ^ k[0];
	uint64_t	 v3 = 0x7465646279746573ULL ^ k[1];
	uint64_t	 m, b = (uint64_t)len << 56;

	for (; p < end; p += 8) {
		memcpy(&m, p, 8);	/* host order: one machine's processes agree */
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	/* The last bytes, little-endian: unrolled, as the reference code has it. */
	switch (len & 7) {
	case 7: b |= (uint64_t)p[6] << 48;	__attribute__((fallthrough));
	case 6: b |= (uint64_t)p[5] << 40;	__attribute__((fallthrough));
	case 5: b |= (uint64_t)p[4] << 32;	__attribute__((fallthrough));
	case 4: b |= (uint64_t)p[3] << 24;	__attribute__((fallthrough));
	case 3: b |= (uint64_t)p[2] << 16;	__attribute__((fallthrough));
	case 2: b |= (uint64_t)p[1] << 8;	__attribute__((fallthrough));
	case 1: b |= (uint64_t)p[0];
	}
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
