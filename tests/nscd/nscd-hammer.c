/* SPDX-License-Identifier: MIT */
/* tests/nscd/nscd-hammer.c - reader threads through glibc's own nscd client; every answer checked. */

/*
 * Usage: nscd-hammer SOCKET SECONDS THREADS NHOSTS NVARY NDNS NNEG
 *
 * (SOCKET, namecache's own, is not used: glibc's client has its fixed path.
 * It is there so that the driver calls both hammers alike.)
 *
 * Run where /etc/nsswitch.conf says "hosts: files" and /etc/hosts knows
 * only localhost, with namecached on /run/nscd/socket: every name below
 * that resolves can only have come through glibc's nscd client, from the
 * mapping or the socket.  Threads call getaddrinfo (AF_UNSPEC),
 * gethostbyname2_r (AF_INET) and gethostbyaddr_r, and check each answer
 * against what the name must resolve to (tests/shared/test_concurrency.py
 * --nscd writes the same data).  Not found is allowed (the daemon is
 * restarting, or the name is not in the hosts file now); a wrong address,
 * name or family never is.
 *
 *	h<i>.hosts.test	10.1.i/256.i%256, reverse too
 *	v<i>.hosts.test	10.2.i/256.i%256, or not found
 *	d<i>.dns.test	A 10.3.i/256.i%256, AAAA 2001:db8::3:i (random case)
 *	n<i>.neg.test	not found
 *
 * Prints one line of counts; exits 1 when any answer was wrong.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_THREADS	64

static double		 until;
static unsigned		 nhosts, nvary, ndns, nneg;
static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long	 lookups, found, notfound, wrong;
static int		 reported;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
bad(const char *name, const char *what)
{
	pthread_mutex_lock(&lock);
	wrong++;
	if (reported++ < 20)
		fprintf(stderr, "WRONG %s: %s\n", name, what);
	pthread_mutex_unlock(&lock);
}

/* The IPv4 address name i of kind k must have. */
static uint32_t
v4(int base, unsigned i)
{
	return htonl(10u << 24 | (uint32_t)base << 16 | (i >> 8) << 8 | (i & 255));
}

static void
one(unsigned *seed)
{
	char		 name[64], buf[4096], what[128];
	struct addrinfo	 hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM },
			*res, *ai;
	struct hostent	 he, *hp;
	unsigned	 kind = rand_r(seed) % 4, i;
	int		 base = 0, r, herr;
	bool		 any = false, dns = false;
	size_t		 k;

	switch (kind) {
	case 0: i = rand_r(seed) % nhosts; base = 1;
		snprintf(name, sizeof(name), "h%u.hosts.test", i); break;
	case 1: i = rand_r(seed) % nvary; base = 2;
		snprintf(name, sizeof(name), "v%u.hosts.test", i); break;
	case 2: i = rand_r(seed) % ndns; base = 3; dns = true;
		snprintf(name, sizeof(name), "d%u.dns.test", i);
		for (k = 0; name[k]; k++)
			if (rand_r(seed) % 4 == 0)
				name[k] = (char)toupper((unsigned char)name[k]);
		break;
	default: i = rand_r(seed) % nneg;
		snprintf(name, sizeof(name), "n%u.neg.test", i); break;
	}
	r = getaddrinfo(name, NULL, &hints, &res);
	if (r == 0) {
		for (ai = res; ai; ai = ai->ai_next) {
			if (base == 0) {
				bad(name, "an answer for a negative name");
				break;
			}
			if (ai->ai_family == AF_INET) {
				const struct sockaddr_in *sin = (void *)ai->ai_addr;

				if (sin->sin_addr.s_addr != v4(base, i))
					bad(name, "wrong IPv4 address");
				any = true;
			} else if (ai->ai_family == AF_INET6) {
				const struct sockaddr_in6 *sin6 = (void *)ai->ai_addr;
				char want[64], got[64];

				snprintf(want, sizeof(want), "2001:db8::3:%x", i);
				inet_ntop(AF_INET6, &sin6->sin6_addr, got, sizeof(got));
				if (!dns || strcmp(want, got) != 0)
					bad(name, "wrong IPv6 address");
			} else {
				bad(name, "wrong family");
			}
		}
		if (base && !any)
			bad(name, "no IPv4 address");
		freeaddrinfo(res);
	} else if (r != EAI_NONAME && r != EAI_AGAIN && r != EAI_NODATA) {
		snprintf(what, sizeof(what), "getaddrinfo: %s", gai_strerror(r));
		bad(name, what);
	}
	pthread_mutex_lock(&lock);
	lookups++;
	if (r == 0)
		found++;
	else
		notfound++;
	pthread_mutex_unlock(&lock);

	/* gethostbyname2_r, through GETHOSTBYNAME, and the reverse of hosts names. */
	if (gethostbyname2_r(name, AF_INET, &he, buf, sizeof(buf), &hp, &herr) == 0 &&
	    hp != NULL) {
		if (base == 0 || hp->h_addrtype != AF_INET || hp->h_length != 4 ||
		    hp->h_addr_list[0] == NULL ||
		    memcmp(hp->h_addr_list[0], &(uint32_t){ v4(base, i) }, 4) != 0)
			bad(name, "gethostbyname2_r: wrong answer");
		else if (!dns && strcmp(hp->h_name, name) != 0)
			bad(name, "gethostbyname2_r: wrong name");
		else if (dns && strcasecmp(hp->h_name, name) != 0)
			bad(name, "gethostbyname2_r: wrong name");
	}
	if (kind == 0) {
		uint32_t a = v4(1, i);

		if (gethostbyaddr_r(&a, 4, AF_INET, &he, buf, sizeof(buf), &hp,
		    &herr) == 0 && hp != NULL && strcmp(hp->h_name, name) != 0)
			bad(name, "gethostbyaddr_r: wrong name");
	}
}

static void *
reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u;

	while (now() < until)
		one(&seed);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	t[MAX_THREADS];
	unsigned	n, i;

	if (argc != 8) {
		fprintf(stderr, "usage: nscd-hammer SOCKET SECONDS THREADS NHOSTS NVARY NDNS "
		    "NNEG\n");
		return 2;
	}
	argv++;
	until = now() + atof(argv[1]);
	n = (unsigned)atoi(argv[2]);
	nhosts = (unsigned)atoi(argv[3]);
	nvary = (unsigned)atoi(argv[4]);
	ndns = (unsigned)atoi(argv[5]);
	nneg = (unsigned)atoi(argv[6]);
	if (n < 1 || n > MAX_THREADS || !nhosts || !nvary || !ndns || !nneg)
		return 2;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("lookups=%lu found=%lu notfound=%lu wrong=%lu\n", lookups, found,
	    notfound, wrong);
	return wrong ? 1 : 0;
}
