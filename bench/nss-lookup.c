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
report(const char *what, const char *name, double *t, int n, int failed)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	printf("%-18s %-28s median %8.2f us   p99 %8.2f us   (n=%d", what, name,
	    t[n / 2] * 1e6, t[n * 99 / 100] * 1e6, n);
	if (failed)
		printf(", %d failed", failed);
	printf(")\n");
}

/* NAME may hold one %d: each call then asks a new name (base + i), a miss. */
static const char *
name_at(const char *pattern, int base, int i, char *buf, size_t len)
{
	const char *at = strstr(pattern, "%d");

	if (at == NULL)
		return pattern;
	snprintf(buf, len, "%.*s%d%s", (int)(at - pattern), pattern, base + i, at + 2);
	return buf;
}

int
main(int argc, char **argv)
{
	struct addrinfo	 hints, *res;
	struct hostent	 he, *hp;
	char		 buf[8192], nbuf[256];
	const char	*name;
	double		*t;
	int		 i, n, err, herr, base, failed = 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: nss-lookup SERVICE NAME COUNT [BASE]\n"
		    "  SERVICE as in nsswitch.conf, e.g. namecache or files\n"
		    "  NAME may hold %%d: call i then asks NAME with BASE + i\n");
		return 2;
	}
	n = atoi(argv[3]);
	base = argc == 5 ? atoi(argv[4]) : 0;
	if (n < 10 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	__nss_configure_lookup("hosts", argv[1]);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	for (i = 0; i < n; i++) {
		double t0;

		name = name_at(argv[2], base, i, nbuf, sizeof(nbuf));
		t0 = now();
		err = getaddrinfo(name, NULL, &hints, &res);
		t[i] = now() - t0;
		if (err) {
			if (failed++ == 0)
				fprintf(stderr, "getaddrinfo %s: %s\n", name, gai_strerror(err));
			continue;
		}
		freeaddrinfo(res);
	}
	report("getaddrinfo", argv[2], t, n, failed);
	failed = 0;
	for (i = 0; i < n; i++) {
		double t0;

		name = name_at(argv[2], base + n, i, nbuf, sizeof(nbuf));
		t0 = now();
		err = gethostbyname2_r(name, AF_INET, &he, buf, sizeof(buf), &hp, &herr);
		t[i] = now() - t0;
		if ((err || hp == NULL) && failed++ == 0)
			fprintf(stderr, "gethostbyname2_r %s: failed\n", name);
	}
	report("gethostbyname2_r", argv[2], t, n, failed);
	free(t);
	return 0;
}
