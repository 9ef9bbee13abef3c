/* SPDX-License-Identifier: MIT */
/* tests/nscddb/musl-pw.c - a static musl program's passwd and group lookups (nscd socket only). */

/*
 * Built by test_nscddb.py with `musl-gcc -static`, when musl-gcc exists.
 * musl has no NSS: it reads /etc/passwd and /etc/group, and asks
 * /var/run/nscd/socket for what they lack.  Queries and lines are
 * dbprobe's (tests/nscddb/dbprobe.c), for the ones musl has:
 *	pwnam NAME | pwuid UID | grnam NAME | grgid GID | grouplist USER GID
 * Usage: musl-pw QUERY...
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
grow(char *buf, size_t *len)
{
	*len *= 2;
	if ((buf = realloc(buf, *len)) == NULL)
		abort();
	return buf;
}

static void
put_pw(int r, const struct passwd *pw)
{
	if (r != 0)
		printf("error=%d\n", r);
	else if (pw == NULL)
		printf("notfound\n");
	else
		printf("%s:%s:%lu:%lu:%s:%s:%s\n", pw->pw_name, pw->pw_passwd,
		    (unsigned long)pw->pw_uid, (unsigned long)pw->pw_gid, pw->pw_gecos,
		    pw->pw_dir, pw->pw_shell);
}

static void
put_gr(int r, const struct group *gr)
{
	size_t	n;

	if (r != 0) {
		printf("error=%d\n", r);
		return;
	}
	if (gr == NULL) {
		printf("notfound\n");
		return;
	}
	for (n = 0; gr->gr_mem[n]; n++)
		;
	printf("%s:%s:%lu:n=%zu:", gr->gr_name, gr->gr_passwd, (unsigned long)gr->gr_gid, n);
	for (n = 0; gr->gr_mem[n]; n++)
		printf("%s%s", n ? "," : "", gr->gr_mem[n]);
	printf("\n");
}

int
main(int argc, char **argv)
{
	struct passwd	 pw, *pwp;
	struct group	 gr, *grp;
	size_t		 len = 64;
	char		*buf = malloc(len);
	int		 i, r;

	if (buf == NULL)
		return 1;
	for (i = 1; i + 1 < argc; i += 2) {
		const char *q = argv[i], *k = argv[i + 1];

		printf("%s %s", q, k);
		if (strcmp(q, "pwnam") == 0) {
			printf(": ");
			while ((r = getpwnam_r(k, &pw, buf, len, &pwp)) == ERANGE)
				buf = grow(buf, &len);
			put_pw(r, pwp);
		} else if (strcmp(q, "pwuid") == 0) {
			printf(": ");
			while ((r = getpwuid_r((uid_t)strtoul(k, NULL, 10), &pw, buf, len,
			    &pwp)) == ERANGE)
				buf = grow(buf, &len);
			put_pw(r, pwp);
		} else if (strcmp(q, "grnam") == 0) {
			printf(": ");
			while ((r = getgrnam_r(k, &gr, buf, len, &grp)) == ERANGE)
				buf = grow(buf, &len);
			put_gr(r, grp);
		} else if (strcmp(q, "grgid") == 0) {
			printf(": ");
			while ((r = getgrgid_r((gid_t)strtoul(k, NULL, 10), &gr, buf, len,
			    &grp)) == ERANGE)
				buf = grow(buf, &len);
			put_gr(r, grp);
		} else if (strcmp(q, "grouplist") == 0 && i + 2 < argc) {
			int	 n = 4, want;
			gid_t	*g = malloc((size_t)n * sizeof(gid_t));

			printf(" %s: ", argv[i + 2]);
			for (;;) {
				want = n;
				if (g == NULL)
					abort();
				r = getgrouplist(k, (gid_t)strtoul(argv[i + 2], NULL, 10),
				    g, &n);
				if (r >= 0 || n <= want)
					break;
				g = realloc(g, (size_t)n * sizeof(gid_t));
			}
			if (r < 0)
				printf("error r=%d n=%d", r, n);
			else {
				printf("n=%d", n);
				for (r = 0; r < n; r++)
					printf(" %lu", (unsigned long)g[r]);
			}
			printf("\n");
			free(g);
			i++;
		} else {
			fprintf(stderr, "musl-pw: bad query %s\n", q);
			return 2;
		}
	}
	free(buf);
	return 0;
}
