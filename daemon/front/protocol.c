/* SPDX-License-Identifier: MIT */
/* daemon/front/protocol.c - answers each request: decode, check, route, encode the reply. */

/*
 * The namecache protocol's front end: its socket (a server of its own),
 * the lookups it hands the engine, and the admin requests, which it
 * answers with the parts it was given (protocol_parts) or asks of the
 * daemon through daemon_ops.  It reads nothing of main.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "config.h"
#include "frame.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "monitor.h"
#include "nscddb.h"
#include "nscdsrv.h"
#include "nsspool.h"
#include "protocol.h"
#include "registry.h"
#include "server.h"
#include "wiring.h"

#define SHOW_CACHE_PAGE	48000	/* bytes of entries per show-cache reply */

struct protocol {
	struct server		*server;
	struct protocol_parts	 parts;
	struct nscdsrv		*nscd;		/* NULL: no nscd socket (yet) */
	gid_t			 admin_gid;	/* admin_group's, or SERVER_NO_GROUP */
};

static void
reply_status(struct server_req *req, uint16_t status, const char *msg)
{
	size_t		cap;
	void		*buf = server_req_scratch(req, &cap);
	struct proto_wr	w;
	int		n;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, status, req->hdr.id);
	proto_error_body(&w, msg);
	if ((n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
}

static void
bad_request(struct server_req *req, int r, const char *why)
{
	server_count(req, SERVER_BAD_REQUESTS);
	log_debug("client pid %d: bad request: %s", (int)req->cred.pid,
	    why ? why : "malformed");
	reply_status(req, r == -EINVAL ? PROTO_BADNAME : PROTO_BADREQUEST,
	    why ? why : "malformed request");
}

/* Admin operations: root, or a member of admin_group, by SO_PEERCRED. */
static bool
allowed(const struct protocol *p, struct server_req *req)
{
	if (server_peer_is_admin(req, p->admin_gid))
		return true;
	log_info("client pid %d uid %u: admin request refused", (int)req->cred.pid,
	    (unsigned)req->cred.uid);
	reply_status(req, PROTO_DENIED, "permission denied: needs root or "
	    "the admin_group of namecached.conf");
	return false;
}

/* A kv reply: fn writes the items, and returns 0 or -errno. */
static void
reply_kv(struct protocol *p, struct server_req *req,
    int (*fn)(struct protocol *, struct proto_kv_wr *, void *), void *arg)
{
	struct proto_kv_wr kw;
	struct proto_wr	 w;
	size_t		 cap;
	void		*buf = server_req_scratch(req, &cap);
	int		 n, r;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_kv_begin(&kw, &w);
	if ((r = fn(p, &kw, arg)) == 0 && proto_kv_end(&kw) == 0 &&
	    (n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
	else
		reply_status(req, PROTO_INTERNAL, r == -ENOMEM ? "out of memory" :
		    "reply too large");
}

static int
kv_statistics(struct protocol *p, struct proto_kv_wr *kw, void *arg)
{
	return registry_write_kv(p->parts.registry, kw);
}

static int
kv_status(struct protocol *p, struct proto_kv_wr *kw, void *arg)
{
	p->parts.ops.status(p->parts.ops.arg, kw);
	return 0;
}

static int
kv_count(struct protocol *p, struct proto_kv_wr *kw, void *arg)
{
	const struct { const char *key; uint64_t n; } *c = arg;

	proto_kv_u64(kw, c->key, c->n);
	return 0;
}

/* The database a show-cache or flush names: CONFIG_DB_*, or -1. */
static int
db_named(const char *db)
{
	int i;

	for (i = 0; i < CONFIG_DB_COUNT; i++)
		if (strcmp(db, config_db_names[i]) == 0)
			return i;
	return -1;
}

struct db_page {
	struct proto_wr	*w;
	uint16_t	 count;
};

static bool
db_item(void *arg, int32_t type, const char *what, const char *key, bool found,
    uint32_t ttl_left, const char *summary)
{
	struct db_page		*pg = arg;
	struct proto_cache_item	 it;
	char			 name[PROTO_NAME_MAX + 2];

	if (pg->w->off > SHOW_CACHE_PAGE || pg->count == UINT16_MAX)
		return false;
	/* "uid 1000", "name/proto http/tcp": what it looks up by, and the key */
	snprintf(name, sizeof(name), "%s %s", what, key);
	it.name = name;
	it.name_len = strlen(name);
	it.kind = PROTO_CACHE_KIND_NSCD | (uint32_t)type;
	it.status = found ? PROTO_OK : PROTO_NOTFOUND;
	it.flags = ttl_left == 0 ? PROTO_CACHE_EXPIRED : 0;
	it.ttl = ttl_left;
	it.origin = summary;
	it.origin_len = strlen(summary);
	proto_cache_page_item(pg->w, &it);
	pg->count++;
	return true;
}

/* show-cache passwd (group, services, netgroup): glibc's records, paged. */
static void
show_db(struct protocol *p, struct server_req *req, int db, uint64_t cursor)
{
	struct proto_wr	 w;
	struct db_page	 pg = { &w, 0 };
	size_t		 cap, page_off, next;
	void		*buf = server_req_scratch(req, &cap);
	int		 n;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_cache_page_begin(&w, &page_off);
	next = nscddb_walk(nscdsrv_db(p->nscd), db, (size_t)cursor, db_item, &pg);
	if (proto_cache_page_end(&w, page_off, next, pg.count) == 0 &&
	    (n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
	else
		reply_status(req, PROTO_INTERNAL, "show-cache page too large");
}

static void
show_cache(struct protocol *p, struct server_req *req)
{
	struct cache		*c = lookup_cache(p->parts.lookup);
	struct proto_cache_item	 it;
	struct cache_item	 ci;
	struct proto_wr		 w;
	uint64_t		 cursor;
	size_t			 cap, page_off, cur;
	uint16_t		 count = 0;
	void			*buf = server_req_scratch(req, &cap);
	char			 text[PROTO_NAME_MAX + 2];
	int			 n;

	char			 db[PROTO_DB_NAME_MAX];
	int			 dbi;

	if (proto_show_db_decode(req->body, req->body_len, &cursor, db,
	    sizeof(db)) < 0) {
		bad_request(req, -EBADMSG, "bad show-cache request");
		return;
	}
	if (db[0] && (dbi = db_named(db)) != CONFIG_DB_HOSTS) {
		if (dbi < 0) {
			bad_request(req, -EINVAL, "no such database: want hosts, "
			    "passwd, group, services or netgroup");
			return;
		}
		show_db(p, req, dbi, cursor);
		return;
	}
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_cache_page_begin(&w, &page_off);
	cur = (size_t)cursor;
	for (;;) {
		if (w.off > SHOW_CACHE_PAGE || count == UINT16_MAX) {
			cursor = cur;	/* full: the client asks again from here */
			break;
		}
		if (!cache_walk(c, &cur, &ci)) {
			cursor = 0;
			break;
		}
		it.name = ci.name;
		if ((ci.kind & CACHE_KIND_NSS) && strchr(ci.name, '\1')) {
			modsrc_key_text(ci.name, text, sizeof(text));
			it.name = text;
		}
		it.name_len = strlen(it.name);
		it.kind = ci.kind;
		it.status = ci.status == CACHE_POSITIVE ? PROTO_OK :
		    ci.status == CACHE_NXDOMAIN ? PROTO_NOTFOUND :
		    ci.status == CACHE_NODATA ? PROTO_NODATA : PROTO_TRYAGAIN;
		it.flags = ci.expired ? PROTO_CACHE_EXPIRED : 0;
		it.ttl = ci.ttl_left;
		it.origin = NULL;
		if (ci.kind & CACHE_KIND_NSS) {
			it.origin = nsspool_module_name(p->parts.nss,
			    modsrc_kind_module(ci.kind));
			it.origin_len = strlen(it.origin);
		}
		proto_cache_page_item(&w, &it);
		count++;
	}
	if (proto_cache_page_end(&w, page_off, cursor, count) == 0 &&
	    (n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
	else
		reply_status(req, PROTO_INTERNAL, "show-cache page too large");
}

static void
admin(struct protocol *p, struct server_req *req)
{
	struct { const char *key; uint64_t n; } count;
	char		 name[PROTO_NAME_MAX + 2];
	const char	*why = NULL;
	int		 r;

	if (!allowed(p, req))
		return;
	switch (req->hdr.type) {
	case PROTO_FLUSH_CACHES: {
		char	db[PROTO_DB_NAME_MAX], why_s[64];
		int	dbi = CONFIG_DB_HOSTS, i;

		if (proto_flush_decode(req->body, req->body_len, db, sizeof(db)) < 0 ||
		    (db[0] && (dbi = db_named(db)) < 0)) {
			bad_request(req, -EINVAL, "no such database: want hosts, "
			    "passwd, group, services or netgroup");
			return;
		}
		count.key = "flushed";
		count.n = 0;
		snprintf(why_s, sizeof(why_s), "flushed by pid %d", (int)req->cred.pid);
		/* No name: every database; "hosts": the hosts answers alone. */
		if (db[0] == '\0' || dbi == CONFIG_DB_HOSTS) {
			count.n = p->parts.ops.flush(p->parts.ops.arg);
			log_info("cache flushed by pid %d: %llu entries",
			    (int)req->cred.pid, (unsigned long long)count.n);
		}
		for (i = 1; i < CONFIG_DB_COUNT; i++)
			if (db[0] == '\0' || dbi == i)
				count.n += nscdsrv_flush_db(p->nscd, i, why_s);
		break;
	}
	case PROTO_INVALIDATE:
		if ((r = proto_invalidate_decode(req->body, req->body_len, name,
		    sizeof(name), &why)) < 0) {
			bad_request(req, r, why);
			return;
		}
		count.key = "invalidated";
		count.n = p->parts.ops.invalidate(p->parts.ops.arg, name);
		break;
	case PROTO_RESET_STATISTICS:
		p->parts.ops.reset_statistics(p->parts.ops.arg);
		count.key = "reset";
		count.n = 1;
		break;
	case PROTO_RELOAD:
		p->parts.ops.reload(p->parts.ops.arg);
		count.key = "reloaded";
		count.n = 1;
		break;
	case PROTO_MONITOR:
		if ((r = monitor_subscribe(p->parts.monitor, req)) == -EBUSY)
			reply_status(req, PROTO_BUSY, "too many monitors at once");
		else if (r < 0)
			reply_status(req, PROTO_INTERNAL, "out of memory");
		else
			log_info("monitor attached: pid %d uid %u", (int)req->cred.pid,
			    (unsigned)req->cred.uid);
		return;
	default:
		return;
	}
	reply_kv(p, req, kv_count, &count);
}

/* The engine's answers to this protocol's lookups are its reply frames. */
static void *
fe_hold(void *ctx)
{
	return server_hold(ctx);
}

static void
fe_reply(void *ctx, const struct answer *a)
{
	struct server_req	*req = ctx;
	size_t			 cap;
	uint8_t			*buf = server_req_scratch(req, &cap);

	server_reply(req, buf, frame_answer(buf, cap, req->hdr.type, req->hdr.id, a));
}

static void
fe_hold_reply(void *hold, const struct answer *a)
{
	struct server_hold	*h = hold;
	size_t			 cap;
	uint8_t			*buf = server_hold_scratch(h, &cap);

	server_hold_reply(h, buf, frame_answer(buf, cap, server_hold_type(h),
	    server_hold_id(h), a));
}

static void
fe_hold_release(void *hold)
{
	server_hold_release(hold);
}

static const struct lookup_frontend socket_front = {
	.hold = fe_hold,
	.reply = fe_reply,
	.hold_reply = fe_hold_reply,
	.hold_release = fe_hold_release,
};

static void
request(void *arg, struct server_req *req)
{
	struct protocol		*p = arg;
	struct proto_lookup_name qn;
	struct proto_lookup_addr qa;
	struct proto_query_rr	 qr;
	struct lookup_req	 lr;
	struct lookup_client	 who;
	const char		*why = NULL;
	char			 msg[64];
	int			 r;

	/*
	 * A lookup from the daemon's own process (the namecache module
	 * loaded inside it, were it on a line glibc walks here): declined
	 * at once, so the module says UNAVAIL and the next source answers.
	 * selfnss.c keeps the module off those lines; this is the second
	 * lock, counted.
	 */
	if (req->cred.pid == getpid() && (req->hdr.type == PROTO_LOOKUP_NAME ||
	    req->hdr.type == PROTO_LOOKUP_ADDR || req->hdr.type == PROTO_QUERY_RR)) {
		server_count(req, SERVER_SELF_REFUSED);
		reply_status(req, PROTO_DENIED, "namecached does not ask itself");
		return;
	}
	wiring_client(&who, req, LOOKUP_FE_SOCKET);
	lr = (struct lookup_req){ .fe = &socket_front, .ctx = req, .client = &who,
	    .at_us = req->at_us };
	switch (req->hdr.type) {
	case PROTO_LOOKUP_NAME:
		server_count(req, SERVER_LOOKUPS_NAME);
		if ((r = proto_lookup_name_decode(req->body, req->body_len, &qn,
		    &why)) < 0)
			bad_request(req, r, why);
		else
			lookup_name(p->parts.lookup, &lr, &qn);
		break;
	case PROTO_LOOKUP_ADDR:
		server_count(req, SERVER_LOOKUPS_ADDR);
		if ((r = proto_lookup_addr_decode(req->body, req->body_len, &qa,
		    &why)) < 0)
			bad_request(req, r, why);
		else
			lookup_addr(p->parts.lookup, &lr, &qa);
		break;
	case PROTO_QUERY_RR:
		server_count(req, SERVER_LOOKUPS_RR);
		if ((r = proto_query_rr_decode(req->body, req->body_len, &qr,
		    &why)) < 0)
			bad_request(req, r, why);
		else
			lookup_rr(p->parts.lookup, &lr, &qr);
		break;
	case PROTO_STATISTICS:
		reply_kv(p, req, kv_statistics, NULL);
		break;
	case PROTO_STATUS:
		reply_kv(p, req, kv_status, NULL);
		break;
	case PROTO_METRICS:
		metrics_request(p->parts.metrics, req);
		break;
	case PROTO_SHOW_CACHE:
		show_cache(p, req);
		break;
	case PROTO_FLUSH_CACHES:
	case PROTO_INVALIDATE:
	case PROTO_RESET_STATISTICS:
	case PROTO_RELOAD:
	case PROTO_MONITOR:
		admin(p, req);
		break;
	default:
		server_count(req, SERVER_BAD_REQUESTS);
		snprintf(msg, sizeof(msg), "unknown request type %u", req->hdr.type);
		reply_status(req, PROTO_UNSUPPORTED, msg);
		break;
	}
}

struct protocol *
protocol_new(struct event_base *base, const struct protocol_parts *parts)
{
	struct protocol *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->parts = *parts;
	p->admin_gid = SERVER_NO_GROUP;
	if ((p->server = server_new(base, request, p)) == NULL) {
		free(p);
		return NULL;
	}
	return p;
}

void
protocol_free(struct protocol *p)
{
	if (p == NULL)
		return;
	server_free(p->server);
	free(p);
}

struct server *
protocol_server(struct protocol *p)
{
	return p->server;
}

void
protocol_configure(struct protocol *p, const struct config *c)
{
	p->admin_gid = c->admin_gid;
	server_set_max_clients(p->server, c->max_clients);
	server_set_idle_timeout(p->server, c->idle_timeout);
}

void
protocol_set_nscd(struct protocol *p, struct nscdsrv *nscd)
{
	p->nscd = nscd;
}
