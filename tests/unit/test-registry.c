/* SPDX-License-Identifier: MIT */
/* tests/unit/test-registry.c - unit tests of the registry every module reports its numbers to. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proto.h"
#include "registry.h"

/* What a reader saw: each key once, in order. */
struct seen {
	struct registry_entry	e[16];
	char			key[16][PROTO_KEY_MAX + 1];
	unsigned		n;
};

static void
see(void *arg, const struct registry_entry *e)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	snprintf(s->key[s->n], sizeof(s->key[0]), "%s", e->key);
	s->e[s->n] = *e;
	s->e[s->n].key = s->key[s->n];
	s->n++;
}

/* A socket's counters, as two modules of the same kind write them. */
static void
report_socket(void *arg, struct registry_wr *wr)
{
	const uint64_t *n = arg;

	registry_counter(wr, "requests", n[0], n[1] ? "Requests read" : NULL);
	registry_gauge(wr, "clients", n[1], NULL);
}

static void
report_engine(void *arg, struct registry_wr *wr)
{
	char key[32];

	registry_counter(wr, "answers", 7, "Answers given");
	snprintf(key, sizeof(key), "nss_%s_calls", "files");	/* a key made on the spot */
	registry_put(wr, key, 3, REGISTRY_LABELLED, NULL);
}

static void
order_sum_and_kinds(void **state)
{
	struct registry	*reg = registry_new();
	uint64_t	 a[2] = { 5, 0 }, b[2] = { 2, 4 }, n;
	struct seen	 s = { .n = 0 };

	assert_non_null(reg);
	assert_int_equal(registry_add(reg, report_socket, a), 0);
	assert_int_equal(registry_add(reg, report_engine, NULL), 0);
	assert_int_equal(registry_add(reg, report_socket, b), 0);
	assert_int_equal(registry_read(reg, see, &s), 0);
	/* The second socket's numbers join the first's, where those were. */
	assert_int_equal(s.n, 4);
	assert_string_equal(s.e[0].key, "requests");
	assert_int_equal(s.e[0].value, 7);
	assert_int_equal(s.e[0].kind, REGISTRY_COUNTER);
	assert_string_equal(s.e[0].help, "Requests read");	/* the one that had it */
	assert_string_equal(s.e[1].key, "clients");
	assert_int_equal(s.e[1].value, 4);
	assert_int_equal(s.e[1].kind, REGISTRY_GAUGE);
	assert_null(s.e[1].help);
	assert_string_equal(s.e[2].key, "answers");
	assert_string_equal(s.e[3].key, "nss_files_calls");
	assert_int_equal(s.e[3].kind, REGISTRY_LABELLED);
	/* A reading runs the reports again: the numbers are today's. */
	a[0] = 10;
	s.n = 0;
	assert_int_equal(registry_read(reg, see, &s), 0);
	assert_int_equal(s.e[0].value, 12);
	assert_int_equal(registry_get(reg, "requests", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(registry_get(reg, "nothing", &n), -ENOENT);
	registry_free(reg);
	registry_free(NULL);
}

static void
kv_reply(void **state)
{
	struct registry		*reg = registry_new();
	uint64_t		 a[2] = { 5, 1 };
	uint8_t			 buf[512];
	struct proto_wr		 w;
	struct proto_kv_wr	 kw;
	struct proto_kv_rd	 kr;
	struct proto_kv		 kv;
	static const char *const want[] = { "requests", "clients", "answers",
	    "nss_files_calls" };
	unsigned		 i = 0;

	registry_add(reg, report_socket, a);
	registry_add(reg, report_engine, NULL);
	proto_wr_init(&w, buf, sizeof(buf));
	proto_kv_begin(&kw, &w);
	assert_int_equal(registry_write_kv(reg, &kw), 0);
	assert_int_equal(proto_kv_end(&kw), 0);
	assert_int_equal(proto_kv_init(&kr, buf, w.off), 0);
	while (proto_kv_next(&kr, &kv) == 1) {
		assert_true(i < 4);
		assert_int_equal(kv.key_len, strlen(want[i]));
		assert_memory_equal(kv.key, want[i], kv.key_len);
		assert_int_equal(kv.kind, PROTO_KV_U64);
		i++;
	}
	assert_int_equal(i, 4);
	registry_free(reg);
}

static void
report_many(void *arg, struct registry_wr *wr)
{
	char key[32];

	for (unsigned i = 0; i <= REGISTRY_KEYS_MAX; i++) {
		snprintf(key, sizeof(key), "k%u", i);
		registry_counter(wr, key, i, NULL);
	}
}

static void
limits(void **state)
{
	struct registry	*reg = registry_new();
	struct seen	 s = { .n = 0 };
	unsigned	 i;

	/* One key too many: the reading fails whole, its reader sees nothing. */
	registry_add(reg, report_many, NULL);
	assert_int_equal(registry_read(reg, see, &s), -E2BIG);
	assert_int_equal(s.n, 0);
	for (i = 1; i < REGISTRY_REPORTS_MAX; i++)
		assert_int_equal(registry_add(reg, report_engine, NULL), 0);
	assert_int_equal(registry_add(reg, report_engine, NULL), -ENOSPC);
	registry_free(reg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_sum_and_kinds),
		cmocka_unit_test(kv_reply),
		cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
