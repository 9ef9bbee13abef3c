/* SPDX-License-Identifier: MIT */
/*
 * bench/floor/floor.c - libnss_floor.so.2: the NSS floor.
 *
 * A hosts module that answers one name, FLOOR_NAME, from static memory:
 * one IPv4 address, 192.0.2.1, TTL 300, like the names bench/run.sh asks
 * the peers (one address each: with two, getaddrinfo's RFC 6724 sort adds
 * a socket and a connect per address, which would swamp what is compared).
 * IPv6 gets NO_DATA; any other name is NOTFOUND at once.
 * No system call, no lock, no allocation: what remains of a lookup through
 * it is glibc's own work around any NSS module, the floor that no module
 * (namecache's included) can go below.  bench/run.sh measures it beside
 * the peers and the targets are ratios to it.
 */
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define FLOOR_NAME	"floor.bench.example"
#define FLOOR_TTL	300
#define EXPORT		__attribute__((visibility("default")))

static const uint8_t	floor_v4[4] = { 192, 0, 2, 1 };

EXPORT enum nss_status _nss_floor_gethostbyname4_r(const char *,
    struct gaih_addrtuple **, char *, size_t, int *, int *, int32_t *);
EXPORT enum nss_status _nss_floor_gethostbyname3_r(const char *, int,
    struct hostent *, char *, size_t, int *, int *, int32_t *, char **);
EXPORT enum nss_status _nss_floor_gethostbyname2_r(const char *, int,
    struct hostent *, char *, size_t, int *, int *);
EXPORT enum nss_status _nss_floor_gethostbyname_r(const char *,
    struct hostent *, char *, size_t, int *, int *);

static enum nss_status
notfound(int *errnop, int *h_errnop)
{
	*errnop = ENOENT;
	*h_errnop = HOST_NOT_FOUND;
	return NSS_STATUS_NOTFOUND;
}

static enum nss_status
erange(int *errnop, int *h_errnop)
{
	*errnop = ERANGE;
	*h_errnop = NETDB_INTERNAL;
	return NSS_STATUS_TRYAGAIN;
}

/* Buffer space, aligned for pointers: NULL when it does not fit. */
static char *
take(char **p, size_t *left, size_t len)
{
	size_t	 pad = (size_t)(-(uintptr_t)*p) & (alignof(void *) - 1);
	char	*r;

	if (*left < pad + len)
		return NULL;
	r = *p + pad;
	*p += pad + len;
	*left -= pad + len;
	return r;
}

enum nss_status
_nss_floor_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp)
{
	struct gaih_addrtuple	*t;
	char			*nm;

	if (strcasecmp(name, FLOOR_NAME) != 0)
		return notfound(errnop, h_errnop);
	if ((t = (struct gaih_addrtuple *)take(&buffer, &buflen, sizeof(*t))) == NULL ||
	    (nm = take(&buffer, &buflen, sizeof(FLOOR_NAME))) == NULL)
		return erange(errnop, h_errnop);
	memcpy(nm, FLOOR_NAME, sizeof(FLOOR_NAME));
	memset(t, 0, sizeof(*t));
	t->name = nm;
	t->family = AF_INET;
	memcpy(t->addr, floor_v4, sizeof(floor_v4));
	*pat = t;
	if (ttlp)
		*ttlp = FLOOR_TTL;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
_nss_floor_gethostbyname3_r(const char *name, int af, struct hostent *result,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp,
    char **canonp)
{
	const size_t	 alen = sizeof(floor_v4);
	char		**list, *a, *nm;

	if (af != AF_INET && af != AF_INET6) {
		*errnop = EAFNOSUPPORT;
		*h_errnop = NO_RECOVERY;
		return NSS_STATUS_UNAVAIL;
	}
	if (strcasecmp(name, FLOOR_NAME) != 0)
		return notfound(errnop, h_errnop);
	if (af == AF_INET6) {
		*errnop = ENOENT;
		*h_errnop = NO_DATA;
		return NSS_STATUS_NOTFOUND;
	}
	/* h_aliases: { NULL }; h_addr_list: { a, NULL }. */
	if ((list = (char **)take(&buffer, &buflen, 3 * sizeof(char *))) == NULL ||
	    (a = take(&buffer, &buflen, alen)) == NULL ||
	    (nm = take(&buffer, &buflen, sizeof(FLOOR_NAME))) == NULL)
		return erange(errnop, h_errnop);
	memcpy(a, floor_v4, alen);
	memcpy(nm, FLOOR_NAME, sizeof(FLOOR_NAME));
	list[0] = NULL;
	list[1] = a;
	list[2] = NULL;
	result->h_name = nm;
	result->h_aliases = &list[0];
	result->h_addrtype = af;
	result->h_length = (int)alen;
	result->h_addr_list = &list[1];
	if (ttlp)
		*ttlp = FLOOR_TTL;
	if (canonp)
		*canonp = nm;
	return NSS_STATUS_SUCCESS;
}

enum nss_status
_nss_floor_gethostbyname2_r(const char *name, int af, struct hostent *result,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return _nss_floor_gethostbyname3_r(name, af, result, buffer, buflen,
	    errnop, h_errnop, NULL, NULL);
}

enum nss_status
_nss_floor_gethostbyname_r(const char *name, struct hostent *result,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return _nss_floor_gethostbyname3_r(name, AF_INET, result, buffer, buflen,
	    errnop, h_errnop, NULL, NULL);
}
