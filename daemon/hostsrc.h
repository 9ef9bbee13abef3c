/* SPDX-License-Identifier: MIT */
/* daemon/hostsrc.h - the live hosts index: loaded, watched with inotify, swapped. */
#ifndef NAMECACHE_HOSTSRC_H
#define NAMECACHE_HOSTSRC_H

#include <stdint.h>
#include <sys/stat.h>

#include "hosts.h"

struct event_base;
struct hostsrc;
struct stats;

struct hostsrc_status {
	const char	*path;
	uint64_t	 generation;	/* successful loads so far */
	int64_t		 load_usec;	/* time the last load took */
	int		 last_error;	/* 0 or -errno of the last attempt */
	struct stat	 st;		/* what was read; zeroes for no file */
	struct hosts_info info;
};

/* Caller frees with hostsrc_free(); NULL is out of memory. */
struct hostsrc *hostsrc_new(struct event_base *, struct stats *);
void	hostsrc_free(struct hostsrc *);

/*
 * Watches path (and its folder, so a rename-over is seen) and loads it now.
 * host_conf gives the "multi" flag, as in glibc.  May be called again with
 * another path.  Returns 0 or -errno; a file that cannot be read still
 * leaves an (empty) index in place, as glibc then answers nothing from it.
 */
int	hostsrc_open(struct hostsrc *, const char *path, const char *host_conf);

/*
 * Reads the file again (SIGHUP): on a worker thread, the new index swapped
 * in on the loop when it is whole.  The first load runs at once.
 */
int	hostsrc_reload(struct hostsrc *);

/* Borrowed, valid until the next return to the event loop. */
const struct hosts *hostsrc_get(const struct hostsrc *);

/* Called after each successful swap, e.g. to drop derived answers. */
void	hostsrc_on_change(struct hostsrc *, void (*fn)(void *), void *arg);

void	hostsrc_get_status(const struct hostsrc *, struct hostsrc_status *ret);

/* 0, or -errno when the file could not be read: glibc's files module then
 * answers UNAVAIL. */
int	hostsrc_error(const struct hostsrc *);

#endif
