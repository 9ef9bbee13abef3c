/* SPDX-License-Identifier: MIT */
/* daemon/front/dnsquery.c - a DNS listener query's life: read, allowed, asked of the engine, answered. */

/*
 * Programs that speak DNS themselves (Go's resolver, musl, c-ares,
 * containers) ask here, and get the engine's answers:
 *
 *   A, AAAA, PTR   dns_sources = line: the hosts line's walk, as the NSS
 *                  module's lookups, for the name as asked (absolute: no
 *                  search list).  A and AAAA are both the walk of the
 *                  name for AF_UNSPEC, each told its family's addresses:
 *                  what a client asking both gets is what glibc's
 *                  getaddrinfo gives, and a hosts name of one family is
 *                  NOERROR for the other, not NXDOMAIN (which musl takes
 *                  as the name's end).  A negative answer then asks, when
 *                  the line asks dns, upstream's own for its SOA (RFC 2308).
 *   anything else  the cache and upstream (dnssrc's DNSANSWER_WIRE), the
 *                  records kept in wire form, told with their TTLs aged.
 *
 * A query's life: read (dnswire.c), checked against dns_allow, handed to
 * the engine as a struct dlq on the stack.  A hit is answered during the
 * call, into the batch's reply buffer; a query that must wait is copied to
 * the heap (the engine's hold), counted against dns_max_pending and its
 * source's share, and answered by sendto (UDP) or on its connection (TCP).
 * A stage after the first runs from the loop (dnsquery_deferred), never
 * from inside an engine callback.  Refused queries get a reply no longer
 * than the query.  The sockets that bring the bytes are dnslisten.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "dnsquery.h"
#include "hash.h"
#include "log.h"
#include "lookup.h"
#include "name.h"

static void	query_run(struct dlq *);

/* --- who may ask ---------------------------------------------------------- */

static bool
prefix_has(const struct config_prefix *p, const uint8_t *a)
{
	unsigned full = p->len / 8, rest = p->len % 8;

	if (memcmp(p->addr, a, full) != 0)
		return false;
	return rest == 0 || ((p->addr[full] ^ a[full]) & (0xff00 >> rest)) == 0;
}

/* Loopback always; else a prefix of dns_allow.  A v4-mapped source is its IPv4 address. */
static bool
allowed(const struct dnslisten *dl, const struct sockaddr_storage *ss)
{
	const uint8_t	*a;
	int		 family = ss->ss_family;
	unsigned	 i;

	if (family == AF_INET)
		a = (const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr;
	else if (family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
		if (memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
			a += 12;
			family = AF_INET;
		} else if (memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16) == 0)
			return true;
	} else
		return false;
	if (family == AF_INET && a[0] == 127)
		return true;
	for (i = 0; i < dl->nallow; i++)
		if (dl->allow[i].family == family && prefix_has(&dl->allow[i], a))
			return true;
	return false;
}

static unsigned
src_slot(const struct dnslisten *dl, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return (unsigned)(hash_siphash13(dl->src_key,
		    ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr, 16) % SRC_SLOTS);
	return (unsigned)(hash_siphash13(dl->src_key,
	    &((const struct sockaddr_in *)ss)->sin_addr, 4) % SRC_SLOTS);
}

/* --- sending -------------------------------------------------------------- */

static void
count_reply(struct dnslisten *dl, const uint8_t *buf, size_t len)
{
	unsigned rcode;

	if (len < 12)
		return;
	rcode = buf[3] & 0x0f;
	dl->st.rcodes[rcode < DL_NRCODES - 1 ? rcode : DL_NRCODES - 1]++;
	if (buf[2] & 0x02)
		dl->st.truncated++;
}

/* Where q's reply is written: the batch's slot, or the scratch buffer. */
static uint8_t *
reply_buf(struct dlq *q, size_t *ret_cap, size_t *ret_limit)
{
	struct dnslisten *dl = q->dl;

	if (q->conn) {
		*ret_cap = *ret_limit = DNSWIRE_TCP_LIMIT;
		return dl->scratch + 2;
	}
	*ret_limit = q->q.udp_size;
	*ret_cap = DNSWIRE_EDNS_SIZE;
	if (dl->in_batch && !q->held && dl->nout < DNSLISTEN_UDP_BATCH)
		return dl->out[dl->nout];
	return dl->scratch;
}

/* Sends the reply reply_buf gave q, len bytes (0: none). */
static void
send_reply(struct dlq *q, size_t len)
{
	struct dnslisten *dl = q->dl;

	if (len == 0) {
		dl->st.dropped++;
		return;
	}
	if (q->conn) {
		dl->scratch[0] = (uint8_t)(len >> 8);
		dl->scratch[1] = (uint8_t)len;
		count_reply(dl, dl->scratch + 2, len);
		if (q->conn->bev)
			bufferevent_write(q->conn->bev, dl->scratch, len + 2);
		return;
	}
	count_reply(dl, reply_buf(q, &(size_t){ 0 }, &(size_t){ 0 }), len);
	if (dl->in_batch && !q->held && dl->nout < DNSLISTEN_UDP_BATCH) {
		unsigned i = dl->nout++;

		memcpy(&dl->opeer[i], &q->peer, q->peer_len);
		dl->oiov[i].iov_base = dl->out[i];
		dl->oiov[i].iov_len = len;
		memset(&dl->omsg[i], 0, sizeof(dl->omsg[i]));
		dl->omsg[i].msg_hdr.msg_name = &dl->opeer[i];
		dl->omsg[i].msg_hdr.msg_namelen = q->peer_len;
		dl->omsg[i].msg_hdr.msg_iov = &dl->oiov[i];
		dl->omsg[i].msg_hdr.msg_iovlen = 1;
		return;
	}
	if (sendto(q->fd, dl->scratch, len, MSG_DONTWAIT,
	    (const struct sockaddr *)&q->peer, q->peer_len) < 0)
		dl->st.dropped++;
}

static void
send_error(struct dlq *q, int rcode)
{
	size_t	 cap, limit;
	uint8_t	*buf = reply_buf(q, &cap, &limit);

	send_reply(q, dnswire_reply_error(buf, cap < limit ? cap : limit, &q->q,
	    q->query_len, rcode));
}

/* An empty reply with rcode (a negative answer without its SOA). */
static void
send_empty(struct dlq *q, uint8_t rcode)
{
	struct dnswire_wr w;
	size_t		  cap, limit;
	uint8_t		 *buf = reply_buf(q, &cap, &limit);

	dnswire_reply_begin(&w, buf, cap, limit, &q->q, rcode);
	send_reply(q, dnswire_reply_end(&w));
}

/* --- a query's end -------------------------------------------------------- */

static void
query_done(struct dlq *q)
{
	struct dnslisten *dl = q->dl;
	struct dlconn	 *c = q->conn;

	if (!q->held)
		return;
	dl->pending--;
	if (dl->srcpend[q->src] > 0)
		dl->srcpend[q->src]--;
	if (c) {
		c->inflight--;
		/* A paused connection is read again from the loop. */
		if (c->paused && c->bev && c->inflight < DNSLISTEN_TCP_INFLIGHT) {
			c->paused = false;
			bufferevent_enable(c->bev, EV_READ);
			bufferevent_trigger(c->bev, EV_READ, BEV_OPT_DEFER_CALLBACKS);
		}
		dlconn_unref(c);
	}
	free(q);
}

/* The engine's hold: the query goes to the heap, counted, or is refused. */
static void *
fe_hold(void *ctx)
{
	struct dlq	 *q = ctx, *h;
	struct dnslisten *dl = q->dl;

	if (q->held)
		return q;
	if (dl->pending >= dl->max_pending ||
	    dl->srcpend[q->src] >= dl->max_pending_source) {
		dl->st.busy++;
		return NULL;
	}
	if ((h = malloc(sizeof(*h))) == NULL)
		return NULL;
	memcpy(h, q, sizeof(*h));
	h->held = true;
	dl->pending++;
	dl->srcpend[q->src]++;
	if (h->conn) {
		h->conn->refs++;
		h->conn->inflight++;
	}
	return h;
}

static void
fe_hold_release(void *hold)
{
	query_done(hold);
}

void
dnsquery_release(struct dlq *q)
{
	query_done(q);
}

/* Runs q's next stage from the loop, holding it first. */
static void
defer(struct dlq *q)
{
	struct dnslisten *dl = q->dl;
	struct dlq	 *h;

	if ((h = fe_hold(q)) == NULL) {
		send_error(q, DNS_R_SERVFAIL);
		query_done(q);
		return;
	}
	h->next = NULL;
	*dl->defer_tail = h;
	dl->defer_tail = &h->next;
	event_active(dl->defer_ev, EV_TIMEOUT, 0);
}

void
dnsquery_deferred(evutil_socket_t fd, short what, void *arg)
{
	struct dnslisten *dl = arg;
	struct dlq	 *q = dl->defer_head;

	(void)fd;
	(void)what;
	/* Only those deferred so far: a stage deferred now waits its turn. */
	dl->defer_head = NULL;
	dl->defer_tail = &dl->defer_head;
	while (q) {
		struct dlq *next = q->next;

		query_run(q);
		q = next;
	}
}

/* --- replies from the engine's answers ------------------------------------ */

/* A NUL-terminated copy of a name of the answer; false when it does not fit. */
static bool
copy_name(char *out, size_t cap, const char *s, size_t len)
{
	if (len >= cap)
		return false;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

/*
 * The line's answer as records: a CNAME when the canonical name is
 * another.  False, and nothing sent, when it has no address of the type.
 */
static bool
reply_line(struct dlq *q, const struct answer *ans)
{
	const struct proto_answer *a = &ans->host;
	struct dnswire_wr w;
	char		  canon[DNSMSG_NAME_STRLEN];
	const char	 *owner = NULL;
	const uint8_t	 *addr;
	size_t		  cap, limit, cur = 0;
	uint8_t		 *buf, fam;
	bool		  named;

	if (q->q.qtype == DNS_T_A ? a->naddr4 == 0 :
	    q->q.qtype == DNS_T_AAAA ? a->naddr6 == 0 : false)
		return false;
	buf = reply_buf(q, &cap, &limit);
	named = copy_name(canon, sizeof(canon), a->canon, a->canon_len);
	dnswire_reply_begin(&w, buf, cap, limit, &q->q, DNS_R_NOERROR);
	if (q->q.qtype == DNS_T_PTR) {
		if (named && a->canon_len > 0)
			dnswire_add_ptr(&w, DNS_S_ANSWER, NULL, ans->ttl, canon);
		send_reply(q, dnswire_reply_end(&w));
		return true;
	}
	if (named && a->canon_len > 0 && !(a->canon_len == q->q.name_len &&
	    name_eq_fold(a->canon, q->q.name, a->canon_len)) &&
	    dnswire_add_cname(&w, DNS_S_ANSWER, NULL, ans->ttl, canon) == 0)
		owner = canon;
	while (proto_answer_next_addr(a, &cur, &fam, &addr)) {
		if (fam == PROTO_AF_INET && q->q.qtype == DNS_T_A)
			dnswire_add_a(&w, DNS_S_ANSWER, owner, ans->ttl, addr);
		else if ((fam == PROTO_AF_INET6 || fam == PROTO_AF_INET6_SCOPED) &&
		    q->q.qtype == DNS_T_AAAA)
			dnswire_add_aaaa(&w, DNS_S_ANSWER, owner, ans->ttl, addr);
	}
	send_reply(q, dnswire_reply_end(&w));
	return true;
}

/* Upstream's records, aged. */
static void
reply_wire(struct dlq *q, uint16_t status, const struct answer_wire *b)
{
	struct dnswire_wr w;
	size_t		  cap, limit;
	uint8_t		 *buf = reply_buf(q, &cap, &limit);
	uint8_t		  rcode = status == PROTO_NOTFOUND ? DNS_R_NXDOMAIN : DNS_R_NOERROR;

	dnswire_reply_begin(&w, buf, cap, limit, &q->q, rcode);
	if (b->len > 0 &&
	    dnswire_add_kept(&w, b->rrs, b->len, b->age, b->cap) == -EBADMSG) {
		send_error(q, DNS_R_SERVFAIL);
		return;
	}
	send_reply(q, dnswire_reply_end(&w));
}

/* RFC 8482: ANY gets one HINFO record, "RFC8482". */
static void
reply_any(struct dlq *q)
{
	static const uint8_t hinfo[] = { 7, 'R', 'F', 'C', '8', '4', '8', '2', 0 };
	struct dnswire_wr w;
	uint8_t		  rr[1 + DNSMSG_NAME_MAX + 10 + sizeof(hinfo)], *p = rr;
	size_t		  cap, limit;
	uint8_t		 *buf = reply_buf(q, &cap, &limit);

	*p++ = DNS_S_ANSWER;
	memcpy(p, q->q.wire, q->q.wire_len);
	p += q->q.wire_len;
	*p++ = 0, *p++ = 13;			/* HINFO */
	*p++ = 0, *p++ = 1;			/* IN */
	*p++ = ANY_TTL >> 24, *p++ = (ANY_TTL >> 16) & 0xff;
	*p++ = (ANY_TTL >> 8) & 0xff, *p++ = ANY_TTL & 0xff;
	*p++ = 0, *p++ = sizeof(hinfo);
	memcpy(p, hinfo, sizeof(hinfo));
	p += sizeof(hinfo);
	dnswire_reply_begin(&w, buf, cap, limit, &q->q, DNS_R_NOERROR);
	dnswire_add_kept(&w, rr, (size_t)(p - rr), 0, UINT32_MAX);
	send_reply(q, dnswire_reply_end(&w));
}

/* The line's answer is negative (line_rcode): upstream's SOA is asked for. */
static void
negative(struct dlq *q)
{
	if (!lookup_line_has_dns(q->dl->lk)) {
		send_empty(q, q->line_rcode);
		query_done(q);
		return;
	}
	q->stage = ST_SOA;
	defer(q);
}

/* The engine's answer to q's stage. */
static void
on_answer(struct dlq *q, const struct answer *a)
{
	uint16_t status = a->status;

	switch (q->stage) {
	case ST_LINE:
		if (status == PROTO_OK && a->form == ANSWER_HOST) {
			if (reply_line(q, a))
				break;
			q->line_rcode = DNS_R_NOERROR;	/* the other family only */
			negative(q);
			return;
		}
		if (status == PROTO_NOTFOUND || status == PROTO_NODATA) {
			q->line_rcode = status == PROTO_NOTFOUND ? DNS_R_NXDOMAIN :
			    DNS_R_NOERROR;
			negative(q);
			return;
		}
		send_error(q, DNS_R_SERVFAIL);
		break;
	case ST_SOA:
		/* Upstream's negative answer, with its SOA; else the line's rcode. */
		if ((status == PROTO_NOTFOUND || status == PROTO_NODATA) &&
		    a->form == ANSWER_WIRE &&
		    (status == PROTO_NOTFOUND) == (q->line_rcode == DNS_R_NXDOMAIN))
			reply_wire(q, status, &a->wire);
		else
			send_empty(q, q->line_rcode);
		break;
	case ST_WIRE:
		if ((status == PROTO_OK || status == PROTO_NOTFOUND ||
		    status == PROTO_NODATA) && a->form == ANSWER_WIRE)
			reply_wire(q, status, &a->wire);
		else
			send_error(q, DNS_R_SERVFAIL);
		break;
	}
	query_done(q);
}

static void
fe_reply(void *ctx, const struct answer *a)
{
	on_answer(ctx, a);
}

static const struct lookup_frontend dl_front = {
	.hold = fe_hold,
	.reply = fe_reply,
	.hold_reply = fe_reply,
	.hold_release = fe_hold_release,
};

/* --- asking the engine ---------------------------------------------------- */

/* "4.3.2.1.in-addr.arpa" or a whole ip6.arpa nibble name: its address. */
static bool
ptr_addr(const char *name, uint8_t *addr, uint8_t *ret_family)
{
	static const char v4[] = ".in-addr.arpa", v6[] = ".ip6.arpa";
	size_t		  n = strlen(name);
	unsigned	  i, oct[4];
	int		  used = 0;
	char		  tail[16];

	if (n > sizeof(v4) - 1 && strcasecmp(name + n - (sizeof(v4) - 1), v4) == 0) {
		if (sscanf(name, "%3u.%3u.%3u.%3u%n", &oct[3], &oct[2], &oct[1],
		    &oct[0], &used) != 4 || (size_t)used != n - (sizeof(v4) - 1))
			return false;
		for (i = 0; i < 4; i++) {
			if (oct[i] > 255)
				return false;
			addr[i] = (uint8_t)oct[i];
		}
		/* No leading zeros: "01" is not how a name of 1 is written. */
		snprintf(tail, sizeof(tail), "%u.%u.%u.%u", oct[3], oct[2], oct[1], oct[0]);
		if (strlen(tail) != (size_t)used)
			return false;
		*ret_family = PROTO_AF_INET;
		return true;
	}
	/* 32 nibbles and the dots between them: 63 bytes, then the suffix. */
	if (n != 63 + sizeof(v6) - 1 || strcasecmp(name + 63, v6) != 0)
		return false;
	memset(addr, 0, 16);
	for (i = 0; i < 32; i++) {
		char	c = name[2 * i];
		int	v;

		if (name[2 * i + 1] != '.')
			return false;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return false;
		/* The first nibble of the name is the address's last. */
		addr[15 - i / 2] |= (uint8_t)(i % 2 ? v << 4 : v);
	}
	*ret_family = PROTO_AF_INET6;
	return true;
}

/* Asks the engine for q's stage; the reply comes through dl_front. */
static void
query_run(struct dlq *q)
{
	struct lookup_client	 who = { .fe = LOOKUP_FE_DNS, .pid = -1, .qtype = q->q.qtype };
	struct lookup_req	 req = { &dl_front, q, LOOKUP_ABSOLUTE, &who, 0 };
	struct proto_lookup_name qn;
	struct proto_lookup_addr qa;
	struct proto_query_rr	 qr;
	const char		*name = q->q.name_len ? q->q.name : ".";

	if (q->peer.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&q->peer;

		who.family = AF_INET;
		who.port = ntohs(sin->sin_port);
		memcpy(who.addr, &sin->sin_addr, 4);
	} else if (q->peer.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&q->peer;

		who.family = AF_INET6;
		who.port = ntohs(sin6->sin6_port);
		memcpy(who.addr, &sin6->sin6_addr, 16);
	}
	switch (q->stage) {
	case ST_LINE:
		if (q->q.qtype == DNS_T_PTR) {
			memset(&qa, 0, sizeof(qa));
			qa.family = q->family;
			memcpy(qa.addr, q->addr, q->family == PROTO_AF_INET ? 4 : 16);
			lookup_addr(q->dl->lk, &req, &qa);
			return;
		}
		memset(&qn, 0, sizeof(qn));
		qn.family = PROTO_AF_UNSPEC;
		memcpy(qn.name, q->q.name, q->q.name_len + 1);
		qn.name_len = q->q.name_len;
		lookup_name(q->dl->lk, &req, &qn);
		return;
	case ST_SOA:
	case ST_WIRE:
		req.flags = LOOKUP_WIRE;
		memset(&qr, 0, sizeof(qr));
		qr.type = q->q.qtype;
		qr.name_len = strlen(name);
		memcpy(qr.name, name, qr.name_len + 1);
		lookup_rr(q->dl->lk, &req, &qr);
		return;
	}
}

static const uint16_t type_codes[DL_NTYPES - 1] = {
	1, 28, 12, 5, 15, 16, 33, 65, 64, 255,
};

static unsigned
type_index(uint16_t type)
{
	unsigned i;

	for (i = 0; i < DL_NTYPES - 1; i++)
		if (type_codes[i] == type)
			return i;
	return DL_NTYPES - 1;
}

void
dnsquery_in(struct dnslisten *dl, struct dlq *q, const uint8_t *buf, size_t len)
{
	int verdict = dnswire_query_read(buf, len, &q->q);

	q->dl = dl;
	q->query_len = len;
	dl->st.queries[q->conn ? T_TCP : T_UDP]++;
	if (verdict == DNSWIRE_DROP) {
		dl->st.malformed++;
		dl->st.dropped++;
		return;
	}
	if (!allowed(dl, &q->peer)) {
		dl->st.refused++;
		send_error(q, DNS_R_REFUSED);
		return;
	}
	if (verdict != DNSWIRE_OK) {
		if (verdict == DNSWIRE_FORMERR)
			dl->st.malformed++;
		send_error(q, verdict);
		return;
	}
	dl->st.types[type_index(q->q.qtype)]++;
	log_debug("dns: %s query %u for %s type %u", q->conn ? "tcp" : "udp",
	    q->q.id, q->q.name, q->q.qtype);
	if (q->q.qclass != 1 || q->q.qtype == 251 || q->q.qtype == 252 ||
	    (q->q.qtype >= 128 && q->q.qtype <= 254) || q->q.qtype == DNS_T_OPT) {
		send_error(q, DNS_R_NOTIMP);	/* not IN, a zone transfer, a meta type */
		return;
	}
	if (q->q.qtype == 255) {
		reply_any(q);
		return;
	}
	q->src = src_slot(dl, &q->peer);
	if (dl->sources == CONFIG_DNS_LINE && q->q.name_plain &&
	    (q->q.qtype == DNS_T_A || q->q.qtype == DNS_T_AAAA))
		q->stage = ST_LINE;
	else if (dl->sources == CONFIG_DNS_LINE && q->q.qtype == DNS_T_PTR &&
	    ptr_addr(q->q.name, q->addr, &q->family))
		q->stage = ST_LINE;
	else if (strchr(q->q.name, '\\') != NULL || q->q.name_len > PROTO_NAME_MAX) {
		/* A label with a dot or a byte c-ares cannot spell: not asked. */
		send_error(q, DNS_R_SERVFAIL);
		return;
	} else
		q->stage = ST_WIRE;
	query_run(q);
}

