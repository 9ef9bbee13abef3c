/* SPDX-License-Identifier: MIT */
/* daemon/watch.h - tell when a file changes: inotify on the file and its folder, debounced. */
#ifndef NAMECACHE_WATCH_H
#define NAMECACHE_WATCH_H

struct event_base;
struct watch;

typedef void watch_fn(void *arg);

/*
 * Calls fn when path is written, replaced (rename-over), created or deleted.
 * The folder is watched as well as the file: an editor's rename-over changes
 * the folder, not the inode we had.  Closing, renaming, creating and deleting
 * call fn within 10 ms; a plain write waits for the writer to close the file,
 * or for 200 ms of quiet (2 s at most), so the file is not read half-written.
 * Returns NULL on failure, with errno set; caller frees with watch_free().
 */
struct watch *watch_new(struct event_base *, const char *path, watch_fn *fn, void *arg);
void	watch_free(struct watch *);

/* After reading the file: watch its (possibly new) inode too. */
void	watch_rearm(struct watch *);

#endif
