/* SPDX-License-Identifier: MIT */
/* daemon/front/dnswire.c - the DNS listener's wire format: client queries in, replies out. */

/*
 * Design.  The reader takes a query as unbound does (worker.c), so that
 * clients see what a common resolver gives them:
 *  - shorter than a header, or QR set: no reply at all (a reply sent to us
 *    is answered with silence, or two servers could ping-pong forever);
 *  - an opcode other than QUERY: NOTIMP, header only: the sections of
 *    other opcodes mean other things (UPDATE's zone and prerequisites);
 *  - QDCOUNT other than 1, ANCOUNT or NSCOUNT other than 0: FORMERR;
 *  - a question for a meta type (OPT, TKEY, TSIG, MAILB, MAILA, 128 to
 *    248): FORMERR.  AXFR, IXFR and ANY are the caller's;
 *  - the additional section holds one OPT at most, and nothing else: a
 *    second OPT (RFC 6891 6.1.1), an OPT not at the root, or any other
 *    record is FORMERR.  A TSIG or SIG(0) query gets a FORMERR rather than
 *    an unsigned answer its client would drop, and then wait for;
 *  - EDNS version above 0: BADVERS, its options unread (a later version
 *    may lay them out otherwise); version 0: each option is walked, and
 *    one running past the rdata is FORMERR.  Options are otherwise unused;
 *  - bytes after the last record are ignored, as dnsmsg does: nothing
 *    depends on them, and an error reply is held to the query's length.
 * A FORMERR reply carries no OPT: the query's EDNS was either not reached
 * or not understood, and a client that then retries without EDNS is right.
 *
 * Compression in the question is accepted under dnsmsg's rules (a pointer
 * only goes backwards, so here only into the header): no client does it,
 * and refusing it buys nothing.  The question is kept expanded, case as
 * sent, and echoed from that copy: a reply never carries a pointer into
 * bytes it did not copy.
 *
 * The writer compresses names against up to DNSWIRE_WR_NAMES earlier
 * names and suffixes (the question's first, so an owner equal to it is
 * 0xc00c), matched without regard to ASCII case: an owner then takes the
 * question's spelling, which is what a 0x20 client compares.  Names in
 * rdata are compressed only for RFC 1035's types (RFC 3597 4).  A record
 * that does not fit marks the reply truncated, and the reply is then cut
 * back to header, question and OPT, TC set: a client retries over TCP
 * and ignores a truncated reply's records anyway.  The OPT's 11 bytes are
 * held back from the start, so it always fits.
 *
 * Kept records (dnswire.h) are written by the same code: keeping expands
 * names (the writer's put_name without compression), writing compresses
 * them again.  A kept list may come from a file, so it is read as warily
 * as a message.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "dnswire.h"
#include "name.h"
#include "rd.h"

#define HDR_LEN		12
#define OPT_LEN		11	/* root, type, class, TTL, rdlength 0 */
#define CLASS_IN	1
#define TTL_MAX		0x7fffffffU	/* RFC 2181 8 */
#define PTR_MAX		0x3fff	/* the furthest offset a pointer reaches */

#define F_QR		0x8000
#define F_TC		0x0200
#define F_RD		0x0100
#define F_RA		0x0080
#define F_CD		0x0010
#define EDNS_DO		0x8000	/* in the low 16 bits of the OPT's TTL */

/* A name in place: rd moves past its encoding; its expanded length, or 0. */
static size_t
rd_name(struct rd *rd, uint8_t *out)
{
	size_t	next;
	int	r;

	if (rd->err)
		return 0;
	if ((r = dnsmsg_name_wire(rd->p, rd->len, rd->off, out, &next)) < 0) {
		rd->err = r;
		return 0;
	}
	rd_seek(rd, next);
	return (size_t)r;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/*
 * Meta types asked as questions, as unbound refuses them; AXFR, IXFR and
 * ANY (251, 252, 255) are questions the caller answers.
 */
static bool
qtype_meta(uint16_t t)
{
	return t == DNS_T_OPT || (t >= 128 && t <= 250) || t == 253 ||
	    t == 254;
}

/*
 * Only what a host name holds, so the hosts line's walk may take it: in
 * the string, as dnsmsg_name escapes any other byte with a backslash.
 */
static bool
name_plain(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		    *s == '.'))
			return false;
	return true;
}

/* The additional section: one OPT at most, nothing else.  A verdict. */
static int
query_additional(struct rd *rd, uint16_t arcount, struct dnswire_query *q)
{
	struct rd	 opt;
	const uint8_t	*rdata;
	uint8_t		 owner[DNSMSG_NAME_MAX];
	uint16_t	 type, size, rdlen;
	uint32_t	 ttl;
	size_t		 olen;
	unsigned	 i;
	int		 verdict = DNSWIRE_OK;

	for (i = 0; i < arcount; i++) {
		olen = rd_name(rd, owner);
		type = rd_u16(rd);
		size = rd_u16(rd);
		ttl = rd_u32(rd);
		rdlen = rd_u16(rd);
		rdata = rd_bytes(rd, rdlen);
		if (rd->err || type != DNS_T_OPT || olen != 1 || i > 0)
			goto formerr;
		q->edns = true;
		q->udp_size = size < DNSWIRE_UDP_PLAIN ? DNSWIRE_UDP_PLAIN :
		    size > DNSWIRE_EDNS_SIZE ? DNSWIRE_EDNS_SIZE : size;
		q->do_bit = (ttl & EDNS_DO) != 0;
		if ((ttl >> 16 & 0xff) != 0) {
			verdict = DNSWIRE_BADVERS;
			continue;
		}
		/* Each option's header and length, within the rdata. */
		rd_init(&opt, rdata, rdlen);
		while (opt.err == 0 && rd_left(&opt) > 0) {
			rd_u16(&opt);		/* OPTION-CODE */
			rd_bytes(&opt, rd_u16(&opt));
		}
		if (opt.err)
			goto formerr;
	}
	return verdict;
formerr:
	q->edns = q->do_bit = false;
	q->udp_size = DNSWIRE_UDP_PLAIN;
	return DNSWIRE_FORMERR;
}

int
dnswire_query_read(const uint8_t *buf, size_t len, struct dnswire_query *ret_q)
{
	struct dnswire_query	*q = ret_q;
	struct rd		 rd;
	uint16_t		 qdcount, ancount, nscount, arcount;
	size_t			 wire_len, next;
	int			 r;

	/* Field by field: the name buffers need no clearing. */
	q->id = q->flags = q->qtype = q->qclass = 0;
	q->opcode = 0;
	q->rd = q->cd = q->name_plain = q->edns = q->do_bit = false;
	q->wire_len = q->name_len = 0;
	q->name[0] = '\0';
	q->udp_size = DNSWIRE_UDP_PLAIN;

	if (len < HDR_LEN)
		return DNSWIRE_DROP;
	rd_init(&rd, buf, len);
	q->id = rd_u16(&rd);
	q->flags = rd_u16(&rd);
	q->opcode = (uint8_t)(q->flags >> 11 & 0x0f);
	q->rd = (q->flags & F_RD) != 0;
	q->cd = (q->flags & F_CD) != 0;
	qdcount = rd_u16(&rd);
	ancount = rd_u16(&rd);
	nscount = rd_u16(&rd);
	arcount = rd_u16(&rd);
	if (q->flags & F_QR)
		return DNSWIRE_DROP;
	if (q->opcode != 0)
		return DNSWIRE_NOTIMP;
	if (qdcount != 1)
		return DNSWIRE_FORMERR;

	/* The name read once, in wire form and as a string. */
	if ((r = dnsmsg_name_both(buf, len, HDR_LEN, q->name, sizeof(q->name),
	    q->wire, &wire_len, &next)) < 0)
		return DNSWIRE_FORMERR;
	rd_seek(&rd, next);
	q->qtype = rd_u16(&rd);
	q->qclass = rd_u16(&rd);
	if (rd.err)
		return DNSWIRE_FORMERR;
	q->wire_len = wire_len;
	if (wire_len == 1)
		q->name[0] = '\0';	/* "." from dnsmsg: "" here */
	else
		q->name_len = (size_t)r;
	q->name_plain = q->name_len > 0 && name_plain(q->name);

	if (ancount != 0 || nscount != 0 || qtype_meta(q->qtype))
		return DNSWIRE_FORMERR;
	return query_additional(&rd, arcount, q);
}

/* ---- the writer ---------------------------------------------------- */

/* Writes n bytes, or marks the record being written as not fitting. */
static void
put(struct dnswire_wr *w, const void *p, size_t n)
{
	if (w->full || n > w->room - w->len) {
		w->full = true;
		return;
	}
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
put_u16(struct dnswire_wr *w, uint16_t v)
{
	uint8_t b[2];

	put16(b, v);
	put(w, b, 2);
}

static void
put_u32(struct dnswire_wr *w, uint32_t v)
{
	uint8_t b[4];

	put32(b, v);
	put(w, b, 4);
}

/*
 * Whether the name written at off (pointers of ours included) equals the
 * uncompressed name s, ignoring ASCII case.  Our pointers only go back to
 * names already written, but the walk is bounded all the same.
 */
static bool
name_at_eq(const struct dnswire_wr *w, size_t off, const uint8_t *s)
{
	unsigned	hops;
	uint8_t		c;

	for (hops = 0; hops < DNSMSG_NAME_MAX; hops++) {
		c = w->buf[off];
		if ((c & 0xc0) == 0xc0) {
			off = (size_t)(c & 0x3f) << 8 | w->buf[off + 1];
			continue;
		}
		if (c != *s)
			return false;
		if (c == 0)
			return true;
		if (!name_eq_fold(w->buf + off + 1, s + 1, c))
			return false;
		off += 1 + (size_t)c;
		s += 1 + (size_t)c;
	}
	return false;
}

/*
 * A name of len wire bytes, uncompressed and trusted.  With compress, its
 * longest suffix written before becomes a pointer, and its new suffixes
 * are remembered once written (while the table has room and a pointer
 * reaches them).  Once the record does not fit, nothing more is compared:
 * the bytes past len are not this reply's.
 */
static void
put_name(struct dnswire_wr *w, const uint8_t *name, size_t len, bool compress)
{
	size_t		pos, n, at;
	unsigned	i;

	for (pos = 0; name[pos] != 0 && !w->full; pos += n) {
		n = 1 + (size_t)name[pos];
		for (i = 0; compress && i < w->nnames; i++)
			if (w->names[i].len == len - pos &&
			    name_at_eq(w, w->names[i].off, name + pos)) {
				put_u16(w, (uint16_t)(0xc000 | w->names[i].off));
				return;
			}
		at = w->len;
		put(w, name + pos, n);
		if (compress && !w->full && at <= PTR_MAX &&
		    w->nnames < DNSWIRE_WR_NAMES) {
			w->names[w->nnames].off = (uint16_t)at;
			w->names[w->nnames].len = (uint8_t)(len - pos);
			w->nnames++;
		}
	}
	put(w, "", 1);
}

/*
 * The rdata layouts that hold names, after RFC 3597 4: names in the rdata
 * of RFC 1035's types may be compressed (and are, when written here); the
 * others' names must not be, but some servers did, so they are expanded
 * when kept.  Layout: 'n' a name, '1' '2' '4' bytes, 's' a
 * character-string, 'r' the rest.
 */
static const struct {
	uint16_t	 type;
	bool		 compress;
	const char	*layout;
} rdata_names[] = {
	{ 2,	true,	"n" },		/* NS */
	{ 3,	true,	"n" },		/* MD */
	{ 4,	true,	"n" },		/* MF */
	{ 5,	true,	"n" },		/* CNAME */
	{ 6,	true,	"nn44444" },	/* SOA */
	{ 7,	true,	"n" },		/* MB */
	{ 8,	true,	"n" },		/* MG */
	{ 9,	true,	"n" },		/* MR */
	{ 12,	true,	"n" },		/* PTR */
	{ 14,	true,	"nn" },		/* MINFO */
	{ 15,	true,	"2n" },		/* MX */
	{ 17,	false,	"nn" },		/* RP */
	{ 18,	false,	"2n" },		/* AFSDB */
	{ 21,	false,	"2n" },		/* RT */
	{ 24,	false,	"2114442nr" },	/* SIG */
	{ 26,	false,	"2nn" },	/* PX */
	{ 30,	false,	"nr" },		/* NXT */
	{ 33,	false,	"222n" },	/* SRV */
	{ 35,	false,	"22sssn" },	/* NAPTR */
};

static int
rdata_layout(uint16_t type, bool *ret_compress)
{
	unsigned i;

	for (i = 0; i < sizeof(rdata_names) / sizeof(rdata_names[0]); i++)
		if (rdata_names[i].type == type) {
			*ret_compress = rdata_names[i].compress;
			return (int)i;
		}
	return -1;
}

/*
 * Copies the rdata at [off, end) of base to w after its layout, names read
 * expanded (pointers may reach back before off: the message's) and put
 * with compress.  -EBADMSG unless the layout takes exactly the rdata.
 */
static int
rdata_copy(struct dnswire_wr *w, const char *layout, const uint8_t *base,
    size_t off, size_t end, bool compress)
{
	uint8_t	name[DNSMSG_NAME_MAX];
	size_t	n, next;
	int	r;

	for (; *layout; layout++) {
		if (*layout == 'n') {
			r = dnsmsg_name_wire(base, end, off, name, &next);
			if (r < 0)
				return r;
			put_name(w, name, (size_t)r, compress);
			off = next;
			continue;
		}
		if (*layout == 's')
			n = off < end ? 1 + (size_t)base[off] : 1;
		else if (*layout == 'r')
			n = end - off;
		else
			n = (size_t)(*layout - '0');
		if (n > end - off)
			return -EBADMSG;
		put(w, base + off, n);
		off += n;
	}
	return off == end ? 0 : -EBADMSG;
}

/*
 * One record, owner uncompressed and trusted (NULL: the question's name,
 * a pointer to it), rdata as kept (names expanded).  On any failure the
 * reply is left as it was.
 */
static int
rr_write(struct dnswire_wr *w, int section, const uint8_t *owner,
    size_t owner_len, uint16_t type, uint16_t rclass, uint32_t ttl,
    const uint8_t *rdata, size_t rdlen)
{
	size_t		start = w->len, at;
	unsigned	nnames = w->nnames;
	bool		compress;
	int		i, r = 0;

	if (section != DNS_S_ANSWER && section != DNS_S_AUTHORITY)
		return -EINVAL;
	if (section < w->section)
		return -EINVAL;
	if (w->tc)
		return -ENOSPC;
	w->full = false;
	/* The question is written whole right after the header: a pointer
	 * to it is what put_name would find, without the search. */
	if (owner == NULL && w->buf[HDR_LEN] == 0)
		put(w, "", 1);		/* the root: shorter than a pointer */
	else if (owner == NULL)
		put_u16(w, 0xc000 | HDR_LEN);
	else
		put_name(w, owner, owner_len, true);
	put_u16(w, type);
	put_u16(w, rclass);
	put_u32(w, ttl > TTL_MAX ? TTL_MAX : ttl);
	at = w->len;
	put_u16(w, 0);
	i = rdata_layout(type, &compress);
	if (i >= 0 && compress)
		r = rdata_copy(w, rdata_names[i].layout, rdata, 0, rdlen, true);
	else
		put(w, rdata, rdlen);
	if (r < 0 || w->full) {
		w->len = start;
		w->nnames = nnames;
		if (r == 0) {
			w->tc = true;
			r = -ENOSPC;
		}
		w->full = false;
		return r;
	}
	put16(w->buf + at, (uint16_t)(w->len - at - 2));
	w->count[section - 1]++;
	w->section = section;
	return 0;
}

/*
 * A name in presentation form as dnsmsg_name writes it (a backslash takes
 * the next byte, or three digits as its value) into wire form.  Returns
 * the length, or -EINVAL: an empty label, a label over 63 bytes, a name
 * over 255.
 */
static int
name_from_str(const char *s, uint8_t *out)
{
	size_t	n = 0, lab;
	int	c;

	if (strcmp(s, ".") == 0)
		s++;
	while (*s) {
		lab = n++;
		for (; *s && *s != '.'; s++) {
			c = (uint8_t)*s;
			if (c == '\\') {
				s++;
				if (s[0] >= '0' && s[0] <= '9' && s[1] >= '0' &&
				    s[1] <= '9' && s[2] >= '0' && s[2] <= '9') {
					c = (s[0] - '0') * 100 + (s[1] - '0') * 10 +
					    (s[2] - '0');
					s += 2;
				} else
					c = (uint8_t)*s;
				if (*s == '\0' || c > 255)
					return -EINVAL;
			}
			/* A label's 63 bytes, a name's 255 with its root. */
			if (n - lab > 63 || n >= DNSMSG_NAME_MAX - 1)
				return -EINVAL;
			out[n++] = (uint8_t)c;
		}
		if (n - lab == 1)
			return -EINVAL;
		out[lab] = (uint8_t)(n - lab - 1);
		if (*s == '.')
			s++;
	}
	out[n++] = 0;
	return (int)n;
}

static void
opt_write(uint8_t *p, uint8_t ext_rcode, bool do_bit)
{
	p[0] = 0;
	put16(p + 1, DNS_T_OPT);
	put16(p + 3, DNSWIRE_EDNS_SIZE);
	put32(p + 5, (uint32_t)ext_rcode << 24 | (do_bit ? EDNS_DO : 0));
	put16(p + 9, 0);
}

void
dnswire_reply_begin(struct dnswire_wr *w, uint8_t *buf, size_t cap,
    size_t limit, const struct dnswire_query *q, uint8_t rcode)
{
	if (limit > cap)
		limit = cap;
	if (limit > DNSWIRE_TCP_LIMIT)
		limit = DNSWIRE_TCP_LIMIT;
	/* 512 hold any question and the OPT: nothing below can fail. */
	assert(limit >= DNSWIRE_UDP_PLAIN && q->wire_len > 0);
	w->buf = buf;
	w->room = limit - (q->edns ? OPT_LEN : 0);
	w->len = HDR_LEN;
	put16(buf, q->id);
	w->flags = (uint16_t)(F_QR | (q->opcode & 0x0f) << 11 | F_RA |
	    (q->rd ? F_RD : 0) | (q->cd ? F_CD : 0) | (rcode & 0x0f));
	w->count[0] = w->count[1] = 0;
	w->section = DNS_S_ANSWER;
	w->tc = w->full = false;
	w->edns = q->edns;
	w->do_bit = q->do_bit;
	w->nnames = 0;
	put_name(w, q->wire, q->wire_len, true);
	put_u16(w, q->qtype);
	put_u16(w, q->qclass);
	w->qend = w->len;
}

/* A record of class IN, owner in presentation form or NULL. */
static int
add(struct dnswire_wr *w, int section, const char *owner, uint16_t type,
    uint32_t ttl, const uint8_t *rdata, size_t rdlen)
{
	uint8_t	wire[DNSMSG_NAME_MAX];
	int	n;

	if (owner == NULL)
		return rr_write(w, section, NULL, 0, type, CLASS_IN, ttl, rdata, rdlen);
	if ((n = name_from_str(owner, wire)) < 0)
		return n;
	return rr_write(w, section, wire, (size_t)n, type, CLASS_IN, ttl, rdata,
	    rdlen);
}

int
dnswire_add_a(struct dnswire_wr *w, int section, const char *owner,
    uint32_t ttl, const uint8_t addr[4])
{
	return add(w, section, owner, DNS_T_A, ttl, addr, 4);
}

int
dnswire_add_aaaa(struct dnswire_wr *w, int section, const char *owner,
    uint32_t ttl, const uint8_t addr[16])
{
	return add(w, section, owner, DNS_T_AAAA, ttl, addr, 16);
}

static int
add_name(struct dnswire_wr *w, int section, const char *owner, uint16_t type,
    uint32_t ttl, const char *target)
{
	uint8_t	wire[DNSMSG_NAME_MAX];
	int	n;

	if ((n = name_from_str(target, wire)) < 0)
		return n;
	return add(w, section, owner, type, ttl, wire, (size_t)n);
}

int
dnswire_add_cname(struct dnswire_wr *w, int section, const char *owner,
    uint32_t ttl, const char *target)
{
	return add_name(w, section, owner, DNS_T_CNAME, ttl, target);
}

int
dnswire_add_ptr(struct dnswire_wr *w, int section, const char *owner,
    uint32_t ttl, const char *target)
{
	return add_name(w, section, owner, DNS_T_PTR, ttl, target);
}

int
dnswire_add_soa(struct dnswire_wr *w, int section, const char *owner,
    uint32_t ttl, const uint8_t *rdata, size_t rdlen)
{
	return add(w, section, owner, DNS_T_SOA, ttl, rdata, rdlen);
}

size_t
dnswire_reply_end(struct dnswire_wr *w)
{
	if (w->tc) {
		w->len = w->qend;
		w->count[0] = w->count[1] = 0;
		w->flags |= F_TC;
	}
	put16(w->buf + 2, w->flags);
	put16(w->buf + 4, 1);
	put16(w->buf + 6, w->count[0]);
	put16(w->buf + 8, w->count[1]);
	put16(w->buf + 10, w->edns ? 1 : 0);
	/* Room for it was held back in dnswire_reply_begin. */
	if (w->edns) {
		opt_write(w->buf + w->len, 0, w->do_bit);
		w->len += OPT_LEN;
	}
	return w->len;
}

size_t
dnswire_reply_error(uint8_t *buf, size_t cap, const struct dnswire_query *q,
    size_t query_len, int rcode)
{
	size_t	budget = query_len < cap ? query_len : cap, len = HDR_LEN;
	bool	opt, question;

	if (rcode < 0 || budget < HDR_LEN)
		return 0;
	/* The OPT before the question: BADVERS is said in it. */
	opt = q->edns && len + OPT_LEN <= budget;
	if (rcode > 0x0f && !opt)
		return 0;	/* its low bits alone would say NOERROR */
	len += opt ? OPT_LEN : 0;
	question = q->wire_len > 0 && len + q->wire_len + 4 <= budget;
	put16(buf, q->id);
	put16(buf + 2, (uint16_t)(F_QR | (q->opcode & 0x0f) << 11 |
	    (q->rd ? F_RD : 0) | (q->cd ? F_CD : 0) |
	    (rcode == DNS_R_REFUSED ? 0 : F_RA) | (rcode & 0x0f)));
	put16(buf + 4, question ? 1 : 0);
	put16(buf + 6, 0);
	put16(buf + 8, 0);
	put16(buf + 10, opt ? 1 : 0);
	len = HDR_LEN;
	if (question) {
		memcpy(buf + len, q->wire, q->wire_len);
		len += q->wire_len;
		put16(buf + len, q->qtype);
		put16(buf + len + 2, q->qclass);
		len += 4;
	}
	if (opt) {
		opt_write(buf + len, (uint8_t)(rcode >> 4), q->do_bit);
		len += OPT_LEN;
	}
	return len;
}

/* ---- kept records -------------------------------------------------- */

/* One kept record, pointing into the list. */
struct kept_rr {
	int		 section;
	const uint8_t	*owner;		/* uncompressed */
	size_t		 owner_len;
	uint16_t	 type, rclass;
	uint32_t	 ttl;
	const uint8_t	*rdata;
	uint16_t	 rdlen;
};

/*
 * The record at rd's offset, checked: a section no earlier than prev, an
 * owner without pointers (read from its own start, none can point before
 * it), the rdata in bounds.  -EBADMSG or 0.
 */
static int
kept_next(struct rd *rd, int prev, struct kept_rr *rr)
{
	size_t	next;
	int	r;

	rr->section = rd_u8(rd);
	if (rd->err || rr->section < prev || rr->section > DNS_S_AUTHORITY)
		return -EBADMSG;
	rr->owner = rd->p + rd->off;
	r = dnsmsg_name_wire(rr->owner, rd_left(rd), 0, NULL, &next);
	if (r < 0)
		return r;
	rr->owner_len = (size_t)r;
	rd_bytes(rd, next);
	rr->type = rd_u16(rd);
	rr->rclass = rd_u16(rd);
	rr->ttl = rd_u32(rd);
	rr->rdlen = rd_u16(rd);
	rr->rdata = rd_bytes(rd, rr->rdlen);
	return rd->err;
}

int
dnswire_add_kept(struct dnswire_wr *w, const uint8_t *kept, size_t kept_len,
    uint32_t age, uint32_t cap)
{
	struct dnswire_wr	saved = *w;
	struct kept_rr		rr;
	struct rd		rd;
	uint32_t		ttl;
	int			r = 0;

	rd_init(&rd, kept, kept_len);
	rr.section = DNS_S_ANSWER;
	while (rd_left(&rd) > 0) {
		if ((r = kept_next(&rd, rr.section, &rr)) < 0)
			break;
		ttl = rr.ttl > age ? rr.ttl - age : 0;
		r = rr_write(w, rr.section, rr.owner, rr.owner_len, rr.type,
		    rr.rclass, ttl < cap ? ttl : cap, rr.rdata, rr.rdlen);
		if (r == -ENOSPC)
			return r;	/* the reply is cut back at its end */
		if (r < 0)
			break;
	}
	if (r < 0)
		*w = saved;
	return r;
}

int
dnswire_rrs_keep(const uint8_t *msg, size_t len, uint8_t *out, size_t cap)
{
	struct dnsmsg		 m;
	struct dnswire_wr	 w;
	struct rd		 rd;
	uint8_t			 owner[DNSMSG_NAME_MAX];
	const uint8_t		*p;
	uint16_t		 type, rdlen;
	uint32_t		 ttl, minimum;
	size_t			 olen, at, rdata_off;
	unsigned		 i, n;
	uint8_t			 section;
	bool			 compress;
	int			 l, r;

	/* The question is not read here: no text of it. */
	if (dnsmsg_parse_wire(msg, len, &m) < 0)
		return -EBADMSG;
	memset(&w, 0, sizeof(w));
	w.buf = out;
	w.room = cap;
	rd_init(&rd, msg, len);
	rd_seek(&rd, m.rr_off);
	n = (unsigned)m.ancount + m.nscount;
	for (i = 0; i < n; i++) {
		olen = rd_name(&rd, owner);
		type = rd_u16(&rd);
		rd_u16(&rd);
		ttl = rd_u32(&rd);
		rdlen = rd_u16(&rd);
		rdata_off = rd.off;
		if (rd_bytes(&rd, rdlen) == NULL)
			return -EBADMSG;	/* cannot happen: dnsmsg_parse read it */
		if (type == DNS_T_OPT)
			continue;
		/* Section, owner, then type, class and TTL as they came. */
		section = i < m.ancount ? DNS_S_ANSWER : DNS_S_AUTHORITY;
		put(&w, &section, 1);
		put_name(&w, owner, olen, false);
		put(&w, msg + rdata_off - 10, 8);
		at = w.len;
		put_u16(&w, 0);
		if ((l = rdata_layout(type, &compress)) >= 0) {
			r = rdata_copy(&w, rdata_names[l].layout, msg, rdata_off,
			    rdata_off + rdlen, false);
			if (r < 0)
				return r;
		} else
			put(&w, msg + rdata_off, rdlen);
		if (w.full)
			return -ENOSPC;
		if (w.len - at - 2 > UINT16_MAX)
			return -EBADMSG;	/* grown past any rdata by expanding */
		put16(out + at, (uint16_t)(w.len - at - 2));
		if (ttl > TTL_MAX)
			ttl = 0;
		if (type == DNS_T_SOA && i >= m.ancount) {
			p = out + w.len - 4;
			minimum = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			    (uint32_t)p[2] << 8 | p[3];
			if (minimum < ttl)
				ttl = minimum;
		}
		put32(out + at - 4, ttl);
	}
	return (int)w.len;
}

int
dnswire_rrs_ttl(const uint8_t *kept, size_t len, uint32_t *ret_ttl)
{
	struct kept_rr	rr;
	struct rd	rd;
	uint32_t	ttl = UINT32_MAX;
	bool		any = false;
	int		r;

	rd_init(&rd, kept, len);
	rr.section = DNS_S_ANSWER;
	while (rd_left(&rd) > 0) {
		if ((r = kept_next(&rd, rr.section, &rr)) < 0)
			return r;
		if (rr.ttl < ttl)
			ttl = rr.ttl;
		any = true;
	}
	if (!any)
		return -ENOENT;
	*ret_ttl = ttl;
	return 0;
}

int
dnswire_rrs_answers(const uint8_t *kept, size_t len)
{
	struct kept_rr	rr;
	struct rd	rd;
	size_t		at;
	int		r;

	rd_init(&rd, kept, len);
	rr.section = DNS_S_ANSWER;
	while (rd_left(&rd) > 0) {
		at = rd.off;
		if ((r = kept_next(&rd, rr.section, &rr)) < 0)
			return r;
		if (rr.section != DNS_S_ANSWER)
			return (int)at;
	}
	return (int)rd.off;
}
