/* SPDX-License-Identifier: MIT */
/* daemon/engine/lookup.h - the lookup engine: the host's hosts line, source by source, through the cache. */
#ifndef NAMECACHE_LOOKUP_H
#define NAMECACHE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "answer.h"
#include "cache.h"
#include "dnssrc.h"
#include "modsrc.h"
#include "proto.h"

struct hosts;
struct lookup;
struct nscdmap;
struct nsw_line;
struct registry_wr;
struct shm;

/*
 * The engine's seams.  Every front end (the namecache protocol, glibc's
 * nscd protocol, the DNS listener) hands the engine a request as a
 * struct lookup_req naming its own functions, and gets its answer back
 * through them, typed (answer.h), to write in its own wire format; the
 * daemon passes the real parts (wiring.c), the scenario tests
 * (tests/unit/test-engine.c) fakes.  An answer is borrowed for the call.
 */
struct lookup_frontend {
	/* The walk must wait: keep the request past the call.  NULL: no memory. */
	void	*(*hold)(void *ctx);
	void	(*reply)(void *ctx, const struct answer *);
	void	(*hold_reply)(void *hold, const struct answer *);
	/* At shutdown: the held request ends with no reply. */
	void	(*hold_release)(void *hold);
};

/* LOOKUP_ABSOLUTE: the name is whole as given; the search list is not applied. */
#define LOOKUP_ABSOLUTE	0x1u
/*
 * LOOKUP_WIRE, for lookup_rr: the DNS listener's question.  The name is
 * absolute, and the answer is ANSWER_WIRE: the records in wire form, a
 * negative answer's SOA included.
 */
#define LOOKUP_WIRE	0x2u

/* Which front end a request came through, for the monitor and metrics. */
enum lookup_fe {
	LOOKUP_FE_NONE		= 0,	/* the engine's own walk, or a test */
	LOOKUP_FE_SOCKET	= 1,	/* namecache's protocol: NSS module, libnamecache */
	LOOKUP_FE_NSCD		= 2,	/* glibc's nscd protocol */
	LOOKUP_FE_DNS		= 3,	/* the DNS listener */
	LOOKUP_FE_COUNT		= 4,
};

/* Who asked: SO_PEERCRED on the sockets, the source address on DNS. */
struct lookup_client {
	uint8_t		 fe;		/* enum lookup_fe */
	uint8_t		 family;	/* AF_INET, AF_INET6 of addr; 0: none */
	uint16_t	 port;
	int32_t		 pid;		/* -1: not known */
	uint32_t	 uid;
	uint16_t	 qtype;		/* DNS: the question's type */
	uint8_t		 addr[16];
};

/* A request, as a front end hands it over: read during the call only. */
struct lookup_req {
	const struct lookup_frontend *fe;
	void		*ctx;		/* the front end's own, given back to fe */
	unsigned	 flags;		/* LOOKUP_* */
	const struct lookup_client *client;	/* NULL: not known */
	uint64_t	 at_us;		/* asked then (µs, CLOCK_MONOTONIC); 0: now */
};

/* How the cache took part in a lookup's answer. */
enum lookup_cache {
	LOOKUP_HIT		= 0,	/* answered from what the daemon held, at once */
	LOOKUP_MISS		= 1,	/* waited for a source it asked */
	LOOKUP_STALE		= 2,	/* an expired answer, upstream failing */
	LOOKUP_COALESCED	= 3,	/* waited for a fetch another lookup began */
	LOOKUP_PREFETCH		= 4,	/* a hit that began its answer's refresh */
	LOOKUP_CACHE_COUNT	= 5,
};

/* The source whose answer ended a lookup's walk. */
enum lookup_source {
	LOOKUP_SRC_NONE		= 0,	/* none could answer: an empty line */
	LOOKUP_SRC_FILES	= 1,
	LOOKUP_SRC_DNS		= 2,
	LOOKUP_SRC_MODULE	= 3,	/* lookup_done's mod says which */
};

/* The question a lookup asked. */
enum lookup_question { LOOKUP_Q_NAME, LOOKUP_Q_ADDR, LOOKUP_Q_RR };

/* A lookup answered, as the observer is told of it: read during the call only. */
struct lookup_done {
	const struct lookup_client *client;	/* NULL: not known */
	uint8_t		 question;	/* enum lookup_question */
	uint8_t		 family;	/* PROTO_AF_* asked (NAME), of addr (ADDR) */
	uint16_t	 rr_type;	/* RR: the type asked */
	bool		 wire;		/* RR: the DNS listener's, in wire form */
	const char	*name;		/* NAME, RR */
	const uint8_t	*addr;		/* ADDR: 4 or 16 bytes */
	uint8_t		 source;	/* enum lookup_source */
	int		 mod;		/* LOOKUP_SRC_MODULE: nsspool's id */
	uint8_t		 cache;		/* enum lookup_cache */
	uint16_t	 status;	/* PROTO_* of the answer */
	uint64_t	 usec;		/* from the request to the reply */
	uint64_t	 end_us;	/* the reply's time: µs, CLOCK_MONOTONIC */
	const struct answer *answer;
};

typedef void lookup_observe_fn(void *arg, const struct lookup_done *);

/* The hosts index (hostsfile.h): borrowed until the next return to the loop. */
struct lookup_hosts {
	const struct hosts *(*get)(void *arg);
	int	(*error)(void *arg);	/* 0, or -errno: the file cannot be read */
	void	*arg;
};

struct lookup_env {
	struct lookup_hosts		 hosts;
	struct dnssrc_upstream		 upstream;
	struct modsrc_modules		 modules;
	cache_clock_fn			*now;	/* ms, never going back */
	void				*now_arg;
};

/* Every counter is the module's that counts it; this is their sum. */
struct lookup_stats {
	uint64_t	hosts_answers;	/* replies, by where the answer came from */
	uint64_t	dns_answers;
	uint64_t	cache_answers;
	uint64_t	nss_answers;
	uint64_t	stale_served;
	uint64_t	not_found;
	uint64_t	errors;
	uint64_t	republished;	/* prefetched answers published again */
	uint64_t	busy;		/* refused: too much in flight */
	uint64_t	coalesced;	/* dnssrc's */
	uint64_t	pair_stashed;	/* dnssrc's: A or AAAA held for the other */
	uint64_t	pair_stash_hits;	/* lookups answered from one */
	uint64_t	prefetches;
	uint64_t	failures_remembered;
	uint64_t	upstream_bad_replies;
	uint64_t	module_calls;	/* modsrc's */
};

/* Caller frees with lookup_free(); NULL is out of memory. */
struct lookup *lookup_new(const struct lookup_env *, const struct cache_limits *,
	    bool prefetch);
void	 lookup_free(struct lookup *);
void	 lookup_configure(struct lookup *, const struct cache_limits *, bool prefetch);

/*
 * Answers the request now, or holds it (req->fe->hold) and answers when
 * the sources have.  req and q are read during the call only.
 */
void	 lookup_name(struct lookup *, const struct lookup_req *req,
	    const struct proto_lookup_name *q);
void	 lookup_addr(struct lookup *, const struct lookup_req *req,
	    const struct proto_lookup_addr *q);
/* Records of any type: DNS alone, whatever the hosts line says (LOOKUP_WIRE). */
void	 lookup_rr(struct lookup *, const struct lookup_req *req,
	    const struct proto_query_rr *q);

/*
 * The hosts line to walk (namecache's own entry already taken out): files
 * and dns answered natively, every other source by its NSS module.
 * Walks under way keep the line they began with.
 */
void	 lookup_set_line(struct lookup *, const struct nsw_line *);
/* Whether the line walked now asks dns. */
bool	 lookup_line_has_dns(const struct lookup *);
/* Upstream resolutions in flight, at most n (0: the default); more is BUSY. */
void	 lookup_set_max_fetches(struct lookup *, unsigned n);
/* TTLs of NSS modules' answers when the module gives none. */
void	 lookup_set_nss_ttls(struct lookup *, uint32_t positive, uint32_t negative);

/* Where answers are published for clients to read without asking; NULL: nowhere. */
void	 lookup_set_shm(struct lookup *, struct shm *);
void	 lookup_set_nscdmap(struct lookup *, struct nscdmap *);
/*
 * Walks (name, family) or (address) again with nobody waiting: what a
 * client asking now would be told is published, and an answer in the
 * last tenth of its TTL is refreshed upstream (the sweeper of the nscd
 * database asks this before its records expire).
 */
void	 lookup_refresh_name(struct lookup *, uint8_t family, const char *name,
	    size_t len);
void	 lookup_refresh_addr(struct lookup *, uint8_t family, const void *addr);

/*
 * fn is told of every lookup a front end asked, as it is answered (the
 * monitor, the query log, the metrics' histograms); NULL: none.
 */
void	 lookup_set_observer(struct lookup *, lookup_observe_fn *fn, void *arg);

/* Borrowed, for admin operations and statistics. */
struct cache *lookup_cache(struct lookup *);
unsigned lookup_in_flight(const struct lookup *);
void	 lookup_get_stats(const struct lookup *, struct lookup_stats *ret);
/* The engine's counters, its cache's and its store's: a registry report. */
void	 lookup_report(void *lookup, struct registry_wr *);
void	 lookup_reset_stats(struct lookup *);

#endif
