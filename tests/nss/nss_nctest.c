/* SPDX-License-Identifier: MIT */
/*
 * tests/nss/nss_nctest.c - a scriptable NSS hosts module for the tests.
 *
 * Built twice: libnss_nctest.so.2 (gethostbyname4_r, _3_r, _2_r,
 * gethostbyaddr2_r, gethostbyaddr_r) and libnss_nctest2.so.2 (only
 * gethostbyname2_r and gethostbyaddr_r, as older modules are).  What it
 * answers is in the name's first label, names under ".nct" only:
 *
 *	ok-N       SUCCESS: 198.51.100.N and 2001:db8::N, alias alias-N.nct
 *	v4-N       SUCCESS for AF_INET only; AF_INET6: NOTFOUND, NO_DATA
 *	v6-N       SUCCESS for AF_INET6 only; AF_INET: NOTFOUND, NO_DATA
 *	ttl-N      as ok-N, with a TTL of 2 s
 *	big-N      200 addresses of each family (the ERANGE retry)
 *	tryagain-N TRYAGAIN, h_errno TRY_AGAIN, errno EAGAIN
 *	nftryagain-N NOTFOUND, h_errno TRY_AGAIN, errno EAGAIN: what glibc's
 *		   dns module returns when the search list's first query
 *		   failed for now (SERVFAIL) and a later one got NXDOMAIN
 *	scoped-N   SUCCESS: 2001:db8::N and fe80::N, then 198.51.100.N;
 *		   gethostbyname4_r gives fe80::N the scope of interface
 *		   $NCTEST_SCOPE_IF (default lo), as nss-myhostname gives a
 *		   link-local address; a hostent has no scope
 *	unavail-N  UNAVAIL, h_errno NO_RECOVERY, errno ENOENT
 *	slow-N     ok-N after NCTEST_SLOW_MS (default 1500) milliseconds
 *	stuck-N    ok-N after 8 seconds
 *	Case-N     ok-N for this spelling only ("Case-N.nct", byte for byte):
 *	           any other (case-N.nct, CASE-N.NCT) NOTFOUND, HOST_NOT_FOUND,
 *	           as modules that tell spellings apart (nss-myhostname).
 *	           Each call first waits in the module until NCTEST_GATHER
 *	           case-N calls (default 1) are in it at once, so a test knows
 *	           they overlapped; at most NCTEST_SLOW_MS, so a missing call
 *	           shows as a wrong count, not as a hang
 *	anything else: NOTFOUND, HOST_NOT_FOUND
 *
 * By address: 198.51.100.N and 2001:db8::N are host-N.nct (alias
 * alias-N.nct); others NOTFOUND.  With NCTEST_LOG set, every call appends
 * "function name-or-address family" to that file, so tests count calls.
 * Addresses are data only: nothing ever connects to them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <nss.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define CAT2(a, b)	a##b
#define CAT(a, b)	CAT2(a, b)
#define FN(f)		CAT(CAT(_nss_, MODNAME), CAT(_, f))

#define EXPORT	__attribute__((visibility("default")))

enum kind { K_NONE, K_OK, K_V4, K_V6, K_TTL, K_BIG, K_TRYAGAIN, K_UNAVAIL,
	K_SLOW, K_STUCK, K_CASE, K_CASE_OTHER, K_NFTRYAGAIN, K_SCOPED };

static void
log_call(const char *fn, const char *key, int af)
{
	const char	*path = getenv("NCTEST_LOG");
	char		 line[512];
	int		 fd, n;

	if (path == NULL)
		return;
	n = snprintf(line, sizeof(line), "%s %s %d\n", fn, key, af);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* a test that cannot count sees the lack */
	}
	close(fd);
}

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* What name asks for, and its number N (1..250). */
static enum kind
classify(const char *name, unsigned *ret_n)
{
	static const struct { const char *p; enum kind k; } pre[] = {
		{ "ok-", K_OK }, { "v4-", K_V4 }, { "v6-", K_V6 }, { "ttl-", K_TTL },
		{ "big-", K_BIG }, { "tryagain-", K_TRYAGAIN },
		{ "unavail-", K_UNAVAIL }, { "slow-", K_SLOW }, { "stuck-", K_STUCK },
		{ "case-", K_CASE },
		{ "nftryagain-", K_NFTRYAGAIN }, { "scoped-", K_SCOPED },
	};
	size_t	 len = strlen(name), i, pl;
	char	*end;
	long	 n;

	if (len > 0 && name[len - 1] == '.')
		len--;
	if (len < 5 || strncasecmp(name + len - 4, ".nct", 4) != 0)
		return K_NONE;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		pl = strlen(pre[i].p);
		if (strncasecmp(name, pre[i].p, pl) != 0)
			continue;
		n = strtol(name + pl, &end, 10);
		if (end != name + len - 4 || n < 1 || n > 250)
			return K_NONE;
		*ret_n = (unsigned)n;
		/* The one spelling it knows: "Case-N.nct", as a module that
		 * compares bytes. */
		if (pre[i].k == K_CASE && (strncmp(name, "Case-", 5) != 0 ||
		    strncmp(name + len - 4, ".nct", 4) != 0))
			return K_CASE_OTHER;
		return pre[i].k;
	}
	return K_NONE;
}

/*
 * Waits until NCTEST_GATHER calls have come in, counting this one, in
 * rounds of that many: the calls of a round are in the module together.
 * Gives up after NCTEST_SLOW_MS.
 */
static void
gather(void)
{
	static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t	 cond = PTHREAD_COND_INITIALIZER;
	static unsigned long	 arrived;
	const char		*g = getenv("NCTEST_GATHER");
	const char		*ms = getenv("NCTEST_SLOW_MS");
	unsigned long		 want = g && atol(g) > 0 ? (unsigned long)atol(g) : 1;
	long			 wait = ms ? atol(ms) : 1500;
	unsigned long		 round;
	struct timespec		 until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait / 1000;
	until.tv_nsec += (wait % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	round = arrived / want;
	arrived++;
	pthread_cond_broadcast(&cond);
	while (arrived < (round + 1) * want &&
	    pthread_cond_timedwait(&cond, &lock, &until) == 0)
		;
	pthread_mutex_unlock(&lock);
}

/* The failure statuses, or 0 to go on. */
static enum nss_status
fail_status(enum kind k, int *errnop, int *h_errnop)
{
	switch (k) {
	case K_NONE:
		*errnop = ENOENT;
		*h_errnop = HOST_NOT_FOUND;
		return NSS_STATUS_NOTFOUND;
	case K_TRYAGAIN:
		*errnop = EAGAIN;
		*h_errnop = TRY_AGAIN;
		return NSS_STATUS_TRYAGAIN;
	case K_NFTRYAGAIN:
		/* resolv/nss_dns/dns-host.c: NOTFOUND, *h_errnop = TRY_AGAIN, and
		   then *errnop = EAGAIN */
		*errnop = EAGAIN;
		*h_errnop = TRY_AGAIN;
		return NSS_STATUS_NOTFOUND;
	case K_UNAVAIL:
		*errnop = ENOENT;
		*h_errnop = NO_RECOVERY;
		return NSS_STATUS_UNAVAIL;
	case K_SLOW:
		nap(getenv("NCTEST_SLOW_MS") ? atol(getenv("NCTEST_SLOW_MS")) : 1500);
		return NSS_STATUS_SUCCESS;
	case K_STUCK:
		nap(8000);
		return NSS_STATUS_SUCCESS;
	case K_CASE:
		gather();
		return NSS_STATUS_SUCCESS;
	case K_CASE_OTHER:
		gather();
		*errnop = ENOENT;
		*h_errnop = HOST_NOT_FOUND;
		return NSS_STATUS_NOTFOUND;
	default:
		return NSS_STATUS_SUCCESS;
	}
}


static void
addr_of(int af, unsigned n, unsigned i, void *out)
{
	uint8_t *p = out;

	if (af == AF_INET) {
		/* 198.51.100.N, then 203.0.113.1.. for big-N's others */
		p[0] = i ? 203 : 198;
		p[1] = i ? 0 : 51;
		p[2] = i ? 113 : 100;
		p[3] = (uint8_t)(i ? i : n);
	} else {
		memset(p, 0, 16);
		p[0] = 0x20; p[1] = 0x01; p[2] = 0x0d; p[3] = 0xb8;
		p[13] = (uint8_t)i;
		p[15] = (uint8_t)n;
	}
}

static unsigned
naddrs(enum kind k, int af)
{
	if ((k == K_V4 && af == AF_INET6) || (k == K_V6 && af == AF_INET))
		return 0;
	if (k == K_SCOPED && af == AF_INET6)
		return 2;
	return k == K_BIG ? 200 : 1;
}

/* The i-th address of family af for a name of kind k. */
static void
kind_addr(enum kind k, int af, unsigned n, unsigned i, void *out)
{
	uint8_t *p = out;

	if (k == K_SCOPED && af == AF_INET6 && i == 1) {
		memset(p, 0, 16);
		p[0] = 0xfe;
		p[1] = 0x80;
		p[15] = (uint8_t)n;
	} else
		addr_of(af, n, k == K_SCOPED ? 0 : i, out);
}

static enum nss_status
erange(int *errnop, int *h_errnop)
{
	*errnop = ERANGE;
	*h_errnop = NETDB_INTERNAL;
	return NSS_STATUS_TRYAGAIN;
}

/* A hostent for name (or, by address, host-N.nct) in buffer. */
static enum nss_status
fill(const char *name, int af, enum kind k, unsigned n, unsigned count,
    struct hostent *h, char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	size_t	 alen = af == AF_INET ? 4 : 16, nlen = strlen(name) + 1, off = 0;
	char	 alias[32];
	size_t	 aliaslen = (size_t)snprintf(alias, sizeof(alias), "alias-%u.nct", n) + 1;
	size_t	 need = nlen + aliaslen + 2 * sizeof(char *) + count * alen +
	    (count + 1) * sizeof(char *) + sizeof(char *);
	char	**aliases, **addrs;
	unsigned i;

	if (buflen < need)
		return erange(errnop, h_errnop);
	/* Pointers first, aligned. */
	off = (sizeof(char *) - ((uintptr_t)buffer % sizeof(char *))) % sizeof(char *);
	aliases = (char **)(buffer + off);
	off += 2 * sizeof(char *);
	addrs = (char **)(buffer + off);
	off += (count + 1) * sizeof(char *);
	memcpy(buffer + off, name, nlen);
	h->h_name = buffer + off;
	off += nlen;
	memcpy(buffer + off, alias, aliaslen);
	aliases[0] = buffer + off;
	aliases[1] = NULL;
	off += aliaslen;
	for (i = 0; i < count; i++) {
		kind_addr(k, af, n, i, buffer + off);
		addrs[i] = buffer + off;
		off += alen;
	}
	addrs[count] = NULL;
	h->h_aliases = aliases;
	h->h_addrtype = af;
	h->h_length = (int)alen;
	h->h_addr_list = addrs;
	return NSS_STATUS_SUCCESS;
}

static enum nss_status
byname(const char *fn, const char *name, int af, struct hostent *h, char *buffer,
    size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp, char **canonp)
{
	enum nss_status	 s;
	enum kind	 k;
	unsigned	 n = 0, count;

	log_call(fn, name, af);
	if (af != AF_INET && af != AF_INET6) {
		*errnop = EAFNOSUPPORT;
		*h_errnop = NETDB_INTERNAL;
		return NSS_STATUS_UNAVAIL;
	}
	k = classify(name, &n);
	if ((s = fail_status(k, errnop, h_errnop)) != NSS_STATUS_SUCCESS)
		return s;
	if ((count = naddrs(k, af)) == 0) {
		*errnop = ENOENT;
		*h_errnop = NO_DATA;
		return NSS_STATUS_NOTFOUND;
	}
	if ((s = fill(name, af, k, n, count, h, buffer, buflen, errnop, h_errnop)) !=
	    NSS_STATUS_SUCCESS)
		return s;
	if (ttlp && k == K_TTL)
		*ttlp = 2;
	if (canonp)
		*canonp = h->h_name;
	return NSS_STATUS_SUCCESS;
}

enum nss_status FN(gethostbyname2_r)(const char *name, int af, struct hostent *h,
    char *buffer, size_t buflen, int *errnop, int *h_errnop);

EXPORT enum nss_status
FN(gethostbyname2_r)(const char *name, int af, struct hostent *h, char *buffer,
    size_t buflen, int *errnop, int *h_errnop)
{
	return byname("gethostbyname2_r", name, af, h, buffer, buflen, errnop,
	    h_errnop, NULL, NULL);
}

enum nss_status FN(gethostbyaddr_r)(const void *addr, socklen_t len, int af,
    struct hostent *h, char *buffer, size_t buflen, int *errnop, int *h_errnop);

static enum nss_status
byaddr(const char *fn, const void *addr, socklen_t len, int af, struct hostent *h,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	char		 text[64], name[32];
	uint8_t		 want[16];
	const uint8_t	*a = addr;
	unsigned	 n;

	inet_ntop(af, addr, text, sizeof(text));
	log_call(fn, text, af);
	if ((af == AF_INET && len != 4) || (af == AF_INET6 && len != 16) ||
	    (af != AF_INET && af != AF_INET6)) {
		*errnop = EINVAL;
		*h_errnop = NETDB_INTERNAL;
		return NSS_STATUS_UNAVAIL;
	}
	n = a[len - 1];
	addr_of(af, n, 0, want);
	if (n < 1 || n > 250 || memcmp(want, addr, len) != 0) {
		*errnop = ENOENT;
		*h_errnop = HOST_NOT_FOUND;
		return NSS_STATUS_NOTFOUND;
	}
	snprintf(name, sizeof(name), "host-%u.nct", n);
	return fill(name, af, K_OK, n, 1, h, buffer, buflen, errnop, h_errnop);
}

EXPORT enum nss_status
FN(gethostbyaddr_r)(const void *addr, socklen_t len, int af, struct hostent *h,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return byaddr("gethostbyaddr_r", addr, len, af, h, buffer, buflen, errnop,
	    h_errnop);
}

#ifndef NCTEST_OLD
enum nss_status FN(gethostbyname3_r)(const char *name, int af, struct hostent *h,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp,
    char **canonp);
enum nss_status FN(gethostbyname4_r)(const char *name, struct gaih_addrtuple **pat,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp);
enum nss_status FN(gethostbyaddr2_r)(const void *addr, socklen_t len, int af,
    struct hostent *h, char *buffer, size_t buflen, int *errnop, int *h_errnop,
    int32_t *ttlp);

EXPORT enum nss_status
FN(gethostbyname3_r)(const char *name, int af, struct hostent *h, char *buffer,
    size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp, char **canonp)
{
	return byname("gethostbyname3_r", name, af, h, buffer, buflen, errnop,
	    h_errnop, ttlp, canonp);
}

EXPORT enum nss_status
FN(gethostbyaddr2_r)(const void *addr, socklen_t len, int af, struct hostent *h,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp)
{
	return byaddr("gethostbyaddr2_r", addr, len, af, h, buffer, buflen, errnop,
	    h_errnop);
}

/* Both families in one call: AF_INET6 first, then AF_INET, as nss-resolve. */
EXPORT enum nss_status
FN(gethostbyname4_r)(const char *name, struct gaih_addrtuple **pat, char *buffer,
    size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp)
{
	struct gaih_addrtuple	*t, **tail = pat;
	enum nss_status		 s;
	enum kind		 k;
	size_t			 nlen = strlen(name) + 1, off, need;
	unsigned		 n = 0, n6, n4, i;
	char			*cname;

	log_call("gethostbyname4_r", name, 0);
	k = classify(name, &n);
	if ((s = fail_status(k, errnop, h_errnop)) != NSS_STATUS_SUCCESS)
		return s;
	n6 = naddrs(k, AF_INET6);
	n4 = naddrs(k, AF_INET);
	need = nlen + (n6 + n4) * sizeof(*t) + sizeof(void *);
	if (buflen < need)
		return erange(errnop, h_errnop);
	off = (sizeof(void *) - ((uintptr_t)buffer % sizeof(void *))) % sizeof(void *);
	t = (struct gaih_addrtuple *)(buffer + off);
	cname = buffer + off + (n6 + n4) * sizeof(*t);
	memcpy(cname, name, nlen);
	for (i = 0; i < n6 + n4; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].name = i == 0 ? cname : NULL;
		t[i].family = i < n6 ? AF_INET6 : AF_INET;
		kind_addr(k, t[i].family, n, i < n6 ? i : i - n6, t[i].addr);
		if (k == K_SCOPED && i == 1) {
			const char *ifname = getenv("NCTEST_SCOPE_IF");

			t[i].scopeid = if_nametoindex(ifname ? ifname : "lo");
		}
		*tail = &t[i];
		tail = &t[i].next;
	}
	*tail = NULL;
	if (ttlp && k == K_TTL)
		*ttlp = 2;
	return NSS_STATUS_SUCCESS;
}
#endif
