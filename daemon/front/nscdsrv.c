/* SPDX-License-Identifier: MIT */
/* daemon/front/nscdsrv.c - glibc's nscd protocol on its own socket: hosts, passwd, group, services, netgroup. */

/*
 * glibc asks nscd before NSS and, when nscd answers, never asks NSS: so
 * every hosts request is answered by the whole hosts line's walk (the
 * same lookup the NSS module's requests get), and anything this
 * translation cannot say exactly is refused (found = -1), which makes
 * glibc run NSS itself for that lookup and skip nscd for its next 100 of
 * the same database.  passwd, group (and initgroups), services and
 * netgroup are nscddb.c's, each walking its own line; a database not in
 * nscd_databases (or one whose line names sss) is refused, at once.
 * Replies go out in one write, the header first, as glibc reads the
 * header in one read; then the connection closes.
 */
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "config.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "monitor.h"
#include "nscd.h"
#include "nscddb.h"
#include "nscdmap.h"
#include "nscdsrv.h"
#include "nsspool.h"
#include "registry.h"
#include "server.h"
#include "wiring.h"
#include "shm.h"
#include "watch.h"

struct nscdsrv {
	struct nscdsrv_parts	 parts;
	const struct config	*config;	/* until the next nscdsrv_configure */
	struct server		*server;
	struct nscdmap		*map;
	struct nscddb		*db;
	struct watch		*watches[CONFIG_DB_COUNT];	/* /etc/passwd, ... */
	struct file_watch {
		struct nscdsrv	*ns;
		int		 db;
	} files[CONFIG_DB_COUNT];	/* the watches' args */
	char			*path;
	char			*map_path;
	struct nscdsrv_stats	 st;
};

static bool
hosts_served(const struct nscdsrv *ns)
{
	return (ns->config->nscd_databases >> CONFIG_DB_HOSTS) & 1;
}

/*
 * The engine's answer to a hosts request, in glibc's bytes, into out: what
 * glibc's format cannot say is refused, and glibc walks NSS itself.
 */
static size_t
nscd_bytes(struct nscdsrv *ns, int32_t type, const struct answer *a, uint8_t *out,
    size_t cap)
{
	int n = nscd_reply_from(type, a->status, a->status == PROTO_OK &&
	    a->form == ANSWER_HOST ? &a->host : NULL, out, cap);

	if (n > 0)
		return (size_t)n;
	ns->st.refused++;
	ns->st.refused_hosts++;
	return nscd_refusal(type, out);
}

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

	server_reply_raw(req, buf, nscd_bytes(server_req_arg(req), req->hdr.type, a,
	    buf, cap));
}

static void
fe_hold_reply(void *hold, const struct answer *a)
{
	struct server_hold	*h = hold;
	size_t			 cap;
	uint8_t			*buf = server_hold_scratch(h, &cap);

	server_hold_reply_raw(h, buf, nscd_bytes(server_hold_arg(h), server_hold_type(h),
	    a, buf, cap));
}

static void
fe_hold_release(void *hold)
{
	server_hold_release(hold);
}

static const struct lookup_frontend nscd_front = {
	.hold = fe_hold,
	.reply = fe_reply,
	.hold_reply = fe_hold_reply,
	.hold_release = fe_hold_release,
};

static void
send_fd(struct nscdsrv *ns, struct nscdmap *map, struct server_req *req)
{
	union {
		struct cmsghdr	hdr;
		char		bytes[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct msghdr	 msg = { 0 };
	struct cmsghdr	*cm;
	struct iovec	 iov[2];
	uint64_t	 mapsize;
	int		 fd = nscdmap_fd(map, &mapsize);

	/* glibc checks the key it sent comes back, then the size. */
	memset(&cbuf, 0, sizeof(cbuf));		/* CMSG_SPACE's padding too */
	iov[0].iov_base = (void *)req->body;
	iov[0].iov_len = req->body_len;
	iov[1].iov_base = &mapsize;
	iov[1].iov_len = sizeof(mapsize);
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	msg.msg_control = cbuf.bytes;
	msg.msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	/* A fresh connection's buffer is empty: this never blocks. */
	if (sendmsg(server_req_fd(req), &msg, MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
		ns->st.fds_sent++;
	server_reply_raw(req, NULL, 0);
}

static void
invalidate(struct nscdsrv *ns, struct server_req *req)
{
	int32_t		 resp = EINVAL;
	char		 why[64];
	int		 i;

	if (req->body_len == 0 || req->body[req->body_len - 1] != '\0')
		goto out;
	if (!server_peer_is_admin(req, ns->config->admin_gid)) {
		ns->st.denied++;
		log_info("nscd client pid %d uid %u: invalidate refused",
		    (int)req->cred.pid, (unsigned)req->cred.uid);
		resp = EPERM;
		goto out;
	}
	if (strcmp((const char *)req->body, "hosts") == 0) {
		size_t n = ns->parts.ops.flush(ns->parts.ops.arg);

		log_info("nscd: hosts invalidated by pid %d: %zu entries",
		    (int)req->cred.pid, n);
		resp = 0;
		goto out;
	}
	for (i = 1; i < CONFIG_DB_COUNT; i++)
		if (strcmp((const char *)req->body, config_db_names[i]) == 0) {
			snprintf(why, sizeof(why), "invalidated by pid %d",
			    (int)req->cred.pid);
			nscddb_invalidate(ns->db, i, why);
			resp = 0;
		}
out:
	server_reply_raw(req, &resp, sizeof(resp));
}

/* A hosts lookup, through the walk every namecache lookup takes. */
static void
lookup(struct nscdsrv *ns, struct server_req *req, int32_t type)
{
	struct proto_lookup_name qn;
	struct proto_lookup_addr qa;
	struct lookup_req	 lr;
	struct lookup_client	 who;
	uint8_t			 refusal[64];
	size_t			 klen = req->body_len;

	wiring_client(&who, req, LOOKUP_FE_NSCD);
	lr = (struct lookup_req){ .fe = &nscd_front, .ctx = req, .client = &who,
	    .at_us = req->at_us };
	switch (type) {
	case NSCD_GETHOSTBYNAME:
	case NSCD_GETHOSTBYNAMEv6:
	case NSCD_GETAI:
		/* A name and its NUL, nothing after it. */
		if (klen < 2 || req->body[klen - 1] != '\0' ||
		    strlen((const char *)req->body) != klen - 1 ||
		    klen - 1 > PROTO_NAME_MAX + 1 ||
		    proto_name_check((const char *)req->body, klen - 1, NULL) < 0)
			break;
		memset(&qn, 0, sizeof(qn));
		qn.family = type == NSCD_GETAI ? PROTO_AF_UNSPEC :
		    type == NSCD_GETHOSTBYNAME ? PROTO_AF_INET : PROTO_AF_INET6;
		qn.name_len = klen - 1;
		memcpy(qn.name, req->body, klen);
		server_count(req, SERVER_LOOKUPS_NAME);
		lookup_name(ns->parts.lookup, &lr, &qn);
		return;
	case NSCD_GETHOSTBYADDR:
	case NSCD_GETHOSTBYADDRv6:
		if (klen != (type == NSCD_GETHOSTBYADDR ? 4u : 16u))
			break;
		memset(&qa, 0, sizeof(qa));
		qa.family = klen == 4 ? PROTO_AF_INET : PROTO_AF_INET6;
		memcpy(qa.addr, req->body, klen);
		server_count(req, SERVER_LOOKUPS_ADDR);
		lookup_addr(ns->parts.lookup, &lr, &qa);
		return;
	}
	/* Not a key namecache looks up: glibc decides what it means. */
	server_count(req, SERVER_BAD_REQUESTS);
	ns->st.refused++;
	ns->st.refused_hosts++;
	server_reply_raw(req, refusal, nscd_refusal(type, refusal));
}

/* A request of nscd's other databases, held for nscddb's answer. */
struct db_ask {
	struct nscdsrv		*ns;
	struct server_hold	*h;
	struct lookup_client	 who;
	int32_t			 type;
	uint64_t		 at_us;		/* read then */
	size_t			 key_len;
	uint8_t			 key[NSCD_KEY_MAX];
};

/* The monitor, the query log and the metrics are told as for hosts. */
static void
db_told(struct db_ask *a, const void *reply, size_t len, const struct nscddb_how *how)
{
	struct monitor_db	 m;
	int32_t			 found = -1;

	if (len >= 8)
		memcpy(&found, (const uint8_t *)reply + 4, 4);	/* every header's */
	memset(&m, 0, sizeof(m));
	m.client = &a->who;
	m.type = a->type;
	m.key = a->key;
	m.key_len = a->key_len;
	m.cache = how ? how->cache : PROTO_CACHE_MISS;
	m.source = how ? how->source : NULL;
	m.status = len == 0 ? PROTO_TRYAGAIN : found == 1 ? PROTO_OK : PROTO_NOTFOUND;
	m.end_us = mono_us();
	m.usec = m.end_us > a->at_us ? m.end_us - a->at_us : 0;
	monitor_db_lookup(a->ns->parts.monitor, &m);
	metrics_db_lookup(a->ns->parts.metrics, &m);
}

/* An answer of nscddb's, to the request held for it. */
static void
db_done(void *arg, const void *reply, size_t len, const struct nscddb_how *how)
{
	struct db_ask	*a = arg;
	uint8_t		 refusal[64];

	db_told(a, reply, len, how);
	if (len == 0)
		/* (a hold's type is its request's, capped at 255) */
		server_hold_reply_raw(a->h, refusal,
		    nscd_refusal(server_hold_type(a->h), refusal));
	else
		server_hold_reply_raw(a->h, reply, len);
	free(a);
}

/*
 * passwd, group, initgroups, services, netgroup: the connection is held
 * for nscddb's answer, which a hit gives inside nscddb_ask.
 */
static void
db_lookup(struct nscdsrv *ns, struct server_req *req, int32_t type)
{
	struct db_ask	*a;
	uint8_t		 refusal[64];
	int		 r;

	if (req->body_len > NSCD_KEY_MAX || (a = calloc(1, sizeof(*a))) == NULL) {
		server_reply_raw(req, refusal, nscd_refusal(type, refusal));
		return;
	}
	/* A hit answers at once (the callback runs inside nscddb_ask). */
	if ((a->h = server_hold(req)) == NULL) {
		free(a);
		server_reply_raw(req, refusal, nscd_refusal(type, refusal));
		return;
	}
	a->ns = ns;
	a->type = type;
	a->at_us = req->at_us ? req->at_us : mono_us();
	a->who.fe = LOOKUP_FE_NSCD;
	a->who.pid = req->cred.pid;
	a->who.uid = req->cred.uid;
	a->key_len = req->body_len;
	memcpy(a->key, req->body, req->body_len);
	r = nscddb_ask(ns->db, type, req->body, req->body_len, db_done, a);
	if (r == 0)
		return;
	if (r == -EINVAL)
		server_count(req, SERVER_BAD_REQUESTS);
	ns->st.refused++;
	server_hold_reply_raw(a->h, refusal, nscd_refusal(type, refusal));
	free(a);
}

static void
dispatch(void *arg, struct server_req *req)
{
	struct nscdsrv	*ns = arg;
	int32_t		 type = req->hdr.type;
	uint8_t		 refusal[64];

	ns->st.requests[type < NSCD_LASTREQ ? type : NSCD_LASTREQ]++;
	/*
	 * The daemon's own lookups (a module calling getaddrinfo on a
	 * worker) must not come back here: glibc asks NSS for them instead.
	 * (The daemon sets its lines with __nss_configure_lookup, which
	 * already keeps glibc off nscd in its process, selfnss.c; this is
	 * the second lock, counted: self_refused.)
	 */
	if (req->cred.pid == getpid()) {
		ns->st.refused++;
		server_count(req, SERVER_SELF_REFUSED);
		server_reply_raw(req, refusal, nscd_refusal(type, refusal));
		return;
	}
	switch (type) {
	case NSCD_GETHOSTBYNAME:
	case NSCD_GETHOSTBYNAMEv6:
	case NSCD_GETHOSTBYADDR:
	case NSCD_GETHOSTBYADDRv6:
	case NSCD_GETAI:
		if (!hosts_served(ns)) {
			ns->st.refused_hosts++;
			break;
		}
		lookup(ns, req, type);
		return;
	case NSCD_GETFDHST:
		if (ns->map && hosts_served(ns) && req->body_len == sizeof("hosts") &&
		    memcmp(req->body, "hosts", sizeof("hosts")) == 0) {
			send_fd(ns, ns->map, req);
			return;
		}
		break;
	case NSCD_GETPWBYNAME:
	case NSCD_GETPWBYUID:
	case NSCD_GETGRBYNAME:
	case NSCD_GETGRBYGID:
	case NSCD_INITGROUPS:
	case NSCD_GETSERVBYNAME:
	case NSCD_GETSERVBYPORT:
	case NSCD_GETNETGRENT:
	case NSCD_INNETGR:
		db_lookup(ns, req, type);
		return;
	case NSCD_GETFDPW:
	case NSCD_GETFDGR:
	case NSCD_GETFDSERV:
	case NSCD_GETFDNETGR: {
		/* glibc sends the database's name; nscd goes by the type. */
		int db = type == NSCD_GETFDPW ? CONFIG_DB_PASSWD :
		    type == NSCD_GETFDGR ? CONFIG_DB_GROUP :
		    type == NSCD_GETFDSERV ? CONFIG_DB_SERVICES : CONFIG_DB_NETGROUP;
		struct nscdmap *map = nscddb_map(ns->db, db);

		if (map && req->body_len >= 1 && req->body[req->body_len - 1] == '\0') {
			send_fd(ns, map, req);
			return;
		}
		break;
	}
	case NSCD_INVALIDATE:
		invalidate(ns, req);
		return;
	default:
		break;
	}
	/*
	 * A database not answered: refused, which glibc reads as "not
	 * cached here".  Requests with no reply header (a refused GETFD*,
	 * SHUTDOWN, GETSTAT, unknown types) are closed, as nscd closes them.
	 */
	if (nscd_reply_hdr_size(type))
		ns->st.refused++;
	server_reply_raw(req, refusal, nscd_refusal(type, refusal));
}

/* The netlink counter: every address or route change bumps it. */
void
nscdsrv_netlink_changed(struct nscdsrv *ns)
{
	ns->st.netlink_changes++;
	nscdmap_netlink_changed(ns->map);
}

/* The sweeper's refresh: the lookup walked again, nobody waiting. */
static void
refresh(void *arg, int32_t type, const void *key, size_t len)
{
	struct nscdsrv *ns = arg;

	switch (type) {
	case NSCD_GETAI:
	case NSCD_GETHOSTBYNAME:
	case NSCD_GETHOSTBYNAMEv6:
		if (len < 2 || len - 1 > PROTO_NAME_MAX + 1)
			return;
		lookup_refresh_name(ns->parts.lookup, type == NSCD_GETAI ?
		    PROTO_AF_UNSPEC : type == NSCD_GETHOSTBYNAME ? PROTO_AF_INET :
		    PROTO_AF_INET6, key, len - 1);
		break;
	case NSCD_GETHOSTBYADDR:
	case NSCD_GETHOSTBYADDRv6:
		lookup_refresh_addr(ns->parts.lookup, len == 4 ? PROTO_AF_INET :
		    PROTO_AF_INET6, key);
		break;
	}
}

/* /etc/passwd and the others: an edit drops that database's answers. */
static void
file_changed(void *arg)
{
	struct file_watch	*fw = arg;
	struct nscdsrv		*ns = fw->ns;
	int			 db = fw->db;
	char			 why[128];

	snprintf(why, sizeof(why), "%s changed", nscddb_file(db));
	nscddb_invalidate(ns->db, db, why);
	watch_rearm(ns->watches[db]);
}

static char *
errf(const char *what, const char *path, int err)
{
	char *s;

	if (asprintf(&s, "nscd: %s %s: %s", what, path, strerror(err)) < 0)
		return NULL;
	return s;
}

struct nscdsrv *
nscdsrv_new(const struct nscdsrv_parts *parts, const struct config *config,
    const char *path, const char *map_path, char **ret_err)
{
	struct nscdsrv	*ns = calloc(1, sizeof(*ns));
	int		 r;

	*ret_err = NULL;
	if (ns == NULL)
		return NULL;
	ns->parts = *parts;
	ns->config = config;
	ns->path = strdup(path ? path : "");
	ns->map_path = strdup(map_path);
	ns->server = server_new_nscd(parts->base, dispatch, ns);
	if (ns->server)
		server_set_idle_timeout(ns->server, 10);
	if (ns->path == NULL || ns->map_path == NULL || ns->server == NULL)
		goto fail;
	/* The mapping first: the socket hands it out from the first request. */
	ns->map = nscdmap_open(map_path, config->cache_size / 2,
	    (size_t)config->shared_size_mb << 20);
	if (ns->map == NULL) {
		*ret_err = errf("cannot create the hosts database", map_path, errno);
		goto fail;
	}
	{
		struct nscddb_modules	 mods;
		char			*dir = strdup(map_path), *slash;
		int			 i;

		if (dir == NULL)
			goto fail;
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		wiring_nscddb_modules(&mods, parts->nss);
		ns->db = nscddb_new(&mods, parts->clock, NULL, dir,
		    (size_t)config->shared_size_mb << 20);
		free(dir);
		if (ns->db == NULL) {
			*ret_err = errf("cannot create the databases beside", map_path,
			    errno);
			goto fail;
		}
		for (i = 1; i < CONFIG_DB_COUNT; i++) {
			ns->files[i] = (struct file_watch){ ns, i };
			ns->watches[i] = watch_new(parts->base, nscddb_file(i),
			    file_changed, &ns->files[i]);
			if (ns->watches[i] == NULL)
				log_warning("nscd: cannot watch %s: %s; its edits "
				    "wait for the TTL", nscddb_file(i), strerror(errno));
		}
	}
	nscdsrv_configure(ns, config);
	nscdsrv_load_lines(ns);
	server_set_max_clients(ns->server, config->max_clients);
	if ((r = server_listen(ns->server, path, ret_err)) < 0) {
		if (*ret_err == NULL)
			*ret_err = errf("cannot listen on", path, -r);
		goto fail;
	}
	log_info("nscd: answering glibc's nscd client; hosts database %s", map_path);
	return ns;
fail:
	nscdsrv_free(ns);
	return NULL;
}

void
nscdsrv_free(struct nscdsrv *ns)
{
	bool	live;
	int	i;

	if (ns == NULL)
		return;
	for (i = 0; i < CONFIG_DB_COUNT; i++)
		watch_free(ns->watches[i]);
	/*
	 * Under socket activation a daemon comes back (systemd holds its
	 * socket, or namecache's, which every hosts lookup reaches): readers
	 * go on with the maps until it takes them over.  A miss meanwhile
	 * finds no nscd socket, and glibc walks NSS at once.
	 */
	live = ns->server && (server_socket_activated(ns->server) ||
	    ns->parts.comes_back);
	nscddb_free(ns->db, live);
	/* (the daemon frees its lookup first: nothing publishes here now) */
	nscdmap_close(ns->map, live);
	server_free(ns->server);
	free(ns->path);
	free(ns->map_path);
	free(ns);
}

struct nscdmap *
nscdsrv_map(struct nscdsrv *ns)
{
	return ns ? ns->map : NULL;
}

void
nscdsrv_configure(struct nscdsrv *ns, const struct config *c)
{
	if (ns == NULL)
		return;
	ns->config = c;
	if (ns->map) {
		bool hosts = (c->nscd_databases >> CONFIG_DB_HOSTS) & 1;

		nscdmap_set_refresh(ns->map, refresh, ns, c->nscd_reloads);
		/* Hosts refused: nothing is published there, and nothing stays. */
		if (!hosts)
			nscdmap_reset(ns->map);
		lookup_set_nscdmap(ns->parts.lookup, hosts ? ns->map : NULL);
	}
	nscddb_configure(ns->db, c);
}

void
nscdsrv_load_lines(struct nscdsrv *ns)
{
	int	r;

	if (ns == NULL)
		return;
	/*
	 * (glibc inside the daemon walks the same lines, set by the daemon
	 * so that it never asks its nscd client, this socket: selfnss.c.)
	 */
	if ((r = nscddb_load_lines(ns->db, ns->config->nsswitch_conf)) < 0)
		log_error("nsswitch: %s: %s; the other databases' lines stay",
		    ns->config->nsswitch_conf, r == -EINVAL ?
		    "a line glibc rejects" : strerror(-r));
}

void
nscdsrv_tick(struct nscdsrv *ns, int64_t now)
{
	if (ns && ns->map)
		nscdmap_tick(ns->map, now);
	if (ns)
		nscddb_tick(ns->db, now);
}

size_t
nscdsrv_flush_db(struct nscdsrv *ns, int db, const char *why)
{
	return ns ? nscddb_invalidate(ns->db, db, why) : 0;
}

struct nscddb *
nscdsrv_db(struct nscdsrv *ns)
{
	return ns ? ns->db : NULL;
}

void
nscdsrv_status(struct nscdsrv *ns, struct proto_kv_wr *kw)
{
	struct nscdmap_stats ms;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (ns == NULL) {
		proto_kv_str(kw, "nscd_socket", "");
		return;
	}
	if (server_socket_activated(ns->server) &&
	    server_activated_path(ns->server, path, sizeof(path)) == 0)
		proto_kv_str(kw, "nscd_socket", path);
	else
		proto_kv_str(kw, "nscd_socket", ns->path);
	proto_kv_str(kw, "nscd_socket_activated",
	    server_socket_activated(ns->server) ? "yes" : "no");
	proto_kv_str(kw, "nscd_database", ns->map_path);
	nscdmap_get_stats(ns->map, &ms);
	proto_kv_u64(kw, "nscd_database_bytes", ms.size);
	proto_kv_u64(kw, "nscd_database_max_bytes", ms.max);
	proto_kv_u64(kw, "nscd_database_used_bytes", ms.used);
	proto_kv_u64(kw, "nscd_database_entries", ms.entries);
	proto_kv_u64(kw, "nscd_database_buckets", ms.module);
	proto_kv_u64(kw, "nscd_reloads", ns->config->nscd_reloads);
	proto_kv_str(kw, "nscd_hosts", hosts_served(ns) ? "answered" : "refused");
	nscddb_status(ns->db, kw);
}

void
nscdsrv_report(void *arg, struct registry_wr *wr)
{
	static const char *const names[] = {
		"getpwbyname", "getpwbyuid", "getgrbyname", "getgrbygid",
		"gethostbyname", "gethostbynamev6", "gethostbyaddr",
		"gethostbyaddrv6", "shutdown", "getstat", "invalidate", "getfdpw",
		"getfdgr", "getfdhst", "getai", "initgroups", "getservbyname",
		"getservbyport", "getfdserv", "getnetgrent", "innetgr",
		"getfdnetgr", "other",
	};
	struct nscdsrv		*ns = arg;
	struct nscdmap_stats	ms;
	char			key[64];
	size_t			i;

	/* Its socket's requests and connections: the namecache socket's keys. */
	server_report(ns->server, wr);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(key, sizeof(key), "nscd_requests_%s", names[i]);
		registry_counter(wr, key, ns->st.requests[i], NULL);
	}
	registry_counter(wr, "nscd_refused", ns->st.refused, NULL);
	registry_counter(wr, "nscd_refused_hosts", ns->st.refused_hosts, NULL);
	registry_counter(wr, "nscd_fds_sent", ns->st.fds_sent, NULL);
	registry_counter(wr, "nscd_invalidate_denied", ns->st.denied, NULL);
	registry_counter(wr, "nscd_netlink_changes", ns->st.netlink_changes, NULL);
	registry_gauge(wr, "nscd_clients", server_clients(ns->server), NULL);
	nscdmap_get_stats(ns->map, &ms);
	registry_counter(wr, "nscd_published", ms.published, NULL);
	registry_counter(wr, "nscd_unchanged", ms.unchanged, NULL);
	registry_counter(wr, "nscd_swept", ms.swept, NULL);
	registry_counter(wr, "nscd_taken_over", ms.taken_over, NULL);
	registry_counter(wr, "nscd_refreshes", ms.refreshes, NULL);
	registry_counter(wr, "nscd_compactions", ms.compactions, NULL);
	registry_counter(wr, "nscd_grown", ms.grown, NULL);
	registry_counter(wr, "nscd_resets", ms.resets, NULL);
	registry_counter(wr, "nscd_full", ms.failures, NULL);
	registry_gauge(wr, "nscd_sweep_max_usec", ms.sweep_max_usec, NULL);
	registry_gauge(wr, "nscd_entries", ms.entries, NULL);
	registry_gauge(wr, "nscd_used_bytes", ms.used, NULL);
	registry_gauge(wr, "nscd_netlink_counter", ms.nl_counter, NULL);
	nscddb_report(ns->db, wr);
}

void
nscdsrv_reset_stats(struct nscdsrv *ns)
{
	if (ns) {
		memset(&ns->st, 0, sizeof(ns->st));
		server_reset_stats(ns->server);
		nscddb_reset_stats(ns->db);
	}
}
