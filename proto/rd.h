/* SPDX-License-Identifier: MIT */
/* proto/rd.h - the one reader of untrusted bytes: a bounds-checked big-endian cursor, sticky error. */
#ifndef NAMECACHE_RD_H
#define NAMECACHE_RD_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every byte that a client, an upstream or a file gives is read through
 * struct rd: namecache's protocol and nscd's requests (the decoders of
 * proto/), DNS messages with their compression pointers
 * (daemon/sources/dnsmsg.c), the DNS listener's queries and kept records
 * (daemon/front/dnswire.c).  A read past the end sets err to -EBADMSG,
 * returns 0 (or NULL) and leaves the cursor where it was; once err is
 * set, every later read fails too.  So a decoder reads all its fields
 * and checks err once, at the end:
 *
 *	rd_init(&rd, body, len);
 *	hdr.type = rd_u16(&rd);
 *	hdr.len = rd_u32(&rd);
 *	if (rd.err)
 *		return rd.err;
 *
 * Integers are big-endian, as both wire formats have them.  off never
 * passes len.  The struct is plain: a decoder may look at p + off (where
 * the next field starts) or set err itself for a field it finds wrong.
 *
 * Header-only and inline, not a rd.c: the DNS listener reads every query
 * through it on its hit path, where a call per field would cost what the
 * private copies (static, so inlined) did not; and every fuzz target that
 * compiles a parser compiles the reader with it, instrumented, with no
 * source to list.  Pure, as all of proto/: no I/O, no allocation, errno
 * untouched.
 */
struct rd {
	const uint8_t	*p;
	size_t		 len;
	size_t		 off;
	int		 err;		/* 0 or -EBADMSG */
};

static inline void
rd_init(struct rd *rd, const void *p, size_t len)
{
	rd->p = p;
	rd->len = len;
	rd->off = 0;
	rd->err = 0;
}

/* Moves to off from the start (a DNS compression pointer's target); off may be len. */
static inline void
rd_seek(struct rd *rd, size_t off)
{
	if (rd->err || off > rd->len) {
		rd->err = -EBADMSG;
		return;
	}
	rd->off = off;
}

/* n bytes, borrowed from the buffer: NULL when fewer are left. */
static inline const uint8_t *
rd_bytes(struct rd *rd, size_t n)
{
	const uint8_t *p;

	/* Subtracting, not adding: n may be as large as a peer likes. */
	if (rd->err || n > rd->len - rd->off) {
		rd->err = -EBADMSG;
		return NULL;
	}
	p = rd->p + rd->off;
	rd->off += n;
	return p;
}

static inline uint8_t
rd_u8(struct rd *rd)
{
	const uint8_t *p = rd_bytes(rd, 1);

	return p ? p[0] : 0;
}

static inline uint16_t
rd_u16(struct rd *rd)
{
	const uint8_t *p = rd_bytes(rd, 2);

	return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

static inline uint32_t
rd_u32(struct rd *rd)
{
	const uint8_t *p = rd_bytes(rd, 4);

	return p ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3] : 0;
}

/* All eight bytes or none: 0 past the end, never half a value. */
static inline uint64_t
rd_u64(struct rd *rd)
{
	const uint8_t	*p = rd_bytes(rd, 8);
	uint64_t	 v = 0;

	for (int i = 0; p && i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Bytes not yet read. */
static inline size_t
rd_left(const struct rd *rd)
{
	return rd->len - rd->off;
}

/* Whether all was read, to the last byte, with no error: a layout that fills its buffer. */
static inline bool
rd_done(const struct rd *rd)
{
	return rd->err == 0 && rd->off == rd->len;
}

#endif
