/* SPDX-License-Identifier: MIT */
/* bench/lib-pending.c - cached lookups on a libnamecache context that also holds slow ones. */

/*
 * Usage: lib-pending SOCKET NAME SLOW_PATTERN PENDING COUNT
 *
 * The point of libnamecache's contexts (issue 5): one event loop, many
 * lookups in flight, and a slow upstream stalls only the lookups that
 * need it.  Against a daemon whose upstream never answers, and which has
 * NAME already (a hosts name or a cached DNS answer):
 *
 *   idle     COUNT lookups of NAME through the socket (NAMECACHE_NO_SHARED)
 *            on a context with nothing else pending;
 *   pending  the same after PENDING lookups of new names (SLOW_PATTERN
 *            with %d) were submitted on the same context and are still
 *            waiting for upstream;
 *   shared   the same from the shared cache (answered inside submit),
 *            with those PENDING lookups still in flight.
 *
 * Each time is one lookup's, from submit to its callback, with
 * namecache_process() driven by poll() as an event loop would.  Prints
 * median and p99 of each, and checks that every slow lookup is still
 * pending at the end (exit 1 otherwise, or on any failed lookup).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <namecache.h>

struct one {
	int	calls;
	int	error;
};

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
done(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct one *o = arg;

	o->calls++;
	o->error = error;
	namecache_result_free(res);
}

/* One lookup of name, timed from submit to callback. */
static double
timed(struct namecache *ctx, const char *name, unsigned flags, int *failed)
{
	struct one	o = { 0, 0 };
	double		t0 = now_us();
	int		r;

	r = namecache_submit_name(ctx, name, AF_INET, flags, 5000, done, &o, NULL);
	if (r < 0) {
		(*failed)++;
		return now_us() - t0;
	}
	while (o.calls == 0) {
		struct pollfd pfd = { namecache_fd(ctx), namecache_events(ctx), 0 };

		if (poll(&pfd, 1, namecache_timeout(ctx)) < 0)
			break;
		namecache_process(ctx);
	}
	if (o.error)
		(*failed)++;
	return now_us() - t0;
}

static void
report(const char *what, double *t, int n, int failed)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	printf("%-8s median %8.2f us   p99 %8.2f us   (n=%d, %d failed)\n", what,
	    t[n / 2], t[n * 99 / 100], n, failed);
}

int
main(int argc, char **argv)
{
	struct namecache	*ctx;
	struct one		*slow;
	double			*t;
	char			 name[300];
	int			 i, n, pending, failed = 0, bad = 0, r;

	if (argc != 6) {
		fprintf(stderr, "usage: lib-pending SOCKET NAME SLOW_PATTERN PENDING COUNT\n");
		return 2;
	}
	pending = atoi(argv[4]);
	n = atoi(argv[5]);
	if (pending < 1 || n < 1 || !strstr(argv[3], "%d") ||
	    (t = calloc((size_t)n, sizeof(*t))) == NULL ||
	    (slow = calloc((size_t)pending, sizeof(*slow))) == NULL)
		return 2;
	if ((r = namecache_new(argv[1], &ctx)) < 0) {
		fprintf(stderr, "lib-pending: %s\n", namecache_strerror(r));
		return 1;
	}
	for (i = 0; i < n; i++)
		t[i] = timed(ctx, argv[2], NAMECACHE_NO_SHARED, &failed);
	report("idle", t, n, failed);
	bad += failed;
	for (i = 0; i < pending; i++) {
		const char *at = strstr(argv[3], "%d");

		snprintf(name, sizeof(name), "%.*s%d%s", (int)(at - argv[3]), argv[3], i,
		    at + 2);
		if (namecache_submit_name(ctx, name, AF_INET, NAMECACHE_NO_SHARED, 60000,
		    done, &slow[i], NULL) != 0) {
			fprintf(stderr, "lib-pending: %s: not pending at submit\n", name);
			return 1;
		}
	}
	failed = 0;
	for (i = 0; i < n; i++)
		t[i] = timed(ctx, argv[2], NAMECACHE_NO_SHARED, &failed);
	report("pending", t, n, failed);
	bad += failed;
	failed = 0;
	for (i = 0; i < n; i++)
		t[i] = timed(ctx, argv[2], 0, &failed);
	report("shared", t, n, failed);
	bad += failed;
	for (i = 0; i < pending; i++)
		if (slow[i].calls)
			bad++;
	printf("slow lookups still pending at the end: %zu of %d\n",
	    namecache_pending(ctx), pending);
	if (namecache_pending(ctx) != (size_t)pending)
		bad++;
	namecache_free(ctx);
	free(t);
	free(slow);
	return bad ? 1 : 0;
}
