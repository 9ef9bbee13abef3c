/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsmsg.c - a bounds-checked reader of DNS messages (RFC 1035), fuzzed; and the query we send. */

/*
 * Design.  Every byte of a message comes from the network, so every read
 * goes through struct rd (proto/rd.h), compression pointers included,
 * whose error is sticky: a reader takes all its fields and checks err
 * once.  Output strings go through struct wr, which never writes past its
 * buffer, always NUL-terminates, and keeps a sticky -ENOSPC; a malformed
 * message (-EBADMSG) wins over a short buffer, so the answer does not
 * depend on the buffer's size.
 *
 * Compression (RFC 1035 4.1.4): a pointer must point strictly before the
 * start of the run of labels it ends, that is before the name's own start
 * or before the previous pointer's target.  Offsets then strictly decrease
 * from jump to jump, so no loop can exist; DNSMSG_MAX_POINTERS and the
 * 255-byte limit on the decoded name bound the work besides.  Every valid
 * encoder points at a name written earlier, so this rejects only loops and
 * pointers into the middle of the name being read.
 *
 * Names inside rdata are read with the message cut at the end of the rdata:
 * pointers only go backwards, so this still lets them point anywhere
 * earlier in the message, and keeps a name from running into the next RR.
 *
 * The query (dnsmsg_query) is c-ares 1.18's ares_create_query, written
 * into the caller's buffer: the name read as c-ares reads it
 * (dnsmsg_name_from_text, which dnsanswer.c also uses to know our name in
 * the reply), so what we ask and what we check are one reading.  The unit
 * test and the fuzzer hold it to ares_create_query itself.
 *
 * Nothing here allocates, logs or touches errno.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dnsmsg.h"
#include "name.h"
#include "rd.h"


/* A string writer: never past cap, always NUL-terminated, sticky -ENOSPC. */
struct wr {
	char		*p;		/* NULL: only count */
	size_t		 cap;
	size_t		 off;		/* length of the whole string, written or not */
	int		 err;		/* 0 or -ENOSPC */
};

static void
wr_init(struct wr *w, char *p, size_t cap)
{
	w->p = p;
	w->cap = cap;
	w->off = 0;
	w->err = 0;
	if (p == NULL)
		w->cap = 0;
	else if (cap == 0)
		w->err = -ENOSPC;
	else
		p[0] = '\0';
}

static void
wr_char(struct wr *w, char c)
{
	if (w->p != NULL) {
		if (w->off + 1 < w->cap) {
			w->p[w->off] = c;
			w->p[w->off + 1] = '\0';
		} else
			w->err = -ENOSPC;
	}
	w->off++;
}

static void
wr_str(struct wr *w, const char *s)
{
	while (*s)
		wr_char(w, *s++);
}

static void
wr_uint(struct wr *w, uint32_t v)
{
	char	tmp[10];
	size_t	n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		wr_char(w, tmp[--n]);
}

/* \DDD, three decimal digits as RFC 1035 5.1 writes them. */
static void
wr_ddd(struct wr *w, uint8_t c)
{
	wr_char(w, '\\');
	wr_char(w, (char)('0' + c / 100));
	wr_char(w, (char)('0' + c / 10 % 10));
	wr_char(w, (char)('0' + c % 10));
}

static int
wr_end(const struct wr *w)
{
	return w->err ? w->err : (int)w->off;
}

/*
 * As glibc's ns_name_ntop writes a label, so that names reach programs
 * spelled as glibc's own dns module would spell them: the zone-file
 * specials get a backslash, other printable bytes pass, the rest is \DDD.
 */
static bool
name_special(uint8_t c)
{
	return c == '"' || c == '.' || c == ';' || c == '\\' || c == '(' ||
	    c == ')' || c == '@' || c == '$';
}

static void
wr_label_byte(struct wr *w, uint8_t c)
{
	if (name_special(c)) {
		wr_char(w, '\\');
		wr_char(w, (char)c);
	} else if (c > 0x20 && c < 0x7f)
		wr_char(w, (char)c);
	else
		wr_ddd(w, c);
}

/*
 * The bytes wr_label_byte writes as they are, one bit each: 0x21 to 0x7e
 * but the specials (test_name_every_byte holds the two to one rule).
 */
static const uint64_t label_plain[2] = {
	UINT64_C(0xf7ffbcea00000000), UINT64_C(0x7fffffffeffffffe),
};

/*
 * A whole label as wr_label_byte writes each byte: most labels are
 * letters, digits and hyphens, which are copied at once.
 */
static void
wr_label(struct wr *w, const uint8_t *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] >= 0x80 || !(label_plain[l[i] >> 6] >> (l[i] & 63) & 1))
			break;
	if (i < n || w->p == NULL || w->off + n >= w->cap) {
		for (i = 0; i < n; i++)
			wr_label_byte(w, l[i]);
		return;
	}
	memcpy(w->p + w->off, l, n);
	w->off += n;
	w->p[w->off] = '\0';
}

/* A character-string's bytes inside quotes, as for TXT and CAA values. */
static void
wr_quoted(struct wr *w, const uint8_t *s, size_t n)
{
	size_t i;

	wr_char(w, '"');
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			wr_char(w, '\\');
			wr_char(w, (char)s[i]);
		} else if (s[i] >= 0x20 && s[i] < 0x7f)
			wr_char(w, (char)s[i]);
		else
			wr_ddd(w, s[i]);
	}
	wr_char(w, '"');
}

/*
 * Reads the name at off in buf[0..len) into w (NULL: no text): labels
 * joined by '.', the root as "."; with absolute, every label is followed
 * by a '.'.  With wire set, also the name in wire form, expanded
 * (DNSMSG_NAME_MAX bytes fit).
 * *ret_next gets the offset just past the name's encoding at off.  Returns
 * the length of the wire form, or -EBADMSG.
 */
void
dnsmsg_labels_init(struct dnsmsg_labels *l, const uint8_t *buf, size_t len, size_t off)
{
	rd_init(&l->rd, buf, len);
	rd_seek(&l->rd, off);
	l->seg = off;
	l->next = 0;
	l->ptrs = 0;
}

int
dnsmsg_labels_next(struct dnsmsg_labels *l)
{
	struct rd	*rd = &l->rd;
	size_t		 target;
	uint8_t		 c;

	for (;;) {
		c = rd_u8(rd);
		if (rd->err)
			return -EBADMSG;
		if ((c & 0xc0) != 0xc0)
			break;
		target = (size_t)(c & 0x3f) << 8 | rd_u8(rd);
		if (rd->err || target >= l->seg || ++l->ptrs > DNSMSG_MAX_POINTERS)
			return -EBADMSG;
		if (l->next == 0)
			l->next = rd->off;
		rd_seek(rd, target);	/* before seg: in bounds */
		l->seg = target;
	}
	if (c & 0xc0)
		return -EBADMSG;	/* 0x40 extended, 0x80 reserved */
	return c;
}

const uint8_t *
dnsmsg_labels_take(struct dnsmsg_labels *l, size_t n)
{
	return rd_bytes(&l->rd, n);
}

size_t
dnsmsg_labels_end(const struct dnsmsg_labels *l)
{
	return l->next ? l->next : l->rd.off;
}

static int
name_read(const uint8_t *buf, size_t len, size_t off, struct wr *w,
    bool absolute, uint8_t *wire_out, size_t *ret_next)
{
	struct dnsmsg_labels	 lb;
	const uint8_t		*label;
	size_t			 wire = 0;
	unsigned		 labels = 0;
	int			 c;

	dnsmsg_labels_init(&lb, buf, len, off);
	while ((c = dnsmsg_labels_next(&lb)) != 0) {
		if (c < 0 || (label = dnsmsg_labels_take(&lb, (size_t)c)) == NULL)
			return -EBADMSG;
		/* With the root label still to come, at most 254 so far. */
		if (wire + 1 + (size_t)c > DNSMSG_NAME_MAX - 1)
			return -EBADMSG;
		if (wire_out) {
			wire_out[wire] = (uint8_t)c;
			memcpy(wire_out + wire + 1, label, (size_t)c);
		}
		wire += 1 + (size_t)c;
		if (w == NULL)
			continue;
		if (labels++ > 0 && !absolute)
			wr_char(w, '.');
		wr_label(w, label, (size_t)c);
		if (absolute)
			wr_char(w, '.');
	}
	if (labels == 0 && w)
		wr_char(w, '.');
	if (wire_out)
		wire_out[wire] = 0;
	if (ret_next)
		*ret_next = dnsmsg_labels_end(&lb);
	return (int)wire + 1;
}

int
dnsmsg_name(const uint8_t *buf, size_t len, size_t off, char *out,
    size_t outlen, size_t *ret_next)
{
	struct wr	w;
	size_t		next;
	int		r;

	wr_init(&w, out, outlen);
	if ((r = name_read(buf, len, off, &w, false, NULL, &next)) < 0)
		return r;
	if (w.err)
		return w.err;
	if (ret_next)
		*ret_next = next;
	return (int)w.off;
}

int
dnsmsg_name_wire(const uint8_t *buf, size_t len, size_t off, uint8_t *out,
    size_t *ret_next)
{
	size_t	next;
	int	r;

	if ((r = name_read(buf, len, off, NULL, false, out, &next)) < 0)
		return r;
	if (ret_next)
		*ret_next = next;
	return r;
}

int
dnsmsg_name_both(const uint8_t *buf, size_t len, size_t off, char *out,
    size_t outlen, uint8_t *wire, size_t *ret_wire_len, size_t *ret_next)
{
	struct wr	w;
	size_t		next;
	int		r;

	wr_init(&w, out, outlen);
	if ((r = name_read(buf, len, off, &w, false, wire, &next)) < 0)
		return r;
	if (w.err)
		return w.err;
	*ret_wire_len = (size_t)r;
	if (ret_next)
		*ret_next = next;
	return (int)w.off;
}

int
dnsmsg_name_normalize(const char *in, char *out, size_t outlen)
{
	struct wr	w;
	const char	*p;
	bool		 first = true;

	/*
	 * Labels as c-ares 1.18 puts them on the wire: split at unescaped
	 * dots, a backslash takes the next byte as it is.  Then written back
	 * as dnsmsg_name writes names read from a message.
	 */
	wr_init(&w, out, outlen);
	for (p = in; *p; ) {
		if (*p == '.') {
			p++;
			if (*p == '\0')
				break;		/* the trailing dot of an absolute name */
			wr_char(&w, '.');
			continue;
		}
		if (*p == '\\' && p[1] != '\0')
			p++;
		wr_label_byte(&w, (uint8_t)*p++);
		first = false;
	}
	if (first)
		wr_char(&w, '.');
	return w.err ? w.err : (int)w.off;
}

/* A name through rd: read in place, rd moves past its encoding. */
static void
rd_name(struct rd *rd, struct wr *w, bool absolute)
{
	size_t next;

	if (rd->err)
		return;
	if (name_read(rd->p, rd->len, rd->off, w, absolute, NULL, &next) < 0)
		rd->err = -EBADMSG;
	else
		rd_seek(rd, next);
}

/* The fixed part of an RR, and where its owner is. */
struct rrfix {
	size_t		 owner_off;
	uint16_t	 type;
	uint16_t	 rclass;
	uint32_t	 ttl;
	uint16_t	 rdlen;
	size_t		 rdata_off;
};

/*
 * Past the name at rd's offset, its pointer not followed: in bounds, but
 * the name's own checks are left to whoever reads it (dnsmsg_parse has
 * made them for every owner of a message it parsed).
 */
static void
rd_skip_name(struct rd *rd)
{
	uint8_t c;

	while (rd->err == 0) {
		c = rd_u8(rd);
		if ((c & 0xc0) == 0xc0) {
			rd_u8(rd);
			return;
		}
		if (c & 0xc0)
			rd->err = -EBADMSG;
		else if (c == 0)
			return;
		else
			rd_bytes(rd, c);
	}
}

/*
 * One RR at rd's offset: the owner checked (not decoded) when check is
 * set, else only skipped; the rest read.
 */
static void
rd_rr(struct rd *rd, struct rrfix *rr, bool check)
{
	rr->owner_off = rd->off;
	if (check)
		rd_name(rd, NULL, false);
	else
		rd_skip_name(rd);
	rr->type = rd_u16(rd);
	rr->rclass = rd_u16(rd);
	rr->ttl = rd_u32(rd);
	rr->rdlen = rd_u16(rd);
	rr->rdata_off = rd->off;
	rd_bytes(rd, rr->rdlen);
}

/* dnsmsg_parse, and with text unset dnsmsg_parse_wire. */
static int
parse(const uint8_t *buf, size_t len, struct dnsmsg *ret_msg, bool text)
{
	struct rrfix	 rr;
	struct rd	 rd;
	uint16_t	 id, flags, qdcount, ancount, nscount, arcount;
	uint16_t	 qtype = 0, qclass = 0;
	size_t		 qname_off = 0, rr_off;
	unsigned	 i, total;

	rd_init(&rd, buf, len);
	id = rd_u16(&rd);
	flags = rd_u16(&rd);
	qdcount = rd_u16(&rd);
	ancount = rd_u16(&rd);
	nscount = rd_u16(&rd);
	arcount = rd_u16(&rd);
	total = (unsigned)ancount + nscount + arcount;
	if (rd.err || qdcount > 1 || total > DNSMSG_MAX_RRS)
		return -EBADMSG;
	if (qdcount == 1) {
		qname_off = rd.off;
		rd_name(&rd, NULL, false);
		qtype = rd_u16(&rd);
		qclass = rd_u16(&rd);
	}
	rr_off = rd.off;
	for (i = 0; i < total && rd.err == 0; i++)
		rd_rr(&rd, &rr, true);
	if (rd.err)
		return -EBADMSG;
	/* The question's text once all is checked: it decodes, and fits. */
	ret_msg->qname[0] = '\0';
	if (text && qdcount == 1 && dnsmsg_name(buf, len, qname_off,
	    ret_msg->qname, sizeof(ret_msg->qname), NULL) < 0)
		return -EBADMSG;	/* cannot happen */
	ret_msg->buf = buf;
	ret_msg->len = len;
	ret_msg->id = id;
	ret_msg->flags = flags;
	ret_msg->rcode = flags & 0x0f;
	ret_msg->qdcount = qdcount;
	ret_msg->ancount = ancount;
	ret_msg->nscount = nscount;
	ret_msg->arcount = arcount;
	ret_msg->qname_off = qname_off;
	ret_msg->qtype = qtype;
	ret_msg->qclass = qclass;
	ret_msg->rr_off = rr_off;
	return 0;
}

int
dnsmsg_parse(const uint8_t *buf, size_t len, struct dnsmsg *ret_msg)
{
	return parse(buf, len, ret_msg, true);
}

int
dnsmsg_parse_wire(const uint8_t *buf, size_t len, struct dnsmsg *ret_msg)
{
	return parse(buf, len, ret_msg, false);
}

int
dnsmsg_next_rr(const struct dnsmsg *msg, struct dnsmsg_iter *it,
    struct dnsmsg_rr *ret_rr)
{
	struct rrfix	 rr;
	struct rd	 rd;
	unsigned	 an = msg->ancount, ns = msg->nscount;
	unsigned	 total = an + ns + msg->arcount;

	if (it->index >= total)
		return 0;
	rd_init(&rd, msg->buf, msg->len);
	rd_seek(&rd, it->off ? it->off : msg->rr_off);
	rd_rr(&rd, &rr, !it->no_names);
	if (rd.err)
		return -EBADMSG;
	/* Checked by rd_rr: it decodes, and the buffer fits any name. */
	if (it->no_names)
		ret_rr->name[0] = '\0';
	else if (dnsmsg_name(msg->buf, msg->len, rr.owner_off, ret_rr->name,
	    sizeof(ret_rr->name), NULL) < 0)
		return -EBADMSG;	/* cannot happen */
	ret_rr->owner_off = rr.owner_off;
	ret_rr->type = rr.type;
	ret_rr->rclass = rr.rclass;
	ret_rr->ttl = rr.ttl;
	ret_rr->rdlen = rr.rdlen;
	ret_rr->rdata_off = rr.rdata_off;
	if (it->index < an)
		ret_rr->section = DNS_S_ANSWER;
	else if (it->index < an + ns)
		ret_rr->section = DNS_S_AUTHORITY;
	else
		ret_rr->section = DNS_S_ADDITIONAL;
	it->off = rd.off;
	it->index++;
	return 1;
}

/* A reader over rr's rdata, the message cut at its end (see the top). */
static void
rd_rdata(struct rd *rd, const struct dnsmsg *msg, const struct dnsmsg_rr *rr)
{
	if (rr->rdata_off > msg->len || rr->rdlen > msg->len - rr->rdata_off) {
		rd_init(rd, msg->buf, 0);
		rd->err = -EBADMSG;
		return;
	}
	rd_init(rd, msg->buf, rr->rdata_off + rr->rdlen);
	rd_seek(rd, rr->rdata_off);
}

static void
wr_addr(struct wr *w, int af, const uint8_t *a)
{
	char	text[INET6_ADDRSTRLEN];
	int	saved = errno;

	/* inet_ntop cannot fail with this buffer; errno stays as it was. */
	if (inet_ntop(af, a, text, sizeof(text)) == NULL)
		text[0] = '\0';
	errno = saved;
	wr_str(w, text);
}

/* RFC 3597: "\# LEN HEX", lowercase, "\# 0" for empty rdata. */
static void
wr_unknown(struct wr *w, struct rd *rd)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 n = rd_left(rd), i;
	const uint8_t		*p = rd_bytes(rd, n);

	wr_str(w, "\\# ");
	wr_uint(w, (uint32_t)n);
	if (n)
		wr_char(w, ' ');
	for (i = 0; p && i < n; i++) {
		wr_char(w, hex[p[i] >> 4]);
		wr_char(w, hex[p[i] & 0xf]);
	}
}

static void
wr_caa(struct wr *w, struct rd *rd)
{
	const uint8_t	*tag, *val;
	uint8_t		 flags, taglen, i;

	flags = rd_u8(rd);
	taglen = rd_u8(rd);
	/* RFC 8659 4.1.1: a tag is 1 to 15 letters and digits. */
	if (taglen < 1 || taglen > 15)
		rd->err = -EBADMSG;
	tag = rd_bytes(rd, taglen);
	val = rd_bytes(rd, rd_left(rd));
	if (rd->err)
		return;
	wr_uint(w, flags);
	wr_char(w, ' ');
	for (i = 0; i < taglen; i++) {
		if (!((tag[i] >= 'a' && tag[i] <= 'z') ||
		    (tag[i] >= 'A' && tag[i] <= 'Z') ||
		    (tag[i] >= '0' && tag[i] <= '9'))) {
			rd->err = -EBADMSG;
			return;
		}
		wr_char(w, (char)tag[i]);
	}
	wr_char(w, ' ');
	wr_quoted(w, val, rd->len - (size_t)(val - rd->p));
}

int
dnsmsg_rdata_str(const struct dnsmsg *msg, const struct dnsmsg_rr *rr,
    char *out, size_t outlen)
{
	struct rd	 rd;
	struct wr	 w;
	const uint8_t	*p;
	uint8_t		 n;
	int		 i;

	rd_rdata(&rd, msg, rr);
	wr_init(&w, out, outlen);
	switch (rr->type) {
	case DNS_T_A:
		if ((p = rd_bytes(&rd, 4)) != NULL)
			wr_addr(&w, AF_INET, p);
		break;
	case DNS_T_AAAA:
		if ((p = rd_bytes(&rd, 16)) != NULL)
			wr_addr(&w, AF_INET6, p);
		break;
	case DNS_T_NS:
	case DNS_T_CNAME:
	case DNS_T_PTR:
		rd_name(&rd, &w, true);
		break;
	case DNS_T_MX:
		wr_uint(&w, rd_u16(&rd));
		wr_char(&w, ' ');
		rd_name(&rd, &w, true);
		break;
	case DNS_T_SOA:
		rd_name(&rd, &w, true);
		wr_char(&w, ' ');
		rd_name(&rd, &w, true);
		for (i = 0; i < 5; i++) {
			wr_char(&w, ' ');
			wr_uint(&w, rd_u32(&rd));
		}
		break;
	case DNS_T_TXT:
		/* One or more character-strings (RFC 1035 3.3.14). */
		if (rd_left(&rd) == 0)
			rd.err = -EBADMSG;
		while (rd.err == 0 && rd_left(&rd) > 0) {
			n = rd_u8(&rd);
			if ((p = rd_bytes(&rd, n)) == NULL)
				break;
			if (w.off)
				wr_char(&w, ' ');
			wr_quoted(&w, p, n);
		}
		break;
	case DNS_T_SRV:
		/* RFC 2782 forbids compressing the target; accepted anyway. */
		for (i = 0; i < 3; i++) {
			wr_uint(&w, rd_u16(&rd));
			wr_char(&w, ' ');
		}
		rd_name(&rd, &w, true);
		break;
	case DNS_T_CAA:
		wr_caa(&w, &rd);
		break;
	default:
		wr_unknown(&w, &rd);
		break;
	}
	if (!rd_done(&rd))
		return -EBADMSG;
	return wr_end(&w);
}

int
dnsmsg_rdata_addr(const struct dnsmsg *msg, const struct dnsmsg_rr *rr,
    uint8_t *out)
{
	struct rd	 rd;
	const uint8_t	*p;
	size_t		 n;

	if (rr->type == DNS_T_A)
		n = 4;
	else if (rr->type == DNS_T_AAAA)
		n = 16;
	else
		return -EINVAL;
	rd_rdata(&rd, msg, rr);
	p = rd_bytes(&rd, n);
	if (!rd_done(&rd))
		return -EBADMSG;
	memcpy(out, p, n);
	return (int)n;
}

int
dnsmsg_rdata_name(const struct dnsmsg *msg, const struct dnsmsg_rr *rr,
    char *out, size_t outlen)
{
	struct rd	rd;
	struct wr	w;

	if (rr->type != DNS_T_CNAME && rr->type != DNS_T_PTR &&
	    rr->type != DNS_T_NS)
		return -EINVAL;
	rd_rdata(&rd, msg, rr);
	wr_init(&w, out, outlen);
	rd_name(&rd, &w, false);
	if (!rd_done(&rd))
		return -EBADMSG;
	return wr_end(&w);
}

int
dnsmsg_rdata_name_wire(const struct dnsmsg *msg, const struct dnsmsg_rr *rr,
    uint8_t *out)
{
	struct rd	rd;
	size_t		next;
	int		r;

	if (rr->type != DNS_T_CNAME && rr->type != DNS_T_PTR &&
	    rr->type != DNS_T_NS)
		return -EINVAL;
	rd_rdata(&rd, msg, rr);
	if (rd.err || (r = name_read(rd.p, rd.len, rd.off, NULL, false, out,
	    &next)) < 0)
		return -EBADMSG;
	/* The name fills the rdata, as rd_done asks of dnsmsg_rdata_name. */
	return next == rd.len ? r : -EBADMSG;
}

int
dnsmsg_rdata_soa_minimum(const struct dnsmsg *msg, const struct dnsmsg_rr *rr,
    uint32_t *ret_minimum)
{
	struct rd	rd;
	uint32_t	minimum;

	if (rr->type != DNS_T_SOA)
		return -EINVAL;
	rd_rdata(&rd, msg, rr);
	/* Checked, not written out (no text to count, either). */
	rd_name(&rd, NULL, false);	/* MNAME */
	rd_name(&rd, NULL, false);	/* RNAME */
	rd_bytes(&rd, 16);		/* SERIAL REFRESH RETRY EXPIRE */
	minimum = rd_u32(&rd);
	if (!rd_done(&rd))
		return -EBADMSG;
	*ret_minimum = minimum;
	return 0;
}

static const struct {
	uint16_t	 type;
	const char	*name;
} types[] = {
	{ DNS_T_A,	"A" },
	{ DNS_T_NS,	"NS" },
	{ DNS_T_CNAME,	"CNAME" },
	{ DNS_T_SOA,	"SOA" },
	{ DNS_T_PTR,	"PTR" },
	{ DNS_T_MX,	"MX" },
	{ DNS_T_TXT,	"TXT" },
	{ DNS_T_AAAA,	"AAAA" },
	{ DNS_T_SRV,	"SRV" },
	{ DNS_T_OPT,	"OPT" },
	{ DNS_T_CAA,	"CAA" },
};

const char *
dnsmsg_type_str(uint16_t type, char *buf, size_t len)
{
	size_t	i;
	int	saved = errno;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return types[i].name;
	if (buf == NULL || len == 0)
		return "TYPE";
	snprintf(buf, len, "TYPE%u", (unsigned)type);
	errno = saved;
	return buf;
}

int
dnsmsg_type_from_str(const char *s)
{
	size_t		i;
	uint32_t	v = 0;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(s, types[i].name) == 0)
			return types[i].type;
	if (strncasecmp(s, "TYPE", 4) != 0 || s[4] == '\0')
		return -1;
	for (s += 4; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > UINT16_MAX)
			return -1;
	}
	return (int)v;
}
