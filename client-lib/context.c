/* SPDX-License-Identifier: MIT */
/* client-lib/context.c - libnamecache's non-blocking contexts: many queries on one connection. */

/*
 * A resumable query in the manner of OpenBSD's asr: nothing here waits.
 * The program owns the loop; it asks which descriptor, which events and
 * which deadline to wait for, and calls namecache_process() when one of
 * them comes.  No event library is involved.
 *
 * A query's life:
 *
 *	submit ──► shared cache hit: callback at once, no query made
 *	   │
 *	   └──► in flight: its frame queued on the connection, its id in the
 *	        table ──► reply with its id, a timeout, or the connection
 *	        lost ──► ready ──► namecache_process() runs its callback
 *	        and frees it.
 *
 * Replies come in any order (the daemon answers a hosts name while a DNS
 * fetch for another is still out) and are matched by id.  A reply whose
 * id is unknown, for a query cancelled or timed out, is dropped.
 *
 * The connection.  Made when a query first needs it.  When it is lost
 * (the daemon restarted, or closed an idle connection), every query in
 * flight is sent again once on a new connection, in submission order;
 * lookups and the admin requests are all idempotent.  A query lost twice,
 * or when no new connection can be made, fails NAMECACHE_ERR_UNAVAILABLE.
 * A reply that breaks framing fails every query in flight with
 * NAMECACHE_ERR_PROTOCOL: the stream cannot be trusted after it.
 *
 * fork().  The child's copy of a context shares the parent's socket, so
 * it must never read or write it.  An atfork handler counts forks; the
 * first call on a context after one closes the child's copy of the
 * descriptor (the parent's is untouched) and ends every query inherited
 * pending with NAMECACHE_ERR_UNAVAILABLE, delivered by the next
 * namecache_process().  New queries get a connection of the child's own.
 *
 * Callbacks run only from namecache_process(), namecache_wait() and the
 * blocking calls on a context, and from a submit call that the shared
 * cache answered.  Each ready query is unlinked before its callback runs,
 * so a callback may submit and cancel freely.
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "context.h"
#include "decode.h"
#include "proto.h"
#include "shared.h"
#include "shmfmt.h"
#include "sort.h"

#define NBUCKETS	1024		/* ids are sequential: an even spread */
#define IBUF_MIN	4096
#define MAX_TRIES	2		/* a query is sent at most twice */

enum q_state { Q_FLIGHT, Q_READY, Q_RUNNING };
enum q_what { W_LOOKUP, W_RAW };

struct namecache_query {
	struct namecache	*ctx;
	struct namecache_query	*prev, *next;	/* ctx->flight or ctx->ready */
	struct namecache_query	*hnext;		/* id bucket, while in flight */
	int64_t			 deadline;	/* ms, CLOCK_MONOTONIC */
	uint32_t		 id;
	int			 state;		/* enum q_state */
	int			 what;		/* enum q_what */
	int			 tries;
	unsigned		 flags;		/* NAMECACHE_SORT: sort before delivery */
	int			 error;		/* when ready */
	int			 sys_errno;	/* when ready: behind the error */
	namecache_callback	*cb;		/* W_LOOKUP */
	void			*arg;
	struct namecache_result	*result;	/* when ready, W_LOOKUP */
	struct nc_raw_reply	*raw;		/* W_RAW: where the reply goes */
	bool			*raw_done;
	uint8_t			*body;		/* when ready: a reply body kept */
	size_t			 body_len;
	uint16_t		 status;
	uint8_t			 type;		/* the request's: the reply's must match */
	size_t			 req_len;
	uint8_t			 req[];		/* the frame, to send again */
};

struct qlist {
	struct namecache_query	*head, *tail;
	size_t			 n;
};

struct namecache {
	char			 path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int			 fd;
	int			 dead_fd;	/* the last connection, kept open */
	unsigned		 gen;		/* forks seen, at creation or the last check */
	uint32_t		 last_id;
	uint8_t			*obuf;		/* frames not yet sent: [ooff, olen) */
	size_t			 olen, ooff, ocap;
	uint8_t			*ibuf;		/* bytes of replies not yet whole */
	size_t			 ilen, icap;
	struct qlist		 flight;	/* in submission order */
	struct qlist		 ready;		/* in the order they ended */
	struct namecache_query	*running;	/* whose callback runs now */
	char			*reason;	/* namecache_reason() */
	int			 sys_errno;	/* namecache_errno() */
	struct namecache_query	*buckets[NBUCKETS];
	struct ncc_beat_watch	 watch;		/* the daemon's beat, while queries wait */
};

static unsigned		fork_gen;	/* atomic */
static pthread_once_t	fork_once = PTHREAD_ONCE_INIT;

static void
on_fork_child(void)
{
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
}

static void
fork_init(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
}

static void
list_add(struct qlist *l, struct namecache_query *q)
{
	q->next = NULL;
	q->prev = l->tail;
	if (l->tail)
		l->tail->next = q;
	else
		l->head = q;
	l->tail = q;
	l->n++;
}

static void
list_del(struct qlist *l, struct namecache_query *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		l->head = q->next;
	if (q->next)
		q->next->prev = q->prev;
	else
		l->tail = q->prev;
	q->prev = q->next = NULL;
	l->n--;
}

static void
hash_add(struct namecache *ctx, struct namecache_query *q)
{
	struct namecache_query **b = &ctx->buckets[q->id % NBUCKETS];

	q->hnext = *b;
	*b = q;
}

static void
hash_del(struct namecache *ctx, struct namecache_query *q)
{
	struct namecache_query **pp;

	for (pp = &ctx->buckets[q->id % NBUCKETS]; *pp; pp = &(*pp)->hnext)
		if (*pp == q) {
			*pp = q->hnext;
			break;
		}
	q->hnext = NULL;
}

static struct namecache_query *
hash_find(struct namecache *ctx, uint32_t id)
{
	struct namecache_query *q;

	for (q = ctx->buckets[id % NBUCKETS]; q; q = q->hnext)
		if (q->id == id)
			return q;
	return NULL;
}

static void
query_free(struct namecache_query *q)
{
	namecache_result_free(q->result);
	free(q->body);
	free(q);
}

/* Moves an in-flight query to the ready list with its outcome. */
static void
make_ready(struct namecache *ctx, struct namecache_query *q, int error, int sys_errno)
{
	hash_del(ctx, q);
	list_del(&ctx->flight, q);
	q->state = Q_READY;
	q->error = error;
	q->sys_errno = sys_errno;
	list_add(&ctx->ready, q);
}

static void
set_reason(struct namecache *ctx, char *reason)
{
	free(ctx->reason);
	ctx->reason = reason;
}

void
nc_ctx_set_reason(struct namecache *ctx, const uint8_t *body, size_t len)
{
	const char	*msg;
	size_t		 mlen;
	char		*s = NULL;

	proto_error_decode(body, len, &msg, &mlen);
	if (msg && (s = malloc(mlen + 1)) != NULL) {
		memcpy(s, msg, mlen);
		s[mlen] = '\0';
	}
	set_reason(ctx, s);
}

/*
 * The descriptor of a dropped connection stays open until the next one is
 * made, so that one never gets the same number: a program that watches
 * namecache_fd() with epoll sees a new number, never a reused one that
 * the kernel silently took out of its interest list.  shut tells the
 * daemon at once; a child after fork must not, the socket is its parent's.
 */
static void
drop_connection(struct namecache *ctx, bool shut)
{
	if (ctx->fd >= 0) {
		if (shut)
			shutdown(ctx->fd, SHUT_RDWR);
		if (ctx->dead_fd >= 0)
			close(ctx->dead_fd);
		ctx->dead_fd = ctx->fd;
	}
	ctx->fd = -1;
	ctx->olen = ctx->ooff = 0;
	ctx->ilen = 0;
}

/* Ends every query in flight with error. */
static void
fail_flight(struct namecache *ctx, int error, int sys_errno)
{
	while (ctx->flight.head)
		make_ready(ctx, ctx->flight.head, error, sys_errno);
}

/* The first call in a child after fork: leave the parent's connection alone. */
static void
check_fork(struct namecache *ctx)
{
	unsigned		 gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
	struct namecache_query	*q;

	if (gen == ctx->gen)
		return;
	ctx->gen = gen;
	drop_connection(ctx, false);
	fail_flight(ctx, NAMECACHE_ERR_UNAVAILABLE, ECONNABORTED);
	/* Answers the parent had not delivered yet are the parent's too. */
	for (q = ctx->ready.head; q; q = q->next) {
		namecache_result_free(q->result);
		q->result = NULL;
		q->error = NAMECACHE_ERR_UNAVAILABLE;
		q->sys_errno = ECONNABORTED;
	}
}

static int
ensure_connection(struct namecache *ctx)
{
	int r;

	if (ctx->fd >= 0)
		return 0;
	if ((r = ncc_connect(ctx->path, &ctx->fd)) < 0) {
		ctx->fd = -1;
		ctx->sys_errno = -r;
		return NAMECACHE_ERR_UNAVAILABLE;
	}
	if (ctx->dead_fd >= 0)
		close(ctx->dead_fd);
	ctx->dead_fd = -1;
	ctx->gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
	return 0;
}

static int
out_append(struct namecache *ctx, const uint8_t *p, size_t len)
{
	uint8_t	*n;
	size_t	 cap;

	if (ctx->ooff == ctx->olen)
		ctx->ooff = ctx->olen = 0;
	if (ctx->olen + len > ctx->ocap) {
		/* Compact first; grow only if that is not enough. */
		if (ctx->ooff > 0) {
			memmove(ctx->obuf, ctx->obuf + ctx->ooff, ctx->olen - ctx->ooff);
			ctx->olen -= ctx->ooff;
			ctx->ooff = 0;
		}
		if (ctx->olen + len > ctx->ocap) {
			cap = ctx->ocap ? ctx->ocap : 4096;
			while (cap < ctx->olen + len)
				cap *= 2;
			if ((n = realloc(ctx->obuf, cap)) == NULL)
				return NAMECACHE_ERR_NOMEM;
			ctx->obuf = n;
			ctx->ocap = cap;
		}
	}
	memcpy(ctx->obuf + ctx->olen, p, len);
	ctx->olen += len;
	return 0;
}

static void lose_connection(struct namecache *ctx, int sys_errno);

/* Sends what is queued, without blocking. */
static void
flush_out(struct namecache *ctx)
{
	ssize_t n;

	while (ctx->fd >= 0 && ctx->ooff < ctx->olen) {
		n = send(ctx->fd, ctx->obuf + ctx->ooff, ctx->olen - ctx->ooff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			ctx->ooff += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		lose_connection(ctx, n < 0 ? errno : ECONNRESET);
	}
}

/*
 * The connection broke: send what was in flight again on a new one, once
 * per query.  Never recursive: flush_out() runs the new sends afterwards
 * and, should they fail too, comes back here with tries used up.
 */
static void
lose_connection(struct namecache *ctx, int sys_errno)
{
	struct namecache_query *q, *next;

	drop_connection(ctx, true);
	for (q = ctx->flight.head; q; q = next) {
		next = q->next;
		if (q->tries >= MAX_TRIES)
			make_ready(ctx, q, NAMECACHE_ERR_UNAVAILABLE, sys_errno);
	}
	if (ctx->flight.head == NULL)
		return;
	if (ensure_connection(ctx) < 0) {
		fail_flight(ctx, NAMECACHE_ERR_UNAVAILABLE, ctx->sys_errno);
		return;
	}
	for (q = ctx->flight.head; q; q = next) {
		next = q->next;
		q->tries++;
		if (out_append(ctx, q->req, q->req_len) < 0)
			make_ready(ctx, q, NAMECACHE_ERR_NOMEM, ENOMEM);
	}
}

/* A whole reply frame: its query, if it still waits, becomes ready. */
static void
dispatch(struct namecache *ctx, const struct proto_hdr *hdr, const uint8_t *body,
    size_t len)
{
	struct namecache_query	*q = hash_find(ctx, hdr->id);
	int			 error = 0;

	if (q == NULL)
		return;		/* cancelled or timed out: a late answer */
	if (hdr->type != (q->type | PROTO_REPLY)) {
		make_ready(ctx, q, NAMECACHE_ERR_PROTOCOL, EBADMSG);
		return;
	}
	q->status = hdr->status;
	if (q->what == W_LOOKUP && hdr->status == PROTO_OK)
		error = nc_result_decode(body, len, -1, &q->result);
	else if (q->what == W_LOOKUP)
		error = nc_status_error(hdr->status);
	if (error != NAMECACHE_ERR_NOMEM && len > 0 &&
	    (q->what == W_RAW || hdr->status != PROTO_OK)) {
		/* A raw reply's body, or a failure's reason. */
		if ((q->body = malloc(len)) == NULL)
			error = NAMECACHE_ERR_NOMEM;
		else {
			memcpy(q->body, body, len);
			q->body_len = len;
		}
	}
	make_ready(ctx, q, error, error == NAMECACHE_ERR_NOMEM ? ENOMEM : 0);
}

/* Reads what is there and dispatches every whole frame, without blocking. */
static void
read_in(struct namecache *ctx)
{
	struct proto_hdr hdr;
	uint8_t		*n;
	size_t		 off, need;
	ssize_t		 got;
	int		 r;

	while (ctx->fd >= 0) {
		need = ctx->ilen + IBUF_MIN;
		if (ctx->ilen >= PROTO_HDR_LEN &&
		    proto_hdr_decode(ctx->ibuf, ctx->ilen, &hdr) == 0 && hdr.len > need)
			need = hdr.len;
		if (need > ctx->icap) {
			if ((n = realloc(ctx->ibuf, need)) == NULL) {
				/* Cannot take the reply: the stream is lost to us. */
				drop_connection(ctx, true);
				fail_flight(ctx, NAMECACHE_ERR_NOMEM, ENOMEM);
				return;
			}
			ctx->ibuf = n;
			ctx->icap = need;
		}
		got = recv(ctx->fd, ctx->ibuf + ctx->ilen, ctx->icap - ctx->ilen,
		    MSG_DONTWAIT);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (got <= 0) {
			lose_connection(ctx, got < 0 ? errno : ECONNRESET);
			return;
		}
		ctx->ilen += (size_t)got;
		for (off = 0; ; off += hdr.len) {
			r = proto_hdr_decode(ctx->ibuf + off, ctx->ilen - off, &hdr);
			if (r == -EAGAIN || (r == 0 && hdr.len > ctx->ilen - off))
				break;
			if (r < 0) {
				/* Framing is lost: nothing after this can be matched. */
				drop_connection(ctx, true);
				fail_flight(ctx, NAMECACHE_ERR_PROTOCOL, EBADMSG);
				return;
			}
			dispatch(ctx, &hdr, ctx->ibuf + off + PROTO_HDR_LEN,
			    hdr.len - PROTO_HDR_LEN);
		}
		memmove(ctx->ibuf, ctx->ibuf + off, ctx->ilen - off);
		ctx->ilen -= off;
	}
}

/* While queries wait: whether the daemon is hung (ncc_shared_hung's rule). */
static bool
daemon_hung(struct namecache *ctx, int64_t now)
{
	if (ctx->flight.head == NULL) {
		ctx->watch.since_ms = 0;
		return false;
	}
	return ncc_shared_hung(ctx->path, now, &ctx->watch);
}

static void
expire(struct namecache *ctx, int64_t now)
{
	struct namecache_query *q, *next;
	bool hung = daemon_hung(ctx, now);

	for (q = ctx->flight.head; q; q = next) {
		next = q->next;
		if (hung)
			make_ready(ctx, q, NAMECACHE_ERR_UNAVAILABLE, EHOSTDOWN);
		else if (q->deadline <= now)
			make_ready(ctx, q, NAMECACHE_ERR_TIMEOUT, ETIMEDOUT);
	}
	if (hung)
		ctx->watch.since_ms = 0;
}

/* Runs the callbacks of ready queries and frees them. */
static int
deliver(struct namecache *ctx)
{
	struct namecache_query	*q;
	struct namecache_result	*res;
	int			 n = 0;

	while ((q = ctx->ready.head) != NULL) {
		list_del(&ctx->ready, q);
		q->state = Q_RUNNING;
		if (q->error)
			ctx->sys_errno = q->sys_errno;
		if (q->what == W_RAW) {
			/* A blocking call on ctx waits for this: hand the reply over. */
			q->raw->error = q->error;
			q->raw->status = q->status;
			q->raw->body = q->body;
			q->raw->body_len = q->body_len;
			q->body = NULL;
			*q->raw_done = true;
			query_free(q);
			continue;
		}
		nc_ctx_set_reason(ctx, q->body, q->body_len);
		res = q->result;
		q->result = NULL;
		if (res && (q->flags & NAMECACHE_SORT) &&
		    nc_sort_result(res) < 0) {
			namecache_result_free(res);
			res = NULL;
			q->error = NAMECACHE_ERR_NOMEM;
		}
		ctx->running = q;
		q->cb(ctx, q, q->error, res, q->arg);
		ctx->running = NULL;
		query_free(q);
		n++;
	}
	return n;
}

NC_EXPORT int
namecache_new(const char *socket_path, struct namecache **ret_ctx)
{
	struct namecache *ctx;

	if (ret_ctx == NULL)
		return NAMECACHE_ERR_INVAL;
	if (socket_path == NULL)
		socket_path = ncc_socket_path();
	if (strlen(socket_path) >= sizeof(ctx->path))
		return NAMECACHE_ERR_INVAL;
	pthread_once(&fork_once, fork_init);
	if ((ctx = calloc(1, sizeof(*ctx))) == NULL)
		return NAMECACHE_ERR_NOMEM;
	strcpy(ctx->path, socket_path);
	ctx->fd = -1;
	ctx->dead_fd = -1;
	ctx->gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
	*ret_ctx = ctx;
	return 0;
}

NC_EXPORT void
namecache_free(struct namecache *ctx)
{
	struct namecache_query *q;

	if (ctx == NULL)
		return;
	assert(ctx->running == NULL);	/* not from a callback */
	check_fork(ctx);
	drop_connection(ctx, false);
	if (ctx->dead_fd >= 0)
		close(ctx->dead_fd);
	while ((q = ctx->flight.head) != NULL) {
		list_del(&ctx->flight, q);
		query_free(q);
	}
	while ((q = ctx->ready.head) != NULL) {
		list_del(&ctx->ready, q);
		query_free(q);
	}
	free(ctx->obuf);
	free(ctx->ibuf);
	free(ctx->reason);
	free(ctx);
}

static uint32_t
next_id(struct namecache *ctx)
{
	/* Unique among the queries in flight: 2^32 of them never are. */
	if (++ctx->last_id == 0)
		ctx->last_id = 1;
	return ctx->last_id;
}

/*
 * Queues a query of frame req on ctx, under an id of its own.  Returns
 * 0 with *ret_q, or a NAMECACHE_ERR_* code with nothing queued.
 */
static int
enqueue(struct namecache *ctx, const uint8_t *req, size_t len, int timeout_ms,
    struct namecache_query **ret_q)
{
	struct namecache_query	*q;
	struct proto_hdr	 hdr;
	int			 r;

	/* Frames proto encoded: a header that does not decode is a bug here. */
	if (proto_hdr_decode(req, len, &hdr) < 0 || hdr.len != len)
		return NAMECACHE_ERR_INVAL;
	if ((r = ensure_connection(ctx)) < 0)
		return r;
	if ((q = calloc(1, sizeof(*q) + len)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	memcpy(q->req, req, len);
	q->req_len = len;
	q->type = hdr.type;
	q->ctx = ctx;
	q->deadline = ncc_now_ms() + (timeout_ms > 0 ? timeout_ms : NAMECACHE_TIMEOUT_DEFAULT);
	q->tries = 1;
	q->state = Q_FLIGHT;
	/* The frame's id is the context's to choose. */
	q->id = hdr.id = next_id(ctx);
	proto_hdr_encode(&hdr, q->req, len);
	if ((r = out_append(ctx, q->req, len)) < 0) {
		free(q);
		return r;
	}
	list_add(&ctx->flight, q);
	hash_add(ctx, q);
	*ret_q = q;
	flush_out(ctx);
	return 0;
}

static int
submit(struct namecache *ctx, uint8_t kind, uint8_t family, const void *key,
    size_t key_len, unsigned flags, int timeout_ms, const uint8_t *req, int req_len,
    namecache_callback *cb, void *arg, struct namecache_query **ret_query)
{
	struct namecache_result	*res = NULL;
	struct namecache_query	*q;
	struct ncc_shared_hit	 hit;
	struct proto_answer	 ans;
	int			 r;

	if (req_len < 0)
		return NAMECACHE_ERR_INVAL;
	check_fork(ctx);
	/* ncc_shared_answer's rule: a hit that cannot be used goes to the socket. */
	if (!(flags & NAMECACHE_NO_SHARED) &&
	    ncc_shared_answer(ctx->path, kind, family, key, key_len, &hit, &ans)) {
		r = hit.status == PROTO_OK ? nc_result_from_answer(&ans, hit.ttl_left, &res) :
		    nc_status_error(hit.status);
		ncc_shared_release(&hit);
		if (r == 0 && (flags & NAMECACHE_SORT) &&
		    nc_sort_result(res) < 0) {
			namecache_result_free(res);
			res = NULL;
			r = NAMECACHE_ERR_NOMEM;
		}
		if (r == 0 || hit.status != PROTO_OK) {
			if (ret_query)
				*ret_query = NULL;
			set_reason(ctx, NULL);
			cb(ctx, NULL, r, res, arg);
			return 1;
		}
	}
	if ((r = enqueue(ctx, req, (size_t)req_len, timeout_ms, &q)) < 0)
		return r;
	q->what = W_LOOKUP;
	q->flags = flags;
	q->cb = cb;
	q->arg = arg;
	if (ret_query)
		*ret_query = q;
	return 0;
}

NC_EXPORT int
namecache_submit_name(struct namecache *ctx, const char *name, int family,
    unsigned flags, int timeout_ms, namecache_callback *callback, void *arg,
    struct namecache_query **ret_query)
{
	uint8_t		buf[PROTO_HDR_LEN + 4 + PROTO_NAME_MAX + 1];
	struct proto_wr	w;
	int		pf = nc_proto_family(family), saved = errno, r;

	if (ctx == NULL || name == NULL || callback == NULL || pf < 0 ||
	    (flags & ~(NAMECACHE_NO_SHARED | NAMECACHE_SORT | NAMECACHE_ADDRCONFIG)))
		return NAMECACHE_ERR_INVAL;
	if ((flags & NAMECACHE_ADDRCONFIG) && (pf = nc_addrconfig_family(pf)) < 0)
		return pf;
	if (proto_name_check(name, strlen(name), NULL) < 0)
		return NAMECACHE_ERR_BADNAME;
	proto_wr_init(&w, buf, sizeof(buf));
	r = submit(ctx, SHM_NAME, (uint8_t)pf, name, strlen(name), flags, timeout_ms, buf,
	    proto_lookup_name_encode(&w, 0, (uint8_t)pf, name), callback,
	    arg, ret_query);
	errno = saved;
	return r;
}

NC_EXPORT int
namecache_submit_addr(struct namecache *ctx, int family, const void *addr,
    unsigned flags, int timeout_ms, namecache_callback *callback, void *arg,
    struct namecache_query **ret_query)
{
	uint8_t		buf[PROTO_HDR_LEN + 2 + 16];
	struct proto_wr	w;
	int		pf = nc_proto_family(family), saved = errno, r;

	if (ctx == NULL || addr == NULL || callback == NULL ||
	    (pf != PROTO_AF_INET && pf != PROTO_AF_INET6) ||
	    (flags & ~(NAMECACHE_NO_SHARED | NAMECACHE_SORT)))
		return NAMECACHE_ERR_INVAL;
	proto_wr_init(&w, buf, sizeof(buf));
	r = submit(ctx, SHM_ADDR, (uint8_t)pf, addr, pf == PROTO_AF_INET ? 4 : 16, flags,
	    timeout_ms, buf, proto_lookup_addr_encode(&w, 0, (uint8_t)pf, addr),
	    callback, arg, ret_query);
	errno = saved;
	return r;
}

NC_EXPORT int
namecache_cancel(struct namecache *ctx, struct namecache_query *q)
{
	if (ctx == NULL || q == NULL || q->ctx != ctx || q->state == Q_RUNNING)
		return NAMECACHE_ERR_INVAL;
	/* Its frame may still be queued: it goes out, and the answer is dropped. */
	if (q->state == Q_FLIGHT) {
		hash_del(ctx, q);
		list_del(&ctx->flight, q);
	} else
		list_del(&ctx->ready, q);
	query_free(q);
	return 0;
}

NC_EXPORT int
namecache_fd(const struct namecache *ctx)
{
	return ctx->fd;
}

NC_EXPORT short
namecache_events(const struct namecache *ctx)
{
	if (ctx->fd < 0)
		return 0;
	return (short)(POLLIN | (ctx->ooff < ctx->olen ? POLLOUT : 0));
}

NC_EXPORT int
namecache_timeout(const struct namecache *ctx)
{
	const struct namecache_query	*q;
	int64_t				 first = INT64_MAX, left;

	/* A fork not yet noticed: process() has answers to deliver. */
	if (ctx->ready.head || ctx->gen != __atomic_load_n(&fork_gen, __ATOMIC_RELAXED))
		return ctx->ready.head || ctx->flight.head ? 0 : -1;
	for (q = ctx->flight.head; q; q = q->next)
		if (q->deadline < first)
			first = q->deadline;
	if (first == INT64_MAX)
		return -1;
	left = first - ncc_now_ms();
	/* Wake twice a second meanwhile, to see a daemon that stopped beating. */
	if (left > 500)
		left = 500;
	return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

NC_EXPORT int
namecache_process(struct namecache *ctx)
{
	int saved = errno, n;

	check_fork(ctx);
	flush_out(ctx);
	read_in(ctx);
	expire(ctx, ncc_now_ms());
	flush_out(ctx);		/* what a lost connection queued again */
	n = deliver(ctx);
	errno = saved;
	return n;
}

NC_EXPORT size_t
namecache_pending(const struct namecache *ctx)
{
	return ctx->flight.n + ctx->ready.n;
}

/* Processes until *done, nothing is pending, or the deadline (ms; -1: none). */
static int
run(struct namecache *ctx, const bool *done, int64_t deadline)
{
	struct pollfd	pfd;
	int64_t		left;
	int		t;

	for (;;) {
		namecache_process(ctx);
		if ((done && *done) || (!done && namecache_pending(ctx) == 0))
			return 0;
		t = namecache_timeout(ctx);
		if (deadline >= 0) {
			left = deadline - ncc_now_ms();
			if (left <= 0)
				return NAMECACHE_ERR_TIMEOUT;
			if (t < 0 || left < t)
				t = (int)(left > INT32_MAX ? INT32_MAX : left);
		}
		pfd.fd = ctx->fd;
		pfd.events = namecache_events(ctx);
		pfd.revents = 0;
		if (poll(&pfd, ctx->fd >= 0 ? 1 : 0, t) < 0 && errno != EINTR)
			return NAMECACHE_ERR_UNAVAILABLE;
	}
}

NC_EXPORT int
namecache_wait(struct namecache *ctx, int timeout_ms)
{
	int saved = errno, r;

	r = run(ctx, NULL, timeout_ms < 0 ? -1 : ncc_now_ms() + timeout_ms);
	errno = saved;
	return r;
}

int
nc_ctx_call(struct namecache *ctx, const uint8_t *req, size_t len, int timeout_ms,
    struct nc_raw_reply *ret)
{
	struct namecache_query	*q;
	bool			 done = false;
	int			 saved = errno, r;

	check_fork(ctx);
	set_reason(ctx, NULL);
	ctx->sys_errno = 0;
	memset(ret, 0, sizeof(*ret));
	if ((r = enqueue(ctx, req, len, timeout_ms, &q)) < 0)
		goto out;
	q->what = W_RAW;
	q->raw = ret;
	q->raw_done = &done;
	/* The query's own deadline ends it: no other is needed. */
	if ((r = run(ctx, &done, -1)) < 0 && !done) {
		namecache_cancel(ctx, q);	/* poll failed: give up on it */
		goto out;
	}
	r = ret->error;
out:
	errno = saved;
	return r;
}

NC_EXPORT int
namecache_connect(struct namecache *ctx)
{
	int saved = errno, r;

	check_fork(ctx);
	r = ensure_connection(ctx);
	errno = saved;
	return r;
}

NC_EXPORT const char *
namecache_reason(const struct namecache *ctx)
{
	return ctx->reason;
}

NC_EXPORT int
namecache_errno(const struct namecache *ctx)
{
	return ctx->sys_errno;
}
