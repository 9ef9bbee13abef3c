/* SPDX-License-Identifier: MIT */
/* bench/nss-lookup.c - latency of getaddrinfo and gethostbyname2_r through one NSS service. */
#include <netdb.h>
#include <nss.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

enum { F_GAI = 1, F_GH2 = 2 };

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

static int gai_family = AF_UNSPEC;	/* -4: AF_INET */

/* getaddrinfo(AF_UNSPEC or -4's AF_INET, SOCK_STREAM); *ret to free, or freed here when NULL. */
static int
do_gai_res(const char *name, struct addrinfo **ret)
{
	struct addrinfo hints, *res = NULL;
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = gai_family;
	hints.ai_socktype = SOCK_STREAM;
	err = getaddrinfo(name, NULL, &hints, &res);
	if (ret)
		*ret = err ? NULL : res;
	else if (err == 0)
		freeaddrinfo(res);
	return err;
}

static int
do_gai(const char *name)
{
	return do_gai_res(name, NULL);
}

static int
do_gh2(const char *name)
{
	struct hostent he, *hp;
	char buf[8192];
	int err, herr;

	err = gethostbyname2_r(name, AF_INET, &he, buf, sizeof(buf), &hp, &herr);
	return err || hp == NULL;
}

/* Throughput: threads call one function on one name until the deadline. */
struct tput {
	pthread_t	 th;
	const char	*name;
	int		 func;
	double		 until;
	unsigned long	 calls, failed;
};
static atomic_int	 tput_go;

static void *
tput_run(void *arg)
{
	struct tput *t = arg;

	while (!atomic_load(&tput_go))
		;
	do {
		int i;

		/* The clock is read once per 64 calls: it is not what is measured. */
		for (i = 0; i < 64; i++) {
			if ((t->func == F_GAI ? do_gai(t->name) : do_gh2(t->name)) != 0)
				t->failed++;
			t->calls++;
		}
	} while (now() < t->until);
	return NULL;
}

static int
throughput(const char *name, int funcs, int nthreads, double secs)
{
	struct tput	*t;
	int		 f, i;

	if ((t = calloc((size_t)nthreads, sizeof(*t))) == NULL)
		return 2;
	for (f = F_GAI; f <= F_GH2; f <<= 1) {
		unsigned long calls = 0, failed = 0;
		double t0, t1;

		if (!(funcs & f))
			continue;
		atomic_store(&tput_go, 0);
		for (i = 0; i < nthreads; i++) {
			t[i] = (struct tput){ .name = name, .func = f, .calls = 0 };
			if (pthread_create(&t[i].th, NULL, tput_run, &t[i]) != 0)
				return 2;
		}
		t0 = now();
		for (i = 0; i < nthreads; i++)
			t[i].until = t0 + secs;
		atomic_store(&tput_go, 1);
		for (i = 0; i < nthreads; i++) {
			pthread_join(t[i].th, NULL);
			calls += t[i].calls;
			failed += t[i].failed;
		}
		t1 = now();
		printf("%-18s %-28s threads %d   %10.0f lookups/s   (n=%lu in %.2f s",
		    f == F_GAI ? "getaddrinfo" : "gethostbyname2_r", name, nthreads,
		    calls / (t1 - t0), calls, t1 - t0);
		if (failed)
			printf(", %lu failed", failed);
		printf(")\n");
	}
	free(t);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: nss-lookup [-4] [-f gai|gh2] [-w WARMUP] SERVICE NAME COUNT [BASE]\n"
	    "       nss-lookup [-f gai|gh2] -T THREADS [-D SECONDS] SERVICE NAME\n"
	    "       nss-lookup [-f gai|gh2] -1 SERVICE NAME\n"
	    "  SERVICE as in nsswitch.conf, e.g. namecache or files; \"-\" leaves\n"
	    "    /etc/nsswitch.conf (and nscd) in charge\n"
	    "  NAME may hold %%d: call i then asks NAME with BASE + i\n"
	    "  -f      time only getaddrinfo (gai) or gethostbyname2_r (gh2)\n"
	    "  -4      getaddrinfo asks AF_INET (default AF_UNSPEC)\n"
	    "  -w N    N untimed calls of NAME first (not with %%d)\n"
	    "  -T, -D  lookups/s of THREADS threads for SECONDS (default 2)\n"
	    "  -1      one call (getaddrinfo unless -f gh2); exit 0 when answered\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	char		 nbuf[256];
	const char	*name, *pattern;
	double		*t, secs = 2;
	int		 c, i, n, err, base, failed = 0, funcs = F_GAI | F_GH2;
	int		 warmup = 0, threads = 0, once = 0;

	while ((c = getopt(argc, argv, "+4f:w:T:D:1")) != -1) {
		switch (c) {
		case '4':
			gai_family = AF_INET;
			break;
		case 'f':
			if (strcmp(optarg, "gai") == 0)
				funcs = F_GAI;
			else if (strcmp(optarg, "gh2") == 0)
				funcs = F_GH2;
			else
				usage();
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 'T':
			threads = atoi(optarg);
			break;
		case 'D':
			secs = atof(optarg);
			break;
		case '1':
			once = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	if (strcmp(argv[0], "-") != 0)
		__nss_configure_lookup("hosts", argv[0]);
	pattern = argv[1];

	if (once) {
		if (argc != 2)
			usage();
		return (funcs & F_GAI ? do_gai(pattern) : do_gh2(pattern)) != 0;
	}
	for (i = 0; i < warmup && strstr(pattern, "%d") == NULL; i++) {
		do_gai(pattern);
		do_gh2(pattern);
	}
	if (threads > 0) {
		if (argc != 2 || threads > 256 || secs <= 0 || strstr(pattern, "%d"))
			usage();
		return throughput(pattern, funcs, threads, secs);
	}
	if (argc != 3 && argc != 4)
		usage();
	n = atoi(argv[2]);
	base = argc == 4 ? atoi(argv[3]) : 0;
	if (n < 10 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;

	if (funcs & F_GAI) {
		for (i = 0; i < n; i++) {
			struct addrinfo *res;
			double t0;

			/* Timed as before: getaddrinfo alone, not freeaddrinfo. */
			name = name_at(pattern, base, i, nbuf, sizeof(nbuf));
			t0 = now();
			err = do_gai_res(name, &res);
			t[i] = now() - t0;
			if (err && failed++ == 0)
				fprintf(stderr, "getaddrinfo %s: %s\n", name, gai_strerror(err));
			if (res)
				freeaddrinfo(res);
		}
		report("getaddrinfo", pattern, t, n, failed);
	}
	failed = 0;
	if (funcs & F_GH2) {
		for (i = 0; i < n; i++) {
			double t0;

			name = name_at(pattern, base + n, i, nbuf, sizeof(nbuf));
			t0 = now();
			err = do_gh2(name);
			t[i] = now() - t0;
			if (err && failed++ == 0)
				fprintf(stderr, "gethostbyname2_r %s: failed\n", name);
		}
		report("gethostbyname2_r", pattern, t, n, failed);
	}
	free(t);
	return 0;
}
