/* SPDX-License-Identifier: MIT */
/* daemon/observe/monitor.c - every lookup as it is answered: to monitors, to the query log. */

/*
 * The engine tells monitor_lookup of each lookup a front end asked, as it
 * replies.  With no monitor and no query log that is one test.  Otherwise
 * the lookup is said once, in words (the event of proto/event.h), and the
 * same frame goes to every monitor.
 *
 * A monitor that does not read costs a bounded amount: once
 * MONITOR_QUEUE_MAX bytes wait for it, its events are refused and
 * counted, and the count goes with the next event it can take (or the
 * next tick).  It is never dropped for being slow, and a lookup never
 * waits for it: the frames go out from the loop, many to one write.
 *
 * What the daemon never sees, it cannot show: hits clients read from the
 * shared segment or from glibc's nscd maps (both read-only to them).  The
 * header each monitor gets first says so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "event.h"
#include "log.h"
#include "monitor.h"
#include "nscd.h"
#include "nsspool.h"
#include "registry.h"
#include "server.h"

#define COMM_SLOTS	64		/* pids whose command is remembered */
#define COMM_FRESH_MS	2000		/* and for how long: pids are reused */
#define LOG_ANSWERS_MAX	16		/* a log line's answers, at most */

struct watcher {
	struct server_stream	*stream;
	uint32_t		 id;		/* its request's: every event's */
	uint64_t		 lost;		/* since the last it got */
};

struct comm_slot {
	int32_t		pid;
	int64_t		at_ms;
	char		comm[17];
};

struct monitor_stats {
	uint64_t	events;		/* queued to a monitor */
	uint64_t	lost;		/* refused: the monitor did not read */
	uint64_t	logged;		/* query log lines */
};

struct monitor {
	const struct nsspool	*nss;
	struct watcher		 w[MONITOR_MAX];
	unsigned		 n;
	bool			 log_queries;
	int64_t			 wall_us;	/* CLOCK_REALTIME less CLOCK_MONOTONIC */
	struct monitor_stats	 st;
	struct comm_slot	 comms[COMM_SLOTS];
	uint8_t			 frame[PROTO_FRAME_MAX];
	uint8_t			 body[PROTO_FRAME_MAX];	/* an answer's, as the wire says it */
};

/* The engine's words are the wire's (proto/event.h): the same numbers. */
_Static_assert((int)LOOKUP_FE_DNS == (int)PROTO_FE_DNS &&
    (int)LOOKUP_FE_COUNT == (int)PROTO_FE_COUNT, "front ends");
_Static_assert((int)LOOKUP_PREFETCH == (int)PROTO_CACHE_PREFETCH &&
    (int)LOOKUP_CACHE_COUNT == (int)PROTO_CACHE_COUNT, "cache statuses");

const char *
monitor_source_str(const struct monitor *m, const struct lookup_done *d)
{
	const char *name;

	switch (d->source) {
	case LOOKUP_SRC_FILES:	return "files";
	case LOOKUP_SRC_DNS:	return "dns";
	case LOOKUP_SRC_MODULE:
		name = m->nss ? nsspool_module_name(m->nss, d->mod) : NULL;
		return name ? name : "module";
	default:		return "none";
	}
}

/* The command of pid, from /proc, remembered a little while (now: ms): "" when gone. */
static const char *
comm_of(struct monitor *m, int32_t pid, int64_t now)
{
	struct comm_slot	*s = &m->comms[(uint32_t)pid % COMM_SLOTS];
	char			 path[32];
	ssize_t			 n = -1;
	int			 fd;

	if (pid <= 0)
		return "";
	if (s->pid == pid && now - s->at_ms < COMM_FRESH_MS)
		return s->comm;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, s->comm, sizeof(s->comm) - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	if (n > 0 && s->comm[n - 1] == '\n')
		n--;
	s->comm[n] = '\0';
	s->pid = pid;
	s->at_ms = now;
	return s->comm;
}

/* The DNS type asked: query -t's, or a DNS client's question; 0: a family. */
static uint16_t
type_of(const struct lookup_done *d)
{
	if (d->client && d->client->fe == LOOKUP_FE_DNS && d->client->qtype)
		return d->client->qtype;
	return d->question == LOOKUP_Q_RR ? d->rr_type : 0;
}

static uint8_t
question_of(const struct lookup_done *d)
{
	return d->question == LOOKUP_Q_NAME ? PROTO_Q_NAME : d->question == LOOKUP_Q_ADDR ?
	    PROTO_Q_ADDR : d->wire ? PROTO_Q_WIRE : PROTO_Q_RR;
}

/*
 * The answer's body as namecache's protocol says it (an answer or records
 * body), in m->body: its length, 0 when there is none to show.
 */
static size_t
body_of(struct monitor *m, const struct lookup_done *d)
{
	struct proto_wr w;

	if (d->status != PROTO_OK || d->answer == NULL || d->wire)
		return 0;
	proto_wr_init(&w, m->body, sizeof(m->body));
	answer_put_body(d->answer, d->answer->ttl, d->answer->source, &w);
	return w.err ? 0 : w.off;
}

struct words {
	char		*buf;
	size_t		 off, cap;
};

static void
add_word(void *arg, const char *s, size_t n)
{
	struct words	*w = arg;
	int		 k;

	if (w->off + 1 >= w->cap)
		return;
	k = snprintf(w->buf + w->off, w->cap - w->off, " %.*s", (int)n, s);
	if (k > 0)
		w->off += (size_t)k < w->cap - w->off ? (size_t)k : w->cap - w->off - 1;
}

static void
client_str(const struct lookup_client *c, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	buf[0] = '\0';
	if (c == NULL || c->family == 0 ||
	    inet_ntop(c->family, c->addr, a, sizeof(a)) == NULL)
		return;
	snprintf(buf, len, c->family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
	    (unsigned)c->port);
}

/* Whether any monitor has room: none, and the event is not even built. */
static bool
any_room(struct monitor *m)
{
	for (unsigned i = 0; i < m->n; i++)
		if (server_stream_queued(m->w[i].stream) <= MONITOR_QUEUE_MAX)
			return true;
	return false;
}

/*
 * One frame of ev for every monitor; the lost count is each one's own.
 * A report of losses alone (fe 0) goes only where there are some, and is
 * not itself counted lost when refused.
 */
static void
send_all(struct monitor *m, const struct proto_event *ev)
{
	bool		report = ev->fe == PROTO_FE_NONE;
	struct proto_wr	w;
	unsigned	i;
	int		len, r;

	proto_wr_init(&w, m->frame, sizeof(m->frame));
	proto_frame_begin(&w, PROTO_MONITOR | PROTO_REPLY, PROTO_OK, 0);
	proto_event_body(&w, ev);
	if ((len = proto_frame_end(&w)) < 0)
		return;
	for (i = 0; i < m->n; ) {
		struct watcher *wt = &m->w[i];
		uint64_t lost = wt->lost;

		if (report && lost == 0 && server_stream_alive(wt->stream)) {
			i++;
			continue;
		}
		/* The id is the monitor request's; lost is each one's own. */
		for (unsigned b = 0; b < 4; b++)
			m->frame[8 + b] = (uint8_t)(wt->id >> (24 - 8 * b));
		for (unsigned b = 0; b < 8; b++)
			m->frame[PROTO_HDR_LEN + PROTO_EVENT_LOST_OFF + b] =
			    (uint8_t)(lost >> (56 - 8 * b));
		r = server_stream_send(wt->stream, m->frame, (size_t)len,
		    MONITOR_QUEUE_MAX);
		if (r == -EPIPE) {
			server_stream_end(wt->stream);
			m->w[i] = m->w[--m->n];
			continue;
		}
		if (r < 0 && !report) {
			wt->lost++;
			m->st.lost++;
		} else if (r == 0) {
			wt->lost = 0;
			m->st.events++;
		}
		i++;
	}
}

/*
 * Events are stamped with the engine's monotonic time of the reply, made
 * wall-clock time by an offset taken once a second: no clock read more.
 */
static void
wall_sync(struct monitor *m)
{
	m->wall_us = (int64_t)(clock_us(CLOCK_REALTIME) - mono_us());
}

/* The event as the monitors get it: copies, no words (the client says them). */
static void
send_lookup(struct monitor *m, const struct lookup_done *d)
{
	const struct lookup_client	*c = d->client;
	struct proto_event		 ev;

	if (!any_room(m)) {
		for (unsigned i = 0; i < m->n; i++)
			m->w[i].lost++;
		m->st.lost += m->n;
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.time_us = (uint64_t)((int64_t)d->end_us + m->wall_us);
	ev.usec = d->usec > UINT32_MAX ? UINT32_MAX : (uint32_t)d->usec;
	ev.pid = c && c->fe != LOOKUP_FE_DNS ? c->pid : -1;
	ev.uid = c && c->fe != LOOKUP_FE_DNS ? c->uid : 0;
	ev.fe = c ? c->fe : LOOKUP_FE_NONE;
	ev.cache = d->cache;
	ev.question = question_of(d);
	ev.family = d->family;
	ev.type = type_of(d);
	ev.status = d->status;
	if (c && c->family) {
		ev.client_family = c->family == AF_INET ? 4 : 6;
		ev.client_port = c->port;
		memcpy(ev.client_addr, c->addr, 16);
	}
	if (d->question == LOOKUP_Q_ADDR)
		memcpy(ev.addr, d->addr, d->family == PROTO_AF_INET ? 4 : 16);
	else {
		ev.name = d->name;
		ev.name_len = strlen(d->name);
	}
	ev.command = comm_of(m, ev.pid, (int64_t)(d->end_us / 1000));
	ev.command_len = strlen(ev.command);
	ev.source = monitor_source_str(m, d);
	ev.source_len = strlen(ev.source);
	if ((ev.body_len = body_of(m, d)) > 0) {
		ev.reply_type = PROTO_REPLY | (d->question == LOOKUP_Q_NAME ?
		    PROTO_LOOKUP_NAME : d->question == LOOKUP_Q_ADDR ?
		    PROTO_LOOKUP_ADDR : PROTO_QUERY_RR);
		ev.body = m->body;
	}
	send_all(m, &ev);
}

/* The query log's line: the monitor's fields, in words, here. */
static void
log_line(struct monitor *m, const struct lookup_done *d)
{
	const struct lookup_client *c = d->client;
	char	 list[512], kind[16], who[64];
	char	 client[INET6_ADDRSTRLEN + 10], addr[INET6_ADDRSTRLEN];
	const char *name = d->name;
	struct words w = { list, 0, sizeof(list) };
	size_t	 n = body_of(m, d);

	list[0] = '\0';
	if (n > 0)
		proto_answer_words(question_of(d), m->body, n, LOG_ANSWERS_MAX,
		    add_word, &w);
	if (c && c->fe != LOOKUP_FE_DNS)
		snprintf(who, sizeof(who), "pid %d (%s)", (int)c->pid, comm_of(m, c->pid,
		    (int64_t)(d->end_us / 1000)));
	else {
		client_str(c, client, sizeof(client));
		snprintf(who, sizeof(who), "%s", client[0] ? client : "-");
	}
	if (d->question == LOOKUP_Q_ADDR)
		name = inet_ntop(d->family == PROTO_AF_INET ? AF_INET : AF_INET6, d->addr,
		    addr, sizeof(addr));
	log_info("query %s %s %s %s from %s, %s: %s%s %lluus",
	    c && c->fe ? proto_fe_str(c->fe) : "-", who, name ? name : "",
	    proto_kind_str(question_of(d), d->family, type_of(d), kind, sizeof(kind)),
	    monitor_source_str(m, d), proto_cache_str(d->cache),
	    proto_result_str(d->status), list, (unsigned long long)d->usec);
	m->st.logged++;
}

/* glibc's key in words: its NULs (innetgr's triple, a trailing one) as commas. */
static size_t
db_key_text(const struct monitor_db *d, char *buf, size_t cap)
{
	size_t n = d->key_len;

	while (n > 0 && d->key[n - 1] == '\0')
		n--;
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = d->key[i] == '\0' ? ',' : (char)d->key[i];
	buf[n] = '\0';
	return n;
}

void
monitor_db_lookup(struct monitor *m, const struct monitor_db *d)
{
	const struct lookup_client	*c = d->client;
	struct proto_event		 ev;
	char				 key[NSCD_KEY_MAX + 1], t[16];
	const char			*source = d->source ? d->source : "nscd-map";

	if (m->n == 0 && !m->log_queries)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.name_len = db_key_text(d, key, sizeof(key));
	ev.name = key;
	if (m->log_queries) {
		log_info("query nscd pid %d (%s) %s %s from %s, %s: %s %lluus",
		    (int)c->pid, comm_of(m, c->pid, (int64_t)(d->end_us / 1000)), key,
		    proto_kind_str(PROTO_Q_DB, 0, (uint16_t)d->type, t, sizeof(t)), source,
		    proto_cache_str(d->cache), proto_result_str(d->status),
		    (unsigned long long)d->usec);
		m->st.logged++;
	}
	if (m->n == 0)
		return;
	if (!any_room(m)) {
		for (unsigned i = 0; i < m->n; i++)
			m->w[i].lost++;
		m->st.lost += m->n;
		return;
	}
	ev.time_us = (uint64_t)((int64_t)d->end_us + m->wall_us);
	ev.usec = d->usec > UINT32_MAX ? UINT32_MAX : (uint32_t)d->usec;
	ev.pid = c->pid;
	ev.uid = c->uid;
	ev.fe = LOOKUP_FE_NSCD;
	ev.cache = d->cache;
	ev.question = PROTO_Q_DB;
	ev.type = (uint16_t)d->type;
	ev.status = d->status;
	ev.command = comm_of(m, ev.pid, (int64_t)(d->end_us / 1000));
	ev.command_len = strlen(ev.command);
	ev.source = source;
	ev.source_len = strlen(source);
	send_all(m, &ev);
}

void
monitor_lookup(struct monitor *m, const struct lookup_done *d)
{
	if (m->n)
		send_lookup(m, d);
	if (m->log_queries)
		log_line(m, d);
}

void
monitor_tick(struct monitor *m)
{
	struct proto_event	ev;
	bool			lost = false;

	wall_sync(m);
	for (unsigned i = 0; i < m->n; i++)
		lost |= m->w[i].lost > 0 || !server_stream_alive(m->w[i].stream);
	if (!lost)
		return;
	/* A report of losses alone, and the gone are let go. */
	memset(&ev, 0, sizeof(ev));
	ev.time_us = clock_us(CLOCK_REALTIME);
	ev.pid = -1;
	send_all(m, &ev);
}

int
monitor_subscribe(struct monitor *m, struct server_req *req)
{
	struct proto_kv_wr	kw;
	struct proto_wr		w;
	struct server_stream	*s;
	int			len;

	if (m->n == MONITOR_MAX)
		return -EBUSY;
	proto_wr_init(&w, m->frame, sizeof(m->frame));
	proto_frame_begin(&w, req->hdr.type | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_kv_begin(&kw, &w);
	proto_kv_str(&kw, "note", "hits that clients read from the shared segment "
	    "or from glibc's nscd maps, which never reach the daemon");
	proto_kv_u64(&kw, "queue_max_bytes", MONITOR_QUEUE_MAX);
	proto_kv_u64(&kw, "monitors", m->n + 1);
	if (proto_kv_end(&kw) < 0 || (len = proto_frame_end(&w)) < 0)
		return -ENOMEM;
	if ((s = server_stream(req)) == NULL)
		return -ENOMEM;
	server_reply(req, m->frame, (size_t)len);
	m->w[m->n].stream = s;
	m->w[m->n].id = req->hdr.id;
	m->w[m->n].lost = 0;
	m->n++;
	return 0;
}

unsigned
monitor_count(const struct monitor *m)
{
	return m->n;
}

struct monitor *
monitor_new(const struct nsspool *nss)
{
	struct monitor *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->nss = nss;
	wall_sync(m);
	return m;
}

void
monitor_quiet(struct monitor *m)
{
	if (m == NULL)
		return;
	for (unsigned i = 0; i < m->n; i++)
		server_stream_end(m->w[i].stream);
	m->n = 0;
	m->log_queries = false;
}

void
monitor_free(struct monitor *m)
{
	monitor_quiet(m);
	free(m);
}

void
monitor_set_log(struct monitor *m, bool on)
{
	m->log_queries = on;
}

void
monitor_report(void *arg, struct registry_wr *wr)
{
	const struct monitor *m = arg;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_gauge(wr, "monitors", m->n, "Monitors attached (namecachectl monitor)");
	registry_counter(wr, "monitor_events", m->st.events, "Events queued to monitors");
	registry_counter(wr, "monitor_lost", m->st.lost,
	    "Events monitors lost: they did not read in time");
	registry_counter(wr, "queries_logged", m->st.logged,
	    "Lookups written to the query log (log_queries)");
}

void
monitor_reset_stats(struct monitor *m)
{
	memset(&m->st, 0, sizeof(m->st));
}
