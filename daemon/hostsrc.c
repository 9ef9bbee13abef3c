/* SPDX-License-Identifier: MIT */
/* daemon/hostsrc.c - the live hosts index: loaded, watched with inotify, swapped. */

/*
 * watch.c says when the file changed; each load then builds a whole new
 * index and swaps the pointer, so a lookup never sees a half-loaded one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostsrc.h"
#include "log.h"
#include "stats.h"
#include "watch.h"

struct hostsrc {
	struct event_base	*base;
	struct stats		*stats;
	char			*path;
	char			*host_conf;
	struct hosts		*cur;
	struct watch		*watch;
	uint64_t		 generation;
	int64_t			 load_usec;
	int			 last_error;
	struct stat		 st;
	void			(*changed)(void *);
	void			*changed_arg;
};

static int64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int
hostsrc_reload(struct hostsrc *hs)
{
	struct hosts	*h = NULL;
	struct stat	 st;
	unsigned	 flags = hosts_conf_flags(hs->host_conf);
	int64_t		 t0 = now_us();
	int		 r;

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
	if (hs->watch)
		watch_rearm(hs->watch);
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
changed_cb(void *arg)
{
	hostsrc_reload(arg);
}

struct hostsrc *
hostsrc_new(struct event_base *base, struct stats *stats)
{
	struct hostsrc *hs = calloc(1, sizeof(*hs));

	if (hs == NULL)
		return NULL;
	hs->base = base;
	hs->stats = stats;
	return hs;
}

void
hostsrc_free(struct hostsrc *hs)
{
	if (hs == NULL)
		return;
	watch_free(hs->watch);
	hosts_free(hs->cur);
	free(hs->path);
	free(hs->host_conf);
	free(hs);
}

int
hostsrc_open(struct hostsrc *hs, const char *path, const char *host_conf)
{
	char *p, *hc;

	if ((p = strdup(path)) == NULL || (hc = strdup(host_conf)) == NULL) {
		free(p);
		return -ENOMEM;
	}
	free(hs->path);
	free(hs->host_conf);
	hs->path = p;
	hs->host_conf = hc;
	watch_free(hs->watch);
	if ((hs->watch = watch_new(hs->base, hs->path, changed_cb, hs)) == NULL)
		log_error("hosts: cannot watch %s: %s; changes will need a SIGHUP",
		    hs->path, strerror(errno));
	return hostsrc_reload(hs);
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
