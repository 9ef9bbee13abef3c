/* SPDX-License-Identifier: MIT */
/* daemon/observe/httpmetrics.c - GET /metrics over HTTP (metrics_listen), with libevent's evhttp. */

/*
 * evhttp accepts, parses and writes; this file answers, and adds the two
 * limits that libevent 2.1's evhttp lacks (2.2 has evhttp_set_max_connections
 * and evhttp_set_newreqcb):
 *   - HTTPMETRICS_CONNS connections at once; one more is closed at once;
 *   - HTTPMETRICS_DEADLINE seconds from accept to the answer.  evhttp's own
 *     timeout restarts with every byte read: a client sending a header byte
 *     a second would never meet it.
 * The only hook 2.1 has on a new connection is evhttp_set_bevcb: conn_new
 * makes the bufferevent, and one step later, once evhttp has set it up, the
 * argument of its callbacks is evhttp's connection, which conn_adopt counts
 * and gives a close callback and a deadline.  Every answer closes its
 * connection, so the deadline covers the whole exchange.
 * Single-threaded, on the daemon's loop; nothing blocks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include "config.h"
#include "httpmetrics.h"
#include "log.h"
#include "registry.h"

#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct hconn {
	LIST_ENTRY(hconn)	 link;
	struct httpmetrics	*hm;
	struct bufferevent	*bev;		/* made here; evhttp's once adopted */
	struct evhttp_connection *evcon;	/* NULL until adopted */
	struct event		*timer;		/* the adoption, then the deadline */
	struct evbuffer_cb_entry *input_cb;	/* notes that the client spoke */
	bool			 counted;	/* one of nopen */
	bool			 spoke;
	bool			 settled;	/* answered, refused or cut: counted */
};

struct httpmetrics_stats {
	uint64_t	requests;	/* GET /metrics answered 200 */
	uint64_t	not_found;	/* 404: another path */
	uint64_t	refused;	/* connections closed at once: too many open */
	uint64_t	bad;		/* other methods (405), malformed or over the limits */
};

struct httpmetrics {
	struct evhttp		*http;
	struct evconnlistener	*lev;		/* evhttp's */
	struct event		*wake;		/* a connection waits: accept_error */
	struct event		*rearm;		/* adds wake a second after it ran */
	httpmetrics_render_fn	*render;
	void			*arg;
	LIST_HEAD(, hconn)	 conns;
	unsigned		 nopen;		/* adopted and not refused */
	struct httpmetrics_stats stats;
};

/* ours: not adopted yet, so conn_new's reference goes too. */
static void
conn_free(struct hconn *c, bool ours)
{
	LIST_REMOVE(c, link);
	evbuffer_remove_cb_entry(bufferevent_get_input(c->bev), c->input_cb);
	if (ours)
		bufferevent_decref(c->bev);
	event_free(c->timer);
	free(c);
}

/* evhttp frees the connection, whoever ends it: the one way out. */
static void
conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct hconn *c = arg;

	if (c->counted)
		c->hm->nopen--;
	if (!c->settled && c->spoke)	/* evhttp's own 400 or 413, half a request */
		c->hm->stats.bad++;
	conn_free(c, false);
}

static void
conn_input(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct hconn *c = arg;

	if (info->n_added > 0)
		c->spoke = true;
}

static void
conn_adopt(struct hconn *c)
{
	static const struct timeval deadline = { HTTPMETRICS_DEADLINE, 0 };
	struct httpmetrics *hm = c->hm;
	void		*evcon = NULL;

	bufferevent_getcb(c->bev, NULL, NULL, NULL, &evcon);
	if (evcon == NULL) {		/* evhttp gave up on it (out of memory) */
		conn_free(c, true);
		return;
	}
	bufferevent_decref(c->bev);
	c->evcon = evcon;
	evhttp_connection_set_closecb(c->evcon, conn_closed, c);
	if (hm->nopen >= HTTPMETRICS_CONNS) {
		hm->stats.refused++;
		c->settled = true;
		log_debug("metrics_listen: %u connections open: one more closed", hm->nopen);
		evhttp_connection_free(c->evcon);	/* calls conn_closed */
		return;
	}
	hm->nopen++;
	c->counted = true;
	evtimer_add(c->timer, &deadline);
}

static void
conn_timer(evutil_socket_t fd, short what, void *arg)
{
	struct hconn *c = arg;

	if (c->evcon == NULL) {
		conn_adopt(c);
		return;
	}
	if (!c->settled)
		c->hm->stats.bad++;
	c->settled = true;
	log_debug("metrics_listen: a connection closed after %d s", HTTPMETRICS_DEADLINE);
	evhttp_connection_free(c->evcon);	/* calls conn_closed */
}

/* evhttp_set_bevcb: each connection accepted, before evhttp sets it up. */
static struct bufferevent *
conn_new(struct event_base *base, void *arg)
{
	struct hconn	*c;

	/* NULL: evhttp makes its own, limited by evhttp_set_timeout only. */
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->hm = arg;
	c->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	c->timer = evtimer_new(base, conn_timer, c);
	if (c->bev)
		c->input_cb = evbuffer_add_cb(bufferevent_get_input(c->bev), conn_input, c);
	if (c->bev == NULL || c->timer == NULL || c->input_cb == NULL) {
		if (c->bev)
			bufferevent_free(c->bev);
		if (c->timer)
			event_free(c->timer);
		free(c);
		return NULL;
	}
	bufferevent_incref(c->bev);	/* valid for conn_adopt, whatever evhttp does */
	LIST_INSERT_HEAD(&c->hm->conns, c, link);
	event_active(c->timer, EV_TIMEOUT, 1);	/* runs once evhttp is done here */
	return c->bev;
}

static void
reply(struct evhttp_request *req, int code, const char *reason, struct evbuffer *body)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", code == 200 ? CONTENT_TYPE :
	    "text/plain; charset=utf-8");
	evhttp_add_header(h, "Connection", "close");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		char	 len[24];

		/* evhttp would send a HEAD's body too: its length only. */
		snprintf(len, sizeof(len), "%zu", evbuffer_get_length(body));
		evhttp_add_header(h, "Content-Length", len);
		evbuffer_drain(body, evbuffer_get_length(body));
	}
	evhttp_send_reply(req, code, reason, body);
}

/* The decoded path is /metrics; a query string does not matter. */
static bool
is_metrics(struct evhttp_request *req)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char	*path = uri ? evhttp_uri_get_path(uri) : NULL;
	char		*dec;
	size_t		 len = 0;
	bool		 yes;

	if (path == NULL || (dec = evhttp_uridecode(path, 0, &len)) == NULL)
		return false;
	yes = len == strlen("/metrics") && memcmp(dec, "/metrics", len) == 0;
	free(dec);
	return yes;
}

static void
answer(struct httpmetrics *hm, struct evhttp_request *req, struct evbuffer *body)
{
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);

	if (!is_metrics(req)) {
		hm->stats.not_found++;
		evbuffer_add_printf(body, "not found: the metrics are at /metrics\n");
		reply(req, 404, "Not Found", body);
	} else if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		hm->stats.bad++;
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
		evbuffer_add_printf(body, "method not allowed\n");
		reply(req, 405, "Method Not Allowed", body);
	} else if (hm->render(hm->arg, body) < 0) {
		log_warning("metrics_listen: out of memory");
		evbuffer_drain(body, evbuffer_get_length(body));
		reply(req, 500, "Internal Server Error", body);
	} else {
		hm->stats.requests++;
		reply(req, 200, "OK", body);
	}
}

/* evhttp_set_gencb: every request parsed, whatever its method and path. */
static void
request_cb(struct evhttp_request *req, void *arg)
{
	struct httpmetrics *hm = arg;
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct evbuffer	*body;
	struct hconn	*c;

	LIST_FOREACH(c, &hm->conns, link)
		if (c->evcon == evcon)
			c->settled = true;
	if ((body = evbuffer_new()) == NULL) {
		evhttp_connection_free(evcon);	/* as evhttp does, out of memory */
		return;
	}
	answer(hm, req, body);
	evbuffer_free(body);
}

/*
 * accept() failed, not with EAGAIN: out of descriptors, most likely.
 * libevent would try again at once, forever, logging each time.  The
 * listener stops; wake_cb starts it again, at most once a second while a
 * connection waits.  (2.1 passes evhttp's pointer here, not ours.)
 */
static void
accept_error(struct evconnlistener *lev, void *http)
{
	log_warning("metrics_listen: accept: %s; pausing", strerror(errno));
	evconnlistener_disable(lev);
}

static void
wake_cb(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval second = { 1, 0 };
	struct httpmetrics *hm = arg;

	evconnlistener_enable(hm->lev);
	evtimer_add(hm->rearm, &second);
}

static void
rearm_cb(evutil_socket_t fd, short what, void *arg)
{
	struct httpmetrics *hm = arg;

	event_add(hm->wake, NULL);
}

/* Binds with libevent too; past evhttp_bind_listener, the listener is evhttp's. */
static int
serve(struct httpmetrics *hm, struct event_base *base, const struct config_server *a,
    char **ret_err)
{
	union { struct sockaddr sa; struct sockaddr_in in; struct sockaddr_in6 in6; } u;
	char		 host[INET6_ADDRSTRLEN];
	unsigned	 flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE;
	int		 e;

	memset(&u, 0, sizeof(u));
	if (a->family == AF_INET) {
		u.in.sin_family = AF_INET;
		u.in.sin_port = htons((uint16_t)a->port);
		memcpy(&u.in.sin_addr, a->addr, 4);
	} else {
		u.in6.sin6_family = AF_INET6;
		u.in6.sin6_port = htons((uint16_t)a->port);
		memcpy(&u.in6.sin6_addr, a->addr, 16);
		flags |= LEV_OPT_BIND_IPV6ONLY;		/* [::] is not 0.0.0.0 too */
	}
	if ((hm->lev = evconnlistener_new_bind(base, NULL, NULL, flags, 64, &u.sa,
	    a->family == AF_INET ? sizeof(u.in) : sizeof(u.in6))) == NULL) {
		e = errno;
		inet_ntop(a->family, a->addr, host, sizeof(host));
		if (asprintf(ret_err, "cannot listen on %s%s%s:%u: %s",
		    a->family == AF_INET6 ? "[" : "", host, a->family == AF_INET6 ? "]" : "",
		    a->port, strerror(e)) < 0)
			*ret_err = NULL;
		return -e;
	}
	if (evhttp_bind_listener(hm->http, hm->lev) == NULL) {
		evconnlistener_free(hm->lev);
		hm->lev = NULL;
		return -ENOMEM;
	}
	evconnlistener_set_error_cb(hm->lev, accept_error);
	if ((hm->wake = event_new(base, evconnlistener_get_fd(hm->lev), EV_READ, wake_cb,
	    hm)) == NULL || (hm->rearm = evtimer_new(base, rearm_cb, hm)) == NULL ||
	    event_add(hm->wake, NULL) < 0)
		return -ENOMEM;
	return 0;
}

struct httpmetrics *
httpmetrics_new(struct event_base *base, const struct config_server *addr,
    httpmetrics_render_fn *render, void *arg, char **ret_err)
{
	struct httpmetrics *hm;

	*ret_err = NULL;
	if ((hm = calloc(1, sizeof(*hm))) == NULL)
		return NULL;
	hm->render = render;
	hm->arg = arg;
	LIST_INIT(&hm->conns);
	if ((hm->http = evhttp_new(base)) == NULL)
		goto fail;
	/* Per read: a backstop that the deadline always beats. */
	evhttp_set_timeout(hm->http, 2 * HTTPMETRICS_DEADLINE);
	evhttp_set_max_headers_size(hm->http, HTTPMETRICS_HEADERS);
	evhttp_set_max_body_size(hm->http, 0);	/* no request here has a body */
	/* Every method evhttp knows reaches answer(), for a 405 and not its 501. */
	evhttp_set_allowed_methods(hm->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
	    EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_gencb(hm->http, request_cb, hm);
	evhttp_set_bevcb(hm->http, conn_new, hm);
	if (serve(hm, base, addr, ret_err) < 0)
		goto fail;
	return hm;
fail:
	httpmetrics_free(hm);
	return NULL;
}

void
httpmetrics_free(struct httpmetrics *hm)
{
	struct hconn	*c;

	if (hm == NULL)
		return;
	if (hm->wake)		/* before evhttp closes the descriptor */
		event_free(hm->wake);
	if (hm->rearm)
		event_free(hm->rearm);
	if (hm->http)
		evhttp_free(hm->http);	/* the adopted end in conn_closed */
	while ((c = LIST_FIRST(&hm->conns)) != NULL)
		conn_free(c, true);
	free(hm);
}

void
httpmetrics_report(void *arg, struct registry_wr *wr)
{
	const struct httpmetrics *hm = arg;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_counter(wr, "metrics_http_requests", hm->stats.requests, NULL);
	registry_counter(wr, "metrics_http_not_found", hm->stats.not_found, NULL);
	registry_counter(wr, "metrics_http_refused", hm->stats.refused, NULL);
	registry_counter(wr, "metrics_http_bad", hm->stats.bad, NULL);
}
