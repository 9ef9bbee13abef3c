/* SPDX-License-Identifier: MIT */
/* proto/event.c - the monitor's events and the metrics' pages, as the socket carries them. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "event.h"

static uint8_t *
st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *
st32(uint8_t *p, uint32_t v)
{
	return st16(st16(p, (uint16_t)(v >> 16)), (uint16_t)v);
}

static uint8_t *
st64(uint8_t *p, uint64_t v)
{
	return st32(st32(p, (uint32_t)(v >> 32)), (uint32_t)v);
}

/*
 * The fixed part is stored in one go: an event is built for every lookup
 * while a monitor watches, so it costs stores, not a call per field.
 */
void
proto_event_body(struct proto_wr *w, const struct proto_event *ev)
{
	uint8_t fixed[PROTO_EVENT_FIXED], *p = fixed;

	p = st64(p, ev->time_us);
	p = st32(p, ev->usec);
	p = st64(p, ev->lost);
	p = st32(p, (uint32_t)ev->pid);
	p = st32(p, ev->uid);
	*p++ = ev->fe;
	*p++ = ev->cache;
	*p++ = ev->question;
	*p++ = ev->family;
	p = st16(p, ev->type);
	p = st16(p, ev->status);
	*p++ = ev->client_family;
	p = st16(p, ev->client_port);
	memcpy(p, ev->client_addr, 16);
	memcpy(p + 16, ev->addr, 16);
	if (p + 32 != fixed + sizeof(fixed)) {	/* PROTO_EVENT_FIXED is wrong */
		w->err = -EINVAL;
		return;
	}
	proto_put_bytes(w, fixed, sizeof(fixed));
	proto_put_str(w, ev->command, ev->command_len);
	proto_put_str(w, ev->source, ev->source_len);
	proto_put_str(w, ev->name, ev->name_len);
	proto_put_u8(w, ev->reply_type);
	proto_put_u16(w, ev->body_len > UINT16_MAX ? 0 : (uint16_t)ev->body_len);
	proto_put_bytes(w, ev->body, ev->body_len > UINT16_MAX ? 0 : ev->body_len);
}

int
proto_event_decode(const void *body, size_t len, struct proto_event *ret)
{
	struct rd	 rd;
	const uint8_t	*p;

	memset(ret, 0, sizeof(*ret));
	rd_init(&rd, body, len);
	ret->time_us = rd_u64(&rd);
	ret->usec = rd_u32(&rd);
	ret->lost = rd_u64(&rd);
	ret->pid = (int32_t)rd_u32(&rd);
	ret->uid = rd_u32(&rd);
	ret->fe = rd_u8(&rd);
	ret->cache = rd_u8(&rd);
	ret->question = rd_u8(&rd);
	ret->family = rd_u8(&rd);
	ret->type = rd_u16(&rd);
	ret->status = rd_u16(&rd);
	ret->client_family = rd_u8(&rd);
	ret->client_port = rd_u16(&rd);
	if ((p = rd_bytes(&rd, 16)) != NULL)
		memcpy(ret->client_addr, p, 16);
	if ((p = rd_bytes(&rd, 16)) != NULL)
		memcpy(ret->addr, p, 16);
	ret->command = proto_get_str(&rd, &ret->command_len);
	ret->source = proto_get_str(&rd, &ret->source_len);
	ret->name = proto_get_str(&rd, &ret->name_len);
	ret->reply_type = rd_u8(&rd);
	ret->body_len = rd_u16(&rd);
	ret->body = rd_bytes(&rd, ret->body_len);
	if (!rd_done(&rd) || ret->fe >= PROTO_FE_COUNT ||
	    ret->cache >= PROTO_CACHE_COUNT || ret->question > PROTO_Q_DB)
		return -EBADMSG;
	return 0;
}

static const char *const fe_words[PROTO_FE_COUNT] = { "", "socket", "nscd", "dns" };
static const char *const cache_words[PROTO_CACHE_COUNT] = {
	"hit", "miss", "stale", "coalesced", "prefetch",
};

const char *
proto_fe_str(int fe)
{
	return fe >= 0 && fe < PROTO_FE_COUNT ? fe_words[fe] : "";
}

const char *
proto_cache_str(int cache)
{
	return cache >= 0 && cache < PROTO_CACHE_COUNT ? cache_words[cache] : "";
}

const char *
proto_result_str(int status)
{
	switch (status) {
	case PROTO_OK:			return "found";
	case PROTO_NOTFOUND:
	case PROTO_NOTFOUND_TRYAGAIN:	return "not found";
	case PROTO_NODATA:		return "no data";
	default:			return "failure";
	}
}

/* glibc's nscd request types of the other databases, by number (proto/nscd.h). */
static const char *const db_calls[] = {
	[0] = "getpwnam", [1] = "getpwuid", [2] = "getgrnam", [3] = "getgrgid",
	[15] = "initgroups", [16] = "getservbyname", [17] = "getservbyport",
	[19] = "setnetgrent", [20] = "innetgr",
};

const char *
proto_kind_str(int question, int family, uint16_t type, char *buf, size_t len)
{
	if (question == PROTO_Q_DB) {
		if (type < sizeof(db_calls) / sizeof(db_calls[0]) && db_calls[type])
			return db_calls[type];
		snprintf(buf, len, "nscd%u", (unsigned)type);
		return buf;
	}
	if (type != 0)
		return proto_rrtype_str(type, buf, len);
	if (question == PROTO_Q_ADDR)
		return "PTR";
	return family == PROTO_AF_INET ? "AF_INET" : family == PROTO_AF_INET6 ?
	    "AF_INET6" : "AF_UNSPEC";
}

unsigned
proto_answer_words(int question, const uint8_t *body, size_t len, unsigned max,
    void (*fn)(void *arg, const char *s, size_t n), void *arg)
{
	struct proto_answer	 ans;
	char			 buf[600], t[16];
	size_t			 cur = 0, n;
	const uint8_t		*a;
	const char		*s;
	uint8_t			 fam;
	unsigned		 count = 0;

	if (len == 0 || question == PROTO_Q_WIRE || question == PROTO_Q_DB)
		return 0;
	if (question == PROTO_Q_RR) {
		struct proto_records	rs;
		struct proto_record	r;

		if (proto_records_decode(body, len, &rs) < 0)
			return 0;
		for (; count < max && proto_records_next(&rs, &cur, &r) == 1; count++) {
			n = (size_t)snprintf(buf, sizeof(buf), "%s %.*s",
			    proto_rrtype_str(r.type, t, sizeof(t)),
			    (int)(r.rdata_len > 512 ? 512 : r.rdata_len), r.rdata);
			fn(arg, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
		}
		return count;
	}
	if (proto_answer_decode(body, len, &ans) < 0)
		return 0;
	if (question == PROTO_Q_ADDR) {
		fn(arg, ans.canon, ans.canon_len);
		for (count = 1; count < max && proto_answer_next_alias(&ans, &cur, &s, &n);
		    count++)
			fn(arg, s, n);
		return count;
	}
	for (; count < max && proto_answer_next_addr(&ans, &cur, &fam, &a); count++) {
		if (inet_ntop(fam == PROTO_AF_INET ? AF_INET : AF_INET6, a, buf,
		    INET6_ADDRSTRLEN) == NULL)
			buf[0] = '\0';
		n = strlen(buf);
		if (fam == PROTO_AF_INET6_SCOPED && proto_answer_scope(fam, a) != 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%%%u",
			    proto_answer_scope(fam, a));
		fn(arg, buf, n);
	}
	return count;
}

int
proto_metrics_encode(struct proto_wr *w, uint32_t id, uint64_t serial, uint64_t offset)
{
	proto_frame_begin(w, PROTO_METRICS, PROTO_OK, id);
	proto_put_u64(w, serial);
	proto_put_u64(w, offset);
	return proto_frame_end(w);
}

int
proto_metrics_decode(const void *body, size_t len, uint64_t *ret_serial,
    uint64_t *ret_offset)
{
	struct rd rd;

	rd_init(&rd, body, len);
	*ret_serial = rd_u64(&rd);
	*ret_offset = rd_u64(&rd);
	return rd_done(&rd) ? 0 : -EBADMSG;
}

int
proto_metrics_page_decode(const void *body, size_t len, struct proto_metrics_page *ret)
{
	struct rd rd;

	rd_init(&rd, body, len);
	ret->serial = rd_u64(&rd);
	ret->total = rd_u64(&rd);
	if (rd.err || ret->total > UINT32_MAX)
		return -EBADMSG;
	ret->text = rd.p + rd.off;
	ret->len = rd_left(&rd);
	return 0;
}
