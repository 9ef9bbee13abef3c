/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-proto.c - fuzz target: the wire protocol decoders. */

/*
 * The first byte picks a decoder, the rest is its input: a frame header
 * (read as glibc's nscd request header too), a lookup by name or address,
 * an answer, a kv list, an error body, a whole frame dispatched on its
 * type as the daemon and client would, a query -t request or its records,
 * an invalidate request, a show-cache request or page, a record type
 * mnemonic, a monitor's event, or a metrics request or page.  What decodes is encoded again and must decode to the same
 * thing.
 */
#include <errno.h>
#include <string.h>

#include "event.h"
#include "fuzz.h"
#include "nscd.h"
#include "proto.h"

static uint8_t	frame[PROTO_FRAME_MAX];

/* A header: namecache's, and the same bytes as glibc's nscd request. */
static void
do_hdr(const uint8_t *p, size_t n)
{
	struct proto_hdr	h, again;
	struct nscd_req_hdr	nh;
	uint8_t			b[PROTO_HDR_LEN];
	int			r;

	r = proto_hdr_decode(p, n, &h);
	FUZZ_CHECK(r == 0 || r == -EAGAIN || r == -EMSGSIZE ||
	    r == -EPROTONOSUPPORT);
	if (r == 0) {
		FUZZ_CHECK(h.len >= PROTO_HDR_LEN && h.len <= PROTO_FRAME_MAX &&
		    h.version == PROTO_VERSION);
		FUZZ_CHECK(proto_hdr_encode(&h, b, sizeof(b)) == PROTO_HDR_LEN);
		FUZZ_CHECK(memcmp(b, p, PROTO_HDR_LEN) == 0);
		FUZZ_CHECK(proto_hdr_decode(b, sizeof(b), &again) == 0 &&
		    memcmp(&again, &h, sizeof(h)) == 0);
	}

	r = nscd_req_decode(p, n, &nh);
	FUZZ_CHECK(r == 0 || r == -EAGAIN || r == -EMSGSIZE ||
	    r == -EPROTONOSUPPORT || r == -EBADMSG);
	FUZZ_CHECK((r == -EAGAIN) == (n < NSCD_REQ_HDR_LEN));
	if (r == 0)
		FUZZ_CHECK(nh.version == NSCD_VERSION && nh.type >= 0 &&
		    nh.key_len >= 0 && nh.key_len <= NSCD_KEY_MAX &&
		    memcmp(&nh, p, sizeof(nh)) == 0);
}

static void
do_lookup_name(const uint8_t *p, size_t n)
{
	struct proto_lookup_name	 req, again;
	struct proto_hdr		 h;
	struct proto_wr			 w;
	const char			*why = NULL;
	int				 r;

	r = proto_lookup_name_decode(p, n, &req, &why);
	FUZZ_CHECK(r == 0 || ((r == -EBADMSG || r == -EINVAL) && why != NULL));
	if (r < 0)
		return;
	FUZZ_CHECK(req.name_len == strlen(req.name));
	FUZZ_CHECK(req.name_len <= PROTO_NAME_MAX + 1);
	FUZZ_CHECK(proto_name_check(req.name, req.name_len, NULL) == 0);

	proto_wr_init(&w, frame, sizeof(frame));
	r = proto_lookup_name_encode(&w, 7, req.family, req.name);
	FUZZ_CHECK(r > PROTO_HDR_LEN);
	FUZZ_CHECK(proto_hdr_decode(frame, (size_t)r, &h) == 0);
	FUZZ_CHECK(h.len == (uint32_t)r && h.type == PROTO_LOOKUP_NAME && h.id == 7);
	FUZZ_CHECK(proto_lookup_name_decode(frame + PROTO_HDR_LEN,
	    (size_t)r - PROTO_HDR_LEN, &again, NULL) == 0);
	FUZZ_CHECK(again.family == req.family && again.flags == 0 &&
	    again.name_len == req.name_len &&
	    memcmp(again.name, req.name, req.name_len) == 0);
}

static void
do_lookup_addr(const uint8_t *p, size_t n)
{
	struct proto_lookup_addr	 req, again;
	struct proto_wr			 w;
	const char			*why = NULL;
	int				 r;

	r = proto_lookup_addr_decode(p, n, &req, &why);
	FUZZ_CHECK(r == 0 || ((r == -EBADMSG || r == -EINVAL) && why != NULL));
	if (r < 0)
		return;
	FUZZ_CHECK(req.family == PROTO_AF_INET || req.family == PROTO_AF_INET6);
	proto_wr_init(&w, frame, sizeof(frame));
	r = proto_lookup_addr_encode(&w, 9, req.family, req.addr);
	FUZZ_CHECK(r == PROTO_HDR_LEN + 2 + (req.family == PROTO_AF_INET ? 4 : 16));
	FUZZ_CHECK(proto_lookup_addr_decode(frame + PROTO_HDR_LEN,
	    (size_t)r - PROTO_HDR_LEN, &again, NULL) == 0);
	FUZZ_CHECK(again.family == req.family &&
	    memcmp(again.addr, req.addr, sizeof(req.addr)) == 0);
}

static void
do_answer(const uint8_t *p, size_t n)
{
	struct proto_answer	 a, b;
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, len, strings, i;
	uint8_t			 fam;
	int			 r;

	if ((r = proto_answer_decode(p, n, &a)) < 0) {
		FUZZ_CHECK(r == -EBADMSG);
		return;
	}
	FUZZ_CHECK(a.naddr == a.naddr4 + a.naddr6);
	FUZZ_CHECK(a.canon != NULL || a.canon_len == 0);

	/* Re-encode while walking: every pointer inside [p, p + n). */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_answer_begin(&aw, &w, a.ttl, a.source, a.canon, a.canon_len);
	for (cur = 0, i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++) {
		/* a scoped IPv6 address: 16 bytes, then the scope (4) */
		FUZZ_CHECK(fam == PROTO_AF_INET || fam == PROTO_AF_INET6 ||
		    fam == PROTO_AF_INET6_SCOPED);
		FUZZ_CHECK(addr >= p && addr + (fam == PROTO_AF_INET ? 4 :
		    fam == PROTO_AF_INET6 ? 16 : 20) <= p + n);
		proto_answer_addr(&aw, fam, addr);
	}
	FUZZ_CHECK(i == a.naddr);
	strings = a.canon_len + 1;
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &len); i++) {
		FUZZ_CHECK((const uint8_t *)s >= p && (const uint8_t *)s + len <= p + n);
		FUZZ_CHECK(memchr(s, '\0', len) == NULL);
		strings += len + 1;
		proto_answer_alias(&aw, s, len);
	}
	FUZZ_CHECK(i == a.nalias);
	FUZZ_CHECK(strings == a.strings_size);
	/* The decoder ignores trailing bytes, so the copy is never larger. */
	FUZZ_CHECK(proto_answer_end(&aw) == 0 && w.off <= n);
	FUZZ_CHECK(proto_answer_decode(frame, w.off, &b) == 0);
	FUZZ_CHECK(b.ttl == a.ttl && b.source == a.source && b.flags == 0 &&
	    b.naddr4 == a.naddr4 && b.naddr6 == a.naddr6 &&
	    b.nalias == a.nalias && b.strings_size == a.strings_size &&
	    b.canon_len == a.canon_len);
}

static void
do_kv(const uint8_t *p, size_t n)
{
	struct proto_kv_rd	kr;
	struct proto_kv		kv;
	unsigned		count = 0;
	int			r;

	if (proto_kv_init(&kr, p, n) < 0)
		return;
	while ((r = proto_kv_next(&kr, &kv)) == 1) {
		FUZZ_CHECK(kv.key_len >= 1 && kv.key_len <= PROTO_KEY_MAX);
		FUZZ_CHECK((const uint8_t *)kv.key >= p &&
		    (const uint8_t *)kv.key + kv.key_len <= p + n);
		FUZZ_CHECK(memchr(kv.key, '\0', kv.key_len) == NULL);
		FUZZ_CHECK(kv.kind == PROTO_KV_U64 || kv.kind == PROTO_KV_STR);
		if (kv.kind == PROTO_KV_STR)
			FUZZ_CHECK((const uint8_t *)kv.str >= p &&
			    (const uint8_t *)kv.str + kv.str_len <= p + n);
		count++;
	}
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK(count <= UINT16_MAX);
	/* An error is sticky. */
	if (r < 0)
		FUZZ_CHECK(proto_kv_next(&kr, &kv) == r);
}

static void
do_error(const uint8_t *p, size_t n)
{
	const char	*msg;
	size_t		 len;
	int		 r;

	r = proto_error_decode(p, n, &msg, &len);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r == 0 && msg)
		FUZZ_CHECK((const uint8_t *)msg >= p &&
		    (const uint8_t *)msg + len <= p + n &&
		    memchr(msg, '\0', len) == NULL);
	else
		FUZZ_CHECK(msg == NULL && len == 0);
	(void)proto_status_str(r);
}

static void
do_query_rr(const uint8_t *p, size_t n)
{
	struct proto_query_rr	 req, again;
	struct proto_wr		 w;
	const char		*why = NULL;
	int			 r;

	r = proto_query_rr_decode(p, n, &req, &why);
	FUZZ_CHECK(r == 0 || ((r == -EBADMSG || r == -EINVAL) && why != NULL));
	if (r < 0)
		return;
	FUZZ_CHECK(req.type != 0 && req.name_len == strlen(req.name));
	proto_wr_init(&w, frame, sizeof(frame));
	r = proto_query_rr_encode(&w, 3, req.type, req.name);
	FUZZ_CHECK(r > PROTO_HDR_LEN);
	FUZZ_CHECK(proto_query_rr_decode(frame + PROTO_HDR_LEN,
	    (size_t)r - PROTO_HDR_LEN, &again, NULL) == 0);
	FUZZ_CHECK(again.type == req.type && again.name_len == req.name_len &&
	    memcmp(again.name, req.name, req.name_len) == 0);
}

static void
do_records(const uint8_t *p, size_t n)
{
	struct proto_records	rs, st;
	struct proto_record	rec, again;
	size_t			cur, cur2 = 0;
	unsigned		i;

	if (proto_records_decode(p, n, &rs) < 0)
		return;
	FUZZ_CHECK(rs.items >= p && rs.items + rs.items_len <= p + n);
	for (cur = 0, i = 0; proto_records_next(&rs, &cur, &rec); i++) {
		FUZZ_CHECK((const uint8_t *)rec.owner >= p &&
		    (const uint8_t *)rec.owner + rec.owner_len <= p + n);
		FUZZ_CHECK((const uint8_t *)rec.rdata >= p &&
		    (const uint8_t *)rec.rdata + rec.rdata_len <= p + n);
		FUZZ_CHECK(memchr(rec.owner, '\0', rec.owner_len) == NULL &&
		    memchr(rec.rdata, '\0', rec.rdata_len) == NULL);
	}
	FUZZ_CHECK(i == rs.count && cur == rs.items_len);

	/* Stamped, it decodes the same but for the ttls and the source. */
	if (n > sizeof(frame))
		return;
	memcpy(frame, p, n);
	FUZZ_CHECK(proto_records_stamp(frame, n, 0x5a5a5a5a, PROTO_SRC_STALE) == 0);
	FUZZ_CHECK(proto_records_decode(frame, n, &st) == 0);
	FUZZ_CHECK(st.ttl == 0x5a5a5a5a && st.source == PROTO_SRC_STALE &&
	    st.count == rs.count && st.items_len == rs.items_len);
	for (cur = 0, i = 0; proto_records_next(&st, &cur, &again); i++) {
		FUZZ_CHECK(proto_records_next(&rs, &cur2, &rec) == 1);
		FUZZ_CHECK(again.ttl == 0x5a5a5a5a && again.type == rec.type &&
		    again.owner_len == rec.owner_len &&
		    again.rdata_len == rec.rdata_len &&
		    memcmp(again.owner, rec.owner, rec.owner_len) == 0);
	}
	FUZZ_CHECK(i == rs.count);
}

static void
do_invalidate(const uint8_t *p, size_t n)
{
	char		 name[PROTO_NAME_MAX + 2], again[PROTO_NAME_MAX + 2];
	struct proto_wr	 w;
	int		 r;

	r = proto_invalidate_decode(p, n, name, sizeof(name), NULL);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EINVAL);
	if (r < 0)
		return;
	FUZZ_CHECK(proto_name_check(name, strlen(name), NULL) == 0);
	proto_wr_init(&w, frame, sizeof(frame));
	r = proto_invalidate_encode(&w, 5, name);
	FUZZ_CHECK(r > PROTO_HDR_LEN);
	FUZZ_CHECK(proto_invalidate_decode(frame + PROTO_HDR_LEN,
	    (size_t)r - PROTO_HDR_LEN, again, sizeof(again), NULL) == 0);
	FUZZ_CHECK(strcmp(again, name) == 0);
}

static void
do_show_cache(const uint8_t *p, size_t n)
{
	struct proto_cache_page	pg;
	struct proto_cache_item	it;
	struct proto_wr		w;
	uint64_t		cursor;
	size_t			cur, page_off;
	unsigned		i;
	int			r;

	r = proto_show_cache_decode(p, n, &cursor);
	FUZZ_CHECK(r == 0 ? n >= 8 : r == -EBADMSG && n < 8);
	if (proto_cache_page_decode(p, n, &pg) < 0)
		return;
	FUZZ_CHECK(pg.items >= p && pg.items + pg.items_len <= p + n);
	/* Written again item by item, the page is the same bytes. */
	proto_wr_init(&w, frame, sizeof(frame));
	proto_cache_page_begin(&w, &page_off);
	for (cur = 0, i = 0; proto_cache_page_next(&pg, &cur, &it); i++) {
		FUZZ_CHECK((const uint8_t *)it.name >= p &&
		    (const uint8_t *)it.name + it.name_len <= p + n &&
		    memchr(it.name, '\0', it.name_len) == NULL);
		proto_cache_page_item(&w, &it);
	}
	FUZZ_CHECK(i == pg.count && cur == pg.items_len);
	r = proto_cache_page_end(&w, page_off, pg.next, pg.count);
	if (10 + pg.items_len > sizeof(frame))
		FUZZ_CHECK(r == -EMSGSIZE);
	else
		FUZZ_CHECK(r == 0 && w.off == 10 + pg.items_len &&
		    memcmp(frame, p, w.off) == 0);
}

/* A record type mnemonic, NUL-terminated, both ways. */
static void
do_rrtype(const uint8_t *p, size_t n)
{
	char		 s[32], buf[16];
	const char	*t;
	int		 type;

	if (n >= sizeof(s))
		n = sizeof(s) - 1;
	memcpy(s, p, n);
	s[n] = '\0';
	if ((type = proto_rrtype_parse(s)) < 0)
		return;
	FUZZ_CHECK(type > 0 && type <= UINT16_MAX);
	t = proto_rrtype_str((uint16_t)type, buf, sizeof(buf));
	FUZZ_CHECK(proto_rrtype_parse(t) == type);
}

/* A whole frame, its body dispatched on the type as a peer would. */
static void
do_frame(const uint8_t *p, size_t n)
{
	struct proto_hdr	 h;
	const uint8_t		*body;
	size_t			 blen;

	if (proto_hdr_decode(p, n, &h) < 0 || h.len > n)
		return;
	body = p + PROTO_HDR_LEN;
	blen = h.len - PROTO_HDR_LEN;
	(void)proto_status_str(h.status);
	switch (h.type) {
	case PROTO_LOOKUP_NAME:
		do_lookup_name(body, blen);
		break;
	case PROTO_LOOKUP_ADDR:
		do_lookup_addr(body, blen);
		break;
	case PROTO_LOOKUP_NAME | PROTO_REPLY:
	case PROTO_LOOKUP_ADDR | PROTO_REPLY:
		if (h.status == PROTO_OK)
			do_answer(body, blen);
		else
			do_error(body, blen);
		break;
	case PROTO_QUERY_RR:
		do_query_rr(body, blen);
		break;
	case PROTO_INVALIDATE:
		do_invalidate(body, blen);
		break;
	case PROTO_SHOW_CACHE:
	case PROTO_SHOW_CACHE | PROTO_REPLY:
		if (h.status == PROTO_OK)
			do_show_cache(body, blen);
		else
			do_error(body, blen);
		break;
	case PROTO_QUERY_RR | PROTO_REPLY:
		if (h.status == PROTO_OK)
			do_records(body, blen);
		else
			do_error(body, blen);
		break;
	case PROTO_STATISTICS | PROTO_REPLY:
	case PROTO_STATUS | PROTO_REPLY:
	case PROTO_INVALIDATE | PROTO_REPLY:
	case PROTO_FLUSH_CACHES | PROTO_REPLY:
	case PROTO_RESET_STATISTICS | PROTO_REPLY:
	case PROTO_RELOAD | PROTO_REPLY:
		if (h.status == PROTO_OK)
			do_kv(body, blen);
		else
			do_error(body, blen);
		break;
	}
}

static void
one_word(void *arg, const char *s, size_t n)
{
	FUZZ_CHECK(n < 600 && (n == 0 || s != NULL));
}

/*
 * A monitor's event: what decodes is encoded again to the same bytes, and
 * its words and its answer body are read as the client reads them.
 */
static void
do_event(const uint8_t *p, size_t n)
{
	struct proto_event	 ev;
	struct proto_answer	 ans;
	struct proto_records	 rs;
	struct proto_wr		 w;
	char			 t[16];

	if (proto_event_decode(p, n, &ev) < 0)
		return;
	FUZZ_CHECK(ev.fe < PROTO_FE_COUNT && ev.cache < PROTO_CACHE_COUNT &&
	    ev.question <= PROTO_Q_DB);
	proto_wr_init(&w, frame, sizeof(frame));
	proto_event_body(&w, &ev);
	FUZZ_CHECK(w.err == 0 && w.off == n && memcmp(frame, p, n) == 0);
	FUZZ_CHECK(proto_fe_str(ev.fe) != NULL && proto_cache_str(ev.cache) != NULL &&
	    proto_result_str(ev.status) != NULL);
	FUZZ_CHECK(strlen(proto_kind_str(ev.question, ev.family, ev.type, t,
	    sizeof(t))) < sizeof(t));
	/* The body is the daemon's answer, said in words as the client says it. */
	if (ev.question == PROTO_Q_RR)
		(void)proto_records_decode(ev.body, ev.body_len, &rs);
	else
		(void)proto_answer_decode(ev.body, ev.body_len, &ans);
	FUZZ_CHECK(proto_answer_words(ev.question, ev.body, ev.body_len, 64, one_word,
	    NULL) <= 64);
}

/* A metrics request, and a page of the text. */
static void
do_metrics(const uint8_t *p, size_t n)
{
	struct proto_metrics_page	 pg;
	struct proto_wr			 w;
	uint64_t			 serial, offset, s2, o2;
	int				 r;

	if (proto_metrics_decode(p, n, &serial, &offset) == 0) {
		FUZZ_CHECK(n == 16);
		proto_wr_init(&w, frame, sizeof(frame));
		r = proto_metrics_encode(&w, 3, serial, offset);
		FUZZ_CHECK(r == PROTO_HDR_LEN + 16);
		FUZZ_CHECK(proto_metrics_decode(frame + PROTO_HDR_LEN, 16, &s2, &o2) == 0 &&
		    s2 == serial && o2 == offset);
	}
	if (proto_metrics_page_decode(p, n, &pg) == 0)
		FUZZ_CHECK(n >= 16 && pg.len == n - 16 && pg.text == p + 16 &&
		    pg.total <= UINT32_MAX);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*p = data + 1;
	size_t		 n = size - 1;

	if (size == 0)
		return 0;
	switch (data[0] % 14) {
	case 0:
		do_hdr(p, n);
		break;
	case 1:
		do_lookup_name(p, n);
		break;
	case 2:
		do_lookup_addr(p, n);
		break;
	case 3:
		do_answer(p, n);
		break;
	case 4:
		do_kv(p, n);
		break;
	case 5:
		do_error(p, n);
		break;
	case 6:
		do_frame(p, n);
		break;
	case 7:
		do_query_rr(p, n);
		break;
	case 8:
		do_records(p, n);
		break;
	case 9:
		do_invalidate(p, n);
		break;
	case 10:
		do_show_cache(p, n);
		break;
	case 11:
		do_rrtype(p, n);
		break;
	case 12:
		do_event(p, n);
		break;
	case 13:
		do_metrics(p, n);
		break;
	}
	return 0;
}
