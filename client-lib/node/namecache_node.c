/* SPDX-License-Identifier: MIT */
/* client-lib/node/namecache_node.c - the Node-API addon under index.js: libnamecache on libuv's loop. */

/*
 * Two calls, both on the main thread, neither on libuv's thread pool:
 *
 *   cached(host, family, flags)	the shared cache alone, now: undefined
 *					for a miss, else an outcome (below);
 *   submit(host, family, flags, cb)	a query over the context's connection:
 *					true, and cb(outcome) later; false when
 *					it cannot be sent (no daemon): fall back.
 *
 * An outcome is an array of {address, family} in getaddrinfo's order
 * (NAMECACHE_SORT), a negative number for a negative answer (-1: no such
 * name, EAI_NONAME; -2: no address of the family, EAI_NODATA; -3:
 * TRYAGAIN, EAI_AGAIN; not found after a temporary failure is -1 or -3,
 * as getaddrinfo would say), or null for "ask dns.lookup instead" (the
 * daemon refused the name, failed, or went away).  flags: 1 is
 * AI_ADDRCONFIG.
 *
 * The context's descriptor is watched with a uv_poll, its timeout with a
 * uv_timer; both are referenced only while queries are pending, so an idle
 * context never keeps a process alive.  The descriptor changes only inside
 * a call on the context, and a reconnect may reuse its number: after every
 * call the poll is made anew when the (fd, inode) pair changed.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <arpa/inet.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "namecache.h"

#define HOST_MAX	1025

struct addon {
	napi_env		 env;
	uv_loop_t		*loop;
	struct namecache	*ctx;
	uv_poll_t		*poll;		/* NULL when no descriptor is watched */
	int			 poll_fd;
	ino_t			 poll_ino;
	int			 poll_events;
	uv_timer_t		 timer;
	napi_async_context	 async;
	bool			 closing;
};

struct query {
	struct addon	*a;
	napi_ref	 cb;
	int		 family;	/* as asked: AF_* */
	unsigned	 flags;		/* NAMECACHE_* */
};

static void sync_watch(struct addon *a);

/* --- outcomes as JavaScript values ---------------------------------------- */

static napi_value
js_result(napi_env env, const struct namecache_result *res)
{
	napi_value arr, obj, v;

	napi_create_array_with_length(env, res->naddresses, &arr);
	for (size_t i = 0; i < res->naddresses; i++) {
		const struct namecache_address	*ad = &res->addresses[i];
		char				 text[INET6_ADDRSTRLEN];

		namecache_address_str(ad, text, sizeof(text));
		napi_create_object(env, &obj);
		napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &v);
		napi_set_named_property(env, obj, "address", v);
		napi_create_int32(env, ad->family == AF_INET ? 4 : 6, &v);
		napi_set_named_property(env, obj, "family", v);
		napi_set_element(env, arr, (uint32_t)i, obj);
	}
	return arr;
}

/*
 * What getaddrinfo says for glibc's NOTFOUND with h_errno TRY_AGAIN: it
 * asks AF_INET (also AF_UNSPEC that AI_ADDRCONFIG narrows to it; dns.lookup
 * never sets AI_CANONNAME) through gethostbyname2_r, which reads NOTFOUND
 * as "no such name"; any other family through paths that read TRY_AGAIN.
 */
static int
notfound_tryagain(int family, unsigned flags)
{
	int v4, v6;

	if (family == AF_UNSPEC && (flags & NAMECACHE_ADDRCONFIG) &&
	    namecache_addrconfig(&v4, &v6) == 0 && v4 && !v6)
		family = AF_INET;
	return family == AF_INET ? -1 : -3;
}

static napi_value
js_outcome(napi_env env, int error, const struct namecache_result *res, int family,
    unsigned flags)
{
	napi_value v;

	switch (error) {
	case NAMECACHE_OK:
		return js_result(env, res);
	case NAMECACHE_ERR_NOTFOUND:
		napi_create_int32(env, -1, &v);
		return v;
	case NAMECACHE_ERR_NODATA:
		napi_create_int32(env, -2, &v);
		return v;
	case NAMECACHE_ERR_TRYAGAIN:
		napi_create_int32(env, -3, &v);
		return v;
	case NAMECACHE_ERR_NOTFOUND_TRYAGAIN:
		napi_create_int32(env, notfound_tryagain(family, flags), &v);
		return v;
	}
	napi_get_null(env, &v);
	return v;
}

/* --- arguments ------------------------------------------------------------ */

struct args {
	char		host[HOST_MAX];
	int		family;		/* AF_* */
	unsigned	flags;		/* NAMECACHE_* */
};

static bool
get_args(napi_env env, napi_value *argv, struct args *out)
{
	size_t	len;
	int32_t	fam, fl;

	if (napi_get_value_string_utf8(env, argv[0], out->host, sizeof(out->host), &len) !=
	    napi_ok || len >= sizeof(out->host) - 1 ||
	    napi_get_value_int32(env, argv[1], &fam) != napi_ok ||
	    napi_get_value_int32(env, argv[2], &fl) != napi_ok) {
		napi_throw_type_error(env, NULL, "namecache: bad arguments");
		return false;
	}
	out->family = fam == 4 ? AF_INET : fam == 6 ? AF_INET6 : AF_UNSPEC;
	out->flags = NAMECACHE_SORT | ((fl & 1) ? NAMECACHE_ADDRCONFIG : 0);
	return true;
}

static struct addon *
addon_of(napi_env env)
{
	void *data = NULL;

	napi_get_instance_data(env, &data);
	return data;
}

/* cached(host, family, flags) */
static napi_value
js_cached(napi_env env, napi_callback_info info)
{
	struct namecache_result	*res = NULL;
	napi_value		 argv[3], v;
	size_t			 argc = 3;
	struct args		 a;
	int			 e;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 3 || !get_args(env, argv, &a))
		return NULL;
	e = namecache_lookup_name(a.host, a.family, a.flags | NAMECACHE_SHARED_ONLY, 0, &res);
	if (e == NAMECACHE_ERR_MISS) {
		napi_get_undefined(env, &v);
		return v;
	}
	v = js_outcome(env, e, res, a.family, a.flags);
	namecache_result_free(res);
	return v;
}

/* --- the context on libuv's loop ------------------------------------------ */

static void
answered(struct namecache *ctx, struct namecache_query *nq, int error,
    struct namecache_result *res, void *arg)
{
	struct query		*q = arg;
	napi_env		 env = q->a->env;
	napi_handle_scope	 scope;
	napi_value		 cb, recv, v;

	(void)ctx;
	(void)nq;
	napi_open_handle_scope(env, &scope);
	v = js_outcome(env, error, res, q->family, q->flags);
	namecache_result_free(res);
	if (napi_get_reference_value(env, q->cb, &cb) == napi_ok && cb) {
		napi_get_global(env, &recv);
		/* as libuv's own callbacks: microtasks and nextTicks run after */
		napi_make_callback(env, q->a->async, recv, cb, 1, &v, NULL);
	}
	napi_delete_reference(env, q->cb);
	napi_close_handle_scope(env, scope);
	free(q);
}

static void
on_poll(uv_poll_t *h, int status, int events)
{
	struct addon *a = h->data;

	(void)status;
	(void)events;
	namecache_process(a->ctx);
	sync_watch(a);
}

static void
on_timer(uv_timer_t *t)
{
	struct addon *a = t->data;

	namecache_process(a->ctx);
	sync_watch(a);
}

static void
free_handle(uv_handle_t *h)
{
	free(h);
}

static void
poll_drop(struct addon *a)
{
	if (a->poll == NULL)
		return;
	uv_poll_stop(a->poll);
	uv_close((uv_handle_t *)a->poll, free_handle);
	a->poll = NULL;
	a->poll_fd = -1;
}

/* After every call on the context: the descriptor, its events, the timer, the refs. */
static void
sync_watch(struct addon *a)
{
	int		fd = namecache_fd(a->ctx), ms, want;
	struct stat	st;
	bool		busy = namecache_pending(a->ctx) > 0;

	if (a->closing)
		return;
	if (fd >= 0 && fstat(fd, &st) < 0)
		fd = -1;
	if (a->poll && (fd != a->poll_fd || st.st_ino != a->poll_ino))
		poll_drop(a);
	if (fd >= 0 && a->poll == NULL) {
		if ((a->poll = calloc(1, sizeof(*a->poll))) != NULL &&
		    uv_poll_init(a->loop, a->poll, fd) == 0) {
			a->poll->data = a;
			a->poll_fd = fd;
			a->poll_ino = st.st_ino;
			a->poll_events = 0;
		} else {
			free(a->poll);
			a->poll = NULL;
		}
	}
	if (a->poll) {
		want = UV_READABLE | ((namecache_events(a->ctx) & POLLOUT) ? UV_WRITABLE : 0);
		if (want != a->poll_events) {
			uv_poll_start(a->poll, want, on_poll);
			a->poll_events = want;
		}
		if (busy)
			uv_ref((uv_handle_t *)a->poll);
		else
			uv_unref((uv_handle_t *)a->poll);
	}
	ms = namecache_timeout(a->ctx);
	if (ms >= 0)
		uv_timer_start(&a->timer, on_timer, (uint64_t)ms, 0);
	else
		uv_timer_stop(&a->timer);
	if (busy)
		uv_ref((uv_handle_t *)&a->timer);
	else
		uv_unref((uv_handle_t *)&a->timer);
}

/* submit(host, family, flags, cb) */
static napi_value
js_submit(napi_env env, napi_callback_info info)
{
	struct addon	*a = addon_of(env);
	napi_value	 argv[4], v;
	size_t		 argc = 4;
	struct args	 ar;
	struct query	*q;
	int		 e;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 4 || !get_args(env, argv, &ar))
		return NULL;
	if (a == NULL || a->ctx == NULL || (q = calloc(1, sizeof(*q))) == NULL) {
		napi_get_boolean(env, false, &v);
		return v;
	}
	q->a = a;
	q->family = ar.family;
	q->flags = ar.flags;
	napi_create_reference(env, argv[3], 1, &q->cb);
	/* the shared cache was asked already (cached()) */
	e = namecache_submit_name(a->ctx, ar.host, ar.family, ar.flags | NAMECACHE_NO_SHARED,
	    0, answered, q, NULL);
	if (e < 0) {
		napi_delete_reference(env, q->cb);
		free(q);
	}
	sync_watch(a);
	napi_get_boolean(env, e >= 0, &v);
	return v;
}

/* pending(): queries in flight (tests) */
static napi_value
js_pending(napi_env env, napi_callback_info info)
{
	struct addon	*a = addon_of(env);
	napi_value	 v;

	(void)info;
	napi_create_uint32(env, a && a->ctx ? (uint32_t)namecache_pending(a->ctx) : 0, &v);
	return v;
}

static void
timer_closed(uv_handle_t *h)
{
	free(h->data);
}

/* The environment ends (its callbacks will not run again): the queries go with it. */
static void
addon_free(napi_env env, void *data, void *hint)
{
	struct addon *a = data;

	(void)env;
	(void)hint;
	a->closing = true;
	namecache_free(a->ctx);
	a->ctx = NULL;
	if (a->poll) {
		uv_poll_stop(a->poll);
		uv_close((uv_handle_t *)a->poll, free_handle);
	}
	uv_timer_stop(&a->timer);
	uv_close((uv_handle_t *)&a->timer, timer_closed);
}

NAPI_MODULE_INIT()
{
	struct addon			*a = calloc(1, sizeof(*a));
	napi_value			 fn, name;
	static const struct {
		const char	*name;
		napi_callback	 cb;
	} fns[] = {
		{ "cached", js_cached },
		{ "submit", js_submit },
		{ "pending", js_pending },
	};

	if (a == NULL) {
		napi_throw_error(env, NULL, "namecache: out of memory");
		return NULL;
	}
	a->env = env;
	a->poll_fd = -1;
	if (napi_get_uv_event_loop(env, &a->loop) != napi_ok ||
	    namecache_new(NULL, &a->ctx) < 0) {
		free(a);
		napi_throw_error(env, NULL, "namecache: cannot make a context");
		return NULL;
	}
	uv_timer_init(a->loop, &a->timer);
	a->timer.data = a;
	uv_unref((uv_handle_t *)&a->timer);
	napi_create_string_utf8(env, "namecache", NAPI_AUTO_LENGTH, &name);
	napi_async_init(env, NULL, name, &a->async);
	napi_set_instance_data(env, a, addon_free, NULL);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].cb, NULL, &fn);
		napi_set_named_property(env, exports, fns[i].name, fn);
	}
	return exports;
}
