/* SPDX-License-Identifier: MIT */
/* tests/unit/dnsbuild.h - DNS messages built byte by byte, for the tests of dnsmsg and dnswire. */
#ifndef NAMECACHE_DNSBUILD_H
#define NAMECACHE_DNSBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "dnsmsg.h"

/*
 * Byte by byte, so that each test states exactly what is on the wire,
 * compression pointers included, and can write what no encoder would.
 * Writing past MB_MAX fails the test (a cmocka assertion).
 */
#define MB_MAX		65536
#define CLASS_IN	1

/* A message under construction. */
struct mb {
	uint8_t	buf[MB_MAX];
	size_t	len;
};

void	mb_u8(struct mb *, uint8_t);
void	mb_u16(struct mb *, uint16_t);
void	mb_u32(struct mb *, uint32_t);
void	mb_bytes(struct mb *, const void *, size_t);
/* Starts the message over with a header of these counts. */
void	mb_hdr(struct mb *, uint16_t id, uint16_t flags, uint16_t qd,
	    uint16_t an, uint16_t ns, uint16_t ar);
/* The labels of a dotted name ("" and "." have none), no root label; their offset. */
size_t	mb_labels(struct mb *, const char *name);
/* A whole uncompressed name; returns its offset. */
size_t	mb_name(struct mb *, const char *name);
/* A compression pointer to off; returns the pointer's own offset. */
size_t	mb_ptr(struct mb *, size_t off);
/* A question: the name uncompressed, type, class IN. */
void	mb_question(struct mb *, const char *name, uint16_t type);
/* After the owner name: type, class, TTL and a place for rdlength, whose offset it returns. */
size_t	mb_rr_fixed(struct mb *, uint16_t type, uint16_t rclass, uint32_t ttl);
/* Patches rdlength at at to what was written since mb_rr_fixed; returns the rdata's offset. */
size_t	mb_rr_end(struct mb *, size_t at);
/* A whole RR of class IN with raw rdata, owner a dotted name. */
void	mb_rr_raw(struct mb *, const char *owner, uint16_t type, uint32_t ttl,
	    const void *rdata, size_t rdlen);

/* And the other way: the RR number i of a parsed message, which must have it. */
void	rr_at(const struct dnsmsg *, unsigned i, struct dnsmsg_rr *);

#endif
