/* SPDX-License-Identifier: MIT */
/* daemon/hostsrc.c - the live hosts index: loaded, watched with inotify, swapped. */

/*
 * The folder is watched as well as the file: an editor that writes a new
 * file and renames it over the old one changes the folder, not the file we
 * had open.  A write in progress shows as IN_MODIFY; the reload then waits
 * for the writer to close the file, or for 200 ms of quiet (2 s at most),
 * so a file is not read half-written.  Closing, renaming, creating and
 * deleting reload within 10 ms.  Each load builds a whole new index and
 * swaps the pointer, so a lookup never sees a half-loaded one.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "hostsrc.h"
#include "log.h"
#include "stats.h"

#define QUICK_MS	10
#define QUIET_MS	200
#define MAX_WAIT_MS	2000

struct hostsrc {
	struct event_base	*base;
	struct stats		*stats;
	char			*path;
	char			*dir;
	char			*base_name;
	char			*host_conf;
	struct hosts		*cur;
	int			 ifd;
	int			 wd_dir;
	int			 wd_file;
	struct event		*iev;
	struct event		*timer;
	int64_t			 due_ms;	/* 0: no reload pending */
	int64_t			 first_ms;	/* first event of this burst */
	uint64_t		 generation;
	int64_t			 load_usec;
	int			 last_error;
	struct stat		 st;
	void			(*changed)(void *);
	void			*changed_arg;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
watch_file(struct hostsrc *hs)
{
	/* The file's own inode: catches writes through bind mounts and symlinks. */
	hs->wd_file = inotify_add_watch(hs->ifd, hs->path, IN_MODIFY |
	    IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF);
}

int
hostsrc_reload(struct hostsrc *hs)
{
	struct hosts	*h = NULL;
	struct stat	 st;
	unsigned	 flags = hosts_conf_flags(hs->host_conf);
	int64_t		 t0 = now_us();
	int		 r;

	hs->due_ms = 0;
	hs->first_ms = 0;
	r = hosts_load(hs->path, flags, &h, &st);
	hs->last_error = r;
	if (r < 0) {
		hs->stats->hosts_reload_failures++;
		if (r == -ENOMEM) {
			log_error("hosts: cannot load %s: %s; keeping the old index",
			    hs->path, strerror(-r));
			return r;
		}
		/* glibc answers nothing from a file it cannot read. */
		log_warning("hosts: cannot read %s: %s; answering nothing from it",
		    hs->path, strerror(-r));
		if ((h = hosts_new_empty(flags)) == NULL)
			return -ENOMEM;
		memset(&st, 0, sizeof(st));
	}
	hosts_free(hs->cur);
	hs->cur = h;
	hs->st = st;
	hs->generation++;
	hs->load_usec = now_us() - t0;
	hs->stats->hosts_reloads++;
	watch_file(hs);
	{
		struct hosts_info info;

		hosts_get_info(h, &info);
		log_info("hosts: loaded %s: %zu entries, %zu names, %zu bad lines, "
		    "%zu KiB, in %.1f ms", hs->path, info.entries, info.names,
		    info.invalid, info.memory / 1024, hs->load_usec / 1000.0);
	}
	if (hs->changed)
		hs->changed(hs->changed_arg);
	return r;
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	hostsrc_reload(arg);
}

static void
schedule(struct hostsrc *hs, int delay_ms)
{
	int64_t		now = now_ms(), due = now + delay_ms;
	struct timeval	tv;

	if (hs->first_ms == 0)
		hs->first_ms = now;
	if (due > hs->first_ms + MAX_WAIT_MS)
		due = hs->first_ms + MAX_WAIT_MS;
	/* Quick events pull the reload in; writes push it back, within the cap. */
	if (hs->due_ms != 0 && delay_ms == QUICK_MS && hs->due_ms <= due)
		return;
	hs->due_ms = due;
	tv.tv_sec = (due - now) / 1000;
	tv.tv_usec = ((due - now) % 1000) * 1000;
	evtimer_add(hs->timer, &tv);
}

static void
inotify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct hostsrc	*hs = arg;
	char		 buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t		 n;
	char		*p;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				schedule(hs, QUICK_MS);
				continue;
			}
			if (ev->wd == hs->wd_dir &&
			    (ev->len == 0 || strcmp(ev->name, hs->base_name) != 0))
				continue;
			if (ev->wd != hs->wd_dir && ev->wd != hs->wd_file)
				continue;
			if (ev->mask & IN_IGNORED)
				continue;
			schedule(hs, ev->mask & IN_MODIFY ? QUIET_MS : QUICK_MS);
		}
	}
}

struct hostsrc *
hostsrc_new(struct event_base *base, struct stats *stats)
{
	struct hostsrc *hs = calloc(1, sizeof(*hs));

	if (hs == NULL)
		return NULL;
	hs->base = base;
	hs->stats = stats;
	hs->ifd = -1;
	hs->wd_dir = -1;
	hs->wd_file = -1;
	if ((hs->timer = evtimer_new(base, timer_cb, hs)) == NULL) {
		free(hs);
		return NULL;
	}
	return hs;
}

void
hostsrc_free(struct hostsrc *hs)
{
	if (hs == NULL)
		return;
	if (hs->iev)
		event_free(hs->iev);
	if (hs->timer)
		event_free(hs->timer);
	if (hs->ifd >= 0)
		close(hs->ifd);
	hosts_free(hs->cur);
	free(hs->path);
	free(hs->dir);
	free(hs->base_name);
	free(hs->host_conf);
	free(hs);
}

int
hostsrc_open(struct hostsrc *hs, const char *path, const char *host_conf)
{
	char	*p1 = NULL, *p2 = NULL;
	int	 r = -ENOMEM;

	if (hs->iev) {
		event_free(hs->iev);
		hs->iev = NULL;
	}
	if (hs->ifd >= 0)
		close(hs->ifd);
	hs->wd_dir = hs->wd_file = -1;
	free(hs->path);
	free(hs->dir);
	free(hs->base_name);
	free(hs->host_conf);
	hs->dir = hs->base_name = hs->host_conf = NULL;
	if ((hs->path = strdup(path)) == NULL || (p1 = strdup(path)) == NULL ||
	    (p2 = strdup(path)) == NULL ||
	    (hs->dir = strdup(dirname(p1))) == NULL ||
	    (hs->base_name = strdup(basename(p2))) == NULL ||
	    (hs->host_conf = strdup(host_conf)) == NULL)
		goto done;

	if ((hs->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		r = -errno;
		log_error("hosts: inotify: %s", strerror(errno));
		goto done;
	}
	hs->wd_dir = inotify_add_watch(hs->ifd, hs->dir, IN_ONLYDIR |
	    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
	    IN_DELETE | IN_MODIFY | IN_ATTRIB);
	if (hs->wd_dir < 0)
		log_warning("hosts: cannot watch %s: %s; changes to %s will "
		    "need a SIGHUP", hs->dir, strerror(errno), hs->path);
	hs->iev = event_new(hs->base, hs->ifd, EV_READ | EV_PERSIST, inotify_cb, hs);
	if (hs->iev == NULL || event_add(hs->iev, NULL) < 0)
		goto done;
	r = hostsrc_reload(hs);
done:
	free(p1);
	free(p2);
	return r;
}

const struct hosts *
hostsrc_get(const struct hostsrc *hs)
{
	return hs->cur;
}

void
hostsrc_on_change(struct hostsrc *hs, void (*fn)(void *), void *arg)
{
	hs->changed = fn;
	hs->changed_arg = arg;
}

void
hostsrc_get_status(const struct hostsrc *hs, struct hostsrc_status *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->path = hs->path;
	ret->generation = hs->generation;
	ret->load_usec = hs->load_usec;
	ret->last_error = hs->last_error;
	ret->st = hs->st;
	if (hs->cur)
		hosts_get_info(hs->cur, &ret->info);
}
