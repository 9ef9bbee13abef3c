/* SPDX-License-Identifier: MIT */
/* daemon/engine/answer.c - a lookup's answer, typed, and the one body namecache's protocol writes of it. */
#include <errno.h>
#include <string.h>

#include "answer.h"

void
answer_status(struct answer *ret, uint16_t status, const char *why)
{
	memset(ret, 0, sizeof(*ret));
	ret->status = status;
	ret->form = ANSWER_NONE;
	ret->why = why;
}

int
answer_host_merge(const struct proto_answer *a, const struct proto_answer *aaaa,
    uint8_t *buf, size_t cap, struct proto_answer *ret)
{
	const struct proto_answer *first = a ? a : aaaa;

	*ret = *first;
	if (a == NULL || aaaa == NULL)
		return 0;
	if (a->addrs_len + aaaa->addrs_len > cap ||
	    (size_t)a->naddr + aaaa->naddr > UINT16_MAX)
		return -EMSGSIZE;
	memcpy(buf, a->addrs, a->addrs_len);
	memcpy(buf + a->addrs_len, aaaa->addrs, aaaa->addrs_len);
	ret->addrs = buf;
	ret->addrs_len = a->addrs_len + aaaa->addrs_len;
	ret->naddr = (uint16_t)(a->naddr + aaaa->naddr);
	ret->naddr4 = (uint16_t)(a->naddr4 + aaaa->naddr4);
	ret->naddr6 = (uint16_t)(a->naddr6 + aaaa->naddr6);
	/* An NSS module's answer keeps its module's name. */
	if (ret->origin == NULL && aaaa->origin) {
		ret->origin = aaaa->origin;
		ret->origin_len = aaaa->origin_len;
	}
	return 0;
}

size_t
answer_body_size(const struct answer *a)
{
	const struct proto_answer *h = &a->host;

	switch (a->form) {
	case ANSWER_HOST:
		/* u32 ttl, u8 source, u8 flags, u16 naddr, u16 nalias, str canon. */
		return 10 + 2 + h->canon_len + h->addrs_len + h->aliases_len +
		    (h->origin ? 2 + h->origin_len : 0);
	case ANSWER_RECORDS:
		/* u32 ttl, u8 source, u8 flags, u16 count. */
		return 8 + a->records.items_len;
	default:
		return 0;
	}
}

void
answer_put_body(const struct answer *a, uint32_t ttl, uint8_t source,
    struct proto_wr *w)
{
	const struct proto_answer	*h = &a->host;
	struct proto_answer_wr		 aw;
	struct proto_records_wr		 rw;
	size_t				 at;

	switch (a->form) {
	case ANSWER_HOST:
		/* The parts as the cache keeps them: their bytes are the protocol's. */
		proto_answer_begin(&aw, w, ttl, source, h->canon, h->canon_len);
		proto_put_bytes(w, h->addrs, h->addrs_len);
		aw.naddr = h->naddr;
		proto_put_bytes(w, h->aliases, h->aliases_len);
		aw.nalias = h->nalias;
		if (proto_answer_end(&aw) == 0 && h->origin)
			proto_put_str(w, h->origin, h->origin_len);
		return;
	case ANSWER_RECORDS:
		at = w->off;
		proto_records_begin(&rw, w, ttl, source);
		proto_put_bytes(w, a->records.items, a->records.items_len);
		rw.count = a->records.count;
		/* Every record counts down with the answer, clamped as it was. */
		if (proto_records_end(&rw) == 0)
			(void)proto_records_stamp(w->p + at, w->off - at, ttl, source);
		return;
	default:
		return;
	}
}
