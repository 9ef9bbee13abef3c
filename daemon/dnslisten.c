/* SPDX-License-Identifier: MIT */
/* daemon/dnslisten.c - the DNS listener: UDP and TCP, one more front end on the engine. */

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
 *   anything else  the cache and upstream (dnssrc's ANSWER_WIRE), the
 *                  records kept in wire form, told with their TTLs aged.
 *
 * A query's life: read (dnswire.c), checked against dns_allow, handed to
 * the engine as a struct dlq on the stack.  A hit is answered during the
 * call, into the batch's reply buffer; a query that must wait is copied to
 * the heap (the engine's hold), counted against dns_max_pending and its
 * source's share, and answered by sendto (UDP) or on its connection (TCP).
 * A stage after the first runs from the loop (defer_cb), never from inside
 * an engine callback.
 *
 * UDP is read with recvmmsg and answered with sendmmsg, DNSLISTEN_UDP_BATCH
 * at a time; a batch shorter than that ends the read, so no recvfrom
 * returns EAGAIN per packet.  TCP (RFC 7766): queries pipelined on a
 * connection, answered as they complete, at most DNSLISTEN_TCP_INFLIGHT
 * at once and DNSLISTEN_TCP_OUT_HIGH bytes queued before it is read again;
 * an idle connection closes after dns_tcp_idle seconds; dns_tcp_clients
 * at once.  Refused queries get a reply no longer than the query.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "config.h"
#include "dnslisten.h"
#include "dnswire.h"
#include "hash.h"
#include "listener.h"
#include "log.h"
#include "lookup.h"
#include "name.h"

#define UDP_IN_MAX	4096		/* a longer datagram is dropped */
#define SRC_SLOTS	4096		/* pending counts by source, hashed */
#define ANY_TTL		3600		/* the HINFO that answers ANY (RFC 8482) */

enum stage {
	ST_WIRE,	/* the records upstream gave: the answer */
	ST_LINE,	/* the hosts line's walk */
	ST_SOA,		/* negative: upstream's own, for its rcode and SOA */
};

enum { T_UDP, T_TCP };

struct dlconn;

/* One query, from its datagram or message to its reply. */
struct dlq {
	struct dnslisten	*dl;
	struct dlq		*next;		/* on the deferred list */
	struct dlconn		*conn;		/* TCP; NULL: UDP */
	int			 fd;		/* UDP: the socket it came on */
	struct sockaddr_storage	 peer;
	socklen_t		 peer_len;
	unsigned		 src;		/* its slot in srcpend */
	size_t			 query_len;
	int			 stage;		/* enum stage */
	uint8_t			 line_rcode;	/* the line's negative: NXDOMAIN or NOERROR */
	bool			 held;		/* on the heap, counted as pending */
	uint8_t			 addr[16];	/* PTR: the address asked */
	uint8_t			 family;
	struct dnswire_query	 q;
};

struct dlconn {
	struct dnslisten	*dl;
	struct dlconn		*prev, *next;
	struct bufferevent	*bev;		/* NULL once closed */
	struct sockaddr_storage	 peer;
	socklen_t		 peer_len;
	unsigned		 refs;		/* open, and each held query */
	unsigned		 inflight;
	bool			 paused;	/* reading stopped by the limits */
};

struct dlsock {
	struct dnslisten	*dl;
	struct event		*ev;
	int			 fd;
	bool			 tcp;
	bool			 passed;	/* by systemd */
	char			 name[64];	/* "udp 127.0.0.1:53" */
};

struct dnslisten_stats {
	uint64_t	queries[2];		/* by transport */
	uint64_t	types[11];		/* see type_names */
	uint64_t	rcodes[7];		/* see rcode_names */
	uint64_t	refused;		/* sources outside dns_allow */
	uint64_t	truncated;
	uint64_t	malformed;
	uint64_t	dropped;		/* no reply: unreadable, oversize, unsent */
	uint64_t	busy;			/* SERVFAIL: too many pending */
	uint64_t	tcp_accepted;
	uint64_t	tcp_rejected;		/* past dns_tcp_clients */
	uint64_t	tcp_timeouts;
};

static const char *const type_names[11] = {
	"a", "aaaa", "ptr", "cname", "mx", "txt", "srv", "https", "svcb", "any",
	"other",
};
static const uint16_t type_codes[10] = {
	1, 28, 12, 5, 15, 16, 33, 65, 64, 255,
};
static const char *const rcode_names[7] = {
	"noerror", "formerr", "servfail", "nxdomain", "notimp", "refused", "other",
};

struct dnslisten {
	struct event_base	*base;
	struct lookup		*lk;
	struct dlsock		 socks[2 * CONFIG_DNS_LISTEN_MAX + LISTENER_DNS_PASSED_MAX];
	unsigned		 nsocks;
	struct config_prefix	 allow[CONFIG_DNS_ALLOW_MAX];
	unsigned		 nallow;
	int			 sources;	/* enum config_dns_sources */
	unsigned		 max_pending, max_pending_source;
	unsigned		 pending;
	uint16_t		 srcpend[SRC_SLOTS];
	uint64_t		 src_key[2];
	unsigned		 max_conns, nconns;
	struct timeval		 idle;
	struct dlconn		*conns;
	struct dlq		*defer_head, **defer_tail;
	struct event		*defer_ev;
	struct dnslisten_stats	 st;
	/*
	 * A recvmmsg batch: datagrams in, replies out.  A reply to a query
	 * of the batch answered during its call is written into out[nout]
	 * and sent with the batch's sendmmsg; in_batch says a batch is being
	 * read.  Every buffer lives from the read to the send.
	 */
	bool			 in_batch;
	unsigned		 nout;
	struct mmsghdr		 imsg[DNSLISTEN_UDP_BATCH], omsg[DNSLISTEN_UDP_BATCH];
	struct iovec		 iiov[DNSLISTEN_UDP_BATCH], oiov[DNSLISTEN_UDP_BATCH];
	struct sockaddr_storage	 ipeer[DNSLISTEN_UDP_BATCH], opeer[DNSLISTEN_UDP_BATCH];
	uint8_t			 in[DNSLISTEN_UDP_BATCH][UDP_IN_MAX];
	uint8_t			 out[DNSLISTEN_UDP_BATCH][DNSWIRE_EDNS_SIZE];
	/* A TCP message read, and a reply (its length prefix first): each
	 * within one call. */
	uint8_t			 tcp_in[DNSWIRE_TCP_LIMIT];
	uint8_t			 scratch[2 + DNSWIRE_TCP_LIMIT];
};

static void	query_run(struct dlq *);
static void	conn_unref(struct dlconn *);

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
	dl->st.rcodes[rcode <= 5 ? rcode : 6]++;
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
		conn_unref(c);
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

static void
defer_cb(evutil_socket_t fd, short what, void *arg)
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

/* --- replies from the engine's frames ------------------------------------- */

/* A copy of a frame's string, NUL-terminated; false when it does not fit. */
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
reply_line(struct dlq *q, const struct proto_answer *a)
{
	struct dnswire_wr w;
	char		  canon[DNSMSG_NAME_STRLEN];
	const char	 *owner = NULL;
	const uint8_t	 *addr;
	size_t		  cap, limit, cur = 0;
	uint8_t		 *buf = reply_buf(q, &cap, &limit), fam;
	bool		  named = copy_name(canon, sizeof(canon), a->canon, a->canon_len);

	bool		  any = false;

	if (q->q.qtype != DNS_T_PTR) {
		while (proto_answer_next_addr(a, &cur, &fam, &addr))
			any |= q->q.qtype == DNS_T_A ? fam == PROTO_AF_INET :
			    fam == PROTO_AF_INET6 || fam == PROTO_AF_INET6_SCOPED;
		if (!any)
			return false;
		cur = 0;
	}
	dnswire_reply_begin(&w, buf, cap, limit, &q->q, DNS_R_NOERROR);
	if (q->q.qtype == DNS_T_PTR) {
		if (named && a->canon_len > 0)
			dnswire_add_ptr(&w, DNS_S_ANSWER, NULL, a->ttl, canon);
		send_reply(q, dnswire_reply_end(&w));
		return true;
	}
	if (named && a->canon_len > 0 && !(a->canon_len == q->q.name_len &&
	    name_eq_fold(a->canon, q->q.name, a->canon_len)) &&
	    dnswire_add_cname(&w, DNS_S_ANSWER, NULL, a->ttl, canon) == 0)
		owner = canon;
	while (proto_answer_next_addr(a, &cur, &fam, &addr)) {
		if (fam == PROTO_AF_INET && q->q.qtype == DNS_T_A)
			dnswire_add_a(&w, DNS_S_ANSWER, owner, a->ttl, addr);
		else if ((fam == PROTO_AF_INET6 || fam == PROTO_AF_INET6_SCOPED) &&
		    q->q.qtype == DNS_T_AAAA)
			dnswire_add_aaaa(&w, DNS_S_ANSWER, owner, a->ttl, addr);
	}
	send_reply(q, dnswire_reply_end(&w));
	return true;
}

/* Upstream's records, aged; rcode_over: the line's rcode instead of theirs. */
static void
reply_wire(struct dlq *q, uint16_t status, const struct proto_wire *b)
{
	struct dnswire_wr w;
	size_t		  cap, limit;
	uint8_t		 *buf = reply_buf(q, &cap, &limit);
	uint8_t		  rcode = status == PROTO_NOTFOUND ? DNS_R_NXDOMAIN : DNS_R_NOERROR;

	dnswire_reply_begin(&w, buf, cap, limit, &q->q, rcode);
	if (b->rrs_len > 0 &&
	    dnswire_add_kept(&w, b->rrs, b->rrs_len, b->age, b->cap) == -EBADMSG) {
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

/* The engine's reply to q's stage. */
static void
on_frame(struct dlq *q, const void *frame, size_t len)
{
	struct proto_hdr	h;
	struct proto_answer	a;
	struct proto_wire	b;
	const uint8_t		*body = (const uint8_t *)frame + PROTO_HDR_LEN;
	size_t			blen;

	if (proto_hdr_decode(frame, len, &h) < 0 || h.len != len) {
		send_error(q, DNS_R_SERVFAIL);
		query_done(q);
		return;
	}
	blen = len - PROTO_HDR_LEN;
	switch (q->stage) {
	case ST_LINE:
		if (h.status == PROTO_OK && proto_answer_decode(body, blen, &a) == 0) {
			if (reply_line(q, &a))
				break;
			q->line_rcode = DNS_R_NOERROR;	/* the other family only */
			negative(q);
			return;
		}
		if (h.status == PROTO_NOTFOUND || h.status == PROTO_NODATA) {
			q->line_rcode = h.status == PROTO_NOTFOUND ? DNS_R_NXDOMAIN :
			    DNS_R_NOERROR;
			negative(q);
			return;
		}
		send_error(q, DNS_R_SERVFAIL);
		break;
	case ST_SOA:
		/* Upstream's negative answer, with its SOA; else the line's rcode. */
		if ((h.status == PROTO_NOTFOUND || h.status == PROTO_NODATA) &&
		    proto_wire_decode(body, blen, &b) == 0 &&
		    (h.status == PROTO_NOTFOUND) == (q->line_rcode == DNS_R_NXDOMAIN))
			reply_wire(q, h.status, &b);
		else
			send_empty(q, q->line_rcode);
		break;
	case ST_WIRE:
		if ((h.status == PROTO_OK || h.status == PROTO_NOTFOUND ||
		    h.status == PROTO_NODATA) && proto_wire_decode(body, blen, &b) == 0)
			reply_wire(q, h.status, &b);
		else
			send_error(q, DNS_R_SERVFAIL);
		break;
	}
	query_done(q);
}

static void
fe_reply(void *ctx, const void *frame, size_t len)
{
	on_frame(ctx, frame, len);
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
	struct lookup_req	 req = { &dl_front, q, PROTO_LOOKUP_NAME, 0, LOOKUP_ABSOLUTE };
	struct proto_lookup_name qn;
	struct proto_lookup_addr qa;
	struct proto_query_rr	 qr;
	const char		*name = q->q.name_len ? q->q.name : ".";

	switch (q->stage) {
	case ST_LINE:
		if (q->q.qtype == DNS_T_PTR) {
			req.type = PROTO_LOOKUP_ADDR;
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
		req.type = PROTO_QUERY_RR;
		req.flags = LOOKUP_WIRE;
		memset(&qr, 0, sizeof(qr));
		qr.type = q->q.qtype;
		qr.name_len = strlen(name);
		memcpy(qr.name, name, qr.name_len + 1);
		lookup_rr(q->dl->lk, &req, &qr);
		return;
	}
}

static unsigned
type_index(uint16_t type)
{
	unsigned i;

	for (i = 0; i < sizeof(type_codes) / sizeof(type_codes[0]); i++)
		if (type_codes[i] == type)
			return i;
	return 10;
}

/* A query read from buf; q has its transport and peer. */
static void
query_in(struct dnslisten *dl, struct dlq *q, const uint8_t *buf, size_t len)
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
			query_in(dl, &q, dl->in[i], dl->imsg[i].msg_len);
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

static void
conn_unref(struct dlconn *c)
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
	conn_unref(c);
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
			query_in(dl, &q, dl->tcp_in, mlen);
		}
	}
	conn_unref(c);
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
	if ((dl->defer_ev = event_new(base, -1, 0, defer_cb, dl)) == NULL)
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
		query_done(q);
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
dnslisten_statistics(const struct dnslisten *dl, struct proto_kv_wr *kw)
{
	char	 key[40];
	unsigned i;

	if (dl == NULL)
		return;
	/* Keys are part of the protocol: add new ones, never rename. */
	proto_kv_u64(kw, "dns_queries_udp", dl->st.queries[T_UDP]);
	proto_kv_u64(kw, "dns_queries_tcp", dl->st.queries[T_TCP]);
	for (i = 0; i < 11; i++) {
		snprintf(key, sizeof(key), "dns_type_%s", type_names[i]);
		proto_kv_u64(kw, key, dl->st.types[i]);
	}
	for (i = 0; i < 7; i++) {
		snprintf(key, sizeof(key), "dns_rcode_%s", rcode_names[i]);
		proto_kv_u64(kw, key, dl->st.rcodes[i]);
	}
	proto_kv_u64(kw, "dns_refused", dl->st.refused);
	proto_kv_u64(kw, "dns_truncated", dl->st.truncated);
	proto_kv_u64(kw, "dns_malformed", dl->st.malformed);
	proto_kv_u64(kw, "dns_dropped", dl->st.dropped);
	proto_kv_u64(kw, "dns_busy", dl->st.busy);
	proto_kv_u64(kw, "dns_pending", dl->pending);
	proto_kv_u64(kw, "dns_tcp_connections", dl->nconns);
	proto_kv_u64(kw, "dns_tcp_accepted", dl->st.tcp_accepted);
	proto_kv_u64(kw, "dns_tcp_rejected", dl->st.tcp_rejected);
	proto_kv_u64(kw, "dns_tcp_timeouts", dl->st.tcp_timeouts);
}

void
dnslisten_reset_stats(struct dnslisten *dl)
{
	if (dl)
		memset(&dl->st, 0, sizeof(dl->st));
}
