/* SPDX-License-Identifier: MIT */
/* client-lib/decode.c - replies of the daemon made into libnamecache's public structs. */

/*
 * Every public struct is one allocation: the struct, then its arrays, then
 * its strings, so the program frees it with one call and nothing can be
 * half-freed.  Each decoder walks the body twice: once through proto's
 * bounds-checked cursors to size it, once to fill it in; the second walk
 * writes no more than the first one counted, since a shared-cache hit's
 * body lies in memory another process could change between the two.
 * Strings on the wire never hold NUL (proto_get_str refuses them), so a C
 * string loses nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "proto.h"

int
nc_status_error(unsigned status)
{
	/* The codes for the daemon's statuses are their negatives. */
	if (status >= PROTO_NOTFOUND && status <= PROTO_BUSY)
		return -(int)status;
	if (status == PROTO_UNAVAIL)
		return NAMECACHE_ERR_NOSOURCE;
	if (status == PROTO_NOTFOUND_TRYAGAIN)
		return NAMECACHE_ERR_NOTFOUND_TRYAGAIN;
	return NAMECACHE_ERR_PROTOCOL;
}

int
nc_proto_family(int family)
{
	switch (family) {
	case AF_UNSPEC:	return PROTO_AF_UNSPEC;
	case AF_INET:	return PROTO_AF_INET;
	case AF_INET6:	return PROTO_AF_INET6;
	}
	return -1;
}

static char *
put_str(char **strp, const char *s, size_t len)
{
	char *d = *strp;

	memcpy(d, s, len);
	d[len] = '\0';
	*strp += len + 1;
	return d;
}

int
nc_result_decode(const uint8_t *body, size_t len, int64_t ttl,
    struct namecache_result **ret)
{
	struct proto_answer a;

	if (proto_answer_decode(body, len, &a) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	return nc_result_from_answer(&a, ttl, ret);
}

int
nc_result_from_answer(const struct proto_answer *ap, int64_t ttl,
    struct namecache_result **ret)
{
	struct namecache_result	*res;
	struct proto_answer	 a = *ap;
	const uint8_t		*addr;
	const char		*s;
	size_t			 size, cur = 0, i = 0, slen;
	uint8_t			 fam;
	char			*str, *str_end;

	_Static_assert(sizeof(*res) % alignof(char *) == 0, "aliases follow");
	_Static_assert(alignof(struct namecache_address) % alignof(uint32_t) == 0,
	    "scope ids follow the addresses");
	size = sizeof(*res) + (a.nalias + 1) * sizeof(char *) +
	    a.naddr * (sizeof(struct namecache_address) + sizeof(uint32_t)) +
	    a.strings_size + (a.origin ? a.origin_len + 1 : 0);
	if ((res = calloc(1, size)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	res->aliases = (char **)(void *)(res + 1);
	res->addresses = (struct namecache_address *)(void *)(res->aliases +
	    a.nalias + 1);
	res->scope_ids = (uint32_t *)(void *)(res->addresses + a.naddr);
	str = (char *)(res->scope_ids + a.naddr);
	str_end = str + a.strings_size;
	res->canonical = put_str(&str, a.canon, a.canon_len);
	for (; i < a.naddr && proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		res->addresses[i].family = fam == PROTO_AF_INET ? AF_INET : AF_INET6;
		memcpy(res->addresses[i].addr.bytes, addr, fam == PROTO_AF_INET ? 4 : 16);
		res->scope_ids[i] = proto_answer_scope(fam, addr);
	}
	/* Fewer than counted: the body changed since it was decoded. */
	if (i < a.naddr) {
		free(res);
		return NAMECACHE_ERR_PROTOCOL;
	}
	res->naddresses = i;
	for (cur = 0, i = 0; i < a.nalias &&
	    proto_answer_next_alias(&a, &cur, &s, &slen) &&
	    slen < (size_t)(str_end - str); i++)
		res->aliases[i] = put_str(&str, s, slen);
	res->aliases[i] = NULL;
	res->naliases = i;
	res->ttl = ttl >= 0 ? (uint32_t)ttl : a.ttl;
	res->source = a.source;
	res->origin = a.origin ? put_str(&str, a.origin, a.origin_len) : NULL;
	*ret = res;
	return 0;
}

int
nc_records_decode(const uint8_t *body, size_t len, struct namecache_records **ret)
{
	struct namecache_records *recs;
	struct proto_records	 pr;
	struct proto_record	 r;
	size_t			 cur = 0, n = 0, strings = 0, size;
	char			*str;

	if (proto_records_decode(body, len, &pr) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	while (proto_records_next(&pr, &cur, &r)) {
		strings += r.owner_len + 1 + r.rdata_len + 1;
		n++;
	}
	size = sizeof(*recs) + n * sizeof(struct namecache_record) + strings;
	if ((recs = calloc(1, size)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	recs->records = (struct namecache_record *)(void *)(recs + 1);
	str = (char *)(recs->records + n);
	for (cur = 0, n = 0; proto_records_next(&pr, &cur, &r); n++) {
		recs->records[n].owner = put_str(&str, r.owner, r.owner_len);
		recs->records[n].type = r.type;
		recs->records[n].ttl = r.ttl;
		recs->records[n].data = put_str(&str, r.rdata, r.rdata_len);
	}
	recs->count = n;
	recs->ttl = pr.ttl;
	recs->source = pr.source;
	*ret = recs;
	return 0;
}

int
nc_values_decode(const uint8_t *body, size_t len, struct namecache_values **ret)
{
	struct namecache_values	*vals;
	struct proto_kv_rd	 kr;
	struct proto_kv		 kv;
	size_t			 n = 0, strings = 0, size;
	char			*str;
	int			 r;

	if (proto_kv_init(&kr, body, len) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	while ((r = proto_kv_next(&kr, &kv)) > 0) {
		strings += kv.key_len + 1 + (kv.kind == PROTO_KV_STR ? kv.str_len + 1 : 0);
		n++;
	}
	if (r < 0)
		return NAMECACHE_ERR_PROTOCOL;
	size = sizeof(*vals) + n * sizeof(struct namecache_value) + strings;
	if ((vals = calloc(1, size)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	vals->values = (struct namecache_value *)(void *)(vals + 1);
	str = (char *)(vals->values + n);
	proto_kv_init(&kr, body, len);
	for (n = 0; proto_kv_next(&kr, &kv) > 0; n++) {
		struct namecache_value *v = &vals->values[n];

		v->key = put_str(&str, kv.key, kv.key_len);
		if (kv.kind == PROTO_KV_STR) {
			v->kind = NAMECACHE_VALUE_STRING;
			v->string = put_str(&str, kv.str, kv.str_len);
		} else {
			v->kind = NAMECACHE_VALUE_NUMBER;
			v->number = kv.u64;
		}
	}
	vals->count = n;
	*ret = vals;
	return 0;
}

int
nc_cache_page_decode(const uint8_t *body, size_t len, struct namecache_cache_page **ret)
{
	struct namecache_cache_page *pg;
	struct proto_cache_page	 pp;
	struct proto_cache_item	 it;
	size_t			 cur = 0, n = 0, strings = 0, size;
	char			*str;

	if (proto_cache_page_decode(body, len, &pp) < 0)
		return NAMECACHE_ERR_PROTOCOL;
	while (proto_cache_page_next(&pp, &cur, &it)) {
		strings += it.name_len + 1 + (it.origin ? it.origin_len + 1 : 0);
		n++;
	}
	size = sizeof(*pg) + n * sizeof(struct namecache_cache_entry) + strings;
	if ((pg = calloc(1, size)) == NULL)
		return NAMECACHE_ERR_NOMEM;
	pg->entries = (struct namecache_cache_entry *)(void *)(pg + 1);
	str = (char *)(pg->entries + n);
	for (cur = 0, n = 0; proto_cache_page_next(&pp, &cur, &it); n++) {
		struct namecache_cache_entry *e = &pg->entries[n];

		e->name = put_str(&str, it.name, it.name_len);
		e->kind = it.kind;
		e->status = it.status == PROTO_OK ? 0 : nc_status_error(it.status);
		e->flags = it.flags & PROTO_CACHE_EXPIRED ? NAMECACHE_ENTRY_EXPIRED : 0;
		e->ttl = it.ttl;
		e->origin = it.origin ? put_str(&str, it.origin, it.origin_len) : NULL;
	}
	pg->count = n;
	pg->next = pp.next;
	*ret = pg;
	return 0;
}

NC_EXPORT void
namecache_result_free(struct namecache_result *result)
{
	free(result);
}

NC_EXPORT void
namecache_records_free(struct namecache_records *records)
{
	free(records);
}

NC_EXPORT void
namecache_values_free(struct namecache_values *values)
{
	free(values);
}

NC_EXPORT void
namecache_cache_page_free(struct namecache_cache_page *page)
{
	free(page);
}

NC_EXPORT const char *
namecache_strerror(int error)
{
	switch (error) {
	case NAMECACHE_OK:
	case NAMECACHE_ERR_NOTFOUND:
	case NAMECACHE_ERR_NODATA:
	case NAMECACHE_ERR_TRYAGAIN:
	case NAMECACHE_ERR_BADREQUEST:
	case NAMECACHE_ERR_BADNAME:
	case NAMECACHE_ERR_UNSUPPORTED:
	case NAMECACHE_ERR_DENIED:
	case NAMECACHE_ERR_TOOBIG:
	case NAMECACHE_ERR_INTERNAL:
	case NAMECACHE_ERR_BUSY:
		/* The daemon's statuses, in the words namecachectl prints. */
		return proto_status_str(-error);
	case NAMECACHE_ERR_UNAVAILABLE:	return "the daemon cannot be reached";
	case NAMECACHE_ERR_TIMEOUT:	return "no answer in time";
	case NAMECACHE_ERR_PROTOCOL:	return "malformed reply from the daemon";
	case NAMECACHE_ERR_INVAL:	return "invalid argument";
	case NAMECACHE_ERR_NOMEM:	return "out of memory";
	case NAMECACHE_ERR_NOSOURCE:	return proto_status_str(PROTO_UNAVAIL);
	case NAMECACHE_ERR_MISS:	return "not in the shared cache";
	case NAMECACHE_ERR_NOTFOUND_TRYAGAIN:
		return proto_status_str(PROTO_NOTFOUND_TRYAGAIN);
	}
	return "unknown error";
}

NC_EXPORT const char *
namecache_source_str(int source)
{
	return proto_source_str(source);
}

NC_EXPORT const char *
namecache_rrtype_str(uint16_t type, char *buf, size_t len)
{
	return proto_rrtype_str(type, buf, len);
}

NC_EXPORT int
namecache_rrtype_parse(const char *name)
{
	int t = name ? proto_rrtype_parse(name) : -1;

	return t < 0 ? NAMECACHE_ERR_INVAL : t;
}

NC_EXPORT int
namecache_check_name(const char *name, const char **ret_why)
{
	if (name == NULL) {
		if (ret_why)
			*ret_why = "no name";
		return NAMECACHE_ERR_BADNAME;
	}
	return proto_name_check(name, strlen(name), ret_why) < 0 ?
	    NAMECACHE_ERR_BADNAME : 0;
}

/* Hex digits of a 16-bit word, no leading zeros (inet_ntop's "%x"). */
static char *
put_hex(char *p, unsigned w)
{
	static const char	 hex[] = "0123456789abcdef";
	bool			 any = false;

	for (int sh = 12; sh >= 0; sh -= 4) {
		unsigned d = (w >> sh) & 0xf;

		if (d || any || sh == 0) {
			*p++ = hex[d];
			any = true;
		}
	}
	return p;
}

static char *
put_v4(char *p, const uint8_t *b)
{
	for (int i = 0; i < 4; i++) {
		unsigned v = b[i];

		if (v >= 100)
			*p++ = (char)('0' + v / 100);
		if (v >= 10)
			*p++ = (char)('0' + v / 10 % 10);
		*p++ = (char)('0' + v % 10);
		if (i < 3)
			*p++ = '.';
	}
	return p;
}

/*
 * inet_ntop's text, written here because bindings format every address of
 * every answer: glibc's form exactly (the longest run of two or more zero
 * words as "::", the first of equal runs; the last 32 bits as IPv4 when
 * the first 96 bits are zero, but for :: and ::1, or v4-mapped).
 */
NC_EXPORT const char *
namecache_address_str(const struct namecache_address *a, char *buf, size_t len)
{
	char		 tmp[INET6_ADDRSTRLEN], *p = tmp;
	const uint8_t	*b;
	unsigned	 w[8];
	int		 best = -1, best_len = 0, cur = -1, cur_len = 0;

	if (a == NULL || buf == NULL || (a->family != AF_INET && a->family != AF_INET6))
		return NULL;
	b = a->addr.bytes;
	if (a->family == AF_INET)
		p = put_v4(p, b);
	else {
		for (int i = 0; i < 8; i++)
			w[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
		for (int i = 0; i < 8; i++) {
			if (w[i] == 0) {
				if (cur < 0)
					cur = i, cur_len = 0;
				if (++cur_len > best_len)
					best = cur, best_len = cur_len;
			} else
				cur = -1;
		}
		if (best_len < 2)
			best = -1;
		for (int i = 0; i < 8; i++) {
			if (best >= 0 && i >= best && i < best + best_len) {
				if (i == best)
					*p++ = ':';
				continue;
			}
			if (i)
				*p++ = ':';
			if (i == 6 && best == 0 && (best_len == 6 ||
			    (best_len == 5 && w[5] == 0xffff))) {
				p = put_v4(p, b + 12);
				break;
			}
			p = put_hex(p, w[i]);
		}
		if (best >= 0 && best + best_len == 8)
			*p++ = ':';
	}
	*p = '\0';
	if ((size_t)(p - tmp) + 1 > len)
		return NULL;
	memcpy(buf, tmp, (size_t)(p - tmp) + 1);
	return buf;
}
