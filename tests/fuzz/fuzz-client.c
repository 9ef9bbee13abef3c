/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-client.c - fuzz target: replies as libnamecache decodes them. */

/*
 * The client library trusts nothing the daemon sends: a reply body is
 * decoded into one allocation whose size is computed from the body's own
 * counts, and then filled by walking the body again.  A body whose counts
 * and contents disagree must be refused, never written past.  The first
 * byte picks a decoder (answer with its own TTL, answer with a shared-cache
 * TTL, records, values, cache page, the name check and type parser on
 * the rest as a string, or an answer changed after it was decoded, as a
 * shared-cache hit's body may be: then byte 1 says how many changes, each
 * three bytes (u16 offset, u8 xor), before the body); the rest is its
 * input.  Every string in a decoded
 * struct must be NUL-terminated inside the allocation (ASan sees the
 * allocation's exact size), and every count must match what is there.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "fuzz.h"
#include "namecache.h"
#include "proto.h"

static void
check_result(const uint8_t *p, size_t n, int64_t ttl)
{
	struct namecache_result	*res = NULL;
	size_t			 i;
	int			 r;

	r = nc_result_decode(p, n, ttl, &res);
	FUZZ_CHECK(r == 0 || r == NAMECACHE_ERR_PROTOCOL);
	if (r != 0) {
		FUZZ_CHECK(res == NULL);
		return;
	}
	FUZZ_CHECK(res->canonical != NULL);
	(void)strlen(res->canonical);
	for (i = 0; i < res->naliases; i++)
		(void)strlen(res->aliases[i]);
	FUZZ_CHECK(res->aliases[res->naliases] == NULL);
	for (i = 0; i < res->naddresses; i++)
		FUZZ_CHECK(res->addresses[i].family == AF_INET ||
		    res->addresses[i].family == AF_INET6);
	if (ttl >= 0)
		FUZZ_CHECK(res->ttl == (uint32_t)ttl);
	(void)namecache_source_str(res->source);
	namecache_result_free(res);
}

/*
 * An answer decoded, then changed where it lies, then made into a result:
 * what nc_result_from_answer writes is bounded by what was decoded.
 */
static void
check_changed(const uint8_t *p, size_t n)
{
	struct namecache_result	*res = NULL;
	struct proto_answer	 a;
	const uint8_t		*ch = p + 1;
	uint8_t			*body;
	size_t			 nch, len, i, at;
	int			 r;

	if (n < 1 || n < 1 + 3 * (size_t)(p[0] % 8))
		return;
	nch = p[0] % 8;
	len = n - 1 - 3 * nch;
	if ((body = malloc(len ? len : 1)) == NULL)
		return;
	memcpy(body, ch + 3 * nch, len);
	if (proto_answer_decode(body, len, &a) < 0) {
		free(body);
		return;
	}
	for (i = 0; i < nch && len > 0; i++) {
		at = ((size_t)ch[3 * i] << 8 | ch[3 * i + 1]) % len;
		body[at] ^= ch[3 * i + 2];
	}
	r = nc_result_from_answer(&a, 30, &res);
	FUZZ_CHECK(r == 0 || r == NAMECACHE_ERR_PROTOCOL);
	if (r != 0) {
		FUZZ_CHECK(res == NULL);
		free(body);
		return;
	}
	(void)strlen(res->canonical);
	FUZZ_CHECK(res->naddresses == a.naddr && res->naliases <= a.nalias);
	for (i = 0; i < res->naliases; i++)
		(void)strlen(res->aliases[i]);
	FUZZ_CHECK(res->aliases[res->naliases] == NULL);
	for (i = 0; i < res->naddresses; i++)
		FUZZ_CHECK(res->addresses[i].family == AF_INET ||
		    res->addresses[i].family == AF_INET6);
	if (res->origin)
		(void)strlen(res->origin);
	namecache_result_free(res);
	free(body);
}

static void
check_records(const uint8_t *p, size_t n)
{
	struct namecache_records *recs = NULL;
	char			  buf[32];
	size_t			  i;
	int			  r;

	r = nc_records_decode(p, n, &recs);
	FUZZ_CHECK(r == 0 || r == NAMECACHE_ERR_PROTOCOL);
	if (r != 0) {
		FUZZ_CHECK(recs == NULL);
		return;
	}
	for (i = 0; i < recs->count; i++) {
		(void)strlen(recs->records[i].owner);
		(void)strlen(recs->records[i].data);
		FUZZ_CHECK(namecache_rrtype_str(recs->records[i].type, buf,
		    sizeof(buf)) != NULL);
	}
	namecache_records_free(recs);
}

static void
check_values(const uint8_t *p, size_t n)
{
	struct namecache_values	*vals = NULL;
	size_t			 i;
	int			 r;

	r = nc_values_decode(p, n, &vals);
	FUZZ_CHECK(r == 0 || r == NAMECACHE_ERR_PROTOCOL);
	if (r != 0) {
		FUZZ_CHECK(vals == NULL);
		return;
	}
	for (i = 0; i < vals->count; i++) {
		(void)strlen(vals->values[i].key);
		if (vals->values[i].kind == NAMECACHE_VALUE_STRING)
			(void)strlen(vals->values[i].string);
		else
			FUZZ_CHECK(vals->values[i].kind == NAMECACHE_VALUE_NUMBER &&
			    vals->values[i].string == NULL);
	}
	namecache_values_free(vals);
}

static void
check_page(const uint8_t *p, size_t n)
{
	struct namecache_cache_page *pg = NULL;
	size_t			     i;
	int			     r;

	r = nc_cache_page_decode(p, n, &pg);
	FUZZ_CHECK(r == 0 || r == NAMECACHE_ERR_PROTOCOL);
	if (r != 0) {
		FUZZ_CHECK(pg == NULL);
		return;
	}
	for (i = 0; i < pg->count; i++) {
		(void)strlen(pg->entries[i].name);
		FUZZ_CHECK((pg->entries[i].flags & ~NAMECACHE_ENTRY_EXPIRED) == 0);
		if (pg->entries[i].status != 0)
			(void)namecache_strerror(pg->entries[i].status);
	}
	namecache_cache_page_free(pg);
}

static void
check_strings(const uint8_t *p, size_t n)
{
	const char	*why = NULL;
	char		*s;
	int		 r;

	if ((s = malloc(n + 1)) == NULL)
		return;
	memcpy(s, p, n);
	s[n] = '\0';
	r = namecache_check_name(s, &why);
	FUZZ_CHECK(r == 0 || (r == NAMECACHE_ERR_BADNAME && why != NULL));
	if (r == 0)
		FUZZ_CHECK(strlen(s) <= 253 || (strlen(s) == 254 && s[253] == '.'));
	r = namecache_rrtype_parse(s);
	FUZZ_CHECK(r == NAMECACHE_ERR_INVAL || (r >= 0 && r <= 65535));
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 7) {
	case 0:
		check_result(data + 1, size - 1, -1);
		break;
	case 1:
		check_result(data + 1, size - 1, data[0]);
		break;
	case 2:
		check_records(data + 1, size - 1);
		break;
	case 3:
		check_values(data + 1, size - 1);
		break;
	case 4:
		check_page(data + 1, size - 1);
		break;
	case 6:
		check_changed(data + 1, size - 1);
		break;
	default:
		check_strings(data + 1, size - 1);
		break;
	}
	return 0;
}
