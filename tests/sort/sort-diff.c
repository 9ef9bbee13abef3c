/* SPDX-License-Identifier: MIT */
/* tests/sort/sort-diff.c - libnamecache's sort against glibc's getaddrinfo, case by case. */

/*
 * sort-diff CASES [ROUNDS]: each line of CASES is "NAME ADDR...", the
 * addresses in the order the hosts file (bound over /etc/hosts by the
 * driver) lists them for NAME.  For each case it prints
 *
 *	NAME glibc ADDR...	getaddrinfo(NAME, AF_UNSPEC, SOCK_STREAM)'s order
 *	NAME ours ADDR...	namecache's sort of the addresses as listed
 *
 * ROUNDS times (the sort's cache at work after the first), each round
 * ending with "counts PROBES DUMPS": the source probes and address dumps
 * the sort made so far.  With a third argument "pause", it waits for a
 * line on stdin between rounds (the driver changes an address).  An IPv6
 * address may have a scope id, "fe80::5%3" (a name an NSS module answers
 * with one): getaddrinfo's is printed so too, and ours is sorted with
 * namecache_sort_addresses_scoped().
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "namecache.h"
#include "sort.h"

static void
print_addr(int family, const void *a, uint32_t scope_id)
{
	char buf[INET6_ADDRSTRLEN];

	printf(" %s", inet_ntop(family, a, buf, sizeof(buf)));
	if (scope_id)
		printf("%%%u", scope_id);
}

static void
glibc_order(const char *name)
{
	struct addrinfo	 hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo	*res, *ai;
	int		 r = getaddrinfo(name, NULL, &hints, &res);

	printf("%s glibc", name);
	if (r != 0) {
		printf(" error %d\n", r);
		return;
	}
	for (ai = res; ai; ai = ai->ai_next)
		print_addr(ai->ai_family, ai->ai_family == AF_INET ?
		    (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr :
		    (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr,
		    ai->ai_family == AF_INET ? 0 :
		    ((struct sockaddr_in6 *)ai->ai_addr)->sin6_scope_id);
	printf("\n");
	freeaddrinfo(res);
}

static void
our_order(char *line)
{
	struct namecache_address	 v[64];
	uint32_t			 ids[64];
	size_t				 n = 0;
	char				*save, *name = strtok_r(line, " \t\n", &save), *tok, *pct;

	if (name == NULL)
		return;
	while ((tok = strtok_r(NULL, " \t\n", &save)) != NULL && n < 64) {
		memset(&v[n], 0, sizeof(v[n]));
		ids[n] = 0;
		if ((pct = strchr(tok, '%')) != NULL) {
			*pct = '\0';
			ids[n] = (uint32_t)strtoul(pct + 1, NULL, 10);
		}
		if (inet_pton(AF_INET, tok, v[n].addr.bytes) == 1)
			v[n].family = AF_INET;
		else if (inet_pton(AF_INET6, tok, v[n].addr.bytes) == 1)
			v[n].family = AF_INET6;
		else {
			fprintf(stderr, "sort-diff: bad address %s\n", tok);
			exit(2);
		}
		n++;
	}
	glibc_order(name);
	if (namecache_sort_addresses_scoped(v, ids, n) != 0) {
		printf("%s ours error\n", name);
		return;
	}
	printf("%s ours", name);
	for (size_t i = 0; i < n; i++)
		print_addr(v[i].family, v[i].addr.bytes, ids[i]);
	printf("\n");
}

int
main(int argc, char **argv)
{
	int		 rounds = argc > 2 ? atoi(argv[2]) : 1;
	char		 line[4096];
	uint64_t	 probes, dumps;

	if (argc < 2) {
		fprintf(stderr, "usage: sort-diff CASES [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < rounds; i++) {
		FILE *f = fopen(argv[1], "r");

		if (f == NULL) {
			perror(argv[1]);
			return 2;
		}
		while (fgets(line, sizeof(line), f))
			our_order(line);
		fclose(f);
		nc_sort_counts(&probes, &dumps);
		printf("counts %llu %llu\n", (unsigned long long)probes,
		    (unsigned long long)dumps);
		fflush(stdout);
		if (argc > 3 && strcmp(argv[3], "pause") == 0 && i + 1 < rounds &&
		    fgets(line, sizeof(line), stdin) == NULL)
			break;
	}
	return 0;
}
