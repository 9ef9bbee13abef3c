/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nssent.c - a module's passwd, group, initgroups, services and netgroup calls, on a worker. */

/*
 * One call of one module, as glibc makes it (nss/getXXbyYY_r.c,
 * grp/initgroups.c, inet/getnetgrent_r.c), with the buffer grown on
 * ERANGE (nssmods_retry); the answer leaves as the bytes glibc's nscd client reads, built
 * here on the worker so the loop only copies them.  The walk of the line
 * (statuses, actions, merge, nested netgroups) is nscdwalk.c's, on the
 * same worker: one job of the pool, one call after another.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <nss.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscdent.h"
#include "nssent.h"
#include "nssmods.h"
#include "nsswitch.h"

/*
 * setgrent, getgrent_r, endgrent keep one position per module, not per
 * caller: two workers enumerating at once would each see part of it.
 * glibc's compat_call has the same shape; here the enumerations take turns.
 */
static pthread_mutex_t enum_lock = PTHREAD_MUTEX_INITIALIZER;

typedef enum nss_status pwnam_t(const char *, struct passwd *, char *, size_t, int *);
typedef enum nss_status pwuid_t(uid_t, struct passwd *, char *, size_t, int *);
typedef enum nss_status grnam_t(const char *, struct group *, char *, size_t, int *);
typedef enum nss_status grgid_t(gid_t, struct group *, char *, size_t, int *);
typedef enum nss_status initgr_t(const char *, gid_t, long *, long *, gid_t **, long,
    int *);
typedef enum nss_status setgrent_t(int);
typedef enum nss_status getgrent_t(struct group *, char *, size_t, int *);
typedef enum nss_status endgrent_t(void);
typedef enum nss_status servname_t(const char *, const char *, struct servent *, char *,
    size_t, int *);
typedef enum nss_status servport_t(int, const char *, struct servent *, char *, size_t,
    int *);

/*
 * glibc's struct __netgrent (nss/netgroup.h), which netgroup modules fill
 * in: the fields up to nip are its layout; the tail is room should a
 * module's idea of it be larger.
 */
struct netgrent {
	enum { TRIPLE_VAL, GROUP_VAL } type;
	union {
		struct {
			const char *host;
			const char *user;
			const char *domain;
		} triple;
		const char *group;
	} val;
	char		*data;
	size_t		 data_size;
	union {
		char		*cursor;
		unsigned long	 position;
	};
	int		 first;
	void		*known_groups;
	void		*needed_groups;
	void		*nip;
	char		 room[256];
};
typedef enum nss_status setnetgr_t(const char *, struct netgrent *);
typedef enum nss_status getnetgr_t(struct netgrent *, char *, size_t, int *);
typedef enum nss_status endnetgr_t(struct netgrent *);

void
nssent_load(struct nssent_fns *f, void *handle, const char *name)
{
	char sym[NSW_NAME_MAX + 32];

#define LOOKUP(field) do {						\
		snprintf(sym, sizeof(sym), "_nss_%s_" #field, name);	\
		f->field = dlsym(handle, sym);				\
	} while (0)
	LOOKUP(getpwnam_r);
	LOOKUP(getpwuid_r);
	LOOKUP(getgrnam_r);
	LOOKUP(getgrgid_r);
	LOOKUP(initgroups_dyn);
	LOOKUP(setgrent);
	LOOKUP(getgrent_r);
	LOOKUP(endgrent);
	LOOKUP(getservbyname_r);
	LOOKUP(getservbyport_r);
	LOOKUP(setnetgrent);
	LOOKUP(getnetgrent_r);
	LOOKUP(endnetgrent);
#undef LOOKUP
}

static int
status_of(enum nss_status s)
{
	switch (s) {
	case NSS_STATUS_SUCCESS:	return NSW_SUCCESS;
	case NSS_STATUS_NOTFOUND:	return NSW_NOTFOUND;
	case NSS_STATUS_TRYAGAIN:	return NSW_TRYAGAIN;
	case NSS_STATUS_UNAVAIL:	return NSW_UNAVAIL;
	default:			return NSW_NOTFOUND;	/* RETURN: the end */
	}
}

/*
 * The reply built into a second buffer as large as the first needed
 * (a reply is never much larger than the strings it holds).
 */
typedef int build_fn(const void *ent, void *out, size_t cap);

static void
build_body(struct nssmods_call *c, build_fn *fn, const void *ent, size_t hint)
{
	size_t	 cap = hint + 4096;
	uint8_t	*out;
	int	 n;

	for (;;) {
		if ((out = malloc(cap)) == NULL) {
			n = -ENOMEM;
			break;
		}
		if ((n = fn(ent, out, cap)) != -E2BIG || cap >= 4 * NSSENT_BUFFER_MAX)
			break;
		free(out);
		cap *= 2;
	}
	if (n < 0) {
		free(out);
		/* What the format cannot carry: glibc's own walk answers it. */
		c->res.status = NSW_TRYAGAIN;
		c->res.err = n == -ENOMEM ? ENOMEM : EMSGSIZE;
		return;
	}
	c->body = out;
	c->res.body = out;
	c->res.len = (size_t)n;
}

static int
build_pw(const void *e, void *out, size_t cap)
{
	return nscd_build_pw(e, out, cap);
}

static int
build_gr(const void *e, void *out, size_t cap)
{
	return nscd_build_gr(e, out, cap);
}

static int
build_serv(const void *e, void *out, size_t cap)
{
	return nscd_build_serv(e, out, cap);
}

static uint32_t
key_u32(const struct nssmods_call *c)
{
	uint32_t v;

	memcpy(&v, c->key, sizeof(v));
	return v;
}

/* The single-answer lookups: passwd, group, services. */
static void
run_one(const struct nssent_fns *f, struct nssmods_call *c, struct nssmods_buf *b)
{
	union {
		struct passwd	pw;
		struct group	gr;
		struct servent	se;
	} u;
	struct nssmods_retry	 t = { b, NSSENT_BUFFER_MAX, false };
	const char		*k = (const char *)c->key, *proto = NULL;
	enum nss_status		 s = NSS_STATUS_UNAVAIL;
	void			*fn;
	int			 err = 0, port = 0;

	switch (c->op) {
	case NSSPOOL_PWNAM:	fn = f->getpwnam_r; break;
	case NSSPOOL_PWUID:	fn = f->getpwuid_r; break;
	case NSSPOOL_GRNAM:	fn = f->getgrnam_r; break;
	case NSSPOOL_GRGID:	fn = f->getgrgid_r; break;
	case NSSPOOL_SERVNAME:
		fn = f->getservbyname_r;
		proto = k + strlen(k) + 1;
		break;
	default:
		fn = f->getservbyport_r;
		memcpy(&port, c->key, sizeof(port));
		proto = k + sizeof(port);
		break;
	}
	if (proto && *proto == '\0')
		proto = NULL;
	if (fn == NULL) {
		c->res.missing = true;
		c->res.status = NSW_UNAVAIL;
		return;
	}
	/* Past the bound: TRYAGAIN with ERANGE, as the module left them. */
	while (nssmods_retry(&t, &s, &err, NULL) > 0) {
		memset(&u, 0, sizeof(u));
		switch (c->op) {
		case NSSPOOL_PWNAM:
			s = ((pwnam_t *)fn)(k, &u.pw, b->p, b->len, &err);
			break;
		case NSSPOOL_PWUID:
			s = ((pwuid_t *)fn)(key_u32(c), &u.pw, b->p, b->len, &err);
			break;
		case NSSPOOL_GRNAM:
			s = ((grnam_t *)fn)(k, &u.gr, b->p, b->len, &err);
			break;
		case NSSPOOL_GRGID:
			s = ((grgid_t *)fn)(key_u32(c), &u.gr, b->p, b->len, &err);
			break;
		case NSSPOOL_SERVNAME:
			s = ((servname_t *)fn)(k, proto, &u.se, b->p, b->len, &err);
			break;
		default:
			s = ((servport_t *)fn)(port, proto, &u.se, b->p, b->len, &err);
			break;
		}
	}
	c->res.status = status_of(s);
	c->res.err = err;
	if (s != NSS_STATUS_SUCCESS)
		return;
	switch (c->op) {
	case NSSPOOL_PWNAM:
	case NSSPOOL_PWUID:
		build_body(c, build_pw, &u.pw, b->len);
		break;
	case NSSPOOL_GRNAM:
	case NSSPOOL_GRGID:
		build_body(c, build_gr, &u.gr, b->len);
		break;
	default:
		build_body(c, build_serv, &u.se, b->len);
		break;
	}
}

/*
 * initgroups_dyn, with no group to leave out and no limit (as nscd asks);
 * a module without it is enumerated with getgrent_r, as glibc's
 * compat_call does.
 */
static void
run_initgr(const struct nssent_fns *f, struct nssmods_call *c, struct nssmods_buf *b)
{
	const char	*user = (const char *)c->key;
	enum nss_status	 s;
	long		 start = 0, size = 64, i;
	gid_t		*groups;
	uint32_t	 how;
	int		 err = 0;

	if (f->initgroups_dyn == NULL && f->getgrent_r == NULL) {
		c->res.missing = true;
		c->res.status = NSW_UNAVAIL;
		return;
	}
	if ((groups = malloc((size_t)size * sizeof(*groups))) == NULL) {
		c->res.status = NSW_TRYAGAIN;
		c->res.err = ENOMEM;
		return;
	}
	if (f->initgroups_dyn) {
		how = NSSENT_INITGR_DYN;
		s = ((initgr_t *)f->initgroups_dyn)(user, (gid_t)-1, &start, &size,
		    &groups, -1, &err);
	} else {
		struct group	gr;
		char		**m;

		how = NSSENT_INITGR_COMPAT;
		s = NSS_STATUS_SUCCESS;
		pthread_mutex_lock(&enum_lock);
		if (f->setgrent)
			s = ((setgrent_t *)f->setgrent)(0);
		while (s == NSS_STATUS_SUCCESS) {
			struct nssmods_retry t = { b, NSSENT_BUFFER_MAX, false };

			/* ERANGE asks for the same entry again, in a larger buffer. */
			while (nssmods_retry(&t, &s, &err, NULL) > 0)
				s = ((getgrent_t *)f->getgrent_r)(&gr, b->p, b->len, &err);
			if (s != NSS_STATUS_SUCCESS)
				break;
			for (m = gr.gr_mem; m && *m; m++)
				if (strcmp(*m, user) == 0)
					break;
			if (m == NULL || *m == NULL)
				continue;
			for (i = 0; i < start; i++)
				if (groups[i] == gr.gr_gid)
					break;
			if (i < start)
				continue;
			if (start == size) {
				gid_t *p = realloc(groups, (size_t)size * 2 * sizeof(*groups));

				if (p == NULL) {
					s = NSS_STATUS_TRYAGAIN;
					err = ENOMEM;
					break;
				}
				groups = p;
				size *= 2;
			}
			groups[start++] = gr.gr_gid;
		}
		if (s == NSS_STATUS_NOTFOUND)
			s = NSS_STATUS_SUCCESS;
		if (f->endgrent)
			((endgrent_t *)f->endgrent)();
		pthread_mutex_unlock(&enum_lock);
	}
	c->res.status = status_of(s);
	c->res.err = err;
	/* Whatever it added counts, whatever it says (glibc keeps them). */
	if ((c->body = malloc(sizeof(how) + (size_t)start * sizeof(*groups))) == NULL) {
		c->res.status = NSW_TRYAGAIN;
		c->res.err = ENOMEM;
	} else {
		memcpy(c->body, &how, sizeof(how));
		memcpy(c->body + sizeof(how), groups, (size_t)start * sizeof(*groups));
		c->res.body = c->body;
		c->res.len = sizeof(how) + (size_t)start * sizeof(*groups);
	}
	free(groups);
}

/* Appends s (NULL: "") and its NUL. */
static bool
ent_put(char **p, size_t *len, size_t *cap, const void *s, size_t n)
{
	if (*len + n > *cap) {
		size_t	 c = *cap ? *cap : 1024;
		char	*q;

		while (c < *len + n)
			c *= 2;
		if (c > 4 * NSSENT_BUFFER_MAX || (q = realloc(*p, c)) == NULL)
			return false;
		*p = q;
		*cap = c;
	}
	memcpy(*p + *len, s, n);
	*len += n;
	return true;
}

static bool
ent_str(char **p, size_t *len, size_t *cap, const char *s)
{
	if (s == NULL)
		s = "";
	return ent_put(p, len, cap, s, strlen(s) + 1);
}

/* setnetgrent, then getnetgrent_r to the end, then endnetgrent. */
static void
run_netgr(const struct nssent_fns *f, struct nssmods_call *c, struct nssmods_buf *b)
{
	struct netgrent	 ng;
	enum nss_status	 s;
	char		*out = NULL;
	size_t		 len = 0, cap = 0;
	int		 err = 0, r;
	bool		 ok = true;

	if (f->setnetgrent == NULL) {
		c->res.missing = true;
		c->res.status = NSW_UNAVAIL;
		return;
	}
	memset(&ng, 0, sizeof(ng));
	s = ((setnetgr_t *)f->setnetgrent)((const char *)c->key, &ng);
	c->res.status = status_of(s);
	if (s != NSS_STATUS_SUCCESS) {
		if (f->endnetgrent)
			((endnetgr_t *)f->endnetgrent)(&ng);
		return;
	}
	while (ok && f->getnetgrent_r) {
		struct nssmods_retry t = { b, NSSENT_BUFFER_MAX, false };

		while ((r = nssmods_retry(&t, &s, &err, NULL)) > 0)
			s = ((getnetgr_t *)f->getnetgrent_r)(&ng, b->p, b->len, &err);
		if (r < 0)
			ok = false;
		else if (s != NSS_STATUS_SUCCESS)
			break;
		else if (ng.type == GROUP_VAL)
			ok = ent_put(&out, &len, &cap, "g", 1) &&
			    ent_str(&out, &len, &cap, ng.val.group);
		else
			ok = ent_put(&out, &len, &cap, "t", 1) &&
			    ent_str(&out, &len, &cap, ng.val.triple.host) &&
			    ent_str(&out, &len, &cap, ng.val.triple.user) &&
			    ent_str(&out, &len, &cap, ng.val.triple.domain);
	}
	if (f->endnetgrent)
		((endnetgr_t *)f->endnetgrent)(&ng);
	if (!ok) {
		free(out);
		c->res.status = NSW_TRYAGAIN;
		c->res.err = ENOMEM;
		return;
	}
	if (out == NULL && (out = malloc(1)) == NULL) {
		c->res.status = NSW_TRYAGAIN;
		c->res.err = ENOMEM;
		return;
	}
	c->body = (uint8_t *)out;
	c->res.body = c->body;
	c->res.len = len;
}

void
nssent_run(const struct nssent_fns *f, struct nssmods_call *c, struct nssmods_buf *b)
{
	c->res.ttl = -1;
	switch (c->op) {
	case NSSPOOL_INITGR:
		run_initgr(f, c, b);
		break;
	case NSSPOOL_NETGR:
		run_netgr(f, c, b);
		break;
	default:
		run_one(f, c, b);
		break;
	}
}
