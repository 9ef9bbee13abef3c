/* SPDX-License-Identifier: MIT */
/* daemon/nsspool.c - the host's other NSS modules, called on a bounded pool of threads. */

/*
 * A module call can block for as long as the module likes (mdns waits on
 * avahi, sss on sssd), so none runs on the event loop.  The loop owns the
 * table of calls in flight (one per module, op, family and key, however
 * many lookups wait on it), their waiters and their timers; the threads
 * own nothing but the call they run.  They meet under one mutex, at two
 * lists: the queue of calls to run, and the list of calls done, which an
 * eventfd announces to the loop.
 *
 * A call that outlives its timeout is answered TRYAGAIN at once and left
 * to its thread, which may stay stuck in the module; the call is freed
 * when the thread comes back.  Threads are made on demand, up to
 * `workers', stuck ones included: a module that hangs every call ends up
 * holding every thread, new calls queue, and each times out in its turn,
 * but the pool never grows past its bound.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "hash.h"
#include "log.h"
#include "nsspool.h"
#include "nsswitch.h"
#include "proto.h"

#define BUCKETS		1024
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
	/* The loop's alone. */
	uint64_t	 calls;
	uint64_t	 usec;
	uint64_t	 timeouts;
	uint64_t	 found;
	uint64_t	 notfound;
	uint64_t	 unavail;
	uint64_t	 tryagain;
};

struct waiter {
	struct waiter	*next;
	nsspool_fn	*fn;
	void		*arg;
};

enum { J_QUEUED, J_RUNNING, J_DONE };

struct job {
	struct job	*hnext;		/* the loop's table */
	struct job	*qnext;		/* queue or done list, under the lock */
	struct nsspool	*pool;
	int		 mod;
	int		 op;
	uint8_t		 family;
	size_t		 key_len;
	uint8_t		 key[PROTO_NAME_MAX + 2];	/* a name is NUL-terminated */
	struct waiter	*waiters;
	struct event	*timer;
	int		 state;		/* J_*, under the lock */
	bool		 linked;	/* in the loop's table */
	bool		 abandoned;	/* timed out while running */
	int64_t		 usec;		/* the call's length, set by the thread */
	struct nsspool_result res;	/* set by the thread */
	uint8_t		*body;
};

struct nsspool {
	struct event_base *base;
	pthread_mutex_t	 lock;
	pthread_cond_t	 work;		/* a job queued, or stopping */
	pthread_cond_t	 gone;		/* a thread ended */
	struct job	*qhead;
	struct job	**qtail;
	struct job	*done;
	unsigned	 nqueued;
	unsigned	 nthreads;
	unsigned	 idle;
	unsigned	 busy;
	bool		 stopping;
	unsigned	 workers;	/* under the lock */
	int		 efd;
	struct event	*done_ev;
	/* The loop's alone. */
	unsigned	 timeout_ms;
	unsigned	 pending;
	unsigned	 stuck;
	struct job	*table[BUCKETS];
	uint64_t	 hkey[2];	/* SipHash key of the table */
	unsigned	 nmods;
	struct module	 mods[NSSPOOL_MODULES_MAX];
};

static int64_t
now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
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
	m->state = 1;
done:
	pthread_mutex_unlock(&m->lock);
}

/* A thread's buffer for the module, grown on ERANGE. */
struct wbuf {
	char	*p;
	size_t	 len;
};

static bool
wbuf_grow(struct wbuf *b)
{
	size_t	 len = b->len ? b->len * 2 : BUF_START;
	char	*p;

	if (len > NSSPOOL_BUFFER_MAX || (p = realloc(b->p, len)) == NULL)
		return false;
	b->p = p;
	b->len = len;
	return true;
}

/* What the calls of one job gathered, before it is written as a body. */
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

/* Writes the body into a new buffer of the job's; false if it cannot. */
static bool
put_body(struct job *j, const struct gather *g, const char *fallback)
{
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	const char		*canon = g->canon ? g->canon : fallback;
	unsigned		 i, n = 0;

	if ((j->body = malloc(PROTO_FRAME_MAX)) == NULL)
		return false;
	proto_wr_init(&w, j->body, PROTO_FRAME_MAX - PROTO_HDR_LEN);
	proto_answer_begin(&aw, &w, 0, PROTO_SRC_NSS, canon, strlen(canon));
	for (i = 0; i < g->naddr; i++)
		proto_answer_addr(&aw, g->fam[i], g->addr[i]);
	for (i = 0; g->aliases && g->aliases[i] && n < ALIASES_MAX; i++, n++)
		proto_answer_alias(&aw, g->aliases[i], strlen(g->aliases[i]));
	proto_answer_end(&aw);
	proto_put_str(&w, j->pool->mods[j->mod].name,
	    strlen(j->pool->mods[j->mod].name));
	if (w.err) {
		free(j->body);
		j->body = NULL;
		return false;
	}
	j->res.body = j->body;
	j->res.len = w.off;
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

/* ERANGE, the way glibc's callers tell it: grow the buffer and call again. */
static bool
is_erange(enum nss_status s, int err, int herr)
{
	return s == NSS_STATUS_TRYAGAIN && err == ERANGE && herr == NETDB_INTERNAL;
}

/* One gethostbyname3_r or _2_r call for af, into g; returns the status. */
static enum nss_status
call_family(struct module *m, const char *name, int af, struct hostent *h,
    struct wbuf *b, int *err, int *herr, int32_t *ttl)
{
	enum nss_status	 s;
	char		*canon = NULL;

	for (;;) {
		if (b->len == 0 && !wbuf_grow(b))
			goto nomem;
		*err = 0;
		*herr = 0;
		if (m->fn3)
			s = m->fn3(name, af, h, b->p, b->len, err, herr, ttl, &canon);
		else
			s = m->fn2(name, af, h, b->p, b->len, err, herr);
		if (!is_erange(s, *err, *herr))
			break;
		if (!wbuf_grow(b))
			goto nomem;
	}
	/* gethostbyname3_r's canonical name is what getaddrinfo reports. */
	if (s == NSS_STATUS_SUCCESS && canon)
		h->h_name = canon;
	return s;
nomem:
	*err = ENOMEM;
	*herr = NETDB_INTERNAL;
	return NSS_STATUS_TRYAGAIN;
}

static void
run_name(struct job *j, struct module *m, struct wbuf *b, struct wbuf *b2)
{
	const char	*name = (const char *)j->key;
	struct gather	 g;
	enum nss_status	 s, s6 = NSS_STATUS_UNAVAIL;
	struct hostent	 h6, h4;
	int32_t		 ttl = -1, ttl2 = -1;
	int		 err = 0, herr = 0;

	memset(&g, 0, sizeof(g));
	if (j->family == PROTO_AF_UNSPEC && m->fn4) {
		struct gaih_addrtuple *pat = NULL, *t;

		for (;;) {
			if (b->len == 0 && !wbuf_grow(b)) {
				s = NSS_STATUS_TRYAGAIN;
				err = ENOMEM;
				herr = NETDB_INTERNAL;
				break;
			}
			pat = NULL;
			err = 0;
			herr = 0;
			s = m->fn4(name, &pat, b->p, b->len, &err, &herr, &ttl);
			if (!is_erange(s, err, herr))
				break;
			if (!wbuf_grow(b)) {
				err = ENOMEM;
				break;
			}
		}
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
		if (j->family != PROTO_AF_INET) {
			s6 = s = call_family(m, name, AF_INET6, &h6, b, &err, &herr,
			    &ttl);
			if (s6 == NSS_STATUS_SUCCESS)
				gather_hostent(&g, &h6);
		}
		if (j->family != PROTO_AF_INET6) {
			s = call_family(m, name, AF_INET, &h4, b2, &err, &herr, &ttl2);
			if (s == NSS_STATUS_SUCCESS)
				gather_hostent(&g, &h4);
			if (ttl2 >= 0 && (ttl < 0 || ttl2 < ttl))
				ttl = ttl2;
		}
		if (j->family == PROTO_AF_UNSPEC) {
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
	j->res.status = status_of(s);
	j->res.err = err;
	j->res.herrno = herr;
	j->res.ttl = ttl;
	if (s == NSS_STATUS_SUCCESS && !put_body(j, &g, name)) {
		j->res.status = NSW_UNAVAIL;
		j->res.err = EMSGSIZE;
		j->res.herrno = NETDB_INTERNAL;
	}
}

static void
run_addr(struct job *j, struct module *m, struct wbuf *b)
{
	struct gather	 g;
	struct hostent	 h;
	enum nss_status	 s;
	int32_t		 ttl = -1;
	int		 af = j->family == PROTO_AF_INET ? AF_INET : AF_INET6;
	int		 err = 0, herr = 0;

	memset(&g, 0, sizeof(g));
	if (m->fna2 == NULL && m->fna == NULL) {
		j->res.status = NSW_UNAVAIL;
		j->res.herrno = NETDB_INTERNAL;
		j->res.err = EBUSY;
		return;
	}
	for (;;) {
		if (b->len == 0 && !wbuf_grow(b)) {
			s = NSS_STATUS_TRYAGAIN;
			err = ENOMEM;
			herr = NETDB_INTERNAL;
			break;
		}
		err = 0;
		herr = 0;
		if (m->fna2)
			s = m->fna2(j->key, (socklen_t)j->key_len, af, &h, b->p, b->len,
			    &err, &herr, &ttl);
		else
			s = m->fna(j->key, (socklen_t)j->key_len, af, &h, b->p, b->len,
			    &err, &herr);
		if (!is_erange(s, err, herr))
			break;
		if (!wbuf_grow(b)) {
			err = ENOMEM;
			break;
		}
	}
	j->res.status = status_of(s);
	j->res.err = err;
	j->res.herrno = herr;
	j->res.ttl = ttl;
	if (s != NSS_STATUS_SUCCESS)
		return;
	gather_hostent(&g, &h);
	if (g.canon == NULL || !put_body(j, &g, "")) {
		j->res.status = NSW_UNAVAIL;
		j->res.err = EMSGSIZE;
		j->res.herrno = NETDB_INTERNAL;
	}
}

static void
run(struct job *j, struct wbuf *b, struct wbuf *b2)
{
	struct module	*m = &j->pool->mods[j->mod];
	int64_t		 t0 = now_usec();

	module_load(m);
	if (m->state != 1) {
		/* As glibc, for a module it cannot load. */
		j->res.status = NSW_UNAVAIL;
		j->res.herrno = NETDB_INTERNAL;
		j->res.err = EBUSY;
		j->res.ttl = -1;
	} else if (j->op == NSSPOOL_NAME)
		run_name(j, m, b, b2);
	else
		run_addr(j, m, b);
	j->usec = now_usec() - t0;
}

static void *
worker(void *arg)
{
	struct nsspool	*p = arg;
	struct wbuf	 b = { NULL, 0 }, b2 = { NULL, 0 };
	struct job	*j;
	uint64_t	 one = 1;
	sigset_t	 all;

	/* Signals are the loop's (libevent's signal pipe). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stopping && p->qhead == NULL) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->lock);
			p->idle--;
		}
		if (p->stopping)
			break;
		j = p->qhead;
		if ((p->qhead = j->qnext) == NULL)
			p->qtail = &p->qhead;
		p->nqueued--;
		j->state = J_RUNNING;
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		run(j, &b, &b2);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		j->state = J_DONE;
		j->qnext = p->done;
		p->done = j;
		if (write(p->efd, &one, sizeof(one)) < 0) {
			/* The counter is full: the loop has plenty to read. */
		}
	}
	p->nthreads--;
	pthread_cond_broadcast(&p->gone);
	pthread_mutex_unlock(&p->lock);
	free(b.p);
	free(b2.p);
	return NULL;
}

/* --- on the loop -------------------------------------------------------- */

/*
 * Calls are shared by the exact bytes of their key: a module may tell
 * spellings apart (nss-myhostname answers "vm" and not "VM"), so "VM"
 * must not wait on the call for "vm".  Keyed: clients choose the names.
 */
static unsigned
bucket(const struct nsspool *p, int mod, int op, uint8_t family, const uint8_t *key,
    size_t len)
{
	uint64_t h = hash_siphash13(p->hkey, key, len);

	return (unsigned)((h ^ (uint64_t)(mod << 12 | op << 8 | family)) % BUCKETS);
}

static bool
same_key(const struct job *j, const uint8_t *key, size_t len)
{
	return j->key_len == len && memcmp(j->key, key, len) == 0;
}

static void
unlink_job(struct job *j)
{
	struct nsspool	*p = j->pool;
	struct job	**pp;

	if (!j->linked)
		return;
	pp = &p->table[bucket(p, j->mod, j->op, j->family, j->key, j->key_len)];
	while (*pp != j)
		pp = &(*pp)->hnext;
	*pp = j->hnext;
	j->linked = false;
	p->pending--;
}

/* Answers every waiter with r and forgets them; the job leaves the table. */
static void
deliver(struct job *j, const struct nsspool_result *r)
{
	struct waiter *w, *next;

	unlink_job(j);
	if (j->timer)
		event_del(j->timer);
	w = j->waiters;
	j->waiters = NULL;
	for (; w; w = next) {
		next = w->next;
		w->fn(w->arg, r);
		free(w);
	}
}

static void
job_free(struct job *j)
{
	if (j->timer)
		event_free(j->timer);
	free(j->body);
	free(j);
}

static void
count(struct module *m, const struct job *j)
{
	m->calls++;
	m->usec += (uint64_t)j->usec;
	switch (j->res.status) {
	case NSW_SUCCESS:	m->found++; break;
	case NSW_NOTFOUND:	m->notfound++; break;
	case NSW_UNAVAIL:	m->unavail++; break;
	default:		m->tryagain++; break;
	}
}

static void
done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nsspool	*p = arg;
	struct job	*j, *next;
	uint64_t	 n;

	if (read(p->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: another wakeup took them */
	}
	pthread_mutex_lock(&p->lock);
	j = p->done;
	p->done = NULL;
	pthread_mutex_unlock(&p->lock);
	for (; j; j = next) {
		next = j->qnext;
		count(&p->mods[j->mod], j);
		if (j->abandoned) {
			p->stuck--;
			log_info("nss: %s came back after %lld ms, past its timeout",
			    p->mods[j->mod].name, (long long)(j->usec / 1000));
		} else
			deliver(j, &j->res);
		job_free(j);
	}
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job		*j = arg;
	struct nsspool		*p = j->pool;
	struct nsspool_result	 r;
	struct job		**pp;
	int			 state;

	pthread_mutex_lock(&p->lock);
	state = j->state;
	if (state == J_QUEUED) {
		for (pp = &p->qhead; *pp != j; pp = &(*pp)->qnext)
			;
		if ((*pp = j->qnext) == NULL)
			p->qtail = pp;
		p->nqueued--;
	}
	pthread_mutex_unlock(&p->lock);
	if (state == J_DONE)
		return;		/* done_cb is on its way */
	memset(&r, 0, sizeof(r));
	r.status = NSW_TRYAGAIN;
	r.herrno = TRY_AGAIN;
	r.err = ETIMEDOUT;
	r.timed_out = true;
	r.ttl = -1;
	p->mods[j->mod].timeouts++;
	log_warning("nss: %s did not answer within %u ms%s", p->mods[j->mod].name,
	    p->timeout_ms, state == J_QUEUED ? " (every worker busy)" : "");
	if (state == J_RUNNING) {
		j->abandoned = true;
		p->stuck++;
		deliver(j, &r);
		return;
	}
	deliver(j, &r);
	job_free(j);
}

int
nsspool_call(struct nsspool *p, int mod, int op, uint8_t family, const void *key,
    size_t key_len, nsspool_fn *fn, void *arg)
{
	struct waiter	*w;
	struct job	*j;
	struct timeval	 tv;
	unsigned	 b;
	pthread_t	 t;

	if (mod < 0 || (unsigned)mod >= p->nmods || key_len > PROTO_NAME_MAX + 1)
		return -EINVAL;
	if ((w = malloc(sizeof(*w))) == NULL)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	b = bucket(p, mod, op, family, key, key_len);
	for (j = p->table[b]; j; j = j->hnext)
		if (j->mod == mod && j->op == op && j->family == family &&
		    same_key(j, key, key_len))
			break;
	if (j) {
		w->next = j->waiters;
		j->waiters = w;
		return 0;
	}
	if (p->pending >= NSSPOOL_PENDING_MAX || (j = calloc(1, sizeof(*j))) == NULL) {
		free(w);
		return p->pending >= NSSPOOL_PENDING_MAX ? -EBUSY : -ENOMEM;
	}
	j->pool = p;
	j->mod = mod;
	j->op = op;
	j->family = family;
	j->key_len = key_len;
	memcpy(j->key, key, key_len);
	if ((j->timer = evtimer_new(p->base, timeout_cb, j)) == NULL) {
		free(j);
		free(w);
		return -ENOMEM;
	}
	w->next = NULL;
	j->waiters = w;
	j->hnext = p->table[b];
	p->table[b] = j;
	j->linked = true;
	p->pending++;
	tv.tv_sec = p->timeout_ms / 1000;
	tv.tv_usec = (suseconds_t)(p->timeout_ms % 1000) * 1000;
	evtimer_add(j->timer, &tv);
	pthread_mutex_lock(&p->lock);
	j->state = J_QUEUED;
	*p->qtail = j;
	p->qtail = &j->qnext;
	p->nqueued++;
	/*
	 * A thread for each call queued beyond the idle ones: an idle thread
	 * signalled but not yet awake still counts as idle, and takes one.
	 */
	if (p->nqueued > p->idle && p->nthreads < p->workers) {
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		/* Modules get glibc's usual stack: some keep big buffers on it. */
		pthread_attr_setstacksize(&attr, 8u << 20);
		if (pthread_create(&t, &attr, worker, p) == 0)
			p->nthreads++;
		else if (p->nthreads == 0)
			log_warning("nss: cannot start a worker thread: %s",
			    strerror(errno));
		pthread_attr_destroy(&attr);
	}
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int
nsspool_module(struct nsspool *p, const char *name)
{
	struct module	*m;
	unsigned	 i;

	if (name[0] == '\0' || strlen(name) >= NSW_NAME_MAX ||
	    strcmp(name, "namecache") == 0 || strchr(name, '/'))
		return -EINVAL;
	for (i = 0; i < p->nmods; i++)
		if (strcmp(p->mods[i].name, name) == 0)
			return (int)i;
	if (p->nmods == NSSPOOL_MODULES_MAX)
		return -E2BIG;
	m = &p->mods[p->nmods];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	pthread_mutex_init(&m->lock, NULL);
	return (int)p->nmods++;
}

bool
nsspool_missing(struct nsspool *p, int id)
{
	struct module	*m;
	bool		 missing;

	if (id < 0 || (unsigned)id >= p->nmods)
		return false;
	m = &p->mods[id];
	pthread_mutex_lock(&m->lock);
	missing = m->state == -1;
	pthread_mutex_unlock(&m->lock);
	return missing;
}

const char *
nsspool_module_name(const struct nsspool *p, int id)
{
	if (id < 0 || (unsigned)id >= p->nmods)
		return "?";
	return p->mods[id].name;
}

struct nsspool *
nsspool_new(struct event_base *base, unsigned workers, unsigned timeout_ms)
{
	struct nsspool *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->base = base;
	p->workers = workers ? workers : 1;
	p->timeout_ms = timeout_ms ? timeout_ms : 1;
	p->qtail = &p->qhead;
	if (getrandom(p->hkey, sizeof(p->hkey), GRND_NONBLOCK) != sizeof(p->hkey)) {
		/* Early boot: a weaker key beats no pool. */
		p->hkey[0] = (uint64_t)(uintptr_t)p ^ (uint64_t)now_usec();
		p->hkey[1] = (uint64_t)(uintptr_t)&p ^ 0x9e3779b97f4a7c15ULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->gone, NULL);
	if ((p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		goto fail;
	if ((p->done_ev = event_new(base, p->efd, EV_READ | EV_PERSIST, done_cb, p)) ==
	    NULL || event_add(p->done_ev, NULL) < 0)
		goto fail;
	return p;
fail:
	if (p->done_ev)
		event_free(p->done_ev);
	if (p->efd >= 0)
		close(p->efd);
	free(p);
	return NULL;
}

void
nsspool_configure(struct nsspool *p, unsigned workers, unsigned timeout_ms)
{
	pthread_mutex_lock(&p->lock);
	/* Fewer workers: the extra threads stay until the pool goes. */
	p->workers = workers ? workers : 1;
	pthread_mutex_unlock(&p->lock);
	p->timeout_ms = timeout_ms ? timeout_ms : 1;
}

void
nsspool_free(struct nsspool *p)
{
	struct nsspool_result	 r;
	struct job		*j, *next, *queued;
	struct timespec		 until;
	unsigned		 i, left;

	if (p == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.status = -ECANCELED;
	r.ttl = -1;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	queued = p->qhead;
	p->qhead = NULL;
	p->qtail = &p->qhead;
	p->nqueued = 0;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < BUCKETS; i++)
		for (j = p->table[i]; j; j = next) {
			next = j->hnext;
			deliver(j, &r);
		}
	for (j = queued; j; j = next) {
		next = j->qnext;
		job_free(j);
	}
	/* Threads in a module call get two seconds to come back. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&p->lock);
	while (p->nthreads > 0 &&
	    pthread_cond_timedwait(&p->gone, &p->lock, &until) == 0)
		;
	left = p->nthreads;
	j = p->done;
	p->done = NULL;
	pthread_mutex_unlock(&p->lock);
	if (left > 0) {
		log_warning("nss: %u worker thread%s still in a module; leaving %s",
		    left, left == 1 ? "" : "s", left == 1 ? "it" : "them");
		return;
	}
	for (; j; j = next) {
		next = j->qnext;
		job_free(j);
	}
	event_free(p->done_ev);
	close(p->efd);
	for (i = 0; i < p->nmods; i++) {
		if (p->mods[i].handle)
			dlclose(p->mods[i].handle);
		pthread_mutex_destroy(&p->mods[i].lock);
	}
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->gone);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

unsigned
nsspool_stuck(const struct nsspool *p)
{
	return p->stuck;
}

unsigned
nsspool_busy(const struct nsspool *p)
{
	unsigned n;

	pthread_mutex_lock((pthread_mutex_t *)&p->lock);
	n = p->busy;
	pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
	return n;
}

void
nsspool_write_stats(const struct nsspool *p, struct proto_kv_wr *kw)
{
	char		key[PROTO_KEY_MAX];
	unsigned	i, nthreads, busy, queued;

	pthread_mutex_lock((pthread_mutex_t *)&p->lock);
	nthreads = p->nthreads;
	busy = p->busy;
	queued = p->nqueued;
	pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
	proto_kv_u64(kw, "nss_workers", nthreads);
	proto_kv_u64(kw, "nss_workers_busy", busy);
	proto_kv_u64(kw, "nss_workers_stuck", p->stuck);
	proto_kv_u64(kw, "nss_calls_queued", queued);
	proto_kv_u64(kw, "nss_calls_pending", p->pending);
	for (i = 0; i < p->nmods; i++) {
		const struct module *m = &p->mods[i];

#define KV(what, v) do {						\
		snprintf(key, sizeof(key), "nss_%.40s_" what, m->name);	\
		proto_kv_u64(kw, key, (v));				\
	} while (0)
		KV("calls", m->calls);
		KV("usec", m->usec);
		KV("timeouts", m->timeouts);
		KV("found", m->found);
		KV("notfound", m->notfound);
		KV("unavail", m->unavail);
		KV("tryagain", m->tryagain);
#undef KV
	}
}

void
nsspool_reset_stats(struct nsspool *p)
{
	unsigned i;

	for (i = 0; i < p->nmods; i++) {
		struct module *m = &p->mods[i];

		m->calls = m->usec = m->timeouts = m->found = 0;
		m->notfound = m->unavail = m->tryagain = 0;
	}
}
