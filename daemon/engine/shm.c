/* SPDX-License-Identifier: MIT */
/* daemon/engine/shm.c - publishes answers in the shared segment clients map (the writer). */

/*
 * The event loop is the only writer (proto/shmfmt.h has the format and
 * why readers never see a torn record).  A segment is written in a
 * temporary file beside the path and renamed over it, so a reader opening
 * the path always finds a whole segment; the one it replaces is then
 * marked retired.  The file is allocated whole (posix_fallocate), so a full
 * /run is an error when it is made, never a SIGBUS later.
 *
 * Making a segment takes time (3 ms at 16 MiB, 0.8 s at 4 GiB), so a
 * helper thread keeps one spare ready, and unmaps the ones resets retire:
 * a reset on the loop is a rename and a few stores.  When none is ready
 * (two resets in a row), the loop makes one itself, as before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "name.h"
#include "proto.h"
#include "registry.h"
#include "shm.h"
#include "shmfmt.h"

/* A new empty segment, whole but not yet in place: a file beside the path. */
struct spare {
	char		*tmp;
	uint8_t		*base;
	size_t		 len;
	uint64_t	 generation;
};

struct shm {
	char		*path;
	uint32_t	 nslots;
	size_t		 data_size;
	uint8_t		*base;		/* the live segment, mapped read-write */
	size_t		 len;
	size_t		 used;		/* bytes of the data area */
	bool		 dead;		/* base is retired: no segment to write */
	int64_t		 retry_ns;	/* when dead: no new try before this */
	struct shm_stats stats;
	/* The helper thread, and what it shares with the loop, under lock. */
	pthread_t	 thread;
	bool		 have_thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	bool		 stopping;
	bool		 spare_ready;
	bool		 spare_failed;	/* the helper could not: the loop tries */
	struct spare	 spare;		/* ready when spare_ready */
	struct spare	 old;		/* retired, for the helper to unmap */
	int64_t		 reset_max_ns;	/* the longest reset on the loop */
};

static struct shm_header *
hdr(const struct shm *s)
{
	return (struct shm_header *)(void *)s->base;
}

static void
retire(uint8_t *base)
{
	__atomic_store_n(&((struct shm_header *)(void *)base)->state, SHM_RETIRED,
	    __ATOMIC_RELEASE);
}

/*
 * The spares a daemon that was killed left beside the path ("cache.XXXXXX",
 * mkostemp's): never renamed into place, read by nobody.
 */
static void
remove_spares(const char *path)
{
	const char	*slash = strrchr(path, '/');
	char		*dir;
	size_t		 blen;
	DIR		*d;
	struct dirent	*e;

	if (slash == NULL || (dir = strndup(path, (size_t)(slash - path) + 1)) == NULL)
		return;
	blen = strlen(slash + 1);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strlen(e->d_name) == blen + 7 &&
			    strncmp(e->d_name, slash + 1, blen) == 0 &&
			    e->d_name[blen] == '.')
				unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	}
	free(dir);
}

/* A previous daemon's segment: tell its readers to look again, at once. */
void
shm_retire_file(const char *path)
{
	struct stat	 st;
	void		*p;
	int		 fd;

	if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size >= SHM_HEADER_SIZE &&
	    (p = mmap(NULL, SHM_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0)) != MAP_FAILED) {
		if (((struct shm_header *)p)->magic == SHM_MAGIC)
			retire(p);
		munmap(p, SHM_HEADER_SIZE);
	}
	close(fd);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* No new segment: readers must not go on with answers a reset was to remove. */
static int
failed(struct shm *s, int r)
{
	if (s->base && !s->dead)
		retire(s->base);
	s->dead = true;
	s->retry_ns = now_ns() + 1000000000;
	s->stats.failures++;
	return r;
}

static void
spare_drop(struct spare *sp)
{
	if (sp->base)
		munmap(sp->base, sp->len);
	if (sp->tmp) {
		unlink(sp->tmp);
		free(sp->tmp);
	}
	memset(sp, 0, sizeof(*sp));
}

/*
 * Writes a new empty segment in a temporary file beside the path: the part
 * of a reset that takes time (posix_fallocate of the whole file: about 3 ms
 * at 16 MiB, 0.8 s at 4 GiB), which the helper thread does ahead of need.
 * Touches nothing of s but its sizes and path.  Returns 0 or -errno.
 */
static int
prepare(const struct shm *s, struct spare *ret)
{
	struct shm_header	*h;
	struct spare		 sp = { NULL, NULL, 0, 0 };
	size_t			 slots_off = SHM_HEADER_SIZE;
	size_t			 data_off = (slots_off + (size_t)s->nslots * 8 + 4095) & ~(size_t)4095;
	size_t			 len = data_off + s->data_size;
	uint8_t			*base;
	int			 fd, r;

	if (asprintf(&sp.tmp, "%s.XXXXXX", s->path) < 0)
		return -ENOMEM;
	if ((fd = mkostemp(sp.tmp, O_CLOEXEC)) < 0) {
		r = -errno;
		free(sp.tmp);
		return r;
	}
	/*
	 * Readable by every client, as nscd's database is; written by us
	 * only.  Every page allocated now: on a full tmpfs a write to a hole
	 * of a shared mapping is a SIGBUS.
	 */
	if (fchmod(fd, 0644) < 0) {
		r = -errno;
		goto fail;
	}
	if ((r = posix_fallocate(fd, 0, (off_t)len)) != 0) {
		r = -r;
		goto fail;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	close(fd);
	h = (struct shm_header *)(void *)base;
	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->header_size = SHM_HEADER_SIZE;
	h->file_size = len;
	h->nslots = s->nslots;
	h->slots_off = slots_off;
	h->data_off = data_off;
	h->data_size = s->data_size;
	h->heartbeat_ns = now_ns();
	h->state = SHM_LIVE;
	if (getrandom(h->key, sizeof(h->key), GRND_NONBLOCK) != sizeof(h->key) ||
	    getrandom(&h->generation, sizeof(h->generation), GRND_NONBLOCK) !=
	    sizeof(h->generation)) {
		h->key[0] = (uint64_t)now_ns() ^ (uint64_t)(uintptr_t)base;
		h->key[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
		h->generation = (uint64_t)now_ns();
	}
	sp.base = base;
	sp.len = len;
	sp.generation = h->generation;
	*ret = sp;
	return 0;
fail:
	close(fd);
	unlink(sp.tmp);
	free(sp.tmp);
	return r;
}

/*
 * Puts a prepared segment in place: a rename and a few stores, on the
 * loop.  The old mapping is left for the helper to unmap (old, when set).
 */
static int
install(struct shm *s, struct spare *sp, struct spare *old)
{
	struct shm_header *h = (struct shm_header *)(void *)sp->base;

	/* Beats from now on, as the one it replaces did. */
	__atomic_store_n(&h->heartbeat_ns, s->base && !s->dead ?
	    __atomic_load_n(&hdr(s)->heartbeat_ns, __ATOMIC_RELAXED) : now_ns(),
	    __ATOMIC_RELEASE);
	if (rename(sp->tmp, s->path) < 0) {
		int r = -errno;

		spare_drop(sp);
		return failed(s, r);
	}
	free(sp->tmp);
	sp->tmp = NULL;
	if (s->base) {
		retire(s->base);
		if (old) {
			old->base = s->base;
			old->len = s->len;
		} else
			munmap(s->base, s->len);
	}
	s->base = sp->base;
	s->len = sp->len;
	s->used = 0;
	s->dead = false;
	s->stats.generation = sp->generation;
	sp->base = NULL;
	return 0;
}

/* Writes a new empty segment and renames it over the path, at once. */
static int
make_segment(struct shm *s)
{
	struct spare	sp;
	int		r;

	if ((r = prepare(s, &sp)) < 0)
		return failed(s, r);
	return install(s, &sp, NULL);
}

/*
 * The helper thread: keeps one spare segment ready, and unmaps the
 * segments resets retire, so that a reset on the loop is a rename.
 */
static void *
helper(void *arg)
{
	struct shm	*s = arg;
	struct spare	 sp, old;
	sigset_t	 all;
	int		 r;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stopping && (s->spare_ready || s->spare_failed) &&
		    s->old.base == NULL)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stopping)
			break;
		old = s->old;
		memset(&s->old, 0, sizeof(s->old));
		pthread_mutex_unlock(&s->lock);
		if (old.base)
			munmap(old.base, old.len);
		r = -EAGAIN;
		pthread_mutex_lock(&s->lock);
		if (!s->spare_ready && !s->spare_failed) {
			pthread_mutex_unlock(&s->lock);
			r = prepare(s, &sp);
			pthread_mutex_lock(&s->lock);
			if (r == 0) {
				s->spare = sp;
				s->spare_ready = true;
			} else
				s->spare_failed = true;	/* the loop does it, and reports */
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

void
shm_sizes(unsigned cache_size, size_t max_bytes, uint32_t *ret_nslots,
    size_t *ret_data_size)
{
	size_t	data = (size_t)cache_size * 512 + (1u << 20);
	size_t	want = (size_t)cache_size * 4, n = 1024;

	if (want > data / 64)
		want = data / 64;
	while (n < want && n < (1u << 30))
		n <<= 1;
	/*
	 * Over the bound: the slots a power of two of at most one per 40
	 * bytes of it (half taken when the records are 100 bytes or so, each
	 * with its slot), and the records the rest.
	 */
	if (SHM_HEADER_SIZE + 4096 + n * 8 + data > max_bytes) {
		for (n = 1024; n * 2 <= max_bytes / 40 && n < (1u << 30); n <<= 1)
			;
		data = max_bytes > n * 8 + 8192 ?
		    (max_bytes - n * 8 - 8192) & ~(size_t)4095 : 4096;
	}
	*ret_nslots = (uint32_t)n;
	*ret_data_size = data;
}

struct shm *
shm_new(const char *path, uint32_t nslots, size_t data_size)
{
	struct shm	*s;
	uint32_t	 n = 1024;
	int		 r;

	while (n < nslots && n < (1u << 30))
		n <<= 1;
	if ((s = calloc(1, sizeof(*s))) == NULL || (s->path = strdup(path)) == NULL) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->nslots = n;
	s->data_size = (data_size + 4095) & ~(size_t)4095;
	shm_retire_file(path);
	remove_spares(path);
	if ((r = make_segment(s)) < 0) {
		free(s->path);
		free(s);
		errno = -r;
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	/* Without the helper, resets are made on the loop, as before. */
	s->have_thread = pthread_create(&s->thread, NULL, helper, s) == 0;
	return s;
}

void
shm_free(struct shm *s, enum shm_leave leave)
{
	if (s == NULL)
		return;
	if (s->have_thread) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
		spare_drop(&s->spare);
		if (s->old.base)
			munmap(s->old.base, s->old.len);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	if (s->base) {
		/* Left live: readers have SHM_STALE_NS from now, for the next daemon. */
		if (leave == SHM_LEAVE_LIVE) {
			__atomic_store_n(&hdr(s)->stopped, 1, __ATOMIC_RELEASE);
			shm_heartbeat(s, now_ns());
		} else
			retire(s->base);
		munmap(s->base, s->len);
	}
	if (leave == SHM_LEAVE_GONE)
		unlink(s->path);
	free(s->path);
	free(s);
}

int
shm_reset(struct shm *s)
{
	struct spare	sp;
	int64_t		t0 = now_ns(), dt;
	int		r;
	bool		ready = false;

	s->stats.resets++;
	if (s->have_thread) {
		pthread_mutex_lock(&s->lock);
		/* The helper has yet to unmap the last one: it takes this too. */
		if (s->spare_ready && s->old.base == NULL) {
			sp = s->spare;
			memset(&s->spare, 0, sizeof(s->spare));
			s->spare_ready = false;
			ready = true;
		}
		s->spare_failed = false;
		pthread_mutex_unlock(&s->lock);
	}
	if (ready) {
		struct spare old = { NULL, NULL, 0, 0 };

		r = install(s, &sp, &old);
		s->stats.resets_ahead += r == 0;
		pthread_mutex_lock(&s->lock);
		s->old = old;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
	} else {
		r = make_segment(s);
		if (s->have_thread) {
			pthread_mutex_lock(&s->lock);
			pthread_cond_signal(&s->cond);
			pthread_mutex_unlock(&s->lock);
		}
	}
	if ((dt = now_ns() - t0) > s->reset_max_ns)
		s->reset_max_ns = dt;
	s->stats.reset_max_usec = (uint64_t)(s->reset_max_ns / 1000);
	s->stats.reset_last_usec = (uint64_t)(dt / 1000);
	return r;
}

/*
 * The record a new one replaces: the same address, or the same name in
 * any spelling.  One record per case-folded name, whatever either's
 * SHM_EXACT says, so that a reader's probe can meet only one record that
 * may answer it: an old one, expired or spelled otherwise, never hides
 * the new one further along.
 */
static bool
same_key(const struct shm_rec *r, uint8_t kind, uint8_t family, const void *key,
    size_t key_len)
{
	if (r->kind != kind || r->family != family || r->key_len != key_len)
		return false;
	if (kind != SHM_NAME)
		return memcmp(shm_rec_key(r), key, key_len) == 0;
	return name_eq_fold(shm_rec_key(r), key, key_len);
}

int
shm_put(struct shm *s, uint8_t kind, uint8_t family, const void *key,
    size_t key_len, bool exact, uint8_t status, int64_t expires_ns, uint32_t ttl,
    const void *body, size_t body_len)
{
	struct shm_header	*h;
	uint64_t		*slots;
	uint8_t			*data;
	size_t			 need = shm_rec_size(key_len, body_len);
	struct shm_rec		*r;
	uint64_t		 hash, v, i, pos = UINT64_MAX;

	if (key_len > UINT16_MAX || body_len > UINT32_MAX || need > s->data_size / 4)
		return -E2BIG;
	if (s->dead && (now_ns() < s->retry_ns || make_segment(s) < 0))
		return -ENOSPC;
	h = hdr(s);
	slots = (uint64_t *)(void *)(s->base + h->slots_off);
	data = s->base + h->data_off;
	hash = shm_key_hash(h->key, kind, family, key, key_len);
	for (i = 0; i < SHM_MAX_PROBE; i++) {
		uint64_t at = (hash + i) & (h->nslots - 1);

		v = slots[at];
		if (v == 0 || (v & 0xffffff) != ((hash >> 40) & 0xffffff)) {
			if (v == 0) {
				pos = at;
				break;
			}
			continue;
		}
		r = (struct shm_rec *)(void *)(data + (v >> 24) * 8);
		if (same_key(r, kind, family, key, key_len)) {
			/* The same answer, live already: nothing to append. */
			if (r->status == status && r->expires_ns == expires_ns &&
			    r->body_len == body_len && r->key_len == key_len &&
			    (r->flags & SHM_EXACT) == (exact ? SHM_EXACT : 0) &&
			    memcmp(shm_rec_key(r), key, key_len) == 0 &&
			    memcmp(shm_rec_body(r), body, body_len) == 0)
				return 0;
			pos = at;	/* replace: the new record takes its slot */
			break;
		}
	}
	/* No room in the probe window, or in the data: start a new segment. */
	if (pos == UINT64_MAX || s->used + need > s->data_size) {
		s->stats.full++;
		if (shm_reset(s) < 0)
			return -ENOSPC;
		return shm_put(s, kind, family, key, key_len, exact, status,
		    expires_ns, ttl, body, body_len);
	}
	r = (struct shm_rec *)(void *)(data + s->used);
	memset(r, 0, need);
	r->rec_len = (uint32_t)need;
	r->body_len = (uint32_t)body_len;
	r->expires_ns = expires_ns;
	r->ttl = ttl;
	r->key_len = (uint16_t)key_len;
	r->kind = kind;
	r->family = family;
	r->status = status;
	r->flags = exact ? SHM_EXACT : 0;
	memcpy((uint8_t *)shm_rec_key(r), key, key_len);
	memcpy((uint8_t *)shm_rec_body(r), body, body_len);
	/* The record is whole before the slot points at it. */
	__atomic_store_n(&slots[pos], shm_slot(s->used, hash), __ATOMIC_RELEASE);
	s->used += need;
	s->stats.published++;
	return 0;
}

void
shm_heartbeat(struct shm *s, int64_t ns)
{
	__atomic_store_n(&hdr(s)->heartbeat_ns, ns, __ATOMIC_RELEASE);
}

void
shm_netlink_changed(struct shm *s)
{
	s->stats.netlink_changes++;
	if (s->base && !s->dead)
		__atomic_add_fetch(&hdr(s)->netlink, 1, __ATOMIC_RELEASE);
}

void
shm_get_stats(const struct shm *s, struct shm_stats *ret)
{
	*ret = s->stats;
	ret->dead = s->dead;
	ret->used = s->used;
	ret->size = s->data_size;
	ret->nslots = s->nslots;
}

void
shm_report(void *arg, struct registry_wr *wr)
{
	struct shm_stats ss;

	/* Keys are part of the protocol: add new ones, never rename. */
	shm_get_stats(arg, &ss);
	registry_counter(wr, "shared_published", ss.published,
	    "Answers published in the shared segment");
	registry_counter(wr, "shared_resets", ss.resets, NULL);
	registry_counter(wr, "shared_full", ss.full, NULL);
	registry_gauge(wr, "shared_used_bytes", ss.used,
	    "Bytes of answers in the shared segment");
	registry_counter(wr, "shared_failures", ss.failures, NULL);
	registry_gauge(wr, "shared_reset_max_usec", ss.reset_max_usec, NULL);
	registry_counter(wr, "shared_resets_ahead", ss.resets_ahead, NULL);
	registry_gauge(wr, "shared_reset_last_usec", ss.reset_last_usec, NULL);
	registry_counter(wr, "shared_netlink_changes", ss.netlink_changes, NULL);
}

int
shm_retire_name(struct shm *s, const char *name, size_t len)
{
	static const uint8_t	 fams[] = { PROTO_AF_UNSPEC, PROTO_AF_INET, PROTO_AF_INET6 };
	struct shm_header	*h;
	uint64_t		*slots, hash, v, i;
	uint8_t			*data;
	struct shm_rec		*r;
	size_t			 f;
	int			 n = 0;

	if (s->dead || s->base == NULL)
		return 0;
	h = hdr(s);
	slots = (uint64_t *)(void *)(s->base + h->slots_off);
	data = s->base + h->data_off;
	for (f = 0; f < sizeof(fams); f++) {
		hash = shm_key_hash(h->key, SHM_NAME, fams[f], name, len);
		for (i = 0; i < SHM_MAX_PROBE; i++) {
			v = __atomic_load_n(&slots[(hash + i) & (h->nslots - 1)],
			    __ATOMIC_RELAXED);
			if (v == 0)
				break;
			if ((v & 0xffffff) != ((hash >> 40) & 0xffffff))
				continue;
			r = (struct shm_rec *)(void *)(data + (v >> 24) * 8);
			if (!same_key(r, SHM_NAME, fams[f], name, len))
				continue;
			/*
			 * Expired from now on: a reader that loaded the old
			 * expiry a moment ago serves an answer that was good a
			 * moment ago; one that loads this asks the socket.
			 */
			__atomic_store_n(&r->expires_ns, 0, __ATOMIC_RELEASE);
			n++;
			break;
		}
	}
	return n;
}
