/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsname.c - names in the forms messages and people write them: compared, converted, a query written. */

/*
 * The other half of dnsmsg.h, apart from the message reader: a name in
 * a message compared with one in wire form as it is read, a name as a
 * client wrote it turned into wire form as c-ares 1.18 turns it, and a
 * query written around it.  Every byte read from a message is
 * bounds-checked (proto/rd.h), as in dnsmsg.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "dnsmsg.h"
#include "name.h"
#include "rd.h"

/* The length of s without one trailing, unescaped dot. */
static size_t
name_len_nodot(const char *s)
{
	size_t n = strlen(s), bs = 0;

	if (n == 0 || s[n - 1] != '.')
		return n;
	/* An odd run of backslashes before it makes the dot part of a label. */
	while (bs < n - 1 && s[n - 2 - bs] == '\\')
		bs++;
	return bs % 2 ? n : n - 1;
}

/* Whether s ends with suffix, ASCII case aside (c-ares' ares_striendstr in the C locale). */
static bool
ends_with_fold(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && name_eq_fold(s + n - m, suffix, m);
}

int
dnsmsg_query(const char *name, uint16_t type, uint16_t id, uint16_t payload,
    uint8_t *out)
{
	uint8_t	*p;
	int	 n;

	if (ends_with_fold(name, ".onion") || ends_with_fold(name, ".onion."))
		return -EINVAL;
	if ((n = dnsmsg_name_from_text(name, out + DNS_HDR_LEN)) < 0)
		return -EINVAL;
	memset(out, 0, DNS_HDR_LEN);
	out[0] = (uint8_t)(id >> 8);
	out[1] = (uint8_t)id;
	out[2] = 0x01;			/* opcode QUERY, RD */
	out[5] = 1;			/* QDCOUNT */
	out[11] = 1;			/* ARCOUNT: the OPT */
	p = out + DNS_HDR_LEN + n;
	p[0] = (uint8_t)(type >> 8);
	p[1] = (uint8_t)type;
	p[2] = 0;
	p[3] = 1;			/* class IN */
	/* The OPT: the root, type 41, the payload size as its class, TTL 0, no rdata. */
	memset(p + 4, 0, 11);
	p[6] = DNS_T_OPT;
	p[7] = (uint8_t)(payload >> 8);
	p[8] = (uint8_t)payload;
	return DNS_HDR_LEN + n + 4 + 11;
}

int
dnsmsg_name_cmp(const char *a, const char *b)
{
	return name_cmp_fold(a, name_len_nodot(a), b, name_len_nodot(b));
}

/*
 * name_read's walk, compared as it goes: the length bytes exactly (a
 * label is at most 63, below any letter, so folding would not change
 * them), the label bytes folded.  The texts dnsmsg_name writes are equal
 * in the same cases: it writes each byte the same way wherever it is, as
 * itself when it is a letter, and its escapes are not letters.
 */
int
dnsmsg_name_eq(const uint8_t *buf, size_t len, size_t off, const uint8_t *wire)
{
	struct dnsmsg_labels	 lb;
	const uint8_t		*label;
	size_t			 at = 0;
	int			 c;

	dnsmsg_labels_init(&lb, buf, len, off);
	for (;;) {
		if ((c = dnsmsg_labels_next(&lb)) < 0)
			return -EBADMSG;
		/* wire is a name: at + 1 + c stays inside it while they agree. */
		if (c != wire[at])
			return 0;
		if (c == 0)
			return 1;
		if ((label = dnsmsg_labels_take(&lb, (size_t)c)) == NULL)
			return -EBADMSG;
		if (!name_eq_fold(label, wire + at + 1, (size_t)c))
			return 0;
		at += 1 + (size_t)c;
	}
}

int
dnsmsg_name_from_text(const char *in, uint8_t *out)
{
	const char	*p = in;
	size_t		 n = 0, lab, lim;

	/* As c-ares 1.18's ares_create_query splits and unescapes. */
	if (p[0] == '.' && p[1] == '\0')
		p++;
	while (*p) {
		if (*p == '.')
			return -EINVAL;		/* an empty label */
		lab = n++;
		/* A label's 63 bytes, a name's 255 with its root: no byte at lim. */
		lim = lab + 1 + 63 < DNSMSG_NAME_MAX - 1 ? lab + 1 + 63 :
		    DNSMSG_NAME_MAX - 1;
		for (; *p != '\0' && *p != '.'; p++) {
			if (n >= lim)
				return -EINVAL;
			if (*p == '\\' && p[1] != '\0')
				p++;
			out[n++] = (uint8_t)*p;
		}
		out[lab] = (uint8_t)(n - lab - 1);
		if (*p == '.')
			p++;
	}
	out[n++] = 0;
	return (int)n;
}
