/* SPDX-License-Identifier: MIT */
/* tests/store/gai-list.c - getaddrinfo of every name in a file, through one hosts line. */

/*
 * Usage: gai-list LINE FILE.  The hosts line is set with
 * __nss_configure_lookup (which also keeps glibc's nscd client out of it),
 * then each name of FILE (one per line) is asked with getaddrinfo,
 * AF_UNSPEC, and one line printed:
 *
 *	NAME ADDR...	(numeric, in getaddrinfo's order, one per address)
 *	NAME eai=N
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <nss.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int
main(int argc, char **argv)
{
	char	 line[512], buf[INET6_ADDRSTRLEN];
	FILE	*f;

	if (argc != 3) {
		fprintf(stderr, "usage: gai-list LINE FILE\n");
		return 2;
	}
	if (__nss_configure_lookup("hosts", argv[1]) != 0 ||
	    (f = fopen(argv[2], "r")) == NULL) {
		perror("gai-list");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		struct addrinfo	 hints, *res, *ai;
		int		 r;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		if ((r = getaddrinfo(line, NULL, &hints, &res)) != 0) {
			printf("%s eai=%d\n", line, r);
			continue;
		}
		printf("%s", line);
		for (ai = res; ai; ai = ai->ai_next) {
			const void *a = ai->ai_family == AF_INET ?
			    (const void *)&((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr :
			    (const void *)&((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr;

			printf(" %s", inet_ntop(ai->ai_family, a, buf, sizeof(buf)));
		}
		printf("\n");
		freeaddrinfo(res);
	}
	fclose(f);
	return 0;
}
