/* SPDX-License-Identifier: MIT */
/* daemon/observe/registry.h - every module's numbers, for `namecachectl statistics' and the metrics. */
#ifndef NAMECACHE_REGISTRY_H
#define NAMECACHE_REGISTRY_H

#include <stdint.h>

/*
 * Each module keeps its own counters and writes them, when asked, in a
 * report: one call per number, with its key, its value, its kind and
 * what it means.  main.c registers every report once, at start, in the
 * order `namecachectl statistics' lists them; a reading runs them all in
 * that order, and its reader (the statistics reply, the Prometheus text)
 * sees each key once.  A key that several reports write is one number,
 * their sum, in the place of the first (both sockets count "requests").
 *
 * Keys are part of the protocol: add new ones, never rename.  The kind
 * is the module's to declare: the metrics name a counter
 * namecache_KEY_total and a gauge namecache_KEY.
 *
 * Single-threaded: the loop's, as are the reports.
 */

struct proto_kv_wr;
struct registry;
struct registry_wr;

enum registry_kind {
	REGISTRY_COUNTER,	/* counts up from the start or the last reset */
	REGISTRY_GAUGE,		/* a level: open, held, in flight, the longest */
	REGISTRY_LABELLED,	/* in statistics only: the metrics show it as
				   a family with labels of their own */
};

/* One number of a reading: borrowed, for the reader's call. */
struct registry_entry {
	const char		*key;
	uint64_t		 value;
	enum registry_kind	 kind;
	const char		*help;		/* NULL: none */
};

#define REGISTRY_REPORTS_MAX	32
#define REGISTRY_KEYS_MAX	1024	/* numbers in one reading */

/* Writes the module's numbers into wr (registry_counter, _gauge, _put). */
typedef void registry_report_fn(void *arg, struct registry_wr *wr);

/* Caller frees with registry_free(); NULL is out of memory. */
struct registry *registry_new(void);
void	registry_free(struct registry *);

/*
 * fn(arg, ...) at every reading from now on, after those added before.
 * arg is borrowed, valid until registry_free().  0, or -ENOSPC past
 * REGISTRY_REPORTS_MAX.
 */
int	registry_add(struct registry *, registry_report_fn *fn, void *arg);

/*
 * Inside a report: one number.  key is copied (at most PROTO_KEY_MAX
 * bytes); help is borrowed for the reading, and NULL when the key says
 * it all.  A key written twice is summed: both writers give one kind.
 */
void	registry_put(struct registry_wr *, const char *key, uint64_t value,
	    enum registry_kind, const char *help);
void	registry_counter(struct registry_wr *, const char *key, uint64_t value,
	    const char *help);
void	registry_gauge(struct registry_wr *, const char *key, uint64_t value,
	    const char *help);

/*
 * Runs every report, then calls fn once per key, in order (fn must not
 * read the registry again).  0, or -E2BIG (more than REGISTRY_KEYS_MAX
 * keys: fn is not called).
 */
int	registry_read(struct registry *,
	    void (*fn)(void *arg, const struct registry_entry *), void *arg);
/* One number, as statistics show it: 0, -ENOENT (no such key), or as registry_read. */
int	registry_get(struct registry *, const char *key, uint64_t *ret);
/* `namecachectl statistics': every number as a kv item.  As registry_read. */
int	registry_write_kv(struct registry *, struct proto_kv_wr *);

#endif
