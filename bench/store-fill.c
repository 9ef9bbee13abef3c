/* SPDX-License-Identifier: MIT */
/*
 * bench/store-fill.c - the longest single write into the cache, in process, as it fills.
 *
 * Usage: store-fill [-n COUNT] DIR.  A cache of the daemon's default
 * bounds (cache_size 1,000,000, cache_size_mb 120) in a store file in DIR
 * (a tmpfs, as /run is) is filled with COUNT names (default 1,000,000),
 * each an A answer of two addresses, as the memory section of
 * bench/run.sh fills a daemon, but with no socket, no upstream and no
 * other process: each cache_put is timed alone, by the wall clock
 * (CLOCK_MONOTONIC: what a client waits) and by the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID: the work itself, which a busy machine does
 * not stretch).  Prints the longest of each, where in the fill it came,
 * and how many puts took more than 1 ms of CPU.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "dnsmsg.h"
#include "proto.h"

static int64_t
now_ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	struct cache_adopt_report	 rep;
	struct cache_limits		 lim;
	struct proto_wr			 w;
	struct proto_answer_wr		 aw;
	struct cache			*c;
	uint8_t				 body[512], a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 };
	char				 path[4096], name[128];
	int64_t				 w0, c0, dw, dc, wmax = 0, cmax = 0;
	long				 i, n = 1000000, at_w = 0, at_c = 0, over = 0;
	int				 opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		n = atol(optarg);
	}
	if (argc - optind != 1 || n < 1)
		goto usage;
	snprintf(path, sizeof(path), "%s/store-fill.%d", argv[optind], (int)getpid());
	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 1000000;
	lim.max_bytes = (size_t)120 << 20;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	if ((c = cache_new(&lim, now_ms, NULL)) == NULL || cache_open_file(c, path, &rep) < 0) {
		fprintf(stderr, "store-fill: no cache in %s\n", path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%ld.fill.bench.example", i);
		proto_wr_init(&w, body, sizeof(body));
		proto_answer_begin(&aw, &w, 3600, PROTO_SRC_DNS, name, strlen(name));
		proto_answer_addr(&aw, PROTO_AF_INET, a1);
		proto_answer_addr(&aw, PROTO_AF_INET, a2);
		if (proto_answer_end(&aw) < 0)
			return 1;
		w0 = ns(CLOCK_MONOTONIC);
		c0 = ns(CLOCK_THREAD_CPUTIME_ID);
		if (cache_put(c, name, DNS_T_A, CACHE_POSITIVE, 3600, body, w.off) < 0) {
			fprintf(stderr, "store-fill: put %s failed\n", name);
			return 1;
		}
		dc = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		dw = ns(CLOCK_MONOTONIC) - w0;
		if (dw > wmax) {
			wmax = dw;
			at_w = i;
		}
		if (dc > cmax) {
			cmax = dc;
			at_c = i;
		}
		over += dc > 1000000;
	}
	printf("store-fill: %ld puts, %zu held; longest put %.3f ms of wall clock (put %ld), "
	    "%.3f ms of CPU (put %ld); %ld puts over 1 ms of CPU\n", n, cache_count(c),
	    wmax / 1e6, at_w, cmax / 1e6, at_c, over);
	cache_free(c);
	unlink(path);
	return 0;
usage:
	fprintf(stderr, "usage: store-fill [-n COUNT] DIR\n");
	return 2;
}
