/* SPDX-License-Identifier: MIT */
/* client-lib/client.c - the blocking client core: connect, ask, read one reply. */

/*
 * A connection carries one request at a time here, so the only bytes that
 * can arrive are the reply to it: a connection whose call failed in any
 * way is closed, never pooled, so a late reply can't be mistaken for the
 * next one.  Pooled descriptors are checked with fstat before reuse: a
 * program may have closed all its descriptors and reused the number.
 *
 * The pool takes no lock: each slot is claimed with a compare-and-swap,
 * so a signal handler that looks a name up while its thread is inside the
 * pool cannot deadlock, and callers need not block signals.  A call is
 * send, poll, recv (and an fstat for a pooled connection): the reply of a
 * usual size arrives whole into a buffer in the reply itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "client.h"
#include "shared.h"

#define POOL_MAX	4

enum { SLOT_EMPTY, SLOT_BUSY, SLOT_FULL };

struct pooled {
	int	state;		/* atomic: SLOT_* */
	int	fd;
	dev_t	dev;
	ino_t	ino;
};

static pthread_once_t	pool_once = PTHREAD_ONCE_INIT;
static struct pooled	pool[POOL_MAX];
static uint32_t		last_id;

int64_t
ncc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * $NAMECACHE_SOCKET, read once per environment.  secure_getenv walks the
 * whole environment on every call (170 instructions in a login shell's, a
 * tenth of a shared-cache hit), so what it found is kept in a record, with
 * what it takes to tell that the environment is still the one it was read
 * from:
 *
 *   - environ still points at the same array, with the same number of
 *     entries and the same last one: setenv or putenv of a new name, which
 *     appends to the array or moves it, unsetenv, which shifts the entries
 *     after the one removed, and clearenv, which drops the array, each
 *     change one of these;
 *   - NAMECACHE_SOCKET's entry, if it had one, is the same string at the
 *     same place, with the same value: setenv of a new value puts another
 *     string there, and a string given to putenv may be changed in place.
 *
 * (Not seen: a series of such calls between two lookups that leaves all of
 * these as they were, say with NAMECACHE_SOCKET unset before: two names
 * unset, then NAMECACHE_SOCKET and the last of the two set again, glibc's
 * array reallocated in place, its length and last string as before; or a
 * program that writes into environ[] itself, or turns another name's
 * putenv string into this one.)
 * Under secure_getenv's rule (setuid, setgid, capabilities) the value is
 * never used: the record then holds the built-in path.
 *
 * A record is written once, published with release order, and never
 * changed or freed after, so a thread may use the path it was given while
 * another reads the environment anew; an environment seen before (a
 * program switching between two values) finds its record again.  A
 * process that has filled all NSOCKENV records reads the environment on
 * every call, as before.  No lock: a signal handler may look a name up.
 */
#define SOCKENV_NAME	"NAMECACHE_SOCKET"
#define SOCKENV_PREFIX	SOCKENV_NAME "="
#define NSOCKENV	8

struct sockenv {
	int		  ready;	/* atomic: written and published */
	char		**envp;		/* environ when it was read */
	size_t		  n;		/* its entries */
	const char	 *last;		/* envp[n - 1], or NULL */
	const char	 *entry;	/* the first "NAMECACHE_SOCKET=...", or NULL */
	size_t		  idx;		/* its index */
	char		  value[256];	/* the entry's value: "" when none */
	const char	 *path;		/* value, or the built-in path */
};

static struct sockenv	 sockenvs[NSOCKENV];
static struct sockenv	*sockenv_cur;	/* atomic */
static unsigned		 sockenv_used;	/* atomic: records claimed */
#ifdef NCC_CLIENT_TESTING
static unsigned		 sockenv_reads;	/* atomic: calls that read environ */
#endif

static bool
sockenv_valid(const struct sockenv *e)
{
	char **ep = environ;

	if (ep != e->envp)
		return false;
	if (ep == NULL)
		return true;
	if (ep[e->n] != NULL || (e->n > 0 && ep[e->n - 1] != e->last))
		return false;
	return e->entry == NULL || (ep[e->idx] == e->entry &&
	    strcmp(e->entry + sizeof(SOCKENV_PREFIX) - 1, e->value) == 0);
}

/* The same environment, read to the same path. */
static bool
sockenv_same(const struct sockenv *a, const struct sockenv *b, const char *path)
{
	return a->envp == b->envp && a->n == b->n && a->last == b->last &&
	    a->entry == b->entry && a->idx == b->idx &&
	    strcmp(a->value, b->value) == 0 &&
	    strcmp(a->path, path) == 0;
}

/* Reads the environment, and keeps what it found when it can. */
static const char *
sockenv_read(void)
{
	struct sockenv	 e, *r = NULL;
	const char	*v = secure_getenv(SOCKENV_NAME);
	const char	*path = v && *v ? v : NAMECACHE_SOCKET_PATH;
	const size_t	 plen = sizeof(SOCKENV_PREFIX) - 1;
	size_t		 i;
	unsigned	 n;

#ifdef NCC_CLIENT_TESTING
	__atomic_add_fetch(&sockenv_reads, 1, __ATOMIC_RELAXED);
#endif
	if (__atomic_load_n(&sockenv_used, __ATOMIC_RELAXED) >= NSOCKENV)
		return path;
	memset(&e, 0, sizeof(e));
	e.envp = environ;
	for (i = 0; e.envp && e.envp[i]; i++)
		if (e.entry == NULL && strncmp(e.envp[i], SOCKENV_PREFIX, plen) == 0) {
			e.entry = e.envp[i];
			e.idx = i;
		}
	e.n = i;
	e.last = i > 0 ? e.envp[i - 1] : NULL;
	if (e.entry) {
		/* Too long to keep, or changed while it was read: as it is. */
		if (strlen(e.entry + plen) >= sizeof(e.value) ||
		    (v != NULL && v != e.entry + plen))
			return path;
		/* v NULL: secure_getenv's rule, and the built-in path. */
		memcpy(e.value, e.entry + plen, strlen(e.entry + plen) + 1);
	} else if (v != NULL) {
		return path;
	}
	/* An environment seen before, or a record of its own. */
	n = __atomic_load_n(&sockenv_used, __ATOMIC_ACQUIRE);
	for (i = 0; i < n && i < NSOCKENV && r == NULL; i++)
		if (__atomic_load_n(&sockenvs[i].ready, __ATOMIC_ACQUIRE) &&
		    sockenv_same(&sockenvs[i], &e, path))
			r = &sockenvs[i];
	if (r == NULL) {
		n = __atomic_fetch_add(&sockenv_used, 1, __ATOMIC_RELAXED);
		if (n >= NSOCKENV)
			return path;
		r = &sockenvs[n];
		*r = e;
		r->path = path == v ? r->value : NAMECACHE_SOCKET_PATH;
		__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&sockenv_cur, r, __ATOMIC_RELEASE);
	return r->path;
}

const char *
ncc_socket_path(void)
{
	const struct sockenv *e = __atomic_load_n(&sockenv_cur, __ATOMIC_ACQUIRE);

	if (e && sockenv_valid(e))
		return e->path;
	return sockenv_read();
}

#ifdef NCC_CLIENT_TESTING
unsigned
ncc_socket_path_test_reads(void)
{
	return __atomic_load_n(&sockenv_reads, __ATOMIC_RELAXED);
}

/* Single-threaded tests only: paths handed out before are reused. */
void
ncc_socket_path_test_reset(void)
{
	memset(sockenvs, 0, sizeof(sockenvs));
	sockenv_cur = NULL;
	sockenv_used = 0;
}
#endif

uint32_t
ncc_next_id(void)
{
	return __atomic_add_fetch(&last_id, 1, __ATOMIC_RELAXED);
}

int
ncc_connect(const char *path, int *ret_fd)
{
	struct sockaddr_un	sun;
	int			fd, saved = errno, r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		errno = saved;
		return r;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		/* A Unix socket connects at once or not at all. */
		r = -errno;
		close(fd);
		errno = saved;
		return r;
	}
	*ret_fd = fd;
	errno = saved;
	return 0;
}

static int
wait_fd(int fd, short events, int64_t deadline_ms)
{
	struct pollfd	pfd = { .fd = fd, .events = events };
	int64_t		left;
	int		n;

	for (;;) {
		left = deadline_ms - ncc_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int
send_all(int fd, const uint8_t *p, size_t len, int64_t deadline_ms)
{
	ssize_t	n;
	int	r;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == EPIPE ? -ECONNRESET : -errno;
		if ((r = wait_fd(fd, POLLOUT, deadline_ms)) < 0)
			return r;
	}
	return 0;
}

/* Reads exactly len bytes. */
static int
recv_all(int fd, uint8_t *p, size_t len, int64_t deadline_ms)
{
	ssize_t	n;
	int	r;

	while (len > 0) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((r = wait_fd(fd, POLLIN, deadline_ms)) < 0)
			return r;
	}
	return 0;
}

/* Waits for the reply, as wait_fd, giving up when the daemon is hung. */
static int
wait_reply(int fd, int64_t deadline_ms, const char *sockpath,
    struct ncc_beat_watch *w)
{
	int64_t	now, slice;
	int	r;

	if (sockpath == NULL)
		return wait_fd(fd, POLLIN, deadline_ms);
	for (;;) {
		now = ncc_now_ms();
		if (ncc_shared_hung(sockpath, now, w))
			return -EHOSTDOWN;
		slice = now + 250 < deadline_ms ? now + 250 : deadline_ms;
		r = wait_fd(fd, POLLIN, slice);
		if (r != -ETIMEDOUT || slice == deadline_ms)
			return r;
	}
}

int
ncc_call(int fd, const void *req, size_t len, int64_t deadline_ms,
    const char *sockpath, struct ncc_reply *ret)
{
	struct ncc_beat_watch watch = { 0, 0 };
	struct proto_hdr rq, hdr;
	uint8_t		*frame = ret->small;
	size_t		 have = 0;
	ssize_t		 n;
	int		 saved = errno, r;

	ret->frame = NULL;
	ret->body = NULL;
	ret->body_len = 0;
	if (proto_hdr_decode(req, len, &rq) < 0 || rq.len != len) {
		r = -EINVAL;
		goto out;
	}
	if ((r = send_all(fd, req, len, deadline_ms)) < 0)
		goto out;
	/* The daemon has yet to wake: wait before the first read, not after. */
	while (have < PROTO_HDR_LEN) {
		if ((r = wait_reply(fd, deadline_ms, sockpath, &watch)) < 0)
			goto out;
		n = recv(fd, frame + have, sizeof(ret->small) - have, MSG_DONTWAIT);
		if (n == 0) {
			r = -ECONNRESET;
			goto out;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			r = -errno;
			goto out;
		}
		if (n > 0)
			have += (size_t)n;
	}
	r = proto_hdr_decode(frame, have, &hdr);
	if (r < 0 || hdr.id != rq.id || hdr.type != (rq.type | PROTO_REPLY) ||
	    have > hdr.len) {
		r = -EBADMSG;
		goto out;
	}
	if (hdr.len > sizeof(ret->small)) {
		if ((frame = malloc(hdr.len)) == NULL) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(frame, ret->small, have);
		ret->frame = frame;
	}
	if ((r = recv_all(fd, frame + have, hdr.len - have, deadline_ms)) < 0)
		goto out;
	ret->hdr = hdr;
	ret->body = frame + PROTO_HDR_LEN;
	ret->body_len = hdr.len - PROTO_HDR_LEN;
	r = 0;
out:
	if (r < 0) {
		free(ret->frame);
		ret->frame = NULL;
	}
	errno = saved;
	return r;
}

void
ncc_reply_free(struct ncc_reply *rep)
{
	if (rep == NULL)
		return;
	free(rep->frame);	/* NULL when the reply fit in small */
	rep->frame = NULL;
	rep->body = NULL;
}

static bool
still_ours(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == dev && st.st_ino == ino;
}

/* In a child after fork: the parent's connections are not ours to use. */
static void
pool_atfork_child(void)
{
	int i;

	for (i = 0; i < POOL_MAX; i++) {
		if (pool[i].state == SLOT_FULL &&
		    still_ours(pool[i].fd, pool[i].dev, pool[i].ino))
			close(pool[i].fd);
		pool[i].state = SLOT_EMPTY;
	}
}

static void
pool_init(void)
{
	pthread_atfork(NULL, NULL, pool_atfork_child);
}

/* An idle connection, or -1.  Claimed with a CAS: no lock, signal-safe. */
static int
pool_get(dev_t *ret_dev, ino_t *ret_ino)
{
	int i, fd, expect;

	pthread_once(&pool_once, pool_init);
	for (i = 0; i < POOL_MAX; i++) {
		expect = SLOT_FULL;
		if (!__atomic_compare_exchange_n(&pool[i].state, &expect, SLOT_BUSY,
		    false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		fd = pool[i].fd;
		*ret_dev = pool[i].dev;
		*ret_ino = pool[i].ino;
		__atomic_store_n(&pool[i].state, SLOT_EMPTY, __ATOMIC_RELEASE);
		/* The program may have closed it and reused the number. */
		if (still_ours(fd, *ret_dev, *ret_ino))
			return fd;
	}
	return -1;
}

static void
pool_put(int fd, dev_t dev, ino_t ino)
{
	int i, expect;

	for (i = 0; i < POOL_MAX; i++) {
		expect = SLOT_EMPTY;
		if (!__atomic_compare_exchange_n(&pool[i].state, &expect, SLOT_BUSY,
		    false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		pool[i].fd = fd;
		pool[i].dev = dev;
		pool[i].ino = ino;
		__atomic_store_n(&pool[i].state, SLOT_FULL, __ATOMIC_RELEASE);
		return;
	}
	close(fd);
}

void
ncc_pool_clear(void)
{
	dev_t	dev;
	ino_t	ino;
	int	saved = errno, fd;

	while ((fd = pool_get(&dev, &ino)) >= 0)
		close(fd);
	errno = saved;
}

int
ncc_connect_until(const char *path, int64_t deadline_ms, int *ret_fd)
{
	struct timespec	ts = { 0, 1000000 };
	int		saved = errno, r;

	/* A full backlog makes no descriptor to poll: try again each ms. */
	while ((r = ncc_connect(path, ret_fd)) == -EAGAIN) {
		if (ncc_now_ms() >= deadline_ms) {
			r = -ETIMEDOUT;
			break;
		}
		nanosleep(&ts, NULL);
	}
	errno = saved;
	return r;
}

int
ncc_pool_call(const char *path, const void *req, size_t len, int timeout_ms,
    struct ncc_reply *ret)
{
	return ncc_pool_call_until(path, req, len, ncc_now_ms() + timeout_ms,
	    false, ret);
}

int
ncc_pool_call_until(const char *path, const void *req, size_t len,
    int64_t deadline, bool wait_backlog, struct ncc_reply *ret)
{
	struct stat	st;
	dev_t		dev = 0;
	ino_t		ino = 0;
	int		saved = errno, attempt, fd, r = -ECONNRESET;
	bool		reused;

	for (attempt = 0; attempt < 2; attempt++) {
		fd = pool_get(&dev, &ino);
		reused = fd >= 0;
		if (!reused) {
			r = wait_backlog ? ncc_connect_until(path, deadline, &fd) :
			    ncc_connect(path, &fd);
			if (r < 0)
				break;
			if (fstat(fd, &st) < 0) {
				r = -errno;
				close(fd);
				break;
			}
			dev = st.st_dev;
			ino = st.st_ino;
		}
		r = ncc_call(fd, req, len, deadline, path, ret);
		if (r == 0) {
			pool_put(fd, dev, ino);
			break;
		}
		close(fd);
		/* Only a pooled connection that went stale deserves a retry. */
		if (!reused || (r != -ECONNRESET && r != -EPIPE))
			break;
	}
	errno = saved;
	return r;
}
