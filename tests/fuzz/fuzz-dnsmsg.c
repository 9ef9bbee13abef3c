/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-dnsmsg.c - fuzz target: DNS messages as an upstream sends them. */

/*
 * The input is one DNS message.  When it parses, every RR is walked and
 * every accessor run on it, and their answers are held to the header's
 * promises (lengths, NUL termination, -ENOSPC exactly when the buffer is
 * short).  Whether or not it parses, names are decoded at many offsets.
 */
#include <errno.h>
#include <string.h>

#include "dnsmsg.h"
#include "fuzz.h"

#define OUT_MAX		(4 * 65536 + 64)	/* "\# 65535 " and two hex digits a byte */

static char	out[OUT_MAX];
static char	small[OUT_MAX];

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
}

static void
check_rr(const struct dnsmsg *msg, const struct dnsmsg_rr *rr, uint8_t knob)
{
	char		name[DNSMSG_NAME_STRLEN], tb[DNSMSG_TYPE_STRLEN];
	const char	*ts;
	uint8_t		addr[16];
	uint32_t	minimum;
	size_t		cap;
	int		r, r2;

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
	if (rr->type == DNS_T_CNAME || rr->type == DNS_T_PTR ||
	    rr->type == DNS_T_NS) {
		FUZZ_CHECK((r2 > 0) == (r > 0));
		/* The presentation form is the name and a dot (the root: "."). */
		if (r2 > 0)
			FUZZ_CHECK(dnsmsg_name_cmp(name, out) == 0);
	} else
		FUZZ_CHECK(r2 == -EINVAL);

	r2 = dnsmsg_rdata_soa_minimum(msg, rr, &minimum);
	if (rr->type == DNS_T_SOA)
		FUZZ_CHECK((r2 == 0) == (r > 0));
	else
		FUZZ_CHECK(r2 == -EINVAL);

	ts = dnsmsg_type_str(rr->type, tb, sizeof(tb));
	FUZZ_CHECK(dnsmsg_type_from_str(ts) == rr->type);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnsmsg		msg;
	struct dnsmsg_rr	rr;
	struct dnsmsg_iter	it;
	size_t			off, step;
	unsigned		n = 0;
	int			r;

	if (dnsmsg_parse(data, size, &msg) == 0) {
		FUZZ_CHECK(msg.qdcount <= 1);
		FUZZ_CHECK(strlen(msg.qname) < DNSMSG_NAME_STRLEN);
		FUZZ_CHECK(msg.rr_off >= 12 && msg.rr_off <= size);
		memset(&it, 0, sizeof(it));
		while ((r = dnsmsg_next_rr(&msg, &it, &rr)) == 1) {
			check_rr(&msg, &rr, data[n % size]);
			n++;
		}
		FUZZ_CHECK(r == 0);
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
