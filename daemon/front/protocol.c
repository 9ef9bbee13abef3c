/* SPDX-License-Identifier: MIT */
/* daemon/front/protocol.c - answers each request: decode, check, route, encode the reply. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cache.h"
#include "config.h"
#include "daemon.h"
#include "dnslisten.h"
#include "frame.h"
#include "hostsfile.h"
#include "httpmetrics.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "monitor.h"
#include "nsspool.h"
#include "resolver.h"
#include "wiring.h"
#include "nscdmap.h"
#include "nscddb.h"
#include "nscdsrv.h"
#include "registry.h"
#include "shm.h"

#define SHOW_CACHE_PAGE	48000	/* bytes of entries per show-cache reply */

static void
reply_status(struct daemon *d, struct server_req *req, uint16_t status,
    const char *msg)
{
	size_t		cap;
	void		*buf = server_scratch(d->server, &cap);
	struct proto_wr	w;
	int		n;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, status, req->hdr.id);
	proto_error_body(&w, msg);
	if ((n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
}

static void
bad_request(struct daemon *d, struct server_req *req, int r, const char *why)
{
	server_count(req, SERVER_BAD_REQUESTS);
	log_debug("client pid %d: bad request: %s", (int)req->cred.pid,
	    why ? why : "malformed");
	reply_status(d, req, r == -EINVAL ? PROTO_BADNAME : PROTO_BADREQUEST,
	    why ? why : "malformed request");
}

/* Admin operations: root, or a member of admin_group, by SO_PEERCRED. */
static bool
allowed(struct daemon *d, struct server_req *req)
{
	if (server_peer_is_admin(req, d->config->admin_gid))
		return true;
	log_info("client pid %d uid %u: admin request refused", (int)req->cred.pid,
	    (unsigned)req->cred.uid);
	reply_status(d, req, PROTO_DENIED, "permission denied: needs root or "
	    "the admin_group of namecached.conf");
	return false;
}

/* A kv reply: fn writes the items. */
static void
reply_kv(struct daemon *d, struct server_req *req,
    void (*fn)(struct daemon *, struct proto_kv_wr *, void *), void *arg)
{
	struct proto_kv_wr kw;
	struct proto_wr	 w;
	size_t		 cap;
	void		*buf = server_scratch(d->server, &cap);
	int		 n;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_kv_begin(&kw, &w);
	fn(d, &kw, arg);
	if (proto_kv_end(&kw) == 0 && (n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
	else
		reply_status(d, req, PROTO_INTERNAL, "reply too large");
}

void
protocol_statistics(struct daemon *d, struct proto_kv_wr *kw)
{
	registry_write_kv(d->registry, kw);
}

static void
kv_statistics(struct daemon *d, struct proto_kv_wr *kw, void *arg)
{
	protocol_statistics(d, kw);
}

static void
kv_status(struct daemon *d, struct proto_kv_wr *kw, void *arg)
{
	struct hostsfile_status	hs;
	struct resolver_info	ri;
	struct timespec		now;
	char			stamp[96];

	hostsfile_get_status(d->hosts, &hs);
	resolver_get_info(d->resolver, &ri);
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(stamp, sizeof(stamp), "%llu:%lld:%lld.%09ld",
	    (unsigned long long)hs.st.st_ino, (long long)hs.st.st_size,
	    (long long)hs.st.st_mtim.tv_sec, hs.st.st_mtim.tv_nsec);

	proto_kv_str(kw, "version", NAMECACHE_VERSION);
	proto_kv_u64(kw, "pid", (uint64_t)getpid());
	proto_kv_u64(kw, "uptime_sec", (uint64_t)(now.tv_sec - d->started.tv_sec));
	proto_kv_str(kw, "config_file", d->config_path);
	proto_kv_str(kw, "socket", d->config->socket);
	proto_kv_str(kw, "socket_activated",
	    server_socket_activated(d->server) ? "yes" : "no");
	proto_kv_u64(kw, "clients", server_clients(d->server));
	proto_kv_u64(kw, "max_clients", d->config->max_clients);
	proto_kv_str(kw, "log_level", log_level_str(d->config->log_level));
	proto_kv_str(kw, "log_queries", d->config->log_queries ? "yes" : "no");
	proto_kv_str(kw, "metrics_listen", d->config->metrics_listen);
	proto_kv_str(kw, "hosts_file", hs.path ? hs.path : "");
	proto_kv_u64(kw, "hosts_generation", hs.generation);
	proto_kv_str(kw, "hosts_stamp", stamp);
	proto_kv_str(kw, "hosts_error", hs.last_error ? strerror(-hs.last_error) : "");
	proto_kv_str(kw, "hosts_multi", hs.info.flags & HOSTS_MULTI ? "yes" : "no");
	proto_kv_u64(kw, "hosts_lines", hs.info.lines);
	proto_kv_u64(kw, "hosts_entries", hs.info.entries);
	proto_kv_u64(kw, "hosts_invalid_lines", hs.info.invalid);
	proto_kv_u64(kw, "hosts_names", hs.info.names);
	proto_kv_u64(kw, "hosts_memory_bytes", hs.info.memory);
	proto_kv_u64(kw, "hosts_text_bytes", hs.info.text);
	proto_kv_u64(kw, "hosts_load_usec", (uint64_t)hs.load_usec);
	proto_kv_str(kw, "resolv_conf", ri.resolv_conf);
	proto_kv_str(kw, "dns_servers", ri.servers);
	proto_kv_str(kw, "dns_search", ri.search);
	proto_kv_u64(kw, "dns_ndots", (uint64_t)ri.ndots);
	proto_kv_u64(kw, "dns_timeout_ms", (uint64_t)ri.timeout_ms);
	proto_kv_u64(kw, "dns_attempts", (uint64_t)ri.attempts);
	proto_kv_u64(kw, "dns_generation", ri.generation);
	proto_kv_u64(kw, "cache_size", d->config->cache_size);
	proto_kv_u64(kw, "cache_entries", cache_count(lookup_cache(d->lookup)));
	proto_kv_u64(kw, "min_ttl", d->config->min_ttl);
	proto_kv_u64(kw, "max_ttl", d->config->max_ttl);
	proto_kv_u64(kw, "negative_max_ttl", d->config->negative_max_ttl);
	proto_kv_u64(kw, "failure_ttl", d->config->failure_ttl);
	proto_kv_u64(kw, "serve_stale", d->config->serve_stale);
	proto_kv_str(kw, "prefetch", d->config->prefetch ? "yes" : "no");
	proto_kv_str(kw, "nsswitch_conf", d->config->nsswitch_conf);
	proto_kv_str(kw, "hosts_line", d->hosts_line);
	proto_kv_str(kw, "nsswitch_error", d->nsswitch_error);
	proto_kv_u64(kw, "nss_workers_max", d->config->nss_workers);
	proto_kv_u64(kw, "nss_workers_busy", nsspool_busy(d->nss));
	proto_kv_u64(kw, "nss_workers_stuck", nsspool_stuck(d->nss));
	proto_kv_u64(kw, "nss_timeout_sec", d->config->nss_timeout);
	if (d->shm) {
		struct shm_stats ss;

		shm_get_stats(d->shm, &ss);
		/* "failing": /run full, no segment now; clients ask the socket. */
		proto_kv_str(kw, "shared", ss.dead ? "failing" : "yes");
		proto_kv_u64(kw, "shared_slots", ss.nslots);
		proto_kv_u64(kw, "shared_data_bytes", ss.size);
	} else
		proto_kv_str(kw, "shared", "no");
	nscdsrv_status(d->nscd, kw);
	dnslisten_status(d->dns, kw);
}

static void
kv_count(struct daemon *d, struct proto_kv_wr *kw, void *arg)
{
	const struct { const char *key; uint64_t n; } *c = arg;

	proto_kv_u64(kw, c->key, c->n);
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
show_db(struct daemon *d, struct server_req *req, int db, uint64_t cursor)
{
	struct proto_wr	 w;
	struct db_page	 pg = { &w, 0 };
	size_t		 cap, page_off, next;
	void		*buf = server_scratch(d->server, &cap);
	int		 n;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_cache_page_begin(&w, &page_off);
	next = nscddb_walk(nscdsrv_db(d->nscd), db, (size_t)cursor, db_item, &pg);
	if (proto_cache_page_end(&w, page_off, next, pg.count) == 0 &&
	    (n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
	else
		reply_status(d, req, PROTO_INTERNAL, "show-cache page too large");
}

static void
show_cache(struct daemon *d, struct server_req *req)
{
	struct cache		*c = lookup_cache(d->lookup);
	struct proto_cache_item	 it;
	struct cache_item	 ci;
	struct proto_wr		 w;
	uint64_t		 cursor;
	size_t			 cap, page_off, cur;
	uint16_t		 count = 0;
	void			*buf = server_scratch(d->server, &cap);
	char			 text[PROTO_NAME_MAX + 2];
	int			 n;

	char			 db[PROTO_DB_NAME_MAX];
	int			 dbi;

	if (proto_show_db_decode(req->body, req->body_len, &cursor, db,
	    sizeof(db)) < 0) {
		bad_request(d, req, -EBADMSG, "bad show-cache request");
		return;
	}
	if (db[0] && (dbi = db_named(db)) != CONFIG_DB_HOSTS) {
		if (dbi < 0) {
			bad_request(d, req, -EINVAL, "no such database: want hosts, "
			    "passwd, group, services or netgroup");
			return;
		}
		show_db(d, req, dbi, cursor);
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
			it.origin = nsspool_module_name(d->nss,
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
		reply_status(d, req, PROTO_INTERNAL, "show-cache page too large");
}

static void
admin(struct daemon *d, struct server_req *req)
{
	struct { const char *key; uint64_t n; } count;
	char		 name[PROTO_NAME_MAX + 2];
	const char	*why = NULL;
	int		 r;

	if (!allowed(d, req))
		return;
	switch (req->hdr.type) {
	case PROTO_FLUSH_CACHES: {
		char	db[PROTO_DB_NAME_MAX], why_s[64];
		int	dbi = CONFIG_DB_HOSTS, i;

		if (proto_flush_decode(req->body, req->body_len, db, sizeof(db)) < 0 ||
		    (db[0] && (dbi = db_named(db)) < 0)) {
			bad_request(d, req, -EINVAL, "no such database: want hosts, "
			    "passwd, group, services or netgroup");
			return;
		}
		count.key = "flushed";
		count.n = 0;
		snprintf(why_s, sizeof(why_s), "flushed by pid %d", (int)req->cred.pid);
		/* No name: every database; "hosts": the hosts answers alone. */
		if (db[0] == '\0' || dbi == CONFIG_DB_HOSTS) {
			count.n = d->flush();
			log_info("cache flushed by pid %d: %llu entries",
			    (int)req->cred.pid, (unsigned long long)count.n);
		}
		for (i = 1; i < CONFIG_DB_COUNT; i++)
			if (db[0] == '\0' || dbi == i)
				count.n += nscdsrv_flush_db(d->nscd, i, why_s);
		break;
	}
	case PROTO_INVALIDATE:
		if ((r = proto_invalidate_decode(req->body, req->body_len, name,
		    sizeof(name), &why)) < 0) {
			bad_request(d, req, r, why);
			return;
		}
		count.key = "invalidated";
		count.n = cache_invalidate(lookup_cache(d->lookup), name);
		/* Only this name's records go: other names keep their hits. */
		if (d->shm)
			shm_retire_name(d->shm, name, strlen(name));
		if (nscdsrv_map(d->nscd))
			nscdmap_retire_name(nscdsrv_map(d->nscd), name, strlen(name));
		{
			/* A module's answers for that spelling, capitals and all. */
			char key[2 * PROTO_NAME_MAX + 4];

			modsrc_key(name, key, sizeof(key));
			if (strcmp(key, name) != 0)
				count.n += cache_invalidate(lookup_cache(d->lookup), key);
		}
		break;
	case PROTO_RESET_STATISTICS:
		memset(&d->counters, 0, sizeof(d->counters));
		server_reset_stats(d->server);
		hostsfile_reset_stats(d->hosts);
		resolver_reset_stats(d->resolver);
		nsspool_reset_stats(d->nss);
		nscdsrv_reset_stats(d->nscd);
		dnslisten_reset_stats(d->dns);
		lookup_reset_stats(d->lookup);
		monitor_reset_stats(d->monitor);
		metrics_reset(d->metrics);
		count.key = "reset";
		count.n = 1;
		break;
	case PROTO_RELOAD:
		d->reload();
		count.key = "reloaded";
		count.n = 1;
		break;
	case PROTO_MONITOR:
		if ((r = monitor_subscribe(d->monitor, req)) == -EBUSY)
			reply_status(d, req, PROTO_BUSY, "too many monitors at once");
		else if (r < 0)
			reply_status(d, req, PROTO_INTERNAL, "out of memory");
		else
			log_info("monitor attached: pid %d uid %u", (int)req->cred.pid,
			    (unsigned)req->cred.uid);
		return;
	default:
		return;
	}
	reply_kv(d, req, kv_count, &count);
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

void
protocol_request(void *arg, struct server_req *req)
{
	struct daemon		*d = arg;
	struct proto_lookup_name qn;
	struct proto_lookup_addr qa;
	struct proto_query_rr	 qr;
	struct lookup_req	 lr;
	struct lookup_client	 who;
	const char		*why = NULL;
	char			 msg[64];
	int			 r;

	wiring_client(&who, req, LOOKUP_FE_SOCKET);
	lr = (struct lookup_req){ .fe = &socket_front, .ctx = req, .client = &who,
	    .at_us = req->at_us };
	switch (req->hdr.type) {
	case PROTO_LOOKUP_NAME:
		server_count(req, SERVER_LOOKUPS_NAME);
		if ((r = proto_lookup_name_decode(req->body, req->body_len, &qn,
		    &why)) < 0)
			bad_request(d, req, r, why);
		else
			lookup_name(d->lookup, &lr, &qn);
		break;
	case PROTO_LOOKUP_ADDR:
		server_count(req, SERVER_LOOKUPS_ADDR);
		if ((r = proto_lookup_addr_decode(req->body, req->body_len, &qa,
		    &why)) < 0)
			bad_request(d, req, r, why);
		else
			lookup_addr(d->lookup, &lr, &qa);
		break;
	case PROTO_QUERY_RR:
		server_count(req, SERVER_LOOKUPS_RR);
		if ((r = proto_query_rr_decode(req->body, req->body_len, &qr,
		    &why)) < 0)
			bad_request(d, req, r, why);
		else
			lookup_rr(d->lookup, &lr, &qr);
		break;
	case PROTO_STATISTICS:
		reply_kv(d, req, kv_statistics, NULL);
		break;
	case PROTO_STATUS:
		reply_kv(d, req, kv_status, NULL);
		break;
	case PROTO_METRICS:
		metrics_request(d->metrics, req);
		break;
	case PROTO_SHOW_CACHE:
		show_cache(d, req);
		break;
	case PROTO_FLUSH_CACHES:
	case PROTO_INVALIDATE:
	case PROTO_RESET_STATISTICS:
	case PROTO_RELOAD:
	case PROTO_MONITOR:
		admin(d, req);
		break;
	default:
		server_count(req, SERVER_BAD_REQUESTS);
		snprintf(msg, sizeof(msg), "unknown request type %u", req->hdr.type);
		reply_status(d, req, PROTO_UNSUPPORTED, msg);
		break;
	}
}
