/* SPDX-License-Identifier: MIT */
/* tests/unit/test-engine-nomem.c - test-engine.c's scenarios with each allocation failing in turn. */

/*
 * Included by test-engine.c when built as test-engine-nomem (-DNOMEM):
 * its run_scenario.  The rules are in test-engine.c's NOMEM comment.
 */

/* After the failure: the checks of the script that still hold. */
static bool
nomem_relaxed(char **tok, int n)
{
	static const char *const checks[] = {
		"expect", "queries", "writes", "calls", "stat", "nscdstat", "shmstat",
	};
	struct proto_hdr	 hdr;
	const struct client	*c;
	size_t			 i;
	long			 id;

	if (!nomem_failed())
		return false;
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (strcmp(tok[0], checks[i]) == 0)
			break;
	if (i == sizeof(checks) / sizeof(checks[0]))
		return false;
	if (strcmp(tok[0], "expect") != 0 || n < 3)
		return true;
	if ((id = num(tok[1])) < 0 || id >= MAXCLIENTS)
		die("client id %ld out of range", id);
	c = &W->client[id];
	if (c->replies > 1)
		die("client %ld: %d replies", id, c->replies);
	if (c->replies == 1 && proto_hdr_decode(c->frame, c->len, &hdr) < 0)
		die("client %ld: a reply that does not decode", id);
	if (c->observed != c->replies)
		die("client %ld: observed %d times, %d replies", id, c->observed,
		    c->replies);
	return true;
}

/* The loop runs until nothing is due: every client has had its one reply. */
static void
drain(void)
{
	const struct pending	*p;
	int64_t			 due;
	int			 i, turns;

	for (turns = 0; W->pending != NULL; turns++) {
		if (turns == 100000)
			die("the loop never empties");
		due = INT64_MAX;
		for (p = W->pending; p; p = p->next)
			if (p->due < due)
				due = p->due;
		if (due > fakeclock_ms)
			fakeclock_advance(due - fakeclock_ms);
		deliver();
	}
	for (i = 0; i < MAXCLIENTS; i++)
		if (W->client[i].type != 0 && W->client[i].replies != 1)
			die("client %d: %d replies at the end", i, W->client[i].replies);
}

/* With no failure: a name from the hosts file, and one from upstream twice. */
static void
probe(void)
{
	static const char text[] =
	    "hosts 192.0.2.99 nomem-probe.invalid\n"
	    "line files\n"
	    "ask 63 nomem-probe.invalid family=inet absolute=yes\n"
	    "expect 63 ok data=192.0.2.99\n"
	    "line dns\n"
	    "upstream nomem-probe-dns.invalid A answer ttl=300 data=192.0.2.98\n"
	    "ask 62 nomem-probe-dns.invalid family=inet absolute=yes\n"
	    "expect 62 ok data=192.0.2.98 from=dns\n"
	    "ask 61 nomem-probe-dns.invalid family=inet absolute=yes\n"
	    "expect 61 ok data=192.0.2.98 cache=hit\n";
	FILE	*f = fmemopen((void *)text, sizeof(text) - 1, "r");

	assert_non_null(f);
	W->file = "(the lookup after the failure)";
	play(f, 1);
	fclose(f);
}

/* One run: the script, until a part cannot be made. */
static void
play_or_give_up(FILE *f, int first)
{
	if (setjmp(nomem_jmp) == 0)
		play(f, first);
}

static void
run_scenario(void **state)
{
	const struct scenario	*sc = *state;
	FILE			*f;
	long			 n, count;

	for (n = 1; ; n++) {
		assert_non_null(f = fopen(sc->file, "re"));
		world_new(sc->file);	/* as the daemon's start: its hosts index */
		nomem_arm(n);
		play_or_give_up(f, sc->first);
		fclose(f);
		drain();
		count = nomem_count();
		nomem_arm(0);
		probe();
		world_free();
		if (getenv("NOMEM_EACH") != NULL && nomem_leaks())
			fail_msg("%s: a leak with allocation %ld failing", sc->name, n);
		if (count < n)
			break;
	}
	print_message("%s: %ld allocations, each failed in turn\n", sc->name, n - 1);
	assert_int_equal(nomem_leaks(), 0);
}
