/* SPDX-License-Identifier: MIT */
/* daemon/front/server.c - the Unix socket: connections, frames, limits. */

/*
 * Single-threaded, on the libevent loop.  Each connection reads into a
 * buffer that grows to hold one whole frame (64 KiB at most) and shrinks
 * back; every complete frame in it is dispatched, and the replies of one
 * read go out in one write.  Back-pressure: with more than
 * SERVER_OUT_HIGH bytes queued or SERVER_INFLIGHT_MAX requests open, the
 * connection is not read until it drains, so a client that pipelines
 * without reading costs a bounded amount.  A client that reads nothing
 * for SERVER_WRITE_SEC, sends a frame over the limit, or idles for
 * idle_timeout (SERVER_IDLE_SEC unless set) is dropped; a connection with
 * a request in flight is never idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "listener.h"
#include "log.h"
#include "nscd.h"
#include "registry.h"
#include "server.h"

#define IN_INITIAL	4096
#define ACCEPT_BATCH	64

struct conn {
	TAILQ_ENTRY(conn)	 link;
	struct server		*srv;
	int			 fd;
	struct event		*rev;
	struct event		*wev;
	struct ucred		 cred;
	uint8_t			*in;
	size_t			 in_off, in_len, in_cap;
	uint8_t			*out;
	size_t			 out_off, out_len, out_cap;
	struct event		*resume;	/* dispatch held-back frames later */
	unsigned		 inflight;
	unsigned		 refs;		/* holds: replies still to come */
	bool			 dead;		/* closed; freed when refs reaches 0 */
	bool			 reading;	/* rev is added */
	bool			 eof;		/* the client shut its side */
	bool			 closing;	/* close once out is written */
	bool			 dispatching;
	bool			 nscd_done;	/* its one nscd request is in */
	bool			 streaming;	/* a stream's: loses frames, never slow */
	uint64_t		 read_us;	/* the last read: its frames came then */
	struct event		*batch;		/* a stream's: writes what queued */
};

struct server {
	struct event_base	*base;
	uint64_t		 counts[SERVER_COUNTS];
	server_dispatch_fn	*dispatch;
	bool			 nscd;		/* glibc's nscd protocol, not ours */
	void			*arg;
	struct listener		*listener;
	struct event		*lev;
	struct event		*retry;		/* accept paused after EMFILE */
	unsigned		 max_clients;
	struct timeval		 idle;		/* idle_timeout */
	unsigned		 nconns;
	TAILQ_HEAD(, conn)	 conns;
	uint8_t			 scratch[PROTO_FRAME_MAX];
};

static void conn_read_cb(evutil_socket_t, short, void *);
static void conn_write_cb(evutil_socket_t, short, void *);
static void conn_process(struct conn *);
static void conn_process_nscd(struct conn *);

static void
conn_free(struct conn *c)
{
	free(c->in);
	free(c->out);
	free(c);
}

/* Closes the socket now; the struct lives on while replies are held for it. */
static void
conn_close(struct conn *c)
{
	struct server *srv = c->srv;

	TAILQ_REMOVE(&srv->conns, c, link);
	srv->nconns--;
	event_free(c->rev);
	event_free(c->wev);
	event_free(c->resume);
	if (c->batch)
		event_free(c->batch);
	c->batch = NULL;
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	if (c->refs == 0)
		conn_free(c);
	/* A slot is free: accept again if it had been paused. */
	if (srv->lev && !event_pending(srv->lev, EV_READ, NULL) &&
	    !evtimer_pending(srv->retry, NULL))
		event_add(srv->lev, NULL);
}

static void
conn_drop(struct conn *c, const char *why)
{
	log_debug("client pid %d: dropped: %s", (int)c->cred.pid, why);
	c->srv->counts[SERVER_CONNECTIONS_DROPPED]++;
	conn_close(c);
}

static void
conn_read_on(struct conn *c, bool on)
{
	if (on && !c->reading)
		event_add(c->rev, &c->srv->idle);
	else if (!on && c->reading)
		event_del(c->rev);
	c->reading = on;
}

/* Writes what it can.  Returns -1 when the connection was closed. */
static int
conn_flush(struct conn *c)
{
	static const struct timeval slow = { SERVER_WRITE_SEC, 0 };
	bool	progress = false;
	ssize_t	n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			conn_drop(c, strerror(errno));
			return -1;
		}
		c->out_off += (size_t)n;
		progress = true;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		if (c->out_cap > 2 * PROTO_FRAME_MAX) {
			free(c->out);
			c->out = NULL;
			c->out_cap = 0;
		}
		event_del(c->wev);
		if (c->closing || (c->eof && c->inflight == 0)) {
			conn_close(c);
			return -1;
		}
		return 0;
	}
	/* The timeout restarts only when the client takes something. */
	if (progress || !event_pending(c->wev, EV_WRITE, NULL))
		event_add(c->wev, c->streaming ? NULL : &slow);
	return 0;
}

static void
conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (what & EV_TIMEOUT) {
		conn_drop(c, "not reading its replies");
		return;
	}
	if (conn_flush(c) < 0)
		return;
	/* Drained below the mark: take more requests. */
	if (c->out_len - c->out_off < SERVER_OUT_HIGH / 2 && !c->closing)
		conn_process(c);
}

static void
resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!c->closing)
		conn_process(c);
}

static void conn_queue_raw(struct conn *c, const void *frame, size_t len);

void
server_reply(struct server_req *req, const void *frame, size_t len)
{
	conn_queue_raw(req->conn, frame, len);
}

struct server_hold {
	struct conn	*conn;
	uint32_t	 id;
	uint8_t		 type;
};

struct server_hold *
server_hold(struct server_req *req)
{
	struct server_hold *h = malloc(sizeof(*h));

	if (h == NULL)
		return NULL;
	h->conn = req->conn;
	h->id = req->hdr.id;
	h->type = req->hdr.type;
	req->conn->refs++;
	req->conn->inflight++;
	return h;
}

uint32_t
server_hold_id(const struct server_hold *h)
{
	return h->id;
}

void *
server_hold_scratch(const struct server_hold *h, size_t *ret_cap)
{
	return server_scratch(h->conn->srv, ret_cap);
}

void *
server_req_scratch(const struct server_req *req, size_t *ret_cap)
{
	return server_scratch(req->conn->srv, ret_cap);
}

void *
server_req_arg(const struct server_req *req)
{
	return req->conn->srv->arg;
}

void *
server_hold_arg(const struct server_hold *h)
{
	return h->conn->srv->arg;
}

uint8_t
server_hold_type(const struct server_hold *h)
{
	return h->type;
}

bool
server_hold_alive(const struct server_hold *h)
{
	return !h->conn->dead;
}

/* A hold ends: its connection, or NULL when the client went meanwhile. */
static struct conn *
hold_end(struct server_hold *h)
{
	struct conn *c = h->conn;

	free(h);
	c->inflight--;
	c->refs--;
	if (c->dead) {
		if (c->refs == 0)
			conn_free(c);
		return NULL;
	}
	return c;
}

void
server_hold_reply(struct server_hold *h, const void *frame, size_t len)
{
	struct conn *c = hold_end(h);

	if (c == NULL)
		return;
	/* Idle time counts from the last answer too, not from the request. */
	if (c->reading)
		event_add(c->rev, &c->srv->idle);
	/* Frames held back by the in-flight cap go later, from the loop. */
	if (!c->reading && !c->eof && !c->closing)
		event_active(c->resume, EV_TIMEOUT, 0);
	if (frame)
		conn_queue_raw(c, frame, len);	/* may close c */
	else if (c->eof && c->inflight == 0)
		conn_flush(c);
}

void
server_hold_reply_raw(struct server_hold *h, const void *bytes, size_t len)
{
	struct conn *c = hold_end(h);

	if (c == NULL)
		return;
	c->closing = true;
	conn_queue_raw(c, bytes, len);	/* may close c */
}

void
server_hold_release(struct server_hold *h)
{
	server_hold_reply(h, NULL, 0);
}

void
server_reply_raw(struct server_req *req, const void *bytes, size_t len)
{
	req->conn->closing = true;
	conn_queue_raw(req->conn, bytes, len);
}

int
server_req_fd(const struct server_req *req)
{
	return req->conn->fd;
}

/* Appends frame to what goes out: 0, or -1 when it cannot (no memory). */
static int
conn_append(struct conn *c, const void *frame, size_t len)
{
	size_t		 need = c->out_len + len, cap;
	uint8_t		*p;

	if (need > c->out_cap) {
		cap = c->out_cap ? c->out_cap : 4096;
		while (cap < need)
			cap *= 2;
		if ((p = realloc(c->out, cap)) == NULL)
			return -1;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, frame, len);
	c->out_len += len;
	return 0;
}

static void
conn_queue_raw(struct conn *c, const void *frame, size_t len)
{
	if (len == 0) {			/* nothing to say: just close, if closing */
		if (!c->dispatching)
			conn_flush(c);
		return;
	}

	if (c->out_len + len > SERVER_OUT_MAX) {
		if (c->dispatching)
			c->closing = true;	/* conn_process drops it */
		else
			conn_drop(c, "too much output queued");
		return;
	}
	if (conn_append(c, frame, len) < 0) {
		c->closing = true;
		return;
	}
	if (!c->dispatching)
		conn_flush(c);
}

/* --- streams ------------------------------------------------------------- */

static void
batch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!c->dispatching)
		conn_flush(c);
}

struct server_stream *
server_stream(struct server_req *req)
{
	struct conn		*c = req->conn;
	struct server_hold	*h;

	if (c->batch == NULL &&
	    (c->batch = evtimer_new(c->srv->base, batch_cb, c)) == NULL)
		return NULL;
	if ((h = server_hold(req)) == NULL)
		return NULL;
	c->streaming = true;
	return (struct server_stream *)h;
}

int
server_stream_send(struct server_stream *s, const void *frame, size_t len,
    size_t limit)
{
	static const struct timeval batch = { 0, SERVER_STREAM_MS * 1000 };
	struct conn *c = ((struct server_hold *)s)->conn;

	if (c->dead || c->closing)
		return -EPIPE;
	if (c->out_len - c->out_off > limit || conn_append(c, frame, len) < 0)
		return -ENOBUFS;
	/*
	 * Written in batches, every SERVER_STREAM_MS or each 64 KiB: a
	 * stream costs the requests it follows a copy, not a system call and
	 * a wakeup of its reader each.
	 */
	if (c->out_len - c->out_off >= SERVER_STREAM_BATCH)
		event_active(c->batch, EV_TIMEOUT, 0);
	else if (!evtimer_pending(c->batch, NULL))
		evtimer_add(c->batch, &batch);
	return 0;
}

size_t
server_stream_queued(const struct server_stream *s)
{
	const struct conn *c = ((const struct server_hold *)s)->conn;

	return c->dead ? 0 : c->out_len - c->out_off;
}

bool
server_stream_alive(const struct server_stream *s)
{
	return server_hold_alive((const struct server_hold *)s);
}

void
server_stream_end(struct server_stream *s)
{
	struct conn *c = hold_end((struct server_hold *)s);

	if (c != NULL)
		conn_close(c);
}

static void
reply_error(struct server_req *req, uint16_t status, const char *msg)
{
	struct proto_wr	w;
	uint8_t		buf[512];
	int		n;

	proto_wr_init(&w, buf, sizeof(buf));
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, status, req->hdr.id);
	proto_error_body(&w, msg);
	if ((n = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)n);
}

/* Makes room for a frame of len bytes at in + in_off. */
static int
conn_in_reserve(struct conn *c, size_t len)
{
	uint8_t *p;
	size_t	 cap;

	if (c->in_off > 0) {
		memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
		c->in_len -= c->in_off;
		c->in_off = 0;
	}
	if (len <= c->in_cap)
		return 0;
	cap = c->in_cap;
	while (cap < len)
		cap *= 2;
	if ((p = realloc(c->in, cap)) == NULL)
		return -ENOMEM;
	c->in = p;
	c->in_cap = cap;
	return 0;
}

/*
 * glibc's nscd client sends one request per connection: a header in host
 * order (version, type, key length) and the key.  A bad header closes the
 * connection at once, as nscd does; so does end of file before the key.
 */
static void
conn_process_nscd(struct conn *c)
{
	struct server		*srv = c->srv;
	struct server_req	 req;
	struct nscd_req_hdr	 h;
	int			 r;

	if (c->nscd_done)
		return;
	if ((r = nscd_req_decode(c->in, c->in_len, &h)) == -EAGAIN) {
		if (c->eof)
			conn_close(c);
		return;
	}
	if (r < 0) {
		srv->counts[SERVER_BAD_REQUESTS]++;
		srv->counts[SERVER_REQUESTS]++;
		conn_drop(c, "malformed nscd request");
		return;
	}
	if (c->in_len < NSCD_REQ_HDR_LEN + (size_t)h.key_len) {
		if (c->eof) {
			srv->counts[SERVER_BAD_REQUESTS]++;
			conn_drop(c, "nscd request cut short");
		}
		return;
	}
	/* The key stays in c->in, for the reply's translation. */
	c->nscd_done = true;
	conn_read_on(c, false);
	srv->counts[SERVER_REQUESTS]++;
	memset(&req, 0, sizeof(req));
	req.conn = c;
	req.cred = c->cred;
	req.hdr.type = (uint8_t)(h.type > 255 ? 255 : h.type);
	req.body = c->in + NSCD_REQ_HDR_LEN;
	req.body_len = (size_t)h.key_len;
	c->dispatching = true;
	srv->dispatch(srv->arg, &req);
	c->dispatching = false;
	if (c->out_len > c->out_off || (c->closing && c->inflight == 0))
		conn_flush(c);
}

/* Dispatches every whole frame buffered, as far as the limits allow. */
static void
conn_process(struct conn *c)
{
	struct server		*srv = c->srv;
	struct server_req	 req;
	int			 r;

	if (srv->nscd) {
		conn_process_nscd(c);
		return;
	}
	c->dispatching = true;
	for (;;) {
		if (c->closing)
			break;
		if (c->out_len - c->out_off >= SERVER_OUT_HIGH ||
		    c->inflight >= SERVER_INFLIGHT_MAX) {
			conn_read_on(c, false);
			break;
		}
		r = proto_hdr_decode(c->in + c->in_off, c->in_len - c->in_off,
		    &req.hdr);
		if (r == -EAGAIN) {
			if (c->eof && c->in_off < c->in_len)
				c->closing = true;	/* a partial frame, never to end */
			conn_read_on(c, !c->eof);
			break;
		}
		if (r == -EMSGSIZE) {
			c->dispatching = false;
			conn_drop(c, "frame over the size limit");
			return;
		}
		if (req.hdr.len > c->in_len - c->in_off) {
			if (c->eof) {
				c->closing = true;
				break;
			}
			if (conn_in_reserve(c, req.hdr.len) < 0) {
				c->dispatching = false;
				conn_drop(c, "out of memory");
				return;
			}
			conn_read_on(c, !c->eof);
			break;
		}
		req.conn = c;
		req.cred = c->cred;
		req.at_us = c->read_us;
		req.body = c->in + c->in_off + PROTO_HDR_LEN;
		req.body_len = req.hdr.len - PROTO_HDR_LEN;
		c->in_off += req.hdr.len;
		srv->counts[SERVER_REQUESTS]++;
		if (r == -EPROTONOSUPPORT) {
			/* Its framing may differ: answer once, then hang up. */
			srv->counts[SERVER_BAD_REQUESTS]++;
			req.hdr.type &= ~PROTO_REPLY;
			reply_error(&req, PROTO_UNSUPPORTED,
			    "protocol version not supported; this daemon speaks 1");
			c->closing = true;
			break;
		}
		if ((req.hdr.type & PROTO_REPLY) || req.hdr.status != 0) {
			srv->counts[SERVER_BAD_REQUESTS]++;
			req.hdr.type &= ~PROTO_REPLY;
			reply_error(&req, PROTO_BADREQUEST,
			    "not a request: reply flag or status set");
			continue;
		}
		srv->dispatch(srv->arg, &req);
	}
	c->dispatching = false;
	if (c->in_off == c->in_len) {
		c->in_off = c->in_len = 0;
		if (c->in_cap > IN_INITIAL) {
			uint8_t *p = realloc(c->in, IN_INITIAL);

			if (p) {
				c->in = p;
				c->in_cap = IN_INITIAL;
			}
		}
	}
	if (c->closing && c->out_len - c->out_off > SERVER_OUT_MAX) {
		conn_drop(c, "too much output queued");
		return;
	}
	conn_flush(c);
}

static void
conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn	*c = arg;
	ssize_t		 n;

	if (what & EV_TIMEOUT) {
		if (c->inflight == 0 && c->out_off == c->out_len) {
			c->srv->counts[SERVER_CONNECTIONS_IDLE_CLOSED]++;
			conn_close(c);
		}
		return;
	}
	if (c->in_len == c->in_cap && conn_in_reserve(c, c->in_cap) < 0)
		return;
	if (c->in_len == c->in_cap) {
		/* Full of whole frames that limits hold back: wait. */
		conn_read_on(c, false);
		return;
	}
	n = read(fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		conn_drop(c, strerror(errno));
		return;
	}
	if (n == 0 && c->streaming) {
		conn_close(c);		/* its stream ends at the next frame */
		return;
	}
	if (n == 0) {
		c->eof = true;
		conn_read_on(c, false);
	}
	c->in_len += (size_t)n;
	/* One clock read for every frame of the read: their lookups' start. */
	c->read_us = mono_us();
	conn_process(c);
}

static void
accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct server	*srv = arg;
	struct conn	*c;
	socklen_t	 len;
	int		 fd, i;

	for (i = 0; i < ACCEPT_BATCH; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* Out of descriptors: back off instead of spinning. */
				static const struct timeval pause = { 0, 100000 };

				log_warning("accept: %s; pausing", strerror(errno));
				event_del(srv->lev);
				evtimer_add(srv->retry, &pause);
			}
			return;
		}
		if (srv->nconns >= srv->max_clients) {
			srv->counts[SERVER_CONNECTIONS_REJECTED]++;
			log_debug("max_clients (%u) reached: connection refused",
			    srv->max_clients);
			close(fd);
			continue;
		}
		if ((c = calloc(1, sizeof(*c))) == NULL ||
		    (c->in = malloc(IN_INITIAL)) == NULL) {
			free(c);
			close(fd);
			continue;
		}
		c->srv = srv;
		c->fd = fd;
		c->in_cap = IN_INITIAL;
		len = sizeof(c->cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len) < 0) {
			c->cred.pid = 0;
			c->cred.uid = (uid_t)-1;
			c->cred.gid = (gid_t)-1;
		}
		c->rev = event_new(srv->base, fd, EV_READ | EV_PERSIST,
		    conn_read_cb, c);
		c->wev = event_new(srv->base, fd, EV_WRITE | EV_PERSIST,
		    conn_write_cb, c);
		c->resume = event_new(srv->base, -1, 0, resume_cb, c);
		if (c->rev == NULL || c->wev == NULL || c->resume == NULL) {
			if (c->rev)
				event_free(c->rev);
			if (c->wev)
				event_free(c->wev);
			if (c->resume)
				event_free(c->resume);
			free(c->in);
			free(c);
			close(fd);
			continue;
		}
		TAILQ_INSERT_TAIL(&srv->conns, c, link);
		srv->nconns++;
		srv->counts[SERVER_CONNECTIONS]++;
		conn_read_on(c, true);
	}
}

static void
retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;

	event_add(srv->lev, NULL);
}

struct server *
server_new(struct event_base *base, server_dispatch_fn *dispatch, void *arg)
{
	struct server *srv = calloc(1, sizeof(*srv));

	if (srv == NULL)
		return NULL;
	srv->base = base;
	srv->dispatch = dispatch;
	srv->arg = arg;
	srv->max_clients = 4096;
	srv->idle.tv_sec = SERVER_IDLE_SEC;
	TAILQ_INIT(&srv->conns);
	if ((srv->listener = listener_new()) == NULL ||
	    (srv->retry = evtimer_new(base, retry_cb, srv)) == NULL) {
		listener_free(srv->listener);
		free(srv);
		return NULL;
	}
	return srv;
}

struct server *
server_new_nscd(struct event_base *base, server_dispatch_fn *dispatch, void *arg)
{
	struct server *srv = server_new(base, dispatch, arg);

	if (srv)
		srv->nscd = true;
	return srv;
}

void
server_free(struct server *srv)
{
	struct conn *c;

	if (srv == NULL)
		return;
	while ((c = TAILQ_FIRST(&srv->conns)) != NULL)
		conn_close(c);
	if (srv->lev)
		event_free(srv->lev);
	event_free(srv->retry);
	listener_free(srv->listener);
	free(srv);
}

int
server_listen(struct server *srv, const char *path, char **ret_err)
{
	int r;

	if ((r = listener_open(srv->listener, path, srv->nscd, ret_err)) < 0)
		return r;
	srv->lev = event_new(srv->base, listener_fd(srv->listener),
	    EV_READ | EV_PERSIST, accept_cb, srv);
	if (srv->lev == NULL || event_add(srv->lev, NULL) < 0)
		return -ENOMEM;
	return 0;
}

void
server_set_max_clients(struct server *srv, unsigned n)
{
	srv->max_clients = n;
}

void
server_set_idle_timeout(struct server *srv, unsigned sec)
{
	srv->idle.tv_sec = sec > 0 ? (time_t)sec : 1;
	srv->idle.tv_usec = 0;
}

unsigned
server_clients(const struct server *srv)
{
	return srv->nconns;
}

bool
server_socket_activated(const struct server *srv)
{
	return listener_activated(srv->listener);
}

void *
server_scratch(struct server *srv, size_t *ret_cap)
{
	*ret_cap = sizeof(srv->scratch);
	return srv->scratch;
}

int
server_activated_path(const struct server *srv, char *buf, size_t len)
{
	return listener_activated_path(srv->listener, buf, len);
}

/* --- counters ------------------------------------------------------------ */

void
server_count(const struct server_req *req, enum server_count what)
{
	req->conn->srv->counts[what]++;
}

void
server_report(void *arg, struct registry_wr *wr)
{
	/* Keys are part of the protocol: add new ones, never rename. */
	static const struct { const char *key, *help; } counts[SERVER_COUNTS] = {
		{ "requests", "Requests read on namecache's socket" },
		{ "lookups_name", "Lookups of a name on namecache's socket" },
		{ "lookups_addr", "Lookups of an address on namecache's socket" },
		{ "lookups_rr", "Lookups of records of a type (query -t)" },
		{ "bad_requests", "Requests refused as malformed" },
		{ "connections", "Client connections accepted" },
		{ "connections_rejected",
		    "Client connections closed at once: max_clients" },
		{ "connections_dropped",
		    "Client connections dropped: not reading, or over a limit" },
		{ "connections_idle_closed", NULL },
		{ "self_refused", "Requests from the daemon's own process, "
		    "refused at once: it never asks itself" },
	};
	const struct server *srv = arg;

	for (int i = 0; i < SERVER_COUNTS; i++)
		registry_counter(wr, counts[i].key, srv->counts[i], counts[i].help);
}

void
server_report_clients(void *arg, struct registry_wr *wr)
{
	registry_gauge(wr, "clients", server_clients(arg), "Client connections open");
}

void
server_reset_stats(struct server *srv)
{
	memset(srv->counts, 0, sizeof(srv->counts));
}
