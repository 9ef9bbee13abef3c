/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nssmods.c - the host's NSS modules, loaded and called as glibc calls them. */

/*
 * Runs on the pool's worker threads, any number at once, and blocks for
 * as long as a module likes.  A module is loaded by the first call that
 * needs it, under its own lock, and only read after.  The table of names
 * grows on the loop alone; a call names only a module added before it
 * was queued, and the pool's mutex orders the two.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nssent.h"
#include "nssmods.h"
#include "nsswitch.h"
#include "proto.h"

#define ADDRS_MAX	512
#define ALIASES_MAX	64
#define BUF_START	1024

typedef enum nss_status fn4_t(const char *, struct gaih_addrtuple **, char *, size_t, int *,
    int *, int32_t *);
typedef enum nss_status fn3_t(const char *, int, struct hostent *, char *, size_t,
    int *, int *, int32_t *, char **);
typedef enum nss_status fn2_t(const char *, int, struct hostent *, char *, size_t,
    int *, int *);
typedef enum nss_status fna2_t(const void *, socklen_t, int, struct hostent *,
    char *, size_t, int *, int *, int32_t *);
typedef enum nss_status fna_t(const void *, socklen_t, int, struct hostent *,
    char *, size_t, int *, int *);

struct module {
	char		 name[NSW_NAME_MAX];
	pthread_mutex_t	 lock;		/* guards the loading */
	int		 state;		/* 0 not tried, 1 loaded, -1 failed */
	void		*handle;
	fn4_t		*fn4;
	fn3_t		*fn3;
	fn2_t		*fn2;
	fna2_t		*fna2;
	fna_t		*fna;
	struct nssent_fns ent;
};

struct nssmods {
	unsigned	 nmods;
	struct module	 mods[NSSPOOL_MODULES_MAX];
};

/* --- on the loop -------------------------------------------------------- */

struct nssmods *
nssmods_new(void)
{
	struct nssmods *ms = calloc(1, sizeof(*ms));

	return ms;
}

void
nssmods_free(struct nssmods *ms)
{
	unsigned i;

	if (ms == NULL)
		return;
	for (i = 0; i < ms->nmods; i++) {
		if (ms->mods[i].handle)
			dlclose(ms->mods[i].handle);
		pthread_mutex_destroy(&ms->mods[i].lock);
	}
	free(ms);
}

int
nssmods_add(struct nssmods *ms, const char *name)
{
	struct module	*m;
	unsigned	 i;

	if (name[0] == '\0' || strlen(name) >= NSW_NAME_MAX ||
	    strcmp(name, "namecache") == 0 || strchr(name, '/'))
		return -EINVAL;
	for (i = 0; i < ms->nmods; i++)
		if (strcmp(ms->mods[i].name, name) == 0)
			return (int)i;
	if (ms->nmods == NSSPOOL_MODULES_MAX)
		return -E2BIG;
	m = &ms->mods[ms->nmods];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	pthread_mutex_init(&m->lock, NULL);
	return (int)ms->nmods++;
}

unsigned
nssmods_count(const struct nssmods *ms)
{
	return ms->nmods;
}

const char *
nssmods_name(const struct nssmods *ms, int id)
{
	if (id < 0 || (unsigned)id >= ms->nmods)
		return "?";
	return ms->mods[id].name;
}

bool
nssmods_missing(struct nssmods *ms, int id)
{
	struct module	*m;
	bool		 missing;

	if (id < 0 || (unsigned)id >= ms->nmods)
		return false;
	m = &ms->mods[id];
	pthread_mutex_lock(&m->lock);
	missing = m->state == -1;
	pthread_mutex_unlock(&m->lock);
	return missing;
}

/* --- on a worker thread ------------------------------------------------- */

static void
module_load(struct module *m)
{
	char lib[NSW_NAME_MAX + 16], sym[NSW_NAME_MAX + 32];

	pthread_mutex_lock(&m->lock);
	if (m->state != 0)
		goto done;
	m->state = -1;
	snprintf(lib, sizeof(lib), "libnss_%s.so.2", m->name);
	if ((m->handle = dlopen(lib, RTLD_LAZY | RTLD_LOCAL)) == NULL)
		goto done;
#define LOOKUP(field, type, fn) do {					\
		snprintf(sym, sizeof(sym), "_nss_%s_" fn, m->name);	\
		m->field = (type *)dlsym(m->handle, sym);		\
	} while (0)
	LOOKUP(fn4, fn4_t, "gethostbyname4_r");
	LOOKUP(fn3, fn3_t, "gethostbyname3_r");
	LOOKUP(fn2, fn2_t, "gethostbyname2_r");
	LOOKUP(fna2, fna2_t, "gethostbyaddr2_r");
	LOOKUP(fna, fna_t, "gethostbyaddr_r");
#undef LOOKUP
	nssent_load(&m->ent, m->handle, m->name);
	m->state = 1;
done:
	pthread_mutex_unlock(&m->lock);
}

static bool
buf_grow(struct nssmods_buf *b, size_t max)
{
	size_t	 len = b->len ? b->len * 2 : BUF_START;
	char	*p;

	if (len > max || (p = realloc(b->p, len)) == NULL)
		return false;
	b->p = p;
	b->len = len;
	return true;
}

int
nssmods_retry(struct nssmods_retry *t, enum nss_status *s, int *err, int *herr)
{
	if (!t->called) {
		t->called = true;
		if (t->b->len == 0 && !buf_grow(t->b, t->max)) {
			*s = NSS_STATUS_TRYAGAIN;
			*err = ENOMEM;
			if (herr)
				*herr = NETDB_INTERNAL;
			return -ENOMEM;
		}
	} else if (*s != NSS_STATUS_TRYAGAIN || *err != ERANGE ||
	    (herr && *herr != NETDB_INTERNAL))
		return 0;
	else if (!buf_grow(t->b, t->max))
		return -ERANGE;
	*err = 0;
	if (herr)
		*herr = 0;
	return 1;
}

/* What one nssmods_run's module calls gathered, before it becomes a body. */
struct gather {
	const char	*canon;
	char		**aliases;
	unsigned	 naddr;
	uint8_t		 fam[ADDRS_MAX];
	uint8_t		 addr[ADDRS_MAX][20];	/* PROTO_AF_INET6_SCOPED: + scope */
};

static void
gather_hostent(struct gather *g, const struct hostent *h)
{
	char **a;

	if (g->canon == NULL) {
		g->canon = h->h_name;
		g->aliases = h->h_aliases;
	}
	if (h->h_length != (h->h_addrtype == AF_INET ? 4 : 16) ||
	    (h->h_addrtype != AF_INET && h->h_addrtype != AF_INET6))
		return;
	for (a = h->h_addr_list; a && *a && g->naddr < ADDRS_MAX; a++) {
		g->fam[g->naddr] = h->h_addrtype == AF_INET ? PROTO_AF_INET :
		    PROTO_AF_INET6;
		memcpy(g->addr[g->naddr], *a, (size_t)h->h_length);
		g->naddr++;
	}
}

/* Writes the body into a new buffer of the call's; false if it cannot. */
static bool
put_body(struct nssmods_call *c, const struct module *m, const struct gather *g,
    const char *fallback)
{
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	const char		*canon = g->canon ? g->canon : fallback;
	unsigned		 i, n = 0;

	if ((c->body = malloc(PROTO_FRAME_MAX)) == NULL)
		return false;
	proto_wr_init(&w, c->body, PROTO_FRAME_MAX - PROTO_HDR_LEN);
	proto_answer_begin(&aw, &w, 0, PROTO_SRC_NSS, canon, strlen(canon));
	for (i = 0; i < g->naddr; i++)
		proto_answer_addr(&aw, g->fam[i], g->addr[i]);
	for (i = 0; g->aliases && g->aliases[i] && n < ALIASES_MAX; i++, n++)
		proto_answer_alias(&aw, g->aliases[i], strlen(g->aliases[i]));
	proto_answer_end(&aw);
	proto_put_str(&w, m->name, strlen(m->name));
	if (w.err) {
		free(c->body);
		c->body = NULL;
		return false;
	}
	c->res.body = c->body;
	c->res.len = w.off;
	return true;
}

static int
status_of(enum nss_status s)
{
	switch (s) {
	case NSS_STATUS_SUCCESS:	return NSW_SUCCESS;
	case NSS_STATUS_NOTFOUND:	return NSW_NOTFOUND;
	case NSS_STATUS_TRYAGAIN:	return NSW_TRYAGAIN;
	default:			return NSW_UNAVAIL;	/* and RETURN */
	}
}

/*
 * A hosts call out of room (no first buffer, or ERANGE still at 1 MiB)
 * says ENOMEM: its errno reaches clients, for whom ERANGE would mean
 * "grow your buffer", and theirs is not the one that ran out.
 */
static void
hosts_retry_failed(int r, int *err)
{
	if (r < 0)
		*err = ENOMEM;
}

/* One gethostbyname3_r or _2_r call for af, into g; returns the status. */
static enum nss_status
call_family(struct module *m, const char *name, int af, struct hostent *h,
    struct nssmods_buf *b, int *err, int *herr, int32_t *ttl)
{
	struct nssmods_retry	 t = { b, NSSPOOL_BUFFER_MAX, false };
	enum nss_status		 s = NSS_STATUS_UNAVAIL;
	char			*canon = NULL;
	int			 r;

	while ((r = nssmods_retry(&t, &s, err, herr)) > 0) {
		if (m->fn3)
			s = m->fn3(name, af, h, b->p, b->len, err, herr, ttl, &canon);
		else
			s = m->fn2(name, af, h, b->p, b->len, err, herr);
	}
	hosts_retry_failed(r, err);
	/* gethostbyname3_r's canonical name is what getaddrinfo reports. */
	if (s == NSS_STATUS_SUCCESS && canon)
		h->h_name = canon;
	return s;
}

static void
run_name(struct nssmods_call *c, struct module *m, struct nssmods_buf *b,
    struct nssmods_buf *b2)
{
	const char	*name = (const char *)c->key;
	struct gather	 g;
	enum nss_status	 s, s6 = NSS_STATUS_UNAVAIL;
	struct hostent	 h6, h4;
	int32_t		 ttl = -1, ttl2 = -1;
	int		 err = 0, herr = 0;

	memset(&g, 0, sizeof(g));
	if (c->family == PROTO_AF_UNSPEC && m->fn4) {
		struct nssmods_retry	 rt = { b, NSSPOOL_BUFFER_MAX, false };
		struct gaih_addrtuple	*pat = NULL, *t;
		int			 r;

		while ((r = nssmods_retry(&rt, &s, &err, &herr)) > 0) {
			pat = NULL;
			s = m->fn4(name, &pat, b->p, b->len, &err, &herr, &ttl);
		}
		hosts_retry_failed(r, &err);
		if (s == NSS_STATUS_SUCCESS) {
			for (t = pat; t && g.naddr < ADDRS_MAX; t = t->next) {
				if (g.canon == NULL && t->name)
					g.canon = t->name;
				if (t->family != AF_INET && t->family != AF_INET6)
					continue;
				g.fam[g.naddr] = t->family == AF_INET ?
				    PROTO_AF_INET : PROTO_AF_INET6;
				memcpy(g.addr[g.naddr], t->addr,
				    t->family == AF_INET ? 4 : 16);
				/* fe80::1%eth0, as nss-myhostname gives it */
				if (t->family == AF_INET6 && t->scopeid != 0) {
					g.fam[g.naddr] = PROTO_AF_INET6_SCOPED;
					proto_answer_set_scope(g.addr[g.naddr],
					    t->scopeid);
				}
				g.naddr++;
			}
		}
	} else if (m->fn3 || m->fn2) {
		/*
		 * As getaddrinfo: AF_INET6 first, then AF_INET; found in
		 * either is found, else TRYAGAIN from AF_INET6 wins, else
		 * AF_INET's status unless it is UNAVAIL and AF_INET6's not.
		 */
		s = NSS_STATUS_UNAVAIL;
		if (c->family != PROTO_AF_INET) {
			s6 = s = call_family(m, name, AF_INET6, &h6, b, &err, &herr,
			    &ttl);
			if (s6 == NSS_STATUS_SUCCESS)
				gather_hostent(&g, &h6);
		}
		if (c->family != PROTO_AF_INET6) {
			s = call_family(m, name, AF_INET, &h4, b2, &err, &herr, &ttl2);
			if (s == NSS_STATUS_SUCCESS)
				gather_hostent(&g, &h4);
			if (ttl2 >= 0 && (ttl < 0 || ttl2 < ttl))
				ttl = ttl2;
		}
		if (c->family == PROTO_AF_UNSPEC) {
			if (s6 == NSS_STATUS_SUCCESS || s == NSS_STATUS_SUCCESS)
				s = NSS_STATUS_SUCCESS;
			else if (s6 == NSS_STATUS_TRYAGAIN)
				s = NSS_STATUS_TRYAGAIN;
			else if (s == NSS_STATUS_UNAVAIL && s6 != NSS_STATUS_UNAVAIL)
				s = s6;
		}
	} else {
		/* No function to call: getaddrinfo's "could not locate". */
		s = NSS_STATUS_UNAVAIL;
		herr = NETDB_INTERNAL;
		err = EBUSY;
	}
	c->res.status = status_of(s);
	c->res.err = err;
	c->res.herrno = herr;
	c->res.ttl = ttl;
	if (s == NSS_STATUS_SUCCESS && !put_body(c, m, &g, name)) {
		c->res.status = NSW_UNAVAIL;
		c->res.err = EMSGSIZE;
		c->res.herrno = NETDB_INTERNAL;
	}
}

static void
run_addr(struct nssmods_call *c, struct module *m, struct nssmods_buf *b)
{
	struct nssmods_retry	 t = { b, NSSPOOL_BUFFER_MAX, false };
	struct gather		 g;
	struct hostent		 h;
	enum nss_status		 s = NSS_STATUS_UNAVAIL;
	int32_t			 ttl = -1;
	int			 af = c->family == PROTO_AF_INET ? AF_INET : AF_INET6;
	int			 err = 0, herr = 0, r;

	memset(&g, 0, sizeof(g));
	if (m->fna2 == NULL && m->fna == NULL) {
		c->res.status = NSW_UNAVAIL;
		c->res.herrno = NETDB_INTERNAL;
		c->res.err = EBUSY;
		return;
	}
	while ((r = nssmods_retry(&t, &s, &err, &herr)) > 0) {
		if (m->fna2)
			s = m->fna2(c->key, (socklen_t)c->key_len, af, &h, b->p, b->len,
			    &err, &herr, &ttl);
		else
			s = m->fna(c->key, (socklen_t)c->key_len, af, &h, b->p, b->len,
			    &err, &herr);
	}
	hosts_retry_failed(r, &err);
	c->res.status = status_of(s);
	c->res.err = err;
	c->res.herrno = herr;
	c->res.ttl = ttl;
	if (s != NSS_STATUS_SUCCESS)
		return;
	gather_hostent(&g, &h);
	if (g.canon == NULL || !put_body(c, m, &g, "")) {
		c->res.status = NSW_UNAVAIL;
		c->res.err = EMSGSIZE;
		c->res.herrno = NETDB_INTERNAL;
	}
}

void
nssmods_run(struct nssmods *ms, struct nssmods_call *c, struct nssmods_buf *b,
    struct nssmods_buf *b2)
{
	struct module *m = &ms->mods[c->mod];

	module_load(m);
	if (m->state != 1) {
		/* As glibc, for a module it cannot load. */
		c->res.status = NSW_UNAVAIL;
		c->res.herrno = NETDB_INTERNAL;
		c->res.err = EBUSY;
		c->res.ttl = -1;
	} else if (c->op == NSSPOOL_NAME)
		run_name(c, m, b, b2);
	else if (c->op == NSSPOOL_ADDR)
		run_addr(c, m, b);
	else
		nssent_run(&m->ent, c, b);
	/* A buffer grown for one giant group is not kept for every call. */
	if (b->len > NSSENT_BUFFER_KEEP) {
		free(b->p);
		b->p = NULL;
		b->len = 0;
	}
}
