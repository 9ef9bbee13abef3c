/* SPDX-License-Identifier: MIT */
/* daemon/dispatch.c - answers each request: decode, look up, encode the reply. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buildinfo.h"
#include "config.h"
#include "daemon.h"
#include "hostsrc.h"
#include "log.h"

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
	d->stats.bad_requests++;
	log_debug("client pid %d: bad request: %s", (int)req->cred.pid,
	    why ? why : "malformed");
	reply_status(d, req, r == -EINVAL ? PROTO_BADNAME : PROTO_BADREQUEST,
	    why ? why : "malformed request");
}

/* Runs lookup on the current hosts index and sends what it wrote. */
static void
answer(struct daemon *d, struct server_req *req, int found, struct proto_wr *w)
{
	int n;

	if (found > 0 && (n = proto_frame_end(w)) > 0) {
		d->stats.hosts_answers++;
		server_reply(req, w->p, (size_t)n);
	} else if (found == 0) {
		d->stats.not_found++;
		reply_status(d, req, PROTO_NOTFOUND, NULL);
	} else {
		d->stats.errors++;
		reply_status(d, req, PROTO_TOOBIG,
		    "answer larger than the 64 KiB frame limit");
	}
}

static void
lookup_name(struct daemon *d, struct server_req *req)
{
	struct proto_lookup_name q;
	struct proto_wr	 w;
	void		*buf;
	const char	*why = NULL;
	size_t		 cap;
	int		 r;

	d->stats.lookups_name++;
	if ((r = proto_lookup_name_decode(req->body, req->body_len, &q, &why)) < 0) {
		bad_request(d, req, r, why);
		return;
	}
	buf = server_scratch(d->server, &cap);
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	r = hosts_lookup_name(hostsrc_get(d->hosts), q.name, q.family, &w);
	answer(d, req, r, &w);
}

static void
lookup_addr(struct daemon *d, struct server_req *req)
{
	struct proto_lookup_addr q;
	struct proto_wr	 w;
	void		*buf;
	const char	*why = NULL;
	size_t		 cap;
	int		 r;

	d->stats.lookups_addr++;
	if ((r = proto_lookup_addr_decode(req->body, req->body_len, &q, &why)) < 0) {
		bad_request(d, req, r, why);
		return;
	}
	buf = server_scratch(d->server, &cap);
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	r = hosts_lookup_addr(hostsrc_get(d->hosts), q.family, q.addr, &w);
	answer(d, req, r, &w);
}

static void
statistics(struct daemon *d, struct server_req *req)
{
	struct proto_kv_wr kw;
	struct proto_wr	 w;
	void		*buf;
	size_t		 cap;
	int		 n;

	buf = server_scratch(d->server, &cap);
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_kv_begin(&kw, &w);
	stats_write(&d->stats, &kw);
	proto_kv_u64(&kw, "clients", server_clients(d->server));
	if (proto_kv_end(&kw) == 0 && (n = proto_frame_end(&w)) > 0)
		server_reply(req, w.p, (size_t)n);
}

static void
status(struct daemon *d, struct server_req *req)
{
	struct hostsrc_status hs;
	struct proto_kv_wr kw;
	struct proto_wr	 w;
	void		*buf;
	struct timespec	 now;
	char		 stamp[96];
	size_t		 cap;
	int		 n;

	hostsrc_get_status(d->hosts, &hs);
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(stamp, sizeof(stamp), "%llu:%lld:%lld.%09ld",
	    (unsigned long long)hs.st.st_ino, (long long)hs.st.st_size,
	    (long long)hs.st.st_mtim.tv_sec, hs.st.st_mtim.tv_nsec);

	buf = server_scratch(d->server, &cap);
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_kv_begin(&kw, &w);
	proto_kv_str(&kw, "version", NAMECACHE_VERSION);
	proto_kv_u64(&kw, "pid", (uint64_t)getpid());
	proto_kv_u64(&kw, "uptime_sec", (uint64_t)(now.tv_sec - d->started.tv_sec));
	proto_kv_str(&kw, "config_file", d->config_path);
	proto_kv_str(&kw, "socket", d->config->socket);
	proto_kv_str(&kw, "socket_activated",
	    server_socket_activated(d->server) ? "yes" : "no");
	proto_kv_u64(&kw, "clients", server_clients(d->server));
	proto_kv_u64(&kw, "max_clients", d->config->max_clients);
	proto_kv_str(&kw, "log_level", log_level_str(d->config->log_level));
	proto_kv_str(&kw, "hosts_file", hs.path ? hs.path : "");
	proto_kv_u64(&kw, "hosts_generation", hs.generation);
	proto_kv_str(&kw, "hosts_stamp", stamp);
	proto_kv_str(&kw, "hosts_error", hs.last_error ? strerror(-hs.last_error) : "");
	proto_kv_str(&kw, "hosts_multi", hs.info.flags & HOSTS_MULTI ? "yes" : "no");
	proto_kv_u64(&kw, "hosts_lines", hs.info.lines);
	proto_kv_u64(&kw, "hosts_entries", hs.info.entries);
	proto_kv_u64(&kw, "hosts_invalid_lines", hs.info.invalid);
	proto_kv_u64(&kw, "hosts_names", hs.info.names);
	proto_kv_u64(&kw, "hosts_memory_bytes", hs.info.memory);
	proto_kv_u64(&kw, "hosts_load_usec", (uint64_t)hs.load_usec);
	if (proto_kv_end(&kw) == 0 && (n = proto_frame_end(&w)) > 0)
		server_reply(req, w.p, (size_t)n);
}

void
dispatch_request(void *arg, struct server_req *req)
{
	struct daemon	*d = arg;
	char		 msg[64];

	switch (req->hdr.type) {
	case PROTO_LOOKUP_NAME:
		lookup_name(d, req);
		break;
	case PROTO_LOOKUP_ADDR:
		lookup_addr(d, req);
		break;
	case PROTO_STATISTICS:
		statistics(d, req);
		break;
	case PROTO_STATUS:
		status(d, req);
		break;
	default:
		d->stats.bad_requests++;
		snprintf(msg, sizeof(msg), "unknown request type %u", req->hdr.type);
		reply_status(d, req, PROTO_UNSUPPORTED, msg);
		break;
	}
}
