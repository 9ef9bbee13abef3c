/* SPDX-License-Identifier: MIT */
/* tests/unit/dnsbuild.c - DNS messages built byte by byte, for the tests of dnsmsg and dnswire. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dnsbuild.h"

void
mb_u8(struct mb *m, uint8_t v)
{
	assert_true(m->len < MB_MAX);
	m->buf[m->len++] = v;
}

void
mb_u16(struct mb *m, uint16_t v)
{
	mb_u8(m, (uint8_t)(v >> 8));
	mb_u8(m, (uint8_t)v);
}

void
mb_u32(struct mb *m, uint32_t v)
{
	mb_u16(m, (uint16_t)(v >> 16));
	mb_u16(m, (uint16_t)v);
}

void
mb_bytes(struct mb *m, const void *p, size_t n)
{
	assert_true(n <= MB_MAX - m->len);
	if (n)
		memcpy(m->buf + m->len, p, n);
	m->len += n;
}

void
mb_hdr(struct mb *m, uint16_t id, uint16_t flags, uint16_t qd, uint16_t an,
    uint16_t ns, uint16_t ar)
{
	m->len = 0;
	mb_u16(m, id);
	mb_u16(m, flags);
	mb_u16(m, qd);
	mb_u16(m, an);
	mb_u16(m, ns);
	mb_u16(m, ar);
}

size_t
mb_labels(struct mb *m, const char *name)
{
	size_t		 start = m->len, n;
	const char	*dot;

	while (*name && strcmp(name, ".") != 0) {
		dot = strchr(name, '.');
		n = dot ? (size_t)(dot - name) : strlen(name);
		assert_true(n >= 1 && n <= 63);
		mb_u8(m, (uint8_t)n);
		mb_bytes(m, name, n);
		name += n + (dot ? 1 : 0);
	}
	return start;
}

size_t
mb_name(struct mb *m, const char *name)
{
	size_t start = mb_labels(m, name);

	mb_u8(m, 0);
	return start;
}

size_t
mb_ptr(struct mb *m, size_t off)
{
	size_t start = m->len;

	assert_true(off < 0x4000);
	mb_u16(m, (uint16_t)(0xc000 | off));
	return start;
}

void
mb_question(struct mb *m, const char *name, uint16_t type)
{
	mb_name(m, name);
	mb_u16(m, type);
	mb_u16(m, CLASS_IN);
}

size_t
mb_rr_fixed(struct mb *m, uint16_t type, uint16_t rclass, uint32_t ttl)
{
	size_t at;

	mb_u16(m, type);
	mb_u16(m, rclass);
	mb_u32(m, ttl);
	at = m->len;
	mb_u16(m, 0);
	return at;
}

size_t
mb_rr_end(struct mb *m, size_t at)
{
	size_t n = m->len - at - 2;

	assert_true(n <= UINT16_MAX);
	m->buf[at] = (uint8_t)(n >> 8);
	m->buf[at + 1] = (uint8_t)n;
	return at + 2;
}

void
mb_rr_raw(struct mb *m, const char *owner, uint16_t type, uint32_t ttl,
    const void *rdata, size_t rdlen)
{
	size_t at;

	mb_name(m, owner);
	at = mb_rr_fixed(m, type, CLASS_IN, ttl);
	mb_bytes(m, rdata, rdlen);
	mb_rr_end(m, at);
}

void
rr_at(const struct dnsmsg *msg, unsigned i, struct dnsmsg_rr *rr)
{
	struct dnsmsg_iter it;

	memset(&it, 0, sizeof(it));
	do
		assert_int_equal(dnsmsg_next_rr(msg, &it, rr), 1);
	while (i-- > 0);
}
