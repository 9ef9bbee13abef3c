/* SPDX-License-Identifier: MIT */
/* client-lib/decode.h - replies of the daemon made into libnamecache's public structs. */
#ifndef NAMECACHE_DECODE_H
#define NAMECACHE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "namecache.h"

#define NC_EXPORT	__attribute__((visibility("default")))

/* The NAMECACHE_ERR_* for a reply status other than PROTO_OK. */
int	nc_status_error(unsigned status);

/* AF_UNSPEC, AF_INET, AF_INET6 -> PROTO_AF_*, or -1. */
int	nc_proto_family(int family);

/*
 * An answer body made into one allocation.  ttl, when not negative,
 * replaces the body's (a shared-cache hit counts down).  Returns 0 and
 * *ret (caller frees with namecache_result_free()), NAMECACHE_ERR_PROTOCOL
 * or NAMECACHE_ERR_NOMEM.
 */
int	nc_result_decode(const uint8_t *body, size_t len, int64_t ttl,
	    struct namecache_result **ret);
/* The same from an answer already decoded (a shared-cache hit's). */
struct proto_answer;
int	nc_result_from_answer(const struct proto_answer *a, int64_t ttl,
	    struct namecache_result **ret);
int	nc_records_decode(const uint8_t *body, size_t len,
	    struct namecache_records **ret);
int	nc_values_decode(const uint8_t *body, size_t len,
	    struct namecache_values **ret);
int	nc_cache_page_decode(const uint8_t *body, size_t len,
	    struct namecache_cache_page **ret);

#endif
