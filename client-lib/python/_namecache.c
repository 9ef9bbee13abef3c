/* SPDX-License-Identifier: MIT */
/* client-lib/python/_namecache.c - CPython's socket.getaddrinfo, answered by namecached. */

/*
 * getaddrinfo(host, port, family=0, type=0, proto=0, flags=0) returns what
 * socket.getaddrinfo returns, the same list in the same order, or raises
 * the same socket.gaierror.  What it cannot answer exactly, it hands to
 * socket.getaddrinfo itself ("fallback"):
 *
 *   - answered here: a host name (str through the idna codec, as the
 *     socket module encodes it, or bytes), a port that is None, an int or
 *     a decimal string, family 0, AF_INET or AF_INET6, flags among
 *     AI_PASSIVE, AI_CANONNAME, AI_ADDRCONFIG and AI_NUMERICSERV.  The
 *     name goes to libnamecache (the shared cache on this thread, else
 *     the daemon), sorted as getaddrinfo sorts (NAMECACHE_SORT); the
 *     (socktype, protocol, port) triples come from glibc's own
 *     getaddrinfo of the port on a numeric address, which never asks NSS,
 *     so type, proto and port errors are glibc's own;
 *   - handed over at once, as they never reach NSS: a numeric host, no
 *     host, AI_NUMERICHOST, another family (EAI_FAMILY), arguments of the
 *     wrong type;
 *   - handed over because they need NSS or a daemon: a service name,
 *     AI_V4MAPPED and the other flags, a name the daemon refuses, no
 *     daemon, a daemon that fails.  aio sends these to the executor.
 *
 * Resolver is the non-blocking side, for namecache.aio: one libnamecache
 * context, its descriptor for the loop to watch, and callbacks.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "hash.h"		/* proto's, inline: FNV-1a */
#include "namecache.h"

/* The library's default: the daemon answers TRYAGAIN well before it. */
#define TIMEOUT_MS	0

static PyObject *socket_getaddrinfo;	/* socket.getaddrinfo, the fallback */
static PyObject *gaierror;		/* socket.gaierror */
static PyObject *af_enum, *sk_enum;	/* socket.AddressFamily, socket.SocketKind */
static PyObject *af_inet, *af_inet6;	/* their members */
static PyObject *fallback_marker;	/* namecache._namecache.FALLBACK */
static PyObject *sk_members[8];		/* SocketKind(n), made on first use */

/* --- what a request is ----------------------------------------------------- */

#define MAX_COMBOS	16

struct combo {
	int		socktype;
	int		protocol;
	uint16_t	port;		/* network order */
};

struct req {
	PyObject	*host_obj;	/* a str or bytes object: host is inside it */
	const char	*host;
	int		 family;	/* after AI_ADDRCONFIG */
	int		 flags;
	struct combo	 combos[MAX_COMBOS];
	int		 ncombos;
};

enum prep {
	PREP_LOOKUP,		/* ask namecache */
	PREP_NOW,		/* socket.getaddrinfo, at once: it needs no NSS */
	PREP_BLOCKING,		/* socket.getaddrinfo, which may block */
	PREP_ERROR,		/* an exception is set */
};

static void
req_clear(struct req *r)
{
	Py_CLEAR(r->host_obj);
}

static PyObject *
raise_gai(int code)
{
	PyObject *v = Py_BuildValue("(is)", code, gai_strerror(code));

	if (v) {
		PyErr_SetObject(gaierror, v);
		Py_DECREF(v);
	}
	return NULL;
}

/* A gaierror instance, for a callback. */
static PyObject *
gai_error_obj(int code)
{
	return PyObject_CallFunction(gaierror, "is", code, gai_strerror(code));
}

/*
 * The host as the socket module encodes it, into r: a str through the
 * idna codec, whose ASCII fast path (labels but the last 1 to 63 bytes,
 * the last under 64) leaves it as it is, so such a str is used as it is,
 * without a copy; anything else goes through the codec.  r->host_obj holds
 * a reference to what r->host points into.  0, or -1 with an exception.
 */
static int
encode_host(PyObject *s, struct req *r)
{
	Py_ssize_t	 len, start = 0;
	const char	*p;

	if (PyUnicode_IS_ASCII(s) && (p = PyUnicode_AsUTF8AndSize(s, &len)) != NULL &&
	    len > 0) {
		bool ok = true;

		for (Py_ssize_t i = 0; i <= len && ok; i++)
			if (i == len || p[i] == '.') {
				Py_ssize_t l = i - start;

				ok = i == len ? l < 64 : l > 0 && l < 64;
				start = i + 1;
			}
		if (ok) {
			r->host_obj = Py_NewRef(s);
			r->host = p;
			return 0;
		}
	}
	if ((r->host_obj = PyUnicode_AsEncodedString(s, "idna", NULL)) == NULL)
		return -1;
	r->host = PyBytes_AS_STRING(r->host_obj);
	return 0;
}

/* A numeric address as glibc's getaddrinfo parses one, before any NSS. */
static bool
numeric_host(const char *h)
{
	struct in_addr	a4;
	struct in6_addr	a6;
	char		buf[INET6_ADDRSTRLEN + 1];
	const char	*pct;

	if (inet_aton(h, &a4) == 1 && strpbrk(h, " \t\n\v\f\r") == NULL)
		return true;
	if (strchr(h, ':') == NULL)
		return false;
	pct = strchr(h, '%');
	if (pct == NULL)
		return inet_pton(AF_INET6, h, &a6) == 1;
	if ((size_t)(pct - h) >= sizeof(buf))
		return false;
	memcpy(buf, h, (size_t)(pct - h));
	buf[pct - h] = '\0';
	return inet_pton(AF_INET6, buf, &a6) == 1;
}

/* Triples for (port, type, proto, numericserv), as glibc makes them: cached. */
struct tmpl {
	bool		used;
	char		port[24];	/* "" for none */
	bool		has_port;
	int		socktype, protocol, numserv;
	int		error;		/* an EAI_* code, or 0 */
	struct combo	combos[MAX_COMBOS];
	int		ncombos;
};

#define NTMPL	32
static struct tmpl tmpls[NTMPL];	/* under the GIL */

static int
template(const char *port, int socktype, int protocol, int numserv, struct req *r)
{
	struct addrinfo	 hints = { .ai_family = AF_INET, .ai_socktype = socktype,
	    .ai_protocol = protocol, .ai_flags = AI_NUMERICHOST | numserv };
	struct addrinfo	*res = NULL, *ai;
	struct tmpl	*t;
	uint64_t	 h = hash_fnv1a(HASH_FNV1A_INIT ^ (uint64_t)socktype * 31u ^
	    (uint64_t)protocol ^ (uint64_t)numserv, port ? port : "",
	    port ? strlen(port) : 0);

	t = &tmpls[h % NTMPL];
	if (!(t->used && t->has_port == (port != NULL) && t->socktype == socktype &&
	    t->protocol == protocol && t->numserv == numserv &&
	    strcmp(t->port, port ? port : "") == 0)) {
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->has_port = port != NULL;
		strcpy(t->port, port ? port : "");	/* both under 24 bytes */
		t->socktype = socktype;
		t->protocol = protocol;
		t->numserv = numserv;
		t->error = getaddrinfo("0.0.0.0", port, &hints, &res);
		for (ai = res; ai && t->ncombos < MAX_COMBOS; ai = ai->ai_next)
			t->combos[t->ncombos++] = (struct combo){ ai->ai_socktype,
			    ai->ai_protocol, ((struct sockaddr_in *)ai->ai_addr)->sin_port };
		if (res)
			freeaddrinfo(res);
	}
	if (t->error)
		return t->error;
	memcpy(r->combos, t->combos, sizeof(r->combos));
	r->ncombos = t->ncombos;
	return 0;
}

/* "%ld" without printf. */
static const char *
ltoa10(long v, char *buf, size_t len)
{
	char		*p = buf + len;
	unsigned long	 u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	*--p = '\0';
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u && p > buf + 1);
	if (v < 0)
		*--p = '-';
	return p;
}

#define OUR_FLAGS	(AI_PASSIVE | AI_CANONNAME | AI_ADDRCONFIG | AI_NUMERICSERV)

/*
 * Reads socket.getaddrinfo's arguments into r.  PREP_LOOKUP: r is ready
 * for namecache; PREP_NOW, PREP_BLOCKING: hand them to socket.getaddrinfo;
 * PREP_ERROR: the error glibc would give, raised.
 */
static enum prep
prepare(PyObject *hobj, PyObject *pobj, int family, int socktype, int protocol,
    int flags, struct req *r)
{
	char		 pbuf[24];
	const char	*port = NULL;
	int		 e;

	memset(r, 0, sizeof(*r));
	if (hobj == Py_None || !(PyUnicode_Check(hobj) || PyBytes_Check(hobj)))
		return PREP_NOW;
	if (pobj == Py_None)
		port = NULL;
	else if (PyLong_CheckExact(pobj)) {
		long v = PyLong_AsLong(pobj);

		if (v == -1 && PyErr_Occurred()) {
			PyErr_Clear();
			return PREP_NOW;
		}
		port = ltoa10(v, pbuf, sizeof(pbuf));
	} else if (PyUnicode_Check(pobj) || PyBytes_Check(pobj)) {
		const char	*s = PyUnicode_Check(pobj) ? PyUnicode_AsUTF8(pobj) :
		    PyBytes_AS_STRING(pobj);
		char		*end;

		if (s == NULL) {
			PyErr_Clear();
			return PREP_NOW;
		}
		/* a service name needs NSS (services) */
		if (*s) {
			(void)strtoul(s, &end, 10);
			if (*end != '\0')
				return PREP_BLOCKING;
		}
		if (strlen(s) >= sizeof(pbuf))
			return PREP_BLOCKING;
		port = strcpy(pbuf, s);
	} else
		return PREP_NOW;
	if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6)
		return PREP_NOW;
	if (flags & AI_NUMERICHOST)
		return PREP_NOW;
	if (flags & ~OUR_FLAGS)
		return PREP_BLOCKING;
	if (PyUnicode_Check(hobj)) {
		if (encode_host(hobj, r) < 0)
			return PREP_ERROR;
	} else {
		r->host_obj = Py_NewRef(hobj);
		r->host = PyBytes_AS_STRING(hobj);
	}
	if (r->host[0] == '\0' || strcmp(r->host, "*") == 0)
		return PREP_BLOCKING;
	if (numeric_host(r->host))
		return PREP_NOW;
	r->flags = flags;
	r->family = family;
	/* glibc's order: AI_ADDRCONFIG first, then the service, then the name */
	if (flags & AI_ADDRCONFIG) {
		int v4, v6;

		namecache_addrconfig(&v4, &v6);
		if (family == AF_UNSPEC && v4 != v6)
			r->family = v4 ? AF_INET : AF_INET6;
		else if ((family == AF_INET && !v4) || (family == AF_INET6 && !v6)) {
			raise_gai(EAI_NONAME);
			return PREP_ERROR;
		}
	}
	if ((e = template(port, socktype, protocol, flags & AI_NUMERICSERV, r)) != 0) {
		if (e == EAI_SYSTEM || e == EAI_MEMORY)
			return PREP_BLOCKING;
		raise_gai(e);
		return PREP_ERROR;
	}
	return PREP_LOOKUP;
}

/* socket.SocketKind(n), as socket.getaddrinfo converts it; a new reference. */
static PyObject *
socket_kind(int n)
{
	PyObject *v;

	if (n >= 0 && n < 8 && sk_members[n])
		return Py_NewRef(sk_members[n]);
	if ((v = PyObject_CallFunction(sk_enum, "i", n)) == NULL) {
		PyErr_Clear();
		return PyLong_FromLong(n);
	}
	if (n >= 0 && n < 8)
		sk_members[n] = Py_NewRef(v);
	return v;
}

/* socket.getaddrinfo's tuples for a result: addresses by triples. */
static PyObject *
build(const struct req *r, const struct namecache_result *res)
{
	PyObject	*list = PyList_New((Py_ssize_t)(res->naddresses * (size_t)r->ncombos));
	PyObject	*ports[MAX_COMBOS] = { NULL }, *kinds[MAX_COMBOS] = { NULL };
	PyObject	*protos[MAX_COMBOS] = { NULL }, *empty = NULL, *zero = NULL;
	Py_ssize_t	 n = 0;
	bool		 ok = list != NULL;

	for (int k = 0; ok && k < r->ncombos; k++) {
		ports[k] = PyLong_FromLong(ntohs(r->combos[k].port));
		kinds[k] = socket_kind(r->combos[k].socktype);
		protos[k] = PyLong_FromLong(r->combos[k].protocol);
		ok = ports[k] && kinds[k] && protos[k];
	}
	if (ok) {
		empty = PyUnicode_FromStringAndSize("", 0);
		zero = PyLong_FromLong(0);
		ok = empty && zero;
	}
	for (size_t i = 0; ok && i < res->naddresses; i++) {
		const struct namecache_address	*a = &res->addresses[i];
		char				 text[INET6_ADDRSTRLEN];
		PyObject			*host, *scope = NULL;

		/* the text without the scope, which is the tuple's last item
		   (the socket module writes sin6_addr with inet_ntop) */
		namecache_address_str(a, text, sizeof(text));
		if ((host = PyUnicode_FromString(text)) == NULL) {
			ok = false;
			break;
		}
		if (a->family != AF_INET) {
			scope = res->scope_ids[i] ? PyLong_FromUnsignedLong(res->scope_ids[i]) :
			    Py_NewRef(zero);
			if (scope == NULL) {
				Py_DECREF(host);
				ok = false;
				break;
			}
		}
		for (int k = 0; ok && k < r->ncombos; k++) {
			PyObject *sa, *t, *canon;

			sa = PyTuple_New(a->family == AF_INET ? 2 : 4);
			t = PyTuple_New(5);
			if (n == 0 && (r->flags & AI_CANONNAME))
				canon = PyUnicode_FromString(res->canonical[0] ? res->canonical :
				    r->host);
			else
				canon = Py_NewRef(empty);
			if (sa == NULL || t == NULL || canon == NULL) {
				Py_XDECREF(sa);
				Py_XDECREF(t);
				Py_XDECREF(canon);
				ok = false;
				break;
			}
			PyTuple_SET_ITEM(sa, 0, Py_NewRef(host));
			PyTuple_SET_ITEM(sa, 1, Py_NewRef(ports[k]));
			if (a->family != AF_INET) {
				PyTuple_SET_ITEM(sa, 2, Py_NewRef(zero));	/* flowinfo */
				PyTuple_SET_ITEM(sa, 3, Py_NewRef(scope));	/* scope_id */
			}
			PyTuple_SET_ITEM(t, 0, Py_NewRef(a->family == AF_INET ? af_inet : af_inet6));
			PyTuple_SET_ITEM(t, 1, Py_NewRef(kinds[k]));
			PyTuple_SET_ITEM(t, 2, Py_NewRef(protos[k]));
			PyTuple_SET_ITEM(t, 3, canon);
			PyTuple_SET_ITEM(t, 4, sa);
			PyList_SET_ITEM(list, n++, t);
		}
		Py_DECREF(host);
		Py_XDECREF(scope);
	}
	for (int k = 0; k < r->ncombos; k++) {
		Py_XDECREF(ports[k]);
		Py_XDECREF(kinds[k]);
		Py_XDECREF(protos[k]);
	}
	Py_XDECREF(empty);
	Py_XDECREF(zero);
	if (!ok) {
		/* the slots not filled are NULL, which list_dealloc skips */
		Py_XDECREF(list);
		return NULL;
	}
	return list;
}

/*
 * A lookup's outcome as socket.getaddrinfo's: the list (a new reference),
 * or NULL with *gai set (an EAI_* code to raise) or 0 for "fall back".
 */
static PyObject *
outcome(const struct req *r, int error, const struct namecache_result *res, int *gai)
{
	*gai = 0;
	switch (error) {
	case NAMECACHE_OK:
		return build(r, res);
	case NAMECACHE_ERR_NOTFOUND:
		*gai = EAI_NONAME;
		break;
	case NAMECACHE_ERR_NODATA:
		*gai = EAI_NODATA;
		break;
	case NAMECACHE_ERR_TRYAGAIN:
		*gai = EAI_AGAIN;
		break;
	case NAMECACHE_ERR_NOTFOUND_TRYAGAIN:
		/*
		 * glibc's NOTFOUND with h_errno TRY_AGAIN.  getaddrinfo asks
		 * AF_INET without AI_CANONNAME (also AF_UNSPEC narrowed by
		 * AI_ADDRCONFIG, as r->family is) through gethostbyname2_r,
		 * which reads NOTFOUND as "no such name"; its other paths
		 * read TRY_AGAIN (try_simple_gethostbyname and
		 * get_nss_addresses in glibc's getaddrinfo.c).
		 */
		*gai = r->family == AF_INET && !(r->flags & AI_CANONNAME) ? EAI_NONAME :
		    EAI_AGAIN;
		break;
	}
	return NULL;
}

static PyObject *
call_fallback(PyObject *hobj, PyObject *pobj, int family, int socktype, int protocol,
    int flags)
{
	return PyObject_CallFunction(socket_getaddrinfo, "OOiiii", hobj, pobj, family,
	    socktype, protocol, flags);
}

static unsigned long stat_answered, stat_fallbacks, stat_shared;

/*
 * socket.getaddrinfo's arguments, read without building a tuple and a dict:
 * 0, or -1 when they are anything but (host, port[, family, type, proto,
 * flags]) with int-like numbers, by position or keyword (the caller hands
 * them to socket.getaddrinfo, which says what is wrong with them).
 */
static int
parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **hobj,
    PyObject **pobj, int ints[4])
{
	static const char	*names[] = { "host", "port", "family", "type", "proto", "flags" };
	PyObject		*v[6] = { NULL };
	Py_ssize_t		 nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

	if (nargs > 6)
		return -1;
	for (Py_ssize_t i = 0; i < nargs; i++)
		v[i] = args[i];
	for (Py_ssize_t k = 0; k < nkw; k++) {
		PyObject	*key = PyTuple_GET_ITEM(kwnames, k);
		int		 i;

		for (i = 0; i < 6; i++)
			if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
				break;
		if (i == 6 || v[i] != NULL)
			return -1;
		v[i] = args[nargs + k];
	}
	if (v[0] == NULL || v[1] == NULL)
		return -1;
	*hobj = v[0];
	*pobj = v[1];
	for (int i = 0; i < 4; i++) {
		long x;

		ints[i] = 0;
		if (v[2 + i] == NULL)
			continue;
		if (!PyLong_Check(v[2 + i]))
			return -1;
		x = PyLong_AsLong(v[2 + i]);
		if ((x == -1 && PyErr_Occurred()) || x < INT_MIN || x > INT_MAX) {
			PyErr_Clear();
			return -1;
		}
		ints[i] = (int)x;
	}
	return 0;
}

static PyObject *
py_getaddrinfo(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
	PyObject		*hobj, *pobj, *list;
	int			 ints[4], family, socktype, protocol, flags, e, gai;
	struct namecache_result	*res = NULL;
	struct req		 r;

	(void)self;
	if (parse_args(args, PyVectorcall_NARGS(nargsf), kwnames, &hobj, &pobj, ints) < 0) {
		stat_fallbacks++;
		return PyObject_Vectorcall(socket_getaddrinfo, args, nargsf, kwnames);
	}
	family = ints[0];
	socktype = ints[1];
	protocol = ints[2];
	flags = ints[3];
	switch (prepare(hobj, pobj, family, socktype, protocol, flags, &r)) {
	case PREP_ERROR:
		req_clear(&r);
		return NULL;
	case PREP_NOW:
	case PREP_BLOCKING:
		req_clear(&r);
		stat_fallbacks++;
		return call_fallback(hobj, pobj, family, socktype, protocol, flags);
	case PREP_LOOKUP:
		break;
	}
	/* The shared cache first, on this thread, with the GIL: no system call. */
	e = namecache_lookup_name(r.host, r.family, NAMECACHE_SORT | NAMECACHE_SHARED_ONLY,
	    TIMEOUT_MS, &res);
	if (e == NAMECACHE_OK || e == NAMECACHE_ERR_NOTFOUND || e == NAMECACHE_ERR_NODATA)
		stat_shared++;
	else if (e == NAMECACHE_ERR_MISS) {
		Py_BEGIN_ALLOW_THREADS
		e = namecache_lookup_name(r.host, r.family, NAMECACHE_SORT, TIMEOUT_MS, &res);
		Py_END_ALLOW_THREADS
	}
	list = outcome(&r, e, res, &gai);
	namecache_result_free(res);
	if (list == NULL && !PyErr_Occurred()) {
		if (gai) {
			raise_gai(gai);
			stat_answered++;
		} else {
			stat_fallbacks++;
			list = call_fallback(hobj, pobj, family, socktype, protocol, flags);
		}
	} else if (list)
		stat_answered++;
	req_clear(&r);
	return list;
}

static PyObject *
py_counters(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return Py_BuildValue("{sksksk}", "answered", stat_answered, "from_shared",
	    stat_shared, "fallbacks", stat_fallbacks);
}

/* --- Resolver: the non-blocking side ------------------------------------ */

struct pending {
	struct req		 r;
	PyObject		*callback;
	struct pending		*prev, *next;
	struct resolver		*owner;
	struct namecache_query	*q;
};

typedef struct resolver {
	PyObject_HEAD
	struct namecache	*ctx;
	struct pending		*head;		/* queries in flight */
} Resolver;

static void
pending_unlink(Resolver *rs, struct pending *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		rs->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
}

static void
pending_free(struct pending *p)
{
	req_clear(&p->r);
	Py_XDECREF(p->callback);
	PyMem_Free(p);
}

/* Called from namecache_process() (or at once, from the shared cache). */
static void
answered(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct pending	*p = arg;
	PyObject	*v, *ret;
	int		 gai;

	(void)ctx;
	(void)q;
	v = outcome(&p->r, error, res, &gai);
	namecache_result_free(res);
	if (v == NULL) {
		if (PyErr_Occurred()) {
			PyObject *type, *tb;

			PyErr_Fetch(&type, &v, &tb);
			PyErr_NormalizeException(&type, &v, &tb);
			if (v && tb)
				PyException_SetTraceback(v, tb);
			Py_XDECREF(type);
			Py_XDECREF(tb);
		}
		else if (gai) {
			stat_answered++;
			v = gai_error_obj(gai);
		} else {
			stat_fallbacks++;
			v = Py_NewRef(fallback_marker);
		}
	} else
		stat_answered++;
	if (v) {
		ret = PyObject_CallOneArg(p->callback, v);
		Py_DECREF(v);
		if (ret == NULL)
			PyErr_WriteUnraisable(p->callback);
		Py_XDECREF(ret);
	} else
		PyErr_WriteUnraisable(p->callback);
	pending_unlink(p->owner, p);
	pending_free(p);
}

static int
resolver_init(Resolver *self, PyObject *args, PyObject *kw)
{
	static char	*kwlist[] = { (char *)"socket_path", NULL };
	const char	*path = NULL;
	int		 e;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:Resolver", kwlist, &path))
		return -1;
	if (self->ctx)
		return 0;
	if ((e = namecache_new(path, &self->ctx)) < 0) {
		PyErr_SetString(PyExc_OSError, namecache_strerror(e));
		return -1;
	}
	return 0;
}

static void
resolver_dealloc(Resolver *self)
{
	struct pending *p;

	/* namecache_free runs no callback: the pending ones are dropped here */
	namecache_free(self->ctx);
	while ((p = self->head) != NULL) {
		self->head = p->next;
		pending_free(p);
	}
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/*
 * submit(host, port, family, type, proto, flags, callback): a list (answered
 * now: the shared cache, or a numeric host), FALLBACK (hand it to the
 * executor), or None (pending: callback gets the list, a gaierror, or
 * FALLBACK).  Raises what glibc would give at once.
 */
static PyObject *
resolver_submit(Resolver *self, PyObject *args)
{
	PyObject		*hobj, *pobj, *cb;
	int			 family, socktype, protocol, flags, e;
	struct pending		*p;

	if (!PyArg_ParseTuple(args, "OOiiiiO:submit", &hobj, &pobj, &family, &socktype,
	    &protocol, &flags, &cb))
		return NULL;
	if ((p = PyMem_Calloc(1, sizeof(*p))) == NULL)
		return PyErr_NoMemory();
	switch (prepare(hobj, pobj, family, socktype, protocol, flags, &p->r)) {
	case PREP_ERROR:
		pending_free(p);
		return NULL;
	case PREP_NOW:
		pending_free(p);
		stat_fallbacks++;
		return call_fallback(hobj, pobj, family, socktype, protocol, flags);
	case PREP_BLOCKING:
		pending_free(p);
		stat_fallbacks++;
		return Py_NewRef(fallback_marker);
	case PREP_LOOKUP:
		break;
	}
	/* The shared cache, on this thread: an answer without a round trip. */
	{
		struct namecache_result	*res = NULL;
		PyObject		*list;
		int			 gai;

		e = namecache_lookup_name(p->r.host, p->r.family,
		    NAMECACHE_SORT | NAMECACHE_SHARED_ONLY, TIMEOUT_MS, &res);
		if (e != NAMECACHE_ERR_MISS) {
			list = outcome(&p->r, e, res, &gai);
			namecache_result_free(res);
			pending_free(p);
			if (list || PyErr_Occurred()) {
				stat_shared++;
				stat_answered++;
				return list;
			}
			if (gai) {
				stat_shared++;
				stat_answered++;
				return raise_gai(gai);
			}
			stat_fallbacks++;
			return Py_NewRef(fallback_marker);
		}
	}
	p->callback = Py_NewRef(cb);
	p->owner = self;
	p->next = self->head;
	if (self->head)
		self->head->prev = p;
	self->head = p;
	e = namecache_submit_name(self->ctx, p->r.host, p->r.family,
	    NAMECACHE_SORT | NAMECACHE_NO_SHARED, TIMEOUT_MS, answered, p, &p->q);
	if (e < 0) {
		pending_unlink(self, p);
		pending_free(p);
		stat_fallbacks++;
		return Py_NewRef(fallback_marker);
	}
	Py_RETURN_NONE;
}

/* (fd, inode): a new connection, even on a reused number, is a new pair. */
static PyObject *
resolver_fd(Resolver *self, PyObject *unused)
{
	struct stat	st;
	int		fd = namecache_fd(self->ctx);

	(void)unused;
	if (fd < 0 || fstat(fd, &st) < 0)
		return Py_BuildValue("(iK)", -1, 0ULL);
	return Py_BuildValue("(iK)", fd, (unsigned long long)st.st_ino);
}

static PyObject *
resolver_events(Resolver *self, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLong(namecache_events(self->ctx));
}

static PyObject *
resolver_timeout(Resolver *self, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLong(namecache_timeout(self->ctx));
}

static PyObject *
resolver_process(Resolver *self, PyObject *unused)
{
	(void)unused;
	return PyLong_FromLong(namecache_process(self->ctx));
}

static PyObject *
resolver_pending(Resolver *self, PyObject *unused)
{
	(void)unused;
	return PyLong_FromSize_t(namecache_pending(self->ctx));
}

static PyMethodDef resolver_methods[] = {
	{ "submit", (PyCFunction)resolver_submit, METH_VARARGS,
	  "submit(host, port, family, type, proto, flags, callback)" },
	{ "fd", (PyCFunction)resolver_fd, METH_NOARGS,
	  "(descriptor, inode) to watch, or (-1, 0)" },
	{ "events", (PyCFunction)resolver_events, METH_NOARGS, "poll events wanted" },
	{ "timeout", (PyCFunction)resolver_timeout, METH_NOARGS,
	  "milliseconds until process() is due, or -1" },
	{ "process", (PyCFunction)resolver_process, METH_NOARGS,
	  "sends, receives, runs callbacks; returns how many ran" },
	{ "pending", (PyCFunction)resolver_pending, METH_NOARGS, "queries in flight" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject ResolverType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "namecache._namecache.Resolver",
	.tp_basicsize = sizeof(Resolver),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One connection to namecached, driven by an event loop.",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)resolver_init,
	.tp_dealloc = (destructor)resolver_dealloc,
	.tp_methods = resolver_methods,
};

static PyMethodDef methods[] = {
	{ "getaddrinfo", (PyCFunction)(void (*)(void))py_getaddrinfo,
	  METH_FASTCALL | METH_KEYWORDS,
	  "getaddrinfo(host, port, family=0, type=0, proto=0, flags=0): "
	  "socket.getaddrinfo's answer, from namecached" },
	{ "counters", py_counters, METH_NOARGS,
	  "answered, from_shared and fallbacks so far" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_namecache",
	"socket.getaddrinfo answered by namecached (see namecache).", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__namecache(void);

PyMODINIT_FUNC
PyInit__namecache(void)
{
	PyObject *m, *sock;

	if (PyType_Ready(&ResolverType) < 0)
		return NULL;
	if ((sock = PyImport_ImportModule("socket")) == NULL)
		return NULL;
	socket_getaddrinfo = PyObject_GetAttrString(sock, "getaddrinfo");
	gaierror = PyObject_GetAttrString(sock, "gaierror");
	af_enum = PyObject_GetAttrString(sock, "AddressFamily");
	sk_enum = PyObject_GetAttrString(sock, "SocketKind");
	Py_DECREF(sock);
	if (!socket_getaddrinfo || !gaierror || !af_enum || !sk_enum)
		return NULL;
	af_inet = PyObject_CallFunction(af_enum, "i", AF_INET);
	af_inet6 = PyObject_CallFunction(af_enum, "i", AF_INET6);
	if (!af_inet || !af_inet6)
		return NULL;
	if ((m = PyModule_Create(&module)) == NULL)
		return NULL;
	fallback_marker = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
	if (fallback_marker == NULL ||
	    PyModule_AddObjectRef(m, "FALLBACK", fallback_marker) < 0 ||
	    PyModule_AddObjectRef(m, "Resolver", (PyObject *)&ResolverType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
