/* SPDX-License-Identifier: MIT */
/* tests/dnslisten/gai.c - musl's getaddrinfo against the DNS listener. */

/*
 * Built by clients.py with musl-gcc -static: musl has no NSS, so past
 * /etc/hosts its getaddrinfo asks /etc/resolv.conf's nameservers itself,
 * A and AAAA in parallel, and takes an NXDOMAIN for either as the end of
 * the name.  Prints, for each name, one line:
 *
 *   NAME ok ADDR...           (numeric, in musl's order)
 *   NAME noname               EAI_NONAME
 *   NAME error CODE TEXT      any other failure
 */
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		struct addrinfo	 hints, *res = NULL, *ai;
		char		 buf[INET6_ADDRSTRLEN];
		int		 r;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		r = getaddrinfo(argv[i], NULL, &hints, &res);
		if (r == EAI_NONAME) {
			printf("%s noname\n", argv[i]);
			continue;
		}
		if (r != 0) {
			printf("%s error %d %s\n", argv[i], r, gai_strerror(r));
			continue;
		}
		printf("%s ok", argv[i]);
		for (ai = res; ai; ai = ai->ai_next) {
			const void *a = ai->ai_family == AF_INET ?
			    (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr :
			    (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;

			if (inet_ntop(ai->ai_family, a, buf, sizeof(buf)))
				printf(" %s", buf);
		}
		printf("\n");
		freeaddrinfo(res);
	}
	return 0;
}
