/* SPDX-License-Identifier: MIT */
/* client-lib/examples/event-resolve.c - libnamecache under libevent: many names at once, one thread. */

/*
 * Usage: event-resolve < NAMES
 *
 * Reads names, one a line, submits them all on one context and lets
 * libevent's loop drive it: an event on namecache_fd() for
 * namecache_events(), and a timer for namecache_timeout(), both brought up
 * to date after every call into the library.  Prints each answer as it
 * comes,
 *
 *	NAME ADDRESS... (SOURCE)
 *	NAME error: REASON
 *
 * then a summary:
 *
 *	resolved N of M, failed F, at most P in flight
 *
 * Exits 0 when every name resolved.
 */
#include <arpa/inet.h>
#include <event2/event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <namecache.h>

struct app {
	struct event_base	*base;
	struct namecache	*ctx;
	struct event		*io;	/* on the context's descriptor */
	struct event		*timer;
	int			 fd;	/* what io watches */
	short			 events;
	size_t			 resolved, failed, peak;
};

/* What one lookup's callback gets: the app and the name. */
struct lookup {
	struct app	*app;
	char		 name[];
};

static void on_io(evutil_socket_t fd, short what, void *arg);

/* Watches what the library asks for now: call after every call into it. */
static void
update(struct app *a)
{
	int		fd = namecache_fd(a->ctx);
	short		ev = namecache_events(a->ctx);
	int		t = namecache_timeout(a->ctx);
	struct timeval	tv;

	if (fd != a->fd || ev != a->events) {
		if (a->io)
			event_free(a->io);
		a->io = NULL;
		if (fd >= 0) {
			a->io = event_new(a->base, fd, EV_PERSIST |
			    (ev & POLLIN ? EV_READ : 0) | (ev & POLLOUT ? EV_WRITE : 0),
			    on_io, a);
			event_add(a->io, NULL);
		}
		a->fd = fd;
		a->events = ev;
	}
	if (t >= 0) {
		tv.tv_sec = t / 1000;
		tv.tv_usec = (t % 1000) * 1000;
		evtimer_add(a->timer, &tv);
	} else
		evtimer_del(a->timer);
	if (namecache_pending(a->ctx) == 0)
		event_base_loopbreak(a->base);
}

static void
on_io(evutil_socket_t fd, short what, void *arg)
{
	struct app *a = arg;

	namecache_process(a->ctx);
	update(a);
}

static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
	on_io(fd, what, arg);
}

static void
on_answer(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct lookup	*l = arg;
	char		 buf[INET6_ADDRSTRLEN];
	size_t		 i;

	if (error) {
		printf("%s error: %s\n", l->name, namecache_strerror(error));
		l->app->failed++;
	} else {
		printf("%s", l->name);
		for (i = 0; i < res->naddresses; i++)
			printf(" %s", inet_ntop(res->addresses[i].family,
			    &res->addresses[i].addr, buf, sizeof(buf)));
		printf(" (%s)\n", namecache_source_str(res->source));
		l->app->resolved++;
		namecache_result_free(res);
	}
	free(l);
}

int
main(void)
{
	struct app	 a = { .fd = -1 };
	struct lookup	*l;
	char		 line[512];
	size_t		 len, total = 0;
	int		 r;

	if ((a.base = event_base_new()) == NULL ||
	    (a.timer = evtimer_new(a.base, on_timer, &a)) == NULL) {
		fprintf(stderr, "event-resolve: libevent failed\n");
		return 1;
	}
	if ((r = namecache_new(NULL, &a.ctx)) < 0) {
		fprintf(stderr, "event-resolve: %s\n", namecache_strerror(r));
		return 1;
	}
	/* Every name is submitted before the loop runs: all in flight at once. */
	while (fgets(line, sizeof(line), stdin)) {
		len = strcspn(line, "\r\n");
		line[len] = '\0';
		if (len == 0)
			continue;
		if ((l = malloc(sizeof(*l) + len + 1)) == NULL)
			return 1;
		l->app = &a;
		memcpy(l->name, line, len + 1);
		total++;
		r = namecache_submit_name(a.ctx, l->name, AF_UNSPEC, 0, 10000,
		    on_answer, l, NULL);
		if (r < 0) {
			printf("%s error: %s\n", l->name, namecache_strerror(r));
			a.failed++;
			free(l);
		}
		if (namecache_pending(a.ctx) > a.peak)
			a.peak = namecache_pending(a.ctx);
	}
	update(&a);
	if (namecache_pending(a.ctx) > 0)
		event_base_dispatch(a.base);
	printf("resolved %zu of %zu, failed %zu, at most %zu in flight\n",
	    a.resolved, total, a.failed, a.peak);
	if (a.io)
		event_free(a.io);
	event_free(a.timer);
	namecache_free(a.ctx);
	event_base_free(a.base);
	return a.failed || a.resolved != total ? 1 : 0;
}
