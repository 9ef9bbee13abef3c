/* SPDX-License-Identifier: MIT */
/* daemon/nscd/nscddb.c - nscd's other databases: passwd, group, initgroups, services, netgroup. */

/*
 * glibc asks nscd first and, when nscd answers, never asks NSS: so each
 * request is answered by the walk glibc itself would make of the host's
 * own line (nscdwalk.c), every module of it on one worker, in one job of
 * the pool.  The answer is glibc's reply bytes, kept in the database's
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
#include <sys/stat.h>

#include "log.h"
#include "nscd.h"
#include "nscddb.h"
#include "nscdent.h"
#include "nscdmap.h"
#include "nscdwalk.h"
#include "proto.h"
#include "registry.h"

#define MAP_MODULE	211	/* buckets of a database's map */

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

int
nscddb_ask(struct nscddb *ndb, int32_t type, const void *key, size_t key_len,
    nscddb_done_fn *fn, void *arg)
{
	const uint8_t	*rep;
	struct waiter	*wt;
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
	if (db->map && nscdmap_get(db->map, type, key, key_len, nscddb_now(ndb), &rep,
	    &len, NULL) == 0) {
		db->st.hits++;
		fn(arg, rep, len, &(struct nscddb_how){ PROTO_CACHE_HIT, NULL });
		return 0;
	}
	if ((wt = malloc(sizeof(*wt))) == NULL)
		return -ENOMEM;
	wt->fn = fn;
	wt->arg = arg;
	wt->joined = true;
	if (nscdwalk_join(ndb, type, key, key_len, wt)) {
		db->st.coalesced++;
		return 0;
	}
	db->st.misses++;
	wt->joined = false;
	if ((r = nscdwalk_start(ndb, db, type, key, key_len, wt)) < 0) {
		db->st.misses--;
		free(wt);
		return r;
	}
	return 0;
}

bool
nscddb_uncached(const struct nscddb *ndb, const char *module)
{
	const char	*p = ndb->uncached;
	size_t		 n = strlen(module);

	while (*p) {
		size_t len;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		len = strcspn(p, " \t,");
		if (len == n && memcmp(p, module, n) == 0)
			return true;
		p += len;
	}
	return false;
}

/* The sweeper's refresh: the walk again, nobody waiting. */
static void
refresh(void *arg, int32_t type, const void *key, size_t len)
{
	struct db *db = arg;

	if (!nscdwalk_join(db->ndb, type, key, len, NULL) &&
	    nscdwalk_start(db->ndb, db, type, key, len, NULL) == 0)
		db->st.refreshes++;
}

/* --- the databases ------------------------------------------------------ */

struct nscddb *
nscddb_new(const struct nscddb_modules *mods, cache_clock_fn *now, void *now_arg,
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
	nscddb_free(ndb, false);
	return NULL;
}

void
nscddb_free(struct nscddb *ndb, bool live)
{
	int d;

	if (ndb == NULL)
		return;
	/*
	 * Walks out on a worker are cancelled by the pool as it goes (done()
	 * with -ECANCELED); any left here are refused now, and their jobs
	 * freed by the pool.
	 */
	nscdwalk_cancel_all(ndb);
	for (d = 0; d < CONFIG_DB_COUNT; d++) {
		nscdmap_close(ndb->dbs[d].map, live);
		free(ndb->dbs[d].map_path);
	}
	free(ndb->uncached);
	free(ndb);
}

/* At start: the answers a daemon before left in db's map go, and why. */
static void
drop_left(struct nscddb *ndb, int dbi, const char *why, const char *what)
{
	struct nscdmap *m = ndb->dbs[dbi].map;

	if (m == NULL || nscdmap_left_stamp(m) == 0)
		return;
	nscdmap_drop_left(m);
	log_info("nscd: the %s answers a daemon before left are dropped: %s%s",
	    config_db_names[dbi], why, what);
}

/*
 * At start, before the first request: the answers a daemon before left
 * in db's map (glibc's readers reading them on) are taken over as they
 * lie when the database is answered and no file they rest on (the
 * nsswitch.conf read, the database's file) changed after that daemon
 * last stamped the map (2 s: a change it had yet to see), as glibc's
 * nscd does with its persistent databases.  Else they go, as they do
 * when there is nothing left.
 */
static void
take_over_left(struct nscddb *ndb, int dbi, const char *nsswitch)
{
	struct db	*db = &ndb->dbs[dbi];
	const char	*rest[2] = { nsswitch, nscddb_file(dbi) };
	struct stat	 sb;
	uint64_t	 at;
	int		 i, n;

	if (db->map == NULL || (at = nscdmap_left_stamp(db->map)) == 0) {
		nscddb_invalidate(ndb, dbi, NULL);
		return;
	}
	if (nscddb_refused(ndb, dbi)) {
		drop_left(ndb, dbi, nscddb_refused(ndb, dbi), "");
		nscddb_invalidate(ndb, dbi, NULL);
		return;
	}
	for (i = 0; i < 2; i++)
		if (rest[i] && rest[i][0] && stat(rest[i], &sb) == 0 &&
		    (uint64_t)sb.st_mtim.tv_sec + 2 >= at) {
			drop_left(ndb, dbi, rest[i], " changed");
			nscddb_invalidate(ndb, dbi, NULL);
			return;
		}
	if ((n = nscdmap_take_over(db->map, nscddb_now(ndb))) >= 0)
		log_info("nscd: took over %d %s answers a daemon before left", n,
		    config_db_names[dbi]);
	else
		log_warning("nscd: the %s database a daemon before left is "
		    "damaged (%s): emptied", config_db_names[dbi], strerror(-n));
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
		if (was && nscddb_refused(ndb, i) != NULL) {
			if (!ndb->lines_loaded)
				drop_left(ndb, i, nscddb_refused(ndb, i), "");
			nscddb_invalidate(ndb, i, ndb->lines_loaded ?
			    "no longer answered" : NULL);
		}
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
	if (r < 0) {
		for (i = 1; i < CONFIG_DB_COUNT && !ndb->lines_loaded; i++)
			drop_left(ndb, i, path, " unread");
		return r;
	}
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
			if (ndb->lines_loaded)
				nscddb_invalidate(ndb, i, "its line changed");
			else
				take_over_left(ndb, i, path);
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
	/* (no reason: the start's own emptying, which is not counted) */
	if (why)
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
nscddb_report(void *arg, struct registry_wr *wr)
{
	const struct nscddb *ndb = arg;
	static const char *const names[] = {
		"requests", "hits", "misses", "coalesced", "refreshes",
		"module_calls", "pool_jobs", "found", "notfound", "failed",
		"uncached", "invalidations",
	};
	char	key[64];
	int	i;
	size_t	k;

	for (i = 1; i < CONFIG_DB_COUNT; i++) {
		const struct nscddb_stats *st = &ndb->dbs[i].st;
		const uint64_t v[] = { st->requests, st->hits, st->misses,
		    st->coalesced, st->refreshes, st->module_calls, st->pool_jobs,
		    st->found, st->notfound, st->failed, st->uncached,
		    st->invalidations };
		struct nscdmap_stats ms;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			snprintf(key, sizeof(key), "nscd_%s_%s", config_db_names[i],
			    names[k]);
			registry_counter(wr, key, v[k], NULL);
		}
		if (ndb->dbs[i].map == NULL)
			continue;
		nscdmap_get_stats(ndb->dbs[i].map, &ms);
		snprintf(key, sizeof(key), "nscd_%s_entries", config_db_names[i]);
		registry_gauge(wr, key, ms.entries, NULL);
		snprintf(key, sizeof(key), "nscd_%s_swept", config_db_names[i]);
		registry_counter(wr, key, ms.swept, NULL);
		snprintf(key, sizeof(key), "nscd_%s_taken_over", config_db_names[i]);
		registry_counter(wr, key, ms.taken_over, NULL);
	}
	registry_gauge(wr, "nscd_db_walks_inflight", ndb->inflight, NULL);
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
	return nscdmap_walk(ndb->dbs[db].map, from, show_one, &s, nscddb_now(ndb));
}
