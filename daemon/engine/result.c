/* SPDX-License-Identifier: MIT */
/* daemon/engine/result.c - each step's answer, in glibc's shape: what the walk weighs and a front end gets. */

/*
 * Every step of a walk ends here: the hosts index's answer, the dns
 * source's results (A and AAAA merged, names respelled as the client
 * spelled its question), a module's answer, or an error.  Each becomes
 * one typed answer (answer.h) and the stage the walk weighs (walk.h).
 * An answer points where its parts already are, the cache's records above
 * all, and copies only what this client must see otherwise: the addresses
 * of a merged pair, and names respelled.  A hit allocates nothing.
 */
#include <netdb.h>
#include <string.h>
#include <stdlib.h>

#include "dnsmsg.h"
#include "hosts.h"
#include "name.h"
#include "result.h"

/* The most bytes a PROTO_OK body may take: a frame less its header. */
#define BODY_MAX	(PROTO_FRAME_MAX - PROTO_HDR_LEN)

/*
 * The answer being built, and what it may point into besides the
 * sources' own records, each valid until the next result_* call: the
 * hosts index's answer body, a merged pair's addresses, the respelled
 * canonical name and aliases, the candidates as names read from replies
 * are spelled.
 */
struct result {
	struct answer	 ans;
	uint8_t		 hosts[BODY_MAX];
	uint8_t		 addrs[BODY_MAX];
	uint8_t		 aliases[BODY_MAX];
	char		 canon[DNSMSG_NAME_STRLEN];
	char		 spelled[DNSSRC_NCAND][DNSMSG_NAME_STRLEN];
};

struct result *
result_new(void)
{
	return calloc(1, sizeof(struct result));
}

void
result_free(struct result *r)
{
	free(r);
}

struct answer *
result_answer(struct result *r)
{
	return &r->ans;
}

static int
nsw_of(uint16_t status)
{
	switch (status) {
	case PROTO_OK:		return NSW_SUCCESS;
	case PROTO_NOTFOUND:
	case PROTO_NODATA:
	case PROTO_NOTFOUND_TRYAGAIN:	return NSW_NOTFOUND;
	case PROTO_TRYAGAIN:	return NSW_TRYAGAIN;
	default:		return NSW_UNAVAIL;
	}
}

/* The stage of an answer whose status is status. */
static void
stage_of(struct stage *st, uint16_t status)
{
	memset(st, 0, sizeof(*st));
	st->status = status;
	st->nsw = nsw_of(status);
}

/* An answer with more than a frame can carry is told so, as no source's. */
static bool
too_big(struct result *r, struct stage *st)
{
	if (answer_body_size(&r->ans) <= BODY_MAX)
		return false;
	result_error(r, PROTO_TOOBIG, "answer larger than the 64 KiB frame limit", st);
	return true;
}

/* The answer's own ttl and source are its parts' too (answer.h). */
static void
stamp(struct answer *a)
{
	a->host.ttl = a->records.ttl = a->ttl;
	a->host.source = a->records.source = a->source;
}

void
result_files(struct result *r, const struct result_to *to, const struct hosts *h,
    int hosts_error, struct stage *st)
{
	struct answer		*a = &r->ans;
	struct proto_answer	 host;
	struct proto_wr		 w;
	int			 n;

	proto_wr_init(&w, r->hosts, sizeof(r->hosts));
	if (to->what == RESULT_NAME)
		n = hosts_lookup_name(h, to->name, to->family, &w);
	else
		n = hosts_lookup_addr(h, to->family, to->addr, &w);
	if (n < 0 || (n > 0 && proto_answer_decode(r->hosts, w.off, &host) < 0)) {
		result_error(r, PROTO_TOOBIG, "answer larger than the 64 KiB frame limit", st);
		return;
	}
	answer_status(a, n > 0 ? PROTO_OK : PROTO_NOTFOUND, NULL);
	if (n > 0) {
		a->form = ANSWER_HOST;
		a->host = host;
		a->ttl = host.ttl;
		a->source = PROTO_SRC_HOSTS;
		stamp(a);
	}
	stage_of(st, a->status);
	st->source = PROTO_SRC_HOSTS;
	/* Hosts answers last until the file changes (a reload resets). */
	st->expires = WALK_FOREVER;
	st->ttl_full = UINT32_MAX;
	if (n == 0 && hosts_error != 0) {
		/* As glibc's files module when it cannot open the file. */
		st->nsw = NSW_UNAVAIL;
		st->status = a->status = PROTO_UNAVAIL;
		st->herrno = NETDB_INTERNAL;
		st->err = -hosts_error;
		st->expires = 0;
	}
}

/* --- respelling ------------------------------------------------------------ */

/* Whether s[i] starts a label: at the start, or after an unescaped dot. */
static bool
label_start(const char *s, size_t i)
{
	size_t bs = 0;

	if (i == 0)
		return true;
	if (s[i - 1] != '.')
		return false;
	while (bs + 2 <= i && s[i - 2 - bs] == '\\')
		bs++;
	return bs % 2 == 0;
}

/*
 * The length of the longest tail of a, starting at a label, that equals a
 * tail of b starting at a label, ignoring case and one trailing dot.
 */
static size_t
common_tail(const char *a, size_t al, const char *b, size_t bl)
{
	size_t n = 0, best = 0;

	if (al && a[al - 1] == '.')
		al--;
	if (bl && b[bl - 1] == '.')
		bl--;
	while (n < al && n < bl && name_fold_char((uint8_t)a[al - 1 - n]) ==
	    name_fold_char((uint8_t)b[bl - 1 - n])) {
		n++;
		if (label_start(a, al - n) && label_start(b, bl - n))
			best = n;
	}
	return best;
}

/*
 * name (len bytes) spelled as the client spelled names[0..n): its longest
 * tail of whole labels that equals (ignoring case) a tail of one of them
 * takes that spelling.  A DNS server's reply reads so, since it echoes the
 * question and compresses the other names against it; a shared cache must
 * put it back for each client.  Returns name itself when nothing changes,
 * else out (DNSMSG_NAME_STRLEN bytes), NUL-terminated.
 */
static const char *
respell(const char *name, size_t len, const char *const *names, size_t n, char *out)
{
	size_t		 best = 0, k, t, bl, end;
	const char	*from = NULL;

	/*
	 * The common case first: the whole name is a tail of one the client
	 * asked (the name asked itself, most often), so that tail is the
	 * longest there is, and the first such name wins, as below it would.
	 * Spelled so already, the name is left as it is.
	 */
	end = len && name[len - 1] == '.' ? len - 1 : len;
	for (k = 0; k < n; k++) {
		bl = strlen(names[k]);
		if (bl && names[k][bl - 1] == '.')
			bl--;
		if (bl < end || !label_start(names[k], bl - end) ||
		    !name_eq_fold(name, names[k] + bl - end, end))
			continue;
		if (memcmp(name, names[k] + bl - end, end) == 0 ||
		    len >= DNSMSG_NAME_STRLEN)
			return name;
		memcpy(out, names[k] + bl - end, end);
		memcpy(out + end, name + end, len - end);
		out[len] = '\0';
		return out;
	}
	for (k = 0; k < n; k++) {
		t = common_tail(name, len, names[k], strlen(names[k]));
		if (t > best) {
			best = t;
			from = names[k];
		}
	}
	if (from == NULL || len >= DNSMSG_NAME_STRLEN)
		return name;
	bl = strlen(from);
	if (bl && from[bl - 1] == '.')
		bl--;
	if (memcmp(name + end - best, from + bl - best, best) == 0)
		return name;
	memcpy(out, name, len);
	out[len] = '\0';
	memcpy(out + end - best, from + bl - best, best);
	return out;
}

/* Only letters, digits, '-', '_' and dots: spelled alike as read from a reply. */
static bool
plain(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/*
 * The host answer's canonical name and aliases, respelled as names[]
 * are; the aliases are written again only when one of them changes.
 */
static void
respell_host(struct result *r, const char *const *names, size_t n)
{
	struct proto_answer	*h = &r->ans.host;
	struct proto_answer	 was = *h;
	struct proto_wr		 w;
	const char		*s, *sp;
	char			 buf[DNSMSG_NAME_STRLEN];
	size_t			 cur, sl;
	bool			 changed = false;

	h->canon = respell(h->canon, h->canon_len, names, n, r->canon);
	for (cur = 0; !changed && proto_answer_next_alias(&was, &cur, &s, &sl); )
		changed = respell(s, sl, names, n, buf) != s;
	if (!changed)
		return;
	proto_wr_init(&w, r->aliases, sizeof(r->aliases));
	for (cur = 0; proto_answer_next_alias(&was, &cur, &s, &sl); ) {
		sp = respell(s, sl, names, n, buf);
		proto_put_str(&w, sp, sl);
	}
	if (w.err == 0) {
		h->aliases = r->aliases;
		h->aliases_len = w.off;
	}
}

/* --- dns ------------------------------------------------------------------- */

/* The DNS listener's records, as kept: one result, never published. */
static void
dns_wire(struct result *r, const struct dns_result *d, struct stage *st)
{
	struct answer	*a = &r->ans;
	uint16_t	 status;

	switch (d->status) {
	case CACHE_POSITIVE:	status = PROTO_OK; break;
	case CACHE_NODATA:	status = PROTO_NODATA; break;
	case CACHE_NXDOMAIN:
		status = d->after_failure ? PROTO_NOTFOUND_TRYAGAIN : PROTO_NOTFOUND;
		break;
	default:		status = PROTO_TRYAGAIN; break;
	}
	answer_status(a, status, status == PROTO_TRYAGAIN ?
	    "upstream DNS failed or timed out" : NULL);
	a->source = d->source;
	a->ttl = d->ttl;
	if (status != PROTO_TRYAGAIN && status != PROTO_NOTFOUND_TRYAGAIN) {
		a->form = ANSWER_WIRE;
		a->wire.rrs = d->data;
		a->wire.len = d->data ? d->len : 0;
		a->wire.cap = d->ttl;
		/* Stale: every record told DNSSRC_STALE_TTL at most. */
		a->wire.age = d->source == PROTO_SRC_STALE || d->ttl_full < d->ttl ? 0 :
		    d->ttl_full - d->ttl;
	}
	stage_of(st, status);
	st->source = d->source;
}

/* The positive answer p as the client asks it; false when it does not decode. */
static bool
dns_part(const struct result_to *to, const struct dns_result *p, struct answer *a)
{
	if (to->what == RESULT_RR) {
		a->form = ANSWER_RECORDS;
		return proto_records_decode(p->data, p->len, &a->records) == 0;
	}
	a->form = ANSWER_HOST;
	return proto_answer_decode(p->data, p->len, &a->host) == 0;
}

void
result_dns(struct result *r, const struct result_to *to,
    char cand[][PROTO_NAME_MAX + 2], int ncand, const struct dns_result *d,
    unsigned n, struct stage *st)
{
	struct answer		*a = &r->ans;
	const struct dns_result	*pos[2] = { NULL, NULL };
	uint32_t		 ttl = UINT32_MAX, ttl_full = UINT32_MAX;
	int64_t			 expires = INT64_MAX;
	uint8_t			 source = PROTO_SRC_CACHE;
	uint16_t		 status;
	unsigned		 i, npos = 0;

	if (to->what == RESULT_WIRE) {
		dns_wire(r, &d[0], st);
		return;
	}
	for (i = 0; i < n; i++) {
		if (d[i].status != CACHE_POSITIVE)
			continue;
		pos[i] = &d[i];
		npos++;
		if (d[i].ttl < ttl)
			ttl = d[i].ttl;
		if (d[i].source == PROTO_SRC_STALE)
			source = PROTO_SRC_STALE;
		else if (d[i].source == PROTO_SRC_DNS && source != PROTO_SRC_STALE)
			source = PROTO_SRC_DNS;
	}
	if (npos > 0)
		status = PROTO_OK;
	else {
		/* Nothing positive: a failure wins, then NODATA, then NXDOMAIN;
		 * nothing found after a failure is glibc's NOTFOUND with
		 * TRY_AGAIN. */
		status = PROTO_NOTFOUND;
		for (i = 0; i < n; i++)
			if (d[i].status == CACHE_NODATA)
				status = PROTO_NODATA;
		for (i = 0; i < n; i++)
			if (d[i].after_failure)
				status = PROTO_NOTFOUND_TRYAGAIN;
		for (i = 0; i < n; i++)
			if (d[i].status == CACHE_FAILED)
				status = PROTO_TRYAGAIN;
	}
	/* Published until the first of the results it rests on expires. */
	for (i = 0; i < n; i++) {
		if (status == PROTO_OK && d[i].status != CACHE_POSITIVE)
			continue;
		if (d[i].expires_ms < expires)
			expires = d[i].expires_ms;
		if (d[i].ttl_full < ttl_full)
			ttl_full = d[i].ttl_full;
	}
	answer_status(a, status, status == PROTO_TRYAGAIN ?
	    "upstream DNS failed or timed out" : NULL);
	if (status == PROTO_OK) {
		struct proto_answer	 aaaa;
		const char		*names[DNSSRC_NCAND];
		bool			 both = n == 2 && to->what == RESULT_NAME &&
					    pos[0] && pos[1];
		int			 k;

		a->ttl = ttl;
		a->source = source;
		if (!dns_part(to, pos[0] ? pos[0] : pos[1], a) || (both &&
		    proto_answer_decode(pos[1]->data, pos[1]->len, &aaaa) < 0)) {
			result_error(r, PROTO_INTERNAL, "a cached answer does not decode", st);
			return;
		}
		if (both && answer_host_merge(&a->host, &aaaa, r->addrs,
		    sizeof(r->addrs), &a->host) < 0) {
			result_error(r, PROTO_TOOBIG,
			    "answer larger than the 64 KiB frame limit", st);
			return;
		}
		if (too_big(r, st))
			return;
		stamp(a);
		if (to->what == RESULT_NAME) {
			for (k = 0; k < ncand; k++) {
				/* Spelled as names read from replies are, escapes and all. */
				if (plain(cand[k]) || dnsmsg_name_normalize(cand[k],
				    r->spelled[k], sizeof(r->spelled[k])) < 0)
					names[k] = cand[k];
				else
					names[k] = r->spelled[k];
			}
			respell_host(r, names, (size_t)ncand);
		}
	}
	stage_of(st, status);
	st->source = status == PROTO_OK ? source : PROTO_SRC_DNS;
	st->exact = to->what == RESULT_NAME && status == PROTO_OK;
	/* Never a stale answer, a failure, or one with no expiry to keep. */
	if (expires != INT64_MAX && source != PROTO_SRC_STALE &&
	    (status == PROTO_OK || status == PROTO_NOTFOUND || status == PROTO_NODATA))
		st->expires = expires;
	st->ttl_full = ttl_full;
}

/* --- NSS modules ----------------------------------------------------------- */

/*
 * A module's canonical name and aliases: only a name that is the whole
 * question (ignoring case) takes the question's spelling, as a module
 * that echoes the name asked would have spelled it.
 */
static void
respell_whole(struct result *r, const char *asked)
{
	struct proto_answer	*h = &r->ans.host;
	struct proto_answer	 was = *h;
	struct proto_wr		 w;
	const char		*s;
	size_t			 cur, sl, al = strlen(asked);
	bool			 changed = false;

	if (h->canon_len == al && name_eq_fold(h->canon, asked, al))
		h->canon = asked;
	for (cur = 0; !changed && proto_answer_next_alias(&was, &cur, &s, &sl); )
		changed = sl == al && name_eq_fold(s, asked, al) && memcmp(s, asked, al);
	if (!changed)
		return;
	proto_wr_init(&w, r->aliases, sizeof(r->aliases));
	for (cur = 0; proto_answer_next_alias(&was, &cur, &s, &sl); )
		proto_put_str(&w, sl == al && name_eq_fold(s, asked, al) ? asked : s, sl);
	if (w.err == 0) {
		h->aliases = r->aliases;
		h->aliases_len = w.off;
	}
}

void
result_module(struct result *r, const struct result_to *to,
    const struct modsrc_answer *m, struct stage *st)
{
	struct answer *a = &r->ans;

	answer_status(a, m->status, NULL);
	if (m->status == PROTO_OK) {
		if (proto_answer_decode(m->body, m->len, &a->host) < 0) {
			result_error(r, PROTO_INTERNAL, "a module's answer does not decode", st);
			return;
		}
		a->form = ANSWER_HOST;
		a->ttl = m->ttl;
		a->source = m->source;
		if (too_big(r, st))
			return;
		stamp(a);
		if (to->what == RESULT_NAME)
			respell_whole(r, to->name);
	}
	stage_of(st, m->status);
	st->source = m->source;
	/* A module may answer "vm" and not "VM": whatever it said, it said
	 * for this spelling only. */
	st->exact = to->what == RESULT_NAME;
	st->expires = m->expires;
	st->ttl_full = m->ttl_full;
	st->herrno = m->herrno;
	st->err = m->err;
}

void
result_error(struct result *r, uint16_t status, const char *why, struct stage *st)
{
	answer_status(&r->ans, status, why);
	stage_of(st, status);
	st->nsw = NSW_UNAVAIL;
}

void
result_end_unavail(struct result *r, struct stage *st)
{
	struct answer *a = &r->ans;

	if (st->nsw != NSW_UNAVAIL || st->status == PROTO_TOOBIG ||
	    st->status == PROTO_INTERNAL || st->status == PROTO_BUSY)
		return;
	answer_status(a, PROTO_UNAVAIL, "every source on the hosts line is unavailable");
	a->herrno = st->herrno;
	a->err = st->err;
	st->status = PROTO_UNAVAIL;
}
