/* SPDX-License-Identifier: MIT */
/* tests/nscd/nscd-probe.c - getaddrinfo, gethostbyname2_r and gethostbyaddr_r, as a C program calls them. */

/*
 * Usage: nscd-probe [-n COUNT] KEY...
 *
 * For each key, one line per call, in this order:
 *	gai KEY FAMILY: ADDR... canon=NAME | gai KEY FAMILY: eai=N
 *	ghbn2 KEY FAMILY: NAME [ALIAS...] ADDR... | ... herrno=N
 *	ghba KEY: NAME [ALIAS...] | ghba KEY: herrno=N   (keys that are addresses)
 * With -n, the whole list is asked COUNT times (the lines of the last
 * round are printed): a process that maps the database reads it from the
 * second round on.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
gai(const char *key, int family, const char *fname, int print)
{
	struct addrinfo	 hints = { .ai_family = family, .ai_socktype = SOCK_STREAM,
			    .ai_flags = AI_CANONNAME }, *res, *ai;
	char		 buf[64];
	int		 r = getaddrinfo(key, NULL, &hints, &res);

	if (!print) {
		if (r == 0)
			freeaddrinfo(res);
		return;
	}
	printf("gai %s %s:", key, fname);
	if (r != 0) {
		printf(" eai=%d\n", r);
		return;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		const void *a = ai->ai_family == AF_INET ?
		    (const void *)&((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr :
		    (const void *)&((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr;

		printf(" %s", inet_ntop(ai->ai_family, a, buf, sizeof(buf)));
	}
	printf(" canon=%s\n", res->ai_canonname ? res->ai_canonname : "");
	freeaddrinfo(res);
}

static void
hostent(const char *what, const struct hostent *hp, int herr, int r)
{
	char	buf[64];
	int	i;

	printf("%s:", what);
	if (r != 0 || hp == NULL) {
		printf(" herrno=%d\n", herr);
		return;
	}
	printf(" %s", hp->h_name);
	for (i = 0; hp->h_aliases[i]; i++)
		printf(" alias=%s", hp->h_aliases[i]);
	for (i = 0; hp->h_addr_list[i]; i++)
		printf(" %s", inet_ntop(hp->h_addrtype, hp->h_addr_list[i], buf, sizeof(buf)));
	printf("\n");
}

int
main(int argc, char **argv)
{
	struct hostent	 he, *hp;
	char		 buf[8192], what[512];
	unsigned char	 addr[16];
	int		 i, n = 1, round, herr, r, print;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		n = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	for (round = 0; round < n; round++) {
		print = round == n - 1;
		for (i = 1; i < argc; i++) {
			gai(argv[i], AF_UNSPEC, "unspec", print);
			gai(argv[i], AF_INET, "inet", print);
			gai(argv[i], AF_INET6, "inet6", print);
			r = gethostbyname2_r(argv[i], AF_INET, &he, buf, sizeof(buf), &hp, &herr);
			snprintf(what, sizeof(what), "ghbn2 %s inet", argv[i]);
			if (print)
				hostent(what, hp, herr, r);
			r = gethostbyname2_r(argv[i], AF_INET6, &he, buf, sizeof(buf), &hp, &herr);
			snprintf(what, sizeof(what), "ghbn2 %s inet6", argv[i]);
			if (print)
				hostent(what, hp, herr, r);
			if (inet_pton(AF_INET, argv[i], addr) == 1)
				r = gethostbyaddr_r(addr, 4, AF_INET, &he, buf, sizeof(buf),
				    &hp, &herr);
			else if (inet_pton(AF_INET6, argv[i], addr) == 1)
				r = gethostbyaddr_r(addr, 16, AF_INET6, &he, buf, sizeof(buf),
				    &hp, &herr);
			else
				continue;
			snprintf(what, sizeof(what), "ghba %s", argv[i]);
			if (print)
				hostent(what, hp, herr, r);
		}
	}
	return 0;
}
