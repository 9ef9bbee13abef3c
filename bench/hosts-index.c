/* SPDX-License-Identifier: MIT */
/* bench/hosts-index.c - load time, memory and lookup cost of the hosts index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hosts.h"
#include "proto.h"

#include "timing.h"

int
main(int argc, char **argv)
{
	struct hosts_info info;
	struct hosts	*h;
	struct proto_wr	 w;
	static uint8_t	 buf[PROTO_FRAME_MAX];
	double		 t[7], l[101];
	int		 i, j, runs = 5;

	if (argc < 3) {
		fprintf(stderr, "usage: hosts-index FILE NAME...\n");
		return 2;
	}
	struct rusage	 ru0, ru1;

	getrusage(RUSAGE_SELF, &ru0);
	for (i = 0; i < runs; i++) {
		double t0 = now();

		if (hosts_load(argv[1], HOSTS_MULTI, &h, NULL) < 0) {
			perror("hosts_load");
			return 1;
		}
		t[i] = now() - t0;
		if (i + 1 < runs)
			hosts_free(h);
	}
	getrusage(RUSAGE_SELF, &ru1);
	qsort(t, (size_t)runs, sizeof(t[0]), cmp);
	hosts_get_info(h, &info);
	printf("cpu per load: user %.1f ms, system %.1f ms\n",
	    ((ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1e3 +
	    (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e3) / runs,
	    ((ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e3 +
	    (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e3) / runs);
	printf("%s: %zu lines, load median %.1f ms (min %.1f), index %.1f bytes/line "
	    "without names, %.1f with\n", argv[1], info.lines, t[runs / 2] * 1e3,
	    t[0] * 1e3, (double)(info.memory - info.text) / (info.lines ? info.lines : 1),
	    (double)info.memory / (info.lines ? info.lines : 1));
	for (j = 2; j < argc; j++) {
		for (i = 0; i < 101; i++) {
			double t0 = now();
			int k;

			for (k = 0; k < 1000; k++) {
				proto_wr_init(&w, buf, sizeof(buf));
				if (hosts_lookup_name(h, argv[j], PROTO_AF_UNSPEC, &w) != 1) {
					fprintf(stderr, "%s: not found\n", argv[j]);
					return 1;
				}
			}
			l[i] = (now() - t0) / 1000;
		}
		qsort(l, 101, sizeof(l[0]), cmp);
		printf("  lookup %s: median %.0f ns\n", argv[j], l[50] * 1e9);
	}
	hosts_free(h);
	return 0;
}
