/* SPDX-License-Identifier: MIT */
/*
 * bench/pw-lookup.c - time per call of getpwnam_r, getpwuid_r, getgrgid_r or getgrouplist.
 *
 *   pw-lookup [-r ROUNDS] [-w WARM] [-W KEY] [-g GID] [-b BASE] [-x found|missing]
 *             FUNC KEY N
 *
 * ROUNDS rounds of N calls each; a round is timed as a block (two clock
 * reads around N calls, so a hit of 30 ns is not swamped by the clock),
 * and the line printed gives the median, least and greatest of the rounds'
 * ns per call.  KEY is a user name (getpwnam, getgrouplist) or a decimal id
 * (getpwuid, getgrgid).  KEY may hold one %d or %0Nd: call i of the run
 * then asks KEY with BASE + i, so every call of every round asks a key
 * never asked before (a miss); those keys are made before the clock
 * starts.  -w WARM untimed calls of -W KEY (default KEY, when it has no
 * %d) go first: glibc's nscd client maps its database then.
 *
 * -x says what each call should find (default found); the line counts the
 * calls that did otherwise as "unexpected", and the exit status is 1 when
 * there were any.  Buffers start small and grow on ERANGE, outside the
 * clock (a call that grew one is made again), so a group of 5,000 members
 * times the lookup, not the growing.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#define KEY_MAX		128
#define ROUNDS_MAX	1000
#define N_MAX		10000000L	/* calls in a round */
#define KEYS_MAX	2000000L	/* distinct keys made for a %d run */
#define BUF_MAX		(16u << 20)	/* the most a buffer grows to */
#define GROUPS_MAX	65536

enum func { F_PWNAM, F_PWUID, F_GRGID, F_GROUPLIST };

static const char *const func_names[] = {
	[F_PWNAM] = "getpwnam", [F_PWUID] = "getpwuid",
	[F_GRGID] = "getgrgid", [F_GROUPLIST] = "getgrouplist",
};

struct key {
	char		 name[KEY_MAX];
	unsigned long	 id;
};

static enum func	 func;
static gid_t		 list_gid;
static char		*buf;
static size_t		 buf_len = 1024;
static gid_t		*groups;
static int		 groups_len = 64;
static int		 grow_failed;

/* A bigger buffer for next time; false when it cannot grow. */
static bool
grow_buf(void)
{
	char *nb;

	if (buf_len >= BUF_MAX || (nb = realloc(buf, buf_len * 2)) == NULL) {
		grow_failed = 1;
		return false;
	}
	buf = nb;
	buf_len *= 2;
	return true;
}

/* One call: 1 found, 0 not found, -1 an error; *grew when a buffer grew (call again). */
static int
call(const struct key *k, bool *grew)
{
	struct passwd	 pw, *pwp = NULL;
	struct group	 gr, *grp = NULL;
	int		 r = EINVAL, n;

	*grew = false;
	switch (func) {
	case F_PWNAM:
		r = getpwnam_r(k->name, &pw, buf, buf_len, &pwp);
		break;
	case F_PWUID:
		r = getpwuid_r((uid_t)k->id, &pw, buf, buf_len, &pwp);
		break;
	case F_GRGID:
		r = getgrgid_r((gid_t)k->id, &gr, buf, buf_len, &grp);
		break;
	case F_GROUPLIST:
		n = groups_len;
		if (getgrouplist(k->name, list_gid, groups, &n) < 0) {
			gid_t *ng;

			if (n <= groups_len || n > GROUPS_MAX ||
			    (ng = realloc(groups, (size_t)n * sizeof(*ng))) == NULL) {
				grow_failed = 1;
				return -1;
			}
			groups = ng;
			groups_len = n;
			*grew = true;
			return -1;
		}
		/* The user's own group is always in; found means more than that. */
		return n > 1;
	}
	if (r == ERANGE) {
		*grew = grow_buf();
		return -1;
	}
	if (r != 0)
		return -1;
	return pwp != NULL || grp != NULL;
}

/* A call that cannot fail for a short buffer: warm-up, and the first call of a key. */
static int
call_grown(const struct key *k)
{
	bool	 grew;
	int	 r;
	int	 tries;

	for (tries = 0; tries < 32; tries++) {
		r = call(k, &grew);
		if (!grew)
			return r;
	}
	return -1;
}

/* KEY with its %d or %0Nd (at most one) as v, into k; -1 when KEY is not of that form. */
static int
make_key(const char *pattern, long v, struct key *k)
{
	const char	*pc = strchr(pattern, '%'), *p;
	char		*end;
	int		 width = 0, n;
	bool		 zero = false;

	if (pc == NULL) {
		if (strlen(pattern) >= sizeof(k->name))
			return -1;
		strcpy(k->name, pattern);
	} else {
		p = pc + 1;
		if (*p == '0') {
			zero = true;
			width = (int)strtol(p, &end, 10);
			p = end;
		}
		if (*p != 'd' || strchr(p, '%') != NULL || width > 20)
			return -1;
		n = snprintf(k->name, sizeof(k->name), "%.*s%0*ld%s", (int)(pc - pattern), pattern,
		    zero ? width : 0, v, p + 1);
		if (n < 0 || (size_t)n >= sizeof(k->name))
			return -1;
	}
	if (func == F_PWUID || func == F_GRGID) {
		errno = 0;
		k->id = strtoul(k->name, &end, 10);
		if (errno || *end != '\0' || end == k->name || k->id > UINT_MAX)
			return -1;
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: pw-lookup [-r ROUNDS] [-w WARM] [-W KEY] [-g GID] [-b BASE]\n"
	    "                 [-x found|missing] FUNC KEY N\n"
	    "  FUNC    getpwnam, getpwuid, getgrgid or getgrouplist\n"
	    "  KEY     a name or a decimal id; one %%d or %%0Nd: call i asks BASE + i\n"
	    "  N       calls a round (ROUNDS rounds, default 5)\n"
	    "  -w, -W  WARM untimed calls of KEY (or of -W KEY) first\n"
	    "  -g GID  getgrouplist's group (default 0)\n"
	    "  -x      what every call should find (default found)\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct key	 one, warm_key, *keys = NULL;
	const char	*pattern, *warm = NULL;
	double		*t, t0;
	long		 n, nkeys, base = 0, r, i, unexpected = 0, found = 0, errors = 0;
	int		 c, rounds = 5, warmup = 0, want = 1, fi;
	bool		 fresh, grew;

	while ((c = getopt(argc, argv, "r:w:W:g:b:x:")) != -1) {
		switch (c) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 'W':
			warm = optarg;
			break;
		case 'g':
			list_gid = (gid_t)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			base = atol(optarg);
			break;
		case 'x':
			if (strcmp(optarg, "found") == 0)
				want = 1;
			else if (strcmp(optarg, "missing") == 0)
				want = 0;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 3)
		usage();
	for (fi = 0; fi <= F_GROUPLIST; fi++)
		if (strcmp(argv[0], func_names[fi]) == 0)
			break;
	if (fi > F_GROUPLIST)
		usage();
	func = (enum func)fi;
	pattern = argv[1];
	n = atol(argv[2]);
	fresh = strchr(pattern, '%') != NULL;
	if (rounds < 1 || rounds > ROUNDS_MAX || n < 1 || n > N_MAX || warmup < 0 ||
	    (fresh && n * rounds > KEYS_MAX))
		usage();
	if ((buf = malloc(buf_len)) == NULL ||
	    (groups = malloc((size_t)groups_len * sizeof(*groups))) == NULL ||
	    (t = calloc((size_t)rounds, sizeof(*t))) == NULL)
		return 2;

	/* Every key before the clock starts. */
	if (fresh) {
		nkeys = n * rounds;
		if ((keys = calloc((size_t)nkeys, sizeof(*keys))) == NULL)
			return 2;
		for (i = 0; i < nkeys; i++)
			if (make_key(pattern, base + i, &keys[i]) < 0)
				usage();
	} else if (make_key(pattern, 0, &one) < 0) {
		usage();
	}
	if (warm == NULL && !fresh)
		warm = pattern;
	if (warmup > 0 && warm != NULL) {
		if (make_key(warm, 0, &warm_key) < 0)
			usage();
		for (i = 0; i < warmup; i++)
			call_grown(&warm_key);
	}
	/* A hit run sizes its buffers on its one key first. */
	if (!fresh)
		call_grown(&one);

	for (r = 0; r < rounds; r++) {
		struct key *k = fresh ? &keys[r * n] : &one;
		double round_t = 0;

		t0 = now();
		for (i = 0; i < n; i++) {
			int got = call(k, &grew);

			if (grew) {
				/* The growing is not what is timed: take it out, call again. */
				round_t += now() - t0;
				got = call_grown(k);
				t0 = now();
			}
			if (got == 1)
				found++;
			else if (got < 0)
				errors++;
			if (got != want)
				unexpected++;
			if (fresh)
				k++;
		}
		t[r] = (round_t + now() - t0) / (double)n;
	}
	qsort(t, (size_t)rounds, sizeof(t[0]), cmp);
	printf("%s %s ns/op median %.1f min %.1f max %.1f (rounds %d, n %ld, found %ld, "
	    "errors %ld, unexpected %ld)\n", func_names[func], pattern, t[rounds / 2] * 1e9,
	    t[0] * 1e9, t[rounds - 1] * 1e9, rounds, n, found, errors, unexpected);
	if (grow_failed)
		fprintf(stderr, "pw-lookup: a buffer could not grow past %zu bytes\n", buf_len);
	free(keys);
	free(t);
	free(groups);
	free(buf);
	return unexpected ? 1 : 0;
}
