/* SPDX-License-Identifier: MIT */
/* client-lib/client.c - the blocking client core: connect, ask, read one reply. */

/*
 * A connection carries one request at a time here, so the only bytes that
 * can arrive are the reply to it: a connection whose call failed in any
 * way is closed, never pooled, so a late reply can't be mistaken for the
 * next one.  Pooled descriptors are checked with fstat before reuse: a
 * program may have closed all its descriptors and reused the number.
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

#define POOL_MAX	4

struct pooled {
	int	fd;
	dev_t	dev;
	ino_t	ino;
};

static pthread_mutex_t	pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t	pool_once = PTHREAD_ONCE_INIT;
static struct pooled	pool[POOL_MAX];
static int		npool;
static uint32_t		last_id;

int64_t
ncc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *
ncc_socket_path(void)
{
	const char *p = secure_getenv("NAMECACHE_SOCKET");

	return p && *p ? p : NAMECACHE_SOCKET_PATH;
}

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

int
ncc_call(int fd, const void *req, size_t len, int64_t deadline_ms,
    struct ncc_reply *ret)
{
	struct proto_hdr rq, hdr;
	uint8_t		 head[PROTO_HDR_LEN], *frame;
	int		 saved = errno, r;

	memset(ret, 0, sizeof(*ret));
	if (proto_hdr_decode(req, len, &rq) < 0 || rq.len != len) {
		r = -EINVAL;
		goto out;
	}
	if ((r = send_all(fd, req, len, deadline_ms)) < 0 ||
	    (r = recv_all(fd, head, sizeof(head), deadline_ms)) < 0)
		goto out;
	r = proto_hdr_decode(head, sizeof(head), &hdr);
	if (r < 0 || hdr.id != rq.id || hdr.type != (rq.type | PROTO_REPLY)) {
		r = -EBADMSG;
		goto out;
	}
	if ((frame = malloc(hdr.len)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(frame, head, sizeof(head));
	if ((r = recv_all(fd, frame + sizeof(head), hdr.len - sizeof(head),
	    deadline_ms)) < 0) {
		free(frame);
		goto out;
	}
	ret->hdr = hdr;
	ret->frame = frame;
	ret->body = frame + PROTO_HDR_LEN;
	ret->body_len = hdr.len - PROTO_HDR_LEN;
out:
	errno = saved;
	return r;
}

void
ncc_reply_free(struct ncc_reply *rep)
{
	if (rep == NULL)
		return;
	free(rep->frame);
	rep->frame = NULL;
	rep->body = NULL;
}

static bool
still_ours(const struct pooled *p)
{
	struct stat st;

	return fstat(p->fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == p->dev && st.st_ino == p->ino;
}

/* In a child after fork: the parent's connections are not ours to use. */
static void
pool_atfork_child(void)
{
	int i;

	pthread_mutex_init(&pool_lock, NULL);
	for (i = 0; i < npool; i++)
		if (still_ours(&pool[i]))
			close(pool[i].fd);
	npool = 0;
}

static void
pool_init(void)
{
	pthread_atfork(NULL, NULL, pool_atfork_child);
}

static int
pool_get(void)
{
	struct pooled	p;
	int		fd = -1;

	pthread_once(&pool_once, pool_init);
	pthread_mutex_lock(&pool_lock);
	while (fd < 0 && npool > 0) {
		p = pool[--npool];
		if (still_ours(&p))
			fd = p.fd;
	}
	pthread_mutex_unlock(&pool_lock);
	return fd;
}

static void
pool_put(int fd)
{
	struct stat	st;
	bool		kept = false;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&pool_lock);
	if (npool < POOL_MAX) {
		pool[npool].fd = fd;
		pool[npool].dev = st.st_dev;
		pool[npool].ino = st.st_ino;
		npool++;
		kept = true;
	}
	pthread_mutex_unlock(&pool_lock);
	if (!kept)
		close(fd);
}

void
ncc_pool_clear(void)
{
	int saved = errno, i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < npool; i++)
		if (still_ours(&pool[i]))
			close(pool[i].fd);
	npool = 0;
	pthread_mutex_unlock(&pool_lock);
	errno = saved;
}

int
ncc_pool_call(const char *path, const void *req, size_t len, int timeout_ms,
    struct ncc_reply *ret)
{
	int64_t	deadline = ncc_now_ms() + timeout_ms;
	int	saved = errno, attempt, fd, r = -ECONNRESET;
	bool	reused;

	for (attempt = 0; attempt < 2; attempt++) {
		fd = pool_get();
		reused = fd >= 0;
		if (!reused && (r = ncc_connect(path, &fd)) < 0)
			break;
		r = ncc_call(fd, req, len, deadline, ret);
		if (r == 0) {
			pool_put(fd);
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
