/* SPDX-License-Identifier: MIT */
/* client-lib/sort.h - getaddrinfo's order (RFC 6724 as glibc sorts, /etc/gai.conf) and AI_ADDRCONFIG. */
#ifndef NAMECACHE_SORT_H
#define NAMECACHE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "namecache.h"

/*
 * Sorts n addresses into the order glibc's getaddrinfo gives them, with
 * their scope ids (scope_ids: n entries, moved with the addresses; NULL:
 * none).  Thread-safe; errno preserved.  0, or -ENOMEM (v untouched).
 */
int	nc_sort(struct namecache_address *v, uint32_t *scope_ids, size_t n);
/* The same for a result's addresses and scope ids. */
int	nc_sort_result(struct namecache_result *res);

/* AI_ADDRCONFIG's facts: an IPv4 address other than 127.0.0.1, an IPv6 one other than ::1. */
int	nc_addrconfig(bool *ret_v4, bool *ret_v6);

/*
 * AI_ADDRCONFIG applied to a PROTO_AF_* family: the family to ask for
 * (AF_UNSPEC narrowed when the host has one family only), or
 * NAMECACHE_ERR_NOTFOUND when the host has none of the family asked
 * (getaddrinfo's EAI_NONAME).
 */
int	nc_addrconfig_family(int proto_family);

/* Source probes (connects) and address dumps made so far (tests, benchmarks). */
void	nc_sort_counts(uint64_t *ret_probes, uint64_t *ret_dumps);

#endif
