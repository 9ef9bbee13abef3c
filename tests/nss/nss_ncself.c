/* SPDX-License-Identifier: MIT */
/*
 * tests/nss/nss_ncself.c - an NSS module whose calls look names up themselves.
 *
 * libnss_ncself.so.2 stands for an LDAP or SSS module that resolves its
 * server's host name, or a passwd module that calls getgrnam: before it
 * answers, each of its calls for one of its own keys looks up
 *
 *	getaddrinfo($NCSELF_HOST, AF_INET)	(default inner.ncself.test)
 *	getpwnam_r($NCSELF_USER)		(default root)
 *	getgrnam_r($NCSELF_GROUP)		(default root)
 *
 * through glibc, as any program would (the _r forms: getpwnam's static
 * buffer has a lock that a module called from getpwnam would wait on).
 * Its keys:
 *
 *	hosts	self-N.ncself: 198.51.100.N (gethostbyname2_r, AF_INET)
 *	passwd	ncself-N: uid and gid 300000 + N
 *	group	ncselfg-N: gid 300000 + N, no members
 *
 * anything else NOTFOUND, with no inner lookup.  With NCSELF_LOG set,
 * every call for a key appends one line to that file:
 *
 *	PID main|worker FUNC KEY gai=ADDR|error pw=UID|error gr=GID|error
 *
 * "main" when the calling thread is the process's first (the daemon's
 * loop), so a test counts the inner lookups' results and knows where
 * each call ran.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <nss.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT	__attribute__((visibility("default")))

EXPORT enum nss_status _nss_ncself_gethostbyname2_r(const char *, int,
    struct hostent *, char *, size_t, int *, int *);
EXPORT enum nss_status _nss_ncself_getpwnam_r(const char *, struct passwd *,
    char *, size_t, int *);
EXPORT enum nss_status _nss_ncself_getpwuid_r(uid_t, struct passwd *, char *,
    size_t, int *);
EXPORT enum nss_status _nss_ncself_getgrnam_r(const char *, struct group *,
    char *, size_t, int *);
EXPORT enum nss_status _nss_ncself_getgrgid_r(gid_t, struct group *, char *,
    size_t, int *);

static const char *
env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && v[0] ? v : def;
}

/* The three inner lookups, and the line that says what they found. */
static void
inner(const char *fn, const char *key)
{
	struct addrinfo	 hints, *res = NULL;
	struct passwd	 pw, *pwp = NULL;
	struct group	 gr, *grp = NULL;
	char		 buf[16384], gai[64], pws[32], grs[32], line[512];
	const char	*path = getenv("NCSELF_LOG");
	int		 r, fd, n, saved = errno;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(env_or("NCSELF_HOST", "inner.ncself.test"), NULL, &hints, &res);
	if (r == 0 && res && res->ai_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr,
		    gai, sizeof(gai));
	else
		snprintf(gai, sizeof(gai), "error%d", r);
	if (res)
		freeaddrinfo(res);
	r = getpwnam_r(env_or("NCSELF_USER", "root"), &pw, buf, sizeof(buf), &pwp);
	if (r == 0 && pwp)
		snprintf(pws, sizeof(pws), "%u", (unsigned)pw.pw_uid);
	else
		snprintf(pws, sizeof(pws), "error%d", r);
	r = getgrnam_r(env_or("NCSELF_GROUP", "root"), &gr, buf, sizeof(buf), &grp);
	if (r == 0 && grp)
		snprintf(grs, sizeof(grs), "%u", (unsigned)gr.gr_gid);
	else
		snprintf(grs, sizeof(grs), "error%d", r);
	errno = saved;
	if (path == NULL)
		return;
	n = snprintf(line, sizeof(line), "%d %s %s %s gai=%s pw=%s gr=%s\n",
	    (int)getpid(), syscall(SYS_gettid) == getpid() ? "main" : "worker",
	    fn, key, gai, pws, grs);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* a test that cannot count sees the lack */
	}
	close(fd);
	errno = saved;
}

/* N of "PREFIXN" or "PREFIXNSUFFIX" (1..250), or 0. */
static unsigned
number(const char *key, const char *prefix, const char *suffix)
{
	size_t	 pl = strlen(prefix), kl = strlen(key), sl = strlen(suffix);
	char	*end;
	long	 n;

	if (kl <= pl + sl || strncmp(key, prefix, pl) != 0 ||
	    strcmp(key + kl - sl, suffix) != 0)
		return 0;
	n = strtol(key + pl, &end, 10);
	if (end != key + kl - sl || n < 1 || n > 250)
		return 0;
	return (unsigned)n;
}

/* Copies s into the buffer; NULL when it does not fit. */
static char *
put(char **p, size_t *left, const char *s)
{
	size_t	 len = strlen(s) + 1;
	char	*at = *p;

	if (len > *left)
		return NULL;
	memcpy(at, s, len);
	*p += len;
	*left -= len;
	return at;
}

enum nss_status
_nss_ncself_gethostbyname2_r(const char *name, int af, struct hostent *h,
    char *buf, size_t len, int *errnop, int *h_errnop)
{
	unsigned	 n = number(name, "self-", ".ncself");
	uintptr_t	 a = ((uintptr_t)buf + 7) & ~(uintptr_t)7;
	char		**list, *p;

	if (n == 0 || af != AF_INET) {
		*errnop = ENOENT;
		*h_errnop = HOST_NOT_FOUND;
		return NSS_STATUS_NOTFOUND;
	}
	inner("gethostbyname2_r", name);
	/* aliases[1], addr_list[2], then the address and the name */
	if (a + 3 * sizeof(char *) + 4 + strlen(name) + 1 > (uintptr_t)buf + len) {
		*errnop = ERANGE;
		*h_errnop = NETDB_INTERNAL;
		return NSS_STATUS_TRYAGAIN;
	}
	list = (char **)a;
	p = (char *)(list + 3);
	list[0] = NULL;			/* no aliases */
	list[1] = p;
	list[2] = NULL;
	p[0] = (char)198;
	p[1] = 51;
	p[2] = 100;
	p[3] = (char)n;
	p += 4;
	strcpy(p, name);
	h->h_name = p;
	h->h_aliases = &list[0];
	h->h_addrtype = AF_INET;
	h->h_length = 4;
	h->h_addr_list = &list[1];
	return NSS_STATUS_SUCCESS;
}

static enum nss_status
fill_pw(unsigned n, const char *name, struct passwd *pw, char *buf, size_t len,
    int *errnop)
{
	char	*p = buf;
	size_t	 left = len;

	if ((pw->pw_name = put(&p, &left, name)) == NULL ||
	    (pw->pw_passwd = put(&p, &left, "x")) == NULL ||
	    (pw->pw_gecos = put(&p, &left, "ncself user")) == NULL ||
	    (pw->pw_dir = put(&p, &left, "/nonexistent")) == NULL ||
	    (pw->pw_shell = put(&p, &left, "/usr/sbin/nologin")) == NULL) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	pw->pw_uid = 300000 + n;
	pw->pw_gid = 300000 + n;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
_nss_ncself_getpwnam_r(const char *name, struct passwd *pw, char *buf,
    size_t len, int *errnop)
{
	unsigned n = number(name, "ncself-", "");

	if (n == 0) {
		*errnop = ENOENT;
		return NSS_STATUS_NOTFOUND;
	}
	inner("getpwnam_r", name);
	return fill_pw(n, name, pw, buf, len, errnop);
}

enum nss_status
_nss_ncself_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
    int *errnop)
{
	char name[32];

	if (uid <= 300000 || uid > 300250) {
		*errnop = ENOENT;
		return NSS_STATUS_NOTFOUND;
	}
	snprintf(name, sizeof(name), "ncself-%u", (unsigned)(uid - 300000));
	inner("getpwuid_r", name);
	return fill_pw(uid - 300000, name, pw, buf, len, errnop);
}

static enum nss_status
fill_gr(unsigned n, const char *name, struct group *gr, char *buf, size_t len,
    int *errnop)
{
	uintptr_t	 a = ((uintptr_t)buf + 7) & ~(uintptr_t)7;
	char		**mem = (char **)a, *p = (char *)(mem + 1);
	size_t		 left;

	if ((uintptr_t)p > (uintptr_t)buf + len) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	left = len - (size_t)(p - buf);
	mem[0] = NULL;
	if ((gr->gr_name = put(&p, &left, name)) == NULL ||
	    (gr->gr_passwd = put(&p, &left, "x")) == NULL) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	gr->gr_gid = 300000 + n;
	gr->gr_mem = mem;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
_nss_ncself_getgrnam_r(const char *name, struct group *gr, char *buf,
    size_t len, int *errnop)
{
	unsigned n = number(name, "ncselfg-", "");

	if (n == 0) {
		*errnop = ENOENT;
		return NSS_STATUS_NOTFOUND;
	}
	inner("getgrnam_r", name);
	return fill_gr(n, name, gr, buf, len, errnop);
}

enum nss_status
_nss_ncself_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
    int *errnop)
{
	char name[32];

	if (gid <= 300000 || gid > 300250) {
		*errnop = ENOENT;
		return NSS_STATUS_NOTFOUND;
	}
	snprintf(name, sizeof(name), "ncselfg-%u", (unsigned)(gid - 300000));
	inner("getgrgid_r", name);
	return fill_gr(gid - 300000, name, gr, buf, len, errnop);
}
