/* SPDX-License-Identifier: MIT */
/* client-lib/control.c - records of any type, statistics, status, the cache and admin requests. */

/*
 * Each is one blocking round trip on a context's connection (nc_ctx_call),
 * never through the shared cache: namecachectl shows what the daemon says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "decode.h"
#include "event.h"
#include "proto.h"

/*
 * One request, one reply of status OK made into a struct by decode (when
 * not NULL).  A failure's reason goes to namecache_reason().
 */
static int
call(struct namecache *ctx, const uint8_t *req, int len, int timeout_ms,
    int (*decode)(const uint8_t *, size_t, void *), void *ret)
{
	struct nc_raw_reply	rep;
	int			r;

	if (len < 0)
		return NAMECACHE_ERR_INVAL;
	if ((r = nc_ctx_call(ctx, req, (size_t)len, timeout_ms, &rep)) < 0)
		return r;
	if (rep.status != PROTO_OK) {
		nc_ctx_set_reason(ctx, rep.body, rep.body_len);
		r = nc_status_error(rep.status);
	} else if (decode)
		r = decode(rep.body, rep.body_len, ret);
	free(rep.body);
	return r;
}

static int
dec_records(const uint8_t *body, size_t len, void *ret)
{
	return nc_records_decode(body, len, ret);
}

static int
dec_values(const uint8_t *body, size_t len, void *ret)
{
	return nc_values_decode(body, len, ret);
}

static int
dec_page(const uint8_t *body, size_t len, void *ret)
{
	return nc_cache_page_decode(body, len, ret);
}

/* The admin replies: a kv list whose first number is a count. */
static int
dec_count(const uint8_t *body, size_t len, void *ret)
{
	struct proto_kv_rd	kr;
	struct proto_kv		kv;

	*(uint64_t *)ret = 0;
	if (proto_kv_init(&kr, body, len) == 0 && proto_kv_next(&kr, &kv) > 0 &&
	    kv.kind == PROTO_KV_U64)
		*(uint64_t *)ret = kv.u64;
	return 0;
}

NC_EXPORT int
namecache_query_records(struct namecache *ctx, const char *name, uint16_t type,
    int timeout_ms, struct namecache_records **ret_records)
{
	uint8_t		buf[PROTO_HDR_LEN + 6 + PROTO_NAME_MAX + 1];
	struct proto_wr	w;

	if (ctx == NULL || name == NULL || ret_records == NULL || type == 0)
		return NAMECACHE_ERR_INVAL;
	if (proto_name_check(name, strlen(name), NULL) < 0)
		return NAMECACHE_ERR_BADNAME;
	proto_wr_init(&w, buf, sizeof(buf));
	return call(ctx, buf, proto_query_rr_encode(&w, 1, type, name), timeout_ms,
	    dec_records, ret_records);
}

static int
values(struct namecache *ctx, uint8_t type, int timeout_ms,
    struct namecache_values **ret_values)
{
	uint8_t		buf[PROTO_HDR_LEN];
	struct proto_wr	w;

	if (ctx == NULL || ret_values == NULL)
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	return call(ctx, buf, proto_simple_encode(&w, type, 1), timeout_ms, dec_values,
	    ret_values);
}

NC_EXPORT int
namecache_statistics(struct namecache *ctx, int timeout_ms,
    struct namecache_values **ret_values)
{
	return values(ctx, PROTO_STATISTICS, timeout_ms, ret_values);
}

NC_EXPORT int
namecache_status(struct namecache *ctx, int timeout_ms,
    struct namecache_values **ret_values)
{
	return values(ctx, PROTO_STATUS, timeout_ms, ret_values);
}

NC_EXPORT int
namecache_show_cache(struct namecache *ctx, uint64_t cursor, int timeout_ms,
    struct namecache_cache_page **ret_page)
{
	uint8_t		buf[PROTO_HDR_LEN + 8];
	struct proto_wr	w;

	if (ctx == NULL || ret_page == NULL)
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	return call(ctx, buf, proto_show_cache_encode(&w, 1, cursor), timeout_ms,
	    dec_page, ret_page);
}

NC_EXPORT int
namecache_show_database(struct namecache *ctx, const char *database, uint64_t cursor,
    int timeout_ms, struct namecache_cache_page **ret_page)
{
	uint8_t		buf[PROTO_HDR_LEN + 8 + 2 + PROTO_DB_NAME_MAX];
	struct proto_wr	w;

	if (ctx == NULL || ret_page == NULL || database == NULL ||
	    strlen(database) >= PROTO_DB_NAME_MAX)
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	return call(ctx, buf, proto_show_db_encode(&w, 1, cursor, database),
	    timeout_ms, dec_page, ret_page);
}

NC_EXPORT int
namecache_flush_database(struct namecache *ctx, const char *database, int timeout_ms,
    uint64_t *ret_count)
{
	uint8_t		buf[PROTO_HDR_LEN + 2 + PROTO_DB_NAME_MAX];
	struct proto_wr	w;
	uint64_t	n = 0;
	int		r;

	if (ctx == NULL || database == NULL || strlen(database) >= PROTO_DB_NAME_MAX)
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	if ((r = call(ctx, buf, proto_flush_encode(&w, 1, database), timeout_ms,
	    dec_count, &n)) == 0 && ret_count)
		*ret_count = n;
	return r;
}

static int
admin(struct namecache *ctx, uint8_t type, const char *name, int timeout_ms,
    uint64_t *ret_count)
{
	uint8_t		buf[PROTO_HDR_LEN + 2 + PROTO_NAME_MAX + 1];
	struct proto_wr	w;
	uint64_t	n = 0;
	int		len, r;

	if (ctx == NULL)
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	if (type == PROTO_INVALIDATE) {
		if (name == NULL)
			return NAMECACHE_ERR_INVAL;
		if (proto_name_check(name, strlen(name), NULL) < 0)
			return NAMECACHE_ERR_BADNAME;
		len = proto_invalidate_encode(&w, 1, name);
	} else
		len = proto_simple_encode(&w, type, 1);
	if ((r = call(ctx, buf, len, timeout_ms, dec_count, &n)) == 0 && ret_count)
		*ret_count = n;
	return r;
}

NC_EXPORT int
namecache_flush_caches(struct namecache *ctx, int timeout_ms, uint64_t *ret_count)
{
	return admin(ctx, PROTO_FLUSH_CACHES, NULL, timeout_ms, ret_count);
}

NC_EXPORT int
namecache_invalidate(struct namecache *ctx, const char *name, int timeout_ms,
    uint64_t *ret_count)
{
	return admin(ctx, PROTO_INVALIDATE, name, timeout_ms, ret_count);
}

NC_EXPORT int
namecache_reset_statistics(struct namecache *ctx, int timeout_ms)
{
	return admin(ctx, PROTO_RESET_STATISTICS, NULL, timeout_ms, NULL);
}

NC_EXPORT int
namecache_reload(struct namecache *ctx, int timeout_ms)
{
	return admin(ctx, PROTO_RELOAD, NULL, timeout_ms, NULL);
}

struct metrics_got {
	struct proto_metrics_page	 page;
	char				*text;	/* total + 1 bytes */
	size_t				 off;
};

static int
dec_metrics(const uint8_t *body, size_t len, void *ret)
{
	struct metrics_got *g = ret;

	if (proto_metrics_page_decode(body, len, &g->page) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	if (g->text == NULL && (g->text = malloc(g->page.total + 1)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	if (g->page.len > g->page.total - g->off)
		return NAMECACHE_ERR_PROTOCOL;
	memcpy(g->text + g->off, g->page.text, g->page.len);
	g->off += g->page.len;
	return 0;
}

/*
 * Page by page, of one rendering (serial).  If the daemon renders again
 * for another client between our pages, it says TRYAGAIN, and we start
 * over: a few times, then give up.
 */
NC_EXPORT int
namecache_metrics(struct namecache *ctx, int timeout_ms, char **ret_text,
    size_t *ret_len)
{
	struct metrics_got	 g;
	struct proto_wr		 w;
	uint8_t			 req[64];
	uint64_t		 serial;
	int			 r = NAMECACHE_ERR_TRYAGAIN, tries;

	if (ret_text == NULL)
		return NAMECACHE_ERR_INVAL;
	for (tries = 0; tries < 4 && r == NAMECACHE_ERR_TRYAGAIN; tries++) {
		memset(&g, 0, sizeof(g));
		serial = 0;
		do {
			proto_wr_init(&w, req, sizeof(req));
			r = call(ctx, req, proto_metrics_encode(&w, 1, serial,
			    g.off), timeout_ms, dec_metrics, &g);
			if (r == 0 && serial != 0 && g.page.serial != serial)
				r = NAMECACHE_ERR_PROTOCOL;
			serial = g.page.serial;
		} while (r == 0 && g.off < g.page.total && g.page.len > 0);
		if (r == 0 && g.off != g.page.total)
			r = NAMECACHE_ERR_PROTOCOL;
		if (r < 0)
			free(g.text);
	}
	if (r < 0)
		return r;
	g.text[g.off] = '\0';
	*ret_text = g.text;
	if (ret_len)
		*ret_len = g.off;
	return 0;
}
