/* SPDX-License-Identifier: MIT */
/* bench/nss-lookup.c - latency of getaddrinfo and gethostbyname2_r through one NSS service. */
#include <netdb.h>
#include <nss.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, const char *name, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	printf("%-18s %-28s median %8.2f us   p99 %8.2f us   (n=%d)\n", what, name,
	    t[n / 2] * 1e6, t[n * 99 / 100] * 1e6, n);
}

int
main(int argc, char **argv)
{
	struct addrinfo	 hints, *res;
	struct hostent	 he, *hp;
	char		 buf[8192];
	double		*t;
	int		 i, n, err, herr;

	if (argc != 4) {
		fprintf(stderr, "usage: nss-lookup SERVICE NAME COUNT\n"
		    "  SERVICE as in nsswitch.conf, e.g. namecache or files\n");
		return 2;
	}
	n = atoi(argv[3]);
	if (n < 10 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	__nss_configure_lookup("hosts", argv[1]);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	for (i = 0; i < n; i++) {
		double t0 = now();

		err = getaddrinfo(argv[2], NULL, &hints, &res);
		t[i] = now() - t0;
		if (err) {
			fprintf(stderr, "getaddrinfo %s: %s\n", argv[2], gai_strerror(err));
			return 1;
		}
		freeaddrinfo(res);
	}
	report("getaddrinfo", argv[2], t, n);
	for (i = 0; i < n; i++) {
		double t0 = now();

		err = gethostbyname2_r(argv[2], AF_INET, &he, buf, sizeof(buf), &hp, &herr);
		t[i] = now() - t0;
		if (err || hp == NULL) {
			fprintf(stderr, "gethostbyname2_r %s: failed\n", argv[2]);
			return 1;
		}
	}
	report("gethostbyname2_r", argv[2], t, n);
	free(t);
	return 0;
}
