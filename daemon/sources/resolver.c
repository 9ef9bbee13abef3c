/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolver.c - c-ares on the libevent loop: queries upstream, never blocks. */

/*
 * This file holds the channels and the queries.  resolver-sock.c puts a
 * channel's sockets on the libevent loop (an event per socket c-ares
 * wants watched, which calls ares_process_fd; a timer that follows
 * ares_timeout) and makes c-ares' socket calls.  Nothing here blocks.
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
 * after CHAN_QUERIES queries and another takes over: the queries it sent
 * finish on it, then its sockets are closed, and the next ones leave from
 * a new socket with a new random port.  The guarantee: a socket, so a
 * source port, carries at most CHAN_QUERIES queries (more only while
 * CHAN_LIVE_MAX channels are in use, below), and is closed once they
 * end.  It holds because a channel takes CHAN_QUERIES queries between
 * becoming current and being retired, and every socket it has was opened
 * in that span: a new channel has none, and a reused one had them all
 * closed before it could become current again.
 *
 * The one that takes over is a spare when there is one: a retired channel
 * whose queries all ended, reset by ares_set_servers_ports (chan_reset),
 * which closes its sockets as ares_destroy would.  Else a copy of the
 * current one (chan_dup: ares_init_options sets up c-ares' tables and
 * reads /dev/urandom; with ares_destroy later, 97,000 instructions a
 * channel, against 1,100 for a reset).  A one-at-a-time load thus turns
 * two channels over.  At most CHAN_SPARE_MAX are kept
 * idle (they hold no socket), the rest destroyed.  At most CHAN_LIVE_MAX
 * channels exist at once, spares included (each has c-ares' tables and
 * ours); past that the current one keeps taking queries.
 *
 * Round trips per server (resolver_foreach_server).  Every byte c-ares
 * sends or reads goes through the socket functions of resolver-sock.c,
 * which tell upstat.c what each socket does (opened, connected, bytes
 * sent and received, closed) and when; it matches replies to queries and
 * counts.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ares.h>
#include <event2/event.h>

#include "clock.h"
#include "dnsmsg.h"
#include "log.h"
#include "registry.h"
#include "resolvconf.h"
#include "resolver.h"
#include "resolver-int.h"
#include "upstat.h"
#include "watch.h"

#define EDNS_PAYLOAD	1232	/* the DNS flag day 2020 figure */
#define CHAN_QUERIES	16	/* queries a channel sends before it is replaced */
#define CHAN_LIVE_MAX	64	/* channels at once, current, retiring and spare */
#define CHAN_SPARE_MAX	4	/* idle channels kept for reuse */
#define CHAN_PENDING_MAX 49152	/* ids in use on a channel: a free one is quick to draw */

_Static_assert(UPSTAT_SERVERS_MAX == RESOLVER_SERVERS_MAX, "one bound, two names");
_Static_assert(sizeof(((struct upstat_server *)0)->server) ==
    sizeof(((struct resolver_server_stats *)0)->server), "one name, copied");

struct rquery {
	struct chan	*ch;
	uint16_t	 id;
	resolver_cb	*cb;
	void		*arg;
};

/* A callback c-ares made during ares_send, to be delivered from the loop. */
struct deferred {
	resolver_cb	*cb;
	void		*arg;
	int		 status;
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

/*
 * A retired channel whose queries have all ended, made ready to serve
 * again as a new one would: ares_set_servers_ports (which c-ares allows
 * only with no query in flight) closes its sockets, so its next query
 * opens a new socket and the kernel draws a new random port for it.  It
 * keeps c-ares' tables and ours, sparing ares_destroy and
 * ares_init_options (which sets up 3,072 list heads and reads
 * /dev/urandom for an id key we do not use).  Only for the current
 * settings; false when it cannot be reused (it is then destroyed).  From
 * the loop only (gc_cb), never inside a c-ares callback: c-ares may still
 * be using the server state that this frees.
 */
static bool
chan_reset(struct chan *ch)
{
	struct resolver	*r = ch->r;

	if (ch->generation != r->generation || r->srv == NULL ||
	    r->nspare >= CHAN_SPARE_MAX)
		return false;
	if (ares_set_servers_ports(ch->ares, r->srv) != ARES_SUCCESS)
		return false;	/* its sockets are closed, maybe its servers gone */
	/* Every id went back to ch->ids as its query ended. */
	assert(ch->pending == 0 && ch->socks == NULL);
	evtimer_del(ch->timer);
	ch->timer_at = 0;
	ch->sent = 0;
	ch->retired = false;
	return true;
}

static void
gc_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct chan	**pp, *ch;

	for (pp = &r->all; (ch = *pp) != NULL; ) {
		if (ch->retired && ch->pending == 0) {
			*pp = ch->next;
			if (chan_reset(ch)) {
				ch->next = r->spare;
				r->spare = ch;
				r->nspare++;
				continue;
			}
			r->nchans--;
			chan_destroy(ch);
		} else
			pp = &ch->next;
	}
}

/* The spare channels go: the settings changed, or we stop. */
static void
spares_free(struct resolver *r)
{
	struct chan *ch;

	while ((ch = r->spare) != NULL) {
		r->spare = ch->next;
		r->nspare--;
		r->nchans--;
		chan_destroy(ch);
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
		r->st.replies++;
	else if (st == -ETIMEDOUT)
		r->st.timeouts++;
	else if (st != -ECANCELED)
		r->st.failures++;
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
	if ((ch->timer = evtimer_new(r->base, resolver_timer_cb, ch)) == NULL) {
		free(ch);
		return -ENOMEM;
	}
	memset(&o, 0, sizeof(o));
	o.flags = ARES_FLAG_EDNS | ARES_FLAG_STAYOPEN;
	o.ednspsz = EDNS_PAYLOAD;
	o.sock_state_cb = resolver_sock_state_cb;
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
	ares_set_socket_functions(ch->ares, &resolver_sock_funcs, ch);
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
	if ((ch->timer = evtimer_new(ch->r->base, resolver_timer_cb, ch)) == NULL) {
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
	o.sock_state_cb = resolver_sock_state_cb;
	o.sock_state_cb_data = ch;
	mask |= ARES_OPT_FLAGS | ARES_OPT_EDNSPSZ | ARES_OPT_SOCK_STATE_CB;
	i = ares_init_options(&ch->ares, &o, mask);
	ares_destroy_options(&o);
	if (i != ARES_SUCCESS) {
		event_free(ch->timer);
		free(ch);
		return -ENOMEM;
	}
	ares_set_socket_functions(ch->ares, &resolver_sock_funcs, ch);
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
	ch->generation = from->generation;
	memcpy(ch->servers, from->servers, sizeof(ch->servers));
	ares_free_data(servers);
	*ret = ch;
	return 0;
fail:
	ares_free_data(servers);
	chan_destroy(ch);
	return rc;
}

/*
 * The channel for the next query: the current one, or its replacement, a
 * spare (chan_reset) or else a copy.
 */
static struct chan *
chan_for_query(struct resolver *r)
{
	struct chan *old = r->cur, *ch;

	if (old->sent < CHAN_QUERIES)
		return old;
	if ((ch = r->spare) != NULL) {
		r->spare = ch->next;
		r->nspare--;
	} else if (r->nchans >= CHAN_LIVE_MAX)
		return old;
	else if (chan_dup(old, &ch) < 0) {
		log_debug("resolver: cannot replace a channel; keeping it");
		return old;
	} else
		r->nchans++;
	ch->next = r->all;
	r->all = ch;
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
	struct ares_addr_port_node	*srv = NULL;
	struct chan			*ch = NULL, *old = r->cur;
	char				*err = NULL;
	int				 rc;

	if ((rc = chan_new(r, &ch, &err)) < 0) {
		log_error("resolver: %s; keeping the old settings",
		    err ? err : strerror(-rc));
		free(err);
		return rc;
	}
	/* For chan_reset; without it, retired channels are destroyed. */
	if (ares_get_servers_ports(ch->ares, &srv) != ARES_SUCCESS)
		srv = NULL;
	if (r->srv)
		ares_free_data(r->srv);
	r->srv = srv;
	spares_free(r);
	ch->next = r->all;
	r->all = ch;
	r->nchans++;
	r->cur = ch;
	ch->generation = ++r->generation;
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
resolver_new(struct event_base *base)
{
	struct resolver *r;

	if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->base = base;
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
	spares_free(r);
	if (r->srv)
		ares_free_data(r->srv);
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
	uint8_t		 buf[DNSMSG_QUERY_MAX];
	uint64_t	 sent;
	int		 len;

	if (r->cur == NULL)
		return -ENETDOWN;
	ch = chan_for_query(r);
	if (ch->pending >= CHAN_PENDING_MAX)
		return -ENOBUFS;
	if ((q = malloc(sizeof(*q))) == NULL)
		return -ENOMEM;
	q->id = chan_new_id(ch);
	/*
	 * ares_send sends the id it is given: this one is random and unused.
	 * The query is ares_create_query's, without its allocation.
	 */
	if ((len = dnsmsg_query(name, type, q->id, EDNS_PAYLOAD, buf)) < 0) {
		ch->ids[q->id / 64] &= ~(UINT64_C(1) << (q->id % 64));
		free(q);
		return len;
	}
	q->ch = ch;
	q->cb = cb;
	q->arg = arg;
	ch->pending++;
	ch->sent++;
	r->st.queries++;
	ch->in_send = true;
	sent = mono_us();
	ares_send(ch->ares, buf, len, ares_cb, q);
	ch->in_send = false;
	resolver_timer_sent(ch, sent);
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
resolver_report(void *arg, struct registry_wr *wr)
{
	const struct resolver *r = arg;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_counter(wr, "upstream_queries", r->st.queries,
	    "Queries sent upstream");
	registry_counter(wr, "upstream_replies", r->st.replies,
	    "Replies from upstream");
	registry_counter(wr, "upstream_timeouts", r->st.timeouts,
	    "Upstream queries no server answered in time");
	registry_counter(wr, "upstream_failures", r->st.failures, "Upstream queries "
	    "the servers failed (SERVFAIL, REFUSED, bad replies)");
}

void
resolver_reset_stats(struct resolver *r)
{
	memset(&r->st, 0, sizeof(r->st));
}

void
resolver_reset_server_stats(struct resolver *r)
{
	upstat_reset(r->upstat);
}
