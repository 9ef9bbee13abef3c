/* SPDX-License-Identifier: MIT */
/* client-lib/examples/poll-resolve.c - libnamecache in a plain poll() loop: every name at once. */

/*
 * Usage: poll-resolve NAME...
 *
 * Submits a lookup of every name on one context, then waits with poll()
 * on the descriptor and the deadline the library asks for, and prints
 * each answer as it arrives (not in argument order):
 *
 *	NAME ADDRESS... (SOURCE, TTL s)
 *	NAME error: REASON
 *
 * Exits 0 when every name resolved, 1 otherwise.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include <namecache.h>

static int failed;

static void
done(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	const char	*name = arg;
	char		 buf[INET6_ADDRSTRLEN];
	size_t		 i;

	if (error) {
		printf("%s error: %s\n", name, namecache_strerror(error));
		failed++;
		return;
	}
	printf("%s", name);
	for (i = 0; i < res->naddresses; i++)
		printf(" %s", inet_ntop(res->addresses[i].family,
		    &res->addresses[i].addr, buf, sizeof(buf)));
	printf(" (%s, TTL %u s)\n", namecache_source_str(res->source), res->ttl);
	namecache_result_free(res);	/* the callback owns the result */
}

int
main(int argc, char **argv)
{
	struct namecache	*ctx;
	struct pollfd		 pfd;
	int			 i, r;

	if ((r = namecache_new(NULL, &ctx)) < 0) {
		fprintf(stderr, "poll-resolve: %s\n", namecache_strerror(r));
		return 1;
	}
	for (i = 1; i < argc; i++) {
		/* 1: the shared cache answered already; 0: pending. */
		r = namecache_submit_name(ctx, argv[i], AF_UNSPEC, 0, 5000, done,
		    argv[i], NULL);
		if (r < 0) {
			printf("%s error: %s\n", argv[i], namecache_strerror(r));
			failed++;
		}
	}
	while (namecache_pending(ctx) > 0) {
		pfd.fd = namecache_fd(ctx);
		pfd.events = namecache_events(ctx);
		pfd.revents = 0;
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0, namecache_timeout(ctx)) < 0) {
			perror("poll-resolve: poll");
			break;
		}
		namecache_process(ctx);
	}
	namecache_free(ctx);
	return failed ? 1 : 0;
}
