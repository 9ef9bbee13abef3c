/* SPDX-License-Identifier: MIT */
/* tests/lib/outside.c - a program built outside the tree, with pkg-config only. */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

#include <namecache.h>

int
main(int argc, char **argv)
{
	struct namecache_result	*res;
	char			 buf[INET6_ADDRSTRLEN];
	size_t			 i;
	int			 r;

	if (argc != 2)
		return 2;
	if ((r = namecache_lookup_name(argv[1], AF_INET, 0, 5000, &res)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], namecache_strerror(r));
		return 1;
	}
	printf("%s", res->canonical);
	for (i = 0; i < res->naddresses; i++)
		printf(" %s", inet_ntop(res->addresses[i].family, &res->addresses[i].addr,
		    buf, sizeof(buf)));
	printf(" %s", namecache_source_str(res->source));
	for (i = 0; i < res->naliases; i++)
		printf(" alias %s", res->aliases[i]);
	printf("\n");
	namecache_result_free(res);
	return 0;
}
