/* SPDX-License-Identifier: MIT */
/* daemon/nscddb.c - nscd's other databases: passwd, group, initgroups, services, netgroup. */

/*
 * glibc asks nscd first and, when nscd answers, never asks NSS: so each
 * request is answered by the walk glibc itself would make of the host's
 * own line (nss/getXXbyYY_r.c, grp/initgroups.c, inet/getnetgrent_r.c),
 * module by module on the worker pool, with glibc's statuses, actions,
 * [SUCCESS=merge] for group, and the skipping of modules that lack the
 * function.  The answer is glibc's reply bytes, kept in the database's
 * mapped file (glibc's format, nscdmap.c), which is this cache's only
 * store: a client that maps it reads hits with no system call, and a
 * client that asks the socket (musl, a process before its first map) is
 * answered from the same record.  Walks of the same (type, key) share one.
 *
 * What is never kept: an answer a module in nscd_uncached_modules took
 * part in (nss-systemd's DynamicUser users come and go with their units),
 * a TRYAGAIN (refused: glibc walks NSS itself), and an answer begun before
 * its database was invalidated (the generation moved).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "nscd.h"
#include "nscddb.h"
#include "nscdent.h"
#include "nscdmap.h"
#include "nssent.h"
#include "proto.h"

#define BUCKETS		256
#define MAP_MODULE	211	/* buckets of a database's map */

struct waiter {
	struct waiter	*next;
	nscddb_done_fn	*fn;
	void		*arg;
};

struct db {
	struct nscddb	*ndb;
	int		 id;		/* CONFIG_DB_* */
	struct nsw_line	 line;
	struct nsw_line	 initgr;	/* group's: the initgroups line */
	bool		 has_initgr;	/* glibc walks it, not the group line */
	bool		 names_sss;
	bool		 listed;	/* in nscd_databases */
	bool		 forced;	/* nscd_databases was given: sss too */
	uint32_t	 ttl, neg_ttl;
	uint64_t	 gen;		/* invalidations, to drop walks begun before */
	struct nscdmap	*map;
	char		*map_path;
	struct nscddb_stats st;
};

/* A list of netgroup names (known, needed) for one expansion. */
struct names {
	char		**v;
	size_t		 n, cap;
};

struct walk {
	struct walk	*hnext;
	struct nscddb	*ndb;
	struct db	*db;
	int32_t		 type;
	int		 op;		/* NSSPOOL_* */
	uint8_t		 key[NSCD_KEY_MAX];
	size_t		 key_len;
	uint8_t		 call[NSSPOOL_KEY_MAX];	/* a module call's key */
	size_t		 call_len;
	uint64_t	 gen;
	struct nsw_line	 line;
	bool		 initgr_entry;
	unsigned	 i;
	int		 status;	/* enum nsw_status, the last module's */
	bool		 uncacheable;
	bool		 failed;	/* refuse: too large, no memory, busy */
	bool		 in_call;
	struct waiter	*waiters;
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

struct nscddb {
	struct modsrc_modules	 mods;
	cache_clock_fn		*now;
	void			*now_arg;
	struct db		 dbs[CONFIG_DB_COUNT];
	struct walk		*table[BUCKETS];
	char			*uncached;	/* nscd_uncached_modules, "" for none */
	unsigned		 reloads;
	unsigned		 inflight;
	bool			 lines_loaded;	/* once: later loads are changes */
};

static const char *const files[CONFIG_DB_COUNT] = {
	NULL, "/etc/passwd", "/etc/group", "/etc/services", "/etc/netgroup",
};

const char *
nscddb_file(int db)
{
	return db > 0 && db < CONFIG_DB_COUNT ? files[db] : NULL;
}

int
nscddb_db_of(int32_t type)
{
	switch (type) {
	case NSCD_GETPWBYNAME:
	case NSCD_GETPWBYUID:
		return CONFIG_DB_PASSWD;
	case NSCD_GETGRBYNAME:
	case NSCD_GETGRBYGID:
	case NSCD_INITGROUPS:
		return CONFIG_DB_GROUP;
	case NSCD_GETSERVBYNAME:
	case NSCD_GETSERVBYPORT:
		return CONFIG_DB_SERVICES;
	case NSCD_GETNETGRENT:
	case NSCD_INNETGR:
		return CONFIG_DB_NETGROUP;
	default:
		return -1;
	}
}

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

const char *
nscddb_refused(const struct nscddb *ndb, int db)
{
	const struct db *d;

	if (db < 0 || db >= CONFIG_DB_COUNT)
		return "unknown";
	d = &ndb->dbs[db];
	if (!d->listed)
		return "not in nscd_databases";
	if (db != CONFIG_DB_HOSTS && d->names_sss && !d->forced)
		return "sss: sssd's own memory cache answers it";
	return NULL;
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
	return (nscd_hash(key, len) ^ (uint32_t)type * 2654435761u) % BUCKETS;
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

static int64_t
now_ms(const struct nscddb *ndb)
{
	return ndb->now(ndb->now_arg);
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

static void
finish(struct walk *w)
{
	struct nscddb	*ndb = w->ndb;
	struct db	*db = w->db;
	struct waiter	*wt, *next;
	uint8_t		*reply;
	uint32_t	 ttl;
	int64_t		 now = now_ms(ndb);
	size_t		 len;
	bool		 found;
	int		 r;

	unlink_walk(w);
	ndb->inflight--;
	len = build(w, &reply, &found);
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
		next = wt->next;
		wt->fn(wt->arg, reply, len);
		free(wt);
	}
	free(reply);
	walk_free(w);
}

/* --- the walk ----------------------------------------------------------- */

static void step(struct walk *w);

/* Whether module (by name) is one whose answers are never kept. */
static bool
uncached_module(const struct nscddb *ndb, const char *name)
{
	const char	*p = ndb->uncached;
	size_t		 n = strlen(name);

	while (*p) {
		size_t len;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		len = strcspn(p, " \t,");
		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p += len;
	}
	return false;
}

/* The next module (i + 1), or the end of the walk. */
static void
advance(struct walk *w)
{
	w->i++;
	step(w);
}

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

/* The walk of one netgroup ended: take it, and go on to the next needed. */
static void
netgr_next(struct walk *w)
{
	bool top = w->known.n == 0;

	if (!names_push(&w->known, w->group)) {
		w->failed = true;
		finish(w);
		return;
	}
	if (w->status == NSW_SUCCESS) {
		if (top)
			w->top_found = true;
		if (!netgr_take(w)) {
			w->failed = true;
			finish(w);
			return;
		}
	}
	free(w->entries);
	w->entries = NULL;
	w->entries_len = 0;
	if (w->matched || w->needed.n == 0 || (top && !w->top_found)) {
		finish(w);
		return;
	}
	if (++w->groups_walked >= NSCDDB_NETGROUPS_MAX) {
		w->failed = true;
		finish(w);
		return;
	}
	/* glibc's needed list is a stack: the latest name first. */
	free(w->group);
	w->group = w->needed.v[--w->needed.n];
	w->call_len = strlen(w->group) + 1;
	if (w->call_len > sizeof(w->call)) {
		w->failed = true;
		finish(w);
		return;
	}
	memcpy(w->call, w->group, w->call_len);
	w->i = 0;
	w->status = NSW_UNAVAIL;
	step(w);
}

/* The end of the line (or a return): what happens next is the kind's. */
static void
line_done(struct walk *w)
{
	if (w->op == NSSPOOL_NETGR)
		netgr_next(w);
	else
		finish(w);
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

static void
on_result(void *arg, const struct nsspool_result *r)
{
	struct walk	*w = arg;
	int		 status = r->status;
	bool		 ret;

	w->in_call = false;
	if (status < 0 || r->timed_out) {
		/* Cancelled (the daemon stops), or too slow: refuse. */
		w->failed = true;
		finish(w);
		return;
	}
	if (r->missing && w->op != NSSPOOL_INITGR) {
		if (pass_over(w))
			advance(w);
		else
			line_done(w);
		return;
	}
	/*
	 * An uncached module's say, found or not, is never kept: a
	 * DynamicUser's name and uid come and go with its unit.  For
	 * initgroups, only the groups it adds count: the group line walks
	 * every module, and nss-systemd would otherwise keep every user's
	 * groups out of the cache.
	 */
	if (uncached_module(w->ndb, w->line.src[w->i].name) &&
	    (w->op != NSSPOOL_INITGR || (r->body && r->len > 4)))
		w->uncacheable = true;
	/* ERANGE past the bound: glibc's own buffer may do better. */
	if (status == NSW_TRYAGAIN && r->err == ERANGE) {
		w->failed = true;
		finish(w);
		return;
	}
	switch (w->op) {
	case NSSPOOL_INITGR:
		initgr_take(w, r);
		if (w->failed) {
			finish(w);
			return;
		}
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
			finish(w);
			return;
		}
		w->entries_len = w->entries ? r->len : 0;
		w->status = status;
		ret = nsw_action(&w->line, w->i, status) == NSW_RETURN;
		break;
	default:
		if (!one_take(w, &status, r)) {
			w->failed = true;
			finish(w);
			return;
		}
		w->status = status;
		ret = nsw_action(&w->line, w->i, status) == NSW_RETURN;
		break;
	}
	if (ret || w->i + 1 >= w->line.n)
		line_done(w);
	else
		advance(w);
}

/* Calls module i, or passes over it (it does not load), or ends the line. */
static void
step(struct walk *w)
{
	struct nsspool_result	 miss;
	struct nscddb		*ndb = w->ndb;
	int			 id, r;

	if (w->i >= w->line.n) {
		line_done(w);
		return;
	}
	id = ndb->mods.id(ndb->mods.arg, w->line.src[w->i].name);
	if (id < 0 || ndb->mods.missing(ndb->mods.arg, id)) {
		memset(&miss, 0, sizeof(miss));
		miss.status = NSW_UNAVAIL;
		miss.missing = true;
		miss.ttl = -1;
		on_result(w, &miss);
		return;
	}
	w->db->st.module_calls++;
	w->in_call = true;
	r = ndb->mods.call(ndb->mods.arg, id, w->op, 0, w->call, w->call_len,
	    on_result, w);
	if (r < 0) {
		w->in_call = false;
		w->failed = true;
		finish(w);
	}
}

/* A walk of (type, key), nobody waiting yet.  NULL: no memory, bad key. */
static struct walk *
walk_new(struct nscddb *ndb, struct db *db, int32_t type, const void *key,
    size_t key_len, int *ret_err)
{
	struct walk *w = calloc(1, sizeof(*w));

	*ret_err = -ENOMEM;
	if (w == NULL)
		return NULL;
	w->ndb = ndb;
	w->db = db;
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

int
nscddb_ask(struct nscddb *ndb, int32_t type, const void *key, size_t key_len,
    nscddb_done_fn *fn, void *arg)
{
	const uint8_t	*rep;
	struct waiter	*wt;
	struct walk	*w;
	struct db	*db;
	size_t		 len;
	int		 dbi = nscddb_db_of(type), r;

	if (dbi < 0)
		return -EINVAL;
	db = &ndb->dbs[dbi];
	db->st.requests++;
	if (nscddb_refused(ndb, dbi))
		return -EPERM;
	if (key_len == 0 || key_len > NSCD_KEY_MAX)
		return -EINVAL;
	if (db->map && nscdmap_get(db->map, type, key, key_len, now_ms(ndb), &rep,
	    &len, NULL) == 0) {
		db->st.hits++;
		fn(arg, rep, len);
		return 0;
	}
	if ((wt = malloc(sizeof(*wt))) == NULL)
		return -ENOMEM;
	wt->fn = fn;
	wt->arg = arg;
	if ((w = walk_find(ndb, type, key, key_len)) != NULL) {
		db->st.coalesced++;
		wt->next = w->waiters;
		w->waiters = wt;
		return 0;
	}
	if ((w = walk_new(ndb, db, type, key, key_len, &r)) == NULL) {
		free(wt);
		return r;
	}
	db->st.misses++;
	wt->next = NULL;
	w->waiters = wt;
	step(w);
	return 0;
}

/* The sweeper's refresh: the walk again, nobody waiting. */
static void
refresh(void *arg, int32_t type, const void *key, size_t len)
{
	struct db	*db = arg;
	struct nscddb	*ndb = db->ndb;
	struct walk	*w;
	int		 r;

	if (walk_find(ndb, type, key, len) != NULL)
		return;
	if ((w = walk_new(ndb, db, type, key, len, &r)) == NULL)
		return;
	db->st.refreshes++;
	step(w);
}

/* --- the databases ------------------------------------------------------ */

struct nscddb *
nscddb_new(const struct modsrc_modules *mods, cache_clock_fn *now, void *now_arg,
    const char *dir, size_t map_max)
{
	struct nscddb	*ndb = calloc(1, sizeof(*ndb));
	int		 i;

	if (ndb == NULL)
		return NULL;
	ndb->mods = *mods;
	ndb->now = now;
	ndb->now_arg = now_arg;
	if ((ndb->uncached = strdup("systemd")) == NULL)
		goto fail;
	for (i = 0; i < CONFIG_DB_COUNT; i++) {
		struct db *db = &ndb->dbs[i];

		db->ndb = ndb;
		db->id = i;
		db->listed = true;
		nsw_default_db(config_db_names[i], &db->line);
		if (i == CONFIG_DB_HOSTS || dir == NULL)
			continue;
		if (asprintf(&db->map_path, "%s/nscd-%s", dir, config_db_names[i]) < 0) {
			db->map_path = NULL;
			goto fail;
		}
		if ((db->map = nscdmap_open(db->map_path, MAP_MODULE, map_max)) == NULL) {
			log_error("nscd: cannot create the %s database %s: %s",
			    config_db_names[i], db->map_path, strerror(errno));
			goto fail;
		}
		nscdmap_set_refresh(db->map, refresh, db, 5);
	}
	return ndb;
fail:
	nscddb_free(ndb);
	return NULL;
}

void
nscddb_free(struct nscddb *ndb)
{
	unsigned	i;
	int		d;

	if (ndb == NULL)
		return;
	/*
	 * Walks waiting on a module are cancelled by the pool (its callbacks
	 * come with -ECANCELED); any left here are refused now.
	 */
	for (i = 0; i < BUCKETS; i++)
		while (ndb->table[i]) {
			struct walk *w = ndb->table[i];

			w->failed = true;
			finish(w);
		}
	for (d = 0; d < CONFIG_DB_COUNT; d++) {
		nscdmap_close(ndb->dbs[d].map);
		free(ndb->dbs[d].map_path);
	}
	free(ndb->uncached);
	free(ndb);
}

void
nscddb_configure(struct nscddb *ndb, const struct config *c)
{
	char	*u = strdup(c->nscd_uncached_modules);
	int	 i;

	if (u) {
		free(ndb->uncached);
		ndb->uncached = u;
	}
	ndb->reloads = c->nscd_reloads;
	for (i = 0; i < CONFIG_DB_COUNT; i++) {
		struct db	*db = &ndb->dbs[i];
		bool		 was = nscddb_refused(ndb, i) == NULL;

		db->listed = (c->nscd_databases >> i) & 1;
		db->forced = c->nscd_databases_given;
		db->ttl = c->nscd_ttl[i][0];
		db->neg_ttl = c->nscd_ttl[i][1];
		if (db->map)
			nscdmap_set_refresh(db->map, refresh, db, ndb->reloads);
		if (was && nscddb_refused(ndb, i) != NULL)
			nscddb_invalidate(ndb, i, ndb->lines_loaded ?
			    "no longer answered" : NULL);
	}
}

static bool
line_names(const struct nsw_line *l, const char *name)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->src[i].name, name) == 0)
			return true;
	return false;
}

int
nscddb_load_lines(struct nscddb *ndb, const char *path)
{
	struct nsw_line	 lines[CONFIG_DB_COUNT], initgr;
	bool		 found, has_initgr = false;
	FILE		*f;
	int		 i, r = 0;

	for (i = 1; i < CONFIG_DB_COUNT && r == 0; i++) {
		if ((f = fopen(path, "re")) == NULL) {
			if (errno != ENOENT && errno != EACCES)
				return -errno;
			nsw_default_db(config_db_names[i], &lines[i]);
			continue;
		}
		r = nsw_parse_file_db(f, config_db_names[i], &lines[i], &found);
		if (r == 0 && i == CONFIG_DB_GROUP) {
			rewind(f);
			r = nsw_parse_file_db(f, "initgroups", &initgr, &has_initgr);
		}
		fclose(f);
	}
	if (r < 0)
		return r;
	for (i = 1; i < CONFIG_DB_COUNT; i++) {
		struct db	*db = &ndb->dbs[i];
		char		 text[1024];
		bool		 was = nscddb_refused(ndb, i) == NULL, same;

		same = nsw_equal(&db->line, &lines[i]) && (i != CONFIG_DB_GROUP ||
		    (db->has_initgr == has_initgr &&
		    (!has_initgr || nsw_equal(&db->initgr, &initgr))));
		db->line = lines[i];
		if (i == CONFIG_DB_GROUP) {
			db->initgr = initgr;
			db->has_initgr = has_initgr;
		}
		/* The namecache module is never walked inside the daemon. */
		nsw_drop(&db->line, "namecache");
		db->names_sss = line_names(&db->line, "sss") ||
		    (i == CONFIG_DB_GROUP && has_initgr && line_names(&initgr, "sss"));
		nsw_format(&db->line, text, sizeof(text));
		if (!same || !ndb->lines_loaded) {
			log_info("nsswitch: %s: %s%s", config_db_names[i], text,
			    nscddb_refused(ndb, i) ? " (refused to glibc's nscd "
			    "client)" : "");
			if (db->names_sss && !db->forced)
				log_info("nscd: %s names sss: refused, so that glibc "
				    "asks sssd, whose own cache answers it "
				    "(nscd_databases overrides)", config_db_names[i]);
			/* At start the maps were emptied as they were opened. */
			nscddb_invalidate(ndb, i, ndb->lines_loaded ?
			    "its line changed" : NULL);
		} else if (was && nscddb_refused(ndb, i))
			nscddb_invalidate(ndb, i, "no longer answered");
	}
	ndb->lines_loaded = true;
	return 0;
}

void
nscddb_line_text(const struct nscddb *ndb, int db, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (db > 0 && db < CONFIG_DB_COUNT)
		nsw_format(&ndb->dbs[db].line, buf, len);
}

struct nscdmap *
nscddb_map(struct nscddb *ndb, int db)
{
	if (db <= 0 || db >= CONFIG_DB_COUNT || nscddb_refused(ndb, db))
		return NULL;
	return ndb->dbs[db].map;
}

size_t
nscddb_invalidate(struct nscddb *ndb, int dbi, const char *why)
{
	struct nscdmap_stats	 ms;
	struct db		*db;
	size_t			 n = 0;

	if (dbi <= 0 || dbi >= CONFIG_DB_COUNT)
		return 0;
	db = &ndb->dbs[dbi];
	db->gen++;
	db->st.invalidations++;
	if (db->map) {
		nscdmap_get_stats(db->map, &ms);
		n = ms.entries;
		nscdmap_reset(db->map);
	}
	if (why)
		log_info("nscd: %s answers dropped (%zu): %s", config_db_names[dbi],
		    n, why);
	return n;
}

void
nscddb_tick(struct nscddb *ndb, int64_t now)
{
	int i;

	for (i = 1; i < CONFIG_DB_COUNT; i++)
		if (ndb->dbs[i].map)
			nscdmap_tick(ndb->dbs[i].map, now);
}

void
nscddb_get_stats(const struct nscddb *ndb, int db, struct nscddb_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (db > 0 && db < CONFIG_DB_COUNT)
		*ret = ndb->dbs[db].st;
}

void
nscddb_reset_stats(struct nscddb *ndb)
{
	int i;

	for (i = 0; i < CONFIG_DB_COUNT; i++)
		memset(&ndb->dbs[i].st, 0, sizeof(ndb->dbs[i].st));
}

void
nscddb_status(struct nscddb *ndb, struct proto_kv_wr *kw)
{
	char	key[64], text[1024];
	int	i;

	for (i = 1; i < CONFIG_DB_COUNT; i++) {
		struct db		*db = &ndb->dbs[i];
		const char		*why = nscddb_refused(ndb, i);
		struct nscdmap_stats	 ms;

		snprintf(key, sizeof(key), "nscd_%s", config_db_names[i]);
		proto_kv_str(kw, key, why ? "refused" : "answered");
		snprintf(key, sizeof(key), "nscd_%s_refused_why", config_db_names[i]);
		proto_kv_str(kw, key, why ? why : "");
		nsw_format(&db->line, text, sizeof(text));
		snprintf(key, sizeof(key), "nscd_%s_line", config_db_names[i]);
		proto_kv_str(kw, key, text);
		if (i == CONFIG_DB_GROUP) {
			if (db->has_initgr)
				nsw_format(&db->initgr, text, sizeof(text));
			proto_kv_str(kw, "nscd_initgroups_line",
			    db->has_initgr ? text : "(the group line)");
		}
		if (db->map == NULL)
			continue;
		nscdmap_get_stats(db->map, &ms);
		snprintf(key, sizeof(key), "nscd_%s_database", config_db_names[i]);
		proto_kv_str(kw, key, db->map_path);
		snprintf(key, sizeof(key), "nscd_%s_entries", config_db_names[i]);
		proto_kv_u64(kw, key, ms.entries);
		snprintf(key, sizeof(key), "nscd_%s_database_bytes", config_db_names[i]);
		proto_kv_u64(kw, key, ms.size);
		snprintf(key, sizeof(key), "nscd_%s_ttl", config_db_names[i]);
		proto_kv_u64(kw, key, db->ttl);
		snprintf(key, sizeof(key), "nscd_%s_negative_ttl", config_db_names[i]);
		proto_kv_u64(kw, key, db->neg_ttl);
	}
	proto_kv_str(kw, "nscd_uncached_modules", ndb->uncached);
}

void
nscddb_statistics(struct nscddb *ndb, struct proto_kv_wr *kw)
{
	static const char *const names[] = {
		"requests", "hits", "misses", "coalesced", "refreshes",
		"module_calls", "found", "notfound", "failed", "uncached",
		"invalidations",
	};
	char	key[64];
	int	i;
	size_t	k;

	for (i = 1; i < CONFIG_DB_COUNT; i++) {
		const struct nscddb_stats *st = &ndb->dbs[i].st;
		const uint64_t v[] = { st->requests, st->hits, st->misses,
		    st->coalesced, st->refreshes, st->module_calls, st->found,
		    st->notfound, st->failed, st->uncached, st->invalidations };
		struct nscdmap_stats ms;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			snprintf(key, sizeof(key), "nscd_%s_%s", config_db_names[i],
			    names[k]);
			proto_kv_u64(kw, key, v[k]);
		}
		if (ndb->dbs[i].map == NULL)
			continue;
		nscdmap_get_stats(ndb->dbs[i].map, &ms);
		snprintf(key, sizeof(key), "nscd_%s_entries", config_db_names[i]);
		proto_kv_u64(kw, key, ms.entries);
		snprintf(key, sizeof(key), "nscd_%s_swept", config_db_names[i]);
		proto_kv_u64(kw, key, ms.swept);
	}
	proto_kv_u64(kw, "nscd_db_walks_inflight", ndb->inflight);
}

/* --- show-cache ------------------------------------------------------- */

struct show {
	int		 db;
	nscddb_entry_fn	*fn;
	void		*arg;
};

static const char *
type_word(int32_t type)
{
	switch (type) {
	case NSCD_GETPWBYNAME:		return "name";
	case NSCD_GETPWBYUID:		return "uid";
	case NSCD_GETGRBYNAME:		return "name";
	case NSCD_GETGRBYGID:		return "gid";
	case NSCD_INITGROUPS:		return "initgroups";
	case NSCD_GETSERVBYNAME:	return "name";
	case NSCD_GETSERVBYPORT:	return "port";
	case NSCD_GETNETGRENT:		return "netgroup";
	case NSCD_INNETGR:		return "innetgr";
	default:			return "?";
	}
}

/* Printable: control bytes (INNETGR's \1, NULs between fields) as ','. */
static void
key_text(int32_t type, const uint8_t *key, size_t len, char *out, size_t cap)
{
	size_t i, o = 0;

	if (len && key[len - 1] == '\0')
		len--;
	for (i = 0; i < len && o + 1 < cap; i++) {
		if (key[i] == '\1')
			continue;
		out[o++] = key[i] < 0x20 || key[i] == 0x7f ? ',' : (char)key[i];
	}
	out[o] = '\0';
	if (type == NSCD_GETSERVBYPORT) {
		/* glibc sends the port as the int, in network order */
		unsigned long p = strtoul(out, NULL, 10);
		char	rest[NSCD_KEY_MAX];
		const char *slash = strchr(out, '/');

		snprintf(rest, sizeof(rest), "%s", slash ? slash : "");
		snprintf(out, cap, "%u%s", (unsigned)ntohs((uint16_t)p), rest);
	}
}

static void
summary(int32_t type, const uint8_t *r, size_t len, char *out, size_t cap)
{
	int32_t v[9] = { 0 };

	memcpy(v, r, len < sizeof(v) ? len : sizeof(v));
	out[0] = '\0';
	switch (type) {
	case NSCD_GETPWBYNAME:
	case NSCD_GETPWBYUID:
		if (v[1] == 1 && len > sizeof(struct nscd_pw_reply))
			snprintf(out, cap, "%.64s uid %u gid %u",
			    (const char *)r + sizeof(struct nscd_pw_reply),
			    (unsigned)v[4], (unsigned)v[5]);
		break;
	case NSCD_GETGRBYNAME:
	case NSCD_GETGRBYGID: {
		struct nscd_gr_view gv;

		if (v[1] == 1 && nscd_gr_view(r, len, &gv) == 0)
			snprintf(out, cap, "%.64s gid %u, %d members", gv.name,
			    (unsigned)gv.hdr->gid, (int)gv.hdr->mem_cnt);
		break;
	}
	case NSCD_INITGROUPS:
		if (v[1] == 1)
			snprintf(out, cap, "%d groups", (int)v[2]);
		break;
	case NSCD_GETSERVBYNAME:
	case NSCD_GETSERVBYPORT:
		if (v[1] == 1 && len > sizeof(struct nscd_serv_reply))
			snprintf(out, cap, "%.64s %u", (const char *)r +
			    sizeof(struct nscd_serv_reply), (unsigned)ntohs((uint16_t)v[5]));
		break;
	case NSCD_GETNETGRENT:
		if (v[1] == 1)
			snprintf(out, cap, "%d triples", (int)v[2]);
		break;
	case NSCD_INNETGR:
		snprintf(out, cap, "%s", v[2] ? "member" : "not a member");
		break;
	}
}

static bool
show_one(void *arg, int32_t type, const void *key, size_t key_len,
    const uint8_t *reply, size_t len, uint32_t ttl_left)
{
	struct show	*s = arg;
	char		 k[NSCD_KEY_MAX + 16], sum[160];
	int32_t		 found = 0;

	if (len >= 8)
		memcpy(&found, reply + 4, 4);
	key_text(type, key, key_len, k, sizeof(k));
	summary(type, reply, len, sum, sizeof(sum));
	if (type == NSCD_INNETGR)
		found = 1;
	return s->fn(s->arg, type, type_word(type), k, found == 1, ttl_left, sum);
}

size_t
nscddb_walk(struct nscddb *ndb, int db, size_t from, nscddb_entry_fn *fn, void *arg)
{
	struct show s = { db, fn, arg };

	if (ndb == NULL || db <= 0 || db >= CONFIG_DB_COUNT || ndb->dbs[db].map == NULL)
		return 0;
	return nscdmap_walk(ndb->dbs[db].map, from, show_one, &s, now_ms(ndb));
}
