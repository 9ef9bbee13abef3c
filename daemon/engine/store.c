/* SPDX-License-Identifier: MIT */
/* daemon/engine/store.c - records of the cache in one mapped file: slots, pages, cleaning (the writer). */

/*
 * The cache's records live in one mapping (proto/storefmt.h has the
 * layout), in a file beside the socket, so that the next daemon finds
 * them (a clean stop, a SIGKILL, a crash alike): the daemon's heap holds
 * no answer.  Single-threaded: the event loop owns it.
 *
 * Space.  The pages are written in order: records are appended to the
 * open page; a full one is left behind.  A replaced or removed record
 * leaves dead bytes in its page, counted per page (live[]).  When no
 * free page is left but the reserve, the full page with the fewest live
 * bytes is cleaned: its live records are copied into the reserve, which
 * becomes the open page, their slots pointed at the copies, and the
 * cleaned page becomes the reserve.  The caller keeps the live bytes
 * under a budget (85% of the pages, less two), so such a page always
 * has dead bytes to give back: a cleaning copies at most a page (128
 * KiB), and the loop never stops for longer.
 *
 * A file's pages and slots are allocated (fallocate) before first use:
 * a full /run is then an error of that moment (the record is not kept,
 * the slots do not double), never a SIGBUS on a later write.
 *
 * Slots.  Linear probing, backward-shift deletion; from SLOTS_FIRST, they
 * double as the entries pass three quarters, up to slots_cap.  In steps:
 * the new table is in the other of two areas of the file, new keys go
 * into it at once, and every put first looks at STORE_GROW_STEP slots of
 * the old one, moving what it finds (the slots below its cursor stay
 * empty), so no put stops the loop longer as the cache grows; a lookup
 * probes both meanwhile.  The old table is empty within a 36th of its
 * size of puts (its slots and its entries, STORE_GROW_STEP a put), so
 * both are resident only briefly.  An index counts the new table's slots,
 * then the old one's: valid until the next put.
 *
 * Order.  A record is written whole before its slot points at it
 * (release), and a slot is emptied before its record is marked dead: at
 * any moment every slot points at a whole record, which is what a
 * loader checks (storefmt.h).  gc_cycle is bumped before a cleaned page
 * is written again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "store.h"

#define NO_PAGE		UINT32_MAX
/* Bytes of a record, at least: the sizing of the slots for a byte bound. */
#define REC_MIN		40
/* The slots in use at first; doubled as the entries pass three quarters. */
#define SLOTS_FIRST	4096

struct store {
	char			*path;		/* NULL: anonymous */
	uint8_t			*base;
	size_t			 len;
	struct store_header	*h;
	uint64_t		*slots;		/* the table in use */
	uint64_t		*old;		/* the one being emptied, or NULL */
	uint8_t			*pages;
	uint32_t		 nslots;	/* in use */
	uint32_t		 old_n;		/* old's slots */
	uint32_t		 cursor;	/* old's slots below it are empty */
	uint32_t		 slots_cap;	/* room in an area of the file */
	unsigned		 area;		/* the area slots is in: 0 or 1 */
	unsigned		 nareas;	/* 2: the slots may double */
	size_t			 area_bytes;	/* of an area, page-rounded */
	size_t			 ahead;		/* bytes of the other area allocated
						   for the next doubling */
	size_t			 rel_from;	/* the last old table's bytes still */
	size_t			 rel_to;	/* to give back */
	uint32_t		 npages;
	uint32_t		 psize;		/* bytes of a page */
	uint32_t		*live;		/* live bytes per page */
	uint32_t		*used;		/* bytes appended per page */
	uint32_t		*free;		/* a stack of free pages */
	uint8_t			*isfree;	/* per page: on that stack */
	uint32_t		 nfree;
	uint32_t		 open;		/* the page appended to, or NO_PAGE */
	uint32_t		 allocated;	/* pages below this are allocated */
	size_t			 count;
	size_t			 live_bytes;
	size_t			 budget;
	uint64_t		 cleanings;
	uint64_t		 relocated;
	uint64_t		 grows;
	uint64_t		 moved;		/* slots moved by doublings */
	uint32_t		 step_max;	/* the most one put moved */
};


size_t
store_cost(size_t name_len, size_t data_len)
{
	return store_rec_size(name_len, data_len);
}

/* The file's geometry for these bounds. */
static void
geometry(size_t max_entries, size_t max_bytes, uint32_t psize, uint32_t *ret_nslots,
    uint32_t *ret_npages)
{
	size_t	n = max_entries, slots_end, pages;

	if (max_bytes && n > max_bytes / REC_MIN)
		n = max_bytes / REC_MIN;
	/* Three quarters full at most: probes stay short.  Any count will do. */
	n = n + n / 3 + 1;
	*ret_nslots = (uint32_t)(n < 64 ? 64 : n > (1u << 30) ? 1u << 30 : n);
	slots_end = (STORE_HEADER_SIZE + (size_t)*ret_nslots * 8 + 4095) & ~(size_t)4095;
	if (max_bytes)
		pages = max_bytes > slots_end ? (max_bytes - slots_end) / psize : 0;
	else
		pages = (max_entries * 256 + psize - 1) / psize;
	if (pages < 4)
		pages = 4;
	if (pages > (1u << 20))
		pages = 1u << 20;
	*ret_npages = (uint32_t)pages;
}

void
store_boot_id(uint8_t out[16])
{
	char	buf[64];
	int	fd, n, i, j;
	ssize_t	r;

	memset(out, 0, 16);
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return;
	buf[r] = '\0';
	for (i = 0, j = 0; buf[i] && j < 32; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9')
			n = c - '0';
		else if (c >= 'a' && c <= 'f')
			n = c - 'a' + 10;
		else
			continue;
		out[j / 2] |= (uint8_t)(j % 2 ? n : n << 4);
		j++;
	}
}

/* The bytes of n slots, page-rounded. */
static size_t
slots_bytes(uint32_t n)
{
	return ((size_t)n * 8 + 4095) & ~(size_t)4095;
}

/* Where area k starts in the file. */
static size_t
area_off(const struct store *s, unsigned k)
{
	return STORE_HEADER_SIZE + (size_t)k * s->area_bytes;
}

/*
 * Gives back the file's bytes [from, to) (their pages freed, reading
 * zero): punched out, or the anonymous pages dropped.
 */
static void
release_range(const struct store *s, size_t from, size_t to)
{
	int	fd;

	if (to <= from)
		return;
	if (s->path == NULL) {
		madvise(s->base + from, to - from, MADV_DONTNEED);
		return;
	}
	if ((fd = open(s->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		    (off_t)from, (off_t)(to - from)) < 0)
			memset(s->base + from, 0, to - from);
		close(fd);
	} else
		memset(s->base + from, 0, to - from);
}

/* Gives back area k's slots from n on. */
static void
release_slots(const struct store *s, unsigned k, uint32_t n)
{
	release_range(s, area_off(s, k) + slots_bytes(n), area_off(s, k) + s->area_bytes);
}

/* Allocates file bytes [off, off + n): ENOSPC now rather than SIGBUS later. */
static int
allocate(const struct store *s, size_t off, size_t n)
{
	int fd, r;

	if (s->path == NULL)
		return 0;
	if ((fd = open(s->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -errno;
	r = posix_fallocate(fd, (off_t)off, (off_t)n);
	close(fd);
	return -r;
}

struct store *
store_new(const char *path, size_t max_entries, size_t max_bytes, uint32_t page_size)
{
	struct store	*s;
	char		*tmp = NULL;
	uint32_t	 i;
	int		 fd = -1, err = ENOMEM;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->psize = page_size ? page_size : STORE_PAGE_DEFAULT;
	if (s->psize < STORE_PAGE_MIN || (s->psize & (s->psize - 1)) != 0) {
		free(s);
		errno = EINVAL;
		return NULL;
	}
	geometry(max_entries, max_bytes, s->psize, &s->slots_cap, &s->npages);
	/*
	 * The slots in use grow with the entries (store_put doubles them):
	 * a table sized for the bound would be touched all over by a few
	 * thousand names, at random, and be resident whole.  A table that
	 * grows has a second area to grow into (a hole in the file but while
	 * it doubles).
	 */
	s->nslots = s->slots_cap < SLOTS_FIRST ? s->slots_cap : SLOTS_FIRST;
	s->area_bytes = slots_bytes(s->slots_cap);
	s->nareas = s->nslots < s->slots_cap ? 2 : 1;
	s->open = NO_PAGE;
	s->len = STORE_HEADER_SIZE + s->area_bytes * s->nareas +
	    (size_t)s->npages * s->psize;
	if ((s->live = calloc(s->npages, sizeof(*s->live))) == NULL ||
	    (s->used = calloc(s->npages, sizeof(*s->used))) == NULL ||
	    (s->free = calloc(s->npages, sizeof(*s->free))) == NULL ||
	    (s->isfree = malloc(s->npages)) == NULL)
		goto fail;
	memset(s->isfree, 1, s->npages);
	if (path) {
		if ((s->path = strdup(path)) == NULL || asprintf(&tmp, "%s.new", path) < 0) {
			tmp = NULL;
			goto fail;
		}
		unlink(tmp);
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)s->len) < 0) {
			err = errno;
			goto fail;
		}
		/* The header and the first slots now (grow_begin allocates more). */
		if ((err = posix_fallocate(fd, 0, (off_t)(STORE_HEADER_SIZE +
		    slots_bytes(s->nslots)))) != 0)
			goto fail;
		s->base = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	} else
		s->base = mmap(NULL, s->len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		err = errno;
		goto fail;
	}
	s->h = (struct store_header *)(void *)s->base;
	s->h->magic = STORE_MAGIC;
	s->h->version = STORE_VERSION;
	s->h->header_size = STORE_HEADER_SIZE;
	s->h->file_size = s->len;
	s->h->nslots = s->nslots;
	s->h->slots_cap = s->slots_cap;
	s->h->page_size = s->psize;
	s->h->slots_off = STORE_HEADER_SIZE;
	s->h->pages_off = s->len - (size_t)s->npages * s->psize;
	s->h->npages = s->npages;
	s->h->state = STORE_LIVE;
	store_boot_id(s->h->boot_id);
	if (getrandom(s->h->key, sizeof(s->h->key), GRND_NONBLOCK) != sizeof(s->h->key) ||
	    getrandom(&s->h->generation, 8, GRND_NONBLOCK) != 8) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s->h->key[0] = (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)s;
		s->h->key[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
		s->h->generation = (uint64_t)ts.tv_sec ^ s->h->key[0];
	}
	s->slots = (uint64_t *)(void *)(s->base + s->h->slots_off);
	s->pages = s->base + s->h->pages_off;
	for (i = 0; i < s->npages; i++)
		s->free[i] = s->npages - 1 - i;		/* page 0 on top */
	s->nfree = s->npages;
	store_set_max_bytes(s, max_bytes);
	if (path) {
		if (rename(tmp, path) < 0) {
			err = errno;
			goto fail;
		}
		close(fd);
		free(tmp);
	}
	return s;
fail:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	store_free(s);
	errno = err;
	return NULL;
}

void
store_free(struct store *s)
{
	if (s == NULL)
		return;
	if (s->base)
		munmap(s->base, s->len);
	free(s->path);
	free(s->live);
	free(s->used);
	free(s->free);
	free(s->isfree);
	free(s);
}

const char *
store_path(const struct store *s)
{
	return s->path;
}

const struct store_header *
store_header(const struct store *s)
{
	return s->h;
}

uint32_t
store_nslots(const struct store *s)
{
	return s->nslots + s->old_n;
}

/* Index i: the table in use's slots, then the old one's. */
static uint64_t *
slot_ptr(const struct store *s, size_t i)
{
	return i < s->nslots ? &s->slots[i] : &s->old[i - s->nslots];
}

size_t
store_count(const struct store *s)
{
	return s->count;
}

void
store_set_realtime(struct store *s, int64_t ms)
{
	__atomic_store_n(&s->h->realtime_ms, ms, __ATOMIC_RELAXED);
}

void
store_set_fps(struct store *s, uint64_t search_fp, uint64_t modules_fp)
{
	s->h->search_fp = search_fp;
	s->h->modules_fp = modules_fp;
}

uint64_t
store_hash(const struct store *s, uint32_t kind, const char *lname, size_t len)
{
	return store_key_hash(s->h->key, kind, lname, len);
}

uint16_t
store_stamp(const struct store *s, size_t i)
{
	return store_slot_stamp(*slot_ptr(s, i));
}

void
store_touch(struct store *s, size_t i, uint16_t stamp)
{
	uint64_t *p = slot_ptr(s, i);

	if (*p != 0)
		__atomic_store_n(p, store_slot_restamp(*p, stamp), __ATOMIC_RELAXED);
}

struct store_rec *
store_at(const struct store *s, size_t i)
{
	uint64_t v = *slot_ptr(s, i);

	return v ? (struct store_rec *)(void *)(s->pages + store_slot_off(v)) : NULL;
}

/* The slot of the key in table tab of n slots, or -1. */
static long
find_in(const struct store *s, const uint64_t *tab, uint32_t n, uint32_t kind,
    const char *lname, size_t len, uint64_t hash)
{
	uint32_t	 i = store_home(hash, n);
	uint64_t	 v;
	struct store_rec *r;

	for (;; i = i + 1 == n ? 0 : i + 1) {
		if ((v = tab[i]) == 0)
			return -1;
		if (!store_slot_tag_ok(v, hash))
			continue;
		r = (struct store_rec *)(void *)(s->pages + store_slot_off(v));
		if (r->kind == kind && r->name_len == len &&
		    memcmp(store_rec_name(r), lname, len) == 0)
			return (long)i;
	}
}

long
store_find(const struct store *s, uint32_t kind, const char *lname, size_t len,
    uint64_t hash)
{
	long i = find_in(s, s->slots, s->nslots, kind, lname, len, hash);

	if (i >= 0 || s->old == NULL)
		return i;
	i = find_in(s, s->old, s->old_n, kind, lname, len, hash);
	return i >= 0 ? (long)s->nslots + i : -1;
}

/* The record at off no longer counts: its page's live bytes go down. */
static void
dead(struct store *s, uint64_t off)
{
	struct store_rec *r = (struct store_rec *)(void *)(s->pages + off);
	uint32_t p = (uint32_t)(off / s->psize);

	__atomic_store_n(&r->status, r->status | STORE_S_DEAD, __ATOMIC_RELAXED);
	s->live[p] -= (uint32_t)store_rec_len(r);
	s->live_bytes -= store_rec_len(r);
}

/* The home of slot value v's key in a table of n slots. */
static uint32_t
home_of(const struct store *s, uint64_t v, uint32_t n)
{
	const struct store_rec *r = (const struct store_rec *)(const void *)
	    (s->pages + store_slot_off(v));

	return store_home(store_key_hash(s->h->key, r->kind, store_rec_name(r),
	    r->name_len), n);
}

/* Backward-shift deletion in table tab of n slots: the probe paths stay without holes. */
static void
slot_clear(struct store *s, uint64_t *tab, uint32_t n, uint32_t i)
{
	uint32_t	j = i, home;
	uint64_t	v;

	for (;;) {
		__atomic_store_n(&tab[i], 0, __ATOMIC_RELEASE);
		for (;;) {
			j = j + 1 == n ? 0 : j + 1;
			if ((v = tab[j]) == 0)
				return;
			home = home_of(s, v, n);
			/* j's record may move to i if i lies on its path: home..j. */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		__atomic_store_n(&tab[i], v, __ATOMIC_RELEASE);
		i = j;
	}
}

void
store_remove(struct store *s, size_t i)
{
	uint64_t v = *slot_ptr(s, i);

	if (v == 0)
		return;
	if (i < s->nslots)
		slot_clear(s, s->slots, s->nslots, (uint32_t)i);
	else
		slot_clear(s, s->old, s->old_n, (uint32_t)(i - s->nslots));
	dead(s, store_slot_off(v));
	s->count--;
}

void
store_clear(struct store *s)
{
	uint32_t i;

	__atomic_add_fetch(&s->h->gc_cycle, 1, __ATOMIC_RELEASE);
	/* The other area goes whole: a doubling's old table, or bytes ahead. */
	if (s->old) {
		__atomic_store_n(&s->h->old_nslots, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&s->h->old_off, 0, __ATOMIC_RELEASE);
		s->old = NULL;
		s->old_n = 0;
		s->cursor = 0;
	}
	if (s->nareas == 2)
		release_slots(s, 1 - s->area, 0);
	s->ahead = s->rel_from = s->rel_to = 0;
	/* The first slots zeroed, the rest given back: the table starts small. */
	memset(s->slots, 0, slots_bytes(s->slots_cap < SLOTS_FIRST ? s->slots_cap :
	    SLOTS_FIRST));
	if (s->nslots > SLOTS_FIRST) {
		s->nslots = SLOTS_FIRST;
		release_slots(s, s->area, s->nslots);
		__atomic_store_n(&s->h->nslots, s->nslots, __ATOMIC_RELEASE);
	}
	for (i = 0; i < s->npages; i++) {
		s->live[i] = 0;
		s->used[i] = 0;
		s->free[i] = s->npages - 1 - i;
		s->isfree[i] = 1;
	}
	s->nfree = s->npages;
	s->open = NO_PAGE;
	s->count = 0;
	s->live_bytes = 0;
}

void
store_set_max_bytes(struct store *s, size_t max_bytes)
{
	/* Header and slots: one area (the second is a hole but while they double). */
	size_t fixed = STORE_HEADER_SIZE + s->area_bytes;

	/* Two pages kept back: the open one and the reserve cleaning copies into. */
	s->budget = (size_t)(s->npages - 2) * s->psize / 100 * 85;
	/* A bound smaller than the fewest pages: the bound, less header and slots. */
	if (max_bytes && s->budget > max_bytes - fixed)
		s->budget = max_bytes > fixed ? max_bytes - fixed : 0;
}

bool
store_over(const struct store *s, size_t max_entries)
{
	return s->count > max_entries || s->live_bytes > s->budget;
}

bool
store_room(const struct store *s, size_t need, size_t max_entries)
{
	return s->count < max_entries && s->count + 1 <= s->slots_cap - s->slots_cap / 4 &&
	    s->live_bytes + need <= s->budget;
}

/* A free page, made the open one; its file bytes allocated.  -ENOSPC: none. */
static int
open_page(struct store *s)
{
	uint32_t p;

	if (s->nfree == 0)
		return -ENOSPC;
	p = s->free[s->nfree - 1];
	if (p >= s->allocated) {
		if (allocate(s, (size_t)(s->pages - s->base) + (size_t)p * s->psize,
		    s->psize) < 0)
			return -ENOSPC;
		s->allocated = p + 1;
	}
	s->nfree--;
	s->isfree[p] = 0;
	if (s->used[p] != 0)
		__atomic_add_fetch(&s->h->gc_cycle, 1, __ATOMIC_RELEASE);
	s->used[p] = 0;
	s->live[p] = 0;
	s->open = p;
	return 0;
}

/* The slot that points at offset off in table tab of n slots, or NULL. */
static uint64_t *
slot_of_in(const struct store *s, uint64_t *tab, uint32_t n, uint64_t off, uint64_t hash)
{
	uint32_t	i = store_home(hash, n);
	uint64_t	v;

	for (; (v = tab[i]) != 0; i = i + 1 == n ? 0 : i + 1)
		if (store_slot_off(v) == off)
			return &tab[i];
	return NULL;
}

/* The slot that points at offset off (its record's key hashed), or NULL. */
static uint64_t *
slot_of(const struct store *s, uint64_t off)
{
	const struct store_rec	*r = (const struct store_rec *)(const void *)(s->pages + off);
	uint64_t		 hash = store_key_hash(s->h->key, r->kind,
				    store_rec_name(r), r->name_len);
	uint64_t		*p = slot_of_in(s, s->slots, s->nslots, off, hash);

	return p || s->old == NULL ? p : slot_of_in(s, s->old, s->old_n, off, hash);
}

/*
 * Cleans the written page with the fewest live bytes into the reserve
 * (the last free page), which becomes the open page; the cleaned page
 * becomes the reserve.  -ENOSPC when no page would leave room for need.
 */
static int
clean(struct store *s, size_t need)
{
	uint32_t	p, victim = NO_PAGE, best = s->psize;
	uint64_t	off, end, v, *slot;

	for (p = 0; p < s->npages; p++) {
		if (s->isfree[p] || s->used[p] == 0)
			continue;
		if (s->live[p] < best) {
			best = s->live[p];
			victim = p;
		}
	}
	/* Too little dead anywhere: the caller is over its budget. */
	if (victim == NO_PAGE || s->nfree == 0 || s->psize - best < need)
		return -ENOSPC;
	if (open_page(s) < 0)
		return -ENOSPC;
	s->cleanings++;
	off = (uint64_t)victim * s->psize;
	end = off + s->used[victim];
	while (off < end) {
		struct store_rec *r = (struct store_rec *)(void *)(s->pages + off);
		uint64_t at = (uint64_t)s->open * s->psize + s->used[s->open];

		size_t rlen = store_rec_len(r);

		if (rlen == 0)
			break;
		if (!(r->status & STORE_S_DEAD) && (slot = slot_of(s, off)) != NULL) {
			memcpy(s->pages + at, r, rlen);
			v = store_slot_moved(*slot, at);
			__atomic_store_n(slot, v, __ATOMIC_RELEASE);
			s->used[s->open] += (uint32_t)rlen;
			s->live[s->open] += (uint32_t)rlen;
			s->relocated++;
		}
		off += rlen;
	}
	s->live[victim] = 0;
	/* Its bytes are written again only after gc_cycle moves (open_page). */
	s->free[s->nfree++] = victim;
	s->isfree[victim] = 1;
	return 0;
}

/*
 * Begins a doubling into the other area (grow_step empties the old
 * table).  The header, in an order a loader may find stopped anywhere:
 * the old table named (at the offset in use: still one table), the new
 * one's offset (empty, the old count), its count.  No room in /run: the
 * table stays as it is (longer probes, still right).
 */
static void
grow_begin(struct store *s)
{
	uint32_t	n = s->nslots * 2 > s->slots_cap || s->nslots * 2 < s->nslots ?
			    s->slots_cap : s->nslots * 2;
	unsigned	k = 1 - s->area;

	/* Its bytes first (what prepare() has not): they read zero, never
	   written, or given back once the last doubling ended. */
	release_range(s, s->rel_from, s->rel_to);
	s->rel_from = s->rel_to = 0;
	if (s->ahead < slots_bytes(n) && allocate(s, area_off(s, k) + s->ahead,
	    slots_bytes(n) - s->ahead) < 0)
		return;
	s->ahead = 0;
	__atomic_add_fetch(&s->h->gc_cycle, 1, __ATOMIC_RELEASE);
	s->old = s->slots;
	s->old_n = s->nslots;
	s->cursor = 0;
	__atomic_store_n(&s->h->old_off, (uint64_t)area_off(s, s->area), __ATOMIC_RELEASE);
	__atomic_store_n(&s->h->old_nslots, s->old_n, __ATOMIC_RELEASE);
	s->area = k;
	s->slots = (uint64_t *)(void *)(s->base + area_off(s, k));
	s->nslots = n;
	__atomic_store_n(&s->h->slots_off, (uint64_t)area_off(s, k), __ATOMIC_RELEASE);
	__atomic_store_n(&s->h->nslots, n, __ATOMIC_RELEASE);
	s->grows++;
}

/* The old table is empty: the header forgets it; its bytes go in steps (prepare). */
static void
grow_end(struct store *s)
{
	__atomic_store_n(&s->h->old_nslots, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->h->old_off, 0, __ATOMIC_RELEASE);
	s->rel_from = area_off(s, 1 - s->area);
	s->rel_to = s->rel_from + s->area_bytes;
	s->old = NULL;
	s->old_n = 0;
	s->cursor = 0;
	__atomic_add_fetch(&s->h->gc_cycle, 1, __ATOMIC_RELEASE);
}

/*
 * Looks at up to budget slots of the old table from its cursor, moving
 * each entry into the new one (there first, then cleared from the old,
 * whose shift may bring a later one to the cursor).  Returns the moves.
 */
static uint32_t
grow_step(struct store *s, uint32_t budget)
{
	uint32_t	moved = 0, j;
	uint64_t	v;

	for (; s->old != NULL && budget > 0; budget--) {
		if (s->cursor >= s->old_n) {
			grow_end(s);
			break;
		}
		if ((v = s->old[s->cursor]) == 0) {
			s->cursor++;
			continue;
		}
		for (j = home_of(s, v, s->nslots); s->slots[j] != 0;
		    j = j + 1 == s->nslots ? 0 : j + 1)
			;
		__atomic_store_n(&s->slots[j], v, __ATOMIC_RELEASE);
		slot_clear(s, s->old, s->old_n, s->cursor);
		moved++;
	}
	if (s->old != NULL && s->cursor >= s->old_n)
		grow_end(s);
	s->moved += moved;
	if (moved > s->step_max)
		s->step_max = moved;
	return moved;
}

/*
 * The file's side of a doubling, a chunk a put, so that neither grows
 * with the cache: the last old table's bytes given back, then, once the
 * entries pass half the slots in use, the next table's bytes allocated
 * ahead (a full /run: grow_begin tries again, and keeps the table as it
 * is if it fails).
 */
static void
prepare(struct store *s)
{
	size_t	need, n;

	if (s->rel_from < s->rel_to) {
		n = s->rel_to - s->rel_from < STORE_AREA_STEP ? s->rel_to - s->rel_from :
		    STORE_AREA_STEP;
		release_range(s, s->rel_from, s->rel_from + n);
		s->rel_from += n;
		return;
	}
	if (s->old || s->nslots >= s->slots_cap || s->count <= s->nslots / 2)
		return;
	need = slots_bytes(s->nslots * 2 > s->slots_cap || s->nslots * 2 < s->nslots ?
	    s->slots_cap : s->nslots * 2);
	if (s->ahead >= need)
		return;
	n = need - s->ahead < STORE_AREA_STEP ? need - s->ahead : STORE_AREA_STEP;
	if (allocate(s, area_off(s, 1 - s->area) + s->ahead, n) == 0)
		s->ahead += n;
}

long
store_put(struct store *s, const struct store_rec *tmpl, uint16_t stamp,
    const char *lname, const void *data, size_t len)
{
	size_t		 nlen = strlen(lname);
	size_t		 need = store_rec_size(nlen, len);
	uint64_t	 hash, at, v;
	struct store_rec *r;
	long		 i;
	int		 tries;

	if (nlen == 0 || nlen > STORE_NAME_MAX || len > STORE_DATA_MAX ||
	    need > s->psize)
		return -EINVAL;
	for (tries = 0; s->open == NO_PAGE || s->used[s->open] + need > s->psize; tries++) {
		size_t inuse = (size_t)(s->npages - s->nfree) * s->psize;

		if (tries > 8)
			return -ENOSPC;
		/*
		 * A fresh page while the pages written are seven eighths live
		 * (so the memory touched follows what is held, not the bound);
		 * else the deadest page is cleaned.  The reserve is kept:
		 * cleaning needs an empty page to copy into.
		 */
		if (s->nfree > 1 && (inuse / 8 * 7 <= s->live_bytes + need ||
		    clean(s, need) < 0)) {
			if (open_page(s) < 0)
				return -ENOSPC;
		} else if (s->nfree <= 1 && clean(s, need) < 0)
			return -ENOSPC;
	}
	at = (uint64_t)s->open * s->psize + s->used[s->open];
	r = (struct store_rec *)(void *)(s->pages + at);
	memset(r, 0, need);
	r->len8 = (uint16_t)(need / 8 | (tmpl->len8 & STORE_L_FORM));
	r->kind = tmpl->kind;
	r->expires = tmpl->expires;
	r->failed = tmpl->failed;
	r->ttl = tmpl->ttl;
	r->name_len = (uint8_t)nlen;
	r->status = (uint8_t)((tmpl->status & (STORE_STATUS_MASK | STORE_S_COMPACT |
	    STORE_S_NOTFOUND)) | ((need - sizeof(*r) - nlen - len) << STORE_PAD_SHIFT));
	memcpy(r + 1, lname, nlen);
	if (len)
		memcpy((uint8_t *)(r + 1) + nlen, data, len);
	r->check = store_rec_check(s->h->key, r);
	s->used[s->open] += (uint32_t)need;
	s->live[s->open] += (uint32_t)need;
	s->live_bytes += need;
	hash = store_key_hash(s->h->key, r->kind, lname, nlen);
	v = store_slot_restamp(store_slot(at, hash), stamp);
	/* A doubling goes on first: the index returned stays good. */
	if (s->old)
		grow_step(s, STORE_GROW_STEP);
	if (s->nareas == 2)
		prepare(s);
	if ((i = store_find(s, r->kind, lname, nlen, hash)) >= 0) {
		uint64_t *p = slot_ptr(s, (size_t)i), old = *p;

		__atomic_store_n(p, v, __ATOMIC_RELEASE);
		dead(s, store_slot_off(old));
		return i;
	}
	if (s->count + 1 > s->nslots - s->nslots / 4 && s->nslots < s->slots_cap) {
		/* Never so while a doubling is under way (see above); if so, it ends first. */
		if (s->old)
			grow_step(s, UINT32_MAX);
		grow_begin(s);
	}
	/* Could not grow (a full /run), and no empty slot left: not kept. */
	if (s->count + 1 >= s->nslots) {
		dead(s, at);
		return -ENOSPC;
	}
	for (i = (long)store_home(hash, s->nslots); s->slots[i] != 0;
	    i = i + 1 == (long)s->nslots ? 0 : i + 1)
		;
	__atomic_store_n(&s->slots[i], v, __ATOMIC_RELEASE);
	s->count++;
	return i;
}

void
store_get_stats(const struct store *s, struct store_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->count = s->count;
	ret->live_bytes = s->live_bytes;
	ret->budget = s->budget;
	ret->file_size = s->len;
	ret->pages_used = s->allocated;
	ret->npages = s->npages;
	ret->page_size = s->psize;
	ret->nslots = s->nslots;
	ret->slots_cap = s->slots_cap;
	ret->grows = s->grows;
	ret->grow_moved = s->moved;
	ret->grow_step_max = s->step_max;
	ret->old_nslots = s->old_n;
	ret->cleanings = s->cleanings;
	ret->relocated = s->relocated;
	ret->file = s->path != NULL;
}
