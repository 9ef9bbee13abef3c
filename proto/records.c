/* SPDX-License-Identifier: MIT */
/* proto/records.c - records of any type in namecache's protocol: query -t's, the DNS listener's wire form, type names. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proto.h"

int
proto_query_rr_encode(struct proto_wr *w, uint32_t id, uint16_t type,
    const char *name)
{
	size_t len = strlen(name);

	if (proto_name_check(name, len, NULL) < 0)
		return -EINVAL;
	proto_frame_begin(w, PROTO_QUERY_RR, 0, id);
	proto_put_u16(w, type);
	proto_put_u8(w, 0);
	proto_put_u8(w, 0);
	proto_put_str(w, name, len);
	return proto_frame_end(w);
}

int
proto_query_rr_decode(const void *body, size_t len, struct proto_query_rr *ret_req,
    const char **ret_why)
{
	struct rd	 rd;
	const uint8_t	*name;
	size_t		 n;

	rd_init(&rd, body, len);
	ret_req->type = rd_u16(&rd);
	rd_u8(&rd);
	rd_u8(&rd);
	n = rd_u16(&rd);
	name = rd_bytes(&rd, n);
	if (rd.err) {
		if (ret_why)
			*ret_why = "truncated query request";
		return rd.err;
	}
	if (ret_req->type == 0) {
		if (ret_why)
			*ret_why = "record type 0";
		return -EINVAL;
	}
	if (proto_name_check((const char *)name, n, ret_why) < 0 ||
	    n > sizeof(ret_req->name) - 1)
		return -EINVAL;
	memcpy(ret_req->name, name, n);
	ret_req->name[n] = '\0';
	ret_req->name_len = n;
	return 0;
}

void
proto_records_begin(struct proto_records_wr *rw, struct proto_wr *w,
    uint32_t ttl, uint8_t source)
{
	rw->w = w;
	rw->count = 0;
	proto_put_u32(w, ttl);
	proto_put_u8(w, source);
	proto_put_u8(w, 0);
	rw->count_off = w->off;
	proto_put_u16(w, 0);
}

void
proto_records_add(struct proto_records_wr *rw, const char *owner, uint16_t type,
    uint32_t ttl, const char *rdata)
{
	if (rw->count == UINT16_MAX) {
		rw->w->err = -EMSGSIZE;
		return;
	}
	proto_put_str(rw->w, owner, strlen(owner));
	proto_put_u16(rw->w, type);
	proto_put_u32(rw->w, ttl);
	proto_put_str(rw->w, rdata, strlen(rdata));
	rw->count++;
}

int
proto_records_end(struct proto_records_wr *rw)
{
	return proto_put_u16_at(rw->w, rw->count_off, rw->count);
}

int
proto_records_decode(const void *body, size_t len, struct proto_records *ret)
{
	struct proto_records	r;
	struct rd		rd;
	size_t			i, n;

	memset(&r, 0, sizeof(r));
	rd_init(&rd, body, len);
	r.ttl = rd_u32(&rd);
	r.source = rd_u8(&rd);
	rd_u8(&rd);
	r.count = rd_u16(&rd);
	r.items = rd.p + rd.off;
	for (i = 0; i < r.count && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		rd_u16(&rd);
		rd_u32(&rd);
		proto_get_str(&rd, &n);
	}
	if (rd.err)
		return rd.err;
	r.items_len = (size_t)(rd.p + rd.off - r.items);
	*ret = r;
	return 0;
}

void
proto_wire_body(struct proto_wr *w, const struct proto_wire *b)
{
	proto_put_u32(w, b->cap);
	proto_put_u32(w, b->age);
	proto_put_u8(w, b->source);
	proto_put_u8(w, 0);
	proto_put_u16(w, 0);
	proto_put_bytes(w, b->rrs, b->rrs_len);
}

int
proto_wire_decode(const void *body, size_t len, struct proto_wire *ret)
{
	struct proto_wire	b;
	struct rd		rd;

	rd_init(&rd, body, len);
	b.cap = rd_u32(&rd);
	b.age = rd_u32(&rd);
	b.source = rd_u8(&rd);
	rd_u8(&rd);
	rd_u16(&rd);
	if (rd.err)
		return rd.err;
	b.rrs = rd.p + rd.off;
	b.rrs_len = len - rd.off;
	*ret = b;
	return 0;
}

int
proto_records_stamp(void *body, size_t len, uint32_t ttl, uint8_t source)
{
	struct proto_records	 recs;
	struct rd		 rd;
	struct proto_wr		 w;
	uint8_t			*items;
	size_t			 i, n;
	int			 r;

	/* Records bodies open as answers do: u32 ttl, u8 source. */
	if ((r = proto_answer_stamp(body, len, ttl, source)) < 0)
		return r;
	if ((r = proto_records_decode(body, len, &recs)) < 0)
		return r;
	items = (uint8_t *)body + (recs.items - (const uint8_t *)body);
	rd_init(&rd, items, recs.items_len);
	for (i = 0; i < recs.count && rd.err == 0; i++) {
		proto_get_str(&rd, &n);
		rd_u16(&rd);
		/* The decoder walked these bytes: the ttl is in bounds. */
		proto_wr_init(&w, items + rd.off, 4);
		proto_put_u32(&w, ttl);
		rd_u32(&rd);
		proto_get_str(&rd, &n);
	}
	return rd.err;
}

int
proto_records_next(const struct proto_records *r, size_t *cursor,
    struct proto_record *ret)
{
	struct rd rd;

	if (*cursor >= r->items_len)
		return 0;
	rd_init(&rd, r->items, r->items_len);
	rd_seek(&rd, *cursor);
	ret->owner = proto_get_str(&rd, &ret->owner_len);
	ret->type = rd_u16(&rd);
	ret->ttl = rd_u32(&rd);
	ret->rdata = proto_get_str(&rd, &ret->rdata_len);
	if (rd.err)
		return 0;
	*cursor = rd.off;
	return 1;
}

static const struct {
	uint16_t	 type;
	const char	*name;
} rrtypes[] = {
	{ 1, "A" }, { 2, "NS" }, { 5, "CNAME" }, { 6, "SOA" }, { 12, "PTR" },
	{ 13, "HINFO" }, { 15, "MX" }, { 16, "TXT" }, { 28, "AAAA" },
	{ 33, "SRV" }, { 35, "NAPTR" }, { 39, "DNAME" }, { 41, "OPT" },
	{ 43, "DS" }, { 44, "SSHFP" }, { 46, "RRSIG" }, { 47, "NSEC" },
	{ 48, "DNSKEY" }, { 52, "TLSA" }, { 64, "SVCB" }, { 65, "HTTPS" },
	{ 99, "SPF" }, { 255, "ANY" }, { 256, "URI" }, { 257, "CAA" },
};

const char *
proto_rrtype_str(uint16_t type, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(rrtypes) / sizeof(rrtypes[0]); i++)
		if (rrtypes[i].type == type)
			return rrtypes[i].name;
	snprintf(buf, len, "TYPE%u", type);
	return buf;
}

int
proto_rrtype_parse(const char *s)
{
	unsigned long	 n = 0;
	size_t		 i;

	for (i = 0; i < sizeof(rrtypes) / sizeof(rrtypes[0]); i++)
		if (strcasecmp(rrtypes[i].name, s) == 0)
			return rrtypes[i].type;
	if (strncasecmp(s, "TYPE", 4) != 0 || s[4] == '\0')
		return -1;
	/* By hand, not strtoul: proto leaves errno alone. */
	for (s += 4; *s; s++) {
		if (*s < '0' || *s > '9' || (n = n * 10 + (unsigned long)(*s - '0')) > 65535)
			return -1;
	}
	return n > 0 ? (int)n : -1;
}
