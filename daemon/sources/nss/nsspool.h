/* SPDX-License-Identifier: MIT */
/* daemon/sources/nss/nsspool.h - the host's other NSS modules, called on a bounded pool of threads. */
#ifndef NAMECACHE_NSSPOOL_H
#define NAMECACHE_NSSPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histo.h"

struct event_base;
struct nsspool;
struct registry_wr;

#define NSSPOOL_MODULES_MAX	64	/* distinct module names ever named */
#define NSSPOOL_PENDING_MAX	4096	/* calls and jobs queued or running */
#define NSSPOOL_BUFFER_MAX	(1u << 20)	/* ERANGE retries stop here */

enum nsspool_op {
	NSSPOOL_NAME	= 1,	/* key: a name; family 0 (both), 4 or 6 */
	NSSPOOL_ADDR	= 2,	/* key: 4 or 16 bytes; family 4 or 6 */
	/* nscd's other databases (daemon/sources/nss/nssent.h says the bodies): */
	NSSPOOL_PWNAM	= 3,	/* key: a name and its NUL */
	NSSPOOL_PWUID	= 4,	/* key: u32 */
	NSSPOOL_GRNAM	= 5,
	NSSPOOL_GRGID	= 6,	/* key: u32 */
	NSSPOOL_INITGR	= 7,	/* key: a user's name and its NUL */
	NSSPOOL_SERVNAME = 8,	/* key: name NUL proto NUL ("" for any) */
	NSSPOOL_SERVPORT = 9,	/* key: s32 port (network order), proto NUL */
	NSSPOOL_NETGR	= 10,	/* key: a netgroup's name and its NUL */
};
#define NSSPOOL_KEY_MAX		1032	/* bytes of a call's key */

/* What one call found, borrowed by the callback for its duration. */
struct nsspool_result {
	int		 status;	/* enum nsw_status, or -ECANCELED */
	int		 herrno;	/* h_errno as the module left it */
	int		 err;		/* errno as the module left it */
	bool		 timed_out;	/* TRYAGAIN because it took too long */
	bool		 missing;	/* the module has no function for it */
	int32_t		 ttl;		/* seconds, or -1: the module gave none */
	const uint8_t	*body;		/* SUCCESS: a proto answer body, source
					   PROTO_SRC_NSS, the module's name after it */
	size_t		 len;
};

typedef void nsspool_fn(void *arg, const struct nsspool_result *);

/*
 * At most `workers' threads call modules; a call still running after
 * timeout_ms is answered TRYAGAIN (its thread may stay stuck in the
 * module, and counts as such until it returns).  Caller frees with
 * nsspool_free(); NULL is out of memory.
 */
struct nsspool *nsspool_new(struct event_base *, unsigned workers, unsigned timeout_ms);
/* Callbacks of calls in flight get -ECANCELED; threads stuck in a module
 * are left behind (and so is the pool, for them). */
void	nsspool_free(struct nsspool *);
void	nsspool_configure(struct nsspool *, unsigned workers, unsigned timeout_ms);

/*
 * The id of module `name' (libnss_NAME.so.2), loaded on first use on a
 * worker thread; a module that does not load answers UNAVAIL, as in glibc.
 * Returns the id, or -E2BIG (too many names), -EINVAL (an empty name, or
 * namecache itself, which is never loaded into the daemon).
 */
int	nsspool_module(struct nsspool *, const char *name);
/* Borrowed, valid until nsspool_free(). */
const char *nsspool_module_name(const struct nsspool *, int id);
/*
 * Whether module id was tried and does not load (dlopen or its symbols):
 * it answers UNAVAIL from then on, so a walk need not send it a call.
 */
bool	nsspool_missing(struct nsspool *, int id);

/*
 * Asks module id, as glibc's getaddrinfo, gethostbyname2_r and
 * gethostbyaddr_r would: NSSPOOL_NAME with family 0 through
 * gethostbyname4_r when it has one, else gethostbyname3_r (or _2_r) for
 * AF_INET6 then AF_INET, the statuses combined as getaddrinfo does;
 * NSSPOOL_ADDR through gethostbyaddr2_r or gethostbyaddr_r.  Calls for the
 * same (module, op, family, key) share one call in flight: the same key
 * is the same bytes, case included, as a module may tell case apart.
 * fn is called on the loop, never from inside nsspool_call.  Returns 0,
 * or -EBUSY when NSSPOOL_PENDING_MAX calls are in flight, -ENOMEM.
 */
int	nsspool_call(struct nsspool *, int id, int op, uint8_t family,
	    const void *key, size_t key_len, nsspool_fn *fn, void *arg);

/*
 * A job of many module calls, made one after another on one worker with
 * no trip to the loop between them (a walk of one of nscd's lines):
 * fns->run(arg, wk) on a worker, calling modules with nsspool_ask(wk,
 * ...), then fns->done(arg, status) on the loop, once: 0 when run has
 * returned; -ETIMEDOUT when a call ran past the timeout (run is then
 * blocked in that call, and the thread counts as stuck until the module
 * returns: what run wrote before the call may be read); -ECANCELED when
 * the pool goes.  After a done() below 0, run may be running still (or
 * never start): arg stays the pool's until fns->release(arg), on the
 * loop, once run is over or will never be.  Each call has the timeout
 * from its start, the first from the queueing, as a lone call's.  first:
 * the module run calls first, which a timeout in the queue is counted
 * to.  Returns 0, or -EBUSY when NSSPOOL_PENDING_MAX calls and jobs are
 * in flight, -ENOMEM, -EINVAL; fns are then not called.
 */
struct nsspool_worker;
struct nsspool_job_fns {
	void	(*run)(void *arg, struct nsspool_worker *wk);
	void	(*done)(void *arg, int status);
	void	(*release)(void *arg);
};
int	nsspool_job(struct nsspool *, int first, const struct nsspool_job_fns *fns,
	    void *arg);
/*
 * Inside a job's run: calls module id as nsspool_call would (alone: no
 * sharing with other calls) and waits for it.  *ret and its body are
 * valid until the next nsspool_ask or the end of run.  Returns 0, or
 * -ECANCELED when the job timed out or the pool goes: run should return.
 */
int	nsspool_ask(struct nsspool_worker *wk, int id, int op, uint8_t family,
	    const void *key, size_t key_len, struct nsspool_result *ret);

/* Per module: calls, time spent, timeouts; the pool: workers, busy, stuck. */
void	nsspool_report(void *nsspool, struct registry_wr *);	/* a registry report */

/* One module's counters, for the metrics: borrowed during the call. */
struct nsspool_module_stats {
	const char		*name;
	uint64_t		 calls, timeouts, found, notfound, unavail, tryagain;
	const struct histo	*time;	/* each call's length, µs */
};
void	nsspool_foreach_module(const struct nsspool *,
	    void (*fn)(void *arg, const struct nsspool_module_stats *), void *arg);
void	nsspool_reset_stats(struct nsspool *);
unsigned nsspool_stuck(const struct nsspool *);
unsigned nsspool_busy(const struct nsspool *);

#endif
