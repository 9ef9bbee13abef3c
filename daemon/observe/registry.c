/* SPDX-License-Identifier: MIT */
/* daemon/observe/registry.c - every module's numbers, for `namecachectl statistics' and the metrics. */

/*
 * A reading gathers what the reports write into one table before its
 * reader sees any of it: that is what lets two modules count one key.
 * The table lives for the reading alone (about 100 KiB, on the heap), so
 * the daemon holds nothing between two of them.
 */
#include <assert.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "proto.h"
#include "registry.h"

#define SLOTS	(2 * REGISTRY_KEYS_MAX)	/* a power of two, never full */

struct registry_wr {
	struct registry_entry	 ents[REGISTRY_KEYS_MAX];
	char			 keys[REGISTRY_KEYS_MAX][PROTO_KEY_MAX + 1];
	uint16_t		 slots[SLOTS];	/* 1 + the entry's index; 0: free */
	unsigned		 n;
	int			 err;
};

struct registry {
	struct {
		registry_report_fn	*fn;
		void			*arg;
	}		 reports[REGISTRY_REPORTS_MAX];
	unsigned	 nreports;
	/* A reading's table, kept: metrics are scraped every few seconds,
	 * and a table made for each was 100 KiB of malloc to no purpose.
	 * A reading is never nested (readers do not read). */
	struct registry_wr wr;
	bool		 reading;
};

struct registry *
registry_new(void)
{
	return calloc(1, sizeof(struct registry));
}

void
registry_free(struct registry *reg)
{
	free(reg);
}

int
registry_add(struct registry *reg, registry_report_fn *fn, void *arg)
{
	if (reg->nreports == REGISTRY_REPORTS_MAX)
		return -ENOSPC;
	reg->reports[reg->nreports].fn = fn;
	reg->reports[reg->nreports].arg = arg;
	reg->nreports++;
	return 0;
}

void
registry_put(struct registry_wr *wr, const char *key, uint64_t value,
    enum registry_kind kind, const char *help)
{
	struct registry_entry	*e;
	size_t			 len = strlen(key);
	uint32_t		 i;

	assert(len <= PROTO_KEY_MAX);	/* keys are ours */
	i = (uint32_t)hash_fnv1a(HASH_FNV1A_INIT, key, len) & (SLOTS - 1);
	for (; wr->slots[i] != 0; i = (i + 1) & (SLOTS - 1)) {
		e = &wr->ents[wr->slots[i] - 1];
		if (strcmp(e->key, key) != 0)
			continue;
		assert(e->kind == kind);
		e->value += value;
		if (e->help == NULL)
			e->help = help;
		return;
	}
	if (wr->n == REGISTRY_KEYS_MAX) {
		wr->err = -E2BIG;
		return;
	}
	memcpy(wr->keys[wr->n], key, len + 1);
	wr->ents[wr->n] = (struct registry_entry){ wr->keys[wr->n], value, kind, help };
	wr->slots[i] = (uint16_t)++wr->n;
}

void
registry_counter(struct registry_wr *wr, const char *key, uint64_t value,
    const char *help)
{
	registry_put(wr, key, value, REGISTRY_COUNTER, help);
}

void
registry_gauge(struct registry_wr *wr, const char *key, uint64_t value,
    const char *help)
{
	registry_put(wr, key, value, REGISTRY_GAUGE, help);
}

int
registry_read(struct registry *reg,
    void (*fn)(void *arg, const struct registry_entry *), void *arg)
{
	struct registry_wr	*wr = &reg->wr;
	unsigned		 i;
	int			 err;

	assert(!reg->reading);
	reg->reading = true;
	memset(wr->slots, 0, sizeof(wr->slots));
	wr->n = 0;
	wr->err = 0;
	for (i = 0; i < reg->nreports; i++)
		reg->reports[i].fn(reg->reports[i].arg, wr);
	if ((err = wr->err) == 0)
		for (i = 0; i < wr->n; i++)
			fn(arg, &wr->ents[i]);
	reg->reading = false;
	return err;
}

struct one {
	const char	*key;
	uint64_t	*ret;
	int		 r;
};

static void
one_item(void *arg, const struct registry_entry *e)
{
	struct one *o = arg;

	if (strcmp(e->key, o->key) == 0) {
		*o->ret = e->value;
		o->r = 0;
	}
}

int
registry_get(struct registry *reg, const char *key, uint64_t *ret)
{
	struct one	o = { key, ret, -ENOENT };
	int		r;

	if ((r = registry_read(reg, one_item, &o)) < 0)
		return r;
	return o.r;
}

static void
kv_item(void *arg, const struct registry_entry *e)
{
	proto_kv_u64(arg, e->key, e->value);
}

int
registry_write_kv(struct registry *reg, struct proto_kv_wr *kw)
{
	return registry_read(reg, kv_item, kw);
}
