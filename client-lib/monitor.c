/* SPDX-License-Identifier: MIT */
/* client-lib/monitor.c - the daemon's lookups as they are answered, and its metrics. */

/*
 * A monitor has a connection of its own: after the request, the daemon
 * only talks on it, one frame per lookup, until either side closes.  It
 * is not a context's query (those end with one reply).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "decode.h"
#include "event.h"
#include "namecache.h"
#include "proto.h"

#define ANSWERS_MAX	64	/* an event's answers shown, at most */

struct namecache_monitor {
	int			 fd;
	uint32_t		 id;
	uint8_t			*in;		/* [0, len) read; frames start at 0 */
	size_t			 len, cap;
	size_t			 used;		/* the frame last handed out */
	char			*note;
	struct namecache_event	 ev;
	const char		*answers[ANSWERS_MAX];
	/* The event's words: every string of a frame, and the addresses as text. */
	char			 strings[2 * PROTO_FRAME_MAX];
	char			*at, *end;
};

/* Reads more, waiting up to timeout_ms: 1, 0 on timeout, or an error. */
static int
fill(struct namecache_monitor *m, int timeout_ms)
{
	struct pollfd	pfd = { m->fd, POLLIN, 0 };
	ssize_t		n;
	int		r;

	if (m->cap - m->len < 4096) {
		size_t	 cap = m->cap ? m->cap * 2 : 2 * PROTO_FRAME_MAX;
		uint8_t	*p = realloc(m->in, cap);

		if (p == NULL)
			return NAMECACHE_ERR_NOMEM;
		m->in = p;
		m->cap = cap;
	}
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	do
		n = read(m->fd, m->in + m->len, m->cap - m->len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0)
		return NAMECACHE_ERR_UNAVAILABLE;	/* the daemon went */
	m->len += (size_t)n;
	return 1;
}

/* The next whole frame of ours: 1 with *hdr and *body, 0 when none is whole yet. */
static int
next_frame(struct namecache_monitor *m, struct proto_hdr *hdr, const uint8_t **body)
{
	int r;

	if (m->used) {
		memmove(m->in, m->in + m->used, m->len - m->used);
		m->len -= m->used;
		m->used = 0;
	}
	for (;;) {
		r = proto_hdr_decode(m->in, m->len, hdr);
		if (r == -EAGAIN || (r == 0 && hdr->len > m->len))
			return 0;
		if (r < 0 || hdr->type != (PROTO_MONITOR | PROTO_REPLY))
			return NAMECACHE_ERR_PROTOCOL;
		m->used = hdr->len;
		if (hdr->id == m->id) {
			*body = m->in + PROTO_HDR_LEN;
			return 1;
		}
		memmove(m->in, m->in + m->used, m->len - m->used);	/* not ours */
		m->len -= m->used;
		m->used = 0;
	}
}

/* Waits for a whole frame until the deadline (-1: none): 1, 0, or an error. */
static int
wait_frame(struct namecache_monitor *m, int timeout_ms, struct proto_hdr *hdr,
    const uint8_t **body)
{
	int64_t deadline = timeout_ms < 0 ? -1 : ncc_now_ms() + timeout_ms;
	int	r, left;

	for (;;) {
		if ((r = next_frame(m, hdr, body)) != 0)
			return r;
		left = deadline < 0 ? -1 : (int)(deadline - ncc_now_ms());
		if (deadline >= 0 && left <= 0)
			return 0;
		if ((r = fill(m, left)) <= 0)
			return r;
	}
}

/* A NUL-terminated copy in the event's strings ("" when they are full). */
static const char *
add_str(struct namecache_monitor *m, const char *s, size_t n)
{
	char *p = m->at;

	if ((size_t)(m->end - m->at) < n + 1)
		return "";
	memcpy(p, s, n);
	p[n] = '\0';
	m->at += n + 1;
	return p;
}

static const char *
add_addr(struct namecache_monitor *m, int family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (inet_ntop(family == PROTO_AF_INET ? AF_INET : AF_INET6, a, buf,
	    sizeof(buf)) == NULL)
		buf[0] = '\0';
	return add_str(m, buf, strlen(buf));
}

static void
add_answer(void *arg, const char *s, size_t n)
{
	struct namecache_monitor *m = arg;

	m->answers[m->ev.naddresses++] = add_str(m, s, n);
}

static int
decode(struct namecache_monitor *m, const uint8_t *body, size_t len)
{
	struct proto_event	e;
	struct namecache_event	*ev = &m->ev;
	char			 buf[INET6_ADDRSTRLEN], who[INET6_ADDRSTRLEN + 16], t[16];
	const char		*kind;
	int			 k;

	if (proto_event_decode(body, len, &e) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	m->at = m->strings;
	m->end = m->strings + sizeof(m->strings);
	memset(ev, 0, sizeof(*ev));
	ev->time_us = (int64_t)e.time_us;
	ev->latency_us = e.usec;
	ev->lost = e.lost;
	ev->pid = e.pid;
	ev->uid = e.uid;
	ev->frontend = proto_fe_str(e.fe);
	ev->client = "";
	if (e.client_family == 4 || e.client_family == 6) {
		inet_ntop(e.client_family == 4 ? AF_INET : AF_INET6, e.client_addr, buf,
		    sizeof(buf));
		k = snprintf(who, sizeof(who), e.client_family == 6 ? "[%s]:%u" : "%s:%u",
		    buf, (unsigned)e.client_port);
		ev->client = add_str(m, who, (size_t)k);
	}
	ev->command = add_str(m, e.command, e.command_len);
	if (e.question == PROTO_Q_ADDR)
		ev->name = add_addr(m, e.family == PROTO_AF_INET ? PROTO_AF_INET :
		    PROTO_AF_INET6, e.addr);
	else
		ev->name = add_str(m, e.name, e.name_len);
	kind = e.fe ? proto_kind_str(e.question, e.family, e.type, t, sizeof(t)) : "";
	ev->kind = add_str(m, kind, strlen(kind));
	ev->source = add_str(m, e.source, e.source_len);
	ev->cache = e.fe ? proto_cache_str(e.cache) : "";
	ev->result = e.fe ? proto_result_str(e.status) : "";
	ev->status = e.fe ? proto_status_str(e.status) : "";
	proto_answer_words(e.question, e.body, e.body_len, ANSWERS_MAX, add_answer, m);
	ev->addresses = m->answers;
	return 0;
}

NC_EXPORT int
namecache_monitor_open(const char *socket_path, int timeout_ms,
    struct namecache_monitor **ret_monitor, char **ret_reason)
{
	struct namecache_monitor *m;
	struct proto_hdr	 hdr;
	struct proto_wr		 w;
	struct proto_kv_rd	 kr;
	struct proto_kv		 kv;
	const uint8_t		*body;
	uint8_t			 req[PROTO_HDR_LEN];
	int			 r;

	if (ret_reason)
		*ret_reason = NULL;
	if (ret_monitor == NULL)
		return NAMECACHE_ERR_INVAL;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NAMECACHE_ERR_NOMEM;
	m->id = ncc_next_id();
	if (ncc_connect(socket_path ? socket_path : ncc_socket_path(), &m->fd) < 0) {
		free(m);
		return NAMECACHE_ERR_UNAVAILABLE;
	}
	proto_wr_init(&w, req, sizeof(req));
	if ((r = proto_simple_encode(&w, PROTO_MONITOR, m->id)) < 0 ||
	    write(m->fd, req, (size_t)r) != r) {
		namecache_monitor_close(m);
		return NAMECACHE_ERR_UNAVAILABLE;
	}
	if ((r = wait_frame(m, timeout_ms, &hdr, &body)) <= 0) {
		namecache_monitor_close(m);
		return r == 0 ? NAMECACHE_ERR_TIMEOUT : r;
	}
	if (hdr.status != PROTO_OK) {
		const char	*msg;
		size_t		 n;

		if (ret_reason && proto_error_decode(body, hdr.len - PROTO_HDR_LEN,
		    &msg, &n) == 0 && n > 0 && (*ret_reason = malloc(n + 1))) {
			memcpy(*ret_reason, msg, n);
			(*ret_reason)[n] = '\0';
		}
		r = nc_status_error(hdr.status);
		namecache_monitor_close(m);
		return r;
	}
	if (proto_kv_init(&kr, body, hdr.len - PROTO_HDR_LEN) == 0)
		while (proto_kv_next(&kr, &kv) == 1)
			if (kv.kind == PROTO_KV_STR && kv.key_len == 4 &&
			    memcmp(kv.key, "note", 4) == 0 &&
			    (m->note = malloc(kv.str_len + 1)) != NULL) {
				memcpy(m->note, kv.str, kv.str_len);
				m->note[kv.str_len] = '\0';
			}
	*ret_monitor = m;
	return 0;
}

NC_EXPORT int
namecache_monitor_fd(const struct namecache_monitor *m)
{
	return m->fd;
}

NC_EXPORT const char *
namecache_monitor_note(const struct namecache_monitor *m)
{
	return m->note ? m->note : "";
}

NC_EXPORT int
namecache_monitor_next(struct namecache_monitor *m, int timeout_ms,
    const struct namecache_event **ret_event)
{
	struct proto_hdr	 hdr;
	const uint8_t		*body;
	int			 r;

	if ((r = wait_frame(m, timeout_ms, &hdr, &body)) <= 0)
		return r;
	if (hdr.status != PROTO_OK)
		return nc_status_error(hdr.status);
	if ((r = decode(m, body, hdr.len - PROTO_HDR_LEN)) < 0)
		return r;
	*ret_event = &m->ev;
	return 1;
}

NC_EXPORT void
namecache_monitor_close(struct namecache_monitor *m)
{
	if (m == NULL)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->in);
	free(m->note);
	free(m);
}
