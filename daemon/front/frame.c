/* SPDX-License-Identifier: MIT */
/* daemon/front/frame.c - an engine's answer as the namecache protocol's reply frame. */
#include "answer.h"
#include "frame.h"
#include "proto.h"

size_t
frame_answer(uint8_t *buf, size_t cap, uint8_t type, uint32_t id, const struct answer *a)
{
	struct proto_wr	w;
	int		n;

	proto_wr_init(&w, buf, cap < PROTO_FRAME_MAX ? cap : PROTO_FRAME_MAX);
	proto_frame_begin(&w, type | PROTO_REPLY, a->status, id);
	if (a->form == ANSWER_WIRE)
		proto_wire_body(&w, &(struct proto_wire){ .cap = a->wire.cap,
		    .age = a->wire.age, .source = a->source, .rrs = a->wire.rrs,
		    .rrs_len = a->wire.len });
	else if (a->status == PROTO_OK)
		answer_put_body(a, a->ttl, a->source, &w);
	else if (a->status == PROTO_UNAVAIL)
		proto_unavail_body(&w, a->herrno, a->err, a->why ? a->why : "");
	else if (a->why)
		proto_error_body(&w, a->why);
	if ((n = proto_frame_end(&w)) < 0) {
		proto_wr_init(&w, buf, cap < PROTO_FRAME_MAX ? cap : PROTO_FRAME_MAX);
		proto_frame_begin(&w, type | PROTO_REPLY, PROTO_TOOBIG, id);
		n = proto_frame_end(&w);
	}
	return n < 0 ? 0 : (size_t)n;
}
