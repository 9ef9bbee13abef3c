/* SPDX-License-Identifier: MIT */
/* daemon/watch.c - tell when a file changes: inotify on the file and its folder, debounced. */
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "watch.h"

#define QUICK_MS	10
#define QUIET_MS	200
#define MAX_WAIT_MS	2000

struct watch {
	char		*path;
	char		*dir;
	char		*base;
	int		 ifd;
	int		 wd_dir;
	int		 wd_file;
	struct event	*iev;
	struct event	*timer;
	int64_t		 due_ms;	/* 0: nothing pending */
	int64_t		 first_ms;	/* first event of this burst */
	watch_fn	*fn;
	void		*arg;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
watch_rearm(struct watch *w)
{
	/* The file's own inode: catches writes through bind mounts and symlinks. */
	w->wd_file = inotify_add_watch(w->ifd, w->path, IN_MODIFY |
	    IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF);
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct watch *w = arg;

	w->due_ms = 0;
	w->first_ms = 0;
	w->fn(w->arg);
}

static void
schedule(struct watch *w, int delay_ms)
{
	int64_t		now = now_ms(), due = now + delay_ms;
	struct timeval	tv;

	if (w->first_ms == 0)
		w->first_ms = now;
	if (due > w->first_ms + MAX_WAIT_MS)
		due = w->first_ms + MAX_WAIT_MS;
	/* Quick events pull the call in; writes push it back, within the cap. */
	if (w->due_ms != 0 && delay_ms == QUICK_MS && w->due_ms <= due)
		return;
	w->due_ms = due;
	tv.tv_sec = (due - now) / 1000;
	tv.tv_usec = ((due - now) % 1000) * 1000;
	evtimer_add(w->timer, &tv);
}

static void
inotify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct watch	*w = arg;
	char		 buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t		 n;
	char		*p;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				schedule(w, QUICK_MS);
				continue;
			}
			if (ev->mask & IN_IGNORED)
				continue;
			if (ev->wd == w->wd_dir &&
			    (ev->len == 0 || strcmp(ev->name, w->base) != 0))
				continue;
			if (ev->wd != w->wd_dir && ev->wd != w->wd_file)
				continue;
			schedule(w, ev->mask & IN_MODIFY ? QUIET_MS : QUICK_MS);
		}
	}
}

struct watch *
watch_new(struct event_base *base, const char *path, watch_fn *fn, void *arg)
{
	struct watch	*w;
	char		*p1 = NULL, *p2 = NULL;
	int		 saved;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->ifd = -1;
	w->wd_dir = w->wd_file = -1;
	w->fn = fn;
	w->arg = arg;
	if ((w->path = strdup(path)) == NULL || (p1 = strdup(path)) == NULL ||
	    (p2 = strdup(path)) == NULL || (w->dir = strdup(dirname(p1))) == NULL ||
	    (w->base = strdup(basename(p2))) == NULL)
		goto fail;
	if ((w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		goto fail;
	w->wd_dir = inotify_add_watch(w->ifd, w->dir, IN_ONLYDIR | IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY |
	    IN_ATTRIB);
	if (w->wd_dir < 0)
		log_warning("cannot watch %s: %s; changes to %s will need a SIGHUP",
		    w->dir, strerror(errno), w->path);
	watch_rearm(w);
	if ((w->timer = evtimer_new(base, timer_cb, w)) == NULL ||
	    (w->iev = event_new(base, w->ifd, EV_READ | EV_PERSIST, inotify_cb,
	    w)) == NULL || event_add(w->iev, NULL) < 0)
		goto fail;
	free(p1);
	free(p2);
	return w;
fail:
	saved = errno ? errno : ENOMEM;
	free(p1);
	free(p2);
	watch_free(w);
	errno = saved;
	return NULL;
}

void
watch_free(struct watch *w)
{
	if (w == NULL)
		return;
	if (w->iev)
		event_free(w->iev);
	if (w->timer)
		event_free(w->timer);
	if (w->ifd >= 0)
		close(w->ifd);
	free(w->path);
	free(w->dir);
	free(w->base);
	free(w);
}
