/* SPDX-License-Identifier: MIT */
/* daemon/engine/walk.h - the walk of a hosts line: glibc's statuses and actions, a pure state machine. */
#ifndef NAMECACHE_WALK_H
#define NAMECACHE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsswitch.h"

/* What answers a source of the line. */
enum walk_kind {
	WALK_FILES,	/* the hosts index */
	WALK_DNS,	/* the cache, then upstream */
	WALK_MODULE,	/* the NSS module `mod', on the worker pool */
	WALK_NONE,	/* nothing can: a name no module can have */
};

struct walk_line {
	unsigned	 n;
	struct {
		uint8_t	 kind;		/* enum walk_kind */
		int	 mod;		/* WALK_MODULE: nsspool's id */
		uint8_t	 action[NSW_NSTATUS];	/* enum nsw_action by status */
	} src[NSW_SOURCES_MAX];
};

/* "Published forever": a hosts answer lasts until the file changes. */
#define WALK_FOREVER	INT64_MAX

/* What one source said, as the walk weighs it (its answer is result.c's). */
struct stage {
	int		 nsw;		/* enum nsw_status */
	uint16_t	 status;	/* PROTO_* of the source's reply */
	uint8_t		 source;	/* PROTO_SRC_* of the answer, for counting */
	bool		 exact;		/* holds for this spelling only */
	int64_t		 expires;	/* ms on the engine's clock, WALK_FOREVER,
					   or 0: must not be published */
	uint32_t	 ttl_full;	/* the TTL it was stored for */
	int		 herrno;	/* UNAVAIL, TRYAGAIN: h_errno of the source */
	int		 err;		/* and errno */
};

/* A walk in progress: the line as it was when the walk began. */
struct walk_state {
	struct walk_line line;
	unsigned	 i;		/* the source asked now */
	int64_t		 expires;	/* the earliest of the steps gone past */
	uint32_t	 ttl_full;
	bool		 publishable;	/* no step gone past forbade it */
	bool		 exact;		/* a step gone past held for one spelling */
};

/* What the end of a walk may publish: its answer, until `expires'. */
struct walk_end {
	bool		 publish;
	bool		 exact;
	int64_t		 expires;
	uint32_t	 ttl;		/* the shortest full TTL it rests on; 0: none */
};

enum walk_next {
	WALK_ASK,	/* ask line.src[i] */
	WALK_DONE,	/* the last stage is the answer; see walk_end */
};

void	walk_begin(struct walk_state *, const struct walk_line *);

/*
 * The stage source i gave: its action says whether the walk returns or
 * goes on.  SUCCESS=continue drops what was found (glibc ends with the last
 * source's status and answer).  A stage that is not a source's answer
 * (PROTO_TOOBIG, PROTO_INTERNAL, PROTO_BUSY) ends the walk, unpublished.
 * Returns WALK_ASK with i advanced, or WALK_DONE with *ret_end filled.
 */
int	walk_step(struct walk_state *, const struct stage *, struct walk_end *ret_end);

/*
 * A walk that ends before any source answers (an empty line): glibc's
 * status stays UNAVAIL, and nothing is published.  Fills *ret_end.
 */
void	walk_end_empty(struct walk_state *, struct walk_end *ret_end);

/*
 * The stage of a source that cannot answer at all (a module that does not
 * load, a name no module can have): UNAVAIL with NETDB_INTERNAL, as in
 * glibc, and it will say so again until the line changes, so it does not
 * stop the walk's answer from being published.
 */
void	walk_stage_unavailable(struct stage *ret);

#endif
