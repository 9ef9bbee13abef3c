/* SPDX-License-Identifier: MIT */
/* client-lib/shared.c - answers from the daemon's shared segment, without a system call. */

/*
 * The mapping's lifetime, across the threads of one process.  A handful of
 * mapping descriptors live in a static array and are never freed; `current'
 * points at the one in use.  A reader
 *
 *	1. loads current,
 *	2. adds one to that descriptor's user count,
 *	3. checks current still points at it (else: takes the one back, retries),
 *	4. reads the segment, and takes its one back when done.
 *
 * Remapping (under a mutex, a few times in a process's life) maps the new
 * file, points current at a free descriptor, and unmaps descriptors that
 * are not current and have no users.  A reader between steps 1 and 3 on a
 * descriptor being unmapped or reused fails step 3 (or finds the new
 * mapping, which is then current and safe), so no thread ever reads a
 * mapping that is gone.  Users counts are only ever added to and taken
 * from by readers, never stored, so a count cannot be lost.
 *
 * Why step 3 and the sweep need sequentially consistent order (issue 12):
 * the reader stores (its add to users) and then loads (current); the
 * remapper stores (current) and then loads (users).  That is Dekker's
 * pattern.  Release and acquire order each side's own accesses but allow
 * both loads to see the old values: on x86 a store waits in the store
 * buffer while a later load runs, so the remapper can read users == 0
 * before its new current is visible, while the reader, whose add already
 * landed, still reads the old current, passes step 3, and reads a mapping
 * the remapper is unmapping.  With the four accesses seq_cst (the add a
 * locked instruction, the store an xchg on x86) they fall in one total
 * order: either the remapper's load of users comes after the reader's add
 * (it sees the user and keeps the mapping), or the reader's load of
 * current comes after the remapper's store (it sees the new current and
 * lets go).  tests/shared/remap-race.c counts the held mappings that were
 * unmapped: dozens in seconds with acquire/release, none with this.
 *
 * A hit is an atomic add, a few loads, clock_gettime (vDSO) and an atomic
 * subtract: no system call, no lock.  Failures to open are retried at most
 * once a second, so a host without the daemon does not pay for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "shared.h"
#include "shmfmt.h"
#include "ttl.h"

#define NMAPS		8
#define RETRY_NS	1000000000LL

/*
 * A mapping descriptor.  Every field but users is written only while the
 * descriptor is not current and has no users (under lock), so a reader
 * that holds it reads them without further care.
 */
struct map {
	void		*base;
	size_t		 len;
	long		 users;		/* atomic */
	struct shm_view	 view;		/* what shm_view_init checked, once */
	char		 path[128];	/* the segment's */
	char		 sock[128];	/* the socket path it was mapped for, or "" */
#ifdef NCC_SHARED_TESTING
	unsigned long unmaps;	/* atomic: times this descriptor was unmapped */
#endif
};

static struct map	 maps[NMAPS];
static struct map	*current;	/* atomic */
static int64_t		 retry_at;	/* atomic: no open before this */
static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t	 once = PTHREAD_ONCE_INIT;

#ifdef NCC_SHARED_TESTING
static int64_t		 test_clock;	/* atomic: the reader's time, or 0 */
#endif

static int64_t
now_ns(void)
{
	struct timespec ts;

#ifdef NCC_SHARED_TESTING
	int64_t t = __atomic_load_n(&test_clock, __ATOMIC_RELAXED);

	if (t != 0)
		return t;
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* In the child: the only thread left is not reading. */
static void
atfork_child(void)
{
	int i;

	pthread_mutex_init(&lock, NULL);
	for (i = 0; i < NMAPS; i++)
		maps[i].users = 0;
}

static void
init_once(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

/*
 * Whether m is the segment beside the socket at sockpath.  The socket path
 * it was mapped for answers at once; any other (another name in the same
 * folder) is turned into the segment's path and compared, so that a hit
 * does not build the path on every call.
 */
static bool
same_segment(const struct map *m, const char *sockpath)
{
	char path[128];

	if (m->sock[0] != '\0' && strcmp(m->sock, sockpath) == 0)
		return true;
	return shm_path(sockpath, path, sizeof(path)) == 0 &&
	    strcmp(m->path, path) == 0;
}

/*
 * The segment beside sockpath, live, beating, and on our clock: a beat more
 * than 2 s in our future means this process runs in a time namespace
 * behind the daemon's, where every expiry would look later than it is (one
 * ahead sees a stale beat).  Such a process asks the socket.
 */
static inline bool
usable(const struct map *m, const char *sockpath, int64_t now)
{
	const struct shm_header *h = m->base;
	int64_t age;

	if (!same_segment(m, sockpath) ||
	    __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != SHM_LIVE)
		return false;
	age = now - __atomic_load_n(&h->heartbeat_ns, __ATOMIC_ACQUIRE);
	return age < SHM_STALE_NS && age > -2000000000LL;
}

static void
put(struct map *m)
{
	__atomic_sub_fetch(&m->users, 1, __ATOMIC_RELEASE);
}

/* Under lock: unmaps what no thread uses and is not current. */
static void
sweep(const struct map *keep)
{
	int i;

	for (i = 0; i < NMAPS; i++) {
		struct map *m = &maps[i];

		/* seq_cst: after the store of current (see above). */
		if (m == keep || m->base == NULL ||
		    __atomic_load_n(&m->users, __ATOMIC_SEQ_CST) != 0)
			continue;
#ifdef NCC_SHARED_TESTING
		__atomic_add_fetch(&m->unmaps, 1, __ATOMIC_SEQ_CST);
#endif
		munmap(m->base, m->len);
		m->base = NULL;
		m->path[0] = '\0';
		m->sock[0] = '\0';
	}
}

/*
 * Maps the segment beside the socket at sockpath and makes it current.
 * Returns false when it cannot be used (and then nothing is tried again
 * for a second).
 */
static bool remap_(const char *sockpath, int64_t now, bool force);

static bool
remap(const char *sockpath, int64_t now)
{
	return remap_(sockpath, now, false);
}

#ifdef NCC_SHARED_TESTING
static bool
force_remap(const char *sockpath, int64_t now)
{
	return remap_(sockpath, now, true);
}
#endif

static bool
remap_(const char *sockpath, int64_t now, bool force)
{
	struct map	*m, *cur;
	struct shm_view	 view;
	struct stat	 st;
	char		 path[128];
	void		*base;
	int		 fd, i, saved = errno;
	bool		 ok = false;

	/* A socket path with no segment beside it: no segment, and no wait. */
	if (shm_path(sockpath, path, sizeof(path)) < 0 ||
	    now < __atomic_load_n(&retry_at, __ATOMIC_RELAXED))
		return false;
	/* Before the first lock: the child of a fork must find it unlocked. */
	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	cur = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	if (cur && !force && usable(cur, sockpath, now)) {
		pthread_mutex_unlock(&lock);
		return true;		/* another thread did it */
	}
	__atomic_store_n(&retry_at, now + RETRY_NS, __ATOMIC_RELAXED);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		goto done;
	/* Ours: a regular file that nobody but its owner may write. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < SHM_HEADER_SIZE ||
	    (base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0)) ==
	    MAP_FAILED) {
		close(fd);
		goto done;
	}
	close(fd);
	if (shm_view_init(base, (size_t)st.st_size, &view) < 0) {
		munmap(base, (size_t)st.st_size);
		goto done;
	}
	sweep(cur);
	for (m = NULL, i = 0; i < NMAPS && m == NULL; i++)
		if (maps[i].base == NULL)
			m = &maps[i];
	if (m == NULL) {
		/* Every descriptor still read by some thread: try later. */
		munmap(base, (size_t)st.st_size);
		goto done;
	}
	m->base = base;
	m->len = (size_t)st.st_size;
	m->view = view;
	memcpy(m->path, path, strlen(path) + 1);
	if (strlen(sockpath) < sizeof(m->sock))
		memcpy(m->sock, sockpath, strlen(sockpath) + 1);
	else
		m->sock[0] = '\0';	/* same_segment builds the path */
	/* seq_cst: before the sweep's loads of users (see above). */
	__atomic_store_n(&current, m, __ATOMIC_SEQ_CST);
	sweep(m);
	ok = usable(m, sockpath, now);
	if (ok)
		__atomic_store_n(&retry_at, 0, __ATOMIC_RELAXED);
done:
	pthread_mutex_unlock(&lock);
	errno = saved;		/* the only system calls of a lookup */
	return ok;
}

/* The current mapping of the segment beside sockpath, held (steps 1 to 3 above), or NULL. */
static inline struct map *
get(const char *sockpath, int64_t now)
{
	struct map	*m;
	int		 tries;

	for (tries = 0; tries < 4; tries++) {
		m = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
		if (m == NULL) {
			if (!remap(sockpath, now))
				return NULL;
			continue;
		}
#ifdef NCC_SHARED_TESTING
		/* Widen the window: a reader that has read current and not yet
		 * added itself is what a sweep must never miss. */
		{
			static __thread unsigned x = 1;
			unsigned n;

			x = x * 1103515245 + 12345;
			for (n = (x >> 16) & 63; n > 0; n--)
#if defined(__x86_64__) || defined(__i386__)
				__asm__ volatile("pause");
#else
				__asm__ volatile("" ::: "memory");
#endif
		}
#endif
		/* seq_cst, both: Dekker's pattern with remap (see above). */
		__atomic_add_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&current, __ATOMIC_SEQ_CST) != m) {
			put(m);
			continue;
		}
		if (usable(m, sockpath, now))
			return m;
		put(m);
		if (!remap(sockpath, now))
			return NULL;
	}
	return NULL;
}

int
ncc_shared_lookup(const char *sockpath, uint8_t kind, uint8_t family,
    const void *key, size_t key_len, struct ncc_shared_hit *ret)
{
	const struct shm_rec	*r;
	const uint8_t		*body;
	struct map		*m;
	int64_t			 now, left;
	uint32_t		 body_len;

	/* errno: only remap makes system calls, and it keeps errno. */
	now = now_ns();
	if ((m = get(sockpath, now)) == NULL)
		return 0;
	r = shm_view_find(&m->view, kind, family, key, key_len, &body, &body_len);
	left = r ? r->expires_ns - now : 0;
	/*
	 * Expired, or in the last 10% of its TTL (the daemon's cache's rule):
	 * the socket answers, and the daemon refreshes it (so popular names
	 * never expire for readers).
	 */
	if (r == NULL || left <= 0 || (r->expires_ns != SHM_FOREVER &&
	    ttl_refresh_due(left, r->ttl, 0))) {
		put(m);
		return 0;
	}
	ret->map = m;
#ifdef NCC_SHARED_TESTING
	ret->unmaps = __atomic_load_n(&m->unmaps, __ATOMIC_SEQ_CST);
#endif
	ret->status = r->status;
	ret->body = body;
	ret->body_len = body_len;
	ret->ttl_left = r->expires_ns == SHM_FOREVER ? 0 :
	    (uint32_t)((left + 999999999) / 1000000000);
	return 1;
}

#ifdef NCC_SHARED_TESTING
static unsigned long held_unmapped;

/*
 * Maps the segment again and makes the new mapping current, as remap does
 * when the daemon replaces the file: the remap-race test calls it in a
 * loop, thousands of times a second, to widen the window.
 */
int
ncc_shared_test_remap(const char *sockpath)
{
	int64_t	now = now_ns();

	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	__atomic_store_n(&retry_at, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
	/* Not usable: remap maps the file anew. */
	return force_remap(sockpath, now);
}

unsigned long
ncc_shared_test_held_unmapped(void)
{
	return __atomic_load_n(&held_unmapped, __ATOMIC_SEQ_CST);
}

int64_t
ncc_shared_test_now(void)
{
	return now_ns();
}

void
ncc_shared_test_clock(int64_t at_ns)
{
	__atomic_store_n(&test_clock, at_ns, __ATOMIC_RELAXED);
}

int64_t
ncc_shared_test_retry_at(void)
{
	return __atomic_load_n(&retry_at, __ATOMIC_RELAXED);
}
#endif

void
ncc_shared_release(struct ncc_shared_hit *hit)
{
#ifdef NCC_SHARED_TESTING
	/* Unmapped while this hit held it: the race the seq_cst order closes. */
	if (hit->map && __atomic_load_n(&((struct map *)hit->map)->unmaps,
	    __ATOMIC_SEQ_CST) != hit->unmaps)
		__atomic_add_fetch(&held_unmapped, 1, __ATOMIC_SEQ_CST);
#endif
	if (hit->map)
		put(hit->map);
	hit->map = NULL;
}

int
ncc_shared_beat(const char *sockpath, int64_t *ret_beat, int64_t *ret_age)
{
	const struct shm_header	*h;
	struct map		*m;
	int64_t			 now, beat;
	int			 saved = errno, r = 0;

	now = now_ns();
	/* Even a stale segment: remap makes it current before it checks. */
	if (__atomic_load_n(&current, __ATOMIC_SEQ_CST) == NULL)
		remap(sockpath, now);
	if ((m = __atomic_load_n(&current, __ATOMIC_SEQ_CST)) == NULL)
		goto out;
	__atomic_add_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&current, __ATOMIC_SEQ_CST) == m &&
	    same_segment(m, sockpath)) {
		h = m->base;
		beat = __atomic_load_n(&h->heartbeat_ns, __ATOMIC_ACQUIRE);
		/* Stopped, for the next daemon: no beat to judge a hang by. */
		if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == SHM_LIVE &&
		    !__atomic_load_n(&h->stopped, __ATOMIC_ACQUIRE)) {
			*ret_beat = beat;
			*ret_age = now - beat;
			r = 1;
		}
	}
	put(m);
out:
	errno = saved;
	return r;
}

int
ncc_shared_netstamp(const char *sockpath, uint64_t ret_key[2])
{
	const struct shm_header	*h;
	struct map		*m;
	int64_t			 now;
	int			 saved = errno, r = 0;

	now = now_ns();
	if ((m = get(sockpath, now)) == NULL)
		goto out;
	h = m->base;
	ret_key[0] = h->generation;
	ret_key[1] = __atomic_load_n(&h->netlink, __ATOMIC_ACQUIRE);
	r = 1;
	put(m);
out:
	errno = saved;
	return r;
}

bool
ncc_shared_hung(const char *sockpath, int64_t now_ms, struct ncc_beat_watch *w)
{
	int64_t beat, age;

	if (!ncc_shared_beat(sockpath, &beat, &age))
		return false;
	if (age >= (int64_t)NCC_HUNG_MS * 1000000 && age < 60LL * 1000000000)
		return true;
	if (w->since_ms == 0 || beat != w->beat) {
		w->beat = beat;
		w->since_ms = now_ms;
		return false;
	}
	return now_ms - w->since_ms >= NCC_HUNG_MS;
}

int
ncc_shared_answer(const char *sockpath, uint8_t kind, uint8_t family,
    const void *key, size_t key_len, struct ncc_shared_hit *ret,
    struct proto_answer *ret_ans)
{
	if (!ncc_shared_lookup(sockpath, kind, family, key, key_len, ret))
		return 0;
	switch (ret->status) {
	case PROTO_OK:
		if (proto_answer_decode(ret->body, ret->body_len, ret_ans) == 0) {
			ret_ans->ttl = ret->ttl_left;	/* counting down since then */
			return 1;
		}
		break;
	case PROTO_NOTFOUND:
	case PROTO_NODATA:
		return 1;
	}
	ncc_shared_release(ret);
	return 0;
}

void
ncc_shared_forget(void)
{
	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	__atomic_store_n(&current, NULL, __ATOMIC_SEQ_CST);
	sweep(NULL);
	__atomic_store_n(&retry_at, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
}
