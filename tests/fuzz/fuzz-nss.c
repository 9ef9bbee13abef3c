/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-nss.c - fuzz target: the NSS module's layouts of an answer in glibc's buffers. */

/*
 * The module decodes a shared-cache hit's body where it lies, in memory
 * another process writes, and then lays it out in the caller's buffer
 * (nss-shim/layout.c): the body may change between the two, and no change
 * may make a layout write outside the buffer, point outside it, or leave a
 * string unterminated.  The input:
 *
 *	byte 0		bits 0-1: getaddrinfo's tuples (with *pat NULL, or
 *			with storage for the first tuple), a hostent for
 *			AF_INET, for AF_INET6
 *	bytes 1-2	the buffer's length (big-endian; at most 4095)
 *	byte 3		changes: n = byte % 8, then n x (u16 offset, u8 xor),
 *			applied to the body after it was decoded
 *	the rest	the answer body
 *
 * The body and the buffer are heap blocks of exactly their size, so ASan
 * sees any access past them.  An unchanged body must lay out as it
 * decoded: no EBADMSG, every address and the canonical name as decoded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "layout.h"
#include "proto.h"

static bool
inside(const void *p, size_t n, const char *buf, size_t len)
{
	const char *c = p;

	return c >= buf && c <= buf + len && n <= (size_t)(buf + len - c);
}

/* A string that ends inside the buffer. */
static size_t
str_inside(const char *s, const char *buf, size_t len)
{
	const char *end;

	FUZZ_CHECK(inside(s, 1, buf, len));
	end = memchr(s, '\0', (size_t)(buf + len - s));
	FUZZ_CHECK(end != NULL);
	return (size_t)(end - s);
}

static void
check_gaih(const struct proto_answer *a, bool storage, char *buf, size_t len,
    bool changed)
{
	struct gaih_addrtuple	 first, *pat = storage ? &first : NULL, *t;
	size_t			 n = 0, cur = 0;
	int			 r;

	memset(&first, 0x5a, sizeof(first));
	r = layout_gaih(a, &pat, buf, len);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -ERANGE || r == -EBADMSG);
	FUZZ_CHECK(r != -ENOENT || a->naddr == 0);
	FUZZ_CHECK(r != -EBADMSG || changed);
	if (r != 0) {
		FUZZ_CHECK(pat == (storage ? &first : NULL));
		return;
	}
	FUZZ_CHECK(pat == &first || inside(pat, sizeof(*pat), buf, len));
	FUZZ_CHECK(pat->name != NULL);
	n = str_inside(pat->name, buf, len);
	if (!changed)
		FUZZ_CHECK(n == a->canon_len && memcmp(pat->name, a->canon, n) == 0);
	for (t = pat, n = 0; t != NULL; t = t->next) {
		FUZZ_CHECK(++n <= a->naddr);
		FUZZ_CHECK(t == pat || inside(t, sizeof(*t), buf, len));
		FUZZ_CHECK(t == pat || t->name == NULL);
		FUZZ_CHECK(t->family == AF_INET || t->family == AF_INET6);
		FUZZ_CHECK(t->family == AF_INET6 || t->scopeid == 0);
		if (!changed) {
			const uint8_t	*addr;
			uint8_t		 fam;

			FUZZ_CHECK(proto_answer_next_addr(a, &cur, &fam, &addr));
			FUZZ_CHECK(t->family == (fam == PROTO_AF_INET ? AF_INET : AF_INET6));
			FUZZ_CHECK(memcmp(t->addr, addr, fam == PROTO_AF_INET ? 4 : 16) == 0);
			FUZZ_CHECK(t->scopeid == proto_answer_scope(fam, addr));
		}
	}
	FUZZ_CHECK(n == a->naddr);
}

static void
check_hostent(const struct proto_answer *a, int af, char *buf, size_t len,
    bool changed)
{
	struct hostent	h;
	size_t		i, want = af == AF_INET ? a->naddr4 : a->naddr6;
	size_t		alen = af == AF_INET ? 4 : 16, n;
	int		r;

	memset(&h, 0, sizeof(h));
	r = layout_hostent(a, af, &h, buf, len);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -ERANGE || r == -EBADMSG);
	FUZZ_CHECK(r != -ENOENT || want == 0);
	FUZZ_CHECK(r != -EBADMSG || changed);
	if (r != 0)
		return;
	FUZZ_CHECK(h.h_addrtype == af && h.h_length == (int)alen);
	n = str_inside(h.h_name, buf, len);
	if (!changed)
		FUZZ_CHECK(n == a->canon_len && memcmp(h.h_name, a->canon, n) == 0);
	for (i = 0; ; i++) {
		FUZZ_CHECK(i <= want);
		FUZZ_CHECK(inside(&h.h_addr_list[i], sizeof(char *), buf, len));
		if (h.h_addr_list[i] == NULL)
			break;
		FUZZ_CHECK(inside(h.h_addr_list[i], alen, buf, len));
	}
	FUZZ_CHECK(i == want);
	for (i = 0; ; i++) {
		FUZZ_CHECK(i <= a->nalias);
		FUZZ_CHECK(inside(&h.h_aliases[i], sizeof(char *), buf, len));
		if (h.h_aliases[i] == NULL)
			break;
		(void)str_inside(h.h_aliases[i], buf, len);
	}
	FUZZ_CHECK(changed || i == a->nalias);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_answer	 a;
	const uint8_t		*ch;
	uint8_t			*body;
	char			*buf;
	size_t			 len, nch, body_len, i, at;
	bool			 changed = false;

	if (size < 4)
		return 0;
	len = ((size_t)data[1] << 8 | data[2]) % 4096;
	nch = data[3] % 8;
	if (size < 4 + 3 * nch)
		return 0;
	ch = data + 4;
	body_len = size - 4 - 3 * nch;
	if ((body = malloc(body_len ? body_len : 1)) == NULL)
		return 0;
	memcpy(body, ch + 3 * nch, body_len);
	if (proto_answer_decode(body, body_len, &a) < 0) {
		free(body);
		return 0;
	}
	/* What another process may do to the bytes once they were decoded. */
	for (i = 0; i < nch && body_len > 0; i++) {
		at = ((size_t)ch[3 * i] << 8 | ch[3 * i + 1]) % body_len;
		body[at] ^= ch[3 * i + 2];
		changed |= ch[3 * i + 2] != 0;
	}
	if ((buf = malloc(len ? len : 1)) == NULL) {
		free(body);
		return 0;
	}
	switch (data[0] & 3) {
	case 0:
	case 1:
		check_gaih(&a, data[0] & 1, buf, len, changed);
		break;
	case 2:
		check_hostent(&a, AF_INET, buf, len, changed);
		break;
	default:
		check_hostent(&a, AF_INET6, buf, len, changed);
		break;
	}
	free(buf);
	free(body);
	return 0;
}
