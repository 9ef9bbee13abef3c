/* SPDX-License-Identifier: MIT */
/* tests/shared/nss-loop.c - COUNT gethostbyname2_r calls of one name through one NSS service. */

/*
 * Usage: nss-loop SERVICE NAME COUNT.  For counting system calls per
 * lookup (strace -c): the first call maps what it maps; the rest are the
 * hits.  Exits 1 when any call fails.
 */
#include <netdb.h>
#include <nss.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

int
main(int argc, char **argv)
{
	struct hostent	 he, *hp;
	char		 buf[8192];
	int		 i, n, herr, failed = 0;

	if (argc != 4 || (n = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: nss-loop SERVICE NAME COUNT\n");
		return 2;
	}
	__nss_configure_lookup("hosts", argv[1]);
	for (i = 0; i < n; i++)
		if (gethostbyname2_r(argv[2], AF_INET, &he, buf, sizeof(buf), &hp,
		    &herr) != 0 || hp == NULL)
			failed++;
	if (failed)
		fprintf(stderr, "nss-loop: %d of %d lookups failed\n", failed, n);
	return failed ? 1 : 0;
}
