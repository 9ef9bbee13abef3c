/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscdmap.c - a database glibc's nscd client maps (the writer): hosts, passwd, group, services, netgroup. */

/*
 * glibc's reader (nscd_helper.c) walks this file with plain loads and no
 * lock.  It checks offsets against the data size it mapped, alignment,
 * the record's `usable' byte, and gc_cycle, which it reads before and
 * after it copies a record out: a change, or an odd value, sends it to
 * the socket.  It never reads a record's timeout.  So, on the event loop
 * only:
 *
 *  - A record (datahead and reply, key, hashentry) is written whole in
 *    free space, then made reachable with a release store of its offset
 *    at the head of its bucket.  It is never changed after that, except
 *    its `usable' byte, which goes from 1 to 0 once (a newer record for
 *    its key, an expiry, an invalidation): one byte, so a reader sees 1
 *    or 0 and either is true at that moment.
 *  - Everything else that changes what is reachable (compaction, a reset,
 *    taking the file over) happens between two gc_cycle stores, odd then
 *    even, each with a full fence, so a reader that overlaps it discards
 *    what it read.
 *  - The file never shrinks: a reader's bound stays inside it.  Growing
 *    it raises data_size, and glibc maps it again at its next lookup.
 *  - certainly_running stays 0 and timestamp is stamped every second, so
 *    a mapping whose daemon was killed is dropped 300 s after the last
 *    stamp (NSCD_MAPPING_TIMEOUT); docs/design.md says what readers see
 *    in that window.
 *
 * The daemon keeps its own index of the records (recs, chained through
 * own[] with the same hash), for the sweeper and for replacing a key's
 * record without reading the file back.
 *
 * A restart.  The file a daemon before left is opened as it is, readers
 * reading on; the new daemon takes its records over (nscdmap_take_over:
 * each checked, the index rebuilt, nothing a reader reads moved) or
 * empties it (nscdmap_drop_left, or the first other call).  One caught in a
 * change (gc_cycle odd, not so on purpose: nscdmap_close) is emptied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "name.h"
#include "nscd.h"
#include "nscdmap.h"
#include "ttl.h"

#define MARK		0x6e636d31u	/* extra_data[1]: "ncm1", our file */
#define CLOSED_WHOLE	0x6e636377u	/* extra_data[2]: odd on purpose, records whole */
#define INITIAL_SIZE	(1u << 20)
#define REC_ALIGN	8
#define FILE_MAX	((size_t)INT32_MAX)
/*
 * The sweeper looks once a second: a record whose last tenth is shorter
 * (a TTL under 15 s) could expire between two ticks with no refresh
 * asked, so its window is the last 1.5 s, which a tick always falls in.
 * The cache and the segment's readers look at every lookup and need none.
 */
#define TICK_WINDOW_NS	(1500 * TTL_NS_PER_MS)

struct rec {
	uint32_t	 off;		/* of the datahead: the record's start */
	uint32_t	 size;		/* bytes, datahead to the end of its hashentry */
	uint32_t	 he;		/* offset of its hashentry */
	int32_t		 next;		/* in own[]'s chain, or -1 */
	int64_t		 expires;
	uint32_t	 ttl;
	uint8_t		 type;
	uint8_t		 reloads;	/* refreshes since a client asked */
	bool		 live;
	bool		 refreshing;	/* a refresh was asked this lifetime */
};

struct nscdmap {
	int			 fd;		/* read-write, ours */
	int			 ro_fd;		/* read-only, for clients */
	uint8_t			*map;		/* max bytes mapped; size are file */
	size_t			 map_len;
	struct nscd_db_head	*head;
	uint8_t			*data;
	uint32_t		 module;
	size_t			 size;		/* of the data area now */
	size_t			 max;
	size_t			 first_free;
	struct rec		*recs;
	size_t			 nrecs, caprecs;
	int32_t			*own;		/* module chain heads into recs */
	uint32_t		 live;
	nscdmap_refresh_fn	*refresh;
	void			*refresh_arg;
	unsigned		 reloads;
	bool			 left;		/* a daemon before's records, not yet
						   taken over nor emptied */
	uint64_t		 left_stamp;	/* its last timestamp (time()) */
	struct nscdmap_stats	 st;
};

static uint32_t
prime_at_least(uint32_t n)
{
	uint32_t d;

	if (n < 3)
		return 3;
	for (n |= 1;; n += 2) {
		for (d = 3; d * d <= n && n % d; d += 2)
			;
		if (d * d > n)
			return n;
	}
}

static void
gc_begin(struct nscdmap *m)
{
	__atomic_store_n(&m->head->gc_cycle, m->head->gc_cycle | 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void
gc_end(struct nscdmap *m)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&m->head->gc_cycle, m->head->gc_cycle + 1, __ATOMIC_SEQ_CST);
}

static int64_t
wall_now(void)
{
	return (int64_t)time(NULL);
}

/* Empties the daemon's own index (the file as it is). */
static void
wipe_index(struct nscdmap *m)
{
	uint32_t i;

	for (i = 0; i < m->module; i++)
		m->own[i] = -1;
	m->nrecs = 0;
	m->live = 0;
}

/* Empties buckets and index; inside a gc window when readers may look. */
static void
wipe(struct nscdmap *m)
{
	uint32_t i;

	for (i = 0; i < m->module; i++)
		m->head->array[i] = NSCD_ENDREF;
	wipe_index(m);
	m->first_free = 0;
	m->head->first_free = 0;
	m->head->nentries = 0;
}

/* Grows the file (and the data area readers may map) to hold size bytes. */
static int
grow_to(struct nscdmap *m, size_t size)
{
	size_t	total = nscd_data_offset(m->module) + size;
	int	r;

	if (size > m->max)
		return -E2BIG;
	/* Allocated now: a full /run is ENOSPC here, never a SIGBUS later. */
	if ((r = posix_fallocate(m->fd, 0, (off_t)total)) != 0)
		return -r;
	m->size = size;
	__atomic_store_n(&m->head->data_size, (int32_t)size, __ATOMIC_RELEASE);
	return 0;
}

static int
map_file(struct nscdmap *m, const char *path, bool *ret_new)
{
	struct stat	st;
	size_t		off = nscd_data_offset(m->module);
	char		tmp[4096];
	int		fd, r;

	*ret_new = false;
	m->map_len = off + m->max;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 022) == 0 &&
	    (size_t)st.st_size >= off && (size_t)st.st_size <= m->map_len) {
		m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
		if (m->map != MAP_FAILED) {
			struct nscd_db_head *h = (void *)m->map;

			if (h->version == NSCD_VERSION &&
			    h->header_size == sizeof(*h) && h->extra_data[1] == MARK &&
			    (uint32_t)h->module == m->module &&
			    (size_t)h->data_size + off <= (size_t)st.st_size) {
				m->fd = fd;
				m->size = (size_t)h->data_size;
				return 0;
			}
			/* Not ours, or another shape: its readers go elsewhere. */
			if (h->header_size == sizeof(*h)) {
				gc_begin(&(struct nscdmap){ .head = h });
				__atomic_store_n(&h->data_size, INT32_MAX, __ATOMIC_SEQ_CST);
			}
			munmap(m->map, m->map_len);
		}
	}
	if (fd >= 0)
		close(fd);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0) {
		r = -errno;
		goto fail;
	}
	if ((r = posix_fallocate(fd, 0, (off_t)(off +
	    (m->max < INITIAL_SIZE ? m->max : INITIAL_SIZE)))) != 0) {
		r = -r;
		goto fail;
	}
	m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->map == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	m->fd = fd;
	m->size = m->max < INITIAL_SIZE ? m->max : INITIAL_SIZE;
	*ret_new = true;
	if (rename(tmp, path) < 0) {
		r = -errno;
		munmap(m->map, m->map_len);
		m->fd = -1;
		goto fail;
	}
	return 0;
fail:
	close(fd);
	unlink(tmp);
	return r;
}

struct nscdmap *
nscdmap_open(const char *path, uint32_t module, size_t max_size)
{
	struct nscdmap	*m = calloc(1, sizeof(*m));
	bool		 fresh;
	uint32_t	 nl;
	int		 r;

	if (m == NULL)
		return NULL;
	m->fd = m->ro_fd = -1;
	m->module = prime_at_least(module < 211 ? 211 : module);
	max_size &= ~(size_t)(REC_ALIGN - 1);
	if (max_size + nscd_data_offset(m->module) > FILE_MAX)
		max_size = FILE_MAX - nscd_data_offset(m->module);
	m->max = max_size;
	m->own = malloc(m->module * sizeof(*m->own));
	if (m->own == NULL) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	if ((r = map_file(m, path, &fresh)) < 0)
		goto fail;
	if ((m->ro_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		r = -errno;
		goto fail;
	}
	m->head = (void *)m->map;
	m->data = m->map + nscd_data_offset(m->module);
	if (fresh) {
		memset(m->head, 0, sizeof(*m->head));
		m->head->version = NSCD_VERSION;
		m->head->header_size = sizeof(*m->head);
		m->head->gc_cycle = 1;		/* not readable until set up */
		m->head->module = (int32_t)m->module;
		m->head->extra_data[1] = MARK;
		m->head->data_size = (int32_t)m->size;
		m->head->extra_data[0] = 1;
	} else if ((m->head->gc_cycle & 1) == 0 ||
	    m->head->extra_data[2] == CLOSED_WHOLE) {
		/* Whole: left for nscdmap_take_over, readers reading on. */
		m->left = true;
		m->left_stamp = m->head->timestamp;
	} else {
		gc_begin(m);
	}
	m->head->extra_data[2] = 0;
	/* A new counter: readers that cached an address dump redo it. */
	nl = m->head->extra_data[0] + 1;
	__atomic_store_n(&m->head->extra_data[0], nl ? nl : 1, __ATOMIC_RELEASE);
	m->head->certainly_running = 0;
	__atomic_store_n(&m->head->timestamp, (uint64_t)wall_now(), __ATOMIC_RELEASE);
	if (!m->left) {
		wipe(m);
		m->head->maxnentries = 0;
		gc_end(m);
	}
	m->st.module = m->module;
	return m;
fail:
	if (m->map && m->map != MAP_FAILED)
		munmap(m->map, m->map_len);
	if (m->fd >= 0)
		close(m->fd);
	free(m->own);
	free(m);
	errno = -r;
	return NULL;
}

void
nscdmap_close(struct nscdmap *m, bool live)
{
	if (m == NULL)
		return;
	/*
	 * Live: stamped now, so glibc keeps it for its 300 s while the next
	 * daemon starts.  Else odd, and left odd: readers ask the socket
	 * until a daemon takes over.
	 */
	if (live)
		m->head->timestamp = (uint64_t)wall_now();
	else {
		/* Odd on purpose: the next daemon may still take the records over. */
		__atomic_store_n(&m->head->extra_data[2], CLOSED_WHOLE, __ATOMIC_RELEASE);
		gc_begin(m);
	}
	m->head->certainly_running = 0;
	munmap(m->map, m->map_len);
	close(m->fd);
	close(m->ro_fd);
	free(m->recs);
	free(m->own);
	free(m);
}

int
nscdmap_fd(const struct nscdmap *m, uint64_t *ret_mapsize)
{
	*ret_mapsize = nscd_data_offset(m->module) + m->size;
	return m->ro_fd;
}

void
nscdmap_set_refresh(struct nscdmap *m, nscdmap_refresh_fn *fn, void *arg,
    unsigned reloads)
{
	m->refresh = fn;
	m->refresh_arg = arg;
	m->reloads = reloads > 255 ? 255 : reloads;
}

static struct nscd_datahead *
dh_at(const struct nscdmap *m, uint32_t off)
{
	return (struct nscd_datahead *)(void *)(m->data + off);
}

static struct nscd_hashentry *
he_at(const struct nscdmap *m, uint32_t off)
{
	return (struct nscd_hashentry *)(void *)(m->data + off);
}

static void
unusable(struct nscdmap *m, struct rec *r)
{
	if (!r->live)
		return;
	__atomic_store_n(&dh_at(m, r->off)->usable, 0, __ATOMIC_RELEASE);
	r->live = false;
	m->live--;
	m->head->nentries = (int32_t)m->live;
}

static struct rec *
find(struct nscdmap *m, uint32_t bucket, int32_t type, const void *key,
    size_t key_len)
{
	struct nscd_hashentry	*he;
	int32_t			 i;

	for (i = m->own[bucket]; i >= 0; i = m->recs[i].next) {
		struct rec *r = &m->recs[i];

		if (!r->live || r->type != type)
			continue;
		he = he_at(m, r->he);
		if ((size_t)he->len == key_len &&
		    memcmp(m->data + he->key, key, key_len) == 0)
			return r;
	}
	return NULL;
}

/* Room in the index for one more record: 0 or -ENOMEM. */
static int
recs_room(struct nscdmap *m)
{
	size_t	 cap = m->caprecs ? m->caprecs * 2 : 256;
	void	*p;

	if (m->nrecs < m->caprecs)
		return 0;
	if ((p = realloc(m->recs, cap * sizeof(*m->recs))) == NULL)
		return -ENOMEM;
	m->recs = p;
	m->caprecs = cap;
	return 0;
}

static size_t
rec_size(size_t key_len, size_t len)
{
	size_t s = sizeof(struct nscd_datahead) + len;

	s = (s + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
	s += (key_len + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
	return s + sizeof(struct nscd_hashentry);
}

/*
 * Copies the usable records to the front, in a private image first, then
 * into the file inside one gc window.  The index follows them.
 */
static int
compact(struct nscdmap *m)
{
	uint8_t		*img;
	uint32_t	*buckets;
	size_t		 i, off = 0, n = 0;

	if ((img = malloc(m->first_free ? m->first_free : 1)) == NULL)
		return -ENOMEM;
	if ((buckets = malloc(m->module * sizeof(*buckets))) == NULL) {
		free(img);
		return -ENOMEM;
	}
	for (i = 0; i < m->module; i++) {
		buckets[i] = NSCD_ENDREF;
		m->own[i] = -1;
	}
	for (i = 0; i < m->nrecs; i++) {
		struct rec		*r = &m->recs[i], moved;
		struct nscd_hashentry	*he;
		uint32_t		 delta, b;

		if (!r->live)
			continue;
		memcpy(img + off, m->data + r->off, r->size);
		delta = r->off - (uint32_t)off;
		he = (struct nscd_hashentry *)(void *)(img + off + (r->he - r->off));
		he->key -= delta;
		he->packet -= delta;
		b = nscd_hash(img + he->key, (size_t)he->len) % m->module;
		he->next = buckets[b];
		buckets[b] = (uint32_t)off + (r->he - r->off);
		moved = *r;	/* r may be recs[n] itself: read whole first */
		moved.off = (uint32_t)off;
		moved.he = (uint32_t)off + (r->he - r->off);
		moved.next = m->own[b];
		m->recs[n] = moved;
		m->own[b] = (int32_t)n;
		n++;
		off += r->size;
	}
	gc_begin(m);
	memcpy(m->head->array, buckets, m->module * sizeof(*buckets));
	memcpy(m->data, img, off);
	m->first_free = off;
	m->head->first_free = (int32_t)off;
	gc_end(m);
	m->nrecs = n;
	m->st.compactions++;
	free(buckets);
	free(img);
	return 0;
}

/* Room for need more bytes: compact, grow, or at last start empty. */
static int
make_room(struct nscdmap *m, size_t need)
{
	size_t	live_bytes = 0, want, i;
	int	r;

	for (i = 0; i < m->nrecs; i++)
		if (m->recs[i].live)
			live_bytes += m->recs[i].size;
	/* Grow while the live records would fill more than half of it. */
	if ((live_bytes + need) * 2 > m->size && m->size < m->max) {
		want = m->size;
		while ((live_bytes + need) * 2 > want && want < m->max)
			want = want * 2 < m->max ? want * 2 : m->max;
		if ((r = grow_to(m, want)) == 0) {
			m->st.grown++;
			log_info("nscd database grown to %zu KiB", want >> 10);
		} else {
			log_warning("nscd database: cannot grow to %zu KiB: %s",
			    want >> 10, strerror(-r));
		}
	}
	if (m->first_free + need <= m->size)
		return 0;
	if (live_bytes + need <= m->size && compact(m) == 0 &&
	    m->first_free + need <= m->size)
		return 0;
	if (need > m->size)
		return -E2BIG;
	nscdmap_reset(m);
	m->st.resets--;		/* counted as full, not as a reset asked */
	m->st.failures++;
	return 0;
}

int
nscdmap_put(struct nscdmap *m, int32_t type, const void *key, size_t key_len,
    const void *reply, size_t len, int64_t expires, uint32_t ttl, bool asked,
    int64_t now)
{
	struct nscd_datahead	*dh;
	struct nscd_hashentry	*he;
	struct rec		*old, *r;
	size_t			 size = rec_size(key_len, len), he_off, key_off;
	uint32_t		 bucket = nscd_hash(key, key_len) % m->module;
	uint8_t			 reloads = 0;
	int			 e;

	if (key_len == 0 || key_len > NSCD_KEY_MAX || len > INT32_MAX / 2)
		return -EINVAL;
	nscdmap_drop_left(m);
	if ((old = find(m, bucket, type, key, key_len)) != NULL) {
		dh = dh_at(m, old->off);
		if ((size_t)dh->recsize == len && old->expires == expires &&
		    memcmp(dh->data, reply, len) == 0) {
			m->st.unchanged++;
			if (asked)
				old->reloads = 0;
			return 0;
		}
		reloads = asked ? 0 : old->reloads;
	}
	if (m->first_free + size > m->size) {
		if ((e = make_room(m, size)) < 0) {
			m->st.failures++;
			return e;
		}
		/* The index moved: find the record to replace again. */
		old = find(m, bucket, type, key, key_len);
	}
	if (m->nrecs == m->caprecs) {
		if (recs_room(m) < 0)
			return -ENOMEM;
		if (old)
			old = find(m, bucket, type, key, key_len);
	}
	/* The record, whole, in free space no reader can reach. */
	dh = dh_at(m, (uint32_t)m->first_free);
	memset(dh, 0, sizeof(*dh));
	dh->allocsize = (int32_t)size;
	dh->recsize = (int32_t)len;
	dh->timeout = expires == NSCDMAP_FOREVER ? UINT64_MAX / 2 :
	    (uint64_t)(wall_now() + (expires - now + 999) / 1000);
	dh->notfound = ((const int32_t *)reply)[1] != 1;
	dh->nreloads = reloads;
	dh->usable = 1;
	dh->ttl = ttl;
	memcpy(dh->data, reply, len);
	key_off = m->first_free + ((sizeof(*dh) + len + REC_ALIGN - 1) &
	    ~(size_t)(REC_ALIGN - 1));
	memcpy(m->data + key_off, key, key_len);
	he_off = key_off + ((key_len + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1));
	he = he_at(m, (uint32_t)he_off);
	memset(he, 0, sizeof(*he));
	he->type = (uint8_t)type;
	he->first = 1;
	he->len = (int32_t)key_len;
	he->key = (uint32_t)key_off;
	he->packet = (uint32_t)m->first_free;
	he->next = m->head->array[bucket];
	/* Then reachable: the bucket head, released after the bytes above. */
	__atomic_store_n(&m->head->array[bucket], (uint32_t)he_off, __ATOMIC_RELEASE);
	if (old)
		unusable(m, old);
	r = &m->recs[m->nrecs];
	r->off = (uint32_t)m->first_free;
	r->size = (uint32_t)size;
	r->he = (uint32_t)he_off;
	r->next = m->own[bucket];
	r->expires = expires;
	r->ttl = ttl;
	r->type = (uint8_t)type;
	r->reloads = reloads;
	r->live = true;
	r->refreshing = false;
	m->own[bucket] = (int32_t)m->nrecs++;
	m->first_free += size;
	m->head->first_free = (int32_t)m->first_free;
	m->live++;
	m->head->nentries = (int32_t)m->live;
	if (m->head->maxnentries < (int32_t)m->live)
		m->head->maxnentries = (int32_t)m->live;
	m->st.published++;
	return 0;
}

int
nscdmap_get(struct nscdmap *m, int32_t type, const void *key, size_t key_len,
    int64_t now, const uint8_t **ret, size_t *ret_len, uint32_t *ret_ttl_left)
{
	struct rec		*r;
	struct nscd_datahead	*dh;

	if (key_len == 0 || key_len > NSCD_KEY_MAX)
		return -ENOENT;
	nscdmap_drop_left(m);
	r = find(m, nscd_hash(key, key_len) % m->module, type, key, key_len);
	if (r == NULL || (r->expires != NSCDMAP_FOREVER && r->expires <= now))
		return -ENOENT;
	dh = dh_at(m, r->off);
	r->reloads = 0;		/* a client asked */
	*ret = dh->data;
	*ret_len = (size_t)dh->recsize;
	if (ret_ttl_left)
		*ret_ttl_left = r->expires == NSCDMAP_FOREVER ? UINT32_MAX :
		    (uint32_t)((r->expires - now + 999) / 1000);
	return 0;
}

size_t
nscdmap_walk(struct nscdmap *m, size_t from, nscdmap_walk_fn *fn, void *arg,
    int64_t now)
{
	size_t i;

	nscdmap_drop_left(m);
	for (i = from; i < m->nrecs; i++) {
		struct rec		*r = &m->recs[i];
		struct nscd_hashentry	*he;
		struct nscd_datahead	*dh;

		if (!r->live)
			continue;
		he = he_at(m, r->he);
		dh = dh_at(m, r->off);
		if (!fn(arg, r->type, m->data + he->key, (size_t)he->len, dh->data,
		    (size_t)dh->recsize, r->expires == NSCDMAP_FOREVER ? UINT32_MAX :
		    r->expires <= now ? 0 : (uint32_t)((r->expires - now + 999) / 1000)))
			return i;
	}
	return 0;
}

static bool
name_key_matches(const struct nscdmap *m, const struct rec *r, const char *name,
    size_t len)
{
	const struct nscd_hashentry *he = he_at(m, r->he);

	/* A name's keys carry their NUL; a trailing dot is the same name. */
	if (r->type != NSCD_GETAI && r->type != NSCD_GETHOSTBYNAME &&
	    r->type != NSCD_GETHOSTBYNAMEv6)
		return false;
	size_t klen = (size_t)he->len - 1;
	const char *k = (const char *)m->data + he->key;

	if (klen > 0 && k[klen - 1] == '.')
		klen--;
	if (len > 0 && name[len - 1] == '.')
		len--;
	return klen == len && name_eq_fold(k, name, len);
}

int
nscdmap_retire_name(struct nscdmap *m, const char *name, size_t len)
{
	size_t	i;
	int	n = 0;

	nscdmap_drop_left(m);
	for (i = 0; i < m->nrecs; i++)
		if (m->recs[i].live && name_key_matches(m, &m->recs[i], name, len)) {
			unusable(m, &m->recs[i]);
			n++;
		}
	return n;
}

void
nscdmap_reset(struct nscdmap *m)
{
	gc_begin(m);
	wipe(m);
	gc_end(m);
	m->left = false;
	m->st.resets++;
}

void
nscdmap_drop_left(struct nscdmap *m)
{
	if (m->left) {
		nscdmap_reset(m);
		m->st.resets--;		/* the start's own emptying */
	}
}

/* Indexes bucket b's record at he_off if whole, as put writes it: 1, 0 (not usable), -EBADMSG. */
static int
take_one(struct nscdmap *m, uint32_t b, uint32_t he_off, int64_t now, uint64_t wall)
{
	const struct nscd_hashentry	*he;
	struct nscd_datahead		*dh;
	struct rec			*r;
	size_t				 size;
	uint32_t			 off;

	if (he_off % REC_ALIGN != 0 || (size_t)he_off + sizeof(*he) > m->first_free)
		return -EBADMSG;
	he = he_at(m, he_off);
	off = he->packet;
	if (he->len <= 0 || he->len > NSCD_KEY_MAX || off % REC_ALIGN != 0 ||
	    (size_t)off + sizeof(*dh) > he_off)
		return -EBADMSG;
	dh = dh_at(m, off);
	if (dh->recsize < 0 || (size_t)dh->recsize > m->first_free)
		return -EBADMSG;
	size = rec_size((size_t)he->len, (size_t)dh->recsize);
	if ((size_t)off + size != (size_t)he_off + sizeof(*he) ||
	    (size_t)dh->allocsize != size || he->key != off + ((sizeof(*dh) +
	    (size_t)dh->recsize + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1)) ||
	    nscd_hash(m->data + he->key, (size_t)he->len) % m->module != b)
		return -EBADMSG;
	if (!dh->usable)
		return 0;
	/* Expired meanwhile, or a newer record of its key came first: unusable. */
	if ((dh->timeout <= wall && dh->timeout != UINT64_MAX / 2) ||
	    find(m, b, he->type, m->data + he->key, (size_t)he->len) != NULL) {
		__atomic_store_n(&dh->usable, 0, __ATOMIC_RELEASE);
		m->st.swept++;
		return 0;
	}
	if (recs_room(m) < 0)
		return -ENOMEM;
	r = &m->recs[m->nrecs];
	memset(r, 0, sizeof(*r));
	r->off = off;
	r->size = (uint32_t)size;
	r->he = he_off;
	r->next = m->own[b];
	r->expires = dh->timeout == UINT64_MAX / 2 ? NSCDMAP_FOREVER :
	    now + (int64_t)(dh->timeout - wall) * 1000;
	r->ttl = dh->ttl;
	r->type = he->type;
	r->reloads = dh->nreloads;
	r->live = true;
	m->own[b] = (int32_t)m->nrecs++;
	m->live++;
	return 1;
}

int
nscdmap_take_over(struct nscdmap *m, int64_t now)
{
	uint64_t	wall = (uint64_t)wall_now();
	uint32_t	b, he_off, last;
	size_t		seen = 0;
	int		r = 0;

	if (!m->left)
		return 0;
	m->left = false;
	wipe_index(m);
	m->first_free = (size_t)m->head->first_free;
	if (m->head->first_free < 0 || m->first_free > m->size ||
	    m->first_free % REC_ALIGN != 0)
		r = -EBADMSG;
	/* Each chain runs from the newest record to older ones: offsets go down. */
	for (b = 0; b < m->module && r >= 0; b++) {
		last = UINT32_MAX;
		he_off = m->head->array[b];
		while (he_off != NSCD_ENDREF && r >= 0) {
			if (he_off >= last || ++seen > m->first_free / sizeof(struct
			    nscd_hashentry))
				r = -EBADMSG;
			else if ((r = take_one(m, b, he_off, now, wall)) >= 0) {
				last = he_off;
				he_off = he_at(m, he_off)->next;	/* checked */
			}
		}
	}
	if (r < 0) {
		nscdmap_reset(m);
		m->st.resets--;
		return r;
	}
	m->head->nentries = (int32_t)m->live;
	if (m->head->gc_cycle & 1)
		gc_end(m);	/* left odd by a stop: readable again */
	m->st.taken_over = m->live;
	return (int)m->live;
}

uint64_t
nscdmap_left_stamp(const struct nscdmap *m)
{
	return m->left ? m->left_stamp : 0;
}

void
nscdmap_tick(struct nscdmap *m, int64_t now)
{
	struct { int32_t type; size_t len; uint8_t key[NSCD_KEY_MAX]; } *due = NULL;
	struct timespec	 t0, t1;
	size_t		 i, ndue = 0;
	uint64_t	 usec;

	nscdmap_drop_left(m);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	m->head->timestamp = (uint64_t)wall_now();
	for (i = 0; i < m->nrecs; i++) {
		struct rec *r = &m->recs[i];

		if (!r->live || r->expires == NSCDMAP_FOREVER)
			continue;
		if (r->expires <= now) {
			unusable(m, r);
			m->st.swept++;
			continue;
		}
		/*
		 * In the last tenth of its lifetime (the cache's rule), or its
		 * last TICK_WINDOW: the refresh walk asks upstream.
		 */
		if (m->refresh && !r->refreshing && r->reloads < m->reloads &&
		    ttl_refresh_due((r->expires - now) * TTL_NS_PER_MS, r->ttl,
		    TICK_WINDOW_NS) && ndue < NSCDMAP_REFRESH_MAX) {
			struct nscd_hashentry *he = he_at(m, r->he);

			if (due == NULL &&
			    (due = malloc(NSCDMAP_REFRESH_MAX * sizeof(*due))) == NULL)
				continue;
			r->refreshing = true;
			r->reloads++;
			due[ndue].type = r->type;
			due[ndue].len = (size_t)he->len;
			memcpy(due[ndue].key, m->data + he->key, (size_t)he->len);
			ndue++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	usec = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000 +
	    (uint64_t)(t1.tv_nsec - t0.tv_nsec) / 1000;
	if (usec > m->st.sweep_max_usec)
		m->st.sweep_max_usec = usec;
	/* After the walk: a refresh may publish, and move the index. */
	for (i = 0; i < ndue; i++) {
		m->st.refreshes++;
		m->refresh(m->refresh_arg, due[i].type, due[i].key, due[i].len);
	}
	free(due);
}

void
nscdmap_netlink_changed(struct nscdmap *m)
{
	uint32_t n = m->head->extra_data[0] + 1;

	__atomic_store_n(&m->head->extra_data[0], n ? n : 1, __ATOMIC_RELEASE);
}

void
nscdmap_get_stats(const struct nscdmap *m, struct nscdmap_stats *ret)
{
	*ret = m->st;
	ret->entries = m->live;
	ret->module = m->module;
	ret->nl_counter = m->head->extra_data[0];
	ret->used = m->first_free;
	ret->size = m->size;
	ret->max = m->max;
}
