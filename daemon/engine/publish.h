/* SPDX-License-Identifier: MIT */
/* daemon/engine/publish.h - puts the walk's answers where clients read them without asking. */
#ifndef NAMECACHE_PUBLISH_H
#define NAMECACHE_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "answer.h"
#include "cache.h"
#include "proto.h"

struct nscdmap;
struct publish;
struct shm;

/* What a reply is published under: a name as asked, or an address. */
struct publish_key {
	uint8_t		kind;		/* SHM_NAME, SHM_ADDR; 0: not published */
	uint8_t		family;
	size_t		len;
	uint8_t		key[PROTO_NAME_MAX + 2];
};

struct publish_stats {
	uint64_t	published;	/* replies put in at least one store */
};

/* Caller frees with publish_free(); NULL is out of memory. */
struct publish *publish_new(cache_clock_fn *now, void *now_arg);
void	 publish_free(struct publish *);
/* The stores, borrowed until changed; NULL: none. */
void	 publish_set_shm(struct publish *, struct shm *);
void	 publish_set_nscdmap(struct publish *, struct nscdmap *);
bool	 publish_enabled(const struct publish *);

/*
 * Publishes an answer for readers that do not ask, until expires (ms on
 * the engine's clock, or WALK_FOREVER): answers and negative answers;
 * never a failure, nor what has expired already.  Both stores take it
 * from here, each written in its own format: the shared segment (the NSS
 * module and libnamecache read it), where exact says the key matches that
 * spelling only, and glibc's nscd database, under the key as asked.
 * asked: a client is waiting for it (not a refresh of the daemon's own).
 */
void	 publish_answer(struct publish *, const struct publish_key *,
	    const struct answer *, bool exact, int64_t expires, uint32_t ttl,
	    bool asked);

void	 publish_get_stats(const struct publish *, struct publish_stats *ret);

#endif
