/* SPDX-License-Identifier: MIT */
/* tests/unit/test-engine.c - the lookup engine in-process: scenarios on a fake clock, after testbound. */

/*
 * Each scenario (tests/unit/scenarios/, one .scn file a subject) runs the real engine
 * (daemon/engine/lookup.c and the modules behind it) against fakes at every
 * seam: a scripted upstream, scripted NSS modules, a front end that
 * records each client's reply, and a clock that moves only when the
 * script says "time".  Between commands the harness turns the "event
 * loop": every upstream reply and module answer that is due by now is
 * delivered, in the order it became due.  Nothing sleeps.
 *
 * The language, one command a line, '#' to the end of a line a comment,
 * key=value options after the positional words, lists comma-separated.
 * A key a command does not take, a key given twice, a word where a key
 * was due or a missing word stops the scenario with its file and line: a
 * misspelt check must fail, not pass unchecked.
 *
 *   scenario NAME                 starts a scenario (a fresh engine)
 *   config KEY=VALUE...           min_ttl max_ttl negative_max_ttl
 *                                 failure_ttl serve_stale prefetch=yes|no
 *                                 nss_ttl nss_negative_ttl max_fetches
 *                                 cache_size
 *   line SERVICES...              the hosts line, as nsswitch.conf has it
 *   hosts TEXT...                 a line of the hosts file (reloaded)
 *   search DOMAIN... [ndots=N]    resolv.conf's search list
 *   upstream NAME TYPE WHAT ...   how upstream answers a query for (NAME,
 *                                 TYPE), until told otherwise (data: A,
 *                                 AAAA, PTR, CNAME, MX at preference 10):
 *       answer ttl=N data=A,B [cname=X cname_ttl=N]
 *       nxdomain [soa=TTL,MIN] | nodata [soa=TTL,MIN]
 *       servfail | refused | timeout | garbage
 *     and delay=MS for any: the reply comes MS ms after the query.
 *     A query nothing was said of gets NXDOMAIN with no SOA.
 *   module NAME SPELLING WHAT ... how a module answers a name spelt
 *                                 exactly so (or * for any):
 *       found data=A,B [ttl=N] | notfound | nodata | tryagain | unavail
 *       [herrno=N] [errno=N] [delay=MS]
 *   module NAME missing           the module does not load
 *   nscd [reloads=N]              glibc's nscd map, published into
 *   nscd_restart [stopped=yes]    that map left as a killed daemon leaves
 *                                 it (stopped: as a stop leaves it), opened
 *                                 again and taken over (nscdmap_take_over)
 *   shm                           the shared segment, published into
 *   ask ID NAME [family=unspec|inet|inet6] [absolute=yes]
 *                                 absolute: no search list (the DNS listener's)
 *   ask_addr ID ADDRESS
 *   ask_rr ID NAME TYPE [wire=yes]
 *                                 wire: the DNS listener's (LOOKUP_WIRE)
 *   refresh NAME [family=...]     a refresh walk, nobody waiting
 *   tick                          the nscd map's sweeper, once
 *   flush                         flush-caches
 *   time +SECONDS                 the clock moves on (0.5 is allowed)
 *   expect ID STATUS [data=A,B] [ttl=N] [source=S] [canon=NAME]
 *                    [aliases=A,B] [herrno=N]
 *                                 client ID's one reply; STATUS: ok
 *                                 notfound nodata tryagain unavail busy
 *                                 toobig internal notfound_tryagain;
 *                                 aliases= (empty: none) the answer's
 *                                 aliases in order; herrno= for a
 *                                 failure, the rest for ok; an ask_rr
 *                                 reply takes ttl= and source= only
 *   expect ID STATUS [cap=N] [age=N] [source=S] [answers=yes|no]
 *                    [authority=yes|no]
 *                                 the same for a wire=yes question: the
 *                                 remaining TTL, the records' age, and
 *                                 whether answer and authority records
 *                                 came (a negative answer's SOA)
 *   expect ID STATUS ... [cache=hit|miss|stale|coalesced|prefetch]
 *                    [from=files|dns|module|none]
 *                                 and the engine's observer was told once,
 *                                 with how the cache took part and the
 *                                 source that answered
 *   expect ID pending             no reply yet
 *   queries NAME TYPE N           upstream got N queries for (NAME, TYPE)
 *   writes N                      N records were written to the cache
 *   calls MODULE SPELLING N       the module got N calls for that spelling
 *   stat KEY N                    an engine counter (lookup_get_stats)
 *   nscdstat KEY N                published, refreshes, swept, entries,
 *                                 unchanged, taken_over
 *   shmstat published N
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dnsmsg.h"
#include "dnswire.h"
#include "fakeclock.h"
#include "frame.h"
#include "hosts.h"
#include "lookup.h"
#include "nscd.h"
#include "nscdmap.h"
#include "nsswitch.h"
#include "shm.h"

#ifdef NOMEM
/*
 * test-engine-nomem: every scenario again with each allocation of the
 * engine failing in turn (nomem.h).  Until the failure, every check of
 * the script holds as written; after it, a client gets at most one
 * well-formed reply, whatever its status.  At the end, everything still
 * due is delivered and every client has had its reply; then, with no
 * failure, a name from the hosts file and one from upstream (twice: the
 * cache) are answered.  A part that cannot be made (the engine, the
 * nscd map, the segment) ends the scenario there.
 */
#include "nomem.h"

static jmp_buf	nomem_jmp;

static bool	nomem_relaxed(char **, int);

#define GIVE_UP_IF_NOMEM() do {						\
	if (nomem_failed())						\
		longjmp(nomem_jmp, 1);					\
} while (0)
#else
#define GIVE_UP_IF_NOMEM() do { } while (0)
#endif

#define MAXTOK		64
#define MAXCLIENTS	64
#define MAXMODS		8

/* --- the fake world ------------------------------------------------------- */

enum up_what { UP_ANSWER, UP_NXDOMAIN, UP_NODATA, UP_SERVFAIL, UP_REFUSED,
	UP_TIMEOUT, UP_GARBAGE };

struct up_rule {
	struct up_rule	*next;
	char		 name[PROTO_NAME_MAX + 2];
	uint16_t	 type;
	int		 what;
	uint32_t	 ttl;
	char		 data[512];	/* comma-separated */
	char		 cname[PROTO_NAME_MAX + 2];
	uint32_t	 cname_ttl;
	bool		 soa;
	uint32_t	 soa_ttl, soa_min;
	int64_t		 delay;
};

struct counter {
	struct counter	*next;
	char		 key[2 * PROTO_NAME_MAX + 80];
	unsigned	 n;
};

enum mod_what { MOD_FOUND, MOD_NOTFOUND, MOD_NODATA, MOD_TRYAGAIN, MOD_UNAVAIL };

struct mod_rule {
	struct mod_rule	*next;
	int		 mod;
	char		 spelling[PROTO_NAME_MAX + 2];	/* "*": any */
	int		 what;
	char		 data[512];
	int32_t		 ttl;
	int		 herrno, err;
	int64_t		 delay;
};

/* Something the loop will deliver: an upstream reply or a module's answer. */
struct pending {
	struct pending	*next;
	int64_t		 due;
	uint64_t	 seq;
	resolver_cb	*qcb;		/* upstream */
	nsspool_fn	*mcb;		/* module */
	void		*arg;
	int		 status;
	struct nsspool_result mr;
	uint8_t		 buf[4096];
	size_t		 len;
};

struct client {
	int		 replies;
	int		 observed;	/* the observer was told */
	uint8_t		 cache;		/* enum lookup_cache, as it was told */
	uint8_t		 from;		/* enum lookup_source */
	bool		 released;
	bool		 wire;		/* asked with LOOKUP_WIRE */
	uint8_t		 type;		/* PROTO_* of its request */
	uint8_t		*frame;
	size_t		 len;
};

/* A held request; the request itself (ctx) is the client's id. */
struct fake_hold {
	uint32_t	id;
};

struct world {
	const char		*file;
	int			 lineno;
	uint64_t		 seq;
	struct lookup		*lk;
	struct cache_limits	 lim;
	bool			 prefetch;
	uint32_t		 nss_ttl, nss_negative_ttl;
	unsigned		 max_fetches;
	char			 line[512];
	char			*hosts_text;
	struct hosts		*hosts;
	char			 search_buf[512];
	const char		*search[RESOLVER_SEARCH_MAX + 1];
	int			 ndots;
	struct up_rule		*up;
	struct mod_rule		*mods;
	char			 modname[MAXMODS][NSW_NAME_MAX];
	bool			 modmissing[MAXMODS];
	int			 nmods;
	struct counter		*counters;
	struct pending		*pending;
	struct client		 client[MAXCLIENTS];
	struct nscdmap		*nmap;
	struct shm		*shm;
	char			 dir[64];
	bool			 started;
};

static struct world *W;

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail_msg("%s:%d: %s", W->file, W->lineno, msg);
	abort();	/* not reached */
}

static void count(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
count(const char *fmt, ...)
{
	struct counter	*c;
	char		 key[sizeof(c->key)];
	va_list		 ap;
	size_t		 i;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (c = W->counters; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			break;
	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		memcpy(c->key, key, sizeof(key));
		c->next = W->counters;
		W->counters = c;
	}
	c->n++;
	(void)i;
}

static unsigned
counted(const char *key)
{
	struct counter *c;

	for (c = W->counters; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c->n;
	return 0;
}

static struct pending *
pending_new(int64_t delay)
{
	struct pending *p = calloc(1, sizeof(*p)), **pp;

	p->due = fakeclock_ms + delay;
	p->seq = W->seq++;
	for (pp = &W->pending; *pp; pp = &(*pp)->next)
		;
	*pp = p;
	return p;
}

/* The loop turns: everything due by now, in the order it became due. */
static void
deliver(void)
{
	struct pending	*p, **pp, **best;

	for (;;) {
		best = NULL;
		for (pp = &W->pending; (p = *pp) != NULL; pp = &p->next)
			if (p->due <= fakeclock_ms && (best == NULL || p->due < (*best)->due ||
			    (p->due == (*best)->due && p->seq < (*best)->seq)))
				best = pp;
		if (best == NULL)
			return;
		p = *best;
		*best = p->next;
		if (p->qcb)
			p->qcb(p->arg, p->status, p->status == 0 ? p->buf : NULL,
			    p->len);
		else {
			p->mr.body = p->len ? p->buf : NULL;
			p->mr.len = p->len;
			p->mcb(p->arg, &p->mr);
		}
		free(p);
	}
}

/* --- DNS replies ---------------------------------------------------------- */

struct wire {
	uint8_t	*p;
	size_t	 len, cap;
};

static void
put8(struct wire *w, unsigned v)
{
	if (w->len < w->cap)
		w->p[w->len++] = (uint8_t)v;
}

static void
put16(struct wire *w, unsigned v)
{
	put8(w, v >> 8);
	put8(w, v);
}

static void
put32(struct wire *w, uint32_t v)
{
	put16(w, v >> 16);
	put16(w, v);
}

static void
putname(struct wire *w, const char *name)
{
	const char	*s = name, *dot;
	size_t		 n;

	while (*s) {
		dot = strchr(s, '.');
		n = dot ? (size_t)(dot - s) : strlen(s);
		put8(w, (unsigned)n);
		while (n--)
			put8(w, (uint8_t)*s++);
		if (*s == '.')
			s++;
	}
	put8(w, 0);
}

/* One record of type (A, AAAA, PTR, CNAME; anything else: TXT-like). */
static void
putrr(struct wire *w, const char *owner, uint16_t type, uint32_t ttl,
    const char *data)
{
	uint8_t	a[16];
	size_t	at;

	putname(w, owner);
	put16(w, type);
	put16(w, 1);
	put32(w, ttl);
	at = w->len;
	put16(w, 0);
	if (type == DNS_T_A && inet_pton(AF_INET, data, a) == 1)
		for (int i = 0; i < 4; i++)
			put8(w, a[i]);
	else if (type == DNS_T_AAAA && inet_pton(AF_INET6, data, a) == 1)
		for (int i = 0; i < 16; i++)
			put8(w, a[i]);
	else if (type == DNS_T_PTR || type == DNS_T_CNAME)
		putname(w, data);
	else if (type == DNS_T_MX) {
		put16(w, 10);
		putname(w, data);
	}
	else {
		put8(w, (unsigned)strlen(data));
		for (const char *s = data; *s; s++)
			put8(w, (uint8_t)*s);
	}
	w->p[at] = (uint8_t)((w->len - at - 2) >> 8);
	w->p[at + 1] = (uint8_t)(w->len - at - 2);
}

static size_t
build_reply(uint8_t *buf, size_t cap, const char *qname, uint16_t qtype,
    const struct up_rule *r)
{
	struct wire	 w = { buf, 0, cap };
	char		 data[512], *tok, *save;
	const char	*owner = qname;
	unsigned	 an = 0;
	size_t		 ancount_at;

	put16(&w, 0);
	put16(&w, 0x8180 | (r->what == UP_NXDOMAIN ? 3 : 0));
	put16(&w, 1);
	ancount_at = w.len;
	put16(&w, 0);
	put16(&w, r->soa && r->what != UP_ANSWER ? 1 : 0);
	put16(&w, 0);
	putname(&w, qname);
	put16(&w, qtype);
	put16(&w, 1);
	if (r->what == UP_ANSWER) {
		if (r->cname[0]) {
			putrr(&w, qname, DNS_T_CNAME, r->cname_ttl ? r->cname_ttl :
			    r->ttl, r->cname);
			owner = r->cname;
			an++;
		}
		snprintf(data, sizeof(data), "%s", r->data);
		for (tok = strtok_r(data, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save)) {
			putrr(&w, owner, qtype, r->ttl, tok);
			an++;
		}
		buf[ancount_at] = (uint8_t)(an >> 8);
		buf[ancount_at + 1] = (uint8_t)an;
	} else if (r->soa) {
		const char *zone = strchr(qname, '.') ? strchr(qname, '.') + 1 : qname;
		size_t at;

		putname(&w, zone);
		put16(&w, DNS_T_SOA);
		put16(&w, 1);
		put32(&w, r->soa_ttl);
		at = w.len;
		put16(&w, 0);
		putname(&w, "ns.invalid");
		putname(&w, "hostmaster.invalid");
		put32(&w, 1);
		put32(&w, 3600);
		put32(&w, 600);
		put32(&w, 86400);
		put32(&w, r->soa_min);
		buf[at] = (uint8_t)((w.len - at - 2) >> 8);
		buf[at + 1] = (uint8_t)(w.len - at - 2);
	}
	return w.len;
}

static const struct up_rule *
up_find(const char *name, uint16_t type)
{
	const struct up_rule *r;

	for (r = W->up; r; r = r->next)
		if (r->type == type && strcasecmp(r->name, name) == 0)
			return r;
	return NULL;
}

static int
fake_query(void *arg, const char *name, uint16_t type, resolver_cb *cb, void *cb_arg)
{
	static const struct up_rule nx = { .what = UP_NXDOMAIN };
	const struct up_rule	*r = up_find(name, type);
	struct pending		*p;
	char			 lname[PROTO_NAME_MAX + 2];
	size_t			 i;

	for (i = 0; name[i] && i + 1 < sizeof(lname); i++)
		lname[i] = (char)tolower((unsigned char)name[i]);
	lname[i] = '\0';
	count("q %s %u", lname, type);
	if (r == NULL)
		r = &nx;
	p = pending_new(r->delay);
	p->qcb = cb;
	p->arg = cb_arg;
	switch (r->what) {
	case UP_SERVFAIL:	p->status = -EIO; break;
	case UP_REFUSED:	p->status = -ECONNREFUSED; break;
	case UP_TIMEOUT:	p->status = -ETIMEDOUT; break;
	case UP_GARBAGE:
		p->status = 0;
		p->len = 7;
		memcpy(p->buf, "garbage", 7);
		break;
	default:
		p->status = 0;
		p->len = build_reply(p->buf, sizeof(p->buf), name, type, r);
		break;
	}
	return 0;
}

static int
fake_search(void *arg, const char *const **ret_domains, int *ret_ndots)
{
	*ret_domains = W->search;
	*ret_ndots = W->ndots;
	return 0;
}

/* --- NSS modules ---------------------------------------------------------- */

static int
fake_module_id(void *arg, const char *name)
{
	int i;

	for (i = 0; i < W->nmods; i++)
		if (strcmp(W->modname[i], name) == 0)
			return i;
	if (W->nmods == MAXMODS)
		return -E2BIG;
	snprintf(W->modname[W->nmods], NSW_NAME_MAX, "%s", name);
	return W->nmods++;
}

static bool
fake_module_missing(void *arg, int id)
{
	return W->modmissing[id];
}

static int
fake_module_call(void *arg, int id, int op, uint8_t family, const void *key,
    size_t key_len, nsspool_fn *fn, void *fn_arg)
{
	const struct mod_rule	*r;
	struct pending		*p;
	const char		*name = key;
	char			 data[512], *tok, *save;

	if (op != NSSPOOL_NAME)
		name = "(address)";
	count("m %s %s", W->modname[id], name);
	for (r = W->mods; r; r = r->next)
		if (r->mod == id && (strcmp(r->spelling, "*") == 0 ||
		    strcmp(r->spelling, name) == 0))
			break;
	p = pending_new(r ? r->delay : 0);
	p->mcb = fn;
	p->arg = fn_arg;
	p->mr.ttl = r ? r->ttl : -1;
	p->mr.herrno = r ? r->herrno : HOST_NOT_FOUND;
	p->mr.err = r ? r->err : 0;
	if (r == NULL || r->what == MOD_NOTFOUND || r->what == MOD_NODATA) {
		p->mr.status = NSW_NOTFOUND;
		if (r && r->what == MOD_NODATA)
			p->mr.herrno = NO_DATA;
		else if (r == NULL || r->herrno == 0)
			p->mr.herrno = HOST_NOT_FOUND;
	} else if (r->what == MOD_TRYAGAIN)
		p->mr.status = NSW_TRYAGAIN;
	else if (r->what == MOD_UNAVAIL)
		p->mr.status = NSW_UNAVAIL;
	else {
		struct proto_answer_wr	aw;
		struct proto_wr		w;
		uint8_t			a[16];
		unsigned		n = 0;

		proto_wr_init(&w, p->buf, sizeof(p->buf));
		proto_answer_begin(&aw, &w, 0, PROTO_SRC_NSS, name, strlen(name));
		snprintf(data, sizeof(data), "%s", r->data);
		for (tok = strtok_r(data, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save)) {
			if (inet_pton(AF_INET, tok, a) == 1 && family != PROTO_AF_INET6) {
				proto_answer_addr(&aw, PROTO_AF_INET, a);
				n++;
			} else if (inet_pton(AF_INET6, tok, a) == 1 &&
			    family != PROTO_AF_INET) {
				proto_answer_addr(&aw, PROTO_AF_INET6, a);
				n++;
			}
		}
		proto_answer_end(&aw);
		proto_put_str(&w, W->modname[id], strlen(W->modname[id]));
		if (n == 0) {
			p->mr.status = NSW_NOTFOUND;
			p->mr.herrno = NO_DATA;
		} else {
			p->mr.status = NSW_SUCCESS;
			p->len = w.off;
		}
	}
	return 0;
}

/* --- the front end -------------------------------------------------------- */

/* The answer, as the socket front end writes it: the reply frame is what is checked. */
static void
record(uint32_t id, const struct answer *a)
{
	static uint8_t	 buf[PROTO_FRAME_MAX];
	struct client	*c;
	size_t		 len;

	if (id >= MAXCLIENTS)
		die("reply to unknown client %u", id);
	c = &W->client[id];
	len = frame_answer(buf, sizeof(buf), c->type, id, a);
	c->replies++;
	free(c->frame);
	c->frame = malloc(len ? len : 1);
	memcpy(c->frame, buf, len);
	c->len = len;
}

static uint32_t
ctx_id(void *ctx)
{
	return (uint32_t)((uintptr_t)ctx - 1);
}

static void *
fake_hold(void *ctx)
{
	struct fake_hold *h = malloc(sizeof(*h));

	h->id = ctx_id(ctx);
	return h;
}

static void
fake_reply(void *ctx, const struct answer *a)
{
	record(ctx_id(ctx), a);
}

static void
fake_hold_reply(void *hold, const struct answer *a)
{
	struct fake_hold *h = hold;

	record(h->id, a);
	free(h);
}

static void
fake_hold_release(void *hold)
{
	struct fake_hold *h = hold;

	W->client[h->id].released = true;
	free(h);
}

/* Who asked, as front ends say: the client's id is its pid. */
static struct lookup_client who[MAXCLIENTS];

static void
observe(void *arg, const struct lookup_done *d)
{
	struct client *c;

	if (d->client == NULL || d->client->pid < 0 || d->client->pid >= MAXCLIENTS)
		die("a lookup observed without its client");
	c = &W->client[d->client->pid];
	c->observed++;
	c->cache = d->cache;
	c->from = d->source;
}

static const struct lookup_frontend fake_front = {
	fake_hold, fake_reply, fake_hold_reply, fake_hold_release,
};

static const struct hosts *
fake_hosts(void *arg)
{
	return W->hosts;
}

static int
fake_hosts_error(void *arg)
{
	return 0;
}

/* --- the script ----------------------------------------------------------- */

/* The value of key=VALUE among tok[from..n), or NULL. */
static const char *
opt(char **tok, int n, int from, const char *key)
{
	size_t kl = strlen(key);
	int i;

	for (i = from; i < n; i++)
		if (strncmp(tok[i], key, kl) == 0 && tok[i][kl] == '=')
			return tok[i] + kl + 1;
	return NULL;
}

static long
num(const char *s)
{
	char *end;
	long v;

	if (s == NULL)
		die("a number is missing");
	v = strtol(s, &end, 10);
	if (*end)
		die("'%s' is not a number", s);
	return v;
}

static long
optnum(char **tok, int n, int from, const char *key, long dflt)
{
	const char *v = opt(tok, n, from, key);

	return v ? num(v) : dflt;
}

/*
 * Every token of tok[from..n) is key=VALUE with a key of the comma-separated
 * list keys, each at most once; words (no '=') are allowed only with words.
 */
static void
only_keys(char **tok, int n, int from, const char *keys, bool words)
{
	int	i, j;

	for (i = from; i < n; i++) {
		const char	*eq = strchr(tok[i], '=');
		size_t		 kl;
		const char	*k;

		if (eq == NULL) {
			if (!words)
				die("'%s': a word where key=VALUE was due (keys: %s)", tok[i],
				    *keys ? keys : "none");
			continue;
		}
		kl = (size_t)(eq - tok[i]);
		for (k = keys; *k; k += strcspn(k, ",") + (k[strcspn(k, ",")] == ',')) {
			if (strcspn(k, ",") == kl && strncmp(k, tok[i], kl) == 0)
				break;
		}
		if (kl == 0 || *k == '\0')
			die("unknown key '%.*s' for %s (keys: %s)", (int)kl, tok[i], tok[0],
			    *keys ? keys : "none");
		for (j = from; j < i; j++)
			if (strncmp(tok[j], tok[i], kl + 1) == 0)
				die("key '%.*s' given twice", (int)kl, tok[i]);
	}
}

/* yes or no; anything else stops the scenario. */
static bool
yesno(const char *key, const char *v)
{
	if (strcmp(v, "yes") == 0)
		return true;
	if (strcmp(v, "no") != 0)
		die("%s=%s: yes or no", key, v);
	return false;
}

static uint16_t
rrtype(const char *s)
{
	int t = dnsmsg_type_from_str(s);

	if (t <= 0)
		die("unknown record type %s", s);
	return (uint16_t)t;
}

static uint8_t
family_of(char **tok, int n, int from)
{
	const char *f = opt(tok, n, from, "family");

	if (f == NULL || strcmp(f, "unspec") == 0)
		return PROTO_AF_UNSPEC;
	if (strcmp(f, "inet") == 0)
		return PROTO_AF_INET;
	if (strcmp(f, "inet6") == 0)
		return PROTO_AF_INET6;
	die("unknown family %s", f);
}

static void
set_line(const char *text)
{
	struct nsw_line l;

	if (nsw_parse_services(text, &l) < 0)
		die("bad hosts line '%s'", text);
	lookup_set_line(W->lk, &l);
}

static void
set_hosts(void)
{
	struct hosts	*h;
	size_t		 len = strlen(W->hosts_text);
	char		*copy = malloc(len + 1);

	memcpy(copy, W->hosts_text, len + 1);
	if (hosts_parse(copy, len, HOSTS_MULTI, &h) < 0) {
#ifdef NOMEM
		if (nomem_failed())	/* the daemon keeps the index it had */
			return;
#endif
		die("the hosts text does not parse");
	}
	hosts_free(W->hosts);
	W->hosts = h;
}

static void
start(void)
{
	struct lookup_env env = {
		.hosts = { fake_hosts, fake_hosts_error, NULL },
		.upstream = { fake_query, fake_search, NULL },
		.modules = { fake_module_call, fake_module_missing, fake_module_id,
		    NULL },
		.now = fakeclock_now,
	};

	if (W->started)
		return;
	W->lk = lookup_new(&env, &W->lim, W->prefetch);
	if (W->lk == NULL)
		GIVE_UP_IF_NOMEM();
	assert_non_null(W->lk);
	lookup_set_observer(W->lk, observe, NULL);
	lookup_set_nss_ttls(W->lk, W->nss_ttl, W->nss_negative_ttl);
	lookup_set_max_fetches(W->lk, W->max_fetches);
	set_line(W->line);
	W->started = true;
}

static const char *const cache_names[LOOKUP_CACHE_COUNT] = {
	"hit", "miss", "stale", "coalesced", "prefetch",
};
static const char *const from_names[] = { "none", "files", "dns", "module" };

static const char *const status_names[] = {
	[PROTO_OK] = "ok", [PROTO_NOTFOUND] = "notfound", [PROTO_NODATA] = "nodata",
	[PROTO_TRYAGAIN] = "tryagain", [PROTO_UNAVAIL] = "unavail",
	[PROTO_BUSY] = "busy", [PROTO_TOOBIG] = "toobig",
	[PROTO_INTERNAL] = "internal", [PROTO_NOTFOUND_TRYAGAIN] = "notfound_tryagain",
};

static const char *
status_name(unsigned s)
{
	if (s < sizeof(status_names) / sizeof(status_names[0]) && status_names[s])
		return status_names[s];
	return "?";
}

static const char *const source_names[] = {
	[PROTO_SRC_HOSTS] = "hosts", [PROTO_SRC_DNS] = "dns",
	[PROTO_SRC_CACHE] = "cache", [PROTO_SRC_STALE] = "stale",
	[PROTO_SRC_NSS] = "nss",
};

/* A wire answer's fields, and which sections its records fill. */
static void
expect_wire(const struct client *c, long id, const struct proto_hdr *hdr, char **tok,
    int n)
{
	struct proto_wire	 b;
	const char		*v;
	int			 a;

	if (hdr->status != PROTO_OK && hdr->status != PROTO_NOTFOUND &&
	    hdr->status != PROTO_NODATA) {
		only_keys(tok, n, 3, "cache,from", false);
		return;
	}
	only_keys(tok, n, 3, "cache,from,cap,age,source,answers,authority", false);
	if (proto_wire_decode(c->frame + PROTO_HDR_LEN, c->len - PROTO_HDR_LEN, &b) < 0)
		die("client %ld: a wire body that does not decode", id);
	if ((a = dnswire_rrs_answers(b.rrs, b.rrs_len)) < 0)
		die("client %ld: kept records that do not read", id);
	if ((v = opt(tok, n, 3, "cap")) != NULL && b.cap != (uint32_t)num(v))
		die("client %ld: cap %u, not %s", id, b.cap, v);
	if ((v = opt(tok, n, 3, "age")) != NULL && b.age != (uint32_t)num(v))
		die("client %ld: age %u, not %s", id, b.age, v);
	if ((v = opt(tok, n, 3, "source")) != NULL &&
	    strcmp(source_names[b.source], v) != 0)
		die("client %ld: source %u, not %s", id, b.source, v);
	if ((v = opt(tok, n, 3, "answers")) != NULL &&
	    (a > 0) != yesno("answers", v))
		die("client %ld: %d bytes of answers, not %s", id, a, v);
	if ((v = opt(tok, n, 3, "authority")) != NULL &&
	    ((size_t)a < b.rrs_len) != yesno("authority", v))
		die("client %ld: %zu bytes of authority, not %s", id,
		    b.rrs_len - (size_t)a, v);
}

static void
expect(char **tok, int n)
{
	struct proto_answer	 ans;
	struct proto_hdr	 hdr;
	struct client		*c;
	const char		*want, *v;
	char			 got[1024], a[INET6_ADDRSTRLEN];
	const uint8_t		*addr;
	size_t			 cur = 0, off = 0;
	uint8_t			 fam;
	long			 id = num(tok[1]);

	if (id < 0 || id >= MAXCLIENTS)
		die("client id %ld out of range", id);
	c = &W->client[id];
	want = tok[2];
	if (strcmp(want, "pending") == 0) {
		only_keys(tok, n, 3, "", false);
		if (c->replies != 0)
			die("client %ld: a reply (%u) where none was due", id,
			    c->len >= PROTO_HDR_LEN ? c->frame[6] << 8 | c->frame[7] : 0);
		return;
	}
	if (c->replies != 1)
		die("client %ld: %d replies, not one", id, c->replies);
	if (c->observed != 1)
		die("client %ld: observed %d times, not once", id, c->observed);
	if ((v = opt(tok, n, 3, "cache")) != NULL &&
	    strcmp(v, cache_names[c->cache]) != 0)
		die("client %ld: cache %s, not %s", id, cache_names[c->cache], v);
	if ((v = opt(tok, n, 3, "from")) != NULL && strcmp(v, from_names[c->from]) != 0)
		die("client %ld: answered from %s, not %s", id, from_names[c->from], v);
	assert_int_equal(proto_hdr_decode(c->frame, c->len, &hdr), 0);
	if (strcmp(status_name(hdr.status), want) != 0)
		die("client %ld: status %s, not %s", id, status_name(hdr.status), want);
	if (c->wire) {
		expect_wire(c, id, &hdr, tok, n);
		return;
	}
	if (hdr.status != PROTO_OK) {
		only_keys(tok, n, 3, "cache,from,herrno", false);
		if ((v = opt(tok, n, 3, "herrno")) != NULL) {
			struct rd r;
			int he;

			/* PROTO_UNAVAIL's body: u8 h_errno + 1, u32 errno, str. */
			rd_init(&r, c->frame + PROTO_HDR_LEN, c->len - PROTO_HDR_LEN);
			he = (int)rd_u8(&r) - 1;
			if (he != num(v))
				die("client %ld: h_errno %d, not %s", id, he, v);
		}
		return;
	}
	if (hdr.type == (PROTO_QUERY_RR | PROTO_REPLY)) {
		struct proto_records	recs;
		struct proto_record	rec;

		only_keys(tok, n, 3, "cache,from,ttl,source", false);
		if (proto_records_decode(c->frame + PROTO_HDR_LEN,
		    c->len - PROTO_HDR_LEN, &recs) < 0)
			die("client %ld: records that do not decode", id);
		if ((v = opt(tok, n, 3, "ttl")) != NULL && recs.ttl != (uint32_t)num(v))
			die("client %ld: ttl %u, not %s", id, recs.ttl, v);
		if ((v = opt(tok, n, 3, "source")) != NULL &&
		    strcmp(source_names[recs.source], v) != 0)
			die("client %ld: source %u, not %s", id, recs.source, v);
		/* Every record's own TTL counts down with the answer's. */
		while (proto_records_next(&recs, &cur, &rec) > 0)
			if (rec.ttl != recs.ttl)
				die("client %ld: a record's ttl %u, the answer's %u", id,
				    rec.ttl, recs.ttl);
		return;
	}
	only_keys(tok, n, 3, "cache,from,data,ttl,source,canon,aliases", false);
	if (proto_answer_decode(c->frame + PROTO_HDR_LEN, c->len - PROTO_HDR_LEN,
	    &ans) < 0)
		die("client %ld: an answer that does not decode", id);
	got[0] = '\0';
	while (proto_answer_next_addr(&ans, &cur, &fam, &addr) > 0) {
		inet_ntop(fam == PROTO_AF_INET ? AF_INET : AF_INET6, addr, a, sizeof(a));
		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%s",
		    off ? "," : "", a);
	}
	if ((v = opt(tok, n, 3, "data")) != NULL && strcmp(v, got) != 0)
		die("client %ld: addresses %s, not %s", id, got, v);
	if ((v = opt(tok, n, 3, "ttl")) != NULL && ans.ttl != (uint32_t)num(v))
		die("client %ld: ttl %u, not %s", id, ans.ttl, v);
	if ((v = opt(tok, n, 3, "source")) != NULL &&
	    (ans.source >= sizeof(source_names) / sizeof(source_names[0]) ||
	    strcmp(source_names[ans.source], v) != 0))
		die("client %ld: source %u, not %s", id, ans.source, v);
	if ((v = opt(tok, n, 3, "canon")) != NULL &&
	    (strlen(v) != ans.canon_len || memcmp(v, ans.canon, ans.canon_len) != 0))
		die("client %ld: canonical name %.*s, not %s", id, (int)ans.canon_len,
		    ans.canon, v);
	if ((v = opt(tok, n, 3, "aliases")) != NULL) {
		const char	*al;
		size_t		 al_len;

		got[0] = '\0';
		cur = off = 0;
		while (proto_answer_next_alias(&ans, &cur, &al, &al_len) > 0 &&
		    off < sizeof(got))
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%.*s",
			    off ? "," : "", (int)al_len, al);
		if (strcmp(v, got) != 0)
			die("client %ld: aliases %s, not %s", id, got, v);
	}
}

static void
ask(long id, struct lookup_req *req, uint8_t type)
{
	if (id < 0 || id >= MAXCLIENTS)
		die("client id %ld out of range", id);
	free(W->client[id].frame);
	memset(&W->client[id], 0, sizeof(W->client[id]));
	memset(req, 0, sizeof(*req));
	req->fe = &fake_front;
	req->ctx = (void *)(uintptr_t)(id + 1);	/* never NULL */
	W->client[id].type = type;
	who[id].fe = LOOKUP_FE_SOCKET;
	who[id].pid = (int32_t)id;
	req->client = &who[id];
}

static uint64_t
stat_of(const char *key)
{
	struct lookup_stats s;
	struct cache_stats cs;

	lookup_get_stats(W->lk, &s);
	cache_get_stats(lookup_cache(W->lk), &cs);
#define S(k) if (strcmp(key, #k) == 0) return s.k
	S(hosts_answers); S(dns_answers); S(cache_answers); S(nss_answers);
	S(stale_served); S(not_found); S(errors); S(republished); S(busy);
	S(coalesced); S(prefetches); S(failures_remembered);
	S(upstream_bad_replies); S(module_calls); S(pair_stashed); S(pair_stash_hits);
#undef S
	if (strcmp(key, "cache_hits") == 0)
		return cs.hits;
	if (strcmp(key, "cache_misses") == 0)
		return cs.misses;
	if (strcmp(key, "cache_entries") == 0)
		return cache_count(lookup_cache(W->lk));
	if (strcmp(key, "in_flight") == 0)
		return lookup_in_flight(W->lk);
	die("unknown statistic %s", key);
}

static void
nscd_refresh(void *arg, int32_t type, const void *key, size_t len)
{
	if (type == NSCD_GETAI || type == NSCD_GETHOSTBYNAME ||
	    type == NSCD_GETHOSTBYNAMEv6)
		lookup_refresh_name(W->lk, type == NSCD_GETAI ? PROTO_AF_UNSPEC :
		    type == NSCD_GETHOSTBYNAME ? PROTO_AF_INET : PROTO_AF_INET6,
		    key, len - 1);
	else
		lookup_refresh_addr(W->lk, len == 4 ? PROTO_AF_INET : PROTO_AF_INET6,
		    key);
}

static void
command(char **tok, int n, char *rest)
{
	const char		*c = tok[0];
	struct lookup_req	 req;

#ifdef NOMEM
	if (nomem_relaxed(tok, n))
		return;
#endif
	if (strcmp(c, "config") == 0) {
		if (W->started)
			die("config comes before the first lookup");
		only_keys(tok, n, 1, "min_ttl,max_ttl,negative_max_ttl,failure_ttl,"
		    "serve_stale,cache_size,nss_ttl,nss_negative_ttl,max_fetches,prefetch",
		    false);
		W->lim.min_ttl = (uint32_t)optnum(tok, n, 1, "min_ttl", W->lim.min_ttl);
		W->lim.max_ttl = (uint32_t)optnum(tok, n, 1, "max_ttl", W->lim.max_ttl);
		W->lim.negative_max_ttl = (uint32_t)optnum(tok, n, 1,
		    "negative_max_ttl", W->lim.negative_max_ttl);
		W->lim.failure_ttl = (uint32_t)optnum(tok, n, 1, "failure_ttl",
		    W->lim.failure_ttl);
		W->lim.serve_stale = (uint32_t)optnum(tok, n, 1, "serve_stale",
		    W->lim.serve_stale);
		W->lim.max_entries = (size_t)optnum(tok, n, 1, "cache_size",
		    (long)W->lim.max_entries);
		W->nss_ttl = (uint32_t)optnum(tok, n, 1, "nss_ttl", W->nss_ttl);
		W->nss_negative_ttl = (uint32_t)optnum(tok, n, 1, "nss_negative_ttl",
		    W->nss_negative_ttl);
		W->max_fetches = (unsigned)optnum(tok, n, 1, "max_fetches",
		    W->max_fetches);
		if (opt(tok, n, 1, "prefetch"))
			W->prefetch = yesno("prefetch", opt(tok, n, 1, "prefetch"));
	} else if (strcmp(c, "line") == 0) {
		snprintf(W->line, sizeof(W->line), "%s", rest);
		if (W->started)
			set_line(W->line);
	} else if (strcmp(c, "hosts") == 0) {
		size_t old = strlen(W->hosts_text), add = strlen(rest);

		W->hosts_text = realloc(W->hosts_text, old + add + 2);
		memcpy(W->hosts_text + old, rest, add);
		memcpy(W->hosts_text + old + add, "\n", 2);
		set_hosts();
	} else if (strcmp(c, "search") == 0) {
		char	*p = W->search_buf;
		int	 i, k = 0;

		only_keys(tok, n, 1, "ndots", true);
		W->ndots = (int)optnum(tok, n, 1, "ndots", 1);
		for (i = 1; i < n && k < RESOLVER_SEARCH_MAX; i++) {
			if (strchr(tok[i], '='))
				continue;
			strcpy(p, tok[i]);
			W->search[k++] = p;
			p += strlen(p) + 1;
		}
		W->search[k] = NULL;
	} else if (strcmp(c, "upstream") == 0) {
		struct up_rule	*r = calloc(1, sizeof(*r));
		const char	*w = n > 3 ? tok[3] : "";
		const char	*soa = opt(tok, n, 4, "soa");

		if (n < 4)
			die("upstream NAME TYPE WHAT");
		only_keys(tok, n, 4, "ttl,data,cname,cname_ttl,soa,delay", false);
		snprintf(r->name, sizeof(r->name), "%s", tok[1]);
		r->type = rrtype(tok[2]);
		r->what = strcmp(w, "answer") == 0 ? UP_ANSWER :
		    strcmp(w, "nxdomain") == 0 ? UP_NXDOMAIN :
		    strcmp(w, "nodata") == 0 ? UP_NODATA :
		    strcmp(w, "servfail") == 0 ? UP_SERVFAIL :
		    strcmp(w, "refused") == 0 ? UP_REFUSED :
		    strcmp(w, "timeout") == 0 ? UP_TIMEOUT :
		    strcmp(w, "garbage") == 0 ? UP_GARBAGE : -1;
		if (r->what < 0)
			die("upstream: unknown answer %s", w);
		r->ttl = (uint32_t)optnum(tok, n, 4, "ttl", 300);
		snprintf(r->data, sizeof(r->data), "%s",
		    opt(tok, n, 4, "data") ? opt(tok, n, 4, "data") : "");
		snprintf(r->cname, sizeof(r->cname), "%s",
		    opt(tok, n, 4, "cname") ? opt(tok, n, 4, "cname") : "");
		r->cname_ttl = (uint32_t)optnum(tok, n, 4, "cname_ttl", 0);
		if (soa) {
			r->soa = true;
			if (sscanf(soa, "%u,%u", &r->soa_ttl, &r->soa_min) != 2)
				die("soa=TTL,MINIMUM");
		}
		r->delay = optnum(tok, n, 4, "delay", 0);
		r->next = W->up;	/* the newest rule wins */
		W->up = r;
	} else if (strcmp(c, "module") == 0) {
		struct mod_rule	*r;
		const char	*w = n > 3 ? tok[3] : "";
		int		 mod;

		if (n < 3)
			die("module NAME SPELLING WHAT | module NAME missing");
		mod = fake_module_id(NULL, tok[1]);
		if (strcmp(tok[2], "missing") == 0) {
			only_keys(tok, n, 3, "", false);
			W->modmissing[mod] = true;
			return;
		}
		if (n < 4)
			die("module NAME SPELLING WHAT");
		only_keys(tok, n, 4, "data,ttl,herrno,errno,delay", false);
		r = calloc(1, sizeof(*r));
		r->mod = mod;
		snprintf(r->spelling, sizeof(r->spelling), "%s", tok[2]);
		r->what = strcmp(w, "found") == 0 ? MOD_FOUND :
		    strcmp(w, "notfound") == 0 ? MOD_NOTFOUND :
		    strcmp(w, "nodata") == 0 ? MOD_NODATA :
		    strcmp(w, "tryagain") == 0 ? MOD_TRYAGAIN :
		    strcmp(w, "unavail") == 0 ? MOD_UNAVAIL : -1;
		if (r->what < 0)
			die("module: unknown answer %s", w);
		snprintf(r->data, sizeof(r->data), "%s",
		    opt(tok, n, 4, "data") ? opt(tok, n, 4, "data") : "");
		r->ttl = (int32_t)optnum(tok, n, 4, "ttl", -1);
		r->herrno = (int)optnum(tok, n, 4, "herrno", 0);
		r->err = (int)optnum(tok, n, 4, "errno", 0);
		r->delay = optnum(tok, n, 4, "delay", 0);
		r->next = W->mods;
		W->mods = r;
	} else if (strcmp(c, "nscd") == 0) {
		char path[128];

		only_keys(tok, n, 1, "reloads", false);
		start();
		snprintf(path, sizeof(path), "%s/nscd-hosts", W->dir);
		if ((W->nmap = nscdmap_open(path, 211, 4u << 20)) == NULL)
			GIVE_UP_IF_NOMEM();
		if (W->nmap == NULL)
			die("nscdmap_open: %s", strerror(errno));
		nscdmap_set_refresh(W->nmap, nscd_refresh, NULL,
		    (unsigned)optnum(tok, n, 1, "reloads", 5));
		lookup_set_nscdmap(W->lk, W->nmap);
	} else if (strcmp(c, "shm") == 0) {
		char path[128];

		only_keys(tok, n, 1, "", false);
		start();
		snprintf(path, sizeof(path), "%s/cache", W->dir);
		if ((W->shm = shm_new(path, 1024, 1u << 20)) == NULL)
			GIVE_UP_IF_NOMEM();
		if (W->shm == NULL)
			die("shm_new: %s", strerror(errno));
		lookup_set_shm(W->lk, W->shm);
	} else if (strcmp(c, "ask") == 0) {
		struct proto_lookup_name q;
		const char *v;

		if (n < 3)
			die("ask ID NAME");
		only_keys(tok, n, 3, "family,absolute", false);
		start();
		memset(&q, 0, sizeof(q));
		ask(num(tok[1]), &req, PROTO_LOOKUP_NAME);
		q.family = family_of(tok, n, 3);
		q.name_len = strlen(tok[2]);
		memcpy(q.name, tok[2], q.name_len + 1);
		if ((v = opt(tok, n, 3, "absolute")) != NULL && yesno("absolute", v))
			req.flags |= LOOKUP_ABSOLUTE;
		lookup_name(W->lk, &req, &q);
	} else if (strcmp(c, "ask_addr") == 0) {
		struct proto_lookup_addr q;

		if (n < 3)
			die("ask_addr ID ADDRESS");
		only_keys(tok, n, 3, "", false);
		start();
		memset(&q, 0, sizeof(q));
		ask(num(tok[1]), &req, PROTO_LOOKUP_ADDR);
		if (inet_pton(AF_INET, tok[2], q.addr) == 1)
			q.family = PROTO_AF_INET;
		else if (inet_pton(AF_INET6, tok[2], q.addr) == 1)
			q.family = PROTO_AF_INET6;
		else
			die("bad address %s", tok[2]);
		lookup_addr(W->lk, &req, &q);
	} else if (strcmp(c, "ask_rr") == 0) {
		struct proto_query_rr q;
		const char *w = opt(tok, n, 4, "wire");

		if (n < 4)
			die("ask_rr ID NAME TYPE");
		only_keys(tok, n, 4, "wire", false);
		start();
		memset(&q, 0, sizeof(q));
		ask(num(tok[1]), &req, PROTO_QUERY_RR);
		if (w != NULL && yesno("wire", w)) {
			req.flags |= LOOKUP_WIRE;
			W->client[num(tok[1])].wire = true;
		}
		q.type = rrtype(tok[3]);
		q.name_len = strlen(tok[2]);
		memcpy(q.name, tok[2], q.name_len + 1);
		lookup_rr(W->lk, &req, &q);
	} else if (strcmp(c, "refresh") == 0) {
		if (n < 2)
			die("refresh NAME");
		only_keys(tok, n, 2, "family", false);
		start();
		lookup_refresh_name(W->lk, family_of(tok, n, 2), tok[1], strlen(tok[1]));
	} else if (strcmp(c, "nscd_restart") == 0) {
		const char	*v = opt(tok, n, 1, "stopped");
		char		 path[128];
		int		 r;

		only_keys(tok, n, 1, "stopped", false);
		if (W->nmap == NULL)
			die("nscd_restart without nscd");
		if (v && strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			die("stopped=%s: yes or no", v);
		lookup_set_nscdmap(W->lk, NULL);
		nscdmap_close(W->nmap, !(v && strcmp(v, "yes") == 0));
		snprintf(path, sizeof(path), "%s/nscd-hosts", W->dir);
		if ((W->nmap = nscdmap_open(path, 211, 4u << 20)) == NULL)
			GIVE_UP_IF_NOMEM();
		if (W->nmap == NULL)
			die("nscdmap_open: %s", strerror(errno));
		/* Out of memory, the map is emptied: a part that cannot be made. */
		if ((r = nscdmap_take_over(W->nmap, fakeclock_ms)) < 0)
			GIVE_UP_IF_NOMEM();
		if (r < 0)
			die("nscdmap_take_over: %s", strerror(-r));
		nscdmap_set_refresh(W->nmap, nscd_refresh, NULL, 5);
		lookup_set_nscdmap(W->lk, W->nmap);
	} else if (strcmp(c, "tick") == 0) {
		only_keys(tok, n, 1, "", false);
		if (W->nmap == NULL)
			die("tick without nscd");
		nscdmap_tick(W->nmap, fakeclock_ms);
	} else if (strcmp(c, "flush") == 0) {
		only_keys(tok, n, 1, "", false);
		start();
		cache_flush(lookup_cache(W->lk));
	} else if (strcmp(c, "time") == 0) {
		double s;

		if (n != 2 || tok[1][0] != '+' || sscanf(tok[1] + 1, "%lf", &s) != 1)
			die("time +SECONDS");
		fakeclock_advance((int64_t)(s * 1000 + 0.5));
	} else if (strcmp(c, "expect") == 0) {
		if (n < 3)
			die("expect ID STATUS ...");
		expect(tok, n);
	} else if (strcmp(c, "queries") == 0) {
		char key[PROTO_NAME_MAX + 32], lname[PROTO_NAME_MAX + 2];
		size_t i;

		if (n != 4)
			die("queries NAME TYPE N");
		for (i = 0; tok[1][i] && i + 1 < sizeof(lname); i++)
			lname[i] = (char)tolower((unsigned char)tok[1][i]);
		lname[i] = '\0';
		snprintf(key, sizeof(key), "q %s %u", lname, rrtype(tok[2]));
		if (counted(key) != (unsigned)num(tok[3]))
			die("%u queries for %s %s, not %s", counted(key), tok[1], tok[2],
			    tok[3]);
	} else if (strcmp(c, "writes") == 0) {
		struct cache_stats cs;

		if (n != 2)
			die("writes N");
		start();
		cache_get_stats(lookup_cache(W->lk), &cs);
		if (cs.insertions != (uint64_t)num(tok[1]))
			die("%llu records written to the cache, not %s",
			    (unsigned long long)cs.insertions, tok[1]);
	} else if (strcmp(c, "calls") == 0) {
		char key[NSW_NAME_MAX + PROTO_NAME_MAX + 8];

		if (n != 4)
			die("calls MODULE SPELLING N");
		snprintf(key, sizeof(key), "m %s %s", tok[1], tok[2]);
		if (counted(key) != (unsigned)num(tok[3]))
			die("%u calls of %s for %s, not %s", counted(key), tok[1], tok[2],
			    tok[3]);
	} else if (strcmp(c, "stat") == 0) {
		start();
		if (n != 3)
			die("stat KEY N");
		if (stat_of(tok[1]) != (uint64_t)num(tok[2]))
			die("%s is %llu, not %s", tok[1],
			    (unsigned long long)stat_of(tok[1]), tok[2]);
	} else if (strcmp(c, "nscdstat") == 0) {
		struct nscdmap_stats s;
		uint64_t v;

		if (W->nmap == NULL || n != 3)
			die("nscdstat KEY N, after nscd");
		nscdmap_get_stats(W->nmap, &s);
		v = strcmp(tok[1], "published") == 0 ? s.published :
		    strcmp(tok[1], "refreshes") == 0 ? s.refreshes :
		    strcmp(tok[1], "swept") == 0 ? s.swept :
		    strcmp(tok[1], "entries") == 0 ? s.entries :
		    strcmp(tok[1], "unchanged") == 0 ? s.unchanged :
		    strcmp(tok[1], "taken_over") == 0 ? s.taken_over : UINT64_MAX;
		if (v == UINT64_MAX)
			die("unknown nscd statistic %s", tok[1]);
		if (v != (uint64_t)num(tok[2]))
			die("nscd %s is %llu, not %s", tok[1], (unsigned long long)v,
			    tok[2]);
	} else if (strcmp(c, "shmstat") == 0) {
		struct shm_stats s;

		if (W->shm == NULL || n != 3 || strcmp(tok[1], "published") != 0)
			die("shmstat published N, after shm");
		shm_get_stats(W->shm, &s);
		if (s.published != (uint64_t)num(tok[2]))
			die("shm published is %llu, not %s",
			    (unsigned long long)s.published, tok[2]);
	} else
		die("unknown command %s", c);
}

/* --- running a scenario --------------------------------------------------- */

struct scenario {
	const char	*file;
	int		 first;		/* the line after "scenario NAME" */
	char		 name[128];
};

static void
world_new(const char *file)
{
	W = calloc(1, sizeof(*W));
	W->file = file;
	fakeclock_at(0);
	/* namecached.conf's defaults. */
	W->lim.max_entries = 100000;
	W->lim.max_bytes = 0;
	W->lim.min_ttl = 0;
	W->lim.max_ttl = 86400;
	W->lim.negative_max_ttl = 3600;
	W->lim.failure_ttl = 5;
	W->lim.serve_stale = 86400;
	W->prefetch = true;
	W->nss_ttl = 600;
	W->nss_negative_ttl = 60;
	snprintf(W->line, sizeof(W->line), "files dns");
	W->hosts_text = strdup("");
	W->ndots = 1;
	snprintf(W->dir, sizeof(W->dir), "/tmp/test-engine.XXXXXX");
	assert_non_null(mkdtemp(W->dir));
	set_hosts();
}

static void
world_free(void)
{
	struct up_rule	*u;
	struct mod_rule	*m;
	struct counter	*c;
	struct pending	*p;
	char		 path[128];
	int		 i;

	lookup_free(W->lk);
	/* Whatever was still waiting upstream is cancelled, as at shutdown. */
	while ((p = W->pending) != NULL) {
		W->pending = p->next;
		free(p);
	}
	nscdmap_close(W->nmap, false);
	shm_free(W->shm, SHM_LEAVE_GONE);
	snprintf(path, sizeof(path), "%s/nscd-hosts", W->dir);
	unlink(path);
	rmdir(W->dir);
	hosts_free(W->hosts);
	free(W->hosts_text);
	while ((u = W->up) != NULL) {
		W->up = u->next;
		free(u);
	}
	while ((m = W->mods) != NULL) {
		W->mods = m->next;
		free(m);
	}
	while ((c = W->counters) != NULL) {
		W->counters = c->next;
		free(c);
	}
	for (i = 0; i < MAXCLIENTS; i++)
		free(W->client[i].frame);
	free(W);
	W = NULL;
}

/* Plays a scenario's lines from first on, until the next scenario. */
static void
play(FILE *f, int first)
{
	char	buf[2048], copy[2048], *tok[MAXTOK], *p, *save;
	int	lineno = 0, n;

	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		if (lineno < first)
			continue;
		W->lineno = lineno;
		if (strchr(buf, '\n') == NULL && !feof(f))
			die("a line longer than %zu bytes", sizeof(buf) - 2);
		if ((p = strchr(buf, '#')) != NULL)
			*p = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		memcpy(copy, buf, sizeof(buf));
		n = 0;
		for (p = strtok_r(buf, " \t", &save); p && n < MAXTOK;
		    p = strtok_r(NULL, " \t", &save))
			tok[n++] = p;
		if (p != NULL)
			die("more than %d words", MAXTOK);
		if (n == 0)
			continue;
		if (strcmp(tok[0], "scenario") == 0)
			break;
		/* "rest": the line after its first word, for line and hosts. */
		p = copy + strspn(copy, " \t");
		p += strcspn(p, " \t");
		p += strspn(p, " \t");
		command(tok, n, p);
		deliver();
	}
}

#ifdef NOMEM
#include "test-engine-nomem.c"
#else
static void
run_scenario(void **state)
{
	const struct scenario	*sc = *state;
	FILE			*f = fopen(sc->file, "re");

	assert_non_null(f);
	world_new(sc->file);
	play(f, sc->first);
	fclose(f);
	world_free();
}
#endif

int
main(int argc, char **argv)
{
	struct CMUnitTest	*tests = NULL;
	struct scenario		*sc = NULL;
	size_t			 n = 0, cap = 0;
	char			 buf[2048], name[128];
	int			 i, lineno;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "re");

		if (f == NULL) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		lineno = 0;
		while (fgets(buf, sizeof(buf), f)) {
			lineno++;
			if (sscanf(buf, "scenario %127[^\n]", name) != 1) {
				/* Before the first scenario: comments only, or
				 * its commands would run nowhere. */
				if (n == 0 || sc[n - 1].file != argv[i]) {
					buf[strcspn(buf, "#")] = '\0';
					if (buf[strspn(buf, " \t\r\n")] != '\0') {
						fprintf(stderr, "%s:%d: a command before the "
						    "first scenario\n", argv[i], lineno);
						return 1;
					}
				}
				continue;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				sc = realloc(sc, cap * sizeof(*sc));
			}
			sc[n].file = argv[i];
			sc[n].first = lineno + 1;
			snprintf(sc[n].name, sizeof(sc[n].name), "%s", name);
			n++;
		}
		fclose(f);
	}
	tests = calloc(n ? n : 1, sizeof(*tests));
	for (size_t k = 0; k < n; k++) {
		tests[k].name = sc[k].name;
		tests[k].test_func = run_scenario;
		tests[k].initial_state = &sc[k];
	}
	i = _cmocka_run_group_tests("engine scenarios", tests, n, NULL, NULL);
	free(tests);
	free(sc);
	return i;
}
