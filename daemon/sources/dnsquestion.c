/* SPDX-License-Identifier: MIT */
/* daemon/sources/dnsquestion.c - the dns source's questions: which kinds a lookup asks, under which keys. */
#include <string.h>

#include "dnsanswer.h"
#include "dnssrc.h"
#include "search.h"

/*
 * A search of one name asks A and AAAA apart, which is asking them as a
 * pair: the pair then needs no kinds of its own.
 */
static bool
one_candidate(const struct dnssrc *ds, const char *name)
{
	const char *const	*domains;
	int			 ndots;

	dnssrc_search(ds, &domains, &ndots);
	return search_single(name, domains);
}

void
dnssrc_ask_name(const struct dnssrc *ds, struct dnssrc_ask *a, const char *name,
    uint8_t family)
{
	/* Both families are one search, under kinds of their own. */
	uint32_t pair = family == PROTO_AF_UNSPEC && !one_candidate(ds, name) ?
	    CACHE_KIND_PAIR : 0;

	memset(a, 0, sizeof(*a));
	a->family = family;
	a->pair = pair != 0;
	if (family != PROTO_AF_INET6)
		a->k[a->n++] = (struct dnssrc_kind){ name, pair | DNS_T_A, DNS_T_A,
		    DNSANSWER_ADDR, true };
	if (family != PROTO_AF_INET)
		a->k[a->n++] = (struct dnssrc_kind){ name, pair | DNS_T_AAAA,
		    DNS_T_AAAA, DNSANSWER_ADDR, true };
}

void
dnssrc_ask_addr(struct dnssrc_ask *a, uint8_t family, const uint8_t *addr)
{
	memset(a, 0, sizeof(*a));
	/*
	 * As glibc's dns module: a v4-mapped address, or a v4-compatible one
	 * other than ::1 and ::, is asked as the IPv4 address it holds, and
	 * answered as one.
	 */
	if (family == PROTO_AF_INET6 &&
	    memcmp(addr, "\0\0\0\0\0\0\0\0\0\0", 10) == 0 &&
	    ((addr[10] == 0xff && addr[11] == 0xff) ||
	    (addr[10] == 0 && addr[11] == 0 && memcmp(addr + 12, "\0\0\0\1", 4) != 0 &&
	    memcmp(addr + 12, "\0\0\0\0", 4) != 0))) {
		family = PROTO_AF_INET;
		addr += 12;
	}
	a->family = family;
	a->addr = addr;
	dnsanswer_ptr_name(family, addr, a->ptr, sizeof(a->ptr));
	a->n = 1;
	a->k[0] = (struct dnssrc_kind){ a->ptr, DNS_T_PTR, DNS_T_PTR, DNSANSWER_PTR,
	    false };
}

void
dnssrc_ask_rr(struct dnssrc_ask *a, const char *name, uint16_t type)
{
	memset(a, 0, sizeof(*a));
	a->family = PROTO_AF_UNSPEC;
	a->n = 1;
	a->k[0] = (struct dnssrc_kind){ name, CACHE_KIND_RR | type, type, DNSANSWER_RR,
	    true };
}

void
dnssrc_ask_wire(struct dnssrc_ask *a, const char *name, uint16_t type)
{
	memset(a, 0, sizeof(*a));
	a->family = PROTO_AF_UNSPEC;
	a->n = 1;
	a->k[0] = (struct dnssrc_kind){ name, CACHE_KIND_WIRE | type, type,
	    DNSANSWER_WIRE, false };
}
