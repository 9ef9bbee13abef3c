/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-dnsmsg.c - fuzz target: DNS messages as an upstream sends them. */

/*
 * The input is one DNS message.  When it parses, every RR is walked and
 * every accessor run on it, and their answers are held to the header's
 * promises (lengths, NUL termination, -ENOSPC exactly when the buffer is
 * short).  Whether or not it parses, names are decoded at many offsets,
 * and its first bytes, as a name, make the same query as c-ares makes.
 */
#include <errno.h>
#include <string.h>

#include <ares.h>

#include "dnsmsg.h"
#include "fuzz.h"

#define OUT_MAX		(4 * 65536 + 64)	/* "\# 65535 " and two hex digits a byte */

static char	out[OUT_MAX];
static char	small[OUT_MAX];

/*
 * dnsmsg_name_eq against the wire form of the (valid) name at off, and
 * against variants of it, says what dnsmsg_name_cmp says of the texts;
 * and the text read back through dnsmsg_name_from_text (with a backslash
 * before each byte, as c-ares reads names) gives the name again.
 */
static void
check_name_eq(const uint8_t *data, size_t size, size_t off,
    const uint8_t *wire, size_t wlen)
{
	uint8_t	other[DNSMSG_NAME_MAX], again[DNSMSG_NAME_MAX];
	char	text[DNSMSG_NAME_STRLEN], otext[DNSMSG_NAME_STRLEN];
	char	esc[2 * DNSMSG_NAME_MAX + 1];
	size_t	i, k, at, n;
	int	r;

	FUZZ_CHECK(dnsmsg_name_eq(data, size, off, wire) == 1);
	FUZZ_CHECK(dnsmsg_name(wire, wlen, 0, text, sizeof(text), NULL) > 0);
	/* Two bytes of the wire form changed in turn: the case, or one up. */
	for (k = 0; k < 2; k++) {
		i = (off + k * (wlen / 2 + 1)) % wlen;
		memcpy(other, wire, wlen);
		other[i] = other[i] >= 'a' && other[i] <= 'z' ?
		    (uint8_t)(other[i] - 32) : (uint8_t)(other[i] + 1);
		if (dnsmsg_name(other, wlen, 0, otext, sizeof(otext), NULL) < 0)
			continue;	/* a length byte made the name bad */
		r = dnsmsg_name_eq(data, size, off, other);
		FUZZ_CHECK(r == (dnsmsg_name_cmp(text, otext) == 0));
	}
	/* Every byte escaped: c-ares' reading gives it back as it is. */
	for (i = 0, at = 0, n = 0; wire[at] != 0; at += 1 + wire[at]) {
		if (at > 0)
			esc[n++] = '.';
		for (i = 0; i < wire[at]; i++) {
			if (wire[at + 1 + i] == 0)
				return;		/* a C string cannot carry it */
			esc[n++] = '\\';
			esc[n++] = (char)wire[at + 1 + i];
		}
	}
	esc[n] = '\0';
	FUZZ_CHECK(dnsmsg_name_from_text(esc, again) == (int)wlen);
	FUZZ_CHECK(memcmp(again, wire, wlen) == 0);
}

static void
check_name(const uint8_t *data, size_t size, size_t off)
{
	char	name[DNSMSG_NAME_STRLEN], dotted[DNSMSG_NAME_STRLEN + 1];
	uint8_t	wire[DNSMSG_NAME_MAX];
	size_t	next = SIZE_MAX, wnext = SIZE_MAX;
	int	r, wr;

	r = dnsmsg_name(data, size, off, name, sizeof(name), &next);
	FUZZ_CHECK(r == -EBADMSG || r > 0);
	FUZZ_CHECK(dnsmsg_name(data, size, off, NULL, 0, NULL) == r);
	/* The wire form: read exactly when the string is, and says the same. */
	wr = dnsmsg_name_wire(data, size, off, wire, &wnext);
	FUZZ_CHECK((wr > 0) == (r > 0));
	if (r < 0) {
		FUZZ_CHECK(next == SIZE_MAX && wnext == SIZE_MAX);
		return;
	}
	FUZZ_CHECK(wr <= DNSMSG_NAME_MAX && wire[wr - 1] == 0 && wnext == next);
	FUZZ_CHECK(dnsmsg_name(wire, (size_t)wr, 0, dotted, sizeof(dotted),
	    NULL) == r && strcmp(dotted, name) == 0);
	FUZZ_CHECK((size_t)r == strlen(name) && r < DNSMSG_NAME_STRLEN);
	FUZZ_CHECK(next > off && next <= size);
	FUZZ_CHECK(dnsmsg_name_cmp(name, name) == 0);
	if (strcmp(name, ".") != 0) {
		memcpy(dotted, name, (size_t)r);
		dotted[r] = '.';
		dotted[r + 1] = '\0';
		FUZZ_CHECK(dnsmsg_name_cmp(name, dotted) == 0);
		FUZZ_CHECK(dnsmsg_name_cmp(dotted, name) == 0);
	}
	/* One byte short of the string and its NUL. */
	FUZZ_CHECK(dnsmsg_name(data, size, off, name, (size_t)r, NULL) == -ENOSPC);
	FUZZ_CHECK(strlen(name) == (size_t)r - 1);
	check_name_eq(data, size, off, wire, (size_t)wr);
}

static void
check_rr(const struct dnsmsg *msg, const struct dnsmsg_rr *rr, uint8_t knob)
{
	char		name[DNSMSG_NAME_STRLEN], tb[DNSMSG_TYPE_STRLEN];
	char		wtext[DNSMSG_NAME_STRLEN];
	const char	*ts;
	uint8_t		addr[16], wire[DNSMSG_NAME_MAX];
	uint32_t	minimum;
	size_t		cap;
	int		r, r2, wr;

	FUZZ_CHECK(strlen(rr->name) < DNSMSG_NAME_STRLEN);
	FUZZ_CHECK(rr->rdata_off <= msg->len &&
	    rr->rdlen <= msg->len - rr->rdata_off);
	FUZZ_CHECK(rr->section >= DNS_S_ANSWER && rr->section <= DNS_S_ADDITIONAL);

	r = dnsmsg_rdata_str(msg, rr, out, sizeof(out));
	FUZZ_CHECK(r == -EBADMSG || r > 0);
	if (r > 0)
		FUZZ_CHECK((size_t)r == strlen(out));
	/* A buffer of some other size gives the same text, or -ENOSPC. */
	cap = r > 0 ? ((size_t)knob * 7) % ((size_t)r + 2) : knob;
	memset(small, 'x', cap + 1);
	r2 = dnsmsg_rdata_str(msg, rr, small, cap);
	if (r < 0)
		FUZZ_CHECK(r2 == r);
	else if ((size_t)r < cap)
		FUZZ_CHECK(r2 == r && strcmp(small, out) == 0);
	else {
		FUZZ_CHECK(r2 == -ENOSPC);
		FUZZ_CHECK(small[cap] == 'x');
		if (cap > 0)
			FUZZ_CHECK(strlen(small) == cap - 1 &&
			    memcmp(small, out, cap - 1) == 0);
	}

	r2 = dnsmsg_rdata_addr(msg, rr, addr);
	if (rr->type == DNS_T_A || rr->type == DNS_T_AAAA)
		FUZZ_CHECK(r2 == (rr->type == DNS_T_A ? 4 : 16) ?
		    r > 0 : r2 == -EBADMSG && r == -EBADMSG);
	else
		FUZZ_CHECK(r2 == -EINVAL);

	r2 = dnsmsg_rdata_name(msg, rr, name, sizeof(name));
	wr = dnsmsg_rdata_name_wire(msg, rr, wire);
	if (rr->type == DNS_T_CNAME || rr->type == DNS_T_PTR ||
	    rr->type == DNS_T_NS) {
		FUZZ_CHECK((r2 > 0) == (r > 0));
		FUZZ_CHECK((wr > 0) == (r2 > 0));
		/* The presentation form is the name and a dot (the root: "."). */
		if (r2 > 0) {
			FUZZ_CHECK(dnsmsg_name_cmp(name, out) == 0);
			/* The wire form says the same. */
			FUZZ_CHECK(wr <= DNSMSG_NAME_MAX && wire[wr - 1] == 0);
			FUZZ_CHECK(dnsmsg_name(wire, (size_t)wr, 0, wtext,
			    sizeof(wtext), NULL) == r2 && strcmp(wtext, name) == 0);
		}
	} else
		FUZZ_CHECK(r2 == -EINVAL && wr == -EINVAL);

	r2 = dnsmsg_rdata_soa_minimum(msg, rr, &minimum);
	if (rr->type == DNS_T_SOA)
		FUZZ_CHECK((r2 == 0) == (r > 0));
	else
		FUZZ_CHECK(r2 == -EINVAL);

	ts = dnsmsg_type_str(rr->type, tb, sizeof(tb));
	FUZZ_CHECK(dnsmsg_type_from_str(ts) == rr->type);
}

/*
 * The input's first bytes as a name (up to a NUL, or 300 bytes): the
 * query dnsmsg_query writes is ares_create_query's, or both refuse it.
 */
static void
check_query(const uint8_t *data, size_t size)
{
	uint8_t		 ours[DNSMSG_QUERY_MAX];
	unsigned char	*theirs;
	char		 name[301];
	size_t		 n = size < 300 ? size : 300;
	int		 r, len, st;

	memcpy(name, data, n);
	name[n] = '\0';
	r = dnsmsg_query(name, DNS_T_A, 0x1234, 1232, ours);
	st = ares_create_query(name, 1, DNS_T_A, 0x1234, 1, &theirs, &len, 1232);
	FUZZ_CHECK((st == ARES_SUCCESS) == (r > 0));
	if (st != ARES_SUCCESS)
		return;
	FUZZ_CHECK(r == len && r <= DNSMSG_QUERY_MAX &&
	    memcmp(ours, theirs, (size_t)len) == 0);
	ares_free_string(theirs);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnsmsg		msg, wmsg;
	struct dnsmsg_rr	rr, wrr;
	struct dnsmsg_iter	it, wit;
	char			name[DNSMSG_NAME_STRLEN];
	size_t			off, step;
	unsigned		n = 0;
	int			r, parsed;

	check_query(data, size);
	parsed = dnsmsg_parse(data, size, &msg);
	FUZZ_CHECK(dnsmsg_parse_wire(data, size, &wmsg) == parsed);
	if (parsed == 0) {
		FUZZ_CHECK(msg.qdcount <= 1);
		FUZZ_CHECK(strlen(msg.qname) < DNSMSG_NAME_STRLEN);
		FUZZ_CHECK(msg.rr_off >= 12 && msg.rr_off <= size);
		/* The same message, but for the question's text. */
		FUZZ_CHECK(wmsg.qname[0] == '\0' && wmsg.qname_off == msg.qname_off &&
		    wmsg.rr_off == msg.rr_off && wmsg.qtype == msg.qtype &&
		    wmsg.flags == msg.flags && wmsg.ancount == msg.ancount &&
		    wmsg.nscount == msg.nscount && wmsg.arcount == msg.arcount);
		if (msg.qdcount == 1)
			FUZZ_CHECK(dnsmsg_name(data, size, msg.qname_off, name,
			    sizeof(name), NULL) >= 0 && strcmp(name, msg.qname) == 0);
		memset(&it, 0, sizeof(it));
		wit = (struct dnsmsg_iter){ .no_names = true };
		while ((r = dnsmsg_next_rr(&msg, &it, &rr)) == 1) {
			/* Without the owner's text: the same record, its owner where said. */
			FUZZ_CHECK(dnsmsg_next_rr(&wmsg, &wit, &wrr) == 1);
			FUZZ_CHECK(wrr.name[0] == '\0' && wrr.owner_off == rr.owner_off &&
			    wrr.type == rr.type && wrr.rclass == rr.rclass &&
			    wrr.ttl == rr.ttl && wrr.rdlen == rr.rdlen &&
			    wrr.rdata_off == rr.rdata_off && wrr.section == rr.section);
			FUZZ_CHECK(dnsmsg_name(data, size, rr.owner_off, name,
			    sizeof(name), NULL) >= 0 && strcmp(name, rr.name) == 0);
			check_rr(&msg, &rr, data[n % size]);
			n++;
		}
		FUZZ_CHECK(r == 0);
		FUZZ_CHECK(dnsmsg_next_rr(&wmsg, &wit, &wrr) == 0);
		FUZZ_CHECK(n == (unsigned)msg.ancount + msg.nscount + msg.arcount);
		FUZZ_CHECK(n <= DNSMSG_MAX_RRS);
	}

	/*
	 * Names at a spread of offsets, and at the first bytes that look like
	 * compression pointers: enough to reach every path of the decoder
	 * without making each run slow.
	 */
	step = size / 32 + 1;
	for (off = 0; off <= size; off += step)
		check_name(data, size, off);
	for (off = 0, n = 0; off + 1 < size && n < 16; off++)
		if ((data[off] & 0xc0) == 0xc0) {
			check_name(data, size, off);
			n++;
		}
	return 0;
}
