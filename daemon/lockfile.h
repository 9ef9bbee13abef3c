/* SPDX-License-Identifier: MIT */
/* daemon/lockfile.h - one daemon per folder and per store: a lock held for the daemon's life. */
#ifndef NAMECACHE_LOCKFILE_H
#define NAMECACHE_LOCKFILE_H

struct lockfile;

/*
 * Takes the lock at path for the life of the process: the file is made
 * if missing (mode 0644), locked with flock(LOCK_EX | LOCK_NB), and the
 * pid is written in it.  The kernel drops the lock when the process ends,
 * however it ends (SIGKILL, a crash), so a lock is never left held.
 * Returns 0 and *ret_lock (freed with lockfile_free), or -errno:
 * -EWOULDBLOCK when another process holds it (lockfile_holder says
 * which), -EROFS on a read-only mount, others as open(2) gives them.
 */
int	 lockfile_new(const char *path, struct lockfile **ret_lock);

/*
 * Releases the lock: the file is removed, then closed (a daemon that
 * opened it meanwhile finds the path gone and takes it again on a new
 * file).  NULL is a no-op.
 */
void	 lockfile_free(struct lockfile *);

const char *lockfile_path(const struct lockfile *);

/*
 * The pid written in the lock file at path, or 0 when there is none
 * (no file, or garbage).  A holder that has just taken the lock may not
 * have written it yet: an empty file is read again, for at most 0.1 s.
 */
long	 lockfile_holder(const char *path);

#endif
