/* SPDX-License-Identifier: MIT */
/* daemon/front/dnslisten.c - the DNS listener: UDP and TCP, one more front end on the engine. */

/*
 * The listener's sockets and their reading; a query's own life, from its
 * bytes to its reply through the engine, is dnsquery.c's (its design
 * block has the rules).  UDP is read with recvmmsg and answered with
 * sendmmsg, DNSLISTEN_UDP_BATCH at a time; a batch shorter than that ends
 * the read, so no recvfrom returns EAGAIN per packet.  TCP (RFC 7766):
 * queries pipelined on a connection, answered as they complete, at most
 * DNSLISTEN_TCP_INFLIGHT at once and DNSLISTEN_TCP_OUT_HIGH bytes queued
 * before it is read again; an idle connection closes after dns_tcp_idle
 * seconds; dns_tcp_clients at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "dnsquery.h"
#include "log.h"
#include "lookup.h"
#include "registry.h"

static const char *const type_names[DL_NTYPES] = {
	"a", "aaaa", "ptr", "cname", "mx", "txt", "srv", "https", "svcb", "any",
	"other",
};
static const char *const rcode_names[DL_NRCODES] = {
	"noerror", "formerr", "servfail", "nxdomain", "notimp", "refused", "other",
};

/* --- UDP ------------------------------------------------------------------ */

static void
udp_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dlsock	 *s = arg;
	struct dnslisten *dl = s->dl;
	unsigned	  i, sent;
	int		  n, r, rounds;

	(void)what;
	for (rounds = 0; rounds < 8; rounds++) {
		for (i = 0; i < DNSLISTEN_UDP_BATCH; i++) {
			dl->iiov[i].iov_base = dl->in[i];
			dl->iiov[i].iov_len = sizeof(dl->in[i]);
			memset(&dl->imsg[i], 0, sizeof(dl->imsg[i]));
			dl->imsg[i].msg_hdr.msg_name = &dl->ipeer[i];
			dl->imsg[i].msg_hdr.msg_namelen = sizeof(dl->ipeer[i]);
			dl->imsg[i].msg_hdr.msg_iov = &dl->iiov[i];
			dl->imsg[i].msg_hdr.msg_iovlen = 1;
		}
		if ((n = recvmmsg(fd, dl->imsg, DNSLISTEN_UDP_BATCH, MSG_DONTWAIT,
		    NULL)) <= 0)
			break;
		dl->in_batch = true;
		dl->nout = 0;
		for (i = 0; i < (unsigned)n; i++) {
			struct dlq q;

			if (dl->imsg[i].msg_hdr.msg_flags & MSG_TRUNC) {
				dl->st.queries[T_UDP]++;
				dl->st.malformed++;
				dl->st.dropped++;	/* oversize: no reply */
				continue;
			}
			memset(&q, 0, offsetof(struct dlq, q));
			q.fd = fd;
			q.peer_len = dl->imsg[i].msg_hdr.msg_namelen;
			memcpy(&q.peer, &dl->ipeer[i], q.peer_len);
			dnsquery_in(dl, &q, dl->in[i], dl->imsg[i].msg_len);
		}
		dl->in_batch = false;
		for (sent = 0; sent < dl->nout; sent += (unsigned)r)
			if ((r = sendmmsg(fd, dl->omsg + sent, dl->nout - sent,
			    MSG_DONTWAIT)) <= 0) {
				dl->st.dropped += dl->nout - sent;
				break;
			}
		if (n < DNSLISTEN_UDP_BATCH)
			break;
	}
}

/* --- TCP ------------------------------------------------------------------ */

void
dlconn_unref(struct dlconn *c)
{
	if (--c->refs == 0)
		free(c);
}

static void
conn_close(struct dlconn *c)
{
	struct dnslisten *dl = c->dl;

	if (c->bev == NULL)
		return;
	bufferevent_free(c->bev);
	c->bev = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		dl->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	dl->nconns--;
	dlconn_unref(c);
}

static void
tcp_read_cb(struct bufferevent *bev, void *arg)
{
	struct dlconn	 *c = arg;
	struct dnslisten *dl = c->dl;
	struct evbuffer	 *in = bufferevent_get_input(bev);
	uint8_t		  lb[2];
	size_t		  mlen;

	/* Held for the loop: a reply may not close it under us. */
	c->refs++;
	while (c->bev) {
		if (c->inflight >= DNSLISTEN_TCP_INFLIGHT ||
		    evbuffer_get_length(bufferevent_get_output(bev)) >=
		    DNSLISTEN_TCP_OUT_HIGH) {
			c->paused = true;
			bufferevent_disable(bev, EV_READ);
			break;
		}
		if (evbuffer_copyout(in, lb, 2) < 2)
			break;
		mlen = (size_t)lb[0] << 8 | lb[1];
		if (evbuffer_get_length(in) < 2 + mlen)
			break;
		evbuffer_drain(in, 2);
		if (evbuffer_remove(in, dl->tcp_in, mlen) != (int)mlen)
			break;
		{
			struct dlq q;

			memset(&q, 0, offsetof(struct dlq, q));
			q.conn = c;
			q.fd = -1;
			q.peer_len = c->peer_len;
			memcpy(&q.peer, &c->peer, c->peer_len);
			dnsquery_in(dl, &q, dl->tcp_in, mlen);
		}
	}
	dlconn_unref(c);
}

/* Output drained: a connection paused for it is read again. */
static void
tcp_write_cb(struct bufferevent *bev, void *arg)
{
	struct dlconn *c = arg;

	if (c->paused && c->inflight < DNSLISTEN_TCP_INFLIGHT) {
		c->paused = false;
		bufferevent_enable(bev, EV_READ);
		tcp_read_cb(bev, c);
	}
}

static void
tcp_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct dlconn *c = arg;

	/* Idle means no query outstanding (RFC 7766 6.2.3): else wait on. */
	if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING) &&
	    c->inflight > 0) {
		bufferevent_enable(bev, EV_READ);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		c->dl->st.tcp_timeouts++;
	conn_close(c);
}

static void
accept_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dlsock	 *s = arg;
	struct dnslisten *dl = s->dl;
	struct sockaddr_storage ss;
	socklen_t	  sl;
	struct dlconn	 *c;
	int		  cfd, i;

	(void)what;
	for (i = 0; i < 16; i++) {
		sl = sizeof(ss);
		if ((cfd = accept4(fd, (struct sockaddr *)&ss, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
			return;
		if (dl->nconns >= dl->max_conns || (c = calloc(1, sizeof(*c))) == NULL) {
			dl->st.tcp_rejected++;
			close(cfd);
			continue;
		}
		c->dl = dl;
		c->refs = 1;
		c->peer_len = sl;
		memcpy(&c->peer, &ss, sl);
		if ((c->bev = bufferevent_socket_new(dl->base, cfd,
		    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
			close(cfd);
			free(c);
			continue;
		}
		bufferevent_setcb(c->bev, tcp_read_cb, tcp_write_cb, tcp_event_cb, c);
		bufferevent_set_timeouts(c->bev, &dl->idle, &dl->idle);
		bufferevent_enable(c->bev, EV_READ | EV_WRITE);
		c->next = dl->conns;
		if (dl->conns)
			dl->conns->prev = c;
		dl->conns = c;
		dl->nconns++;
		dl->st.tcp_accepted++;
	}
}

/* --- sockets -------------------------------------------------------------- */

static void
sock_name(struct dlsock *s, int fd, bool tcp)
{
	struct sockaddr_storage ss;
	socklen_t	 sl = sizeof(ss);
	char		 host[INET6_ADDRSTRLEN] = "?";
	unsigned	 port = 0;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host,
			    sizeof(host));
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host,
			    sizeof(host));
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		}
	}
	snprintf(s->name, sizeof(s->name), ss.ss_family == AF_INET6 ? "%s [%s]:%u" :
	    "%s %s:%u", tcp ? "tcp" : "udp", host, port);
}

static int
sock_add(struct dnslisten *dl, int fd, bool tcp, bool passed)
{
	struct dlsock *s = &dl->socks[dl->nsocks];

	s->dl = dl;
	s->fd = fd;
	s->tcp = tcp;
	s->passed = passed;
	sock_name(s, fd, tcp);
	if ((s->ev = event_new(dl->base, fd, EV_READ | EV_PERSIST,
	    tcp ? accept_cb : udp_cb, s)) == NULL || event_add(s->ev, NULL) < 0) {
		if (s->ev)
			event_free(s->ev);
		return -ENOMEM;
	}
	dl->nsocks++;
	return 0;
}

static int
sock_open(const struct config_server *a, bool tcp, char **ret_err)
{
	struct sockaddr_storage ss;
	socklen_t	 sl;
	char		 host[INET6_ADDRSTRLEN];
	int		 fd, one = 1, e;

	memset(&ss, 0, sizeof(ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)a->port);
		memcpy(&sin->sin_addr, a->addr, 4);
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)a->port);
		memcpy(&sin6->sin6_addr, a->addr, 16);
		sl = sizeof(*sin6);
	}
	fd = socket(a->family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd >= 0 && tcp)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd >= 0 && a->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    (tcp && listen(fd, 128) < 0)) {
		e = errno;
		inet_ntop(a->family, a->addr, host, sizeof(host));
		if (asprintf(ret_err, "dns_listen: cannot listen on %s %s%s%s:%u: %s",
		    tcp ? "tcp" : "udp", a->family == AF_INET6 ? "[" : "", host,
		    a->family == AF_INET6 ? "]" : "", a->port, strerror(e)) < 0)
			*ret_err = NULL;
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return fd;
}

struct dnslisten *
dnslisten_new(struct event_base *base, struct lookup *lk, const struct config *cfg,
    char **ret_err)
{
	struct dnslisten *dl;
	const int	 *passed;
	int		  npassed = listener_dns_passed(&passed), fd, i;
	unsigned	  j, t;

	*ret_err = NULL;
	if (npassed == 0 && cfg->ndns_addrs == 0)
		return NULL;
	if ((dl = calloc(1, sizeof(*dl))) == NULL) {
		*ret_err = strdup("dns_listen: out of memory");
		return NULL;
	}
	dl->base = base;
	dl->lk = lk;
	dl->defer_tail = &dl->defer_head;
	if (getrandom(dl->src_key, sizeof(dl->src_key), GRND_NONBLOCK) !=
	    sizeof(dl->src_key))
		dl->src_key[0] = (uint64_t)(uintptr_t)dl ^ (uint64_t)getpid();
	dnslisten_configure(dl, cfg);
	if ((dl->defer_ev = event_new(base, -1, 0, dnsquery_deferred, dl)) == NULL)
		goto nomem;
	/* Sockets systemd passed take the place of dns_listen's. */
	for (i = 0; i < npassed; i++) {
		int type = 0;
		socklen_t tl = sizeof(type);

		getsockopt(passed[i], SOL_SOCKET, SO_TYPE, &type, &tl);
		evutil_make_socket_nonblocking(passed[i]);
		if (sock_add(dl, passed[i], type == SOCK_STREAM, true) < 0)
			goto nomem;
	}
	for (j = 0; npassed == 0 && j < cfg->ndns_addrs; j++)
		for (t = 0; t < 2; t++) {
			if ((fd = sock_open(&cfg->dns_addrs[j], t == 1, ret_err)) < 0) {
				dnslisten_free(dl);
				return NULL;
			}
			if (sock_add(dl, fd, t == 1, false) < 0) {
				close(fd);
				goto nomem;
			}
		}
	for (j = 0; j < dl->nsocks; j++)
		log_info("dns: listening on %s%s", dl->socks[j].name,
		    dl->socks[j].passed ? " (passed by systemd)" : "");
	return dl;
nomem:
	dnslisten_free(dl);
	*ret_err = strdup("dns_listen: out of memory");
	return NULL;
}

void
dnslisten_configure(struct dnslisten *dl, const struct config *cfg)
{
	if (dl == NULL)
		return;
	memcpy(dl->allow, cfg->dns_prefixes, sizeof(dl->allow));
	dl->nallow = cfg->ndns_prefixes;
	dl->sources = cfg->dns_sources;
	dl->max_pending = cfg->dns_max_pending;
	dl->max_pending_source = cfg->dns_max_pending_source;
	dl->max_conns = cfg->dns_tcp_clients;
	dl->idle.tv_sec = cfg->dns_tcp_idle;
	dl->idle.tv_usec = 0;
}

void
dnslisten_free(struct dnslisten *dl)
{
	unsigned i;

	if (dl == NULL)
		return;
	while (dl->conns)
		conn_close(dl->conns);
	for (i = 0; i < dl->nsocks; i++) {
		event_free(dl->socks[i].ev);
		close(dl->socks[i].fd);
	}
	/* Deferred stages end unanswered: the engine is going too. */
	while (dl->defer_head) {
		struct dlq *q = dl->defer_head;

		dl->defer_head = q->next;
		dnsquery_release(q);
	}
	if (dl->defer_ev)
		event_free(dl->defer_ev);
	free(dl);
}

/*
 * Whether "HOST:PORT" (as resolver_get_info spells servers) is one of our
 * sockets' addresses, or reaches a wildcard one (0.0.0.0, [::]) on its port.
 */
static bool
is_own(const struct dnslisten *dl, const char *server)
{
	const char	*port = strrchr(server, ':');
	unsigned	 i;

	for (i = 0; i < dl->nsocks && port; i++) {
		const char *own = strchr(dl->socks[i].name, ' ') + 1;
		const char *oport = strrchr(own, ':');

		if (strcmp(own, server) == 0)
			return true;
		if (strcmp(oport, port) == 0 && (strncmp(own, "0.0.0.0:", 8) == 0 ||
		    strncmp(own, "[::]:", 5) == 0))
			return true;
	}
	return false;
}

void
dnslisten_check_upstream(const struct dnslisten *dl, const char *servers)
{
	char	 buf[512], *tok, *save = NULL;

	if (dl == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", servers);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (is_own(dl, tok))
			log_warning("dns: upstream %s is this daemon's own listener: "
			    "what it does not know would come back here and fail; "
			    "set upstream = in namecached.conf", tok);
}

/* --- status and statistics ------------------------------------------------ */

void
dnslisten_status(const struct dnslisten *dl, struct proto_kv_wr *kw)
{
	char	 buf[1024];
	size_t	 off = 0;
	unsigned i;

	if (dl == NULL) {
		proto_kv_str(kw, "dns_listen", "off");
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < dl->nsocks && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s%s",
		    i ? ", " : "", dl->socks[i].name, dl->socks[i].passed ?
		    " (systemd)" : "");
	proto_kv_str(kw, "dns_listen", buf);
	off = (size_t)snprintf(buf, sizeof(buf), "loopback");
	for (i = 0; i < dl->nallow && off < sizeof(buf); i++) {
		char host[INET6_ADDRSTRLEN];

		inet_ntop(dl->allow[i].family, dl->allow[i].addr, host, sizeof(host));
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s/%u", host,
		    dl->allow[i].len);
	}
	proto_kv_str(kw, "dns_allow", buf);
	proto_kv_str(kw, "dns_sources", dl->sources == CONFIG_DNS_DNS ? "dns" : "line");
}

void
dnslisten_report(void *arg, struct registry_wr *wr)
{
	const struct dnslisten	*dl = arg;
	char			 key[40];
	unsigned		 i;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_counter(wr, "dns_queries_udp", dl->st.queries[T_UDP], NULL);
	registry_counter(wr, "dns_queries_tcp", dl->st.queries[T_TCP], NULL);
	for (i = 0; i < DL_NTYPES; i++) {
		snprintf(key, sizeof(key), "dns_type_%s", type_names[i]);
		registry_counter(wr, key, dl->st.types[i], NULL);
	}
	for (i = 0; i < DL_NRCODES; i++) {
		snprintf(key, sizeof(key), "dns_rcode_%s", rcode_names[i]);
		registry_counter(wr, key, dl->st.rcodes[i], NULL);
	}
	registry_counter(wr, "dns_refused", dl->st.refused, NULL);
	registry_counter(wr, "dns_truncated", dl->st.truncated, NULL);
	registry_counter(wr, "dns_malformed", dl->st.malformed, NULL);
	registry_counter(wr, "dns_dropped", dl->st.dropped, NULL);
	registry_counter(wr, "dns_busy", dl->st.busy, NULL);
	registry_gauge(wr, "dns_pending", dl->pending, NULL);
	registry_gauge(wr, "dns_tcp_connections", dl->nconns, NULL);
	registry_counter(wr, "dns_tcp_accepted", dl->st.tcp_accepted, NULL);
	registry_counter(wr, "dns_tcp_rejected", dl->st.tcp_rejected, NULL);
	registry_counter(wr, "dns_tcp_timeouts", dl->st.tcp_timeouts, NULL);
}

void
dnslisten_reset_stats(struct dnslisten *dl)
{
	if (dl)
		memset(&dl->st, 0, sizeof(dl->st));
}

