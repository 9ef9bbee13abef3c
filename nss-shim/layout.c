/* SPDX-License-Identifier: MIT */
/* nss-shim/layout.c - a decoded answer laid out in glibc's buffers: getaddrinfo's tuples, a hostent. */
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "layout.h"

static char *
copy_str(char **strp, const char *s, size_t len)
{
	char *d = *strp;

	memcpy(d, s, len);
	d[len] = '\0';
	*strp += len + 1;
	return d;
}

int
layout_gaih(const struct proto_answer *a, struct gaih_addrtuple **pat,
    char *buf, size_t len)
{
	struct gaih_addrtuple	*t;
	size_t			 pad = -(uintptr_t)buf % alignof(struct gaih_addrtuple);
	size_t			 cur = 0, i;
	const uint8_t		*addr;
	char			*canon;
	uint8_t			 fam;

	if (a->naddr == 0)
		return -ENOENT;
	if (len < pad + a->naddr * sizeof(*t) + a->canon_len + 1)
		return -ERANGE;
	t = (struct gaih_addrtuple *)(void *)(buf + pad);
	canon = (char *)(t + a->naddr);
	memcpy(canon, a->canon, a->canon_len);
	canon[a->canon_len] = '\0';
	for (i = 0; i < a->naddr && proto_answer_next_addr(a, &cur, &fam, &addr); i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].next = &t[i + 1];
		if (fam == PROTO_AF_INET) {
			t[i].family = AF_INET;
			memcpy(t[i].addr, addr, 4);
		} else {
			t[i].family = AF_INET6;
			memcpy(t[i].addr, addr, 16);
			t[i].scopeid = proto_answer_scope(fam, addr);
		}
	}
	if (i < a->naddr)
		return -EBADMSG;
	t[i - 1].next = NULL;
	t[0].name = canon;
	if (*pat)
		**pat = t[0];
	else
		*pat = &t[0];
	return 0;
}

int
layout_hostent(const struct proto_answer *a, int af, struct hostent *host,
    char *buf, size_t len)
{
	uint8_t		 want = af == AF_INET ? PROTO_AF_INET : PROTO_AF_INET6;
	size_t		 alen = af == AF_INET ? 4 : 16;
	size_t		 naddr = af == AF_INET ? a->naddr4 : a->naddr6;
	size_t		 pad = -(uintptr_t)buf % alignof(char *);
	size_t		 cur = 0, i, slen;
	char		**addrs, **aliases, *abuf, *str, *str_end;
	const uint8_t	*addr;
	const char	*s;
	uint8_t		 fam;

	if (naddr == 0)
		return -ENOENT;
	if (len < pad + (naddr + 1 + a->nalias + 1) * sizeof(char *) +
	    naddr * alen + a->strings_size)
		return -ERANGE;
	addrs = (char **)(void *)(buf + pad);
	aliases = addrs + naddr + 1;
	abuf = (char *)(aliases + a->nalias + 1);
	str = abuf + naddr * alen;
	str_end = str + a->strings_size;
	for (i = 0; i < naddr && proto_answer_next_addr(a, &cur, &fam, &addr); ) {
		if ((fam == PROTO_AF_INET6_SCOPED ? PROTO_AF_INET6 : fam) != want)
			continue;
		addrs[i] = abuf + i * alen;
		memcpy(addrs[i], addr, alen);
		i++;
	}
	if (i < naddr)
		return -EBADMSG;
	addrs[i] = NULL;
	/* The canonical name first: strings_size always holds it. */
	host->h_name = copy_str(&str, a->canon, a->canon_len);
	for (cur = 0, i = 0; i < a->nalias &&
	    proto_answer_next_alias(a, &cur, &s, &slen) &&
	    slen < (size_t)(str_end - str); i++)
		aliases[i] = copy_str(&str, s, slen);
	aliases[i] = NULL;
	host->h_aliases = aliases;
	host->h_addrtype = af;
	host->h_length = (int)alen;
	host->h_addr_list = addrs;
	return 0;
}
