/* SPDX-License-Identifier: MIT */
/* daemon/engine/cache-adopt.c - another daemon's store taken over, and the store rebuilt on new bounds. */

/*
 * The store's file outlives the daemon.  cache_open_file takes over what a
 * previous daemon left: every record checked (storefmt.c: store_check_slot),
 * its data decoded as its kind says, those whose time is up dropped, and
 * the rest copied into a new file, renamed over the old.  The same copy,
 * trusting its source, rebuilds a store on new bounds (cache_set_limits).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cache-int.h"
#include "dnswire.h"
#include "proto.h"
#include "store.h"

/* --- another daemon's store ---------------------------------------------- */

/* Whether data is what an entry of this kind and status holds. */
static bool
data_ok(uint32_t kind, int status, const uint8_t *data, size_t len)
{
	struct proto_answer	ans;
	struct proto_records	rec;
	uint32_t		ttl;
	int			r;

	if (kind & CACHE_KIND_WIRE) {
		if (len == 0)
			return true;
		r = dnswire_rrs_ttl(data, len, &ttl);
		return r == 0 || r == -ENOENT;
	}
	if (status != CACHE_POSITIVE)
		return len == 0 || status == CACHE_FAILED;
	if (kind & CACHE_KIND_RR)
		return proto_records_decode(data, len, &rec) == 0;
	return proto_answer_decode(data, len, &ans) == 0;
}

/* The kinds cache.h defines: a DNS type, or one of the marks and a type. */
static bool
kind_known(uint32_t kind)
{
	uint32_t mark = kind & ~0xffffu;

	if (kind & CACHE_KIND_NSS)
		return (kind & ~0x2ffffu) == 0;
	if (kind == 0)
		return true;		/* REC_ADDRS */
	/* A pair's record, never its halves: they are in it. */
	if (cache_pair_half(kind) >= 0)
		return false;
	return mark == 0 || mark == CACHE_KIND_RR || kind == CACHE_KIND_PAIR ||
	    mark == CACHE_KIND_WIRE;
}

/*
 * Whether another daemon's entry (half k of r, or r's own) holds together:
 * its data what its kind and status say, its expiry no further than its
 * TTL from now.
 */
static bool
entry_ok(const struct store_rec *r, int k, const struct view *v, int64_t now)
{
	uint32_t	 kind = k < 0 ? r->kind : r->kind | (k ? DNS_T_AAAA : DNS_T_A);
	uint8_t		 buf[STORE_DATA_MAX];
	const uint8_t	*d;
	size_t		 dlen;

	if ((v->sbits & STORE_S_COMPACT) && (v->status != CACHE_POSITIVE ||
	    !cache_kind_is_answer(kind)))
		return false;
	if ((d = cache_view_data(v, store_rec_name(r), r->name_len, buf, &dlen)) == NULL ||
	    !data_ok(kind, v->status, d, dlen))
		return false;
	return v->expires - now <= ((int64_t)v->ttl + 1) * 1000;
}

/*
 * Copies every entry of the store image at base (len bytes) that passes
 * the checks into c's store: the body of cache_adopt_image, and of a
 * store's rebuild.  adopt: the image is another daemon's (its times and
 * what its answers rest on are weighed); else c's own.
 */
void
cache_copy_image(struct cache *c, const void *base, size_t len, const uint8_t *boot,
    bool verify_check, bool adopt, struct cache_adopt_report *ret)
{
	const struct store_header	*h;
	const struct store_rec		*r;
	struct store_rec		 tmpl;
	struct view			 hv[2];
	const char			*why;
	char				 lname[STORE_NAME_MAX + 1];
	int64_t				 now = c->now(c->now_arg), shift = 0;
	uint32_t			 i;
	int				 k, last, nv, w;
	bool				 dns_ok, nss_ok, have[2], bad = false,
					 stale = false;

	memset(ret, 0, sizeof(*ret));
	if ((h = store_check_header(base, len, &ret->why)) == NULL)
		return;
	/*
	 * Written before the last boot: its times are that boot's clock.
	 * They carry over through the real time it stamped (a store on
	 * disk, persistent_cache); a store without the stamp is left aside.
	 */
	if (boot && memcmp(h->boot_id, boot, 16) != 0) {
		if (!adopt || h->realtime_ms == 0) {
			ret->why = "written before the last boot (its times are that boot's)";
			return;
		}
		shift = h->realtime_ms - (cache_realtime_ms() - now);
		ret->rebooted = true;
	}
	dns_ok = !adopt || h->search_fp == c->search_fp;
	nss_ok = !adopt || h->modules_fp == c->modules_fp;
	/* Both tables while the slots double (storefmt.h). */
	for (i = 0; i < store_image_nslots(h); i++) {
		if ((r = store_check_slot(base, len, i, verify_check, &why)) == NULL) {
			ret->dropped += why != NULL;
			continue;
		}
		memcpy(lname, store_rec_name(r), r->name_len);
		lname[r->name_len] = '\0';
		/* Ours already (set before the copy): the newer stands. */
		if (!kind_known(r->kind) || (!cache_is_pair(r->kind) &&
		    (r->len8 & STORE_L_FORM)) ||
		    store_find(c->st, r->kind, lname, r->name_len,
		    store_hash(c->st, r->kind, lname, r->name_len)) >= 0) {
			ret->dropped++;
			continue;
		}
		if (adopt && !((r->kind & CACHE_KIND_NSS) ? nss_ok : dns_ok)) {
			ret->mismatched++;
			continue;
		}
		/* Its entries: a record's own, or a pair's halves. */
		nv = 0;
		have[0] = have[1] = false;
		last = cache_is_pair(r->kind) ? 1 : -1;
		for (k = cache_is_pair(r->kind) ? 0 : -1; k <= last; k++) {
			int at = k < 0 ? 0 : k;

			if (!(have[at] = cache_view_of(r, k, &hv[at])))
				continue;
			hv[at].expires += shift;
			if (hv[at].failed_until)
				hv[at].failed_until += shift;
			nv++;
			if (!adopt)
				continue;
			/* Another daemon's: its data must be what its kind says. */
			if (!entry_ok(r, k, &hv[at], now)) {
				bad = true;
				break;
			}
			/*
			 * What may still serve: an answer before its expiry, a
			 * positive one within serve_stale after (RFC 8767); not
			 * a failure, which the next daemon finds out for itself.
			 */
			if (hv[at].status == CACHE_FAILED || (hv[at].expires <= now &&
			    (hv[at].status != CACHE_POSITIVE || c->lim.serve_stale == 0 ||
			    now - hv[at].expires > (int64_t)c->lim.serve_stale * 1000))) {
				have[at] = false;
				continue;
			}
			if (hv[at].expires <= now)
				stale = true;
			if (hv[at].failed_until <= now) {
				hv[at].failed_until = 0;
				hv[at].sbits &= (uint8_t)~STORE_S_NOTFOUND;
			}
		}
		if (bad || nv == 0 || (cache_is_pair(r->kind) && !have[0] && !have[1] &&
		    !adopt)) {
			ret->dropped++;
			bad = stale = false;
			continue;
		}
		if (!have[0] && !have[1]) {
			ret->expired++;
			stale = false;
			continue;
		}
		if (!store_room(c->st, store_rec_len(r), c->lim.max_entries))
			w = -ENOSPC;
		else if (cache_is_pair(r->kind)) {
			uint64_t n = c->stats.insertions;	/* a copy, not an insertion */

			w = cache_write_pair(c, r->kind, lname, r->name_len, have, hv,
			    adopt ? cache_stamp_of(c) : store_slot_stamp(*store_image_slot(h, i)));
			c->stats.insertions = n;
		}
		else {
			memset(&tmpl, 0, sizeof(tmpl));
			tmpl.kind = r->kind;
			tmpl.expires = r->expires + shift;
			tmpl.ttl = r->ttl;
			tmpl.status = (uint8_t)(hv[0].status | hv[0].sbits);
			if (!cache_failed_rel(hv[0].failed_until, tmpl.expires, &tmpl.failed))
				tmpl.failed = STORE_NO_FAILURE;
			w = store_put(c->st, &tmpl, adopt ? cache_stamp_of(c) :
			    store_slot_stamp(*store_image_slot(h, i)), lname, store_rec_data(r),
			    store_rec_data_len(r)) < 0 ? -ENOSPC : 0;
		}
		if (w < 0) {
			ret->no_room++;
			stale = false;
			continue;
		}
		ret->stale += stale;
		stale = false;
		ret->adopted++;
	}
}

int
cache_adopt_image(struct cache *c, const void *base, size_t len,
    const uint8_t boot_id[16], bool verify_check, struct cache_adopt_report *ret)
{
	cache_copy_image(c, base, len, boot_id, verify_check, true, ret);
	return ret->why ? -EINVAL : 0;
}

void
cache_set_fps(struct cache *c, uint64_t search_fp, uint64_t modules_fp)
{
	c->search_fp = search_fp;
	c->modules_fp = modules_fp;
	store_set_fps(c->st, search_fp, modules_fp);
}

int
cache_open_file(struct cache *c, const char *path, struct cache_adopt_report *ret)
{
	struct store			*st, *anon = c->st;
	const struct store_header	*h;
	struct cache_adopt_report	 own;
	struct stat			 sb;
	uint8_t				 boot[16];
	void				*old = MAP_FAILED;
	size_t				 oldlen = 0;
	int				 fd;

	memset(ret, 0, sizeof(*ret));
	/* What a previous daemon left: ours (same owner), a plain file. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_uid == geteuid() && sb.st_size > 0 &&
		    (uint64_t)sb.st_size <= (1ULL << 44)) {
			oldlen = (size_t)sb.st_size;
			old = mmap(NULL, oldlen, PROT_READ, MAP_PRIVATE, fd, 0);
		} else
			ret->why = "not a file of ours";
		close(fd);
	}
	if ((st = cache_store_for(&c->lim, path)) == NULL)
		return -errno;
	store_set_fps(st, c->search_fp, c->modules_fp);
	store_set_realtime(st, cache_realtime_ms() - c->now(c->now_arg));
	/* What this daemon has already (nothing, at start) comes first. */
	c->st = st;
	h = store_header(anon);
	cache_copy_image(c, h, h->file_size, NULL, false, false, &own);
	store_free(anon);
	if (old != MAP_FAILED) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		store_boot_id(boot);
		cache_adopt_image(c, old, oldlen, boot, true, ret);
		munmap(old, oldlen);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ret->usec = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000);
	}
	c->adopt = *ret;
	return 0;
}

void
cache_heartbeat(struct cache *c)
{
	store_set_realtime(c->st, cache_realtime_ms() - c->now(c->now_arg));
}

void
cache_get_adopt_report(const struct cache *c, struct cache_adopt_report *ret)
{
	*ret = c->adopt;
}
