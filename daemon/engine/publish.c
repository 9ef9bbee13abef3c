/* SPDX-License-Identifier: MIT */
/* daemon/engine/publish.c - puts the walk's answers where clients read them without asking. */
#include <stdlib.h>
#include <string.h>

#include "nscd.h"
#include "nscdmap.h"
#include "publish.h"
#include "shm.h"
#include "shmfmt.h"
#include "walk.h"

/* The body as a store takes it: borrowed by shm_put/nscdmap_put per call. */
struct publish {
	struct shm	*shm;
	struct nscdmap	*nmap;
	cache_clock_fn	*now;
	void		*now_arg;
	struct publish_stats st;
	uint8_t		 buf[PROTO_FRAME_MAX];
};

struct publish *
publish_new(cache_clock_fn *now, void *now_arg)
{
	struct publish *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->now = now;
	p->now_arg = now_arg;
	return p;
}

void
publish_free(struct publish *p)
{
	free(p);
}

void
publish_set_shm(struct publish *p, struct shm *shm)
{
	p->shm = shm;
}

void
publish_set_nscdmap(struct publish *p, struct nscdmap *m)
{
	p->nmap = m;
}

bool
publish_enabled(const struct publish *p)
{
	return p->shm != NULL || p->nmap != NULL;
}

/* glibc's nscd request type for a published key. */
static int32_t
nscd_type_of(const struct publish_key *pk)
{
	if (pk->kind == SHM_ADDR)
		return pk->family == PROTO_AF_INET ? NSCD_GETHOSTBYADDR :
		    NSCD_GETHOSTBYADDRv6;
	return pk->family == PROTO_AF_UNSPEC ? NSCD_GETAI :
	    pk->family == PROTO_AF_INET ? NSCD_GETHOSTBYNAME : NSCD_GETHOSTBYNAMEv6;
}

void
publish_answer(struct publish *p, const struct publish_key *pk,
    const struct answer *a, bool exact, int64_t expires, uint32_t ttl, bool asked)
{
	int64_t		now = p->now(p->now_arg);
	uint16_t	status = a->status;
	struct proto_wr	w;

	if (!publish_enabled(p) || pk == NULL || pk->kind == 0 ||
	    (status != PROTO_OK && status != PROTO_NOTFOUND && status != PROTO_NODATA) ||
	    (status == PROTO_OK && a->form != ANSWER_HOST))
		return;
	if (expires != WALK_FOREVER && expires <= now)
		return;
	p->st.published++;
	if (p->nmap) {
		uint8_t	key[PROTO_NAME_MAX + 2];
		int	n;
		int32_t	type = nscd_type_of(pk);

		n = nscd_reply_from(type, status, status == PROTO_OK ? &a->host :
		    NULL, p->buf, sizeof(p->buf));
		memcpy(key, pk->key, pk->len);
		key[pk->len] = '\0';
		if (n > 0)
			nscdmap_put(p->nmap, type, key, pk->len + (pk->kind == SHM_NAME),
			    p->buf, (size_t)n, expires == WALK_FOREVER ?
			    NSCDMAP_FOREVER : expires, ttl, asked, now);
	}
	if (p->shm == NULL)
		return;
	/*
	 * Written alike every time (readers count the TTL down from the
	 * record's expiry), so asking again finds the same bytes and the
	 * writer appends nothing: a hosts answer as the file gives it, any
	 * other with TTL 0 from the cache.
	 */
	proto_wr_init(&w, p->buf, sizeof(p->buf));
	if (status == PROTO_OK)
		answer_put_body(a, expires == WALK_FOREVER ? a->ttl : 0,
		    expires == WALK_FOREVER ? a->source : PROTO_SRC_CACHE, &w);
	if (w.err)
		return;
	shm_put(p->shm, pk->kind, pk->family, pk->key, pk->len, exact,
	    (uint8_t)status, expires == WALK_FOREVER ? SHM_FOREVER :
	    expires * 1000000, ttl, p->buf, w.off);
}

void
publish_get_stats(const struct publish *p, struct publish_stats *ret)
{
	*ret = p->st;
}
