/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolver.c - c-ares on the libevent loop: queries upstream, never blocks. */

/*
 * c-ares tells us which sockets it wants watched (the socket-state
 * callback); each gets a libevent event that calls ares_process_fd on
 * readiness, and one timer per channel follows ares_timeout.  Nothing here
 * blocks.
 *
 * A configuration change builds a new channel and makes it current; the old
 * one keeps its queries until they finish, then is destroyed from a timer
 * callback (never from inside one of its own callbacks).
 *
 * Spoofing (docs/security.md).  c-ares 1.18 takes a query's id from the
 * buffer given to ares_send, so the id is ours to choose: a random one from
 * arc4random, unique among the channel's queries in flight (c-ares matches
 * a reply to the first query with its id).  A channel keeps one UDP socket
 * per server for as long as it lives (ARES_FLAG_STAYOPEN: c-ares would
 * close it whenever no query is in flight, a socket, connect and close per
 * miss), so every query would leave from one source port, which a spoofer
 * can learn by making us ask a name of his own.  So a channel is retired
 * after CHAN_QUERIES queries and a copy of it takes over: the queries it
 * sent finish on it, then it is destroyed and its socket closed, and the
 * next ones leave from a new socket with a new random port.  At most
 * CHAN_LIVE_MAX channels live at once (each has a socket and c-ares' own
 * tables); past that the current one keeps taking queries.
 *
 * Round trips per server (resolver_foreach_server).  Every byte c-ares
 * sends or reads goes through the socket functions below, which tell
 * upstat.c what each socket does (opened, connected, bytes sent and
 * received, closed) and when; it matches replies to queries and counts.
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ares.h>
#include <event2/event.h>

#include "clock.h"
#include "log.h"
#include "resolvconf.h"
#include "resolver.h"
#include "stats.h"
#include "upstat.h"
#include "watch.h"

#define EDNS_PAYLOAD	1232	/* the DNS flag day 2020 figure */
#define CHAN_QUERIES	16	/* queries a channel sends before it is replaced */
#define CHAN_LIVE_MAX	64	/* channels at once, current and retiring */
#define CHAN_PENDING_MAX 49152	/* ids in use on a channel: a free one is quick to draw */
#define IDPOOL		64	/* random ids drawn at once */
#define READ_AHEAD	7	/* replies read with the one c-ares asks for */
#define UDP_READ_MAX	(4096 + 1)	/* c-ares 1.18's UDP read: MAXENDSSZ + 1 */
#define CHAN_SOCKS	32	/* sockets timed per channel: c-ares 1.18 has a UDP
				   and a TCP one per server; more are not timed */

_Static_assert(UPSTAT_SERVERS_MAX == RESOLVER_SERVERS_MAX, "one bound, two names");
_Static_assert(sizeof(((struct upstat_server *)0)->server) ==
    sizeof(((struct resolver_server_stats *)0)->server), "one name, copied");

struct sockev {
	struct sockev	*next;
	int		 fd;
	short		 what;
	bool		 refused;	/* the next read says ECONNREFUSED */
	struct event	*ev;
};

/* An upstream socket, for its round trips. */
struct upsock {
	bool			 used;
	int			 fd;
	struct upstat_sock	 st;
};

struct chan {
	struct chan	*next;
	struct resolver	*r;
	ares_channel	 ares;
	struct event	*timer;
	struct sockev	*socks;
	unsigned	 pending;
	unsigned	 sent;		/* queries sent on it */
	bool		 retired;
	bool		 in_send;	/* a callback now would be synchronous */
	char		*domains[RESOLVER_SEARCH_MAX + 1];
	int		 ndots;
	int		 timeout_ms;
	int		 attempts;
	char		 servers[512];
	uint64_t	 ids[65536 / 64];	/* ids of the queries in flight */
	struct upsock	 us[CHAN_SOCKS];
};

struct rquery {
	struct chan	*ch;
	uint16_t	 id;
	resolver_cb	*cb;
	void		*arg;
};

/*
 * The replies one recvmmsg read past the first, while c-ares' read loop
 * (read_udp_packets) runs for one readiness of one UDP socket.
 */
struct readahead {
	int		 fd;		/* the socket read; -1 outside sock_cb */
	bool		 drained;	/* recvmmsg found fewer than it could take */
	unsigned	 n, next;	/* held, handed over */
	struct {
		size_t			 len;
		socklen_t		 fromlen;
		struct sockaddr_storage	 from;
	}		 msg[READ_AHEAD];
	uint8_t		 buf[READ_AHEAD][UDP_READ_MAX];
};

/* A callback c-ares made during ares_send, to be delivered from the loop. */
struct deferred {
	resolver_cb	*cb;
	void		*arg;
	int		 status;
};

struct resolver {
	struct event_base	*base;
	struct stats		*stats;
	struct chan		*cur;
	struct chan		*all;
	unsigned		 nchans;	/* on the list all */
	struct event		*gc;
	struct watch		*watch;
	char			*resolv_conf;
	struct config_server	 servers[CONFIG_UPSTREAM_MAX];
	unsigned		 nservers;
	uint64_t		 generation;
	void			(*changed)(void *);
	void			*changed_arg;
	uint16_t		 idpool[IDPOOL];	/* random, not yet used */
	unsigned		 nidpool;
	struct readahead	 ra;
	struct upstat		*upstat;	/* round trips per server */
};

static void
chan_update_timer(struct chan *ch)
{
	struct timeval tv, *t;

	if ((t = ares_timeout(ch->ares, NULL, &tv)) != NULL)
		evtimer_add(ch->timer, t);
	else
		evtimer_del(ch->timer);
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
	chan_update_timer(ch);
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct chan *ch = arg;

	ares_process_fd(ch->ares, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	chan_update_timer(ch);
}

/* c-ares: start, change or stop watching fd. */
static void
sock_state_cb(void *data, ares_socket_t fd, int readable, int writable)
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

static const struct ares_socket_functions sock_funcs = {
	sf_socket, sf_close, sf_connect, sf_recvfrom, sf_sendv
};

static void
chan_destroy(struct chan *ch)
{
	struct sockev	*s, *next;
	int		 i;

	/* ares_destroy calls back pending queries with ARES_EDESTRUCTION. */
	ares_destroy(ch->ares);
	for (s = ch->socks; s; s = next) {
		next = s->next;
		event_free(s->ev);
		free(s);
	}
	if (ch->timer)
		event_free(ch->timer);
	for (i = 0; ch->domains[i]; i++)
		free(ch->domains[i]);
	free(ch);
}

static void
gc_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct chan	**pp, *ch;

	for (pp = &r->all; (ch = *pp) != NULL; ) {
		if (ch->retired && ch->pending == 0) {
			*pp = ch->next;
			r->nchans--;
			chan_destroy(ch);
		} else
			pp = &ch->next;
	}
}

static int
map_status(int status)
{
	switch (status) {
	case ARES_SUCCESS:	return 0;
	case ARES_ETIMEOUT:	return -ETIMEDOUT;
	case ARES_ESERVFAIL:
	case ARES_EREFUSED:
	case ARES_ENOTIMP:
	case ARES_EFORMERR:	return -EIO;
	case ARES_EBADRESP:	return -EBADMSG;
	case ARES_ECONNREFUSED:	return -ECONNREFUSED;
	case ARES_ENOMEM:	return -ENOMEM;
	case ARES_ECANCELLED:
	case ARES_EDESTRUCTION:	return -ECANCELED;
	}
	return -EIO;
}

static void
deferred_cb(evutil_socket_t fd, short what, void *arg)
{
	struct deferred d = *(struct deferred *)arg;

	free(arg);
	d.cb(d.arg, d.status, NULL, 0);
}

static void
ares_cb(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
	struct rquery	*q = arg;
	struct chan	*ch = q->ch;
	struct resolver	*r = ch->r;
	struct deferred	*d;
	int		 st = map_status(status);
	static const struct timeval zero = { 0, 0 };

	ch->pending--;
	ch->ids[q->id / 64] &= ~(UINT64_C(1) << (q->id % 64));
	if (st == 0 && (abuf == NULL || alen <= 0))
		st = -EBADMSG;
	if (st == 0)
		r->stats->upstream_replies++;
	else if (st == -ETIMEDOUT)
		r->stats->upstream_timeouts++;
	else if (st != -ECANCELED)
		r->stats->upstream_failures++;
	if (ch->in_send && st != -ECANCELED) {
		/* Our caller is still inside resolver_query: call back later. */
		if ((d = malloc(sizeof(*d))) != NULL) {
			d->cb = q->cb;
			d->arg = q->arg;
			d->status = st;
			if (event_base_once(r->base, -1, EV_TIMEOUT, deferred_cb, d,
			    &zero) == 0) {
				free(q);
				return;
			}
			free(d);
		}
		log_error("resolver: cannot defer a callback; dropping it");
		free(q);
		return;
	}
	q->cb(q->arg, st, st == 0 ? abuf : NULL, st == 0 ? (size_t)alen : 0);
	free(q);
	if (ch->retired && ch->pending == 0)
		event_active(r->gc, EV_TIMEOUT, 0);
}

static void
describe_servers(struct chan *ch)
{
	struct ares_addr_port_node	*list = NULL, *n;
	char				 a[INET6_ADDRSTRLEN];
	size_t				 off = 0;

	ch->servers[0] = '\0';
	if (ares_get_servers_ports(ch->ares, &list) != ARES_SUCCESS)
		return;
	for (n = list; n && off < sizeof(ch->servers); n = n->next) {
		int port = n->udp_port ? n->udp_port : 53;

		inet_ntop(n->family, &n->addr, a, sizeof(a));
		off += (size_t)snprintf(ch->servers + off, sizeof(ch->servers) - off,
		    n->family == AF_INET6 ? "%s[%s]:%d" : "%s%s:%d",
		    off ? " " : "", a, port);
	}
	ares_free_data(list);
}

/*
 * glibc's "options timeout:N attempts:N": c-ares 1.18 reads only retrans:
 * and retry:, so these are read here (resolvconf.c) and handed over.
 */
static void
read_timeouts(const char *path, int *ret_timeout_ms, int *ret_tries)
{
	FILE *f = fopen(path, "re");

	resolvconf_timeouts(f, ret_timeout_ms, ret_tries);
	if (f)
		fclose(f);
}

static int
chan_new(struct resolver *r, struct chan **ret, char **ret_err)
{
	struct ares_addr_port_node	 nodes[CONFIG_UPSTREAM_MAX];
	struct ares_options		 o, saved;
	struct chan			*ch;
	char				 lookups[] = "b";
	unsigned			 i;
	int				 mask, savedmask, st;

	if ((ch = calloc(1, sizeof(*ch))) == NULL)
		return -ENOMEM;
	ch->r = r;
	if ((ch->timer = evtimer_new(r->base, timer_cb, ch)) == NULL) {
		free(ch);
		return -ENOMEM;
	}
	memset(&o, 0, sizeof(o));
	o.flags = ARES_FLAG_EDNS | ARES_FLAG_STAYOPEN;
	o.ednspsz = EDNS_PAYLOAD;
	o.sock_state_cb = sock_state_cb;
	o.sock_state_cb_data = ch;
	o.lookups = lookups;
	o.resolvconf_path = r->resolv_conf;
	read_timeouts(r->resolv_conf, &o.timeout, &o.tries);
	mask = ARES_OPT_FLAGS | ARES_OPT_EDNSPSZ | ARES_OPT_SOCK_STATE_CB |
	    ARES_OPT_LOOKUPS | ARES_OPT_RESOLVCONF | ARES_OPT_TIMEOUTMS |
	    ARES_OPT_TRIES;
	if ((st = ares_init_options(&ch->ares, &o, mask)) != ARES_SUCCESS) {
		if (asprintf(ret_err, "c-ares: cannot read %s: %s", r->resolv_conf,
		    ares_strerror(st)) < 0)
			*ret_err = NULL;
		event_free(ch->timer);
		free(ch);
		return -EINVAL;
	}
	ares_set_socket_functions(ch->ares, &sock_funcs, ch);
	if (r->nservers > 0) {
		for (i = 0; i < r->nservers; i++) {
			memset(&nodes[i], 0, sizeof(nodes[i]));
			nodes[i].next = i + 1 < r->nservers ? &nodes[i + 1] : NULL;
			nodes[i].family = r->servers[i].family;
			memcpy(&nodes[i].addr, r->servers[i].addr,
			    r->servers[i].family == AF_INET ? 4 : 16);
			nodes[i].udp_port = (int)r->servers[i].port;
			nodes[i].tcp_port = (int)r->servers[i].port;
		}
		if ((st = ares_set_servers_ports(ch->ares, nodes)) != ARES_SUCCESS) {
			if (asprintf(ret_err, "c-ares: cannot set servers: %s",
			    ares_strerror(st)) < 0)
				*ret_err = NULL;
			chan_destroy(ch);
			return -EINVAL;
		}
	}
	if (ares_save_options(ch->ares, &saved, &savedmask) == ARES_SUCCESS) {
		for (i = 0; (int)i < saved.ndomains && i < RESOLVER_SEARCH_MAX; i++)
			ch->domains[i] = strdup(saved.domains[i]);
		ch->ndots = saved.ndots;
		ch->timeout_ms = saved.timeout;
		ch->attempts = saved.tries;
		ares_destroy_options(&saved);
	}
	describe_servers(ch);
	*ret = ch;
	return 0;
}

/*
 * A channel like from, with settings taken from it and not from resolv.conf
 * again (a change of the file is resolver_rebuild's, which compares search
 * lists): c-ares' options, the servers with their ports, our search list.
 */
static int
chan_dup(struct chan *from, struct chan **ret)
{
	struct ares_addr_port_node	*servers = NULL;
	struct ares_options		 o;
	struct chan			*ch;
	int				 i, mask, rc = -ENOMEM;

	if ((ch = calloc(1, sizeof(*ch))) == NULL)
		return -ENOMEM;
	ch->r = from->r;
	if ((ch->timer = evtimer_new(ch->r->base, timer_cb, ch)) == NULL) {
		free(ch);
		return -ENOMEM;
	}
	if (ares_save_options(from->ares, &o, &mask) != ARES_SUCCESS) {
		event_free(ch->timer);
		free(ch);
		return -ENOMEM;
	}
	o.flags |= ARES_FLAG_EDNS | ARES_FLAG_STAYOPEN;
	o.ednspsz = EDNS_PAYLOAD;
	o.sock_state_cb = sock_state_cb;
	o.sock_state_cb_data = ch;
	mask |= ARES_OPT_FLAGS | ARES_OPT_EDNSPSZ | ARES_OPT_SOCK_STATE_CB;
	i = ares_init_options(&ch->ares, &o, mask);
	ares_destroy_options(&o);
	if (i != ARES_SUCCESS) {
		event_free(ch->timer);
		free(ch);
		return -ENOMEM;
	}
	ares_set_socket_functions(ch->ares, &sock_funcs, ch);
	if (ares_get_servers_ports(from->ares, &servers) != ARES_SUCCESS ||
	    ares_set_servers_ports(ch->ares, servers) != ARES_SUCCESS) {
		rc = -EIO;
		goto fail;
	}
	for (i = 0; from->domains[i]; i++)
		if ((ch->domains[i] = strdup(from->domains[i])) == NULL)
			goto fail;
	ch->ndots = from->ndots;
	ch->timeout_ms = from->timeout_ms;
	ch->attempts = from->attempts;
	memcpy(ch->servers, from->servers, sizeof(ch->servers));
	ares_free_data(servers);
	*ret = ch;
	return 0;
fail:
	ares_free_data(servers);
	chan_destroy(ch);
	return rc;
}

/* The channel for the next query: the current one, or its replacement. */
static struct chan *
chan_for_query(struct resolver *r)
{
	struct chan *old = r->cur, *ch;

	if (old->sent < CHAN_QUERIES || r->nchans >= CHAN_LIVE_MAX)
		return old;
	if (chan_dup(old, &ch) < 0) {
		log_debug("resolver: cannot replace a channel; keeping it");
		return old;
	}
	ch->next = r->all;
	r->all = ch;
	r->nchans++;
	r->cur = ch;
	old->retired = true;
	if (old->pending == 0)
		event_active(r->gc, EV_TIMEOUT, 0);
	return ch;
}

/*
 * A random draw for an id.  glibc 2.36's arc4random is a getrandom(2) per
 * call: the draws are taken IDPOOL at a time, in one call.
 */
static uint16_t
resolver_draw_id(struct resolver *r)
{
	if (r->nidpool == 0) {
		arc4random_buf(r->idpool, sizeof(r->idpool));
		r->nidpool = IDPOOL;
	}
	return r->idpool[--r->nidpool];
}

/* A random id no query in flight on ch has; ch->pending < CHAN_PENDING_MAX. */
static uint16_t
chan_new_id(struct chan *ch)
{
	uint16_t id;

	do
		id = resolver_draw_id(ch->r);
	while (ch->ids[id / 64] & (UINT64_C(1) << (id % 64)));
	ch->ids[id / 64] |= UINT64_C(1) << (id % 64);
	return id;
}

static bool
same_search(const struct chan *a, const struct chan *b)
{
	int i;

	if (a->ndots != b->ndots)
		return false;
	for (i = 0; a->domains[i] || b->domains[i]; i++)
		if (!a->domains[i] || !b->domains[i] ||
		    strcmp(a->domains[i], b->domains[i]) != 0)
			return false;
	return true;
}

int
resolver_rebuild(struct resolver *r)
{
	struct chan	*ch = NULL, *old = r->cur;
	char		*err = NULL;
	int		 rc;

	if ((rc = chan_new(r, &ch, &err)) < 0) {
		log_error("resolver: %s; keeping the old settings",
		    err ? err : strerror(-rc));
		free(err);
		return rc;
	}
	ch->next = r->all;
	r->all = ch;
	r->nchans++;
	r->cur = ch;
	r->generation++;
	if (old) {
		old->retired = true;
		if (old->pending == 0)
			event_active(r->gc, EV_TIMEOUT, 0);
	}
	{
		int nd = 0;

		while (ch->domains[nd])
			nd++;
		log_info("resolver: servers %s; %d search domains, ndots %d, "
		    "timeout %d ms, %d attempts", ch->servers[0] ? ch->servers :
		    "(none)", nd, ch->ndots, ch->timeout_ms, ch->attempts);
	}
	if (old && !same_search(old, ch) && r->changed)
		r->changed(r->changed_arg);
	return 0;
}

static void
resolv_changed(void *arg)
{
	struct resolver *r = arg;

	log_info("resolver: %s changed", r->resolv_conf);
	resolver_rebuild(r);
	if (r->watch)
		watch_rearm(r->watch);
}

int
resolver_configure(struct resolver *r, const char *resolv_conf,
    const struct config_server *servers, unsigned n, char **ret_err)
{
	char	*path;
	int	 rc;

	*ret_err = NULL;
	if ((path = strdup(resolv_conf)) == NULL)
		return -ENOMEM;
	if (r->resolv_conf == NULL || strcmp(r->resolv_conf, path) != 0) {
		watch_free(r->watch);
		r->watch = NULL;
	}
	free(r->resolv_conf);
	r->resolv_conf = path;
	memcpy(r->servers, servers, n * sizeof(*servers));
	r->nservers = n;
	if (r->watch == NULL &&
	    (r->watch = watch_new(r->base, path, resolv_changed, r)) == NULL)
		log_warning("resolver: cannot watch %s: %s", path, strerror(errno));
	if ((rc = resolver_rebuild(r)) < 0 && r->cur == NULL) {
		if (asprintf(ret_err, "cannot set up DNS from %s", path) < 0)
			*ret_err = NULL;
		return rc;
	}
	return 0;
}

struct resolver *
resolver_new(struct event_base *base, struct stats *stats)
{
	struct resolver *r;

	if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->base = base;
	r->stats = stats;
	r->ra.fd = -1;
	if ((r->upstat = upstat_new()) == NULL ||
	    (r->gc = event_new(base, -1, 0, gc_cb, r)) == NULL) {
		upstat_free(r->upstat);
		free(r);
		return NULL;
	}
	return r;
}

void
resolver_free(struct resolver *r)
{
	struct chan *ch, *next;

	if (r == NULL)
		return;
	for (ch = r->all; ch; ch = next) {
		next = ch->next;
		chan_destroy(ch);
	}
	watch_free(r->watch);
	event_free(r->gc);
	upstat_free(r->upstat);
	free(r->resolv_conf);
	free(r);
	ares_library_cleanup();
}

int
resolver_query(struct resolver *r, const char *name, uint16_t type,
    resolver_cb *cb, void *arg)
{
	struct chan	*ch;
	struct rquery	*q;
	unsigned char	*buf = NULL;
	int		 len, st;

	if (r->cur == NULL)
		return -ENETDOWN;
	ch = chan_for_query(r);
	if (ch->pending >= CHAN_PENDING_MAX)
		return -ENOBUFS;
	if ((q = malloc(sizeof(*q))) == NULL)
		return -ENOMEM;
	q->id = chan_new_id(ch);
	/* ares_send sends the id it is given: this one is random and unused. */
	st = ares_create_query(name, 1 /* IN */, type, q->id, 1, &buf, &len,
	    EDNS_PAYLOAD);
	if (st != ARES_SUCCESS) {
		ch->ids[q->id / 64] &= ~(UINT64_C(1) << (q->id % 64));
		free(q);
		return st == ARES_ENOMEM ? -ENOMEM : -EINVAL;
	}
	q->ch = ch;
	q->cb = cb;
	q->arg = arg;
	ch->pending++;
	ch->sent++;
	r->stats->upstream_queries++;
	ch->in_send = true;
	ares_send(ch->ares, buf, len, ares_cb, q);
	ch->in_send = false;
	ares_free_string(buf);
	chan_update_timer(ch);
	return 0;
}

int
resolver_search(const struct resolver *r, const char *const **ret_domains,
    int *ret_ndots)
{
	static const char *const none[1] = { NULL };

	if (r->cur == NULL) {
		*ret_domains = none;
		*ret_ndots = 1;
		return 0;
	}
	*ret_domains = (const char *const *)r->cur->domains;
	*ret_ndots = r->cur->ndots;
	return 0;
}

void
resolver_on_change(struct resolver *r, void (*fn)(void *), void *arg)
{
	r->changed = fn;
	r->changed_arg = arg;
}

void
resolver_get_info(const struct resolver *r, struct resolver_info *ret)
{
	const struct chan	*ch = r->cur;
	size_t			 off = 0;
	int			 i;

	memset(ret, 0, sizeof(*ret));
	ret->resolv_conf = r->resolv_conf ? r->resolv_conf : "";
	ret->generation = r->generation;
	for (const struct chan *c = r->all; c; c = c->next)
		ret->in_flight += c->pending;
	if (ch == NULL)
		return;
	snprintf(ret->servers, sizeof(ret->servers), "%s", ch->servers);
	for (i = 0; ch->domains[i] && off < sizeof(ret->search); i++)
		off += (size_t)snprintf(ret->search + off, sizeof(ret->search) - off,
		    "%s%s", off ? " " : "", ch->domains[i]);
	ret->ndots = ch->ndots;
	ret->timeout_ms = ch->timeout_ms;
	ret->attempts = ch->attempts;
}

/* The public copy of a server's counts; the callback has it for the call. */
struct foreach_server {
	void	(*fn)(void *, const struct resolver_server_stats *);
	void	 *arg;
};

static void
foreach_server(void *arg, const struct upstat_server *us)
{
	const struct foreach_server	*f = arg;
	struct resolver_server_stats	 st = { .queries = us->queries,
	    .replies = us->replies, .rtt = us->rtt };

	memcpy(st.server, us->server, sizeof(st.server));
	f->fn(f->arg, &st);
}

void
resolver_foreach_server(const struct resolver *r,
    void (*fn)(void *arg, const struct resolver_server_stats *), void *arg)
{
	struct foreach_server f = { fn, arg };

	upstat_foreach(r->upstat, foreach_server, &f);
}

void
resolver_reset_server_stats(struct resolver *r)
{
	upstat_reset(r->upstat);
}
