/* SPDX-License-Identifier: MIT */
/* daemon/lockfile.c - one daemon per folder and per store: a lock held for the daemon's life. */

/*
 * The shared segment, the store and glibc's maps are files that one
 * daemon writes and every reader trusts.  A second daemon pointed at
 * them would retire the first one's segment, write into its store, and
 * remove the segment when it stops; so the daemon that owns them holds a
 * lock on a file beside them for its life, taken before any of them is
 * opened (parts.c).  flock(2), not a POSIX lock: it belongs to the open
 * file, so no other descriptor of the file in the process can drop it,
 * and the kernel drops it when the process ends however it ends (a
 * SIGKILL, a crash, systemd's restart): the next daemon never waits on a
 * dead one.  flock does not say who holds a lock, so the holder writes
 * its pid in the file, for the refusal's line.
 *
 * The lock is the inode's, and the path may come to name another inode:
 * a daemon that stops removes the file, and one that may not write the
 * file (left by a daemon of another user, say root by hand) replaces it
 * with its own once it holds the lock on it.  So after flock the path
 * must still name the inode locked, else the lock guards nothing and is
 * taken again on what the path names now.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lockfile.h"

/* Retries when the path keeps naming another inode than the one locked. */
#define TAKE_TRIES	16

struct lockfile {
	char	*path;
	int	 fd;
};

/* 1 when path names the file open at fd, 0 when not (or nothing), or -errno. */
static int
same_file(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0)
		return -errno;
	if (lstat(path, &b) < 0)
		return errno == ENOENT ? 0 : -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Our pid, whole before the file is cut to it: a reader never sees it empty. */
static void
write_pid(int fd)
{
	char	buf[24];
	int	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	/* A full folder: the lock is held all the same, only the pid is missing. */
	if (pwrite(fd, buf, (size_t)n, 0) == n)
		(void)!ftruncate(fd, n);
}

/*
 * A lock file we may not write (another user's): replaced by one of ours
 * with our pid, locked before it is renamed into place.  The old one is
 * locked by us meanwhile, so no other daemon can be taking it.  Returns
 * the new descriptor, or -errno (the old lock is kept then: still ours).
 */
static int
replace(const char *path)
{
	char	*tmp;
	int	 fd, r;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	(void)fchmod(fd, 0644);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		goto fail;
	write_pid(fd);
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	return fd;
fail:
	r = -errno;
	close(fd);
	unlink(tmp);
	free(tmp);
	return r;
}

/* Opens path to lock it; *ret_writable: for writing (else read only). */
static int
open_lock(const char *path, bool *ret_writable)
{
	int fd;

	*ret_writable = true;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd >= 0 || errno != EACCES)
		return fd >= 0 ? fd : -errno;
	/* Not ours to write (or a folder not ours): flock needs reading only. */
	*ret_writable = false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return -EACCES;
	return fd;
}

int
lockfile_new(const char *path, struct lockfile **ret_lock)
{
	struct lockfile	*l;
	struct stat	 st;
	bool		 writable = false;
	int		 fd = -1, r = -EAGAIN, tries, nfd;

	for (tries = 0; tries < TAKE_TRIES; tries++) {
		if ((fd = open_lock(path, &writable)) < 0)
			return fd;
		if (fstat(fd, &st) < 0) {
			r = -errno;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			r = -EINVAL;
			goto fail;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			r = errno == EWOULDBLOCK || errno == EAGAIN ? -EWOULDBLOCK : -errno;
			goto fail;
		}
		if ((r = same_file(fd, path)) > 0)
			break;
		close(fd);
		fd = -1;
		if (r < 0)
			return r;
		r = -EAGAIN;
	}
	if (fd < 0)
		return r;
	if (writable) {
		/* Readable by all (a umask of 0077 under systemd): the pid is no secret. */
		if ((st.st_mode & 07777) != 0644 && st.st_uid == geteuid())
			(void)fchmod(fd, 0644);
		write_pid(fd);
	} else if ((nfd = replace(path)) >= 0) {
		close(fd);
		fd = nfd;
	}
	if ((l = calloc(1, sizeof(*l))) == NULL || (l->path = strdup(path)) == NULL) {
		free(l);
		r = -ENOMEM;
		goto fail;
	}
	l->fd = fd;
	*ret_lock = l;
	return 0;
fail:
	close(fd);
	return r;
}

void
lockfile_free(struct lockfile *l)
{
	if (l == NULL)
		return;
	/* Removed while still held: whoever opened it meanwhile finds it gone. */
	if (same_file(l->fd, l->path) > 0)
		unlink(l->path);
	close(l->fd);
	free(l->path);
	free(l);
}

const char *
lockfile_path(const struct lockfile *l)
{
	return l->path;
}

long
lockfile_holder(const char *path)
{
	static const struct timespec ms = { 0, 1000000 };
	char	 buf[24], *end;
	ssize_t	 n;
	long	 pid;
	int	 fd, tries;

	for (tries = 0; tries < 100; tries++) {
		if (tries)
			nanosleep(&ms, NULL);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
		    O_NONBLOCK)) < 0) {
			if (errno == ENOENT)
				continue;	/* replaced or removed this moment */
			return 0;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0)
			return 0;
		if (n == 0)
			continue;	/* taken, the pid not yet written */
		buf[n] = '\0';
		errno = 0;
		pid = strtol(buf, &end, 10);
		return errno == 0 && pid > 0 && end != buf && (*end == '\n' || *end == '\0') ?
		    pid : 0;
	}
	return 0;
}
