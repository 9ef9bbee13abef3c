/* SPDX-License-Identifier: MIT */
/*
 * tests/nss/nss_ncdir.c - a fake user directory (as LDAP or sssd) for passwd, group, initgroups.
 *
 * Everything it knows is generated here, the same in every process, so
 * that glibc's own walk and a daemon that loaded the module give the same
 * answers.  Names compare byte for byte (NCU0001 is not ncu0001).
 *
 * Users (password "x", shell /bin/bash):
 *	ncu0000..ncu4999   uid 200000+i, gid 200000, gecos "NC User i",
 *	                   home /home/ncu0000..
 *	nc.dot-user        uid 205000, gid 200000
 *	nc-dash.2          uid 205001, gid 200000
 *	LONG_USER (60 bytes) uid 205002, gid 200001
 *	ncnogroup          uid 205003, gid 299999 (no such group), gecos ""
 *	ncbig              uid 3000000000, gid 3000000001 (both above 2^31)
 * Groups (password "x"), members in this order:
 *	ncstaff  200000      ncu0000..ncu4999: about 80 KB in a buffer, so
 *	                     callers see ERANGE and grow theirs
 *	ncsmall  200001      ncu0001, nc.dot-user, nc-dash.2
 *	ncg00..ncg39 210000+k  ncu0001 in all 40 (more than 16), ncu0002 in
 *	                     the even ones
 *	ncbiggrp 3000000001  ncbig
 *	ncempty  220000      no member
 * Enumeration gives the users, then the groups, in the order above.
 *
 * Built a third time as libnss_ncenum.so.2 without initgroups_dyn
 * (-DNCDIR_NO_INITGROUPS): glibc, and namecached, then find a user's
 * groups by enumerating getgrent_r (glibc's compat_call).
 * Environment, read at every call (the prefix is the module's name in
 * capitals: NCDIR_ here, NCDYN_ in libnss_ncdyn.so.2, the same source
 * built again under another name, so that a line can name two modules
 * and a test can tell their calls apart):
 *	NCDIR_DYNAMIC=FILE   lines "name:uid" ('#' a comment) are more users, each with a
 *	                     group of its name, gid = uid, no member; they
 *	                     exist while listed (re-read at every call), as
 *	                     systemd's DynamicUser ones.  A name or id the
 *	                     directory has already wins.  At most DYN_MAX.
 *	NCDIR_STATIC=0       the generated users and groups are off: only the
 *	                     dynamic ones (as nss-systemd, on a line before
 *	                     the directory: "files ncdyn ncdir")
 *	NCDIR_LOG=FILE       every call appends "FUNC KEY\n" in one write
 *	                     (FUNC without the _nss_ncdir_ prefix; KEY the
 *	                     name, the decimal id, or "-"); ERANGE retries
 *	                     are calls too
 *	NCDIR_DELAY_MS=N     every get*_r and initgroups_dyn call sleeps N ms
 *	                     first (coalescing tests)
 *	NCDIR_STAFF_EXTRA=N  ncstaff has N more members after ncu4999,
 *	                     ncx000000.. (names, not users; up to 1000000):
 *	                     a group of tens of thousands of members
 *
 * Errors: a short buffer is TRYAGAIN with *errnop = ERANGE, at every size
 * (tests/nscddb/ncdir-check.c tries them all); unknown is NOTFOUND with
 * ENOENT.  errno itself is kept.  Thread-safe: only the enumeration
 * positions are shared, under one lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <nss.h>
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef NCDIR_NAME
#define NCDIR_NAME	ncdir
#endif
#ifndef NCDIR_ENV
#define NCDIR_ENV	"NCDIR_"
#endif

#define CAT2(a, b)	a##b
#define CAT(a, b)	CAT2(a, b)
#define FN(f)		CAT(CAT(_nss_, NCDIR_NAME), CAT(_, f))
#define EXPORT		__attribute__((visibility("default")))

/* glibc's own types for each function (nss.h): a wrong signature does
 * not compile. */
EXPORT nss_getpwnam_r		FN(getpwnam_r);
EXPORT nss_getpwuid_r		FN(getpwuid_r);
EXPORT nss_setpwent		FN(setpwent);
EXPORT nss_getpwent_r		FN(getpwent_r);
EXPORT nss_endpwent		FN(endpwent);
EXPORT nss_getgrnam_r		FN(getgrnam_r);
EXPORT nss_getgrgid_r		FN(getgrgid_r);
EXPORT nss_setgrent		FN(setgrent);
EXPORT nss_getgrent_r		FN(getgrent_r);
EXPORT nss_endgrent		FN(endgrent);
#ifndef NCDIR_NO_INITGROUPS
EXPORT nss_initgroups_dyn	FN(initgroups_dyn);
#endif

#define NAMELEN		64	/* the longest name, with its NUL */
#define NUSERS		5000
#define UID_BASE	200000u
#define GID_STAFF	200000u
#define GID_SMALL	200001u
#define GID_EMPTY	220000u
#define NNUM		40
#define GID_NUM		210000u
#define BIG_UID		3000000000u
#define BIG_GID		3000000001u
#define LONG_USER	"nclong-user-0123456789-0123456789-0123456789-0123456789-abcd"
#define DYN_MAX		32
#define DYN_NAMELEN	32

static const struct extra {
	const char	*name;
	uint32_t	 uid, gid;
	const char	*gecos;
} extras[] = {
	{ "nc.dot-user", 205000, GID_STAFF, "Dot User" },
	{ "nc-dash.2", 205001, GID_STAFF, "Dash User" },
	{ LONG_USER, 205002, GID_SMALL, "Long Name User" },
	{ "ncnogroup", 205003, 299999, "" },
	{ "ncbig", BIG_UID, BIG_GID, "Big Uid" },
};
#define NEXTRAS	(sizeof(extras) / sizeof(extras[0]))

static const char *const small_members[] = { "ncu0001", "nc.dot-user", "nc-dash.2" };
#define NSMALL	(sizeof(small_members) / sizeof(small_members[0]))

/* Groups by index: the fixed ones, then ncg00..ncg39, then dynamic ones. */
enum { G_STAFF, G_SMALL, G_BIG, G_EMPTY, G_NUM0 };
#define NFIXED_GROUPS	(G_NUM0 + NNUM)

struct dyn {
	unsigned	 n;
	struct {
		char	 name[DYN_NAMELEN];
		uint32_t id;
	} e[DYN_MAX];
};

struct user {
	char		 name[NAMELEN];
	uint32_t	 uid, gid;
	char		 gecos[48];	/* "Dynamic " and a name of up to 31 */
	char		 dir[NAMELEN + 8];
};

struct grp {
	unsigned	 idx;		/* as above; dynamic: NFIXED_GROUPS + i */
	char		 name[NAMELEN];
	uint32_t	 gid;
};

static const char *
env(const char *what)
{
	char	name[64];

	snprintf(name, sizeof(name), "%s%s", NCDIR_ENV, what);
	return getenv(name);
}

static void
log_call(const char *fn, const char *key)
{
	const char	*path = env("LOG");
	char		 line[NAMELEN + 128];
	int		 fd, n;

	if (path == NULL)
		return;
	n = snprintf(line, sizeof(line), "%s %.*s\n", fn, NAMELEN + 32, key);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* a test that counts sees the lack */
	}
	close(fd);
}

static void
log_id(const char *fn, uint32_t id)
{
	char	key[16];

	snprintf(key, sizeof(key), "%u", id);
	log_call(fn, key);
}

static void
delay(void)
{
	const char	*ms = env("DELAY_MS");
	long		 n = ms ? atol(ms) : 0;
	struct timespec	 ts = { n / 1000, (n % 1000) * 1000000 };

	if (n <= 0)
		return;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The generated directory, unless NCDIR_STATIC=0. */
static int
fixed_on(void)
{
	const char *v = env("STATIC");

	return v == NULL || strcmp(v, "0") != 0;
}

/* The dynamic users listed now: none without the file. */
static void
dyn_load(struct dyn *d)
{
	const char	*path = env("DYNAMIC");
	char		 line[128], *colon, *end;
	unsigned long	 id;
	size_t		 len;
	FILE		*f;

	d->n = 0;
	if (path == NULL || (f = fopen(path, "re")) == NULL)
		return;
	while (d->n < DYN_MAX && fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#' || (colon = strchr(line, ':')) == NULL)
			continue;
		len = (size_t)(colon - line);
		if (len == 0 || len >= DYN_NAMELEN)
			continue;
		errno = 0;
		id = strtoul(colon + 1, &end, 10);
		if (errno != 0 || end == colon + 1 || (*end != '\n' && *end != '\0') ||
		    id > UINT32_MAX - 1)
			continue;
		memcpy(d->e[d->n].name, line, len);
		d->e[d->n].name[len] = '\0';
		d->e[d->n].id = (uint32_t)id;
		d->n++;
	}
	fclose(f);
}

/* --- users ------------------------------------------------------------- */

#define NFIXED_USERS	(NUSERS + NEXTRAS)

static const struct dyn	no_dyn;

static int user_by_name(const char *name, const struct dyn *d, struct user *u);
static int user_by_uid(uint32_t uid, const struct dyn *d, struct user *u);
static int group_by_name(const char *name, const struct dyn *d, struct grp *g);
static int group_by_gid(uint32_t gid, const struct dyn *d, struct grp *g);

/*
 * A dynamic entry (a user and its group) that a fixed user or group, or
 * an earlier entry, has the name or the id of does not exist: one rule
 * for lookups and enumeration.
 */
static int
dyn_shadowed(const struct dyn *d, unsigned k)
{
	struct user	 u;
	struct grp	 g;
	unsigned	 i;

	if (user_by_name(d->e[k].name, &no_dyn, &u) == 0 ||
	    user_by_uid(d->e[k].id, &no_dyn, &u) == 0 ||
	    group_by_name(d->e[k].name, &no_dyn, &g) == 0 ||
	    group_by_gid(d->e[k].id, &no_dyn, &g) == 0)
		return 1;
	for (i = 0; i < k; i++)
		if (strcmp(d->e[i].name, d->e[k].name) == 0 || d->e[i].id == d->e[k].id)
			return 1;
	return 0;
}

/* User number i (ncu, then extras, then dynamic); -EAGAIN for a shadowed
 * one, -ENOENT past the end. */
static int
user_at(unsigned i, const struct dyn *d, struct user *u)
{
	if (i < NFIXED_USERS && !fixed_on())
		return -EAGAIN;
	if (i < NUSERS) {
		snprintf(u->name, sizeof(u->name), "ncu%04u", i);
		u->uid = UID_BASE + i;
		u->gid = GID_STAFF;
		snprintf(u->gecos, sizeof(u->gecos), "NC User %u", i);
	} else if (i < NFIXED_USERS) {
		const struct extra *x = &extras[i - NUSERS];

		snprintf(u->name, sizeof(u->name), "%s", x->name);
		u->uid = x->uid;
		u->gid = x->gid;
		snprintf(u->gecos, sizeof(u->gecos), "%s", x->gecos);
	} else if (i - NFIXED_USERS < d->n) {
		unsigned k = i - NFIXED_USERS;

		if (dyn_shadowed(d, k))
			return -EAGAIN;
		snprintf(u->name, sizeof(u->name), "%s", d->e[k].name);
		u->uid = u->gid = d->e[k].id;
		snprintf(u->gecos, sizeof(u->gecos), "Dynamic %s", d->e[k].name);
	} else
		return -ENOENT;
	snprintf(u->dir, sizeof(u->dir), "/home/%s", u->name);
	return 0;
}

/* "ncu" and exactly four digits below NUSERS: its number, else -1. */
static int
ncu_number(const char *name)
{
	int	 i, n = 0;

	if (strncmp(name, "ncu", 3) != 0 || strlen(name) != 7)
		return -1;
	for (i = 3; i < 7; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		n = n * 10 + (name[i] - '0');
	}
	return n < NUSERS ? n : -1;
}

static int
user_by_name(const char *name, const struct dyn *d, struct user *u)
{
	unsigned	 i;
	int		 n;

	/* The directory's names, unless it is off; then the dynamic ones. */
	if ((n = ncu_number(name)) >= 0 && user_at((unsigned)n, d, u) == 0)
		return 0;
	for (i = 0; i < NEXTRAS; i++)
		if (strcmp(name, extras[i].name) == 0 && user_at(NUSERS + i, d, u) == 0)
			return 0;
	for (i = 0; i < d->n; i++)
		if (strcmp(name, d->e[i].name) == 0)
			return user_at(NFIXED_USERS + i, d, u) == 0 ? 0 : -ENOENT;
	return -ENOENT;
}

static int
user_by_uid(uint32_t uid, const struct dyn *d, struct user *u)
{
	unsigned	 i;

	if (uid >= UID_BASE && uid < UID_BASE + NUSERS &&
	    user_at(uid - UID_BASE, d, u) == 0)
		return 0;
	for (i = 0; i < NEXTRAS; i++)
		if (uid == extras[i].uid && user_at(NUSERS + i, d, u) == 0)
			return 0;
	for (i = 0; i < d->n; i++)
		if (uid == d->e[i].id)
			return user_at(NFIXED_USERS + i, d, u) == 0 ? 0 : -ENOENT;
	return -ENOENT;
}

/* --- groups ------------------------------------------------------------ */

/* Group number idx (fixed, ncg, dynamic); -EAGAIN, -ENOENT as user_at. */
static int
group_at(unsigned idx, const struct dyn *d, struct grp *g)
{
	static const struct { const char *name; uint32_t gid; } fixed[] = {
		[G_STAFF] = { "ncstaff", GID_STAFF },
		[G_SMALL] = { "ncsmall", GID_SMALL },
		[G_BIG] = { "ncbiggrp", BIG_GID },
		[G_EMPTY] = { "ncempty", GID_EMPTY },
	};
	g->idx = idx;
	if (idx < NFIXED_GROUPS && !fixed_on())
		return -EAGAIN;
	if (idx < G_NUM0) {
		snprintf(g->name, sizeof(g->name), "%s", fixed[idx].name);
		g->gid = fixed[idx].gid;
	} else if (idx < NFIXED_GROUPS) {
		snprintf(g->name, sizeof(g->name), "ncg%02u", idx - G_NUM0);
		g->gid = GID_NUM + (idx - G_NUM0);
	} else if (idx - NFIXED_GROUPS < d->n) {
		unsigned k = idx - NFIXED_GROUPS;

		if (dyn_shadowed(d, k))
			return -EAGAIN;
		snprintf(g->name, sizeof(g->name), "%s", d->e[k].name);
		g->gid = d->e[k].id;
	} else
		return -ENOENT;
	return 0;
}

static int
group_by_name(const char *name, const struct dyn *d, struct grp *g)
{
	unsigned	 i;

	for (i = 0; i < G_NUM0; i++)
		if (group_at(i, d, g) == 0 && strcmp(name, g->name) == 0)
			return 0;
	if (strncmp(name, "ncg", 3) == 0 && strlen(name) == 5 &&
	    name[3] >= '0' && name[3] <= '9' && name[4] >= '0' && name[4] <= '9' &&
	    (i = (unsigned)(name[3] - '0') * 10 + (unsigned)(name[4] - '0')) < NNUM &&
	    group_at(G_NUM0 + i, d, g) == 0)
		return 0;
	for (i = 0; i < d->n; i++)
		if (strcmp(name, d->e[i].name) == 0)
			return group_at(NFIXED_GROUPS + i, d, g) == 0 ? 0 : -ENOENT;
	return -ENOENT;
}

static int
group_by_gid(uint32_t gid, const struct dyn *d, struct grp *g)
{
	unsigned	 i;

	for (i = 0; i < G_NUM0; i++)
		if (group_at(i, d, g) == 0 && gid == g->gid)
			return 0;
	if (gid >= GID_NUM && gid < GID_NUM + NNUM &&
	    group_at(G_NUM0 + (gid - GID_NUM), d, g) == 0)
		return 0;
	for (i = 0; i < d->n; i++)
		if (gid == d->e[i].id)
			return group_at(NFIXED_GROUPS + i, d, g) == 0 ? 0 : -ENOENT;
	return -ENOENT;
}

/* NCDIR_STAFF_EXTRA: members of ncstaff past the users. */
static unsigned
staff_extra(void)
{
	const char	*v = env("STAFF_EXTRA");
	unsigned long	 n = v ? strtoul(v, NULL, 10) : 0;

	return n > 1000000 ? 1000000 : (unsigned)n;
}

static unsigned
group_nmem(const struct grp *g)
{
	if (g->idx == G_STAFF)
		return NUSERS + staff_extra();
	if (g->idx == G_SMALL)
		return NSMALL;
	if (g->idx == G_BIG)
		return 1;
	if (g->idx >= G_NUM0 && g->idx < NFIXED_GROUPS)
		return (g->idx - G_NUM0) % 2 == 0 ? 2 : 1;
	return 0;
}

/* Member j (< group_nmem) into buf[NAMELEN]. */
static void
group_mem(const struct grp *g, unsigned j, char *buf)
{
	if (g->idx == G_STAFF && j >= NUSERS)
		snprintf(buf, NAMELEN, "ncx%06u", j - NUSERS);
	else if (g->idx == G_STAFF)
		snprintf(buf, NAMELEN, "ncu%04u", j);
	else if (g->idx == G_SMALL)
		snprintf(buf, NAMELEN, "%s", small_members[j]);
	else if (g->idx == G_BIG)
		snprintf(buf, NAMELEN, "ncbig");
	else
		snprintf(buf, NAMELEN, "ncu%04u", 1 + j);
}

/* The same answer as a walk of group_mem, without 5000 strings. */
static int __attribute__((unused))
group_has(const struct grp *g, const char *user)
{
	char		 m[NAMELEN];
	unsigned	 j, n = group_nmem(g);

	if (g->idx == G_STAFF && ncu_number(user) >= 0)
		return 1;
	if (g->idx == G_STAFF) {
		char *end;

		j = strncmp(user, "ncx", 3) == 0 && strlen(user) == 9 ?
		    (unsigned)strtoul(user + 3, &end, 10) : UINT32_MAX;
		return j < n - NUSERS;
	}
	for (j = 0; j < n; j++) {
		group_mem(g, j, m);
		if (strcmp(m, user) == 0)
			return 1;
	}
	return 0;
}

/* --- packing into the caller's buffer ------------------------------------- */

struct pack {
	char	*p;
	size_t	 left;
};

/* The caller checked the total size first. */
static char *
pack_str(struct pack *pk, const char *s)
{
	size_t	 n = strlen(s) + 1;
	char	*out = pk->p;

	memcpy(out, s, n);
	pk->p += n;
	pk->left -= n;
	return out;
}

static enum nss_status
fill_pw(const struct user *u, struct passwd *pw, char *buf, size_t len, int *ret_errno)
{
	static const char	 shell[] = "/bin/bash";
	struct pack		 pk = { buf, len };
	size_t			 need;

	need = strlen(u->name) + 1 + 2 + strlen(u->gecos) + 1 + strlen(u->dir) + 1 +
	    sizeof(shell);
	if (len < need) {
		*ret_errno = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	pw->pw_name = pack_str(&pk, u->name);
	pw->pw_passwd = pack_str(&pk, "x");
	pw->pw_uid = u->uid;
	pw->pw_gid = u->gid;
	pw->pw_gecos = pack_str(&pk, u->gecos);
	pw->pw_dir = pack_str(&pk, u->dir);
	pw->pw_shell = pack_str(&pk, shell);
	return NSS_STATUS_SUCCESS;
}

static enum nss_status
fill_gr(const struct grp *g, struct group *gr, char *buf, size_t len, int *ret_errno)
{
	unsigned	 n = group_nmem(g), j;
	size_t		 align = (sizeof(char *) - (uintptr_t)buf % sizeof(char *)) %
			    sizeof(char *);
	size_t		 need = align + (n + 1) * sizeof(char *) + strlen(g->name) + 1 + 2;
	char		 m[NAMELEN];
	char		**mem;
	struct pack	 pk;

	for (j = 0; j < n; j++) {
		group_mem(g, j, m);
		need += strlen(m) + 1;
	}
	if (len < need) {
		*ret_errno = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	mem = (char **)(void *)(buf + align);
	pk.p = buf + align + (n + 1) * sizeof(char *);
	pk.left = len - align - (n + 1) * sizeof(char *);
	gr->gr_name = pack_str(&pk, g->name);
	gr->gr_passwd = pack_str(&pk, "x");
	gr->gr_gid = g->gid;
	for (j = 0; j < n; j++) {
		group_mem(g, j, m);
		mem[j] = pack_str(&pk, m);
	}
	mem[n] = NULL;
	gr->gr_mem = mem;
	return NSS_STATUS_SUCCESS;
}

/*
 * Every exported function ends here: errno as it was, *errnop set on
 * failure (it is often &errno itself, so after the restore).
 */
static enum nss_status
finish(enum nss_status s, int err, int saved, int *errnop)
{
	errno = saved;
	if (s != NSS_STATUS_SUCCESS)
		*errnop = err;
	return s;
}

/* --- passwd -------------------------------------------------------------- */

enum nss_status
FN(getpwnam_r)(const char *name, struct passwd *pw, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct user	 u;

	log_call("getpwnam_r", name);
	delay();
	dyn_load(&d);
	if (user_by_name(name, &d, &u) == 0)
		s = fill_pw(&u, pw, buf, len, &err);
	return finish(s, err, saved, errnop);
}

enum nss_status
FN(getpwuid_r)(uid_t uid, struct passwd *pw, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct user	 u;

	log_id("getpwuid_r", uid);
	delay();
	dyn_load(&d);
	if (user_by_uid(uid, &d, &u) == 0)
		s = fill_pw(&u, pw, buf, len, &err);
	return finish(s, err, saved, errnop);
}

/* glibc serialises a process's enumeration; the lock is for a daemon's
 * threads calling the module directly. */
static pthread_mutex_t	ent_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned		pw_next, gr_next;

enum nss_status
FN(setpwent)(int stayopen)
{
	int	saved = errno;

	log_call("setpwent", "-");
	pthread_mutex_lock(&ent_lock);
	pw_next = 0;
	pthread_mutex_unlock(&ent_lock);
	errno = saved;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
FN(endpwent)(void)
{
	return FN(setpwent)(0);
}

enum nss_status
FN(getpwent_r)(struct passwd *pw, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT, r;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct user	 u;

	log_call("getpwent_r", "-");
	delay();
	dyn_load(&d);
	pthread_mutex_lock(&ent_lock);
	while ((r = user_at(pw_next, &d, &u)) == -EAGAIN)
		pw_next++;
	/* ERANGE does not move on: the caller asks again, bigger. */
	if (r == 0 && (s = fill_pw(&u, pw, buf, len, &err)) == NSS_STATUS_SUCCESS)
		pw_next++;
	pthread_mutex_unlock(&ent_lock);
	return finish(s, err, saved, errnop);
}

/* --- group --------------------------------------------------------------- */

enum nss_status
FN(getgrnam_r)(const char *name, struct group *gr, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct grp	 g;

	log_call("getgrnam_r", name);
	delay();
	dyn_load(&d);
	if (group_by_name(name, &d, &g) == 0)
		s = fill_gr(&g, gr, buf, len, &err);
	return finish(s, err, saved, errnop);
}

enum nss_status
FN(getgrgid_r)(gid_t gid, struct group *gr, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct grp	 g;

	log_id("getgrgid_r", gid);
	delay();
	dyn_load(&d);
	if (group_by_gid(gid, &d, &g) == 0)
		s = fill_gr(&g, gr, buf, len, &err);
	return finish(s, err, saved, errnop);
}

enum nss_status
FN(setgrent)(int stayopen)
{
	int	saved = errno;

	log_call("setgrent", "-");
	pthread_mutex_lock(&ent_lock);
	gr_next = 0;
	pthread_mutex_unlock(&ent_lock);
	errno = saved;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
FN(endgrent)(void)
{
	return FN(setgrent)(0);
}

enum nss_status
FN(getgrent_r)(struct group *gr, char *buf, size_t len, int *errnop)
{
	int		 saved = errno, err = ENOENT, r;
	enum nss_status	 s = NSS_STATUS_NOTFOUND;
	struct dyn	 d;
	struct grp	 g;

	log_call("getgrent_r", "-");
	delay();
	dyn_load(&d);
	pthread_mutex_lock(&ent_lock);
	while ((r = group_at(gr_next, &d, &g)) == -EAGAIN)
		gr_next++;
	if (r == 0 && (s = fill_gr(&g, gr, buf, len, &err)) == NSS_STATUS_SUCCESS)
		gr_next++;
	pthread_mutex_unlock(&ent_lock);
	return finish(s, err, saved, errnop);
}

/*
 * glibc's contract (grp/initgroups.c, nss_files/files-initgroups.c):
 * append to (*groupsp)[*start..] the gid of every group that lists user,
 * except group (the primary one, the caller's); when *start reaches
 * *size, grow the array with realloc to twice its size, to at most limit
 * when limit > 0, and stop adding once it is limit long (SUCCESS: a full
 * list is not an error).  Duplicates are the caller's to remove.
 * NOTFOUND when the directory neither knows user nor lists it anywhere.
 */
#ifndef NCDIR_NO_INITGROUPS
enum nss_status
FN(initgroups_dyn)(const char *user, gid_t group, long int *start, long int *size,
    gid_t **groupsp, long int limit, int *errnop)
{
	int		 saved = errno, err = ENOENT, known;
	enum nss_status	 s = NSS_STATUS_SUCCESS;
	struct dyn	 d;
	struct user	 u;
	struct grp	 g;
	unsigned	 idx;
	long int	 newsize;
	gid_t		*grown;

	log_call("initgroups_dyn", user);
	delay();
	dyn_load(&d);
	known = user_by_name(user, &d, &u) == 0;
	for (idx = 0; idx < NFIXED_GROUPS + d.n; idx++) {
		if (group_at(idx, &d, &g) != 0 || g.gid == group || !group_has(&g, user))
			continue;
		known = 1;
		if (*start == *size) {
			if (limit > 0 && *size >= limit)
				break;
			newsize = *size > 0 ? 2 * *size : 1;
			if (limit > 0 && newsize > limit)
				newsize = limit;
			grown = realloc(*groupsp, (size_t)newsize * sizeof(gid_t));
			if (grown == NULL) {
				err = ENOMEM;
				s = NSS_STATUS_TRYAGAIN;
				break;
			}
			*groupsp = grown;
			*size = newsize;
		}
		(*groupsp)[(*start)++] = g.gid;
	}
	if (s == NSS_STATUS_SUCCESS && !known)
		s = NSS_STATUS_NOTFOUND;
	return finish(s, err, saved, errnop);
}
#endif
