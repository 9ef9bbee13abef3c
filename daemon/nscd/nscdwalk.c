/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscdwalk.c - one walk of a database's line for one key, as glibc walks it. */

/*
 * glibc's loops: getXXbyYY_r's for passwd, group and services (statuses,
 * actions, modules without the function passed over, [SUCCESS=merge] for
 * group), internal_getgrouplist's for initgroups (its duplicate removal),
 * __internal_getnetgrent_r's for netgroups (the known and needed lists).
 *
 * A walk is one job on the worker pool: the loop takes it as far as its
 * first module that loads, one worker calls every module it reaches and
 * builds glibc's reply bytes, and the loop gets it back once.  The table,
 * the waiters, db and gen are the loop's alone; what the walk finds is
 * the worker's while the job is out (a walk that timed out is refused
 * with what it had before the call still running).  The reply is
 * published in the database's map (unless an uncached module took part,
 * or the database was invalidated meanwhile) and given to every client
 * waiting on the walk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "nscd.h"
#include "nscdent.h"
#include "nscdmap.h"
#include "nscdwalk.h"
#include "nssent.h"
#include "proto.h"

/* A list of netgroup names (known, needed) for one expansion. */
struct names {
	char		**v;
	size_t		 n, cap;
};

struct walk {
	/* The loop's. */
	struct walk	*hnext;
	struct nscddb	*ndb;
	struct db	*db;		/* NULL: orphaned by nscdwalk_cancel_all */
	uint64_t	 gen;
	struct waiter	*waiters;
	bool		 ended;		/* its waiters were answered */
	/* Set by the loop, before the job; then only read. */
	struct nscddb_modules mods;
	int32_t		 type;
	int		 op;		/* NSSPOOL_* */
	uint8_t		 key[NSCD_KEY_MAX];
	size_t		 key_len;
	struct nsw_line	 line;
	int		 ids[NSW_SOURCES_MAX];	/* the line's modules; < 0: none */
	bool		 uncached[NSW_SOURCES_MAX];	/* in nscd_uncached_modules */
	bool		 initgr_entry;
	/* What the walk finds: the worker's while the job is out. */
	struct nsspool_worker *wk;
	bool		 on_worker;	/* false: on the loop, which calls nothing */
	uint8_t		 call[NSSPOOL_KEY_MAX];	/* a module call's key */
	size_t		 call_len;
	unsigned	 i;
	unsigned	 calls;		/* module calls made */
	int		 status;	/* enum nsw_status, the last module's */
	const char	*last;		/* and its name (line's); NULL: none said */
	bool		 uncacheable;
	bool		 failed;	/* refuse: too large, no memory */
	uint8_t		*reply;		/* the end: glibc's bytes, or NULL (refuse) */
	size_t		 reply_len;
	bool		 found;
	/* passwd, group, services */
	uint8_t		*result, *saved;
	size_t		 result_len, saved_len;
	bool		 do_merge;
	/* initgroups */
	uint32_t	*gids;
	size_t		 ngids, capgids;
	bool		 any_success, all_tryagain;
	/* netgroups */
	struct names	 known, needed;
	char		*group;		/* being walked */
	uint8_t		*entries;	/* its module's, when found */
	size_t		 entries_len;
	uint8_t		*out;		/* triples so far */
	size_t		 out_len, out_cap;
	int32_t		 nresults;
	unsigned	 groups_walked;
	bool		 top_found, matched;
	struct nscd_innetgr_key want;	/* INNETGR: into key */
};

static int
op_of(int32_t type)
{
	switch (type) {
	case NSCD_GETPWBYNAME:		return NSSPOOL_PWNAM;
	case NSCD_GETPWBYUID:		return NSSPOOL_PWUID;
	case NSCD_GETGRBYNAME:		return NSSPOOL_GRNAM;
	case NSCD_GETGRBYGID:		return NSSPOOL_GRGID;
	case NSCD_INITGROUPS:		return NSSPOOL_INITGR;
	case NSCD_GETSERVBYNAME:	return NSSPOOL_SERVNAME;
	case NSCD_GETSERVBYPORT:	return NSSPOOL_SERVPORT;
	default:			return NSSPOOL_NETGR;
	}
}

/* --- keys --------------------------------------------------------------- */

/*
 * Checks glibc's key and makes the module call's key from it.  0, or
 * -EINVAL for bytes glibc never sends (a refusal: glibc decides).
 */
static int
call_key(struct walk *w)
{
	struct nscd_serv_key	sk;
	uint32_t		v;
	size_t			n;

	switch (w->type) {
	case NSCD_GETPWBYUID:
	case NSCD_GETGRBYGID:
		if (nscd_key_number(w->key, w->key_len, &v) < 0)
			return -EINVAL;
		memcpy(w->call, &v, sizeof(v));
		w->call_len = sizeof(v);
		return 0;
	case NSCD_GETSERVBYNAME:
	case NSCD_GETSERVBYPORT:
		if (nscd_key_serv(w->type, w->key, w->key_len, &sk) < 0)
			return -EINVAL;
		if (w->type == NSCD_GETSERVBYNAME) {
			n = strlen(sk.crit) + 1;
			memcpy(w->call, sk.crit, n);
		} else {
			n = sizeof(sk.port);
			memcpy(w->call, &sk.port, n);
		}
		memcpy(w->call + n, sk.proto, strlen(sk.proto) + 1);
		w->call_len = n + strlen(sk.proto) + 1;
		return 0;
	case NSCD_INNETGR:
		if (nscd_key_innetgr(w->key, w->key_len, &w->want) < 0)
			return -EINVAL;
		return 0;	/* the netgroup's calls name each group walked */
	default:
		if (nscd_key_name(w->key, w->key_len) < 0)
			return -EINVAL;
		memcpy(w->call, w->key, w->key_len);
		w->call_len = w->key_len;
		return 0;
	}
}

static unsigned
bucket(int32_t type, const void *key, size_t len)
{
	return (nscd_hash(key, len) ^ (uint32_t)type * 2654435761u) % NSCDWALK_BUCKETS;
}

static struct walk *
walk_find(struct nscddb *ndb, int32_t type, const void *key, size_t len)
{
	struct walk *w;

	for (w = ndb->table[bucket(type, key, len)]; w; w = w->hnext)
		if (w->type == type && w->key_len == len && memcmp(w->key, key, len) == 0)
			return w;
	return NULL;
}

/* --- names -------------------------------------------------------------- */

static bool
names_has(const struct names *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static bool
names_push(struct names *l, const char *s)
{
	char *c;

	if (l->n == l->cap) {
		size_t	 cap = l->cap ? l->cap * 2 : 8;
		void	*p = realloc(l->v, cap * sizeof(*l->v));

		if (p == NULL)
			return false;
		l->v = p;
		l->cap = cap;
	}
	if ((c = strdup(s)) == NULL)
		return false;
	l->v[l->n++] = c;
	return true;
}

static void
names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* --- the end of a walk -------------------------------------------------- */

static void
walk_free(struct walk *w)
{
	free(w->reply);
	free(w->result);
	free(w->saved);
	free(w->gids);
	names_free(&w->known);
	names_free(&w->needed);
	free(w->group);
	free(w->entries);
	free(w->out);
	free(w);
}

static void
unlink_walk(struct walk *w)
{
	struct walk **pp = &w->ndb->table[bucket(w->type, w->key, w->key_len)];

	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == w) {
			*pp = w->hnext;
			break;
		}
}

/* The reply, built from what the walk found; 0: refuse. */
static size_t
build(struct walk *w, uint8_t **ret, bool *ret_found)
{
	struct nscd_netgr_reply	 h = { NSCD_VERSION, 1, 0, 0 };
	uint8_t			*out = NULL;
	size_t			 cap;
	int			 n;

	*ret = NULL;
	*ret_found = false;
	if (w->failed)
		return 0;
	switch (w->type) {
	case NSCD_INITGROUPS:
		if (!w->any_success && w->ngids == 0) {
			if (w->all_tryagain)
				return 0;
			break;
		}
		cap = sizeof(struct nscd_initgr_reply) + w->ngids * 4;
		if ((out = malloc(cap)) == NULL ||
		    (n = nscd_build_initgr(w->gids, w->ngids, out, cap)) < 0) {
			free(out);
			return 0;
		}
		*ret = out;
		*ret_found = true;
		return (size_t)n;
	case NSCD_GETNETGRENT:
		if (!w->top_found)
			break;
		h.nresults = w->nresults;
		h.result_len = (int32_t)w->out_len;
		if ((out = malloc(sizeof(h) + w->out_len)) == NULL)
			return 0;
		memcpy(out, &h, sizeof(h));
		if (w->out_len)
			memcpy(out + sizeof(h), w->out, w->out_len);
		*ret = out;
		*ret_found = true;
		return sizeof(h) + w->out_len;
	case NSCD_INNETGR:
		if ((out = malloc(sizeof(struct nscd_innetgr_reply))) == NULL)
			return 0;
		*ret = out;
		*ret_found = w->matched;
		return (size_t)nscd_build_innetgr(w->matched, out,
		    sizeof(struct nscd_innetgr_reply));
	default:
		/*
		 * SUCCESS is the answer.  NOTFOUND, and UNAVAIL (no module
		 * could answer: glibc's caller sees no entry either), are
		 * "not found", as nscd says them; TRYAGAIN is refused.
		 */
		if (w->status == NSW_SUCCESS && w->result) {
			*ret = w->result;
			*ret_found = true;
			w->result = NULL;
			return w->result_len;
		}
		if (w->status == NSW_TRYAGAIN)
			return 0;
		break;
	}
	if ((out = malloc(64)) == NULL || (n = nscd_build_notfound(w->type, out, 64)) < 0) {
		free(out);
		return 0;
	}
	*ret = out;
	return (size_t)n;
}

/*
 * The walk's end, on the loop, once: status 0, what the worker found;
 * below 0 (timed out, cancelled, no job), a refusal.
 */
static void
finish(struct walk *w, int status)
{
	struct nscddb	*ndb = w->ndb;
	struct db	*db = w->db;
	struct waiter	*wt, *next;
	uint8_t		*reply = NULL;
	const char	*source = NULL;
	uint32_t	 ttl;
	int64_t		 now;
	size_t		 len = 0;
	bool		 found = false;
	int		 r;

	if (w->ended)
		return;
	w->ended = true;
	now = nscddb_now(ndb);
	unlink_walk(w);
	ndb->inflight--;
	if (status == 0) {
		reply = w->reply;
		w->reply = NULL;
		len = w->reply_len;
		found = w->found;
	}
	/* Timed out: the module before the call still running, as it was. */
	if (status == 0 || status == -ETIMEDOUT)
		source = w->last;
	if (len > NSCDDB_REPLY_MAX) {
		free(reply);
		reply = NULL;
		len = 0;
	}
	if (len == 0)
		db->st.failed++;
	else if (found)
		db->st.found++;
	else
		db->st.notfound++;
	ttl = found ? db->ttl : db->neg_ttl;
	if (len && w->uncacheable)
		db->st.uncached++;
	else if (len && ttl && db->map && w->gen == db->gen &&
	    nscddb_refused(ndb, db->id) == NULL) {
		r = nscdmap_put(db->map, w->type, w->key, w->key_len, reply, len,
		    now + (int64_t)ttl * 1000, ttl, w->waiters != NULL, now);
		if (r < 0 && r != -E2BIG)
			log_debug("nscd %s: cannot keep an answer: %s",
			    config_db_names[db->id], strerror(-r));
	}
	for (wt = w->waiters; wt; wt = next) {
		struct nscddb_how how = {
			wt->joined ? PROTO_CACHE_COALESCED : PROTO_CACHE_MISS, source,
		};

		next = wt->next;
		wt->fn(wt->arg, reply, len, &how);
		free(wt);
	}
	w->waiters = NULL;
	free(reply);
}

/* --- the walk ----------------------------------------------------------- */

/*
 * A module without the function: glibc's __nss_next2 passes over it
 * while its UNAVAIL action is continue and a module follows; otherwise
 * the walk ends with the status it had.
 */
static bool
pass_over(struct walk *w)
{
	return nsw_action(&w->line, w->i, NSW_UNAVAIL) == NSW_CONTINUE &&
	    w->i + 1 < w->line.n;
}

static bool
out_put(struct walk *w, const void *p, size_t n)
{
	if (w->out_len + n > NSCDDB_REPLY_MAX)
		return false;
	if (w->out_len + n > w->out_cap) {
		size_t	 cap = w->out_cap ? w->out_cap : 1024;
		void	*q;

		while (cap < w->out_len + n)
			cap *= 2;
		if ((q = realloc(w->out, cap)) == NULL)
			return false;
		w->out = q;
		w->out_cap = cap;
	}
	memcpy(w->out + w->out_len, p, n);
	w->out_len += n;
	return true;
}

static bool
field_match(const char *have, const char *want, bool fold)
{
	if (*have == '\0' || want == NULL)
		return true;	/* a wildcard, or not asked */
	return fold ? strcasecmp(have, want) == 0 : strcmp(have, want) == 0;
}

/*
 * The group just walked: its triples go out (or are matched), the
 * netgroups it names join the needed list, the latest first, unless
 * known or needed already (glibc's loop guard).
 */
static bool
netgr_take(struct walk *w)
{
	const uint8_t	*p = w->entries, *end = p + w->entries_len;
	const char	*f[3];
	int		 k;

	while (p < end) {
		uint8_t tag = *p++;

		if (tag == 'g') {
			const char *name = (const char *)p;

			p += strlen(name) + 1;
			if (names_has(&w->known, name) || names_has(&w->needed, name) ||
			    (w->type == NSCD_INNETGR && strcmp(name, w->want.netgroup) == 0))
				continue;
			if (!names_push(&w->needed, name))
				return false;
			continue;
		}
		for (k = 0; k < 3; k++) {
			f[k] = (const char *)p;
			p += strlen(f[k]) + 1;
		}
		if (w->type == NSCD_INNETGR) {
			if (field_match(f[0], w->want.host, true) &&
			    field_match(f[1], w->want.user, false) &&
			    field_match(f[2], w->want.domain, true))
				w->matched = true;
			continue;
		}
		if (w->nresults == INT32_MAX ||
		    !out_put(w, f[0], (size_t)((const char *)p - f[0])))
			return false;
		w->nresults++;
	}
	return true;
}

/*
 * The walk of one netgroup ended: take it.  True: the next needed one is
 * set to be walked; false: the expansion is over (or failed).
 */
static bool
netgr_next(struct walk *w)
{
	bool top = w->known.n == 0;

	if (!names_push(&w->known, w->group)) {
		w->failed = true;
		return false;
	}
	if (w->status == NSW_SUCCESS) {
		if (top)
			w->top_found = true;
		if (!netgr_take(w)) {
			w->failed = true;
			return false;
		}
	}
	free(w->entries);
	w->entries = NULL;
	w->entries_len = 0;
	if (w->matched || w->needed.n == 0 || (top && !w->top_found))
		return false;
	if (++w->groups_walked >= NSCDDB_NETGROUPS_MAX) {
		w->failed = true;
		return false;
	}
	/* glibc's needed list is a stack: the latest name first. */
	free(w->group);
	w->group = w->needed.v[--w->needed.n];
	w->call_len = strlen(w->group) + 1;
	if (w->call_len > sizeof(w->call)) {
		w->failed = true;
		return false;
	}
	memcpy(w->call, w->group, w->call_len);
	w->i = 0;
	w->status = NSW_UNAVAIL;
	return true;
}

static void
initgr_take(struct walk *w, const struct nsspool_result *r)
{
	uint32_t	 how = NSSENT_INITGR_COMPAT, g;
	size_t		 i, j, n = 0, prev = w->ngids;

	if (r->body && r->len >= 4) {
		memcpy(&how, r->body, 4);
		n = (r->len - 4) / 4;
	}
	if (w->ngids + n > NSCDDB_LIST_MAX) {
		w->failed = true;
		return;
	}
	if (w->ngids + n > w->capgids) {
		size_t	 cap = w->capgids ? w->capgids : 64;
		void	*p;

		while (cap < w->ngids + n)
			cap *= 2;
		if ((p = realloc(w->gids, cap * sizeof(*w->gids))) == NULL) {
			w->failed = true;
			return;
		}
		w->gids = p;
		w->capgids = cap;
	}
	for (i = 0; i < n; i++) {
		memcpy(&g, r->body + 4 + 4 * i, 4);
		if (how == NSSENT_INITGR_COMPAT) {
			/* compat_call skips what the list has, in order */
			for (j = 0; j < w->ngids; j++)
				if (w->gids[j] == g)
					break;
			if (j == w->ngids)
				w->gids[w->ngids++] = g;
		} else
			w->gids[w->ngids++] = g;
	}
	/* glibc's removal of duplicates: the last one moves into the hole. */
	i = prev;
	while (i < w->ngids) {
		for (j = 0; j < prev; j++)
			if (w->gids[j] == w->gids[i])
				break;
		if (j < prev)
			w->gids[i] = w->gids[--w->ngids];
		else
			i++;
	}
}

static uint8_t *
dup_bytes(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);

	if (c && n)
		memcpy(c, p, n);
	return c;
}

/* passwd, group, services: glibc's getXXbyYY_r loop, merge included. */
static bool
one_take(struct walk *w, int *status, const struct nsspool_result *r)
{
	bool	 group = w->type == NSCD_GETGRBYNAME || w->type == NSCD_GETGRBYGID;
	uint8_t	*res = NULL;
	size_t	 len = 0;

	if (w->do_merge) {
		if (*status == NSW_SUCCESS) {
			struct nscd_gr_view a, b;
			size_t	cap = w->saved_len + r->len;
			int	n;

			if (nscd_gr_view(w->saved, w->saved_len, &a) < 0 ||
			    nscd_gr_view(r->body, r->len, &b) < 0 ||
			    (res = malloc(cap)) == NULL ||
			    (n = nscd_gr_merge(&a, &b, res, cap)) < 0) {
				free(res);
				return false;
			}
			len = (size_t)n;
			w->do_merge = false;
		} else {
			/* The saved group stands, as a success. */
			if ((res = dup_bytes(w->saved, w->saved_len)) == NULL)
				return false;
			len = w->saved_len;
			*status = NSW_SUCCESS;
		}
	} else if (*status == NSW_SUCCESS && r->body) {
		if ((res = dup_bytes(r->body, r->len)) == NULL)
			return false;
		len = r->len;
	}
	free(w->result);
	w->result = res;
	w->result_len = len;
	if (*status == NSW_SUCCESS &&
	    nsw_action(&w->line, w->i, NSW_SUCCESS) == NSW_MERGE) {
		/* glibc merges groups alone: elsewhere the lookup is EINVAL */
		if (!group)
			return false;
		free(w->saved);
		if ((w->saved = dup_bytes(res, len)) == NULL)
			return false;
		w->saved_len = len;
		w->do_merge = true;
	}
	return true;
}

/*
 * Module i's say, r, taken as glibc takes it.  True: on to the next
 * module; false: the line is done (or the walk failed).
 */
static bool
take(struct walk *w, const struct nsspool_result *r)
{
	int	status = r->status;
	bool	ret;

	if (r->missing && w->op != NSSPOOL_INITGR)
		return pass_over(w);
	/*
	 * An uncached module's say, found or not, is never kept: a
	 * DynamicUser's name and uid come and go with its unit.  For
	 * initgroups, only the groups it adds count: the group line walks
	 * every module, and nss-systemd would otherwise keep every user's
	 * groups out of the cache.
	 */
	w->last = w->line.src[w->i].name;
	if (w->uncached[w->i] && (w->op != NSSPOOL_INITGR || (r->body && r->len > 4)))
		w->uncacheable = true;
	/* ERANGE past the bound: glibc's own buffer may do better. */
	if (status == NSW_TRYAGAIN && r->err == ERANGE) {
		w->failed = true;
		return false;
	}
	switch (w->op) {
	case NSSPOOL_INITGR:
		initgr_take(w, r);
		if (w->failed)
			return false;
		if (status != NSW_TRYAGAIN)
			w->all_tryagain = false;
		w->any_success |= status == NSW_SUCCESS;
		w->status = status;
		ret = (w->initgr_entry || status != NSW_SUCCESS) &&
		    nsw_action(&w->line, w->i, status) == NSW_RETURN;
		break;
	case NSSPOOL_NETGR:
		free(w->entries);
		w->entries = NULL;
		w->entries_len = 0;
		if (status == NSW_SUCCESS && r->body &&
		    (w->entries = dup_bytes(r->body, r->len)) == NULL) {
			w->failed = true;
			return false;
		}
		w->entries_len = w->entries ? r->len : 0;
		w->status = status;
		ret = nsw_action(&w->line, w->i, status) == NSW_RETURN;
		break;
	default:
		if (!one_take(w, &status, r)) {
			w->failed = true;
			return false;
		}
		w->status = status;
		ret = nsw_action(&w->line, w->i, status) == NSW_RETURN;
		break;
	}
	return !ret;
}

/*
 * glibc's loop over the line, from module w->i on.  A module that does
 * not load is UNAVAIL with no call, as glibc's __nss_next2 finds it.
 * False: module w->i is to be called and the walk is on the loop, which
 * calls none (the worker goes on from there).
 */
static bool
line_walk(struct walk *w)
{
	struct nsspool_result r;

	for (; w->i < w->line.n; w->i++) {
		if (w->ids[w->i] < 0 || w->mods.missing(w->mods.arg, w->ids[w->i]))
			r = (struct nsspool_result){ .status = NSW_UNAVAIL,
			    .missing = true, .ttl = -1 };
		else if (!w->on_worker)
			return false;
		else {
			w->calls++;
			if (w->mods.ask(w->wk, w->ids[w->i], w->op, 0, w->call,
			    w->call_len, &r) < 0) {
				/* Timed out or cancelled: done() says so, with no reply. */
				w->failed = true;
				return true;
			}
		}
		if (!take(w, &r))
			break;
	}
	return true;
}

/*
 * The walk from where it is: each line to its end (for a netgroup, each
 * group's), then glibc's reply.  False: a module must be called, which
 * only a worker does.
 */
static bool
walk_on(struct walk *w)
{
	do {
		if (!line_walk(w))
			return false;
	} while (w->op == NSSPOOL_NETGR && !w->failed && netgr_next(w));
	w->reply_len = build(w, &w->reply, &w->found);
	return true;
}

/* --- the job: one trip to a worker and back --------------------------- */

static void
walk_run(void *arg, struct nsspool_worker *wk)
{
	struct walk *w = arg;

	w->wk = wk;
	w->on_worker = true;
	walk_on(w);
}

static void
walk_done(void *arg, int status)
{
	finish(arg, status);
}

static void
walk_release(void *arg)
{
	struct walk *w = arg;

	if (w->db)
		w->db->st.module_calls += w->calls;
	walk_free(w);
}

static const struct nsspool_job_fns walk_job = { walk_run, walk_done, walk_release };

/*
 * On the loop as far as the first module to call, then one job for the
 * rest; a walk that calls no module (none on its line loads) ends here.
 */
static void
walk_go(struct walk *w)
{
	int r;

	if (walk_on(w)) {
		finish(w, 0);
		walk_free(w);
		return;
	}
	if ((r = w->mods.job(w->mods.arg, w->ids[w->i], &walk_job, w)) < 0) {
		finish(w, r);
		walk_free(w);
		return;
	}
	w->db->st.pool_jobs++;
}

/* A walk of (type, key), nobody waiting yet.  NULL: no memory, bad key. */
static struct walk *
walk_new(struct nscddb *ndb, struct db *db, int32_t type, const void *key,
    size_t key_len, int *ret_err)
{
	struct walk	*w = calloc(1, sizeof(*w));
	unsigned	 i;

	*ret_err = -ENOMEM;
	if (w == NULL)
		return NULL;
	w->ndb = ndb;
	w->db = db;
	w->mods = ndb->mods;
	w->type = type;
	w->op = op_of(type);
	memcpy(w->key, key, key_len);
	w->key_len = key_len;
	w->gen = db->gen;
	w->status = NSW_UNAVAIL;
	w->all_tryagain = true;
	if (call_key(w) < 0) {
		*ret_err = -EINVAL;
		free(w);
		return NULL;
	}
	if (type == NSCD_INITGROUPS && db->has_initgr) {
		w->line = db->initgr;
		w->initgr_entry = true;
	} else
		w->line = db->line;
	if (type == NSCD_INITGROUPS && w->line.n == 0)
		nsw_default_db("group", &w->line);	/* glibc's "files" */
	/* Names are the loop's to add to the pool's table; the worker has ids. */
	for (i = 0; i < w->line.n; i++) {
		w->ids[i] = ndb->mods.id(ndb->mods.arg, w->line.src[i].name);
		w->uncached[i] = nscddb_uncached(ndb, w->line.src[i].name);
	}
	if (w->op == NSSPOOL_NETGR) {
		const char *g = type == NSCD_INNETGR ? w->want.netgroup :
		    (const char *)w->key;

		if ((w->group = strdup(g)) == NULL) {
			free(w);
			return NULL;
		}
		w->call_len = strlen(g) + 1;
		memcpy(w->call, g, w->call_len);
	}
	w->hnext = ndb->table[bucket(type, key, key_len)];
	ndb->table[bucket(type, key, key_len)] = w;
	ndb->inflight++;
	*ret_err = 0;
	return w;
}

bool
nscdwalk_join(struct nscddb *ndb, int32_t type, const void *key, size_t len,
    struct waiter *wt)
{
	struct walk *w = walk_find(ndb, type, key, len);

	if (w == NULL)
		return false;
	if (wt) {
		wt->next = w->waiters;
		w->waiters = wt;
	}
	return true;
}

int
nscdwalk_start(struct nscddb *ndb, struct db *db, int32_t type, const void *key,
    size_t len, struct waiter *wt)
{
	struct walk	*w;
	int		 r;

	if ((w = walk_new(ndb, db, type, key, len, &r)) == NULL)
		return r;
	if (wt) {
		wt->next = NULL;
		w->waiters = wt;
	}
	walk_go(w);
	return 0;
}

void
nscdwalk_cancel_all(struct nscddb *ndb)
{
	unsigned i;

	for (i = 0; i < NSCDWALK_BUCKETS; i++)
		while (ndb->table[i]) {
			struct walk *w = ndb->table[i];

			/* Its job is out (no walk waits otherwise): the pool frees it. */
			finish(w, -ECANCELED);
			w->db = NULL;
		}
}
