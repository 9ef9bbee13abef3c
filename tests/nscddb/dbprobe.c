/* SPDX-License-Identifier: MIT */
/* tests/nscddb/dbprobe.c - glibc's passwd, group, services and netgroup calls, one line per answer. */

/*
 * Usage: dbprobe [-n COUNT] [-b BYTES] [-q] [-t] QUERY...
 *
 * Queries ("-" is NULL):
 *	pwnam NAME                  getpwnam_r
 *	pwuid UID                   getpwuid_r
 *	grnam NAME                  getgrnam_r
 *	grgid GID                   getgrgid_r
 *	grouplist USER GID          getgrouplist (its array grown as it asks)
 *	servname NAME PROTO|-       getservbyname_r
 *	servport PORT PROTO|-       getservbyport_r (PORT in host order)
 *	innetgr NETGROUP HOST|- USER|- DOMAIN|-   innetgr
 *	netgr NETGROUP              setnetgrent, getnetgrent_r to the end
 *	pwent | grent               the whole enumeration: count and FNV-1a
 *	                            of its lines
 * Each answer is one line, "QUERY ARGS: ANSWER":
 *	name:passwd:uid:gid:gecos:dir:shell
 *	name:passwd:gid:n=COUNT:member,member,...     (members in order)
 *	n=COUNT gid gid ...                           (glibc's order)
 *	name port/proto aliases=alias,...
 *	0 | 1                                         (innetgr)
 *	set=0|1 (host,user,domain)...                 (NULL as <null>)
 *	notfound | error=ENAME                        (0 and NULL, or the _r
 *	                                               function's error)
 * The _r buffers start at BYTES (default 64) and double on ERANGE, as
 * callers must.  -n asks the whole list COUNT times and prints the last
 * round (from the second on, a process reads nscd's mapping); -q prints
 * nothing; -t prints the time per query on stderr (benchmarks).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_MAX	(16u << 20)

static size_t	initial = 64;

struct out {
	char	*s;
	size_t	 len, cap;
	int	 quiet;
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (o->quiet)
		return;
	if (o->s == NULL) {
		o->cap = 256;
		if ((o->s = malloc(o->cap)) == NULL)
			abort();
	}
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < o->cap - o->len)
			break;
		o->cap = 2 * o->cap + (size_t)n;
		if ((o->s = realloc(o->s, o->cap)) == NULL)
			abort();
	}
	o->len += (size_t)n;
}

static const char *
ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "unknown";
}

static const char *
nul(const char *s)
{
	return s ? s : "<null>";
}

static char *
grow(char *buf, size_t *len)
{
	*len *= 2;
	if ((buf = realloc(buf, *len)) == NULL)
		abort();
	return buf;
}

static void
put_pw(struct out *o, int r, const struct passwd *pw)
{
	if (r != 0)
		put(o, "error=%s", ename(r));
	else if (pw == NULL)
		put(o, "notfound");
	else
		put(o, "%s:%s:%lu:%lu:%s:%s:%s", pw->pw_name, pw->pw_passwd,
		    (unsigned long)pw->pw_uid, (unsigned long)pw->pw_gid, pw->pw_gecos,
		    pw->pw_dir, pw->pw_shell);
}

static void
put_gr(struct out *o, int r, const struct group *gr)
{
	size_t	n;

	if (r != 0) {
		put(o, "error=%s", ename(r));
		return;
	}
	if (gr == NULL) {
		put(o, "notfound");
		return;
	}
	for (n = 0; gr->gr_mem[n]; n++)
		;
	put(o, "%s:%s:%lu:n=%zu:", gr->gr_name, gr->gr_passwd, (unsigned long)gr->gr_gid,
	    n);
	for (n = 0; gr->gr_mem[n]; n++)
		put(o, "%s%s", n ? "," : "", gr->gr_mem[n]);
}

static void
put_se(struct out *o, int r, const struct servent *se)
{
	size_t	n;

	if (r != 0) {
		put(o, "error=%s", ename(r));
		return;
	}
	if (se == NULL) {
		put(o, "notfound");
		return;
	}
	put(o, "%s %u/%s aliases=", se->s_name, (unsigned)ntohs((uint16_t)se->s_port),
	    se->s_proto);
	for (n = 0; se->s_aliases[n]; n++)
		put(o, "%s%s", n ? "," : "", se->s_aliases[n]);
}

static unsigned long
id_arg(const char *s)
{
	return strtoul(s, NULL, 10);
}

static const char *
opt(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

/* FNV-1a over the enumeration's lines, to compare two runs cheaply. */
static uint64_t
fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ '\n') * 0x100000001b3ull;
}

static void
enumerate(struct out *o, int groups)
{
	struct out	 line = { 0 };
	struct passwd	 pw, *pwp;
	struct group	 gr, *grp;
	size_t		 len = initial, n = 0;
	char		*buf = malloc(len);
	uint64_t	 h = 0xcbf29ce484222325ull;
	int		 r;

	if (buf == NULL)
		abort();
	if (groups)
		setgrent();
	else
		setpwent();
	for (;;) {
		r = groups ? getgrent_r(&gr, buf, len, &grp) : getpwent_r(&pw, buf, len, &pwp);
		if (r == ERANGE && len < BUF_MAX) {
			buf = grow(buf, &len);
			continue;
		}
		if (r != 0)
			break;
		line.len = 0;
		if (groups)
			put_gr(&line, 0, grp);
		else
			put_pw(&line, 0, pwp);
		h = fnv(h, line.s);
		n++;
	}
	if (groups)
		endgrent();
	else
		endpwent();
	put(o, "n=%zu fnv=%016llx end=%s", n, (unsigned long long)h,
	    r == ENOENT ? "ENOENT" : ename(r));
	free(line.s);
	free(buf);
}

/* One query at argv[0]: the number of arguments it took, or -1. */
static int
query(struct out *o, char **argv, int argc)
{
	const char	*q = argv[0];
	struct passwd	 pw, *pwp;
	struct group	 gr, *grp;
	struct servent	 se, *sep;
	size_t		 len = initial;
	char		*buf = malloc(len);
	int		 r, used, i;

	if (buf == NULL)
		abort();
#define NEED(n) do { if (argc < (n) + 1) goto usage; used = (n); } while (0)
#define RETRY(call) do { while ((r = (call)) == ERANGE && len < BUF_MAX) \
	buf = grow(buf, &len); } while (0)
	if (strcmp(q, "pwnam") == 0) {
		NEED(1);
		put(o, "pwnam %s: ", argv[1]);
		RETRY(getpwnam_r(argv[1], &pw, buf, len, &pwp));
		put_pw(o, r, pwp);
	} else if (strcmp(q, "pwuid") == 0) {
		NEED(1);
		put(o, "pwuid %s: ", argv[1]);
		RETRY(getpwuid_r((uid_t)id_arg(argv[1]), &pw, buf, len, &pwp));
		put_pw(o, r, pwp);
	} else if (strcmp(q, "grnam") == 0) {
		NEED(1);
		put(o, "grnam %s: ", argv[1]);
		RETRY(getgrnam_r(argv[1], &gr, buf, len, &grp));
		put_gr(o, r, grp);
	} else if (strcmp(q, "grgid") == 0) {
		NEED(1);
		put(o, "grgid %s: ", argv[1]);
		RETRY(getgrgid_r((gid_t)id_arg(argv[1]), &gr, buf, len, &grp));
		put_gr(o, r, grp);
	} else if (strcmp(q, "grouplist") == 0) {
		int	 n = 4, want;
		gid_t	*g;

		NEED(2);
		g = malloc((size_t)n * sizeof(gid_t));
		put(o, "grouplist %s %s: ", argv[1], argv[2]);
		for (;;) {
			want = n;
			if (g == NULL)
				abort();
			if ((r = getgrouplist(argv[1], (gid_t)id_arg(argv[2]), g, &n)) >= 0)
				break;
			if (n <= want) {	/* no bigger need said: an error */
				put(o, "error r=%d n=%d", r, n);
				break;
			}
			g = realloc(g, (size_t)n * sizeof(gid_t));
		}
		if (r >= 0) {
			put(o, "n=%d", n);
			for (i = 0; i < n; i++)
				put(o, " %lu", (unsigned long)g[i]);
		}
		free(g);
	} else if (strcmp(q, "servname") == 0) {
		NEED(2);
		put(o, "servname %s %s: ", argv[1], argv[2]);
		RETRY(getservbyname_r(argv[1], opt(argv[2]), &se, buf, len, &sep));
		put_se(o, r, sep);
	} else if (strcmp(q, "servport") == 0) {
		NEED(2);
		put(o, "servport %s %s: ", argv[1], argv[2]);
		RETRY(getservbyport_r((int)htons((uint16_t)id_arg(argv[1])), opt(argv[2]), &se,
		    buf, len, &sep));
		put_se(o, r, sep);
	} else if (strcmp(q, "innetgr") == 0) {
		NEED(4);
		put(o, "innetgr %s %s %s %s: %d", argv[1], argv[2], argv[3], argv[4],
		    innetgr(argv[1], opt(argv[2]), opt(argv[3]), opt(argv[4])));
	} else if (strcmp(q, "netgr") == 0) {
		char	*h, *u, *d, big[65536];

		NEED(1);
		put(o, "netgr %s: set=%d", argv[1], setnetgrent(argv[1]));
		errno = 0;
		while (getnetgrent_r(&h, &u, &d, big, sizeof(big)) == 1)
			put(o, " (%s,%s,%s)", nul(h), nul(u), nul(d));
		if (errno == ERANGE)
			put(o, " error=ERANGE");
		endnetgrent();
	} else if (strcmp(q, "pwent") == 0 || strcmp(q, "grent") == 0) {
		used = 0;
		put(o, "%s: ", q);
		enumerate(o, q[0] == 'g');
	} else
		goto usage;
#undef NEED
#undef RETRY
	put(o, "\n");
	free(buf);
	return used;
usage:
	free(buf);
	fprintf(stderr, "dbprobe: bad query at \"%s\"\n", q);
	return -1;
}

int
main(int argc, char **argv)
{
	struct out	 o = { 0 };
	struct timespec	 t0, t1;
	long		 rounds = 1, r, queries = 0;
	int		 i, n, timing = 0, quiet = 0;

	while (argc > 1 && argv[1][0] == '-' && argv[1][1] != '\0') {
		if (strcmp(argv[1], "-n") == 0 && argc > 2) {
			rounds = atol(argv[2]);
			argv++, argc--;
		} else if (strcmp(argv[1], "-b") == 0 && argc > 2) {
			initial = (size_t)atol(argv[2]);
			argv++, argc--;
		} else if (strcmp(argv[1], "-q") == 0)
			quiet = 1;
		else if (strcmp(argv[1], "-t") == 0)
			timing = 1;
		else
			break;
		argv++, argc--;
	}
	if (argc < 2 || rounds < 1 || initial < 1) {
		fprintf(stderr, "usage: dbprobe [-n COUNT] [-b BYTES] [-q] [-t] QUERY...\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (r = 0; r < rounds; r++) {
		o.len = 0;
		o.quiet = quiet || r + 1 < rounds;
		for (i = 1; i < argc; i += n + 1) {
			if ((n = query(&o, argv + i, argc - i)) < 0)
				return 2;
			queries++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.len)
		fwrite(o.s, 1, o.len, stdout);
	if (timing) {
		double s = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr, "dbprobe: %ld rounds, %ld queries in %.3f s: %.2f us/query\n",
		    rounds, queries, s, s * 1e6 / (double)queries);
	}
	free(o.s);
	return 0;
}
