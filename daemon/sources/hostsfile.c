/* SPDX-License-Identifier: MIT */
/* daemon/sources/hostsfile.c - the live hosts index: loaded, watched with inotify, swapped. */

/*
 * watch.c says when the file changed; each load then builds a whole new
 * index and swaps the pointer, so a lookup never sees a half-loaded one.
 *
 * Reloads run on a worker thread, so that a large file (0.7 s at 1,000,000
 * lines) never holds up the event loop: the thread only reads and parses
 * (hosts_load is pure), then wakes the loop through an eventfd, and the
 * loop swaps the index in.  One load at a time; a change during a load
 * asks for one more after it.  The first load, at start, runs on the loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "hostsfile.h"
#include "log.h"
#include "registry.h"
#include "watch.h"

/* One load, made on the worker thread. */
struct job {
	char		*path;
	unsigned	 flags;
	struct hosts	*h;
	struct stat	 st;
	int		 r;
	int64_t		 t0;
};

struct hostsfile {
	struct event_base	*base;
	int			 efd;		/* the worker's "done" */
	struct event		*done_ev;
	pthread_t		 thread;
	struct job		*job;		/* in flight, or NULL */
	bool			 again;		/* changed during the load */
	struct {
		uint64_t	 reloads;
		uint64_t	 failures;
		uint64_t	 unchanged;	/* the same bytes: kept */
	}			 count;
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

static bool
same_content(const struct hosts *a, const struct hosts *b)
{
	struct hosts_info x, y;

	hosts_get_info(a, &x);
	hosts_get_info(b, &y);
	return x.digest == y.digest && x.flags == y.flags && x.lines == y.lines &&
	    x.entries == y.entries && x.names == y.names;
}

/* On the loop: puts a finished load in place.  Frees job. */
static int
apply(struct hostsfile *hs, struct job *job)
{
	struct hosts_info	 info;
	struct hosts		*h = job->h;
	int			 r = job->r;
	bool			 same;

	hs->last_error = r;
	if (r < 0) {
		hs->count.failures++;
		if (r == -ENOMEM) {
			log_error("hosts: cannot load %s: %s; keeping the old index",
			    job->path, strerror(-r));
			goto done;
		}
		/* glibc answers nothing from a file it cannot read. */
		log_warning("hosts: cannot read %s: %s; answering nothing from it",
		    job->path, strerror(-r));
		if ((h = hosts_new_empty(job->flags)) == NULL) {
			r = -ENOMEM;
			goto done;
		}
		memset(&job->st, 0, sizeof(job->st));
	}
	/*
	 * The same bytes and flags as the index in place (a touch, an editor
	 * saving an unchanged file, a write to /dev/null as the hosts file):
	 * keep it, and keep what clients have in the shared segment.
	 */
	same = hs->cur != NULL && r == 0 && same_content(hs->cur, h);
	if (same) {
		hosts_free(h);
		h = hs->cur;
		hs->count.unchanged++;
	} else {
		hosts_free(hs->cur);
		hs->cur = h;
	}
	hs->st = job->st;
	hs->generation++;
	hs->load_usec = now_us() - job->t0;
	hs->count.reloads++;
	if (hs->watch)
		watch_rearm(hs->watch);
	hosts_get_info(h, &info);
	if (same) {
		log_debug("hosts: read %s again: unchanged", job->path);
		goto done;
	}
	log_info("hosts: loaded %s: %zu entries, %zu names, %zu bad lines, "
	    "%zu KiB, in %.1f ms", job->path, info.entries, info.names,
	    info.invalid, info.memory / 1024, hs->load_usec / 1000.0);
	if (hs->changed)
		hs->changed(hs->changed_arg);
done:
	free(job->path);
	free(job);
	return r;
}

static struct job *
job_new(struct hostsfile *hs)
{
	struct job *job = calloc(1, sizeof(*job));

	if (job == NULL || (job->path = strdup(hs->path)) == NULL) {
		free(job);
		return NULL;
	}
	job->flags = hosts_conf_flags(hs->host_conf);
	job->t0 = now_us();
	return job;
}

static void *
worker(void *arg)
{
	struct hostsfile	*hs = arg;
	struct job	*job = hs->job;
	uint64_t	 one = 1;

	job->r = hosts_load(job->path, job->flags, &job->h, &job->st);
	while (write(hs->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	return NULL;
}

static void start(struct hostsfile *);

static void
done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct hostsfile	*hs = arg;
	struct job	*job = hs->job;
	uint64_t	 n;

	if (read(fd, &n, sizeof(n)) < 0 || job == NULL)
		return;
	pthread_join(hs->thread, NULL);
	hs->job = NULL;
	/* A load of a path given up meanwhile is dropped. */
	if (strcmp(job->path, hs->path) == 0)
		apply(hs, job);
	else {
		hosts_free(job->h);
		free(job->path);
		free(job);
	}
	if (hs->again) {
		hs->again = false;
		start(hs);
	}
}

/* Starts a load on the worker thread, or asks for one after the current. */
static void
start(struct hostsfile *hs)
{
	struct job *job;

	if (hs->job) {
		hs->again = true;
		return;
	}
	if ((job = job_new(hs)) == NULL) {
		log_error("hosts: out of memory starting a reload");
		return;
	}
	hs->job = job;
	if (pthread_create(&hs->thread, NULL, worker, hs) != 0) {
		/* No thread: load here, as at start. */
		hs->job = NULL;
		job->r = hosts_load(job->path, job->flags, &job->h, &job->st);
		apply(hs, job);
	}
}

int
hostsfile_reload(struct hostsfile *hs)
{
	struct job *job;

	if (hs->cur != NULL) {
		start(hs);
		return 0;
	}
	/* The first load: lookups wait for it anyway. */
	if ((job = job_new(hs)) == NULL)
		return -ENOMEM;
	job->r = hosts_load(job->path, job->flags, &job->h, &job->st);
	return apply(hs, job);
}

static void
changed_cb(void *arg)
{
	hostsfile_reload(arg);
}

struct hostsfile *
hostsfile_new(struct event_base *base)
{
	struct hostsfile *hs = calloc(1, sizeof(*hs));

	if (hs == NULL)
		return NULL;
	hs->base = base;
	if ((hs->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
	    (hs->done_ev = event_new(base, hs->efd, EV_READ | EV_PERSIST, done_cb,
	    hs)) == NULL || event_add(hs->done_ev, NULL) < 0) {
		if (hs->efd >= 0)
			close(hs->efd);
		free(hs);
		return NULL;
	}
	return hs;
}

void
hostsfile_free(struct hostsfile *hs)
{
	if (hs == NULL)
		return;
	if (hs->job) {
		pthread_join(hs->thread, NULL);
		hosts_free(hs->job->h);
		free(hs->job->path);
		free(hs->job);
	}
	event_free(hs->done_ev);
	close(hs->efd);
	watch_free(hs->watch);
	hosts_free(hs->cur);
	free(hs->path);
	free(hs->host_conf);
	free(hs);
}

int
hostsfile_open(struct hostsfile *hs, const char *path, const char *host_conf)
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
	return hostsfile_reload(hs);
}

const struct hosts *
hostsfile_get(const struct hostsfile *hs)
{
	return hs->cur;
}

void
hostsfile_on_change(struct hostsfile *hs, void (*fn)(void *), void *arg)
{
	hs->changed = fn;
	hs->changed_arg = arg;
}

void
hostsfile_get_status(const struct hostsfile *hs, struct hostsfile_status *ret)
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

int
hostsfile_error(const struct hostsfile *hs)
{
	/* Out of memory kept the old index, which still answers. */
	return hs->last_error == -ENOMEM ? 0 : hs->last_error;
}

void
hostsfile_report(void *arg, struct registry_wr *wr)
{
	const struct hostsfile *hs = arg;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_counter(wr, "hosts_reloads", hs->count.reloads, NULL);
	registry_counter(wr, "hosts_reload_failures", hs->count.failures, NULL);
	registry_counter(wr, "hosts_reloads_unchanged", hs->count.unchanged, NULL);
}

void
hostsfile_reset_stats(struct hostsfile *hs)
{
	memset(&hs->count, 0, sizeof(hs->count));
}
