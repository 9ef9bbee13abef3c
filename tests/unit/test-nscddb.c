/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nscddb.c - nscd's other databases: glibc's walks, TTLs and the maps, on a fake clock. */

/*
 * The modules are a script: each walk's job is queued, and pump() runs
 * the queue as the worker pool would: the job's walk on the "worker",
 * its module calls answered from a table of (module, op, key) -> status
 * and body, then its end on the "loop".  The clock is fakeclock.h's.  The
 * maps are real files in a temporary folder.  What is checked is the
 * walk's semantics (statuses, actions, merge, passing over missing
 * modules, initgroups' duplicate removal, nested netgroups), one trip to
 * a worker per walk, what is kept and for how long, coalescing,
 * invalidation, timeouts and the sweeper's refreshes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "fakeclock.h"
#include "nscd.h"
#include "nscddb.h"
#include "nscdent.h"
#include "nssent.h"
#include "nsswitch.h"

#ifdef NOMEM
#include "nomem.h"	/* test-nscddb-nomem: test_nomem, at the end */
#endif

/* --- the script ---------------------------------------------------------- */

#define MODS	8
static const char *const mod_names[MODS] = {
	"files", "ldap", "systemd", "gone", "extra", NULL,
};

struct dnsanswer {
	const char	*mod;
	int		 op;
	const char	*key;		/* NULL: any */
	int		 status;
	uint8_t		 body[512];
	size_t		 len;
};

/* A walk's job, as the pool holds it. */
struct job {
	const struct nsspool_job_fns	*fns;
	void				*arg;
	int				 first;
};

static struct dnsanswer	 answers[32];
static unsigned		 nanswers;
static struct job	 queue[64];
static unsigned		 nqueue;
static unsigned		 jobs;		/* queued: the loop's trips to a worker */
static struct job	 running;	/* the job pump() runs now */
static unsigned		 calls[MODS];
static unsigned		 stuck_at;	/* the call that times out (1 the first); 0 none */
static char		 dir[64];

static int
mod_id(void *arg, const char *name)
{
	int i;

	for (i = 0; mod_names[i]; i++)
		if (strcmp(mod_names[i], name) == 0)
			return i;
	return -EINVAL;
}

static bool
mod_missing(void *arg, int id)
{
	return strcmp(mod_names[id], "gone") == 0;
}

static int
mod_job(void *arg, int first, const struct nsspool_job_fns *fns, void *job_arg)
{
	assert_true(nqueue < 64);
	queue[nqueue++] = (struct job){ fns, job_arg, first };
	jobs++;
	return 0;
}

static bool
key_is(int op, const void *key, const char *want)
{
	uint32_t v;

	if (want == NULL)
		return true;
	if (op == NSSPOOL_PWUID || op == NSSPOOL_GRGID) {
		memcpy(&v, key, 4);
		return (uint32_t)strtoul(want, NULL, 10) == v;
	}
	return strcmp(key, want) == 0;
}

/*
 * A module call, on the "worker": answered from the table.  The call
 * stuck_at times out: the loop's timer ends the walk while the worker is
 * in it, and the module's return finds the job abandoned.
 */
static int
mod_ask(struct nsspool_worker *wk, int id, int op, uint8_t family, const void *key,
    size_t key_len, struct nsspool_result *ret)
{
	unsigned i, n = 0;

	for (i = 0; i < MODS; i++)
		n += calls[i];
	calls[id]++;
	if (stuck_at && n + 1 == stuck_at) {
		running.fns->done(running.arg, -ETIMEDOUT);
		running.fns = NULL;
		return -ECANCELED;
	}
	*ret = (struct nsspool_result){ .status = NSW_NOTFOUND, .ttl = -1 };
	for (i = 0; i < nanswers; i++)
		if (strcmp(answers[i].mod, mod_names[id]) == 0 &&
		    answers[i].op == op && key_is(op, key, answers[i].key)) {
			ret->status = answers[i].status;
			ret->body = answers[i].body;
			ret->len = answers[i].len;
			break;
		}
	return 0;
}

static const struct nscddb_modules mods = { mod_id, mod_missing, mod_job, mod_ask, NULL };

/* Runs every queued job, as a worker and then the loop would. */
static void
pump(void)
{
	while (nqueue > 0) {
		const struct nsspool_job_fns *fns = queue[0].fns;
		void *arg = queue[0].arg;

		running = queue[0];
		memmove(queue, queue + 1, --nqueue * sizeof(queue[0]));
		fns->run(arg, NULL);
		if (running.fns)	/* (not timed out) */
			fns->done(arg, 0);
		fns->release(arg);
	}
}

static struct dnsanswer *
script(const char *mod, int op, const char *key, int status)
{
	struct dnsanswer *a = &answers[nanswers++];

	memset(a, 0, sizeof(*a));
	a->mod = mod;
	a->op = op;
	a->key = key;
	a->status = status;
	return a;
}

static void
script_pw(const char *mod, const char *key, int op, const char *name, uint32_t uid)
{
	char		 x[] = "x", empty[] = "", root[] = "/", sh[] = "/bin/sh";
	struct passwd	 pw = { (char *)name, x, uid, 100, empty, root, sh };
	struct dnsanswer	*a = script(mod, op, key, NSW_SUCCESS);
	int		 n = nscd_build_pw(&pw, a->body, sizeof(a->body));

	assert_true(n > 0);
	a->len = (size_t)n;
}

static void
script_gr(const char *mod, const char *key, const char *name, uint32_t gid,
    char **members)
{
	char		 x[] = "x";
	struct group	 gr = { (char *)name, x, gid, members };
	struct dnsanswer	*a = script(mod, NSSPOOL_GRNAM, key, NSW_SUCCESS);
	int		 n = nscd_build_gr(&gr, a->body, sizeof(a->body));

	assert_true(n > 0);
	a->len = (size_t)n;
}

static void
script_initgr(const char *mod, const char *user, uint32_t how, const uint32_t *g,
    size_t n)
{
	struct dnsanswer *a = script(mod, NSSPOOL_INITGR, user, NSW_SUCCESS);

	memcpy(a->body, &how, 4);
	memcpy(a->body + 4, g, n * 4);
	a->len = 4 + n * 4;
}

/* Netgroup entries: "t" host user domain, or "g" name, as the worker writes them. */
static void
script_netgr(const char *mod, const char *group, const char *const *ents)
{
	struct dnsanswer	*a = script(mod, NSSPOOL_NETGR, group, NSW_SUCCESS);
	size_t		 off = 0, n;

	for (; *ents; ents++) {
		n = strlen(*ents);
		memcpy(a->body + off, *ents, n + 1);
		off += n + 1;
	}
	a->len = off;
}

/* --- the replies ------------------------------------------------------- */

struct got {
	int	 n;
	uint8_t	 reply[4096];
	size_t	 len;
	uint8_t	 cache;		/* how it came: PROTO_CACHE_* */
	char	 source[32];	/* and from which module ("": the map) */
};

static void
done(void *arg, const void *reply, size_t len, const struct nscddb_how *how)
{
	struct got *g = arg;

	g->n++;
	g->cache = how->cache;
	snprintf(g->source, sizeof(g->source), "%s", how->source ? how->source : "");
	assert_true(len <= sizeof(g->reply));
	if (len)	/* a refusal: reply NULL */
		memcpy(g->reply, reply, len);
	g->len = len;
}

static int32_t
found_of(const struct got *g)
{
	int32_t f;

	assert_true(g->len >= 8);
	memcpy(&f, g->reply + 4, 4);
	return f;
}

static struct nscddb *
setup_db(const char *nsswitch, const char *uncached)
{
	struct config	*c = config_new();
	struct nscddb	*ndb;
	char		 path[128], *err = NULL;
	FILE		*f;

	snprintf(dir, sizeof(dir), "/tmp/nc-unit-nscddb-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nsswitch.conf", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(nsswitch, f);
	fclose(f);
	assert_non_null(c);
	if (uncached)
		assert_int_equal(config_set(c, "nscd_uncached_modules", uncached, &err), 0);
	ndb = nscddb_new(&mods, fakeclock_now, NULL, dir, 1u << 22);
	assert_non_null(ndb);
	nscddb_configure(ndb, c);
	assert_int_equal(nscddb_load_lines(ndb, path), 0);
	config_free(c);
	nanswers = 0;
	nqueue = 0;
	jobs = 0;
	stuck_at = 0;
	memset(calls, 0, sizeof(calls));
	return ndb;
}

static void
teardown_db(struct nscddb *ndb)
{
	char cmd[160];

	nscddb_free(ndb, false);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void
ask(struct nscddb *ndb, int32_t type, const char *key, struct got *g)
{
	memset(g, 0, sizeof(*g));
	assert_int_equal(nscddb_ask(ndb, type, key, strlen(key) + 1, done, g), 0);
}

/* --- the tests ---------------------------------------------------------- */

/* Found for nscd_passwd_ttl, not found for the negative TTL: on the clock. */
static void
test_ttls(void **state)
{
	struct nscddb	*ndb = setup_db("passwd: files ldap\n", NULL);
	struct got	 g;

	script_pw("ldap", "alice", NSSPOOL_PWNAM, "alice", 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 0);		/* a walk: files, then ldap */
	pump();
	assert_int_equal(g.n, 1);
	assert_int_equal(found_of(&g), 1);
	assert_int_equal(g.cache, PROTO_CACHE_MISS);
	assert_string_equal(g.source, "ldap");	/* whose say ended the walk */
	assert_int_equal(calls[0] + calls[1], 2);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 1);		/* a hit, answered in the call */
	assert_int_equal(g.cache, PROTO_CACHE_HIT);
	assert_string_equal(g.source, "");
	assert_int_equal(calls[0] + calls[1], 2);
	fakeclock_advance(599 * 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 1);
	fakeclock_advance(2 * 1000);		/* past 600 s */
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 0);
	pump();
	assert_int_equal(calls[0] + calls[1], 4);
	/* not found: 20 s */
	ask(ndb, NSCD_GETPWBYNAME, "nobody", &g);
	pump();
	assert_int_equal(found_of(&g), 0);
	assert_int_equal(g.len, 36);
	fakeclock_advance(19 * 1000);
	ask(ndb, NSCD_GETPWBYNAME, "nobody", &g);
	assert_int_equal(g.n, 1);
	fakeclock_advance(2 * 1000);
	ask(ndb, NSCD_GETPWBYNAME, "nobody", &g);
	assert_int_equal(g.n, 0);
	pump();
	teardown_db(ndb);
}

/* A module in nscd_uncached_modules: answered, never kept. */
static void
test_uncached(void **state)
{
	struct nscddb		*ndb = setup_db("passwd: files systemd\n", "systemd");
	struct nscddb_stats	 st;
	struct got		 g;
	int			 i;

	script_pw("systemd", "61234", NSSPOOL_PWUID, "dyn", 61234);
	script_pw("files", "0", NSSPOOL_PWUID, "root", 0);
	for (i = 0; i < 3; i++) {
		ask(ndb, NSCD_GETPWBYUID, "61234", &g);
		pump();
		assert_int_equal(g.n, 1);
		assert_int_equal(found_of(&g), 1);
	}
	assert_int_equal(calls[2], 3);
	/* not found, said by systemd: not kept either */
	ask(ndb, NSCD_GETPWBYUID, "61235", &g);
	pump();
	ask(ndb, NSCD_GETPWBYUID, "61235", &g);
	assert_int_equal(g.n, 0);
	pump();
	/* files' answer returns before systemd: kept */
	ask(ndb, NSCD_GETPWBYUID, "0", &g);
	pump();
	ask(ndb, NSCD_GETPWBYUID, "0", &g);
	assert_int_equal(g.n, 1);
	nscddb_get_stats(ndb, CONFIG_DB_PASSWD, &st);
	assert_int_equal(st.uncached, 5);
	teardown_db(ndb);
}

/* [SUCCESS=merge]: glibc's __merge_grp for group, EINVAL (refused) for passwd. */
static void
test_merge(void **state)
{
	struct nscddb		*ndb = setup_db("passwd: files [SUCCESS=merge] ldap\n"
				    "group: files [SUCCESS=merge] ldap\n", NULL);
	char			 a[] = "a", b[] = "b", b2[] = "b", c[] = "c";
	char			*m1[] = { a, b, NULL }, *m2[] = { b2, c, NULL };
	struct nscd_gr_view	 v;
	struct got		 g;

	script_gr("files", "devs", "devs", 5, m1);
	script_gr("ldap", "devs", "devs", 5, m2);
	script_gr("files", "ops", "ops", 6, m1);
	script_gr("ldap", "ops", "ops", 7, m2);	/* another gid: the first stands */
	ask(ndb, NSCD_GETGRBYNAME, "devs", &g);
	pump();
	assert_int_equal(nscd_gr_view(g.reply, g.len, &v), 0);
	assert_int_equal(v.hdr->mem_cnt, 4);	/* a, b, b, c: no duplicate dropped */
	assert_memory_equal(v.members, "a\0b\0b\0c\0", 8);
	ask(ndb, NSCD_GETGRBYNAME, "ops", &g);
	pump();
	assert_int_equal(nscd_gr_view(g.reply, g.len, &v), 0);
	assert_int_equal(v.hdr->mem_cnt, 2);
	assert_int_equal(v.hdr->gid, 6);
	/* files alone found it, ldap did not: the saved group stands */
	script_gr("files", "solo", "solo", 9, m1);
	ask(ndb, NSCD_GETGRBYNAME, "solo", &g);
	pump();
	assert_int_equal(nscd_gr_view(g.reply, g.len, &v), 0);
	assert_int_equal(v.hdr->mem_cnt, 2);
	/* passwd: glibc has no merge there: the lookup is refused */
	script_pw("files", "alice", NSSPOOL_PWNAM, "alice", 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	pump();
	assert_int_equal(g.n, 1);
	assert_int_equal(g.len, 0);
	teardown_db(ndb);
}

/* A module that does not load: passed over while UNAVAIL is continue. */
static void
test_missing_module(void **state)
{
	struct nscddb	*ndb = setup_db("passwd: gone ldap\n"
			    "group: files gone [UNAVAIL=return] ldap\n", NULL);
	char		*m[] = { NULL };
	struct got	 g;

	script_pw("ldap", "alice", NSSPOOL_PWNAM, "alice", 1000);
	script_gr("ldap", "devs", "devs", 5, m);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	pump();
	assert_int_equal(found_of(&g), 1);
	assert_int_equal(calls[3], 0);		/* "gone" is never called */
	/* gone's UNAVAIL=return ends the walk with files' NOTFOUND */
	ask(ndb, NSCD_GETGRBYNAME, "devs", &g);
	pump();
	assert_int_equal(found_of(&g), 0);
	assert_int_equal(calls[1], 1);		/* ldap: only the passwd call */
	teardown_db(ndb);
}

/* initgroups over the group line: every module, glibc's duplicate removal. */
static void
test_initgroups(void **state)
{
	struct nscddb	*ndb = setup_db("group: files ldap\n", NULL);
	const uint32_t	 f[] = { 10, 20 }, l[] = { 20, 30, 10, 40 }, want[] = { 10, 20, 40, 30 };
	struct got	 g;
	int32_t		 n;

	script_initgr("files", "alice", NSSENT_INITGR_DYN, f, 2);
	script_initgr("ldap", "alice", NSSENT_INITGR_DYN, l, 4);
	ask(ndb, NSCD_INITGROUPS, "alice", &g);
	pump();
	assert_int_equal(found_of(&g), 1);
	memcpy(&n, g.reply + 8, 4);
	assert_int_equal(n, 4);
	/* [10 20 | 20 30 10 40]: 20 goes (40 into its place), then 10 (itself) */
	assert_memory_equal(g.reply + 12, want, sizeof(want));
	/* nobody: no module succeeded: not found */
	ask(ndb, NSCD_INITGROUPS, "nobody", &g);
	pump();
	assert_int_equal(found_of(&g), 0);
	teardown_db(ndb);
}

/* Netgroups: nested, looped, INNETGR's host without case. */
static void
test_netgroups(void **state)
{
	struct nscddb	*ndb = setup_db("netgroup: files ldap\n", NULL);
	const char	*a[] = { "th1", "u1", "d1", "gb", NULL };
	const char	*b[] = { "th2", "", "", "ga", "gc", "gd", NULL };
	const char	*c[] = { "th4", "", "", NULL }, *d[] = { "th3", "u3", "", NULL };
	const char	*want = "h1\0u1\0d1\0h2\0\0\0h3\0u3\0\0h4\0\0\0";
	struct got	 g;
	int32_t		 hdr[4];

	/* the entries' first byte is the tag: 't' a triple, 'g' a name */
	script_netgr("files", "a", a);
	script_netgr("ldap", "b", b);		/* files says NOTFOUND for b */
	script_netgr("files", "d", d);
	script_netgr("ldap", "c", c);
	ask(ndb, NSCD_GETNETGRENT, "a", &g);
	pump();
	memcpy(hdr, g.reply, sizeof(hdr));
	assert_int_equal(hdr[1], 1);
	assert_int_equal(hdr[2], 4);
	/* a's triple; b's (b needed by a); b names a (known), c and d: d
	 * first, then c (glibc's needed list is a stack) */
	assert_int_equal(hdr[3], 26);
	assert_memory_equal(g.reply + 16, want, 26);
	/* four groups, six module calls: one trip to a worker */
	assert_int_equal(calls[0] + calls[1], 6);
	assert_int_equal(jobs, 1);
	memset(&g, 0, sizeof(g));
	assert_int_equal(nscddb_ask(ndb, NSCD_INNETGR, "a\0\1H2\0\0\0", 8, done, &g), 0);
	pump();
	assert_int_equal(g.len, 12);
	assert_int_equal(((int32_t *)(void *)g.reply)[2], 1);
	memset(&g, 0, sizeof(g));
	assert_int_equal(nscddb_ask(ndb, NSCD_INNETGR, "a\0\1h9\0\0\0", 8, done, &g), 0);
	pump();
	assert_int_equal(((int32_t *)(void *)g.reply)[2], 0);
	ask(ndb, NSCD_GETNETGRENT, "zz", &g);
	pump();
	assert_int_equal(found_of(&g), 0);
	teardown_db(ndb);
}

/* One walk for many askers; an invalidation drops what a walk begun before finds. */
static void
test_coalesce_and_invalidate(void **state)
{
	struct nscddb		*ndb = setup_db("passwd: files\n", NULL);
	struct nscddb_stats	 st;
	struct got		 g1, g2, g3;

	script_pw("files", "alice", NSSPOOL_PWNAM, "alice", 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g1);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g2);
	assert_int_equal(nqueue, 1);
	nscddb_invalidate(ndb, CONFIG_DB_PASSWD, NULL);
	pump();
	assert_int_equal(g1.n + g2.n, 2);
	assert_int_equal(found_of(&g1), 1);
	assert_int_equal(g1.cache, PROTO_CACHE_MISS);
	assert_int_equal(g2.cache, PROTO_CACHE_COALESCED);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g3);
	assert_int_equal(g3.n, 0);		/* begun before: not kept */
	pump();
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g3);
	assert_int_equal(g3.n, 1);
	nscddb_get_stats(ndb, CONFIG_DB_PASSWD, &st);
	assert_int_equal(st.coalesced, 1);
	assert_int_equal(calls[0], 2);
	/* keys glibc never sends are refused at once */
	assert_int_equal(nscddb_ask(ndb, NSCD_GETPWBYUID, "-1", 3, done, &g3), -EINVAL);
	assert_int_equal(nscddb_ask(ndb, NSCD_GETPWBYNAME, "ab", 2, done, &g3), -EINVAL);
	teardown_db(ndb);
}

/*
 * One trip to a worker per walk, however many modules it asks: the job
 * queued names the first module it calls, and the calls are all made
 * inside it (the pool's queue has one entry per walk, and the loop is
 * back once).  A walk whose line loads no module needs no worker.
 */
static void
test_one_trip_per_walk(void **state)
{
	struct nscddb		*ndb = setup_db("passwd: gone files ldap extra\n"
				    "group: files [SUCCESS=merge] ldap extra\n"
				    "services: gone\n", NULL);
	const uint32_t		 f[] = { 10 }, l[] = { 20 }, x[] = { 30 };
	char			 a[] = "a", b[] = "b";
	char			*m1[] = { a, NULL }, *m2[] = { b, NULL };
	struct nscddb_stats	 st;
	struct nscd_gr_view	 v;
	struct got		 g;
	int32_t			 n;

	script_pw("extra", "alice", NSSPOOL_PWNAM, "alice", 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(nqueue, 1);
	assert_int_equal(queue[0].first, mod_id(NULL, "files"));	/* "gone" is no call */
	pump();
	assert_int_equal(found_of(&g), 1);
	assert_string_equal(g.source, "extra");
	assert_int_equal(calls[0] + calls[1] + calls[4], 3);	/* files, ldap, extra */
	assert_int_equal(jobs, 1);
	nscddb_get_stats(ndb, CONFIG_DB_PASSWD, &st);
	assert_int_equal(st.module_calls, 3);
	assert_int_equal(st.pool_jobs, 1);
	/* merge across two modules, then a third: one trip */
	script_gr("files", "devs", "devs", 5, m1);
	script_gr("ldap", "devs", "devs", 5, m2);
	ask(ndb, NSCD_GETGRBYNAME, "devs", &g);
	pump();
	assert_int_equal(nscd_gr_view(g.reply, g.len, &v), 0);
	assert_int_equal(v.hdr->mem_cnt, 2);
	assert_int_equal(jobs, 2);
	/* initgroups asks every module of the group line: one trip */
	script_initgr("files", "bob", NSSENT_INITGR_DYN, f, 1);
	script_initgr("ldap", "bob", NSSENT_INITGR_DYN, l, 1);
	script_initgr("extra", "bob", NSSENT_INITGR_DYN, x, 1);
	ask(ndb, NSCD_INITGROUPS, "bob", &g);
	pump();
	memcpy(&n, g.reply + 8, 4);
	assert_int_equal(n, 3);
	assert_int_equal(jobs, 3);
	nscddb_get_stats(ndb, CONFIG_DB_GROUP, &st);
	assert_int_equal(st.module_calls, 5);
	assert_int_equal(st.pool_jobs, 2);
	/* nothing on the line loads: answered at once, no trip */
	ask(ndb, NSCD_GETSERVBYNAME, "nc/tcp", &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(found_of(&g), 0);
	assert_int_equal(nqueue, 0);
	assert_int_equal(jobs, 3);
	nscddb_get_stats(ndb, CONFIG_DB_SERVICES, &st);
	assert_int_equal(st.pool_jobs, 0);
	assert_int_equal(st.module_calls, 0);
	teardown_db(ndb);
}

/*
 * A call past nss_timeout: the walk is refused at once (TRYAGAIN: glibc
 * walks NSS itself), its source the last module that had answered, and
 * nothing is kept; the thread's return ends the walk there.
 */
static void
test_timeout(void **state)
{
	struct nscddb		*ndb = setup_db("passwd: files ldap extra\n", NULL);
	struct nscddb_stats	 st;
	struct got		 g;

	script_pw("ldap", "alice", NSSPOOL_PWNAM, "alice", 1000);
	stuck_at = 1;				/* files hangs */
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	pump();
	assert_int_equal(g.n, 1);
	assert_int_equal(g.len, 0);
	assert_string_equal(g.source, "");
	assert_int_equal(calls[1], 0);		/* the walk went no further */
	stuck_at = 4;				/* (calls are counted from the start) */
	script("files", NSSPOOL_PWNAM, "bob", NSW_NOTFOUND);
	script("ldap", NSSPOOL_PWNAM, "bob", NSW_NOTFOUND);
	ask(ndb, NSCD_GETPWBYNAME, "bob", &g);	/* files, ldap, extra hangs */
	pump();
	assert_int_equal(g.n, 1);
	assert_int_equal(g.len, 0);
	assert_string_equal(g.source, "ldap");
	stuck_at = 0;
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 0);		/* not kept: a walk again */
	pump();
	assert_int_equal(found_of(&g), 1);
	nscddb_get_stats(ndb, CONFIG_DB_PASSWD, &st);
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.found, 1);
	assert_int_equal(st.module_calls, 1 + 3 + 2);	/* the stuck ones too */
	assert_int_equal(st.pool_jobs, 3);
	teardown_db(ndb);
}

/* The sweeper: in the last tenth of a record's TTL, a refresh walk. */
static void
test_refresh(void **state)
{
	struct nscddb		*ndb = setup_db("services: files\n", NULL);
	struct nscddb_stats	 st;
	struct got		 g;

	script("files", NSSPOOL_SERVNAME, NULL, NSW_NOTFOUND);
	ask(ndb, NSCD_GETSERVBYNAME, "nc/tcp", &g);
	pump();
	assert_int_equal(found_of(&g), 0);
	assert_int_equal(calls[0], 1);
	fakeclock_advance(19 * 1000);		/* the last tenth of 20 s */
	nscddb_tick(ndb, fakeclock_ms);
	pump();
	nscddb_get_stats(ndb, CONFIG_DB_SERVICES, &st);
	assert_int_equal(st.refreshes, 1);
	assert_int_equal(calls[0], 2);
	teardown_db(ndb);
}

/* A daemon after this one, on the same folder, reading config c. */
static struct nscddb *
restart_db(struct nscddb *ndb, struct config *c)
{
	char path[128];

	nscddb_free(ndb, true);		/* the maps left whole, as a stop does */
	snprintf(path, sizeof(path), "%s/nsswitch.conf", dir);
	ndb = nscddb_new(&mods, fakeclock_now, NULL, dir, 1u << 22);
	assert_non_null(ndb);
	nscddb_configure(ndb, c);
	assert_int_equal(nscddb_load_lines(ndb, path), 0);
	return ndb;
}

/*
 * A map a daemon before left is dropped at start when what its answers
 * rest on changed after its last stamp (here nsswitch.conf, written just
 * now), or when its database is refused; either way the next ask walks.
 * (Taken over: tests/store/test_restart.py, whose /etc/passwd is its own.)
 */
static void
test_left_maps_dropped(void **state)
{
	struct nscddb	*ndb = setup_db("passwd: files\n", NULL);
	struct config	*c = config_new();
	char		*err = NULL;
	struct got	 g;

	assert_non_null(c);
	script_pw("files", "alice", NSSPOOL_PWNAM, "alice", 1000);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	pump();
	assert_int_equal(found_of(&g), 1);
	assert_int_equal(jobs, 1);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.cache, PROTO_CACHE_HIT);
	/* nsswitch.conf is younger than the map's stamp plus 2 s: dropped. */
	ndb = restart_db(ndb, c);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 0);		/* a walk */
	pump();
	assert_int_equal(found_of(&g), 1);
	assert_int_equal(jobs, 2);
	/* passwd refused at the next start: dropped, and still so once answered. */
	assert_int_equal(config_set(c, "nscd_databases", "hosts group", &err), 0);
	ndb = restart_db(ndb, c);
	assert_int_equal(nscddb_ask(ndb, NSCD_GETPWBYNAME, "alice", 6, done, &g),
	    -EPERM);
	assert_int_equal(config_set(c, "nscd_databases", "hosts passwd group", &err), 0);
	nscddb_configure(ndb, c);
	ask(ndb, NSCD_GETPWBYNAME, "alice", &g);
	assert_int_equal(g.n, 0);		/* a walk: nothing was kept */
	pump();
	assert_int_equal(found_of(&g), 1);
	assert_int_equal(jobs, 3);
	config_free(c);
	teardown_db(ndb);
}

#ifdef NOMEM
#include "test-nscddb-nomem.c"
#endif

/* A user in no group: an empty list, from no array at all (UBSan: no memcpy from NULL). */
static void
test_initgr_empty(void **state)
{
	struct nscd_initgr_reply	 r;
	uint8_t				 buf[64];

	(void)state;
	assert_int_equal(nscd_build_initgr(NULL, 0, buf, sizeof(buf)), (int)sizeof(r));
	memcpy(&r, buf, sizeof(r));
	assert_int_equal(r.found, 1);
	assert_int_equal(r.ngrps, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ttls),
		cmocka_unit_test(test_uncached),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_missing_module),
		cmocka_unit_test(test_initgroups),
		cmocka_unit_test(test_initgr_empty),
		cmocka_unit_test(test_netgroups),
		cmocka_unit_test(test_coalesce_and_invalidate),
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_one_trip_per_walk),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_left_maps_dropped),
#ifdef NOMEM
		cmocka_unit_test(test_nomem),
#endif
	};

	fakeclock_ms = 1000000;		/* 1000 s since boot */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
