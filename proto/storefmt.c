/* SPDX-License-Identifier: MIT */
/* proto/storefmt.c - the answer store's file: layout, hashing, and the checks a loader makes. */

/*
 * Pure: no I/O, no allocation, errno untouched.  store_check_header and
 * store_check_slot read a file another process left: every offset and
 * length is checked before it is used, so garbage yields "no", never a
 * wild read (tests/fuzz/fuzz-store.c).
 */
#include <stddef.h>
#include <string.h>

#include "hash.h"
#include "name.h"
#include "storefmt.h"

/* A slot: offset / 8 (34 bits), a taken bit, a 13-bit tag, the stamp (16). */
#define SLOT_OFF_SHIFT	30
#define SLOT_TAKEN	(1ULL << 29)
#define SLOT_TAG_SHIFT	16
#define SLOT_TAG_MASK	0x1fffULL

_Static_assert(sizeof(struct store_header) == STORE_HEADER_SIZE, "header size");
_Static_assert(sizeof(struct store_rec) == 28, "record header size");

size_t
store_rec_size(size_t name_len, size_t data_len)
{
	return (sizeof(struct store_rec) + name_len + data_len + 7) & ~(size_t)7;
}

size_t
store_rec_data_len(const struct store_rec *r)
{
	return store_rec_len(r) - sizeof(*r) - r->name_len -
	    (size_t)((r->status & STORE_PAD_MASK) >> STORE_PAD_SHIFT);
}

uint64_t
store_key_hash(const uint64_t k[2], uint32_t kind, const char *lname, size_t len)
{
	uint8_t buf[4 + STORE_NAME_MAX];

	if (len > STORE_NAME_MAX)
		len = STORE_NAME_MAX;
	buf[0] = (uint8_t)(kind >> 24);
	buf[1] = (uint8_t)(kind >> 16);
	buf[2] = (uint8_t)(kind >> 8);
	buf[3] = (uint8_t)kind;
	memcpy(buf + 4, lname, len);
	return hash_siphash13(k, buf, 4 + len);
}

static uint64_t
tag_of(uint64_t h)
{
	return (h >> 40) & SLOT_TAG_MASK;
}

uint64_t
store_slot(uint64_t off, uint64_t h)
{
	return (off / 8) << SLOT_OFF_SHIFT | SLOT_TAKEN | tag_of(h) << SLOT_TAG_SHIFT;
}

uint64_t
store_slot_off(uint64_t slot)
{
	return (slot >> SLOT_OFF_SHIFT) * 8;
}

bool
store_slot_tag_ok(uint64_t slot, uint64_t h)
{
	return ((slot >> SLOT_TAG_SHIFT) & SLOT_TAG_MASK) == tag_of(h);
}

uint64_t
store_slot_moved(uint64_t slot, uint64_t off)
{
	return (off / 8) << SLOT_OFF_SHIFT | (slot & ((1ULL << SLOT_OFF_SHIFT) - 1));
}

uint32_t
store_rec_check(const uint64_t k[2], const struct store_rec *r)
{
	/* kind, expires, ttl, name_len, status (its immutable bits), the
	 * form bit; then name and data. */
	uint8_t		head[4 + 8 + 4 + 3];
	uint64_t	k2[2] = { k[0], k[1] }, h;
	size_t		body = store_rec_len(r) - sizeof(*r);

	memcpy(head, &r->kind, 4);
	memcpy(head + 4, &r->expires, 8);
	memcpy(head + 12, &r->ttl, 4);
	head[16] = r->name_len;
	head[17] = r->status & STORE_S_IMMUTABLE;
	head[18] = (r->len8 & STORE_L_FORM) != 0;
	/* Two calls, chained through the key: one pass, no buffer to copy into. */
	k2[0] ^= hash_siphash13(k, head, sizeof(head));
	h = hash_siphash13(k2, r + 1, body);
	return (uint32_t)h;
}

/* --- the compact form of an address answer -------------------------------- */

#define C_CANON_IS_KEY	1
#define C_TTL_IS_REC	2
#define C_ORIGIN	4
#define C_TTL_ZERO	8	/* the body's TTL is 0: bodies are kept so, and
				   stamped as they are given */

static size_t
fam_len(uint8_t family)
{
	switch (family) {
	case 4:		return 4;	/* PROTO_AF_INET */
	case 6:		return 16;	/* PROTO_AF_INET6 */
	case 7:		return 20;	/* PROTO_AF_INET6_SCOPED */
	default:	return 0;
	}
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Copies n addresses (u8 family, its bytes) from src at *i to out at *o,
 * as both forms keep them: -1 when they do not fit either side.
 */
static int
copy_addrs(const uint8_t *src, size_t len, size_t *i, uint8_t *out, size_t cap,
    size_t *o, size_t n)
{
	size_t k, flen;

	for (k = 0; k < n; k++) {
		if (*i >= len || (flen = fam_len(src[*i])) == 0 || *i + 1 + flen > len ||
		    *o + 1 + flen > cap)
			return -1;
		memcpy(out + *o, src + *i, 1 + flen);
		*o += 1 + flen;
		*i += 1 + flen;
	}
	return 0;
}

int
store_compact(const uint8_t *body, size_t len, const char *lname, size_t nlen,
    uint32_t ttl, uint8_t *out, size_t cap)
{
	size_t		 i = 0, o = 0, n, k, naddr, nalias, canon_len;
	uint8_t		 cflags = 0;
	const uint8_t	*canon;

	/* u32 ttl, u8 source, u8 flags, u16 naddr, u16 nalias, str canon */
	if (len < 12 || cap < 16)
		return -1;
	naddr = get16(body + 6);
	nalias = get16(body + 8);
	canon_len = get16(body + 10);
	if (naddr > 255 || nalias > 255 || canon_len > 255 || 12 + canon_len > len)
		return -1;
	canon = body + 12;
	if (canon_len == nlen && memcmp(canon, lname, nlen) == 0)
		cflags |= C_CANON_IS_KEY;
	if (get32(body) == ttl)
		cflags |= C_TTL_IS_REC;
	else if (get32(body) == 0)
		cflags |= C_TTL_ZERO;
	out[o++] = cflags;
	if (!(cflags & (C_TTL_IS_REC | C_TTL_ZERO))) {
		memcpy(out + o, body, 4);
		o += 4;
	}
	out[o++] = body[4];
	out[o++] = body[5];
	out[o++] = (uint8_t)naddr;
	out[o++] = (uint8_t)nalias;
	if (!(cflags & C_CANON_IS_KEY)) {
		if (o + 1 + canon_len > cap)
			return -1;
		out[o++] = (uint8_t)canon_len;
		memcpy(out + o, canon, canon_len);
		o += canon_len;
	}
	i = 12 + canon_len;
	if (copy_addrs(body, len, &i, out, cap, &o, naddr) < 0)
		return -1;
	for (k = 0; k < nalias; k++) {
		if (i + 2 > len || (n = get16(body + i)) > 255 || i + 2 + n > len ||
		    o + 1 + n > cap)
			return -1;
		out[o++] = (uint8_t)n;
		memcpy(out + o, body + i + 2, n);
		o += n;
		i += 2 + n;
	}
	/* A module's name may follow: kept; anything else, not this form. */
	if (i < len) {
		if (i + 2 > len || (n = get16(body + i)) == 0 || n > 255 ||
		    i + 2 + n != len || o + 1 + n > cap)
			return -1;
		out[0] |= C_ORIGIN;
		out[o++] = (uint8_t)n;
		memcpy(out + o, body + i + 2, n);
		o += n;
	}
	return (int)o;
}

/*
 * Copies n strings from the compact form (u8 length, bytes) at *i to a
 * body's (u16 length, bytes) at *o: the canonical name, aliases, origin.
 */
static int
widen_strs(const uint8_t *data, size_t len, size_t *i, uint8_t *out, size_t cap,
    size_t *o, size_t n)
{
	size_t k, m;

	for (k = 0; k < n; k++) {
		if (*i >= len || *i + 1 + (m = data[*i]) > len || *o + 2 + m > cap)
			return -1;
		out[(*o)++] = 0;
		out[(*o)++] = (uint8_t)m;
		memcpy(out + *o, data + *i + 1, m);
		*o += m;
		*i += 1 + m;
	}
	return 0;
}

int
store_expand(const uint8_t *data, size_t len, const char *lname, size_t nlen,
    uint32_t ttl, uint8_t *out, size_t cap)
{
	size_t		 i = 0, o = 0, naddr, nalias;
	uint8_t		 cflags;

	if (len < 5 || cap < 12)
		return -1;
	cflags = data[i++];
	if ((cflags & ~(C_CANON_IS_KEY | C_TTL_IS_REC | C_ORIGIN | C_TTL_ZERO)) ||
	    (cflags & (C_TTL_IS_REC | C_TTL_ZERO)) == (C_TTL_IS_REC | C_TTL_ZERO))
		return -1;
	if (cflags & C_TTL_ZERO)
		memset(out, 0, 4);
	else if (!(cflags & C_TTL_IS_REC)) {
		if (i + 4 > len)
			return -1;
		memcpy(out, data + i, 4);
		i += 4;
	} else {
		out[0] = (uint8_t)(ttl >> 24);
		out[1] = (uint8_t)(ttl >> 16);
		out[2] = (uint8_t)(ttl >> 8);
		out[3] = (uint8_t)ttl;
	}
	if (i + 4 > len)
		return -1;
	out[4] = data[i++];
	out[5] = data[i++];
	naddr = data[i++];
	nalias = data[i++];
	out[6] = 0;
	out[7] = (uint8_t)naddr;
	out[8] = 0;
	out[9] = (uint8_t)nalias;
	o = 10;
	if (cflags & C_CANON_IS_KEY) {
		if (o + 2 + nlen > cap)
			return -1;
		out[o++] = (uint8_t)(nlen >> 8);
		out[o++] = (uint8_t)nlen;
		memcpy(out + o, lname, nlen);
		o += nlen;
	} else if (widen_strs(data, len, &i, out, cap, &o, 1) < 0)
		return -1;
	if (copy_addrs(data, len, &i, out, cap, &o, naddr) < 0 ||
	    widen_strs(data, len, &i, out, cap, &o,
	    nalias + ((cflags & C_ORIGIN) ? 1 : 0)) < 0)
		return -1;
	return i == len ? (int)o : -1;
}

/* Whether table [off, off + n x 8) lies between the header and the pages. */
static bool
table_fits(const struct store_header *h, uint64_t off, uint32_t n)
{
	return off % 8 == 0 && off >= STORE_HEADER_SIZE && off < h->pages_off &&
	    (h->pages_off - off) / 8 >= n;
}

/* Whether there is a table being emptied (store_check_header has passed). */
static bool
has_old(const struct store_header *h)
{
	return h->old_nslots != 0 && h->old_off != h->slots_off;
}

const struct store_header *
store_check_header(const void *base, size_t len, const char **ret_why)
{
	const struct store_header	*h = base;
	uint64_t			 pages_end;
	const char			*why = NULL;

	if (base == NULL || (uintptr_t)base % 8 != 0 || len < STORE_HEADER_SIZE)
		why = "shorter than a header";
	else if (h->magic != STORE_MAGIC)
		why = "not a store (magic)";
	else if (h->version < STORE_VERSION_MIN || h->version > STORE_VERSION)
		why = "another version";
	else if (h->header_size != STORE_HEADER_SIZE)
		why = "header size";
	else if (h->file_size != len)
		why = "size is not the file's (cut short, or grown)";
	else if (h->nslots == 0 || h->nslots > h->slots_cap || h->slots_cap > (1u << 30) ||
	    h->old_nslots > h->slots_cap)
		why = "slot count";
	else if (h->page_size < STORE_PAGE_MIN || (h->page_size & (h->page_size - 1)) != 0 ||
	    h->page_size > (1u << 30))
		why = "page size";
	else if (h->pages_off % 4096 != 0 || !table_fits(h, h->slots_off, h->slots_cap) ||
	    (h->version < 4 && (h->slots_off != STORE_HEADER_SIZE || h->old_nslots != 0)))
		why = "offsets";
	else if (has_old(h) && (!table_fits(h, h->old_off, h->old_nslots) ||
	    (h->old_off < h->slots_off + (uint64_t)h->nslots * 8 &&
	    h->slots_off < h->old_off + (uint64_t)h->old_nslots * 8)))
		why = "the table being emptied";
	if (why == NULL) {
		pages_end = h->pages_off + (uint64_t)h->npages * h->page_size;
		if (h->npages == 0 || pages_end < h->pages_off || pages_end > h->file_size)
			why = "sizes do not fit the file";
		/* Slots hold offsets / 8 in 34 bits. */
		else if ((uint64_t)h->npages * h->page_size > (1ULL << 37))
			why = "pages too large";
	}
	if (why) {
		if (ret_why)
			*ret_why = why;
		return NULL;
	}
	return h;
}

uint32_t
store_image_nslots(const struct store_header *h)
{
	return h->nslots + (has_old(h) ? h->old_nslots : 0);
}

const uint64_t *
store_image_slot(const struct store_header *h, uint32_t i)
{
	const uint8_t *base = (const uint8_t *)h;

	if (i < h->nslots)
		return (const uint64_t *)(const void *)(base + h->slots_off) + i;
	return (const uint64_t *)(const void *)(base + h->old_off) + (i - h->nslots);
}

const struct store_rec *
store_check_slot(const void *base, size_t len, uint32_t i, bool verify_check,
    const char **ret_why)
{
	const struct store_header	*h = base;
	const uint64_t			*slots;
	const struct store_rec		*r;
	const uint8_t			*pages;
	const char			*why = NULL, *name;
	uint64_t			 v, off, area, hash, home, j, pad, rlen;
	uint32_t			 n = h->nslots;
	size_t				 k;

	if (ret_why)
		*ret_why = NULL;
	if (i >= store_image_nslots(h))
		return NULL;
	/* The table i is in, and i in it. */
	if (i < h->nslots)
		slots = (const uint64_t *)((const uint8_t *)base + h->slots_off);
	else {
		slots = (const uint64_t *)((const uint8_t *)base + h->old_off);
		i -= h->nslots;
		n = h->old_nslots;
	}
	pages = (const uint8_t *)base + h->pages_off;
	area = (uint64_t)h->npages * h->page_size;
	if ((v = slots[i]) == 0)
		return NULL;
	if (!(v & SLOT_TAKEN)) {
		why = "slot";
		goto bad;
	}
	off = store_slot_off(v);
	if (off >= area || area - off < sizeof(*r)) {
		why = "slot points outside the pages";
		goto bad;
	}
	r = (const struct store_rec *)(pages + off);
	pad = (r->status & STORE_PAD_MASK) >> STORE_PAD_SHIFT;
	rlen = store_rec_len(r);
	if (rlen < sizeof(*r) + r->name_len + pad || rlen > h->page_size ||
	    off / h->page_size != (off + rlen - 1) / h->page_size) {
		why = "record length";
		goto bad;
	}
	if (rlen - sizeof(*r) - r->name_len - pad > STORE_DATA_MAX ||
	    store_rec_size(r->name_len, rlen - sizeof(*r) - r->name_len - pad) != rlen) {
		why = "record sizes";
		goto bad;
	}
	/* Dead, yet a slot points here: never so. */
	if (r->name_len == 0 || (r->status & STORE_S_DEAD) != 0) {
		why = "record fields";
		goto bad;
	}
	name = store_rec_name(r);
	for (k = 0; k < r->name_len; k++) {
		if (name[k] == '\0' || name_fold_char((uint8_t)name[k]) != (uint8_t)name[k]) {
			why = "record name";
			goto bad;
		}
	}
	for (k = 0; k < pad; k++) {
		if (((const uint8_t *)r)[rlen - 1 - k] != 0) {
			why = "record padding";
			goto bad;
		}
	}
	hash = store_key_hash(h->key, r->kind, name, r->name_len);
	if (!store_slot_tag_ok(v, hash)) {
		why = "slot does not match its record's key";
		goto bad;
	}
	/* Linear probing: nothing empty between the key's home and its slot. */
	home = store_home(hash, n);
	for (j = home; j != i; j = j + 1 == n ? 0 : j + 1) {
		if (slots[j] == 0) {
			why = "slot is not on its key's probe path";
			goto bad;
		}
	}
	if (verify_check && store_rec_check(h->key, r) != r->check) {
		why = "record check";
		goto bad;
	}
	(void)len;
	return r;
bad:
	if (ret_why)
		*ret_why = why;
	return NULL;
}
