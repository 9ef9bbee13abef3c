/* SPDX-License-Identifier: MIT */
/* daemon/observe/metrics.c - the daemon's counters and histograms in Prometheus' text format. */

/*
 * One renderer for both ways out: `namecachectl metrics' (PROTO_METRICS,
 * paged over the socket) and GET /metrics (httpmetrics.c).  The numbers
 * are those of `namecachectl statistics', read from the same registry and
 * renamed by one rule so that the two never disagree: namecache_KEY_total
 * for what a module declared a counter, namecache_KEY for a gauge, and µs
 * turned into seconds.  The per-module counters and the histograms are
 * families with labels.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "buildinfo.h"
#include "event.h"
#include "histo.h"
#include "log.h"
#include "metrics.h"
#include "monitor.h"
#include "nsspool.h"
#include "registry.h"
#include "resolver.h"
#include "server.h"

#define SOURCES_MAX	16		/* lookup histograms' source labels */
#define NAMES_MAX	512		/* families in one exposition */

struct source_hist {
	char		name[48];
	struct histo	h[LOOKUP_CACHE_COUNT];
};

struct metrics {
	struct registry		*registry;	/* every module's numbers */
	const struct nsspool	*nss;		/* the modules' families */
	const struct resolver	*resolver;	/* the servers' */
	uint64_t		 shared_size;	/* bytes; 0: no segment */
	struct source_hist	 src[SOURCES_MAX];
	unsigned		 nsrc;
	uint64_t		 results[LOOKUP_FE_COUNT][4];	/* found, not found,
								   no data, failure */
	/* The text PROTO_METRICS pages through, and its serial. */
	char			*text;
	size_t			 text_len;
	uint64_t		 serial;
};

static int
result_index(uint16_t status)
{
	switch (status) {
	case PROTO_OK:			return 0;
	case PROTO_NOTFOUND:
	case PROTO_NOTFOUND_TRYAGAIN:	return 1;
	case PROTO_NODATA:		return 2;
	default:			return 3;
	}
}

/* One lookup answered, whichever front end and walk: counted and timed. */
static void
count(struct metrics *mt, int fe, uint16_t status, int cache, const char *source,
    uint64_t usec)
{
	unsigned i;

	mt->results[fe >= 0 && fe < LOOKUP_FE_COUNT ? fe : 0][result_index(status)]++;
	for (i = 0; i < mt->nsrc; i++)
		if (strcmp(mt->src[i].name, source) == 0)
			break;
	if (i == mt->nsrc) {
		if (mt->nsrc == SOURCES_MAX)
			i = SOURCES_MAX - 1;	/* "other": the line has no more */
		else {
			snprintf(mt->src[i].name, sizeof(mt->src[i].name), "%s",
			    mt->nsrc == SOURCES_MAX - 1 ? "other" : source);
			mt->nsrc++;
		}
	}
	histo_observe(&mt->src[i].h[cache % LOOKUP_CACHE_COUNT], usec);
}

void
metrics_lookup(struct metrics *mt, const struct lookup_done *d, const char *source)
{
	count(mt, d->client ? d->client->fe : 0, d->status, d->cache, source, d->usec);
}

void
metrics_db_lookup(struct metrics *mt, const struct monitor_db *m)
{
	/* A hit of the map has no module to name: "nscd-map". */
	count(mt, LOOKUP_FE_NSCD, m->status, m->cache, m->source ? m->source : "nscd-map",
	    m->usec);
}

void
metrics_reset(struct metrics *mt)
{
	memset(mt->src, 0, sizeof(mt->src));
	mt->nsrc = 0;
	memset(mt->results, 0, sizeof(mt->results));
}

/* --- the text ------------------------------------------------------------ */

struct out {
	struct evbuffer	*b;
	int		 err;
	char		 done[NAMES_MAX][64];	/* families written, not twice */
	unsigned	 ndone;
};

static void
add(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (evbuffer_add_vprintf(o->b, fmt, ap) < 0)
		o->err = -ENOMEM;
	va_end(ap);
}

/* HELP and TYPE, once per family: false if it was written already. */
static bool
family(struct out *o, const char *name, const char *type, const char *help)
{
	for (unsigned i = 0; i < o->ndone; i++)
		if (strcmp(o->done[i], name) == 0)
			return false;
	if (o->ndone < NAMES_MAX)
		snprintf(o->done[o->ndone++], sizeof(o->done[0]), "%s", name);
	add(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	return true;
}

/* A statistics key as a metric name's stem: lower case, [a-z0-9_]. */
static void
stem(const char *key, size_t len, char *buf, size_t cap)
{
	size_t i;

	for (i = 0; i < len && i + 1 < cap; i++)
		buf[i] = isalnum((unsigned char)key[i]) ?
		    (char)tolower((unsigned char)key[i]) : '_';
	buf[i] = '\0';
}

/* Label values escape \, " and newline (they are names we chose, mostly). */
static void
label(const char *s, char *buf, size_t cap)
{
	size_t o = 0;

	for (; *s && o + 3 < cap; s++) {
		if (*s == '\\' || *s == '"')
			buf[o++] = '\\';
		if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
			continue;
		}
		buf[o++] = *s;
	}
	buf[o] = '\0';
}

static void
histogram(struct out *o, const char *name, const char *labels, const struct histo *h)
{
	uint64_t cum = 0;

	for (unsigned i = 0; i < HISTO_BOUNDS; i++) {
		cum += h->bucket[i];
		add(o, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, *labels ? "," : "",
		    histo_bounds_us[i] / 1e6, (unsigned long long)cum);
	}
	add(o, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, *labels ? "," : "",
	    (unsigned long long)h->count);
	add(o, "%s_sum{%s} %.6f\n", name, labels, h->sum_us / 1e6);
	add(o, "%s_count{%s} %llu\n", name, labels, (unsigned long long)h->count);
}

/* One number of the registry, by the renaming rule. */
static void
number(void *arg, const struct registry_entry *e)
{
	struct out	*o = arg;
	char		 name[PROTO_KEY_MAX + 32], help[PROTO_KEY_MAX + 128];
	size_t		 n;
	bool		 gauge = e->kind == REGISTRY_GAUGE, usec;

	if (e->kind == REGISTRY_LABELLED)
		return;
	memcpy(name, "namecache_", 10);
	stem(e->key, strlen(e->key), name + 10, sizeof(name) - 24);
	n = strlen(name);
	usec = n > 5 && strcmp(name + n - 5, "_usec") == 0;
	if (usec)
		strcpy(name + n - 5, "_seconds");
	if (!gauge)
		strcat(name, "_total");
	if (e->help)
		snprintf(help, sizeof(help), "%s (statistics: %s)", e->help, e->key);
	else
		snprintf(help, sizeof(help), "namecachectl statistics: %s%s", e->key,
		    usec ? ", in seconds" : "");
	if (!family(o, name, gauge ? "gauge" : "counter", help))
		return;
	if (usec)
		add(o, "%s %.6f\n", name, e->value / 1e6);
	else
		add(o, "%s %llu\n", name, (unsigned long long)e->value);
}

/* Every number of `namecachectl statistics', as its module declared it. */
static void
statistics(struct out *o, struct metrics *mt)
{
	int r;

	if ((r = registry_read(mt->registry, number, o)) < 0)
		o->err = r;
}

/*
 * A family's samples must follow one another, so the modules' and the
 * servers' numbers are taken first, then said family by family.
 */
#define SERIES_MAX	(NSSPOOL_MODULES_MAX + RESOLVER_SERVERS_MAX)

struct series {
	char		lab[128];	/* module="files", server="127.0.0.1:53" */
	uint64_t	n[6];
	struct histo	h;
};

struct taken {
	struct series	s[SERIES_MAX];
	unsigned	n;
};

static struct series *
take(struct taken *t, const char *key, const char *value)
{
	struct series	*s;
	char		 l[96];

	if (t->n == SERIES_MAX)
		return NULL;
	s = &t->s[t->n++];
	label(value, l, sizeof(l));
	snprintf(s->lab, sizeof(s->lab), "%s=\"%s\"", key, l);
	return s;
}

static void
take_module(void *arg, const struct nsspool_module_stats *ms)
{
	struct series *s = take(arg, "module", ms->name);

	if (s == NULL)
		return;
	s->n[0] = ms->calls;
	s->n[1] = ms->timeouts;
	s->n[2] = ms->found;
	s->n[3] = ms->notfound;
	s->n[4] = ms->unavail;
	s->n[5] = ms->tryagain;
	s->h = *ms->time;
}

static void
take_server(void *arg, const struct resolver_server_stats *ss)
{
	struct series *s = take(arg, "server", ss->server);

	if (s == NULL)
		return;
	s->n[0] = ss->queries;
	s->n[1] = ss->replies;
	s->h = ss->rtt;
}

/* One family of counters: sample i of each series. */
static void
counters(struct out *o, const char *name, const char *help, const struct series *s,
    unsigned n, unsigned i)
{
	family(o, name, "counter", help);
	for (unsigned k = 0; k < n; k++)
		add(o, "%s{%s} %llu\n", name, s[k].lab, (unsigned long long)s[k].n[i]);
}

static void
histograms(struct out *o, const char *name, const char *help, const struct series *s,
    unsigned n)
{
	family(o, name, "histogram", help);
	for (unsigned k = 0; k < n; k++)
		histogram(o, name, s[k].lab, &s[k].h);
}

static void
modules(struct out *o, const struct nsspool *nss, struct taken *t)
{
	static const char *const st[4] = { "success", "notfound", "unavail", "tryagain" };
	const char *name = "namecache_nss_module_results_total";

	t->n = 0;
	nsspool_foreach_module(nss, take_module, t);
	counters(o, "namecache_nss_module_calls_total",
	    "Calls to each NSS module on the worker threads", t->s, t->n, 0);
	counters(o, "namecache_nss_module_timeouts_total",
	    "Calls to each NSS module given up at nss_timeout", t->s, t->n, 1);
	family(o, name, "counter", "What each NSS module's calls returned, by nss_status");
	for (unsigned k = 0; k < t->n; k++)
		for (unsigned i = 0; i < 4; i++)
			add(o, "%s{%s,status=\"%s\"} %llu\n", name, t->s[k].lab, st[i],
			    (unsigned long long)t->s[k].n[2 + i]);
	histograms(o, "namecache_nss_module_call_duration_seconds",
	    "Length of each NSS module call, on its worker thread", t->s, t->n);
}

static void
servers(struct out *o, const struct resolver *resolver, struct taken *t)
{
	t->n = 0;
	resolver_foreach_server(resolver, take_server, t);
	counters(o, "namecache_upstream_server_queries_total",
	    "DNS queries sent to each upstream server, retransmissions included",
	    t->s, t->n, 0);
	counters(o, "namecache_upstream_server_replies_total",
	    "Replies from each upstream server matched to a query sent", t->s, t->n, 1);
	histograms(o, "namecache_upstream_rtt_seconds",
	    "Round trip of each upstream server: a query sent to its reply", t->s, t->n);
}

static void
lookups(struct out *o, struct metrics *mt)
{
	static const char *const results[4] = { "found", "not found", "no data",
	    "failure" };
	char		lab[160], l[96];
	unsigned	fe, r, i, c;

	family(o, "namecache_lookups_total", "counter",
	    "Lookups answered by the daemon, by front end and result");
	for (fe = 1; fe < LOOKUP_FE_COUNT; fe++)
		for (r = 0; r < 4; r++)
			add(o, "namecache_lookups_total{frontend=\"%s\",result=\"%s\"} "
			    "%llu\n", proto_fe_str((int)fe), results[r],
			    (unsigned long long)mt->results[fe][r]);
	family(o, "namecache_lookup_duration_seconds", "histogram",
	    "Time from a request to its reply in the daemon, by the source that "
	    "answered and how the cache took part");
	for (i = 0; i < mt->nsrc; i++)
		for (c = 0; c < LOOKUP_CACHE_COUNT; c++) {
			label(mt->src[i].name, l, sizeof(l));
			snprintf(lab, sizeof(lab), "source=\"%s\",cache=\"%s\"", l,
			    proto_cache_str((int)c));
			histogram(o, "namecache_lookup_duration_seconds", lab,
			    &mt->src[i].h[c]);
		}
}

int
metrics_render(void *arg, struct evbuffer *b)
{
	struct metrics	*mt = arg;
	struct out	*o = calloc(1, sizeof(*o));
	struct taken	*t;
	int		 err;

	if (o == NULL)
		return -ENOMEM;
	o->b = b;
	family(o, "namecache_build_info", "gauge",
	    "The daemon's version, as a label; always 1");
	add(o, "namecache_build_info{version=\"%s\"} 1\n", NAMECACHE_VERSION);
	statistics(o, mt);
	lookups(o, mt);
	if ((t = malloc(sizeof(*t))) == NULL) {
		free(o);
		return -ENOMEM;
	}
	modules(o, mt->nss, t);
	servers(o, mt->resolver, t);
	free(t);
	if (mt->shared_size) {
		family(o, "namecache_shared_size_bytes", "gauge",
		    "Size of the shared segment clients read answers from");
		add(o, "namecache_shared_size_bytes %llu\n",
		    (unsigned long long)mt->shared_size);
	}
	err = o->err;
	free(o);
	return err;
}

/* --- PROTO_METRICS ------------------------------------------------------- */

static void
reply_page(struct metrics *mt, struct server_req *req, uint64_t offset)
{
	struct proto_wr	 w;
	size_t		 cap, n;
	void		*buf = server_req_scratch(req, &cap);
	int		 len;

	n = offset < mt->text_len ? mt->text_len - offset : 0;
	if (n > PROTO_METRICS_PAGE)
		n = PROTO_METRICS_PAGE;
	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, PROTO_METRICS | PROTO_REPLY, PROTO_OK, req->hdr.id);
	proto_put_u64(&w, mt->serial);
	proto_put_u64(&w, mt->text_len);
	proto_put_bytes(&w, mt->text + (n ? offset : 0), n);
	if ((len = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)len);
}

static void
reply_error(struct server_req *req, struct metrics *mt, uint16_t status,
    const char *msg)
{
	struct proto_wr	 w;
	size_t		 cap;
	void		*buf = server_req_scratch(req, &cap);
	int		 len;

	proto_wr_init(&w, buf, cap);
	proto_frame_begin(&w, PROTO_METRICS | PROTO_REPLY, status, req->hdr.id);
	proto_error_body(&w, msg);
	if ((len = proto_frame_end(&w)) > 0)
		server_reply(req, buf, (size_t)len);
}

void
metrics_request(struct metrics *mt, struct server_req *req)
{
	struct evbuffer	*b;
	uint64_t	 serial, offset;
	size_t		 n;

	if (proto_metrics_decode(req->body, req->body_len, &serial, &offset) < 0) {
		server_count(req, SERVER_BAD_REQUESTS);
		reply_error(req, mt, PROTO_BADREQUEST, "bad metrics request");
		return;
	}
	if (serial != 0) {
		if (serial != mt->serial || offset > mt->text_len)
			reply_error(req, mt, PROTO_TRYAGAIN,
			    "the metrics were rendered again meanwhile: start over");
		else
			reply_page(mt, req, offset);
		return;
	}
	/* A new rendering: the pages of older ones are gone. */
	if ((b = evbuffer_new()) == NULL || metrics_render(mt, b) < 0 ||
	    (n = evbuffer_get_length(b)) == 0) {
		if (b)
			evbuffer_free(b);
		reply_error(req, mt, PROTO_INTERNAL, "out of memory");
		return;
	}
	free(mt->text);
	if ((mt->text = malloc(n)) == NULL) {
		mt->text_len = 0;
		evbuffer_free(b);
		reply_error(req, mt, PROTO_INTERNAL, "out of memory");
		return;
	}
	evbuffer_remove(b, mt->text, n);
	evbuffer_free(b);
	mt->text_len = n;
	mt->serial++;
	reply_page(mt, req, 0);
}

struct metrics *
metrics_new(struct registry *registry, const struct nsspool *nss,
    const struct resolver *resolver)
{
	struct metrics *mt = calloc(1, sizeof(*mt));

	if (mt == NULL)
		return NULL;
	mt->registry = registry;
	mt->nss = nss;
	mt->resolver = resolver;
	return mt;
}

void
metrics_set_shared_size(struct metrics *mt, uint64_t bytes)
{
	mt->shared_size = bytes;
}

void
metrics_free(struct metrics *mt)
{
	if (mt == NULL)
		return;
	free(mt->text);
	free(mt);
}
