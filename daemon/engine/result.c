/* SPDX-License-Identifier: MIT */
/* daemon/engine/reply.c - builds the reply frame of each step of a walk, in glibc's shape. */
#include <netdb.h>
#include <string.h>
#include <stdlib.h>

#include "dnsanswer.h"
#include "hosts.h"
#include "reply.h"

/*
 * Buffers, each 64 KiB (a frame's limit).  frame: the reply being built,
 * borrowed by the caller until the next reply_* call.  body: the A and
 * AAAA answers merged, and respelled: a body with the client's spelling,
 * both scratch within one call.
 */
struct reply {
	uint8_t		 frame[PROTO_FRAME_MAX];
	uint8_t		 body[PROTO_FRAME_MAX];
	uint8_t		 respelled[PROTO_FRAME_MAX];
	char		 spelled[DNSSRC_NCAND][DNSMSG_NAME_STRLEN];
};

struct reply *
reply_new(void)
{
	return calloc(1, sizeof(struct reply));
}

void
reply_free(struct reply *r)
{
	free(r);
}

const uint8_t *
reply_frame(const struct reply *r)
{
	return r->frame;
}

static int
nsw_of(uint16_t status)
{
	switch (status) {
	case PROTO_OK:		return NSW_SUCCESS;
	case PROTO_NOTFOUND:
	case PROTO_NODATA:
	case PROTO_NOTFOUND_TRYAGAIN:	return NSW_NOTFOUND;
	case PROTO_TRYAGAIN:	return NSW_TRYAGAIN;
	default:		return NSW_UNAVAIL;
	}
}

/* Ends the frame; one too large becomes PROTO_TOOBIG.  Returns its status. */
static uint16_t
end_frame(struct proto_wr *w, const struct reply_to *to, uint16_t status,
    struct stage *st)
{
	int n;

	if ((n = proto_frame_end(w)) < 0) {
		proto_frame_begin(w, to->type | PROTO_REPLY, PROTO_TOOBIG, to->id);
		n = proto_frame_end(w);
		status = PROTO_TOOBIG;
	}
	st->len = (size_t)(n < 0 ? 0 : n);
	st->status = status;
	st->nsw = nsw_of(status);
	return status;
}

void
reply_files(struct reply *rp, const struct reply_to *to, const struct hosts *h,
    int hosts_error, struct stage *st)
{
	struct proto_wr	w;
	int		r;

	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, PROTO_OK, to->id);
	if (to->what == REPLY_NAME)
		r = hosts_lookup_name(h, to->name, to->family, &w);
	else
		r = hosts_lookup_addr(h, to->family, to->addr, &w);
	if (r < 0) {
		reply_error(rp, to, PROTO_TOOBIG,
		    "answer larger than the 64 KiB frame limit", st);
		return;
	}
	st->source = PROTO_SRC_HOSTS;
	/* Hosts answers last until the file changes (a reload resets). */
	st->expires = WALK_FOREVER;
	st->ttl_full = UINT32_MAX;
	if (r > 0) {
		end_frame(&w, to, PROTO_OK, st);
		return;
	}
	proto_frame_begin(&w, to->type | PROTO_REPLY, PROTO_NOTFOUND, to->id);
	end_frame(&w, to, PROTO_NOTFOUND, st);
	if (hosts_error != 0) {
		/* As glibc's files module when it cannot open the file. */
		st->nsw = NSW_UNAVAIL;
		st->status = PROTO_UNAVAIL;
		st->herrno = NETDB_INTERNAL;
		st->err = -hosts_error;
		st->expires = 0;
	}
}

/* The answer body p, its names spelled as the client's candidates were. */
static void
put_respelled(struct reply *rp, struct proto_wr *w, const uint8_t *p, size_t len,
    char cand[][PROTO_NAME_MAX + 2], int n)
{
	const char	*names[DNSSRC_NCAND];
	struct proto_wr	 rw;
	int		 i;

	for (i = 0; i < n; i++) {
		/* Spelled as names read from replies are, escapes and all. */
		if (dnsmsg_name_normalize(cand[i], rp->spelled[i],
		    sizeof(rp->spelled[i])) < 0)
			memcpy(rp->spelled[i], cand[i], strnlen(cand[i],
			    PROTO_NAME_MAX + 1) + 1);
		names[i] = rp->spelled[i];
	}
	proto_wr_init(&rw, rp->respelled, sizeof(rp->respelled));
	if (dnsanswer_respell(p, len, names, (size_t)n, &rw) == 0)
		proto_put_bytes(w, rp->respelled, rw.off);
	else
		proto_put_bytes(w, p, len);
}

/* The DNS listener's records, as kept: one result, never published. */
static void
reply_wire(struct reply *rp, const struct reply_to *to, const struct dns_result *r,
    struct stage *st)
{
	struct proto_wr	w;
	uint16_t	status;

	switch (r->status) {
	case CACHE_POSITIVE:	status = PROTO_OK; break;
	case CACHE_NODATA:	status = PROTO_NODATA; break;
	case CACHE_NXDOMAIN:
		status = r->after_failure ? PROTO_NOTFOUND_TRYAGAIN : PROTO_NOTFOUND;
		break;
	default:		status = PROTO_TRYAGAIN; break;
	}
	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, status, to->id);
	if (status == PROTO_TRYAGAIN)
		proto_error_body(&w, "upstream DNS failed or timed out");
	else if (status != PROTO_NOTFOUND_TRYAGAIN)
		proto_wire_body(&w, &(struct proto_wire){
		    .cap = r->ttl,
		    /* Stale: every record told DNSSRC_STALE_TTL at most. */
		    .age = r->source == PROTO_SRC_STALE || r->ttl_full < r->ttl ? 0 :
			r->ttl_full - r->ttl,
		    .source = r->source,
		    .rrs = r->data, .rrs_len = r->data ? r->len : 0 });
	status = end_frame(&w, to, status, st);
	st->source = r->source;
}

void
reply_dns(struct reply *rp, const struct reply_to *to,
    char cand[][PROTO_NAME_MAX + 2], int ncand, const struct dns_result *r,
    unsigned n, struct stage *st)
{
	const struct dns_result	*pos[2] = { NULL, NULL };
	struct proto_wr		 w;
	uint32_t		 ttl = UINT32_MAX, ttl_full = UINT32_MAX;
	int64_t			 expires = INT64_MAX;
	uint8_t			 source = PROTO_SRC_CACHE;
	uint16_t		 status;
	unsigned		 i, npos = 0;

	if (to->what == REPLY_WIRE) {
		reply_wire(rp, to, &r[0], st);
		return;
	}
	for (i = 0; i < n; i++) {
		if (r[i].status != CACHE_POSITIVE)
			continue;
		pos[i] = &r[i];
		npos++;
		if (r[i].ttl < ttl)
			ttl = r[i].ttl;
		if (r[i].source == PROTO_SRC_STALE)
			source = PROTO_SRC_STALE;
		else if (r[i].source == PROTO_SRC_DNS && source != PROTO_SRC_STALE)
			source = PROTO_SRC_DNS;
	}
	if (npos > 0)
		status = PROTO_OK;
	else {
		/* Nothing positive: a failure wins, then NODATA, then NXDOMAIN;
		 * nothing found after a failure is glibc's NOTFOUND with
		 * TRY_AGAIN. */
		status = PROTO_NOTFOUND;
		for (i = 0; i < n; i++)
			if (r[i].status == CACHE_NODATA)
				status = PROTO_NODATA;
		for (i = 0; i < n; i++)
			if (r[i].after_failure)
				status = PROTO_NOTFOUND_TRYAGAIN;
		for (i = 0; i < n; i++)
			if (r[i].status == CACHE_FAILED)
				status = PROTO_TRYAGAIN;
	}
	/* Published until the first of the results it rests on expires. */
	for (i = 0; i < n; i++) {
		if (status == PROTO_OK && r[i].status != CACHE_POSITIVE)
			continue;
		if (r[i].expires_ms < expires)
			expires = r[i].expires_ms;
		if (r[i].ttl_full < ttl_full)
			ttl_full = r[i].ttl_full;
	}
	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, status, to->id);
	if (status != PROTO_OK) {
		if (status == PROTO_TRYAGAIN)
			proto_error_body(&w, "upstream DNS failed or timed out");
	} else if (n == 2 && to->what == REPLY_NAME) {
		struct proto_wr bw;

		proto_wr_init(&bw, rp->body, sizeof(rp->body));
		if (dnsanswer_merge(pos[0] ? pos[0]->data : NULL, pos[0] ? pos[0]->len : 0,
		    pos[1] ? pos[1]->data : NULL, pos[1] ? pos[1]->len : 0, ttl,
		    source, &bw) < 0) {
			reply_error(rp, to, PROTO_INTERNAL,
			    "cannot merge the A and AAAA answers", st);
			return;
		}
		put_respelled(rp, &w, rp->body, bw.off, cand, ncand);
	} else {
		const struct dns_result *p = pos[0] ? pos[0] : pos[1];
		size_t at = w.off;

		if (to->what == REPLY_NAME)
			put_respelled(rp, &w, p->data, p->len, cand, ncand);
		else
			proto_put_bytes(&w, p->data, p->len);
		if (w.err == 0 && to->what == REPLY_RR)
			dnsanswer_stamp_records(w.p + at, w.off - at, ttl, source);
		else if (w.err == 0)
			dnsanswer_stamp(w.p + at, w.off - at, ttl, source);
	}
	status = end_frame(&w, to, status, st);
	st->source = status == PROTO_OK ? source : PROTO_SRC_DNS;
	st->exact = to->what == REPLY_NAME && status == PROTO_OK;
	/* Never a stale answer, a failure, or one with no expiry to keep. */
	if (expires != INT64_MAX && source != PROTO_SRC_STALE &&
	    (status == PROTO_OK || status == PROTO_NOTFOUND || status == PROTO_NODATA))
		st->expires = expires;
	st->ttl_full = ttl_full;
}

void
reply_module(struct reply *rp, const struct reply_to *to,
    const struct modsrc_answer *a, struct stage *st)
{
	struct proto_wr	w, rw;

	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, a->status, to->id);
	if (a->status == PROTO_OK) {
		size_t at = w.off;

		proto_wr_init(&rw, rp->respelled, sizeof(rp->respelled));
		if (to->what == REPLY_NAME && dnsanswer_respell_whole(a->body, a->len,
		    to->name, &rw) == 0)
			proto_put_bytes(&w, rp->respelled, rw.off);
		else
			proto_put_bytes(&w, a->body, a->len);
		if (w.err == 0)
			dnsanswer_stamp(w.p + at, w.off - at, a->ttl, a->source);
	}
	end_frame(&w, to, a->status, st);
	st->source = a->source;
	/* A module may answer "vm" and not "VM": whatever it said, it said
	 * for this spelling only. */
	st->exact = to->what == REPLY_NAME;
	st->expires = a->expires;
	st->ttl_full = a->ttl_full;
	st->herrno = a->herrno;
	st->err = a->err;
}

void
reply_error(struct reply *rp, const struct reply_to *to, uint16_t status,
    const char *why, struct stage *st)
{
	struct proto_wr	w;

	memset(st, 0, sizeof(*st));
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, status, to->id);
	proto_error_body(&w, why);
	end_frame(&w, to, status, st);
	st->nsw = NSW_UNAVAIL;
}

void
reply_end_unavail(struct reply *rp, const struct reply_to *to, struct stage *st)
{
	struct proto_wr	w;

	if (st->nsw != NSW_UNAVAIL || st->status == PROTO_TOOBIG ||
	    st->status == PROTO_INTERNAL || st->status == PROTO_BUSY)
		return;
	proto_wr_init(&w, rp->frame, sizeof(rp->frame));
	proto_frame_begin(&w, to->type | PROTO_REPLY, PROTO_UNAVAIL, to->id);
	proto_unavail_body(&w, st->herrno, st->err,
	    "every source on the hosts line is unavailable");
	st->status = PROTO_UNAVAIL;
	st->len = (size_t)proto_frame_end(&w);
}
