/* SPDX-License-Identifier: MIT */
/* nss-shim/nss.c - libnss_namecache.so.2: glibc's hosts lookups, answered by namecached. */

/*
 * Statuses, as glibc's NSS expects them:
 *   SUCCESS	an answer, laid out in the caller's buffer;
 *   NOTFOUND	the daemon knows the name has no answer (HOST_NOT_FOUND, or
 *		NO_DATA when the name exists for another family), or none
 *		after a temporary failure (TRY_AGAIN, errno EAGAIN: what
 *		glibc's dns module returns when the search list's first
 *		query failed for now and a later one got NXDOMAIN);
 *   TRYAGAIN	a temporary failure upstream (TRY_AGAIN, errno EAGAIN), or a
 *		short buffer (NETDB_INTERNAL, errno ERANGE): glibc grows it;
 *   UNAVAIL	the daemon cannot be reached, or declines the question (a
 *		name it refuses, an answer too big for a frame).  With
 *		"namecache [!UNAVAIL=return] files dns" glibc then asks its own
 *		modules, so a process never loses an answer it would have had.
 * errno is preserved on success.  glibc passes errnop == &errno, so on failure *errnop is written
 * last, after errno is restored, or the error (ERANGE above all) is lost.
 */
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "client.h"
#include "layout.h"
#include "proto.h"
#include "shared.h"
#include "shmfmt.h"

#define NSS_TIMEOUT_MS	15000
#define EXPORT		__attribute__((visibility("default")))

EXPORT enum nss_status _nss_namecache_gethostbyname4_r(const char *,
    struct gaih_addrtuple **, char *, size_t, int *, int *, int32_t *);
EXPORT enum nss_status _nss_namecache_gethostbyname3_r(const char *, int,
    struct hostent *, char *, size_t, int *, int *, int32_t *, char **);
EXPORT enum nss_status _nss_namecache_gethostbyname2_r(const char *, int,
    struct hostent *, char *, size_t, int *, int *);
EXPORT enum nss_status _nss_namecache_gethostbyname_r(const char *,
    struct hostent *, char *, size_t, int *, int *);
EXPORT enum nss_status _nss_namecache_gethostbyaddr2_r(const void *, socklen_t,
    int, struct hostent *, char *, size_t, int *, int *, int32_t *);
EXPORT enum nss_status _nss_namecache_gethostbyaddr_r(const void *, socklen_t,
    int, struct hostent *, char *, size_t, int *, int *);

/* Restores errno, then sets *errnop again: they may be the same int. */
static enum nss_status
finish(enum nss_status st, int saved, int *errnop)
{
	int err = *errnop;

	errno = saved;
	if (st != NSS_STATUS_SUCCESS)
		*errnop = err;
	return st;
}

static enum nss_status
unavail(int err, int *errnop, int *h_errnop)
{
	*errnop = err;
	*h_errnop = NO_RECOVERY;
	return NSS_STATUS_UNAVAIL;
}

static enum nss_status
erange(int *errnop, int *h_errnop)
{
	*errnop = ERANGE;
	*h_errnop = NETDB_INTERNAL;
	return NSS_STATUS_TRYAGAIN;
}

/* Where an answer's bytes are: the shared segment, or a socket reply. */
struct src {
	struct ncc_shared_hit	hit;
	struct ncc_reply	rep;
};

/*
 * Holds nothing yet.  Not "= { 0 }", which would zero the reply's 1 KiB
 * buffer on every call, hits included; ncc_call sets what it fills.
 */
static void
src_init(struct src *s)
{
	s->hit.map = NULL;
	s->rep.frame = NULL;
	s->rep.body = NULL;
}

static void
src_free(struct src *s)
{
	if (s->hit.map)
		ncc_shared_release(&s->hit);
	if (s->rep.frame)
		ncc_reply_free(&s->rep);
}

/*
 * The shared segment first: a hit there costs no system call.  SUCCESS
 * with *ans decoded from the mapping, NOTFOUND for a negative answer, or
 * UNAVAIL (with nothing held) to mean "ask the socket".
 */
static enum nss_status
ask_shared(uint8_t kind, uint8_t family, const void *key, size_t key_len,
    struct src *s, struct proto_answer *ans, int *errnop, int *h_errnop)
{
	if (!ncc_shared_answer(ncc_socket_path(), kind, family, key, key_len, &s->hit,
	    ans))
		return NSS_STATUS_UNAVAIL;
	if (s->hit.status == PROTO_OK)
		return NSS_STATUS_SUCCESS;
	*errnop = ENOENT;
	*h_errnop = s->hit.status == PROTO_NODATA ? NO_DATA : HOST_NOT_FOUND;
	ncc_shared_release(&s->hit);
	return NSS_STATUS_NOTFOUND;
}

/*
 * Sends the request and decodes the answer.  SUCCESS leaves the reply in
 * *rep for the caller to free with ncc_reply_free(); any other status
 * frees it and sets *errnop and *h_errnop.
 */
static enum nss_status
ask(const uint8_t *req, int len, struct ncc_reply *rep, struct proto_answer *ans,
    int *errnop, int *h_errnop)
{
	int r;

	if (len < 0)
		return unavail(EINVAL, errnop, h_errnop);
	/* The pool takes no lock, so signals need not be blocked around it. */
	r = ncc_pool_call(ncc_socket_path(), req, (size_t)len, NSS_TIMEOUT_MS, rep);
	if (r < 0)
		return unavail(-r, errnop, h_errnop);

	switch (rep->hdr.status) {
	case PROTO_OK:
		if (proto_answer_decode(rep->body, rep->body_len, ans) == 0)
			return NSS_STATUS_SUCCESS;
		ncc_reply_free(rep);
		return unavail(EBADMSG, errnop, h_errnop);
	case PROTO_NOTFOUND:
	case PROTO_NODATA:
		*errnop = ENOENT;
		*h_errnop = rep->hdr.status == PROTO_NODATA ? NO_DATA : HOST_NOT_FOUND;
		ncc_reply_free(rep);
		return NSS_STATUS_NOTFOUND;
	case PROTO_TRYAGAIN:
		*errnop = EAGAIN;
		*h_errnop = TRY_AGAIN;
		ncc_reply_free(rep);
		return NSS_STATUS_TRYAGAIN;
	case PROTO_NOTFOUND_TRYAGAIN:
		/*
		 * As nss_dns: NOTFOUND ends the walk (getaddrinfo's
		 * gethostbyname2_r path reads it as EAI_NONAME), TRY_AGAIN
		 * makes the others EAI_AGAIN.
		 */
		*errnop = EAGAIN;
		*h_errnop = TRY_AGAIN;
		ncc_reply_free(rep);
		return NSS_STATUS_NOTFOUND;
	case PROTO_UNAVAIL: {
		int he, err;

		/*
		 * The daemon walked the whole hosts line and every source
		 * was unavailable: final, as glibc's walk would end there.
		 * Not UNAVAIL, which would go on down our own line, but the
		 * status whose outcome is the same:
		 *   - getaddrinfo reports a NETDB_INTERNAL ending as a system
		 *     error (EAI_SYSTEM), which TRYAGAIN with NETDB_INTERNAL
		 *     gives (errno never ERANGE there: that means "grow");
		 *   - its other paths read any other ending as not found
		 *     (TRY_AGAIN: EAI_AGAIN), whatever the status;
		 *   - but gethostbyname2_r (getaddrinfo's path for AF_INET
		 *     without AI_CANONNAME) returns UNAVAIL's errno, and 0
		 *     only when it is 0, where getaddrinfo reads 0 as "no
		 *     such name" and anything else by h_errno: TRYAGAIN with
		 *     h_errno kept returns EAGAIN, not 0, as NOTFOUND does.
		 */
		if (proto_unavail_decode(rep->body, rep->body_len, &he, &err) < 0) {
			he = HOST_NOT_FOUND;
			err = ENOENT;
		}
		ncc_reply_free(rep);
		*errnop = err == ERANGE || err == 0 ? ENOENT : err;
		if (he == NETDB_INTERNAL) {
			*h_errnop = NETDB_INTERNAL;
			return NSS_STATUS_TRYAGAIN;
		}
		*h_errnop = he > 0 ? he : HOST_NOT_FOUND;
		return err != 0 ? NSS_STATUS_TRYAGAIN : NSS_STATUS_NOTFOUND;
	}
	default:
		/* Declined: let the next source in nsswitch.conf answer. */
		ncc_reply_free(rep);
		return unavail(EINVAL, errnop, h_errnop);
	}
}

/*
 * The socket, for a name the segment did not answer.  Apart, so that a
 * hit's path carries neither its buffer nor its stack guard.  A name the
 * daemon would refuse, the encoder refuses too (proto_name_check):
 * UNAVAIL, and the next source answers.
 */
static __attribute__((noinline)) enum nss_status
ask_name_socket(const char *name, uint8_t family, struct src *s,
    struct proto_answer *ans, int *errnop, int *h_errnop)
{
	uint8_t		buf[PROTO_HDR_LEN + 4 + PROTO_NAME_MAX + 1];
	struct proto_wr	w;

	proto_wr_init(&w, buf, sizeof(buf));
	return ask(buf, proto_lookup_name_encode(&w, ncc_next_id(), family, name),
	    &s->rep, ans, errnop, h_errnop);
}

static inline enum nss_status
ask_name(const char *name, uint8_t family, struct src *s,
    struct proto_answer *ans, int *errnop, int *h_errnop)
{
	enum nss_status st;

	/*
	 * The segment holds only names the daemon accepted (shmfmt.h), and a
	 * name that matches one, in any case, passes the same check: a hit
	 * needs no check of its own.
	 */
	st = ask_shared(SHM_NAME, family, name, strlen(name), s, ans, errnop,
	    h_errnop);
	if (st != NSS_STATUS_UNAVAIL)
		return st;
	return ask_name_socket(name, family, s, ans, errnop, h_errnop);
}

/* A layout's result (layout.h) as glibc's statuses. */
static enum nss_status
laid_out(int r, int *errnop, int *h_errnop)
{
	switch (r) {
	case 0:
		return NSS_STATUS_SUCCESS;
	case -ENOENT:
		*errnop = ENOENT;
		*h_errnop = NO_DATA;
		return NSS_STATUS_NOTFOUND;
	case -ERANGE:
		return erange(errnop, h_errnop);
	}
	/* A hit whose bytes changed: as a reply that does not decode. */
	return unavail(-r, errnop, h_errnop);
}

enum nss_status
_nss_namecache_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp)
{
	struct proto_answer	a;
	struct src		rep;
	enum nss_status		st;
	int			saved = errno;

	src_init(&rep);
	st = ask_name(name, PROTO_AF_UNSPEC, &rep, &a, errnop, h_errnop);
	if (st != NSS_STATUS_SUCCESS)
		goto out;
	st = laid_out(layout_gaih(&a, pat, buffer, buflen), errnop, h_errnop);
	if (st == NSS_STATUS_SUCCESS && ttlp && a.source != PROTO_SRC_HOSTS)
		*ttlp = (int32_t)(a.ttl > INT32_MAX ? INT32_MAX : a.ttl);
	src_free(&rep);
out:
	return finish(st, saved, errnop);
}

enum nss_status
_nss_namecache_gethostbyname3_r(const char *name, int af, struct hostent *host,
    char *buffer, size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp,
    char **canonp)
{
	struct proto_answer	a;
	struct src		rep;
	enum nss_status		st;
	int			saved = errno;

	src_init(&rep);
	if (af != AF_INET && af != AF_INET6) {
		st = unavail(EAFNOSUPPORT, errnop, h_errnop);
		goto out;
	}
	st = ask_name(name, af == AF_INET ? PROTO_AF_INET : PROTO_AF_INET6,
	    &rep, &a, errnop, h_errnop);
	if (st != NSS_STATUS_SUCCESS)
		goto out;
	st = laid_out(layout_hostent(&a, af, host, buffer, buflen), errnop, h_errnop);
	if (st == NSS_STATUS_SUCCESS && canonp)
		*canonp = host->h_name;
	if (st == NSS_STATUS_SUCCESS && ttlp && a.source != PROTO_SRC_HOSTS)
		*ttlp = (int32_t)(a.ttl > INT32_MAX ? INT32_MAX : a.ttl);
	src_free(&rep);
out:
	return finish(st, saved, errnop);
}

enum nss_status
_nss_namecache_gethostbyname2_r(const char *name, int af, struct hostent *host,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return _nss_namecache_gethostbyname3_r(name, af, host, buffer, buflen,
	    errnop, h_errnop, NULL, NULL);
}

enum nss_status
_nss_namecache_gethostbyname_r(const char *name, struct hostent *host,
    char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return _nss_namecache_gethostbyname3_r(name, AF_INET, host, buffer, buflen,
	    errnop, h_errnop, NULL, NULL);
}

enum nss_status
_nss_namecache_gethostbyaddr2_r(const void *addr, socklen_t len, int af,
    struct hostent *host, char *buffer, size_t buflen, int *errnop,
    int *h_errnop, int32_t *ttlp)
{
	struct proto_answer	a;
	struct src		rep;
	struct proto_wr		w;
	enum nss_status		st;
	uint8_t			buf[PROTO_HDR_LEN + 2 + 16];
	int			saved = errno;

	src_init(&rep);
	if (!((af == AF_INET && len == 4) || (af == AF_INET6 && len == 16))) {
		st = unavail(EAFNOSUPPORT, errnop, h_errnop);
		goto out;
	}
	st = ask_shared(SHM_ADDR, af == AF_INET ? PROTO_AF_INET : PROTO_AF_INET6,
	    addr, len, &rep, &a, errnop, h_errnop);
	if (st == NSS_STATUS_UNAVAIL) {
		proto_wr_init(&w, buf, sizeof(buf));
		st = ask(buf, proto_lookup_addr_encode(&w, ncc_next_id(),
		    af == AF_INET ? PROTO_AF_INET : PROTO_AF_INET6, addr),
		    &rep.rep, &a, errnop, h_errnop);
	}
	if (st != NSS_STATUS_SUCCESS)
		goto out;
	/*
	 * glibc's dns module answers a v4-mapped (or v4-compatible) IPv6
	 * address with the IPv4 one, as an AF_INET hostent; the daemon does
	 * the same, so take the family from the answer.
	 */
	if (af == AF_INET6 && a.naddr6 == 0 && a.naddr4 > 0)
		af = AF_INET;
	st = laid_out(layout_hostent(&a, af, host, buffer, buflen), errnop, h_errnop);
	if (st == NSS_STATUS_SUCCESS && ttlp && a.source != PROTO_SRC_HOSTS)
		*ttlp = (int32_t)(a.ttl > INT32_MAX ? INT32_MAX : a.ttl);
	src_free(&rep);
out:
	return finish(st, saved, errnop);
}

enum nss_status
_nss_namecache_gethostbyaddr_r(const void *addr, socklen_t len, int af,
    struct hostent *host, char *buffer, size_t buflen, int *errnop,
    int *h_errnop)
{
	return _nss_namecache_gethostbyaddr2_r(addr, len, af, host, buffer,
	    buflen, errnop, h_errnop, NULL);
}
