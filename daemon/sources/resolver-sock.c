/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolver-sock.c - c-ares' sockets on the libevent loop: watched, read ahead, sent, timed. */

/*
 * c-ares tells us which sockets it wants watched (the socket-state
 * callback); each gets a libevent event that calls ares_process_fd on
 * readiness, and one timer per channel follows ares_timeout.  c-ares'
 * socket calls come here too (ares_set_socket_functions), so that every
 * byte it sends or reads is told to upstat.c, and so that a readiness
 * costs one recvmmsg.  Nothing here blocks.
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ares.h>
#include <event2/event.h>

#include "clock.h"
#include "log.h"
#include "resolver-int.h"
#include "upstat.h"

void
resolver_timer_update(struct chan *ch)
{
	struct timeval tv, *t;

	if ((t = ares_timeout(ch->ares, NULL, &tv)) != NULL) {
		evtimer_add(ch->timer, t);
		/* Taken after c-ares' own clock: never before its deadline. */
		ch->timer_at = mono_us() + (uint64_t)t->tv_sec * 1000000 +
		    (uint64_t)t->tv_usec;
	} else {
		evtimer_del(ch->timer);
		ch->timer_at = 0;
	}
}

/*
 * c-ares gives a query's first try the deadline of its send plus the
 * channel's timeout (later tries more), so no earlier than sent_us +
 * timeout_ms.  A timer armed for no later than that stands as it is, and
 * the walk of every query on the channel (ares_timeout) is spared: a
 * lookup's second query, or any query sent while others are out.
 */
void
resolver_timer_sent(struct chan *ch, uint64_t sent_us)
{
	if (ch->timer_at != 0 &&
	    ch->timer_at <= sent_us + (uint64_t)ch->timeout_ms * 1000)
		return;
	resolver_timer_update(ch);
}

static void
sock_cb(evutil_socket_t fd, short what, void *arg)
{
	struct chan	*ch = arg;
	struct readahead *ra = &ch->r->ra;
	unsigned	 before;

	ra->fd = fd;
	ra->drained = false;
	ra->n = ra->next = 0;
	ares_process_fd(ch->ares, what & EV_READ ? fd : ARES_SOCKET_BAD,
	    what & EV_WRITE ? fd : ARES_SOCKET_BAD);
	/* c-ares left its loop early (a reply from elsewhere): the rest. */
	do {
		before = ra->next;
		if (ra->fd == fd && ra->next < ra->n)
			ares_process_fd(ch->ares, fd, ARES_SOCKET_BAD);
	} while (ra->fd == fd && ra->next < ra->n && ra->next != before);
	ra->fd = -1;
	ra->n = ra->next = 0;
	resolver_timer_update(ch);
}

void
resolver_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct chan *ch = arg;

	ares_process_fd(ch->ares, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	resolver_timer_update(ch);
}

/* c-ares: start, change or stop watching fd. */
void
resolver_sock_state_cb(void *data, ares_socket_t fd, int readable, int writable)
{
	struct chan	*ch = data;
	struct sockev	**pp, *s;
	short		 what = (readable ? EV_READ : 0) | (writable ? EV_WRITE : 0);

	for (pp = &ch->socks; *pp && (*pp)->fd != fd; pp = &(*pp)->next)
		;
	s = *pp;
	if (what == 0) {
		if (s) {
			*pp = s->next;
			event_free(s->ev);
			free(s);
		}
		return;
	}
	if (s && s->what == what)
		return;
	if (s == NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL) {
			log_error("resolver: out of memory watching a socket");
			return;
		}
		s->fd = fd;
		s->next = ch->socks;
		ch->socks = s;
	} else
		event_free(s->ev);
	s->what = what;
	s->ev = event_new(ch->r->base, fd, what | EV_PERSIST, sock_cb, ch);
	if (s->ev == NULL || event_add(s->ev, NULL) < 0)
		log_error("resolver: cannot watch socket %d", fd);
}

/* The place of fd, or with fd -1 a free one. */
static struct upsock *
upsock_find(struct chan *ch, int fd)
{
	int i;

	for (i = 0; i < CHAN_SOCKS; i++)
		if (fd < 0 ? !ch->us[i].used : ch->us[i].used && ch->us[i].fd == fd)
			return &ch->us[i];
	return NULL;
}

/*
 * c-ares' socket calls (ares_set_socket_functions).  Its own would make a
 * socket and set it non-blocking and close-on-exec with three fcntl calls,
 * and read a UDP socket with recvfrom until one fails with EAGAIN: with
 * sockets kept open (ARES_FLAG_STAYOPEN) that is one failed call per
 * readiness.  Here one recvmmsg takes the reply c-ares asks for and up to
 * READ_AHEAD more; when it found fewer than it could take, the socket is
 * empty, and the next read of this readiness says EAGAIN without asking the
 * kernel (the event is level-triggered: a reply arriving since wakes us).
 */
static ares_socket_t
sf_socket(int af, int type, int protocol, void *arg)
{
	struct chan	*ch = arg;
	struct upsock	*u;
	int		 fd, one = 1;

	if ((fd = socket(af, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol)) < 0)
		return ARES_SOCKET_BAD;
	/* As c-ares does for its own TCP sockets. */
	if (type == SOCK_STREAM &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		close(fd);
		return ARES_SOCKET_BAD;
	}
	if ((u = upsock_find(ch, -1)) != NULL) {
		u->used = true;
		u->fd = fd;
		upstat_open(ch->r->upstat, &u->st, type == SOCK_STREAM);
	}
	return fd;
}

static int
sf_close(ares_socket_t fd, void *arg)
{
	struct chan	*ch = arg;
	struct upsock	*u;

	if ((u = upsock_find(ch, fd)) != NULL) {
		upstat_close(ch->r->upstat, &u->st, mono_us());
		u->used = false;
	}
	if (ch->r->ra.fd == fd) {
		ch->r->ra.fd = -1;
		ch->r->ra.n = ch->r->ra.next = 0;
	}
	return close(fd);
}

static int
sf_connect(ares_socket_t fd, const struct sockaddr *sa, ares_socklen_t len,
    void *arg)
{
	struct chan	*ch = arg;
	struct upsock	*u;
	int		 rc = connect(fd, sa, len), saved = errno;

	if ((rc == 0 || saved == EINPROGRESS) && (u = upsock_find(ch, fd)) != NULL)
		upstat_connect(ch->r->upstat, &u->st, sa, len);
	errno = saved;
	return rc;
}

static ares_ssize_t
sock_read(ares_socket_t fd, void *buf, size_t len, int flags,
    struct sockaddr *from, ares_socklen_t *fromlen, void *arg)
{
	struct chan	*ch = arg;
	struct readahead *ra = &ch->r->ra;
	struct sockev	*s;
	struct mmsghdr	 mm[1 + READ_AHEAD];
	struct iovec	 iov[1 + READ_AHEAD];
	unsigned	 i;
	int		 got;

	/* TCP (no address asked), or not from sock_cb: as c-ares would. */
	if (from == NULL)
		return recv(fd, buf, len, flags);
	for (s = ch->socks; s && s->fd != fd; s = s->next)
		;
	if (s && s->refused) {
		s->refused = false;
		errno = ECONNREFUSED;
		return -1;
	}
	if (ra->fd != fd)
		return recvfrom(fd, buf, len, flags, from, fromlen);
	if (ra->next < ra->n) {
		i = ra->next++;
		if (len > ra->msg[i].len)
			len = ra->msg[i].len;
		memcpy(buf, ra->buf[i], len);
		if (*fromlen > ra->msg[i].fromlen)
			*fromlen = ra->msg[i].fromlen;
		memcpy(from, &ra->msg[i].from, *fromlen);
		*fromlen = ra->msg[i].fromlen;
		return (ares_ssize_t)len;
	}
	if (ra->drained) {
		errno = EAGAIN;
		return -1;
	}
	memset(mm, 0, sizeof(mm));
	iov[0] = (struct iovec){ buf, len };
	mm[0].msg_hdr.msg_name = from;
	mm[0].msg_hdr.msg_namelen = *fromlen;
	for (i = 1; i <= READ_AHEAD; i++) {
		iov[i] = (struct iovec){ ra->buf[i - 1], UDP_READ_MAX };
		mm[i].msg_hdr.msg_name = &ra->msg[i - 1].from;
		mm[i].msg_hdr.msg_namelen = sizeof(ra->msg[i - 1].from);
	}
	for (i = 0; i <= READ_AHEAD; i++) {
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	if ((got = recvmmsg(fd, mm, 1 + READ_AHEAD, flags | MSG_DONTWAIT,
	    NULL)) < 0)
		return -1;
	ra->drained = got < 1 + READ_AHEAD;
	ra->next = 0;
	ra->n = got > 0 ? (unsigned)got - 1 : 0;
	for (i = 0; i < ra->n; i++) {
		ra->msg[i].len = mm[i + 1].msg_len;
		ra->msg[i].fromlen = mm[i + 1].msg_hdr.msg_namelen;
	}
	*fromlen = mm[0].msg_hdr.msg_namelen;
	return got > 0 ? (ares_ssize_t)mm[0].msg_len : 0;
}

/* Every reply c-ares reads, read ahead or not, comes by here once. */
static ares_ssize_t
sf_recvfrom(ares_socket_t fd, void *buf, size_t len, int flags,
    struct sockaddr *from, ares_socklen_t *fromlen, void *arg)
{
	struct chan	*ch = arg;
	struct upsock	*u;
	ares_ssize_t	 rc = sock_read(fd, buf, len, flags, from, fromlen, ch);

	if (rc > 0 && (u = upsock_find(ch, fd)) != NULL)
		upstat_received(ch->r->upstat, &u->st, buf, (size_t)rc, mono_us());
	return rc;
}

/*
 * A connected UDP socket reports a refusal (an ICMP port unreachable for
 * any query sent on it) to whichever call comes next.  When a send takes
 * it, c-ares fails only the query being sent, and the one that earned the
 * refusal (a lookup's A, when its AAAA is sent next) waits for its
 * timeouts.  So the socket is also made to read as refused once: c-ares
 * then moves every query on that server on, as after any failed read.
 *
 * Sent at once, one call per query.  Holding a lookup's A and AAAA for one
 * sendmmsg was tried: sendmmsg drops the error of any message after the
 * first, so c-ares lost count of refusals altogether.
 */
static ares_ssize_t
sf_sendv(ares_socket_t fd, const struct iovec *iov, int n, void *arg)
{
	struct chan	*ch = arg;
	struct sockev	*s;
	struct upsock	*u;
	struct msghdr	 m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };
	ares_ssize_t	 rc;

	if (n == 1)
		rc = send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL);
	else
		rc = sendmsg(fd, &m, MSG_NOSIGNAL);
	if (rc > 0 && (u = upsock_find(ch, fd)) != NULL)
		upstat_sent(ch->r->upstat, &u->st, iov, n, (size_t)rc, mono_us());
	if (rc < 0 && errno == ECONNREFUSED) {
		for (s = ch->socks; s && s->fd != fd; s = s->next)
			;
		if (s && s->ev && !s->refused) {
			s->refused = true;
			event_active(s->ev, EV_READ, 0);
		}
		errno = ECONNREFUSED;
	}
	return rc;
}

const struct ares_socket_functions resolver_sock_funcs = {
	sf_socket, sf_close, sf_connect, sf_recvfrom, sf_sendv
};
