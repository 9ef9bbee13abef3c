/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nsspool.c - the host's other NSS modules, called on a bounded pool of threads. */

/*
 * A module call can block for as long as the module likes (mdns waits on
 * avahi, sss on sssd), so none runs on the event loop.  The loop owns the
 * table of calls in flight (one per module, op, family and key, however
 * many lookups wait on it), their waiters and their timers; the threads
 * own nothing but the call they run.  They meet under one mutex, at two
 * lists: the queue of calls to run, and the list of calls done, which an
 * eventfd announces to the loop.
 *
 * A job of many calls (nsspool_job: a walk of one of nscd's lines) is
 * one entry of the queue and one wakeup of the loop, however many
 * modules it asks: its thread makes the calls one after another
 * (nsspool_ask), noting under the mutex which module it is in and since
 * when, so that each call still has its own timeout, and what each cost
 * (counted on the loop when the job comes back).
 *
 * A call that outlives its timeout is answered TRYAGAIN at once (a job's
 * owner is told -ETIMEDOUT) and left to its thread, which may stay stuck
 * in the module; the call or job is freed when the thread comes back.  Threads are made on demand, up to
 * `workers', stuck ones included: a module that hangs every call ends up
 * holding every thread, new calls queue, and each times out in its turn,
 * but the pool never grows past its bound.  What a thread does with its
 * call, in the module, is nssmods.c's.
 */
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "hash.h"
#include "log.h"
#include "nssmods.h"
#include "nsspool.h"
#include "nsswitch.h"
#include "proto.h"
#include "registry.h"

#define BUCKETS		1024

/* A module's statistics: the loop's alone. */
struct modstats {
	uint64_t	 calls;
	uint64_t	 usec;
	uint64_t	 timeouts;
	uint64_t	 found;
	uint64_t	 notfound;
	uint64_t	 unavail;
	uint64_t	 tryagain;
	struct histo	 time;		/* each call's length */
};

struct waiter {
	struct waiter	*next;
	nsspool_fn	*fn;
	void		*arg;
};

enum { J_QUEUED, J_RUNNING, J_DONE };

/* One call of a job's, for the module's statistics. */
struct tally {
	int		 mod;
	int		 status;
	int64_t		 usec;
};

struct job {
	struct job	*hnext;		/* the loop's table, or its list of jobs */
	struct job	*qnext;		/* queue or done list, under the lock */
	struct nsspool	*pool;
	struct nssmods_call call;	/* its result set by the thread; a job's
					   call now (mod under the lock) */
	struct waiter	*waiters;
	struct event	*timer;
	int		 state;		/* J_*, under the lock */
	bool		 linked;	/* in the loop's table or list */
	bool		 abandoned;	/* timed out while running: under the lock */
	int64_t		 usec;		/* the (last) call's length, the thread's */
	/* A job of many calls (nsspool_job); fns NULL for one call. */
	const struct nsspool_job_fns *fns;
	void		*arg;
	int64_t		 since;		/* µs: its call now was asked; under the lock */
	bool		 in_call;	/* in a module, not between: under the lock */
	unsigned	 asked;		/* calls begun: the thread's */
	struct tally	*tally;		/* the thread's until it is done */
	size_t		 ntally, captally;
};

/* A job's thread, for nsspool_ask: its job and its buffers. */
struct nsspool_worker {
	struct nsspool		*pool;
	struct job		*job;
	struct nssmods_buf	*b, *b2;
};

struct nsspool {
	struct event_base *base;
	struct nssmods	*mods;		/* the threads' too: see nssmods.c */
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
	struct job	*jobs;		/* jobs of many calls, in flight */
	uint64_t	 hkey[2];	/* SipHash key of the table */
	struct modstats	 stats[NSSPOOL_MODULES_MAX];
};

static int64_t
now_usec(void)
{
	return (int64_t)mono_us();
}

/* --- on a worker thread ------------------------------------------------- */

static void *
worker(void *arg)
{
	struct nsspool	*p = arg;
	struct nssmods_buf b = { NULL, 0 }, b2 = { NULL, 0 };
	struct job	*j;
	int64_t		 t0;
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
		if (j->fns) {
			struct nsspool_worker wk = { p, j, &b, &b2 };

			j->fns->run(j->arg, &wk);
		} else {
			t0 = now_usec();
			nssmods_run(p->mods, &j->call, &b, &b2);
			j->usec = now_usec() - t0;
		}
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

/* Whether the job must stop: timed out, or the pool goes.  Under the lock. */
static bool
job_stopped(const struct job *j)
{
	return j->abandoned || j->pool->stopping;
}

/* A call's cost, kept for the loop; lost (the statistics only) with no memory. */
static void
tally_add(struct job *j, int mod, int status, int64_t usec)
{
	if (j->ntally == j->captally) {
		size_t	 cap = j->captally ? j->captally * 2 : 8;
		void	*p = realloc(j->tally, cap * sizeof(*j->tally));

		if (p == NULL)
			return;
		j->tally = p;
		j->captally = cap;
	}
	j->tally[j->ntally++] = (struct tally){ mod, status, usec };
}

int
nsspool_ask(struct nsspool_worker *wk, int mod, int op, uint8_t family,
    const void *key, size_t key_len, struct nsspool_result *ret)
{
	struct nsspool	*p = wk->pool;
	struct job	*j = wk->job;
	int64_t		 t0 = now_usec();
	bool		 stop;

	/* The ids were the loop's (nssmods_add), before the job was queued. */
	assert(mod >= 0 && mod < NSSPOOL_MODULES_MAX && key_len <= NSSPOOL_KEY_MAX);
	free(j->call.body);
	j->call.body = NULL;
	memset(&j->call.res, 0, sizeof(j->call.res));
	pthread_mutex_lock(&p->lock);
	if (!(stop = job_stopped(j))) {
		/* The first call's time runs from the queueing, as a lone call's. */
		if (j->asked++ > 0)
			j->since = t0;
		j->call.mod = mod;
		j->in_call = true;
	}
	pthread_mutex_unlock(&p->lock);
	if (stop)
		return -ECANCELED;
	j->call.op = op;
	j->call.family = family;
	j->call.key_len = key_len;
	memcpy(j->call.key, key, key_len);
	nssmods_run(p->mods, &j->call, wk->b, wk->b2);
	j->usec = now_usec() - t0;
	tally_add(j, mod, j->call.res.status, j->usec);
	pthread_mutex_lock(&p->lock);
	j->in_call = false;
	stop = job_stopped(j);
	pthread_mutex_unlock(&p->lock);
	if (stop)
		return -ECANCELED;
	*ret = j->call.res;
	return 0;
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
	return j->call.key_len == len && memcmp(j->call.key, key, len) == 0;
}

static void
unlink_job(struct job *j)
{
	struct nsspool	*p = j->pool;
	struct job	**pp;

	if (!j->linked)
		return;
	if (j->fns)
		pp = &p->jobs;
	else
		pp = &p->table[bucket(p, j->call.mod, j->call.op, j->call.family,
		    j->call.key, j->call.key_len)];
	while (*pp != j)
		pp = &(*pp)->hnext;
	*pp = j->hnext;
	j->linked = false;
	p->pending--;
}

/*
 * Answers every waiter with r and forgets them, or a job's owner with
 * status; the job leaves the table or list.
 */
static void
deliver(struct job *j, const struct nsspool_result *r, int status)
{
	struct waiter *w, *next;

	unlink_job(j);
	if (j->timer)
		event_del(j->timer);
	if (j->fns) {
		j->fns->done(j->arg, status);
		return;
	}
	w = j->waiters;
	j->waiters = NULL;
	for (; w; w = next) {
		next = w->next;
		w->fn(w->arg, r);
		free(w);
	}
}

/* A job's arg goes back to its owner first. */
static void
job_free(struct job *j)
{
	if (j->fns)
		j->fns->release(j->arg);
	if (j->timer)
		event_free(j->timer);
	free(j->call.body);
	free(j->tally);
	free(j);
}

static void
count(struct modstats *m, int64_t usec, int status)
{
	m->calls++;
	m->usec += (uint64_t)usec;
	histo_observe(&m->time, usec > 0 ? (uint64_t)usec : 0);
	switch (status) {
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
		size_t i;

		next = j->qnext;
		if (j->fns)
			for (i = 0; i < j->ntally; i++)
				count(&p->stats[j->tally[i].mod], j->tally[i].usec,
				    j->tally[i].status);
		else
			count(&p->stats[j->call.mod], j->usec, j->call.res.status);
		if (j->abandoned) {
			p->stuck--;
			log_info("nss: %s came back after %lld ms, past its timeout",
			    nssmods_name(p->mods, j->call.mod),
			    (long long)(j->usec / 1000));
		} else
			deliver(j, &j->call.res, 0);
		job_free(j);
	}
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job		*j = arg;
	struct nsspool		*p = j->pool;
	struct nsspool_result	 r;
	struct timeval		 tv;
	struct job		**pp;
	int64_t			 left = 0;
	int			 state, mod;

	pthread_mutex_lock(&p->lock);
	state = j->state;
	/*
	 * A job's thread between two calls, or in one that began later
	 * than the timer's: each call has its own timeout.
	 */
	if (state == J_RUNNING && j->fns)
		left = j->in_call ? j->since + (int64_t)p->timeout_ms * 1000 -
		    now_usec() : (int64_t)p->timeout_ms * 1000;
	mod = j->call.mod;
	if (left > 0)
		;	/* its call has time left: the timer again, below */
	else if (state == J_QUEUED) {
		for (pp = &p->qhead; *pp != j; pp = &(*pp)->qnext)
			;
		if ((*pp = j->qnext) == NULL)
			p->qtail = pp;
		p->nqueued--;
	} else if (state == J_RUNNING)
		j->abandoned = true;
	pthread_mutex_unlock(&p->lock);
	if (left > 0) {
		tv.tv_sec = left / 1000000;
		tv.tv_usec = (suseconds_t)(left % 1000000);
		evtimer_add(j->timer, &tv);
		return;
	}
	if (state == J_DONE)
		return;		/* done_cb is on its way */
	memset(&r, 0, sizeof(r));
	r.status = NSW_TRYAGAIN;
	r.herrno = TRY_AGAIN;
	r.err = ETIMEDOUT;
	r.timed_out = true;
	r.ttl = -1;
	p->stats[mod].timeouts++;
	log_warning("nss: %s did not answer within %u ms%s",
	    nssmods_name(p->mods, mod), p->timeout_ms,
	    state == J_QUEUED ? " (every worker busy)" : "");
	if (state == J_RUNNING)
		p->stuck++;
	deliver(j, &r, -ETIMEDOUT);
	if (state == J_QUEUED)
		job_free(j);
}

/* Arms j's timeout and queues it, with a thread for it if need be. */
static void
enqueue(struct nsspool *p, struct job *j)
{
	struct timeval	tv;
	pthread_t	t;

	tv.tv_sec = p->timeout_ms / 1000;
	tv.tv_usec = (suseconds_t)(p->timeout_ms % 1000) * 1000;
	evtimer_add(j->timer, &tv);
	pthread_mutex_lock(&p->lock);
	j->since = now_usec();
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
}

int
nsspool_job(struct nsspool *p, int first, const struct nsspool_job_fns *fns,
    void *arg)
{
	struct job *j;

	if (first < 0 || (unsigned)first >= nssmods_count(p->mods))
		return -EINVAL;
	if (p->pending >= NSSPOOL_PENDING_MAX)
		return -EBUSY;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return -ENOMEM;
	j->pool = p;
	j->call.mod = first;
	if ((j->timer = evtimer_new(p->base, timeout_cb, j)) == NULL) {
		free(j);
		return -ENOMEM;
	}
	j->fns = fns;
	j->arg = arg;
	j->hnext = p->jobs;
	p->jobs = j;
	j->linked = true;
	p->pending++;
	enqueue(p, j);
	return 0;
}

int
nsspool_call(struct nsspool *p, int mod, int op, uint8_t family, const void *key,
    size_t key_len, nsspool_fn *fn, void *arg)
{
	struct waiter	*w;
	struct job	*j;
	unsigned	 b;

	if (mod < 0 || (unsigned)mod >= nssmods_count(p->mods) ||
	    key_len > NSSPOOL_KEY_MAX)
		return -EINVAL;
	if ((w = malloc(sizeof(*w))) == NULL)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	b = bucket(p, mod, op, family, key, key_len);
	for (j = p->table[b]; j; j = j->hnext)
		if (j->call.mod == mod && j->call.op == op &&
		    j->call.family == family && same_key(j, key, key_len))
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
	j->call.mod = mod;
	j->call.op = op;
	j->call.family = family;
	j->call.key_len = key_len;
	memcpy(j->call.key, key, key_len);
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
	enqueue(p, j);
	return 0;
}

int
nsspool_module(struct nsspool *p, const char *name)
{
	return nssmods_add(p->mods, name);
}

bool
nsspool_missing(struct nsspool *p, int id)
{
	return nssmods_missing(p->mods, id);
}

const char *
nsspool_module_name(const struct nsspool *p, int id)
{
	return nssmods_name(p->mods, id);
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
	if ((p->mods = nssmods_new()) == NULL)
		goto fail;
	return p;
fail:
	if (p->done_ev)
		event_free(p->done_ev);
	if (p->efd >= 0)
		close(p->efd);
	nssmods_free(p->mods);
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
			deliver(j, &r, -ECANCELED);
		}
	/* A job's thread stops at its next call, or as its call returns. */
	while (p->jobs)
		deliver(p->jobs, &r, -ECANCELED);
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
	nssmods_free(p->mods);
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
nsspool_report(void *arg, struct registry_wr *wr)
{
	const struct nsspool	*p = arg;
	char			 key[PROTO_KEY_MAX];
	unsigned		 i, nthreads, busy, queued;

	pthread_mutex_lock((pthread_mutex_t *)&p->lock);
	nthreads = p->nthreads;
	busy = p->busy;
	queued = p->nqueued;
	pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
	registry_gauge(wr, "nss_workers", nthreads, NULL);
	registry_gauge(wr, "nss_workers_busy", busy, NULL);
	registry_gauge(wr, "nss_workers_stuck", p->stuck, NULL);
	registry_gauge(wr, "nss_calls_queued", queued, NULL);
	registry_gauge(wr, "nss_calls_pending", p->pending, NULL);
	/* The metrics have these as families labelled by module. */
	for (i = 0; i < nssmods_count(p->mods); i++) {
		const struct modstats	*m = &p->stats[i];
		const char		*name = nssmods_name(p->mods, (int)i);

#define KV(what, v) do {						\
		snprintf(key, sizeof(key), "nss_%.40s_" what, name);	\
		registry_put(wr, key, (v), REGISTRY_LABELLED, NULL);	\
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

	for (i = 0; i < nssmods_count(p->mods); i++) {
		struct modstats *m = &p->stats[i];

		m->calls = m->usec = m->timeouts = m->found = 0;
		m->notfound = m->unavail = m->tryagain = 0;
		memset(&m->time, 0, sizeof(m->time));
	}
}

void
nsspool_foreach_module(const struct nsspool *p,
    void (*fn)(void *arg, const struct nsspool_module_stats *), void *arg)
{
	struct nsspool_module_stats	ms;
	unsigned			i;

	for (i = 0; i < nssmods_count(p->mods); i++) {
		const struct modstats *m = &p->stats[i];

		ms.name = nssmods_name(p->mods, (int)i);
		ms.calls = m->calls;
		ms.timeouts = m->timeouts;
		ms.found = m->found;
		ms.notfound = m->notfound;
		ms.unavail = m->unavail;
		ms.tryagain = m->tryagain;
		ms.time = &m->time;
		fn(arg, &ms);
	}
}
