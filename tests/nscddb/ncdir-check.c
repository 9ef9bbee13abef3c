/* SPDX-License-Identifier: MIT */
/* tests/nscddb/ncdir-check.c - tests/nss/nss_ncdir.c held to glibc's NSS contract. */

/*
 * Usage: ncdir-check PATH/libnss_NAME.so.2
 *
 * Loads the module as glibc does (dlopen, _nss_NAME_*), and checks:
 *   - every buffer size, at every alignment: below the record's size
 *     TRYAGAIN with ERANGE and not a byte written past the end; from it
 *     on SUCCESS and the same record (the 80 KB group: every size near
 *     its own, and a sample of the others at alignment 0); errno kept;
 *   - enumeration: ERANGE does not skip an entry; every entry is the one
 *     a lookup gives;
 *   - initgroups_dyn: glibc's contract (the primary gid skipped, realloc
 *     to twice the size, up to limit, *start kept), and the same groups
 *     as a walk of every group's members, for every user;
 *   - the dynamic users' file, STATIC=0, the call log and the delay.
 * Prints one line per check; exits 1 on the first failure.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static nss_getpwnam_r		*p_getpwnam_r;
static nss_getpwuid_r		*p_getpwuid_r;
static nss_setpwent		*p_setpwent;
static nss_getpwent_r		*p_getpwent_r;
static nss_endpwent		*p_endpwent;
static nss_getgrnam_r		*p_getgrnam_r;
static nss_getgrgid_r		*p_getgrgid_r;
static nss_setgrent		*p_setgrent;
static nss_getgrent_r		*p_getgrent_r;
static nss_endgrent		*p_endgrent;
static nss_initgroups_dyn	*p_initgroups_dyn;
static char			 envpfx[32];	/* "NCDIR_" */

#define ARENA	(256 * 1024)
#define GUARD	0xa5

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list	ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static void *
sym(void *h, const char *name, const char *fn)
{
	char	 full[128];
	void	*p;

	snprintf(full, sizeof(full), "_nss_%s_%s", name, fn);
	if ((p = dlsym(h, full)) == NULL)
		fail("no %s", full);
	return p;
}

static void
set_env(const char *what, const char *value)
{
	char	name[64];

	snprintf(name, sizeof(name), "%s%s", envpfx, what);
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/* --- records as text ------------------------------------------------------ */

static char *
pw_text(const struct passwd *pw)
{
	char	*s;

	if (asprintf(&s, "%s:%s:%u:%u:%s:%s:%s", pw->pw_name, pw->pw_passwd,
	    (unsigned)pw->pw_uid, (unsigned)pw->pw_gid, pw->pw_gecos, pw->pw_dir,
	    pw->pw_shell) < 0)
		abort();
	return s;
}

static char *
gr_text(const struct group *gr)
{
	size_t	 len = 64 + strlen(gr->gr_name) + strlen(gr->gr_passwd), off;
	char	*s;
	int	 i;

	for (i = 0; gr->gr_mem[i]; i++)
		len += strlen(gr->gr_mem[i]) + 1;
	if ((s = malloc(len)) == NULL)
		abort();
	off = (size_t)snprintf(s, len, "%s:%s:%u:", gr->gr_name, gr->gr_passwd,
	    (unsigned)gr->gr_gid);
	for (i = 0; gr->gr_mem[i]; i++)
		off += (size_t)snprintf(s + off, len - off, "%s%s", i ? "," : "",
		    gr->gr_mem[i]);
	return s;
}

/* --- one lookup at one size ------------------------------------------------ */

enum what { PWNAM, PWUID, GRNAM, GRGID };
static const char *const what_name[] = { "getpwnam_r", "getpwuid_r", "getgrnam_r",
	"getgrgid_r" };

/* One call into buf[0..len); the record as text (caller frees) or NULL,
 * *ret_status and *ret_err as the module said. */
static char *
call(enum what w, const char *key, char *buf, size_t len, enum nss_status *ret_status,
    int *ret_err)
{
	struct passwd	 pw;
	struct group	 gr;
	int		 err = 0;
	enum nss_status	 s;

	errno = 4242;
	switch (w) {
	case PWNAM:
		s = p_getpwnam_r(key, &pw, buf, len, &err);
		break;
	case PWUID:
		s = p_getpwuid_r((uid_t)strtoul(key, NULL, 10), &pw, buf, len, &err);
		break;
	case GRNAM:
		s = p_getgrnam_r(key, &gr, buf, len, &err);
		break;
	default:
		s = p_getgrgid_r((gid_t)strtoul(key, NULL, 10), &gr, buf, len, &err);
		break;
	}
	if (errno != 4242)
		fail("%s %s: errno changed to %d", what_name[w], key, errno);
	*ret_status = s;
	*ret_err = err;
	if (s != NSS_STATUS_SUCCESS)
		return NULL;
	return w <= PWUID ? pw_text(&pw) : gr_text(&gr);
}

/* The record and the smallest size that holds it at alignment 0. */
static char *
reference(enum what w, const char *key, size_t *ret_need)
{
	static char	 buf[ARENA];
	enum nss_status	 s;
	size_t		 len;
	char		*text;
	int		 err;

	for (len = 1; len <= ARENA; len *= 2) {
		if ((text = call(w, key, buf, len, &s, &err)) != NULL)
			break;
		if (s != NSS_STATUS_TRYAGAIN || err != ERANGE)
			return NULL;
	}
	if (text == NULL)
		fail("%s %s: no success up to %d bytes", what_name[w], key, ARENA);
	*ret_need = len;
	return text;
}

/*
 * Every size (or, far from the record's own, a sample) at every
 * alignment: the smallest that works, and monotony around it.
 */
static void
sizes(enum what w, const char *key, int want_found)
{
	static char	 arena[ARENA + 64] __attribute__((aligned(16)));
	enum nss_status	 s;
	size_t		 hi, len, need, i, step, first_ok, near;
	char		*ref, *text, *buf;
	unsigned	 align;
	int		 err;
	unsigned long	 calls = 0;

	if ((ref = reference(w, key, &hi)) == NULL) {
		if (want_found)
			fail("%s %s: not found", what_name[w], key);
		call(w, key, arena, ARENA, &s, &err);
		if (s != NSS_STATUS_NOTFOUND || err != ENOENT)
			fail("%s %s: status %d errno %d, want NOTFOUND ENOENT", what_name[w],
			    key, s, err);
		printf("ok   %s %s: NOTFOUND, ENOENT\n", what_name[w], key);
		return;
	}
	if (!want_found)
		fail("%s %s: found %s", what_name[w], key, ref);
	for (align = 0; align < sizeof(void *); align++) {
		buf = arena + align;
		/* Binary search of the smallest size, then every size near it. */
		size_t lo = 0, top = hi + 16;

		while (lo < top) {
			size_t mid = (lo + top) / 2;

			if ((text = call(w, key, buf, mid, &s, &err)) != NULL) {
				free(text);
				top = mid;
			} else
				lo = mid + 1;
			calls++;
		}
		need = first_ok = lo;
		/* A big record costs a millisecond a call: every size within
		 * 80 bytes of its own, and every 1009th below (at alignment 0). */
		near = need > 4096 ? 80 : need + 64;
		step = need > 4096 ? 1009 : 1;
		len = need > 4096 && align != 0 ? need - near : 0;
		for (; len <= need + 64; len += len + near < need ? step : 1) {
			memset(arena, GUARD, sizeof(arena));
			text = call(w, key, buf, len, &s, &err);
			calls++;
			if (len < need) {
				if (text != NULL || s != NSS_STATUS_TRYAGAIN || err != ERANGE)
					fail("%s %s align %u size %zu (< %zu): "
					    "status %d errno %d", what_name[w], key,
					    align, len, need, s, err);
			} else if (text == NULL || strcmp(text, ref) != 0)
				fail("%s %s align %u size %zu (>= %zu): "
				    "status %d errno %d %.80s", what_name[w], key,
				    align, len, need, s, err, text ? text : "");
			free(text);
			for (i = align + len; i < sizeof(arena); i++)
				if ((unsigned char)arena[i] != GUARD)
					fail("%s %s align %u size %zu: byte %zu "
					    "past the end written", what_name[w], key,
					    align, len, i - align - len);
			for (i = 0; i < align; i++)
				if ((unsigned char)arena[i] != GUARD)
					fail("%s %s align %u size %zu: a byte "
					    "before the buffer written", what_name[w],
					    key, align, len);
		}
	}
	printf("ok   %s %s: %zu bytes (%.60s%s), %lu calls\n", what_name[w], key, first_ok,
	    ref, strlen(ref) > 60 ? "..." : "", calls);
	free(ref);
}

/* --- enumeration ---------------------------------------------------------- */

struct list {
	char	**v;
	size_t	 n, cap;
};

static void
list_add(struct list *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		if ((l->v = realloc(l->v, l->cap * sizeof(*l->v))) == NULL)
			abort();
	}
	l->v[l->n++] = s;
}

static void
list_free(struct list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Every entry, asked first with a buffer too small, then growing; each
 * compared with its lookup by name. */
static void
enumerate(int groups, struct list *out)
{
	static char	 buf[ARENA];
	struct passwd	 pw;
	struct group	 gr;
	enum nss_status	 s;
	size_t		 len;
	char		*text, *again;
	int		 err, e2;
	unsigned long	 eranges = 0;

	if (groups)
		p_setgrent(0);
	else
		p_setpwent(0);
	for (;;) {
		for (len = 8;; len *= 2) {
			s = groups ? p_getgrent_r(&gr, buf, len, &err) :
			    p_getpwent_r(&pw, buf, len, &err);
			if (s != NSS_STATUS_TRYAGAIN || err != ERANGE || len >= ARENA)
				break;
			eranges++;
		}
		if (s == NSS_STATUS_NOTFOUND)
			break;
		if (s != NSS_STATUS_SUCCESS)
			fail("get%sent_r: status %d errno %d", groups ? "gr" : "pw", s, err);
		text = groups ? gr_text(&gr) : pw_text(&pw);
		again = call(groups ? GRNAM : PWNAM, groups ? gr.gr_name : pw.pw_name, buf,
		    ARENA, &s, &e2);
		if (again == NULL || strcmp(again, text) != 0)
			fail("enumerated %s, looked up %s", text, again ? again : "nothing");
		free(again);
		list_add(out, text);
	}
	if (groups)
		p_endgrent();
	else
		p_endpwent();
	printf("ok   get%sent_r: %zu entries, each as its lookup, %lu ERANGE retries\n",
	    groups ? "gr" : "pw", out->n, eranges);
}

/* --- initgroups ----------------------------------------------------------- */

/* The module's answer for user: status, and the gids after *start. */
static enum nss_status
mod_initgroups(const char *user, gid_t group, long start, long size, long limit,
    gid_t **ret, long *ret_start, long *ret_size)
{
	gid_t		*g = calloc((size_t)size, sizeof(gid_t));
	enum nss_status	 s;
	long		 i, orig = start;
	int		 err = 0;

	if (g == NULL)
		abort();
	for (i = 0; i < start; i++)
		g[i] = (gid_t)(7000 + i);
	errno = 4242;
	s = p_initgroups_dyn(user, group, &start, &size, &g, limit, &err);
	if (errno != 4242)
		fail("initgroups_dyn %s: errno changed", user);
	for (i = 0; i < orig; i++)
		if (g[i] != (gid_t)(7000 + i))
			fail("initgroups_dyn %s: entry %ld before *start changed", user, i);
	if (s == NSS_STATUS_NOTFOUND && err != ENOENT)
		fail("initgroups_dyn %s: NOTFOUND with errno %d", user, err);
	*ret = g;
	*ret_start = start;
	*ret_size = size;
	return s;
}

struct pair {
	char		*name;
	unsigned	 gid;
};

static int
pair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pair *)a)->name, ((const struct pair *)b)->name);
}

static void
check_initgroups(const struct list *users, const struct list *groups)
{
	enum nss_status	 s;
	gid_t		*g;
	long		 start, size, i, j, count;
	char		 name[128], *p;
	unsigned	 gid, pgid;
	size_t		 u, k, npairs = 0, cap = 0;
	struct pair	*pairs = NULL;

	/* ncu0001: ncsmall and ncg00..ncg39; its primary group skipped. */
	s = mod_initgroups("ncu0001", 200000, 0, 1, 0, &g, &start, &size);
	if (s != NSS_STATUS_SUCCESS || start != 41 || size != 64)
		fail("initgroups_dyn ncu0001: status %d start %ld size %ld, want 41 in 64", s,
		    start, size);
	for (i = 0; i < start; i++)
		if (g[i] == 200000)
			fail("initgroups_dyn ncu0001: the primary group is in");
	free(g);
	s = mod_initgroups("ncu0001", (gid_t)-1, 3, 4, 0, &g, &start, &size);
	if (s != NSS_STATUS_SUCCESS || start != 45 || g[3] != 200000)
		fail("initgroups_dyn ncu0001 after 3: status %d start %ld first %u", s, start,
		    (unsigned)g[3]);
	free(g);
	/* A limit: the list stops at it, and that is not an error. */
	s = mod_initgroups("ncu0001", 200000, 1, 2, 5, &g, &start, &size);
	if (s != NSS_STATUS_SUCCESS || start != 5 || size != 5)
		fail("initgroups_dyn ncu0001 limit 5: status %d start %ld size %ld", s, start,
		    size);
	free(g);
	s = mod_initgroups("ncu0001", 200000, 2, 2, 2, &g, &start, &size);
	if (s != NSS_STATUS_SUCCESS || start != 2 || size != 2)
		fail("initgroups_dyn ncu0001 full at limit: status %d start %ld size %ld", s,
		    start, size);
	free(g);
	s = mod_initgroups("ncbig", 3000000001u, 0, 1, 0, &g, &start, &size);
	if (s != NSS_STATUS_SUCCESS || start != 0)
		fail("initgroups_dyn ncbig: status %d start %ld", s, start);
	free(g);
	s = mod_initgroups("nosuchuser", (gid_t)-1, 0, 1, 0, &g, &start, &size);
	if (s != NSS_STATUS_NOTFOUND || start != 0)
		fail("initgroups_dyn nosuchuser: status %d start %ld", s, start);
	free(g);
	printf("ok   initgroups_dyn: primary skipped, growth 1 -> 64, limit, *start kept, "
	    "unknown NOTFOUND\n");

	/* Every user: the groups whose member lists name it, from (member,
	 * gid) pairs sorted by member. */
	for (k = 0; k < groups->n; k++) {
		if ((p = strdup(groups->v[k])) == NULL ||
		    sscanf(p, "%*[^:]:%*[^:]:%u:", &gid) != 1)
			abort();
		for (char *t = strtok(strrchr(p, ':') + 1, ","); t; t = strtok(NULL, ",")) {
			if (npairs == cap && (pairs = realloc(pairs,
			    (cap = cap ? 2 * cap : 256) * sizeof(*pairs))) == NULL)
				abort();
			if ((pairs[npairs].name = strdup(t)) == NULL)
				abort();
			pairs[npairs++].gid = gid;
		}
		free(p);
	}
	qsort(pairs, npairs, sizeof(*pairs), pair_cmp);
	for (u = 0; u < users->n; u++) {
		if (sscanf(users->v[u], "%127[^:]:%*[^:]:%*u:%u:", name, &pgid) != 2)
			fail("bad passwd text %s", users->v[u]);
		s = mod_initgroups(name, pgid, 0, 16, 0, &g, &start, &size);
		if (s != NSS_STATUS_SUCCESS)
			fail("initgroups_dyn %s: status %d", name, s);
		count = 0;
		for (k = 0; k < npairs; k++) {
			if (strcmp(pairs[k].name, name) != 0 || pairs[k].gid == pgid)
				continue;
			for (j = 0; j < start && g[j] != pairs[k].gid; j++)
				;
			if (j == start)
				fail("initgroups_dyn %s: %u missing", name, pairs[k].gid);
			count++;
		}
		if (count != start)
			fail("initgroups_dyn %s: %ld groups, the lists name it in %ld", name,
			    start, count);
		free(g);
	}
	for (k = 0; k < npairs; k++)
		free(pairs[k].name);
	free(pairs);
	printf("ok   initgroups_dyn: %zu users, as the %zu groups' member lists say\n",
	    users->n, groups->n);
}

/* --- the environment ------------------------------------------------------ */

static int
found(enum what w, const char *key, char **ret_text)
{
	static char	 buf[ARENA];
	enum nss_status	 s;
	int		 err;
	char		*text = call(w, key, buf, sizeof(buf), &s, &err);

	if (ret_text)
		*ret_text = text;
	else
		free(text);
	return text != NULL;
}

static void
write_file(const char *path, const char *text)
{
	FILE	*f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		fail("write %s", path);
}

static void
check_dynamic(const char *dir)
{
	char		 path[512], *text;
	struct list	 users = { 0 }, groups = { 0 };
	gid_t		*g;
	long		 start, size;

	snprintf(path, sizeof(path), "%s/dynamic", dir);
	set_env("DYNAMIC", path);
	if (found(PWNAM, "ncdyn1", NULL))
		fail("dynamic: ncdyn1 without the file");
	/* ncu0001 and 200001 are the directory's; ncdyn1 again is the second. */
	write_file(path, "ncdyn1:60001\nncu0001:60002\nbad line\nncdyn2:200001\n"
	    "ncdyn1:60003\n# ncdyn4:60005\nncdyn3:60004\n");
	if (!found(PWNAM, "ncdyn1", &text) ||
	    strcmp(text, "ncdyn1:x:60001:60001:Dynamic ncdyn1:/home/ncdyn1:/bin/bash") != 0)
		fail("dynamic: ncdyn1 is %s", text ? text : "not found");
	free(text);
	if (!found(GRGID, "60001", &text) || strcmp(text, "ncdyn1:x:60001:") != 0)
		fail("dynamic: gid 60001 is %s", text ? text : "not found");
	free(text);
	if (!found(PWUID, "60004", NULL) || !found(GRNAM, "ncdyn3", NULL))
		fail("dynamic: ncdyn3 missing");
	if (found(PWUID, "60002", NULL) || found(PWNAM, "ncdyn2", NULL) ||
	    found(GRNAM, "ncdyn2", NULL) || found(PWUID, "60003", NULL) ||
	    found(GRGID, "60003", NULL) || found(PWUID, "60005", NULL))
		fail("dynamic: a shadowed or commented entry exists");
	if (!found(PWUID, "200001", &text) || strncmp(text, "ncu0001:", 8) != 0)
		fail("dynamic: uid 200001 is %s", text ? text : "not found");
	free(text);
	enumerate(0, &users);
	enumerate(1, &groups);
	if (users.n != 5005 + 2 || groups.n != 44 + 2)
		fail("dynamic: enumerated %zu users, %zu groups", users.n, groups.n);
	if (mod_initgroups("ncdyn1", 60001, 0, 1, 0, &g, &start, &size) !=
	    NSS_STATUS_SUCCESS ||
	    start != 0)
		fail("dynamic: initgroups ncdyn1");
	free(g);
	/* Gone from the file: gone. */
	write_file(path, "ncdyn3:60004\n");
	if (found(PWNAM, "ncdyn1", NULL) || found(GRGID, "60001", NULL) ||
	    !found(PWNAM, "ncdyn3", NULL))
		fail("dynamic: ncdyn1 outlived its line");
	unlink(path);
	if (found(PWNAM, "ncdyn3", NULL))
		fail("dynamic: ncdyn3 outlived the file");

	/* STATIC=0: the dynamic users alone, ncu0001 among them. */
	set_env("STATIC", "0");
	if (found(PWNAM, "ncu0001", NULL) || found(GRGID, "200000", NULL) ||
	    found(GRNAM, "ncg00", NULL) || found(PWUID, "3000000000", NULL))
		fail("static off: the directory is still there");
	write_file(path, "ncu0001:61003\nncdyn1:60001\n");
	if (!found(PWNAM, "ncu0001", &text) ||
	    strncmp(text, "ncu0001:x:61003:61003:", 22) != 0)
		fail("static off: ncu0001 is %s", text ? text : "not found");
	free(text);
	list_free(&users);
	list_free(&groups);
	enumerate(0, &users);
	enumerate(1, &groups);
	if (users.n != 2 || groups.n != 2)
		fail("static off: enumerated %zu users, %zu groups", users.n, groups.n);
	if (mod_initgroups("ncu0001", (gid_t)-1, 0, 1, 0, &g, &start, &size) !=
	    NSS_STATUS_SUCCESS || start != 0)
		fail("static off: initgroups ncu0001");
	free(g);
	list_free(&users);
	list_free(&groups);
	unlink(path);
	set_env("STATIC", NULL);
	set_env("DYNAMIC", NULL);
	printf("ok   dynamic users: come and go with their lines; the directory's names "
	    "and ids win; STATIC=0 leaves them alone\n");
}

/*
 * The module's sleeps, seen here: this program is linked with its symbols
 * exported (meson.build: export_dynamic), so the nanosleep the module
 * calls is this one.  The delay is checked as what the module asked for,
 * not as time measured around the call.
 */
static long	slept_ms, sleeps;

__attribute__((visibility("default"))) int
nanosleep(const struct timespec *req, struct timespec *rem)
{
	int e;

	sleeps++;
	slept_ms += (long)req->tv_sec * 1000 + req->tv_nsec / 1000000;
	if ((e = clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem)) != 0) {
		errno = e;
		return -1;
	}
	return 0;
}

static void
check_log_delay(const char *dir)
{
	char		 path[512], got[512];
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof(path), "%s/log", dir);
	set_env("LOG", path);
	found(PWNAM, "ncu0001", NULL);
	found(GRGID, "200000", NULL);
	found(PWUID, "3000000000", NULL);
	set_env("LOG", NULL);
	if ((f = fopen(path, "r")) == NULL)
		fail("log: no %s", path);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	unlink(path);
	if (strcmp(got, "getpwnam_r ncu0001\ngetgrgid_r 200000\ngetpwuid_r 3000000000\n"))
		fail("log: %s", got);
	/* No delay asked: no sleep; DELAY_MS=40: one sleep of 40 ms a call. */
	sleeps = slept_ms = 0;
	found(PWNAM, "ncu0001", NULL);
	if (sleeps != 0)
		fail("delay: %ld sleeps without DELAY_MS", sleeps);
	set_env("DELAY_MS", "40");
	found(PWNAM, "ncu0001", NULL);
	set_env("DELAY_MS", NULL);
	if (sleeps != 1 || slept_ms != 40)
		fail("delay: %ld sleeps, %ld ms asked, not one of 40", sleeps, slept_ms);
	printf("ok   log lines \"FUNC KEY\"; the delay (one sleep of 40 ms asked)\n");
}

int
main(int argc, char **argv)
{
	static const struct { enum what w; const char *key; int found; } keys[] = {
		{ PWNAM, "ncu0000", 1 }, { PWNAM, "ncu0001", 1 }, { PWNAM, "ncu4999", 1 },
		{ PWNAM, "nc.dot-user", 1 }, { PWNAM, "nc-dash.2", 1 },
		{ PWNAM, "nclong-user-0123456789-0123456789-0123456789-0123456789-abcd", 1 },
		{ PWNAM, "ncnogroup", 1 }, { PWNAM, "ncbig", 1 },
		{ PWNAM, "NCU0001", 0 }, { PWNAM, "ncu5000", 0 }, { PWNAM, "ncu001", 0 },
		{ PWNAM, "ncu00010", 0 }, { PWNAM, "", 0 }, { PWNAM, "ncstaff", 0 },
		{ PWUID, "200001", 1 }, { PWUID, "3000000000", 1 }, { PWUID, "205003", 1 },
		{ PWUID, "205004", 0 }, { PWUID, "4294967295", 0 }, { PWUID, "0", 0 },
		{ GRNAM, "ncstaff", 1 }, { GRNAM, "ncsmall", 1 }, { GRNAM, "ncg00", 1 },
		{ GRNAM, "ncg39", 1 }, { GRNAM, "ncbiggrp", 1 }, { GRNAM, "ncempty", 1 },
		{ GRNAM, "ncg40", 0 }, { GRNAM, "ncg1", 0 }, { GRNAM, "NCSTAFF", 0 },
		{ GRGID, "200000", 1 }, { GRGID, "210039", 1 }, { GRGID, "3000000001", 1 },
		{ GRGID, "220000", 1 }, { GRGID, "299999", 0 }, { GRGID, "210040", 0 },
	};
	struct list	 users = { 0 }, groups = { 0 };
	char		 name[64], dir[] = "/tmp/ncdir-check-XXXXXX";
	const char	*base, *end;
	void		*h;
	size_t		 i;

	if (argc != 2) {
		fprintf(stderr, "usage: ncdir-check PATH/libnss_NAME.so.2\n");
		return 2;
	}
	base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	if (strncmp(base, "libnss_", 7) != 0 || (end = strchr(base, '.')) == NULL ||
	    (size_t)(end - base - 7) >= sizeof(name))
		fail("not a libnss_NAME.so.2: %s", argv[1]);
	snprintf(name, sizeof(name), "%.*s", (int)(end - base - 7), base + 7);
	for (i = 0; name[i] && i < sizeof(envpfx) - 2; i++)
		envpfx[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	envpfx[i] = '_';
	if ((h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL)
		fail("dlopen: %s", dlerror());
	p_getpwnam_r = (nss_getpwnam_r *)sym(h, name, "getpwnam_r");
	p_getpwuid_r = (nss_getpwuid_r *)sym(h, name, "getpwuid_r");
	p_setpwent = (nss_setpwent *)sym(h, name, "setpwent");
	p_getpwent_r = (nss_getpwent_r *)sym(h, name, "getpwent_r");
	p_endpwent = (nss_endpwent *)sym(h, name, "endpwent");
	p_getgrnam_r = (nss_getgrnam_r *)sym(h, name, "getgrnam_r");
	p_getgrgid_r = (nss_getgrgid_r *)sym(h, name, "getgrgid_r");
	p_setgrent = (nss_setgrent *)sym(h, name, "setgrent");
	p_getgrent_r = (nss_getgrent_r *)sym(h, name, "getgrent_r");
	p_endgrent = (nss_endgrent *)sym(h, name, "endgrent");
	p_initgroups_dyn = (nss_initgroups_dyn *)sym(h, name, "initgroups_dyn");
	set_env("LOG", NULL);
	set_env("DYNAMIC", NULL);
	set_env("DELAY_MS", NULL);
	set_env("STATIC", NULL);

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		sizes(keys[i].w, keys[i].key, keys[i].found);
	enumerate(0, &users);
	enumerate(1, &groups);
	if (users.n != 5005 || groups.n != 44)
		fail("enumerated %zu users and %zu groups, want 5005 and 44", users.n,
		    groups.n);
	check_initgroups(&users, &groups);
	if (mkdtemp(dir) == NULL)
		fail("mkdtemp");
	check_dynamic(dir);
	check_log_delay(dir);
	rmdir(dir);
	list_free(&users);
	list_free(&groups);
	printf("%s: all checks passed\n", base);
	return 0;
}
