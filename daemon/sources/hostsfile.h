/* SPDX-License-Identifier: MIT */
/* daemon/sources/hostsfile.h - the live hosts index: loaded, watched with inotify, swapped. */
#ifndef NAMECACHE_HOSTSFILE_H
#define NAMECACHE_HOSTSFILE_H

#include <stdint.h>
#include <sys/stat.h>

#include "hosts.h"

struct event_base;
struct hostsfile;
struct registry_wr;

struct hostsfile_status {
	const char	*path;
	uint64_t	 generation;	/* successful loads so far */
	int64_t		 load_usec;	/* time the last load took */
	int		 last_error;	/* 0 or -errno of the last attempt */
	struct stat	 st;		/* what was read; zeroes for no file */
	struct hosts_info info;
};

/* Caller frees with hostsfile_free(); NULL is out of memory. */
struct hostsfile *hostsfile_new(struct event_base *);
void	hostsfile_free(struct hostsfile *);

/*
 * Watches path (and its folder, so a rename-over is seen) and loads it now.
 * host_conf gives the "multi" flag, as in glibc.  May be called again with
 * another path.  Returns 0 or -errno; a file that cannot be read still
 * leaves an (empty) index in place, as glibc then answers nothing from it.
 */
int	hostsfile_open(struct hostsfile *, const char *path, const char *host_conf);

/*
 * Reads the file again (SIGHUP): on a worker thread, the new index swapped
 * in on the loop when it is whole.  The first load runs at once.
 */
int	hostsfile_reload(struct hostsfile *);

/* Borrowed, valid until the next return to the event loop. */
const struct hosts *hostsfile_get(const struct hostsfile *);

/* Called after each successful swap, e.g. to drop derived answers. */
void	hostsfile_on_change(struct hostsfile *, void (*fn)(void *), void *arg);

void	hostsfile_get_status(const struct hostsfile *, struct hostsfile_status *ret);
/* Its counters (reloads), a registry report; and back to zero. */
void	hostsfile_report(void *hostsfile, struct registry_wr *);
void	hostsfile_reset_stats(struct hostsfile *);

/* 0, or -errno when the file could not be read: glibc's files module then
 * answers UNAVAIL. */
int	hostsfile_error(const struct hostsfile *);

#endif
