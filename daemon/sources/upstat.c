/* SPDX-License-Identifier: MIT */
/* daemon/sources/upstat.c - round trips per upstream server, from the bytes its sockets carry. */

/*
 * A query leaving a socket is stamped in u->sent under (the socket's
 * serial, its id) with the time it left; a reply read from that socket with
 * that id takes the stamp, one round trip of the server the socket is
 * connected to.  A retransmission stamps again, so the round trip runs from
 * the last send.  Serials are never reused, so a closed socket's stamps
 * cannot match a new socket on the same descriptor: they are dead from the
 * close, and age out.
 *
 * u->sent is set-associative: a stamp takes a free place or the oldest of
 * SENT_WAYS, so it is bounded (UPSTAT_STAMPS) and nothing is allocated per
 * query.  Every call costs a few compares per message, whatever the load.
 *
 * On a stream, where one send may carry several messages or a piece of one
 * and c-ares reads a length then a body, each direction is followed through
 * its 2-byte length prefixes (struct upstat_scan): a message counts when its
 * last byte is seen.  A datagram is one whole message.  A message shorter
 * than a DNS header has no id, and counts for nothing.  Only the id is
 * matched: a late reply c-ares has given up on counts, and so does a
 * forgery with the right port and id but another question, which c-ares
 * drops.
 *
 * Single-threaded: every call comes from the caller's loop.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <assert.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upstat.h"

#define DNS_HEADER	12
#define SENT_WAYS	4
#define SENT_SETS	(UPSTAT_STAMPS / SENT_WAYS)

/* A query sent, awaiting its reply. */
struct sent {
	uint32_t	 serial;	/* of its socket; 0: empty */
	uint16_t	 id;
	uint64_t	 at_us;
};

struct srvslot {
	struct upstat_server st;	/* st.server "": a free slot */
	unsigned	 refs;		/* sockets connected to it */
	uint64_t	 idle_since;	/* µs, when refs went to 0 */
};

struct upstat {
	struct srvslot	 srv[UPSTAT_SERVERS_MAX];
	uint32_t	 serial;	/* of the last socket opened */
	struct sent	 sent[SENT_SETS][SENT_WAYS];
};

struct upstat *
upstat_new(void)
{
	return calloc(1, sizeof(struct upstat));
}

void
upstat_free(struct upstat *u)
{
	free(u);
}

void
upstat_open(struct upstat *u, struct upstat_sock *s, bool tcp)
{
	assert(s->serial == 0);
	*s = (struct upstat_sock){ .srv = -1, .tcp = tcp };
	if ((s->serial = ++u->serial) == 0)
		s->serial = ++u->serial;
}

/*
 * The slot of the server named key, taken when it has none.  Past
 * UPSTAT_SERVERS_MAX servers the one idle longest (no socket to it) gives
 * way, its counts starting again if it comes back (to Prometheus, a counter
 * reset); when all have sockets open, the new one is not counted.
 */
static int
srv_attach(struct upstat *u, const char *key)
{
	struct srvslot	*sl;
	int		 i, v = -1;

	for (i = 0; i < UPSTAT_SERVERS_MAX; i++) {
		sl = &u->srv[i];
		if (strcmp(sl->st.server, key) == 0) {
			sl->refs++;
			return i;
		}
		if (sl->refs > 0)
			continue;
		/* A free slot before any idle one, then the idle longest. */
		if (v < 0 || (u->srv[v].st.server[0] != '\0' &&
		    (sl->st.server[0] == '\0' || sl->idle_since < u->srv[v].idle_since)))
			v = i;
	}
	if (v >= 0) {
		memset(&u->srv[v], 0, sizeof(u->srv[v]));
		snprintf(u->srv[v].st.server, sizeof(u->srv[v].st.server), "%s", key);
		u->srv[v].refs = 1;
	}
	return v;
}

void
upstat_connect(struct upstat *u, struct upstat_sock *s, const struct sockaddr *sa,
    socklen_t len)
{
	const struct sockaddr_in	*sin = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6	*sin6 = (const struct sockaddr_in6 *)sa;
	char				 key[sizeof(u->srv[0].st.server)], a[INET6_ADDRSTRLEN];

	if (s->serial == 0 || s->srv >= 0)
		return;
	if (sa->sa_family == AF_INET && len >= sizeof(*sin) &&
	    inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a)))
		snprintf(key, sizeof(key), "%s:%u", a, ntohs(sin->sin_port));
	else if (sa->sa_family == AF_INET6 && len >= sizeof(*sin6) &&
	    inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a)))
		snprintf(key, sizeof(key), "[%s]:%u", a, ntohs(sin6->sin6_port));
	else
		return;
	s->srv = srv_attach(u, key);
}

void
upstat_close(struct upstat *u, struct upstat_sock *s, uint64_t now)
{
	if (s->serial != 0 && s->srv >= 0 && --u->srv[s->srv].refs == 0)
		u->srv[s->srv].idle_since = now;
	*s = (struct upstat_sock){ .srv = -1 };
}

/* A query with this id left s (sent), or a message with it came in. */
static void
note(struct upstat *u, const struct upstat_sock *s, bool sent, uint16_t id,
    uint64_t now)
{
	struct upstat_server	*st = &u->srv[s->srv].st;
	struct sent		*set, *e = NULL;
	int			 i;

	set = u->sent[(id ^ s->serial * UINT32_C(2654435761)) % SENT_SETS];
	for (i = 0; i < SENT_WAYS; i++)
		if (set[i].serial == s->serial && set[i].id == id)
			e = &set[i];
	if (!sent) {
		if (e == NULL)		/* not a query of ours, or evicted */
			return;
		st->replies++;
		histo_observe(&st->rtt, now > e->at_us ? now - e->at_us : 0);
		*e = (struct sent){ 0 };
		return;
	}
	if (e == NULL) {		/* a free place, or the oldest makes room */
		for (e = set, i = 1; i < SENT_WAYS && e->serial != 0; i++)
			if (set[i].serial == 0 || set[i].at_us < e->at_us)
				e = &set[i];
	}
	*e = (struct sent){ s->serial, id, now };
	st->queries++;
}

/*
 * Takes bytes of a stream of length-prefixed messages, up to the end of the
 * message they are in; there *ret_id is its id if it has a DNS header.
 */
static size_t
scan_feed(struct upstat_scan *t, const uint8_t *p, size_t n, int *ret_id)
{
	size_t take = 0, k;

	*ret_id = -1;
	for (;;) {
		if (t->have >= 2 && t->left == 0) {
			if (t->have == 4 && (t->hdr[0] << 8 | t->hdr[1]) >= DNS_HEADER)
				*ret_id = t->hdr[2] << 8 | t->hdr[3];
			t->have = 0;
			return take;
		}
		if (take == n)
			return take;
		if (t->have < 4) {
			t->hdr[t->have++] = p[take++];
			if (t->have == 2)
				t->left = (uint16_t)(t->hdr[0] << 8 | t->hdr[1]);
			else if (t->have > 2)
				t->left--;
		} else {
			k = n - take < t->left ? n - take : t->left;
			take += k;
			t->left -= (uint16_t)k;
		}
	}
}

/*
 * The first n bytes of iov went out on s (sent) or came in.  A datagram
 * (under 64 KiB) is scanned as if its length came before it.
 */
static void
scan(struct upstat *u, struct upstat_sock *s, bool sent,
    const struct iovec *iov, int niov, size_t n, uint64_t now)
{
	struct upstat_scan	 dgram = { { (uint8_t)(n >> 8), (uint8_t)n }, 2, (uint16_t)n };
	struct upstat_scan	*t = s->tcp ? (sent ? &s->out : &s->in) : &dgram;
	const uint8_t		*p;
	size_t			 len, k;
	int			 i, id;

	if (s->serial == 0 || s->srv < 0 || (!s->tcp && n > UINT16_MAX))
		return;
	for (i = 0; i < niov && n > 0; i++) {
		p = iov[i].iov_base;
		len = iov[i].iov_len < n ? iov[i].iov_len : n;
		for (n -= len; len > 0; p += k, len -= k) {
			k = scan_feed(t, p, len, &id);
			if (id >= 0)
				note(u, s, sent, (uint16_t)id, now);
		}
	}
}

void
upstat_sent(struct upstat *u, struct upstat_sock *s, const struct iovec *iov,
    int niov, size_t n, uint64_t now)
{
	scan(u, s, true, iov, niov, n, now);
}

void
upstat_received(struct upstat *u, struct upstat_sock *s, const void *p, size_t n,
    uint64_t now)
{
	struct iovec iov = { (void *)p, n };

	scan(u, s, false, &iov, 1, n, now);
}

void
upstat_foreach(const struct upstat *u,
    void (*fn)(void *arg, const struct upstat_server *), void *arg)
{
	int i;

	for (i = 0; i < UPSTAT_SERVERS_MAX; i++)
		if (u->srv[i].st.server[0] != '\0' && u->srv[i].st.queries > 0)
			fn(arg, &u->srv[i].st);
}

void
upstat_reset(struct upstat *u)
{
	struct srvslot	*sl;
	int		 i;

	for (i = 0; i < UPSTAT_SERVERS_MAX; i++) {
		sl = &u->srv[i];
		if (sl->refs == 0)
			memset(sl, 0, sizeof(*sl));
		sl->st.queries = sl->st.replies = 0;
		memset(&sl->st.rtt, 0, sizeof(sl->st.rtt));
	}
	memset(u->sent, 0, sizeof(u->sent));
}

unsigned
upstat_stamps(const struct upstat *u)
{
	unsigned	n = 0;
	int		i, j;

	for (i = 0; i < SENT_SETS; i++)
		for (j = 0; j < SENT_WAYS; j++)
			n += u->sent[i][j].serial != 0;
	return n;
}
