/* SPDX-License-Identifier: MIT */
/* tests/unit/test-nscddb-nomem.c - nscd's other databases with each allocation failing in turn. */

/*
 * Included by test-nscddb.c when built as test-nscddb-nomem (-DNOMEM,
 * nomem.h), to use its scripted modules.  One scenario (every database's
 * walk, merge, nested netgroups, hits from the maps, the sweeper's
 * refreshes, an invalidation) runs with allocation 1, 2, ... failing,
 * until a run ends without reaching N.  Each ask is taken (0) or refused
 * (-ENOMEM, or -EPERM: glibc then asks the modules itself); each one
 * taken has exactly one reply once the queue ran (glibc's refusal, an
 * empty reply, counts); nothing crashes or leaks;
 * and with no failure any more, the same databases answer a name found
 * by a module.
 */

#define NOMEM_ASKS	9

static const char nomem_lines[] =
    "passwd: files ldap\n"
    "group: files [SUCCESS=merge] ldap\n"
    "netgroup: files ldap\n"
    "services: files\n";

/* An ask taken or refused for want of memory; taken ones are counted in *taken. */
static void
nomem_ask(struct nscddb *ndb, int32_t type, const void *key, size_t len,
    struct got *g, bool *taken)
{
	int r;

	memset(g, 0, sizeof(*g));
	r = nscddb_ask(ndb, type, key, len, done, g);
	if (r < 0) {
		/* no memory now, or a database refused since its line was not read */
		assert_true(r == -ENOMEM || r == -EPERM);
		assert_true(nomem_failed());
		assert_int_equal(g->n, 0);
	}
	*taken = r == 0;
}

/* Every ask taken has had its one reply, well formed or empty (refused). */
static void
nomem_replied(const struct got *g, const bool *taken, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (!taken[i])
			continue;
		assert_int_equal(g[i].n, 1);
		assert_true(g[i].len == 0 || g[i].len >= 8);
	}
}

static void
nomem_scenario(const struct config *c, const char *path)
{
	const uint32_t	 f[] = { 10, 20 }, l[] = { 20, 30 };
	const char	*na[] = { "th1", "u1", "d1", "gb", NULL };
	const char	*nb[] = { "th2", "", "", "ga", NULL };
	char		 m1[] = "m1", m2[] = "m2";
	char		*mem1[] = { m1, NULL }, *mem2[] = { m2, NULL };
	struct got	 g[NOMEM_ASKS];
	bool		 taken[NOMEM_ASKS];
	struct nscddb	*ndb;
	char		 lines[CONFIG_DB_COUNT][256], text[256];
	int		 r, round, i;

	ndb = nscddb_new(&mods, fakeclock_now, NULL, dir, 1u << 22);
	if (ndb == NULL) {
		assert_true(nomem_failed());
		return;
	}
	nscddb_configure(ndb, c);
	if ((r = nscddb_load_lines(ndb, path)) < 0) {
		assert_int_equal(r, -ENOMEM);
		assert_true(nomem_failed());
	}
	for (i = 1; i < CONFIG_DB_COUNT; i++)
		nscddb_line_text(ndb, i, lines[i], sizeof(lines[i]));
	script_pw("files", "alice", NSSPOOL_PWNAM, "alice", 1000);
	script_pw("ldap", "1001", NSSPOOL_PWUID, "bob", 1001);
	script_gr("files", "staff", "staff", 50, mem1);
	script_gr("ldap", "staff", "staff", 50, mem2);
	script_initgr("files", "alice", NSSENT_INITGR_DYN, f, 2);
	script_initgr("ldap", "alice", NSSENT_INITGR_DYN, l, 2);
	script_netgr("files", "ga", na);
	script_netgr("ldap", "gb", nb);
	script("files", NSSPOOL_SERVNAME, NULL, NSW_NOTFOUND);
	for (round = 0; round < 3; round++) {
		/* 0: walks; 1: hits from the maps; 2: after the sweeper */
		nomem_ask(ndb, NSCD_GETPWBYNAME, "alice", 6, &g[0], &taken[0]);
		nomem_ask(ndb, NSCD_GETPWBYNAME, "alice", 6, &g[1], &taken[1]);
		nomem_ask(ndb, NSCD_GETPWBYUID, "1001", 5, &g[2], &taken[2]);
		nomem_ask(ndb, NSCD_GETGRBYNAME, "staff", 6, &g[3], &taken[3]);
		nomem_ask(ndb, NSCD_INITGROUPS, "alice", 6, &g[4], &taken[4]);
		nomem_ask(ndb, NSCD_GETNETGRENT, "ga", 3, &g[5], &taken[5]);
		nomem_ask(ndb, NSCD_INNETGR, "ga\0\1H2\0\0\0", 9, &g[6], &taken[6]);
		nomem_ask(ndb, NSCD_GETSERVBYNAME, "nc/tcp", 7, &g[7], &taken[7]);
		nomem_ask(ndb, NSCD_GETPWBYNAME, "nobody", 7, &g[8], &taken[8]);
		pump();
		nomem_replied(g, taken, NOMEM_ASKS);
		if (round == 1) {
			fakeclock_advance(590 * 1000);	/* the last tenth of 600 s */
			nscddb_tick(ndb, fakeclock_ms);
			pump();
		}
	}
	nscddb_invalidate(ndb, CONFIG_DB_GROUP, NULL);

	/* With no failure: the lines read again, and a module's name found. */
	nomem_hold(true);
	assert_int_equal(nscddb_load_lines(ndb, path), 0);
	/* Read whole, or not taken: never a default for a line not read. */
	for (i = 1; i < CONFIG_DB_COUNT && r == 0; i++) {
		nscddb_line_text(ndb, i, text, sizeof(text));
		assert_string_equal(lines[i], text);
	}
	script_pw("ldap", "carol", NSSPOOL_PWNAM, "carol", 1002);
	nomem_ask(ndb, NSCD_GETPWBYNAME, "carol", 6, &g[0], &taken[0]);
	pump();
	assert_true(taken[0]);
	assert_int_equal(g[0].n, 1);
	assert_int_equal(found_of(&g[0]), 1);
	nomem_hold(false);
	nscddb_free(ndb, false);
}

static void
test_nomem(void **state)
{
	struct config	*c;
	char		 path[128], cmd[160], *err = NULL;
	long		 n, count;
	FILE		*fp;

	assert_non_null(c = config_new());
	assert_int_equal(config_set(c, "nscd_uncached_modules", "systemd", &err), 0);
	for (n = 1; ; n++) {
		snprintf(dir, sizeof(dir), "/tmp/nc-unit-nscddb-XXXXXX");
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/nsswitch.conf", dir);
		assert_non_null(fp = fopen(path, "w"));
		fputs(nomem_lines, fp);
		fclose(fp);
		nanswers = 0;
		nqueue = 0;
		jobs = 0;
		stuck_at = 0;
		memset(calls, 0, sizeof(calls));
		fakeclock_ms = 1000000;
		nomem_arm(n);
		nomem_scenario(c, path);
		count = nomem_count();
		nomem_arm(0);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		if (count < n)
			break;
	}
	config_free(c);
	print_message("nscd databases: %ld allocations, each failed in turn\n", n - 1);
	assert_true(n > 1);
	assert_int_equal(nomem_leaks(), 0);
}
