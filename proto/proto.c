/* SPDX-License-Identifier: MIT */
/* proto/proto.c - namecache wire protocol, version 1: encoder and decoder. */

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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int
proto_put_u16_at(struct proto_wr *w, size_t off, uint16_t v)
{
	if (w->err)
		return w->err;
	be16(w->p + off, v);
	return 0;
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

int
proto_name_check(const char *name, size_t len, const char **ret_why)
{
	const char	*why = NULL;
	size_t		 i, label = 0;

	if (len > 0 && name[len - 1] == '.' && len > 1)
		len--;		/* one trailing dot: an absolute name */
	if (len == 0)
		why = "empty name";
	else if (len > PROTO_NAME_MAX)
		why = "name longer than 253 characters";
	for (i = 0; why == NULL && i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '\0')
			why = "NUL byte in name";
		else if (c < 0x20 || c == 0x7f)
			why = "control character in name";
		else if (c == '.') {
			if (label == 0)
				why = "empty label in name";
			label = 0;
		} else if (++label > PROTO_LABEL_MAX)
			why = "label longer than 63 characters";
	}
	if (why == NULL && label == 0)
		why = "empty label in name";
	if (why) {
		if (ret_why)
			*ret_why = why;
		return -EINVAL;
	}
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
	struct proto_answer	a;
	struct rd		rd;
	size_t			i, n;

	memset(&a, 0, sizeof(a));
	rd_init(&rd, body, len);
	a.ttl = rd_u32(&rd);
	a.source = rd_u8(&rd);
	a.flags = rd_u8(&rd);
	a.naddr = rd_u16(&rd);
	a.nalias = rd_u16(&rd);
	a.canon = proto_get_str(&rd, &a.canon_len);
	a.strings_size = a.canon_len + 1;
	a.addrs = rd.p + rd.off;
	for (i = 0; i < a.naddr && rd.err == 0; i++) {
		uint8_t family = rd_u8(&rd);

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
	a.aliases = rd.p + rd.off;
	for (i = 0; i < a.nalias && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		a.strings_size += n + 1;
	}
	if (rd.err)
		return rd.err;
	a.aliases_len = (size_t)(rd.p + rd.off - a.aliases);
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

int
proto_answer_next_addr(const struct proto_answer *a, size_t *cursor,
    uint8_t *ret_family, const uint8_t **ret_addr)
{
	const uint8_t *p = a->addrs + *cursor;

	/* The decoder walked these bytes, so they are in bounds. */
	if (p >= a->aliases)
		return 0;
	*ret_family = p[0];
	*ret_addr = p + 1;
	*cursor += 1 + addr_len(p[0]);
	return 1;
}

int
proto_answer_next_alias(const struct proto_answer *a, size_t *cursor,
    const char **ret_str, size_t *ret_len)
{
	const uint8_t	*p = a->aliases + *cursor;
	size_t		 n;

	/* The cursor is a byte offset; the decoder walked these bytes. */
	if (*cursor >= a->aliases_len)
		return 0;
	n = (size_t)p[0] << 8 | p[1];
	*ret_str = (const char *)p + 2;
	*ret_len = n;
	*cursor += 2 + n;
	return 1;
}

void
proto_kv_begin(struct proto_kv_wr *kw, struct proto_wr *w)
{
	kw->w = w;
	kw->count = 0;
	kw->count_off = w->off;
	proto_put_u16(w, 0);
}

static void
kv_key(struct proto_kv_wr *kw, const char *key, uint8_t kind)
{
	size_t n = strlen(key);

	if (n == 0 || n > PROTO_KEY_MAX || kw->count == UINT16_MAX) {
		kw->w->err = -EMSGSIZE;
		return;
	}
	proto_put_str(kw->w, key, n);
	proto_put_u8(kw->w, kind);
	kw->count++;
}

void
proto_kv_u64(struct proto_kv_wr *kw, const char *key, uint64_t v)
{
	kv_key(kw, key, PROTO_KV_U64);
	proto_put_u64(kw->w, v);
}

void
proto_kv_str(struct proto_kv_wr *kw, const char *key, const char *s)
{
	kv_key(kw, key, PROTO_KV_STR);
	proto_put_str(kw->w, s, strlen(s));
}

int
proto_kv_end(struct proto_kv_wr *kw)
{
	return proto_put_u16_at(kw->w, kw->count_off, kw->count);
}

int
proto_kv_init(struct proto_kv_rd *kr, const void *body, size_t len)
{
	rd_init(&kr->rd, body, len);
	kr->left = rd_u16(&kr->rd);
	return kr->rd.err;
}

int
proto_kv_next(struct proto_kv_rd *kr, struct proto_kv *ret_kv)
{
	struct proto_kv kv;

	if (kr->rd.err)
		return kr->rd.err;
	if (kr->left == 0)
		return 0;
	memset(&kv, 0, sizeof(kv));
	kv.key = proto_get_str(&kr->rd, &kv.key_len);
	kv.kind = rd_u8(&kr->rd);
	if (kr->rd.err == 0 && (kv.key_len == 0 || kv.key_len > PROTO_KEY_MAX))
		kr->rd.err = -EBADMSG;
	if (kv.kind == PROTO_KV_U64)
		kv.u64 = rd_u64(&kr->rd);
	else if (kv.kind == PROTO_KV_STR)
		kv.str = proto_get_str(&kr->rd, &kv.str_len);
	else
		kr->rd.err = -EBADMSG;
	if (kr->rd.err)
		return kr->rd.err;
	kr->left--;
	*ret_kv = kv;
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

int
proto_query_rr_encode(struct proto_wr *w, uint32_t id, uint16_t type,
    const char *name)
{
	size_t len = strlen(name);

	if (proto_name_check(name, len, NULL) < 0)
		return -EINVAL;
	proto_frame_begin(w, PROTO_QUERY_RR, 0, id);
	proto_put_u16(w, type);
	proto_put_u8(w, 0);
	proto_put_u8(w, 0);
	proto_put_str(w, name, len);
	return proto_frame_end(w);
}

int
proto_query_rr_decode(const void *body, size_t len, struct proto_query_rr *ret_req,
    const char **ret_why)
{
	struct rd	 rd;
	const uint8_t	*name;
	size_t		 n;

	rd_init(&rd, body, len);
	ret_req->type = rd_u16(&rd);
	rd_u8(&rd);
	rd_u8(&rd);
	n = rd_u16(&rd);
	name = rd_bytes(&rd, n);
	if (rd.err) {
		if (ret_why)
			*ret_why = "truncated query request";
		return rd.err;
	}
	if (ret_req->type == 0) {
		if (ret_why)
			*ret_why = "record type 0";
		return -EINVAL;
	}
	if (proto_name_check((const char *)name, n, ret_why) < 0 ||
	    n > sizeof(ret_req->name) - 1)
		return -EINVAL;
	memcpy(ret_req->name, name, n);
	ret_req->name[n] = '\0';
	ret_req->name_len = n;
	return 0;
}

void
proto_records_begin(struct proto_records_wr *rw, struct proto_wr *w,
    uint32_t ttl, uint8_t source)
{
	rw->w = w;
	rw->count = 0;
	proto_put_u32(w, ttl);
	proto_put_u8(w, source);
	proto_put_u8(w, 0);
	rw->count_off = w->off;
	proto_put_u16(w, 0);
}

void
proto_records_add(struct proto_records_wr *rw, const char *owner, uint16_t type,
    uint32_t ttl, const char *rdata)
{
	if (rw->count == UINT16_MAX) {
		rw->w->err = -EMSGSIZE;
		return;
	}
	proto_put_str(rw->w, owner, strlen(owner));
	proto_put_u16(rw->w, type);
	proto_put_u32(rw->w, ttl);
	proto_put_str(rw->w, rdata, strlen(rdata));
	rw->count++;
}

int
proto_records_end(struct proto_records_wr *rw)
{
	return proto_put_u16_at(rw->w, rw->count_off, rw->count);
}

int
proto_records_decode(const void *body, size_t len, struct proto_records *ret)
{
	struct proto_records	r;
	struct rd		rd;
	size_t			i, n;

	memset(&r, 0, sizeof(r));
	rd_init(&rd, body, len);
	r.ttl = rd_u32(&rd);
	r.source = rd_u8(&rd);
	rd_u8(&rd);
	r.count = rd_u16(&rd);
	r.items = rd.p + rd.off;
	for (i = 0; i < r.count && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		rd_u16(&rd);
		rd_u32(&rd);
		proto_get_str(&rd, &n);
	}
	if (rd.err)
		return rd.err;
	r.items_len = (size_t)(rd.p + rd.off - r.items);
	*ret = r;
	return 0;
}

void
proto_wire_body(struct proto_wr *w, const struct proto_wire *b)
{
	proto_put_u32(w, b->cap);
	proto_put_u32(w, b->age);
	proto_put_u8(w, b->source);
	proto_put_u8(w, 0);
	proto_put_u16(w, 0);
	proto_put_bytes(w, b->rrs, b->rrs_len);
}

int
proto_wire_decode(const void *body, size_t len, struct proto_wire *ret)
{
	struct proto_wire	b;
	struct rd		rd;

	rd_init(&rd, body, len);
	b.cap = rd_u32(&rd);
	b.age = rd_u32(&rd);
	b.source = rd_u8(&rd);
	rd_u8(&rd);
	rd_u16(&rd);
	if (rd.err)
		return rd.err;
	b.rrs = rd.p + rd.off;
	b.rrs_len = len - rd.off;
	*ret = b;
	return 0;
}

int
proto_records_stamp(void *body, size_t len, uint32_t ttl, uint8_t source)
{
	struct proto_records	 recs;
	struct rd		 rd;
	struct proto_wr		 w;
	uint8_t			*items;
	size_t			 i, n;
	int			 r;

	/* Records bodies open as answers do: u32 ttl, u8 source. */
	if ((r = proto_answer_stamp(body, len, ttl, source)) < 0)
		return r;
	if ((r = proto_records_decode(body, len, &recs)) < 0)
		return r;
	items = (uint8_t *)body + (recs.items - (const uint8_t *)body);
	rd_init(&rd, items, recs.items_len);
	for (i = 0; i < recs.count && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		rd_u16(&rd);
		/* The decoder walked these bytes: the ttl is in bounds. */
		proto_wr_init(&w, items + rd.off, 4);
		proto_put_u32(&w, ttl);
		rd_u32(&rd);
		proto_get_str(&rd, &n);
	}
	return rd.err;
}

int
proto_records_next(const struct proto_records *r, size_t *cursor,
    struct proto_record *ret)
{
	struct rd rd;

	if (*cursor >= r->items_len)
		return 0;
	rd_init(&rd, r->items, r->items_len);
	rd_seek(&rd, *cursor);
	ret->owner = proto_get_str(&rd, &ret->owner_len);
	ret->type = rd_u16(&rd);
	ret->ttl = rd_u32(&rd);
	ret->rdata = proto_get_str(&rd, &ret->rdata_len);
	if (rd.err)
		return 0;
	*cursor = rd.off;
	return 1;
}

int
proto_invalidate_encode(struct proto_wr *w, uint32_t id, const char *name)
{
	size_t len = strlen(name);

	if (proto_name_check(name, len, NULL) < 0)
		return -EINVAL;
	proto_frame_begin(w, PROTO_INVALIDATE, 0, id);
	proto_put_str(w, name, len);
	return proto_frame_end(w);
}

int
proto_invalidate_decode(const void *body, size_t len, char *name, size_t cap,
    const char **ret_why)
{
	struct rd	 rd;
	const uint8_t	*p;
	size_t		 n;

	rd_init(&rd, body, len);
	n = rd_u16(&rd);
	p = rd_bytes(&rd, n);
	if (rd.err) {
		if (ret_why)
			*ret_why = "truncated invalidate request";
		return rd.err;
	}
	if (proto_name_check((const char *)p, n, ret_why) < 0 || n >= cap)
		return -EINVAL;
	memcpy(name, p, n);
	name[n] = '\0';
	return 0;
}

int
proto_show_cache_encode(struct proto_wr *w, uint32_t id, uint64_t cursor)
{
	proto_frame_begin(w, PROTO_SHOW_CACHE, 0, id);
	proto_put_u64(w, cursor);
	return proto_frame_end(w);
}

int
proto_show_cache_decode(const void *body, size_t len, uint64_t *ret_cursor)
{
	struct rd rd;

	rd_init(&rd, body, len);
	*ret_cursor = rd_u64(&rd);
	return rd.err;
}

/* An optional database name: absent is "", a name is a short token. */
static int
get_db(struct rd *rd, char *db, size_t cap)
{
	const uint8_t	*p;
	size_t		 n, i;

	db[0] = '\0';
	if (rd_left(rd) == 0)
		return 0;
	n = rd_u16(rd);
	p = rd_bytes(rd, n);
	if (!rd_done(rd))
		return -EBADMSG;
	if (n == 0 || n >= cap)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (p[i] < 'a' || p[i] > 'z')
			return -EINVAL;
	memcpy(db, p, n);
	db[n] = '\0';
	return 0;
}

int
proto_show_db_encode(struct proto_wr *w, uint32_t id, uint64_t cursor, const char *db)
{
	proto_frame_begin(w, PROTO_SHOW_CACHE, 0, id);
	proto_put_u64(w, cursor);
	if (db && db[0])
		proto_put_str(w, db, strlen(db));
	return proto_frame_end(w);
}

int
proto_show_db_decode(const void *body, size_t len, uint64_t *ret_cursor, char *db,
    size_t cap)
{
	struct rd rd;

	rd_init(&rd, body, len);
	*ret_cursor = rd_u64(&rd);
	if (rd.err)
		return rd.err;
	return get_db(&rd, db, cap);
}

int
proto_flush_encode(struct proto_wr *w, uint32_t id, const char *db)
{
	proto_frame_begin(w, PROTO_FLUSH_CACHES, 0, id);
	if (db && db[0])
		proto_put_str(w, db, strlen(db));
	return proto_frame_end(w);
}

int
proto_flush_decode(const void *body, size_t len, char *db, size_t cap)
{
	struct rd rd;

	rd_init(&rd, body, len);
	return get_db(&rd, db, cap);
}

void
proto_cache_page_begin(struct proto_wr *w, size_t *ret_page_off)
{
	*ret_page_off = w->off;
	proto_put_u64(w, 0);		/* next cursor, */
	proto_put_u16(w, 0);		/* count: both written by _end */
}

void
proto_cache_page_item(struct proto_wr *w, const struct proto_cache_item *it)
{
	proto_put_str(w, it->name, it->name_len);
	proto_put_u32(w, it->kind);
	proto_put_u8(w, it->status);
	proto_put_u8(w, it->flags);
	proto_put_u32(w, it->ttl);
	if ((it->kind & (PROTO_CACHE_KIND_NSS | PROTO_CACHE_KIND_NSCD)) != 0)
		proto_put_str(w, it->origin ? it->origin : "", it->origin ? it->origin_len : 0);
}

int
proto_cache_page_end(struct proto_wr *w, size_t page_off, uint64_t next,
    uint16_t count)
{
	struct proto_wr at;

	if (w->err)
		return w->err;
	if (page_off > w->off)
		return -EINVAL;
	proto_wr_init(&at, w->p + page_off, w->off - page_off);
	proto_put_u64(&at, next);
	proto_put_u16(&at, count);
	return at.err;
}

int
proto_cache_page_decode(const void *body, size_t len, struct proto_cache_page *ret)
{
	struct proto_cache_page	 pg;
	struct rd		 rd;
	size_t			 i, n;

	memset(&pg, 0, sizeof(pg));
	rd_init(&rd, body, len);
	pg.next = rd_u64(&rd);
	pg.count = rd_u16(&rd);
	pg.items = rd.p + rd.off;
	for (i = 0; i < pg.count && rd.err == 0; i++) {
		uint32_t kind;

		proto_get_str(&rd, &n);
		kind = rd_u32(&rd);
		rd_u8(&rd);
		rd_u8(&rd);
		rd_u32(&rd);
		if (kind & (PROTO_CACHE_KIND_NSS | PROTO_CACHE_KIND_NSCD))
			proto_get_str(&rd, &n);
	}
	if (rd.err)
		return rd.err;
	pg.items_len = (size_t)(rd.p + rd.off - pg.items);
	*ret = pg;
	return 0;
}

int
proto_cache_page_next(const struct proto_cache_page *pg, size_t *cursor,
    struct proto_cache_item *ret)
{
	struct rd rd;

	if (*cursor >= pg->items_len)
		return 0;
	rd_init(&rd, pg->items, pg->items_len);
	rd_seek(&rd, *cursor);
	ret->name = proto_get_str(&rd, &ret->name_len);
	ret->kind = rd_u32(&rd);
	ret->status = rd_u8(&rd);
	ret->flags = rd_u8(&rd);
	ret->ttl = rd_u32(&rd);
	ret->origin = NULL;
	ret->origin_len = 0;
	if ((ret->kind & (PROTO_CACHE_KIND_NSS | PROTO_CACHE_KIND_NSCD)) != 0)
		ret->origin = proto_get_str(&rd, &ret->origin_len);
	if (rd.err)
		return 0;
	*cursor = rd.off;
	return 1;
}

static const struct {
	uint16_t	 type;
	const char	*name;
} rrtypes[] = {
	{ 1, "A" }, { 2, "NS" }, { 5, "CNAME" }, { 6, "SOA" }, { 12, "PTR" },
	{ 13, "HINFO" }, { 15, "MX" }, { 16, "TXT" }, { 28, "AAAA" },
	{ 33, "SRV" }, { 35, "NAPTR" }, { 39, "DNAME" }, { 41, "OPT" },
	{ 43, "DS" }, { 44, "SSHFP" }, { 46, "RRSIG" }, { 47, "NSEC" },
	{ 48, "DNSKEY" }, { 52, "TLSA" }, { 64, "SVCB" }, { 65, "HTTPS" },
	{ 99, "SPF" }, { 255, "ANY" }, { 256, "URI" }, { 257, "CAA" },
};

const char *
proto_rrtype_str(uint16_t type, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(rrtypes) / sizeof(rrtypes[0]); i++)
		if (rrtypes[i].type == type)
			return rrtypes[i].name;
	snprintf(buf, len, "TYPE%u", type);
	return buf;
}

int
proto_rrtype_parse(const char *s)
{
	unsigned long	 n = 0;
	size_t		 i;

	for (i = 0; i < sizeof(rrtypes) / sizeof(rrtypes[0]); i++)
		if (strcasecmp(rrtypes[i].name, s) == 0)
			return rrtypes[i].type;
	if (strncasecmp(s, "TYPE", 4) != 0 || s[4] == '\0')
		return -1;
	/* By hand, not strtoul: proto leaves errno alone. */
	for (s += 4; *s; s++) {
		if (*s < '0' || *s > '9' || (n = n * 10 + (unsigned long)(*s - '0')) > 65535)
			return -1;
	}
	return n > 0 ? (int)n : -1;
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
