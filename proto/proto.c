/* SPDX-License-Identifier: MIT */
/* proto/proto.c - namecache wire protocol, version 1: frames, lookups and their answers, errors. */

/*
 * Design.  Frames are length-prefixed so that one stream carries many
 * requests in flight; the id pairs a reply with its request, and replies may
 * come in any order.  Every byte read from a peer goes through struct rd
 * (rd.h), whose error is sticky: a decoder reads all its fields and checks
 * err once.  Nothing here allocates, logs or touches errno, so the NSS
 * module can link it into any process.
 *
 * Versioning: the header's version changes only when an existing layout
 * changes.  New request types, statuses, kv keys and trailing body fields
 * may be added within version 1: decoders ignore bytes after the fields
 * they know, and a daemon answers an unknown type with PROTO_UNSUPPORTED.
 * Both rules hold for control.c and records.c, the rest of the protocol.
 */
#include <errno.h>
#include <string.h>

#include "proto.h"

const char *
proto_get_str(struct rd *rd, size_t *ret_len)
{
	size_t		 n = rd_u16(rd);
	const uint8_t	*p = rd_bytes(rd, n);

	if (p == NULL || memchr(p, '\0', n) != NULL) {
		rd->err = -EBADMSG;
		*ret_len = 0;
		return NULL;
	}
	*ret_len = n;
	return (const char *)p;
}

void
proto_wr_init(struct proto_wr *w, void *p, size_t cap)
{
	w->p = p;
	w->cap = cap;
	w->off = 0;
	w->err = 0;
}

static uint8_t *
wr_take(struct proto_wr *w, size_t n)
{
	uint8_t *p;

	if (w->err || n > w->cap - w->off) {
		w->err = -EMSGSIZE;
		return NULL;
	}
	p = w->p + w->off;
	w->off += n;
	return p;
}

static void
be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

void
proto_put_u8(struct proto_wr *w, uint8_t v)
{
	uint8_t *p = wr_take(w, 1);

	if (p)
		p[0] = v;
}

void
proto_put_u16(struct proto_wr *w, uint16_t v)
{
	uint8_t *p = wr_take(w, 2);

	if (p)
		be16(p, v);
}

void
proto_put_u32(struct proto_wr *w, uint32_t v)
{
	uint8_t *p = wr_take(w, 4);

	if (p)
		be32(p, v);
}

void
proto_put_u64(struct proto_wr *w, uint64_t v)
{
	proto_put_u32(w, (uint32_t)(v >> 32));
	proto_put_u32(w, (uint32_t)v);
}

void
proto_put_bytes(struct proto_wr *w, const void *src, size_t n)
{
	uint8_t *p = wr_take(w, n);

	if (p && n)
		memcpy(p, src, n);
}

void
proto_put_str(struct proto_wr *w, const char *s, size_t n)
{
	if (n > UINT16_MAX) {
		w->err = -EMSGSIZE;
		return;
	}
	proto_put_u16(w, (uint16_t)n);
	proto_put_bytes(w, s, n);
}

int
proto_put_u16_at(struct proto_wr *w, size_t off, uint16_t v)
{
	if (w->err)
		return w->err;
	be16(w->p + off, v);
	return 0;
}

int
proto_hdr_decode(const void *buf, size_t len, struct proto_hdr *ret_hdr)
{
	struct rd rd;

	if (len < PROTO_HDR_LEN)
		return -EAGAIN;
	rd_init(&rd, buf, len);
	ret_hdr->len = rd_u32(&rd);
	ret_hdr->version = rd_u8(&rd);
	ret_hdr->type = rd_u8(&rd);
	ret_hdr->status = rd_u16(&rd);
	ret_hdr->id = rd_u32(&rd);
	if (ret_hdr->len < PROTO_HDR_LEN || ret_hdr->len > PROTO_FRAME_MAX)
		return -EMSGSIZE;
	if (ret_hdr->version != PROTO_VERSION)
		return -EPROTONOSUPPORT;
	return 0;
}

int
proto_hdr_encode(const struct proto_hdr *hdr, void *buf, size_t len)
{
	struct proto_wr w;

	if (len < PROTO_HDR_LEN)
		return -EMSGSIZE;
	proto_wr_init(&w, buf, PROTO_HDR_LEN);
	proto_put_u32(&w, hdr->len);
	proto_put_u8(&w, hdr->version);
	proto_put_u8(&w, hdr->type);
	proto_put_u16(&w, hdr->status);
	proto_put_u32(&w, hdr->id);
	return w.err ? w.err : PROTO_HDR_LEN;
}

void
proto_frame_begin(struct proto_wr *w, uint8_t type, uint16_t status, uint32_t id)
{
	/* A frame starts at the writer's origin; callers use one writer per frame. */
	w->off = 0;
	w->err = 0;
	proto_put_u32(w, 0);
	proto_put_u8(w, PROTO_VERSION);
	proto_put_u8(w, type);
	proto_put_u16(w, status);
	proto_put_u32(w, id);
}

int
proto_frame_end(struct proto_wr *w)
{
	if (w->err)
		return w->err;
	if (w->off > PROTO_FRAME_MAX)
		return -EMSGSIZE;
	be32(w->p, (uint32_t)w->off);
	return (int)w->off;
}

static int
name_bad(const char **ret_why, const char *why)
{
	if (ret_why)
		*ret_why = why;
	return -EINVAL;
}

/*
 * One pass, with one test for the common byte: '/' to '~' (letters,
 * digits, '_' and the rest) can be neither a dot, nor NUL, control or
 * DEL.  A label's length is checked where it ends (a dot, a bad byte, the
 * end), which finds the reason a byte-at-a-time count did: a label past
 * 63 is reported before any bad byte after its 63rd.
 */
int
proto_name_check(const char *name, size_t len, const char **ret_why)
{
	const unsigned char	*p = (const unsigned char *)name, *end, *label;
	unsigned		 c;

	if (len > 1 && name[len - 1] == '.')
		len--;		/* one trailing dot: an absolute name */
	if (len == 0)
		return name_bad(ret_why, "empty name");
	if (len > PROTO_NAME_MAX)
		return name_bad(ret_why, "name longer than 253 characters");
	for (label = p, end = p + len; p < end; p++) {
		while (p < end && (unsigned)*p - '/' < 0x7f - '/')
			p++;
		if (p == end)
			break;
		c = *p;
		/* Bytes past 0x7f, and space to '-': allowed in a label. */
		if (c >= 0x80 || (c >= 0x20 && c < '.'))
			continue;
		if ((size_t)(p - label) > PROTO_LABEL_MAX)
			return name_bad(ret_why, "label longer than 63 characters");
		if (c == '\0')
			return name_bad(ret_why, "NUL byte in name");
		if (c != '.')
			return name_bad(ret_why, "control character in name");
		if (p == label)
			return name_bad(ret_why, "empty label in name");
		label = p + 1;
	}
	if ((size_t)(end - label) > PROTO_LABEL_MAX)
		return name_bad(ret_why, "label longer than 63 characters");
	if (end == label)
		return name_bad(ret_why, "empty label in name");
	return 0;
}

static int
family_ok(uint8_t family, int unspec_ok)
{
	return family == PROTO_AF_INET || family == PROTO_AF_INET6 ||
	    (unspec_ok && family == PROTO_AF_UNSPEC);
}

int
proto_lookup_name_encode(struct proto_wr *w, uint32_t id, uint8_t family,
    const char *name)
{
	size_t len = strlen(name);

	if (!family_ok(family, 1) || proto_name_check(name, len, NULL) < 0)
		return -EINVAL;
	proto_frame_begin(w, PROTO_LOOKUP_NAME, 0, id);
	proto_put_u8(w, family);
	proto_put_u8(w, 0);
	proto_put_str(w, name, len);
	return proto_frame_end(w);
}

int
proto_lookup_name_decode(const void *body, size_t len,
    struct proto_lookup_name *ret_req, const char **ret_why)
{
	struct rd	 rd;
	const uint8_t	*name;
	size_t		 n;

	rd_init(&rd, body, len);
	ret_req->family = rd_u8(&rd);
	ret_req->flags = rd_u8(&rd);
	n = rd_u16(&rd);
	name = rd_bytes(&rd, n);
	if (rd.err) {
		if (ret_why)
			*ret_why = "truncated lookup request";
		return rd.err;
	}
	if (!family_ok(ret_req->family, 1)) {
		if (ret_why)
			*ret_why = "unknown address family";
		return -EINVAL;
	}
	/* The check sees NUL bytes, so it runs on the raw bytes, before the copy. */
	if (proto_name_check((const char *)name, n, ret_why) < 0)
		return -EINVAL;
	if (n > sizeof(ret_req->name) - 1)
		return -EINVAL;		/* the check bounds it; belt and braces */
	memcpy(ret_req->name, name, n);
	ret_req->name[n] = '\0';
	ret_req->name_len = n;
	return 0;
}

static size_t
addr_len(uint8_t family)
{
	return family == PROTO_AF_INET ? 4 : family == PROTO_AF_INET6_SCOPED ? 20 : 16;
}

/* The families of an answer's addresses. */
static int
answer_family_ok(uint8_t family)
{
	return family_ok(family, 0) || family == PROTO_AF_INET6_SCOPED;
}

uint32_t
proto_answer_scope(uint8_t family, const uint8_t *addr)
{
	if (family != PROTO_AF_INET6_SCOPED)
		return 0;
	return (uint32_t)addr[16] << 24 | (uint32_t)addr[17] << 16 |
	    (uint32_t)addr[18] << 8 | addr[19];
}

void
proto_answer_set_scope(uint8_t *addr, uint32_t scope)
{
	be32(addr + 16, scope);
}

int
proto_answer_stamp(void *body, size_t len, uint32_t ttl, uint8_t source)
{
	uint8_t *p = body;

	/* Both or neither: a half-stamped answer would be a lie. */
	if (len < 5)
		return -EBADMSG;
	be32(p, ttl);
	p[4] = source;
	return 0;
}

int
proto_lookup_addr_encode(struct proto_wr *w, uint32_t id, uint8_t family,
    const void *addr)
{
	if (!family_ok(family, 0))
		return -EINVAL;
	proto_frame_begin(w, PROTO_LOOKUP_ADDR, 0, id);
	proto_put_u8(w, family);
	proto_put_u8(w, 0);
	proto_put_bytes(w, addr, addr_len(family));
	return proto_frame_end(w);
}

int
proto_lookup_addr_decode(const void *body, size_t len,
    struct proto_lookup_addr *ret_req, const char **ret_why)
{
	struct rd	 rd;
	const uint8_t	*a;

	rd_init(&rd, body, len);
	ret_req->family = rd_u8(&rd);
	ret_req->flags = rd_u8(&rd);
	if (rd.err == 0 && !family_ok(ret_req->family, 0)) {
		if (ret_why)
			*ret_why = "unknown address family";
		return -EINVAL;
	}
	a = rd_bytes(&rd, addr_len(ret_req->family));
	if (rd.err) {
		if (ret_why)
			*ret_why = "truncated address request";
		return rd.err;
	}
	memset(ret_req->addr, 0, sizeof(ret_req->addr));
	memcpy(ret_req->addr, a, addr_len(ret_req->family));
	return 0;
}

int
proto_simple_encode(struct proto_wr *w, uint8_t type, uint32_t id)
{
	proto_frame_begin(w, type, 0, id);
	return proto_frame_end(w);
}

void
proto_answer_begin(struct proto_answer_wr *aw, struct proto_wr *w,
    uint32_t ttl, uint8_t source, const char *canon, size_t canon_len)
{
	aw->w = w;
	aw->naddr = 0;
	aw->nalias = 0;
	proto_put_u32(w, ttl);
	proto_put_u8(w, source);
	proto_put_u8(w, 0);
	aw->counts_off = w->off;
	proto_put_u16(w, 0);
	proto_put_u16(w, 0);
	proto_put_str(w, canon, canon_len);
}

void
proto_answer_addr(struct proto_answer_wr *aw, uint8_t family, const void *addr)
{
	if (aw->nalias != 0 || aw->naddr == UINT16_MAX || !answer_family_ok(family)) {
		aw->w->err = -EMSGSIZE;
		return;
	}
	proto_put_u8(aw->w, family);
	proto_put_bytes(aw->w, addr, addr_len(family));
	aw->naddr++;
}

void
proto_answer_alias(struct proto_answer_wr *aw, const char *s, size_t len)
{
	if (aw->nalias == UINT16_MAX) {
		aw->w->err = -EMSGSIZE;
		return;
	}
	proto_put_str(aw->w, s, len);
	aw->nalias++;
}

int
proto_answer_end(struct proto_answer_wr *aw)
{
	proto_put_u16_at(aw->w, aw->counts_off, aw->naddr);
	return proto_put_u16_at(aw->w, aw->counts_off + 2, aw->nalias);
}

int
proto_answer_decode(const void *body, size_t len, struct proto_answer *ret_ans)
{
	struct proto_answer	 a;
	struct rd		 rd;
	const uint8_t		*h;
	size_t			 i, n;
	uint8_t			 family;

	rd_init(&rd, body, len);
	/* ttl, source, flags, naddr, nalias: ten bytes, one check. */
	if ((h = rd_bytes(&rd, 10)) == NULL)
		return rd.err;
	a.ttl = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
	a.source = h[4];
	a.flags = h[5];
	a.naddr = (uint16_t)(h[6] << 8 | h[7]);
	a.nalias = (uint16_t)(h[8] << 8 | h[9]);
	a.naddr4 = 0;
	a.naddr6 = 0;
	a.canon = proto_get_str(&rd, &a.canon_len);
	a.strings_size = a.canon_len + 1;
	a.addrs = rd.p + rd.off;
	for (i = 0; i < a.naddr && rd.err == 0; i++) {
		family = rd_u8(&rd);
		if (!answer_family_ok(family)) {
			rd.err = -EBADMSG;
			break;
		}
		if (family == PROTO_AF_INET)
			a.naddr4++;
		else
			a.naddr6++;
		rd_bytes(&rd, addr_len(family));
	}
	a.addrs_len = (size_t)(rd.p + rd.off - a.addrs);
	a.aliases = rd.p + rd.off;
	for (i = 0; i < a.nalias && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		a.strings_size += n + 1;
	}
	if (rd.err)
		return rd.err;
	a.aliases_len = (size_t)(rd.p + rd.off - a.aliases);
	a.origin = NULL;
	a.origin_len = 0;
	/* A module's name may follow; other trailing bytes are ignored. */
	if (rd.off < rd.len) {
		struct rd tail = rd;

		a.origin = proto_get_str(&tail, &a.origin_len);
		if (tail.err || a.origin_len == 0) {
			a.origin = NULL;
			a.origin_len = 0;
		}
	}
	*ret_ans = a;
	return 0;
}

/*
 * A byte of a body read once.  The walks below read again what the decoder
 * walked, and a reader of the shared segment reads it in memory another
 * process could be changing (a hostile or broken writer: the daemon never
 * changes a record).  So every step is checked again against the extents
 * the decoder found, on a value read once, and a walk that finds the body
 * changed ends there: its caller bounds what it writes by the decoder's
 * counts, never by the walk.
 */
static inline uint8_t
byte_once(const uint8_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

int
proto_answer_next_addr(const struct proto_answer *a, size_t *cursor,
    uint8_t *ret_family, const uint8_t **ret_addr)
{
	const uint8_t	*p = a->addrs + *cursor;
	uint8_t		 family;
	size_t		 n;

	if (*cursor >= a->addrs_len)
		return 0;
	family = byte_once(p);
	n = 1 + addr_len(family);
	if (!answer_family_ok(family) || n > a->addrs_len - *cursor)
		return 0;
	*ret_family = family;
	*ret_addr = p + 1;
	*cursor += n;
	return 1;
}

int
proto_answer_next_alias(const struct proto_answer *a, size_t *cursor,
    const char **ret_str, size_t *ret_len)
{
	const uint8_t	*p = a->aliases + *cursor;
	size_t		 n;

	/* The cursor is a byte offset. */
	if (*cursor >= a->aliases_len || a->aliases_len - *cursor < 2)
		return 0;
	n = (size_t)byte_once(p) << 8 | byte_once(p + 1);
	if (n > a->aliases_len - *cursor - 2)
		return 0;
	*ret_str = (const char *)p + 2;
	*ret_len = n;
	*cursor += 2 + n;
	return 1;
}

void
proto_error_body(struct proto_wr *w, const char *msg)
{
	if (msg)
		proto_put_str(w, msg, strlen(msg));
}

int
proto_error_decode(const void *body, size_t len, const char **ret_msg,
    size_t *ret_len)
{
	struct rd rd;

	*ret_msg = NULL;
	*ret_len = 0;
	if (len == 0)
		return 0;
	rd_init(&rd, body, len);
	*ret_msg = proto_get_str(&rd, ret_len);
	if (rd.err) {
		*ret_msg = NULL;
		*ret_len = 0;
	}
	return rd.err;
}

const char *
proto_status_str(int status)
{
	switch (status) {
	case PROTO_OK:		return "success";
	case PROTO_NOTFOUND:	return "name not found";
	case PROTO_NODATA:	return "no address of the requested family";
	case PROTO_TRYAGAIN:	return "temporary failure, try again";
	case PROTO_BADREQUEST:	return "malformed request";
	case PROTO_BADNAME:	return "invalid name or address";
	case PROTO_UNSUPPORTED:	return "request not supported";
	case PROTO_DENIED:	return "permission denied";
	case PROTO_TOOBIG:	return "answer too large";
	case PROTO_INTERNAL:	return "internal error in the daemon";
	case PROTO_BUSY:	return "too many requests in flight";
	case PROTO_UNAVAIL:	return "no source on the hosts line is available";
	case PROTO_NOTFOUND_TRYAGAIN:
		return "name not found, after a temporary failure";
	}
	return "unknown status";
}

const char *
proto_source_str(int source)
{
	switch (source) {
	case PROTO_SRC_HOSTS:	return "hosts";
	case PROTO_SRC_DNS:	return "dns";
	case PROTO_SRC_CACHE:	return "cache";
	case PROTO_SRC_STALE:	return "stale";
	case PROTO_SRC_NSS:	return "nss";
	}
	return "none";
}

void
proto_unavail_body(struct proto_wr *w, int herrno, int err, const char *msg)
{
	proto_put_u8(w, herrno >= -1 && herrno <= 4 ? (uint8_t)(herrno + 1) : 0);
	proto_put_u32(w, (uint32_t)err);
	proto_put_str(w, msg, strlen(msg));
}

int
proto_unavail_decode(const void *body, size_t len, int *ret_herrno, int *ret_errno)
{
	struct rd	rd;
	uint8_t		he;
	uint32_t	err;

	rd_init(&rd, body, len);
	he = rd_u8(&rd);
	err = rd_u32(&rd);
	if (rd.err || he > 5 || err > 4095)
		return -EBADMSG;
	*ret_herrno = (int)he - 1;
	*ret_errno = (int)err;
	return 0;
}
