/* SPDX-License-Identifier: MIT */
/* client-lib/lookup.c - libnamecache's blocking lookups: the shared cache, then the socket. */

/*
 * The same path as the NSS module's: a hit in the daemon's shared segment
 * costs no system call; a miss goes over a pooled connection (client.c),
 * so a thread pays a connect only when every pooled connection is busy.
 * Both are thread-safe and fork-safe, so these calls are too.  The
 * deadline is fixed at entry and covers connecting as well: a daemon with
 * a full backlog is asked again until then.
 */
#include <errno.h>
#include <string.h>

#include "client.h"
#include "decode.h"
#include "hash.h"
#include "proto.h"
#include "shared.h"
#include "shmfmt.h"
#include "sort.h"

/* -errno from the client core as a NAMECACHE_ERR_* code. */
static int
sys_error(int r)
{
	switch (r) {
	case -ETIMEDOUT:	return NAMECACHE_ERR_TIMEOUT;
	case -ENOMEM:		return NAMECACHE_ERR_NOMEM;
	case -EBADMSG:		return NAMECACHE_ERR_PROTOCOL;
	}
	return NAMECACHE_ERR_UNAVAILABLE;
}

/*
 * The pool does not know which daemon its connections lead to: when the
 * path changes (a program, or a test, sets NAMECACHE_SOCKET anew), the
 * idle ones are dropped, so a lookup never goes to the old daemon.
 */
static void
pool_follow(const char *path)
{
	static uint64_t	last;	/* atomic: FNV-1a of the path last used */
	uint64_t	h = hash_fnv1a(HASH_FNV1A_INIT, path, strlen(path));

	if (__atomic_exchange_n(&last, h, __ATOMIC_RELAXED) != h)
		ncc_pool_clear();
}

/*
 * The shared cache's answer, if it has one: 1 with r set (the result, or
 * a negative answer's code), 0 for "ask the socket" (or, with
 * NAMECACHE_SHARED_ONLY, r = NAMECACHE_ERR_MISS and 1).  Before any
 * request is encoded: a hit costs no more than the segment's lookup.
 */
static int
from_shared(const char *path, uint8_t kind, uint8_t family, const void *key,
    size_t key_len, unsigned flags, struct namecache_result **ret_result, int *r)
{
	struct ncc_shared_hit	 hit;
	struct proto_answer	 ans;

	/* ncc_shared_answer's rule: a hit that cannot be used goes to the socket. */
	if (!(flags & NAMECACHE_NO_SHARED) &&
	    ncc_shared_answer(path, kind, family, key, key_len, &hit, &ans)) {
		*r = hit.status == PROTO_OK ? nc_result_from_answer(&ans, hit.ttl_left,
		    ret_result) : nc_status_error(hit.status);
		ncc_shared_release(&hit);
		if (*r == 0 || hit.status != PROTO_OK)
			return 1;
	}
	/* A binding answering on its event loop's thread: never block there. */
	if (flags & NAMECACHE_SHARED_ONLY) {
		*r = NAMECACHE_ERR_MISS;
		return 1;
	}
	return 0;
}

/* The daemon's answer to the request frame req. */
static int
from_socket(const char *path, const uint8_t *req, int req_len, int timeout_ms,
    struct namecache_result **ret_result)
{
	struct ncc_reply	rep;
	int64_t			deadline;
	int			r;

	if (req_len < 0)
		return NAMECACHE_ERR_INVAL;
	deadline = ncc_now_ms() + (timeout_ms > 0 ? timeout_ms : NAMECACHE_TIMEOUT_DEFAULT);
	pool_follow(path);
	r = ncc_pool_call_until(path, req, (size_t)req_len, deadline, true, &rep);
	if (r < 0)
		return sys_error(r);
	r = rep.hdr.status == PROTO_OK ? nc_result_decode(rep.body, rep.body_len, -1,
	    ret_result) : nc_status_error(rep.hdr.status);
	ncc_reply_free(&rep);
	return r;
}

/* The sort a caller asked for, on a result it got. */
static int
sorted(int r, unsigned flags, struct namecache_result **ret_result)
{
	if (r == 0 && (flags & NAMECACHE_SORT) && nc_sort_result(*ret_result) < 0) {
		namecache_result_free(*ret_result);
		*ret_result = NULL;
		r = NAMECACHE_ERR_NOMEM;
	}
	return r;
}

static bool
flags_ok(unsigned flags)
{
	return !(flags & ~(NAMECACHE_NO_SHARED | NAMECACHE_SHARED_ONLY |
	    NAMECACHE_SORT | NAMECACHE_ADDRCONFIG)) &&
	    (flags & (NAMECACHE_NO_SHARED | NAMECACHE_SHARED_ONLY)) !=
	    (NAMECACHE_NO_SHARED | NAMECACHE_SHARED_ONLY);
}

NC_EXPORT int
namecache_lookup_name(const char *name, int family, unsigned flags,
    int timeout_ms, struct namecache_result **ret_result)
{
	uint8_t		 buf[PROTO_HDR_LEN + 4 + PROTO_NAME_MAX + 1];
	struct proto_wr	 w;
	const char	*path;
	size_t		 len;
	int		 pf = nc_proto_family(family), saved = errno, r;

	if (name == NULL || ret_result == NULL || pf < 0 || !flags_ok(flags))
		return NAMECACHE_ERR_INVAL;
	if ((flags & NAMECACHE_ADDRCONFIG) && (pf = nc_addrconfig_family(pf)) < 0)
		return pf;
	len = strlen(name);
	if (proto_name_check(name, len, NULL) < 0)
		return NAMECACHE_ERR_BADNAME;
	path = ncc_socket_path();
	if (!from_shared(path, SHM_NAME, (uint8_t)pf, name, len, flags, ret_result, &r)) {
		proto_wr_init(&w, buf, sizeof(buf));
		r = from_socket(path, buf, proto_lookup_name_encode(&w, ncc_next_id(),
		    (uint8_t)pf, name), timeout_ms, ret_result);
	}
	r = sorted(r, flags, ret_result);
	errno = saved;
	return r;
}

NC_EXPORT int
namecache_lookup_addr(int family, const void *addr, unsigned flags,
    int timeout_ms, struct namecache_result **ret_result)
{
	uint8_t		 buf[PROTO_HDR_LEN + 2 + 16];
	struct proto_wr	 w;
	const char	*path;
	int		 pf = nc_proto_family(family), saved = errno, r;

	if (addr == NULL || ret_result == NULL || !flags_ok(flags) ||
	    (pf != PROTO_AF_INET && pf != PROTO_AF_INET6))
		return NAMECACHE_ERR_INVAL;
	path = ncc_socket_path();
	if (!from_shared(path, SHM_ADDR, (uint8_t)pf, addr, pf == PROTO_AF_INET ? 4 : 16,
	    flags, ret_result, &r)) {
		proto_wr_init(&w, buf, sizeof(buf));
		r = from_socket(path, buf, proto_lookup_addr_encode(&w, ncc_next_id(),
		    (uint8_t)pf, addr), timeout_ms, ret_result);
	}
	r = sorted(r, flags, ret_result);
	errno = saved;
	return r;
}

NC_EXPORT int
namecache_sort_addresses_scoped(struct namecache_address *addresses,
    uint32_t *scope_ids, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (addresses[i].family != AF_INET && addresses[i].family != AF_INET6)
			return NAMECACHE_ERR_INVAL;
	return nc_sort(addresses, scope_ids, count) < 0 ? NAMECACHE_ERR_NOMEM : 0;
}

NC_EXPORT int
namecache_sort_addresses(struct namecache_address *addresses, size_t count)
{
	return namecache_sort_addresses_scoped(addresses, NULL, count);
}

NC_EXPORT int
namecache_addrconfig(int *ret_ipv4, int *ret_ipv6)
{
	bool v4, v6;

	if (ret_ipv4 == NULL || ret_ipv6 == NULL)
		return NAMECACHE_ERR_INVAL;
	nc_addrconfig(&v4, &v6);
	*ret_ipv4 = v4;
	*ret_ipv6 = v6;
	return 0;
}

NC_EXPORT const char *
namecache_socket_path(void)
{
	return ncc_socket_path();
}
