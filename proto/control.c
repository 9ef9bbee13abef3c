/* SPDX-License-Identifier: MIT */
/* proto/control.c - the daemon's state in namecache's protocol: statistics and status, invalidate, flush, show-cache. */
#include <errno.h>
#include <string.h>

#include "proto.h"

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
