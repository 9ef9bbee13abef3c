/* SPDX-License-Identifier: MIT */
/* namecache.h - libnamecache: name lookups answered by namecached, blocking or not. */
#ifndef NAMECACHE_H
#define NAMECACHE_H

/*
 * Two ways to ask:
 *
 *   - Blocking: namecache_lookup_name() and namecache_lookup_addr().  The
 *     shared cache first (no system call on a hit), then the daemon's
 *     socket.  Thread-safe; the timeout covers the whole call.
 *
 *   - Non-blocking, for event loops: a context (struct namecache) owns one
 *     connection to the daemon.  namecache_submit_name() and
 *     namecache_submit_addr() start a query and return at once; the
 *     program watches namecache_fd() for namecache_events() and calls
 *     namecache_process() when it is ready or namecache_timeout() has
 *     passed.  Answers arrive in any order, each through its callback.
 *
 * Errors are negative NAMECACHE_ERR_* codes; namecache_strerror() names
 * them.  Every function states who owns what it returns.  The manual page
 * namecache(3) has the whole story and a complete example.
 */

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- errors --------------------------------------------------------------- */

enum namecache_error {
	NAMECACHE_OK			= 0,
	NAMECACHE_ERR_NOTFOUND		= -1,	/* no such name or address */
	NAMECACHE_ERR_NODATA		= -2,	/* the name exists, no address of the family */
	NAMECACHE_ERR_TRYAGAIN		= -3,	/* temporary failure upstream */
	NAMECACHE_ERR_BADREQUEST	= -4,	/* the daemon could not parse the request */
	NAMECACHE_ERR_BADNAME		= -5,	/* invalid name or address */
	NAMECACHE_ERR_UNSUPPORTED	= -6,	/* the daemon does not know the request */
	NAMECACHE_ERR_DENIED		= -7,	/* needs root or the daemon's admin_group */
	NAMECACHE_ERR_TOOBIG		= -8,	/* the answer does not fit in a frame */
	NAMECACHE_ERR_INTERNAL		= -9,	/* the daemon failed (out of memory) */
	NAMECACHE_ERR_BUSY		= -10,	/* the daemon has too much in flight */
	NAMECACHE_ERR_UNAVAILABLE	= -11,	/* the daemon cannot be reached */
	NAMECACHE_ERR_TIMEOUT		= -12,	/* no answer in time */
	NAMECACHE_ERR_PROTOCOL		= -13,	/* a reply that does not parse */
	NAMECACHE_ERR_INVAL		= -14,	/* a bad argument: family, flags, NULL */
	NAMECACHE_ERR_NOMEM		= -15,	/* out of memory */
	NAMECACHE_ERR_NOSOURCE		= -16,	/* every source on the hosts line
						   was unavailable (final) */
	NAMECACHE_ERR_MISS		= -17,	/* NAMECACHE_SHARED_ONLY: not in the
						   shared cache (ask the daemon) */
	NAMECACHE_ERR_NOTFOUND_TRYAGAIN	= -18,	/* no such name, after a temporary
						   failure (glibc's NOTFOUND with
						   h_errno TRY_AGAIN: getaddrinfo's
						   EAI_NONAME for AF_INET without
						   AI_CANONNAME, else EAI_AGAIN) */
};

/* A sentence for a code.  Static storage: never freed, never changes. */
const char *namecache_strerror(int error);

/* --- results ------------------------------------------------------------------ */

enum namecache_source {
	NAMECACHE_SOURCE_NONE	= 0,
	NAMECACHE_SOURCE_HOSTS	= 1,	/* the hosts file */
	NAMECACHE_SOURCE_DNS	= 2,	/* asked upstream for this lookup */
	NAMECACHE_SOURCE_CACHE	= 3,	/* the daemon's cache, or the shared cache */
	NAMECACHE_SOURCE_STALE	= 4,	/* expired, served while upstream fails */
	NAMECACHE_SOURCE_NSS	= 5,	/* an NSS module, asked for this lookup;
					   origin names it */
};

/* "hosts", "dns", "cache", "stale", "nss" or "none".  Static storage. */
const char *namecache_source_str(int source);

struct namecache_address {
	int		family;		/* AF_INET or AF_INET6 */
	union {
		struct in_addr	in;	/* AF_INET */
		struct in6_addr	in6;	/* AF_INET6 */
		uint8_t		bytes[16];
	} addr;
};

/*
 * An answer.  One allocation: every pointer points inside it.  Fields may
 * be added at the end in later versions; programs never allocate one.
 */
struct namecache_result {
	char			 *canonical;	/* never NULL; may be "" */
	char			**aliases;	/* naliases names, then NULL */
	size_t			  naliases;
	struct namecache_address *addresses;	/* in the order the source gave */
	size_t			  naddresses;
	uint32_t		  ttl;		/* seconds left; 0 for hosts answers */
	int			  source;	/* enum namecache_source */
	const char		 *origin;	/* the NSS module that gave the
						   answer (now or, from the cache,
						   before), or NULL */
	/* Added after 0.1.0, at the end: the struct's layout before it holds. */
	uint32_t		 *scope_ids;	/* naddresses entries, never NULL:
						   addresses[i]'s IPv6 scope id (the
						   interface index a module gave
						   with a link-local address, as
						   getaddrinfo's sin6_scope_id),
						   else 0 */
};

/*
 * An address as text, as inet_ntop(3) writes it (glibc's form, exactly),
 * in buf (INET6_ADDRSTRLEN bytes are enough).  Returns buf, or NULL for a
 * family other than AF_INET and AF_INET6 or a buf too short.
 */
const char *namecache_address_str(const struct namecache_address *address,
	    char *buf, size_t len);

/* Frees a result; NULL is a no-op. */
void	namecache_result_free(struct namecache_result *result);

/* --- blocking lookups ------------------------------------------------------ */

/* Flags for lookups. */
#define NAMECACHE_NO_SHARED	0x1u	/* skip the shared cache: always ask the daemon */
#define NAMECACHE_SHARED_ONLY	0x2u	/* the shared cache alone, never the socket:
					   a miss is NAMECACHE_ERR_MISS */
#define NAMECACHE_SORT		0x4u	/* addresses in getaddrinfo's order: RFC 6724
					   with /etc/gai.conf, as glibc sorts them
					   (see namecache_sort_addresses()) */
#define NAMECACHE_ADDRCONFIG	0x8u	/* names only: as AI_ADDRCONFIG, only the
					   families the host has an address of
					   (see namecache_addrconfig()) */

/* timeout_ms of 0 or less means NAMECACHE_TIMEOUT_DEFAULT. */
#define NAMECACHE_TIMEOUT_DEFAULT	15000

/*
 * Looks name up, for family AF_UNSPEC (every address, as getaddrinfo
 * sees them), AF_INET or AF_INET6.  The shared cache answers first; else
 * the daemon at $NAMECACHE_SOCKET (read with secure_getenv) or the
 * built-in path.  timeout_ms bounds the whole call, connecting included.
 * Returns 0 and *ret_result (caller frees with namecache_result_free()),
 * or a NAMECACHE_ERR_* code with *ret_result untouched.  Thread-safe;
 * errno preserved.
 */
int	namecache_lookup_name(const char *name, int family, unsigned flags,
	    int timeout_ms, struct namecache_result **ret_result);

/*
 * The name of an address: family AF_INET with 4 bytes at addr, or AF_INET6
 * with 16 (a v4-mapped one is answered as its IPv4 address).  Otherwise
 * as namecache_lookup_name(); *ret_result: caller frees with
 * namecache_result_free().
 */
int	namecache_lookup_addr(int family, const void *addr, unsigned flags,
	    int timeout_ms, struct namecache_result **ret_result);

/*
 * Sorts count addresses into the order glibc's getaddrinfo would give them
 * (RFC 6724's destination address selection, glibc's tables and quirks,
 * /etc/gai.conf read once, or on every sort with "reload yes").  The
 * source address each destination would use is asked of the kernel (a
 * UDP connect) and cached, with the host's address list, for as long as
 * the daemon's shared segment says no address or route changed; with no
 * daemon, every sort asks anew, as getaddrinfo does.  Ties keep the given
 * order.  Thread-safe; errno preserved.  Returns 0, NAMECACHE_ERR_INVAL
 * (a family that is neither AF_INET nor AF_INET6), or NAMECACHE_ERR_NOMEM.
 */
int	namecache_sort_addresses(struct namecache_address *addresses, size_t count);

/*
 * The same for addresses with scope ids: scope_ids has count entries
 * (sin6_scope_id's; 0 for none, and ignored for AF_INET), moved with the
 * addresses.  A link-local address is reachable only through its scope,
 * so the sort (rule 1) depends on it, as glibc's does: sort a result as
 * namecache_sort_addresses_scoped(r->addresses, r->scope_ids,
 * r->naddresses), or ask with NAMECACHE_SORT.  scope_ids may be NULL
 * (namecache_sort_addresses()).  Returns as namecache_sort_addresses().
 */
int	namecache_sort_addresses_scoped(struct namecache_address *addresses,
	    uint32_t *scope_ids, size_t count);

/*
 * AI_ADDRCONFIG's test, as glibc makes it: *ret_ipv4 is 1 when the host
 * has an IPv4 address other than 127.0.0.1, *ret_ipv6 when it has an IPv6
 * address other than ::1 (both 1 when the kernel cannot be asked).  Cached
 * as namecache_sort_addresses() caches.  Returns 0 or NAMECACHE_ERR_INVAL.
 */
int	namecache_addrconfig(int *ret_ipv4, int *ret_ipv6);

/*
 * The socket path the library uses when given none: $NAMECACHE_SOCKET
 * (secure_getenv) or the built-in path.  Borrowed, valid until the
 * environment changes.
 */
const char *namecache_socket_path(void);

/* --- non-blocking: contexts and queries ---------------------------------- */

struct namecache;		/* a context: one connection, many queries */
struct namecache_query;		/* one query in flight */

/*
 * Called once per query that did not fail at submit.  error is 0 with
 * result set (the callee owns it: frees with namecache_result_free()), or
 * a NAMECACHE_ERR_* code with result NULL.  query is borrowed, valid until
 * the callback returns.  The callback may submit and cancel other queries
 * on ctx, but must not free ctx.
 */
typedef void namecache_callback(struct namecache *ctx,
	    struct namecache_query *query, int error,
	    struct namecache_result *result, void *arg);

/*
 * A context for the daemon at socket_path (NULL: namecache_socket_path()).
 * It connects when a query first needs the daemon, and again after the
 * daemon restarts.  Returns 0 and *ret_ctx (caller frees with
 * namecache_free()), NAMECACHE_ERR_NOMEM, or NAMECACHE_ERR_INVAL for a
 * path too long.  A context is not thread-safe: one thread at a time.
 */
int	namecache_new(const char *socket_path, struct namecache **ret_ctx);

/*
 * Connects now, if ctx has no connection (queries connect by themselves:
 * this is for a program that wants to know at once, or to watch the
 * descriptor from the start).  Returns 0 or NAMECACHE_ERR_UNAVAILABLE,
 * with the reason in namecache_errno().
 */
int	namecache_connect(struct namecache *ctx);

/*
 * Closes the connection and frees ctx with every query still on it; their
 * callbacks are not called.  NULL is a no-op.  Not from a callback.
 */
void	namecache_free(struct namecache *ctx);

/*
 * Starts a lookup of name (as namecache_lookup_name()).  timeout_ms bounds
 * the query (0 or less: NAMECACHE_TIMEOUT_DEFAULT).
 *   1: answered at once from the shared cache: callback has already run,
 *      *ret_query (if ret_query is not NULL) is set to NULL;
 *   0: pending: *ret_query is the handle (borrowed, valid until its
 *      callback returns or namecache_cancel()); the callback runs from
 *      namecache_process() or namecache_wait();
 *   < 0: failed at once (bad name or family, no daemon to connect to, no
 *      memory): the callback will not run.
 * arg is passed to callback untouched (the library never frees it).
 */
int	namecache_submit_name(struct namecache *ctx, const char *name,
	    int family, unsigned flags, int timeout_ms,
	    namecache_callback *callback, void *arg,
	    struct namecache_query **ret_query);

/* As namecache_submit_name(), for the name of an address (see namecache_lookup_addr()). */
int	namecache_submit_addr(struct namecache *ctx, int family, const void *addr,
	    unsigned flags, int timeout_ms, namecache_callback *callback,
	    void *arg, struct namecache_query **ret_query);

/*
 * Forgets a pending query: its callback will not run, and a late answer is
 * dropped.  The handle is invalid afterwards.  Returns 0, or
 * NAMECACHE_ERR_INVAL for a query whose callback is running.
 */
int	namecache_cancel(struct namecache *ctx, struct namecache_query *query);

/*
 * The descriptor to watch, or -1 when there is no connection.  It may
 * change after any call on ctx (a reconnect): check it again after each.
 * Borrowed: never close it.
 */
int	namecache_fd(const struct namecache *ctx);

/* The poll(2) events to wait for on namecache_fd(): POLLIN, maybe POLLOUT. */
short	namecache_events(const struct namecache *ctx);

/*
 * Milliseconds until namecache_process() must run even if the descriptor
 * is not ready: 0 when answers are waiting to be delivered, -1 when
 * nothing is pending.
 */
int	namecache_timeout(const struct namecache *ctx);

/*
 * Sends, receives and delivers without blocking: runs the callbacks of
 * answered, failed and timed-out queries.  Call it when namecache_fd() is
 * ready or namecache_timeout() has passed (calling it at other times is
 * harmless).  Returns the number of callbacks run.
 */
int	namecache_process(struct namecache *ctx);

/* Queries on ctx whose callbacks have not run yet. */
size_t	namecache_pending(const struct namecache *ctx);

/*
 * Blocks until no query is pending on ctx, running callbacks, or until
 * timeout_ms passes (less than 0: no limit).  Returns 0 or
 * NAMECACHE_ERR_TIMEOUT.
 */
int	namecache_wait(struct namecache *ctx, int timeout_ms);

/*
 * What the daemon said about the last failure on ctx (its reason, such as
 * "label longer than 63 characters"), or NULL.  Set for a failed blocking
 * call on ctx and while a failed query's callback runs.  Borrowed, valid
 * until the next call on ctx.
 */
const char *namecache_reason(const struct namecache *ctx);

/*
 * The system error (an errno value) behind the last failure on ctx that
 * was not the daemon's answer: ECONNREFUSED or ENOENT when it cannot be
 * reached, ECONNRESET when it hung up, ETIMEDOUT, EBADMSG for a reply
 * that broke the framing; 0 for a reply that arrived whole.
 */
int	namecache_errno(const struct namecache *ctx);

/* --- records of any type, statistics, administration ----------------------- */

/*
 * These block on a context: they send one request on ctx's connection and
 * run ctx's processing until its answer (other queries' callbacks may run
 * meanwhile).  They return 0 or a NAMECACHE_ERR_* code, and never use the
 * shared cache.  Administration needs root or the daemon's admin_group,
 * else NAMECACHE_ERR_DENIED.
 */

struct namecache_record {
	char		*owner;		/* the record's name */
	uint16_t	 type;		/* DNS type */
	uint32_t	 ttl;
	char		*data;		/* rdata in presentation (master file) form */
};

struct namecache_records {
	uint32_t		 ttl;		/* seconds left */
	int			 source;	/* enum namecache_source */
	size_t			 count;
	struct namecache_record	*records;	/* CNAME chain first, then the records */
};

/*
 * Records of DNS type for name (namecachectl query -t).  *ret_records:
 * caller frees with namecache_records_free().
 */
int	namecache_query_records(struct namecache *ctx, const char *name,
	    uint16_t type, int timeout_ms, struct namecache_records **ret_records);
void	namecache_records_free(struct namecache_records *records);

/* A type's mnemonic ("MX") or "TYPE65280"; borrowed: static, or buf. */
const char *namecache_rrtype_str(uint16_t type, char *buf, size_t len);
/* The type a mnemonic or "TYPEnnn" names, or NAMECACHE_ERR_INVAL. */
int	namecache_rrtype_parse(const char *name);

enum namecache_value_kind {
	NAMECACHE_VALUE_NUMBER	= 0,
	NAMECACHE_VALUE_STRING	= 1,
};

struct namecache_value {
	char		*key;		/* "cache_hits"; new keys may appear */
	int		 kind;		/* enum namecache_value_kind */
	uint64_t	 number;	/* NAMECACHE_VALUE_NUMBER */
	char		*string;	/* NAMECACHE_VALUE_STRING, else NULL */
};

struct namecache_values {
	size_t			 count;
	struct namecache_value	*values;	/* in the daemon's order */
};

/*
 * The daemon's counters (statistics) or its configuration and state
 * (status).  *ret_values: caller frees with namecache_values_free().
 */
int	namecache_statistics(struct namecache *ctx, int timeout_ms,
	    struct namecache_values **ret_values);
int	namecache_status(struct namecache *ctx, int timeout_ms,
	    struct namecache_values **ret_values);
void	namecache_values_free(struct namecache_values *values);

#define NAMECACHE_ENTRY_EXPIRED	0x1u

struct namecache_cache_entry {
	char		*name;
	uint32_t	 kind;		/* a DNS type; 0x10000 | type for records;
					   0x20000 | ... for an NSS module's answer */
	int		 status;	/* 0, or NOTFOUND, NODATA, TRYAGAIN (a failure) */
	unsigned	 flags;		/* NAMECACHE_ENTRY_EXPIRED */
	uint32_t	 ttl;		/* seconds left */
	char		*origin;	/* kind 0x20000 | ...: the NSS module, else NULL */
};

struct namecache_cache_page {
	uint64_t			 next;	/* cursor of the next page; 0: the last */
	size_t				 count;
	struct namecache_cache_entry	*entries;
};

/*
 * One page of the daemon's cache: cursor 0 for the first, then each page's
 * next.  *ret_page: caller frees with namecache_cache_page_free().
 */
int	namecache_show_cache(struct namecache *ctx, uint64_t cursor,
	    int timeout_ms, struct namecache_cache_page **ret_page);
void	namecache_cache_page_free(struct namecache_cache_page *page);
/*
 * The same for one database of glibc's nscd protocol: "hosts" (as
 * namecache_show_cache), or "passwd", "group", "services", "netgroup",
 * whose entries have kind NAMECACHE_KIND_NSCD | glibc's request type, name
 * "uid 1000" (what the key is, then the key), status 0 or NOTFOUND, and
 * in origin a summary of the answer.
 */
#define NAMECACHE_KIND_NSCD	0x100000u
int	namecache_show_database(struct namecache *ctx, const char *database,
	    uint64_t cursor, int timeout_ms, struct namecache_cache_page **ret_page);

/* Administration.  ret_count, when not NULL, gets the answers dropped. */
int	namecache_flush_caches(struct namecache *ctx, int timeout_ms,
	    uint64_t *ret_count);
/* One database's answers: "hosts", "passwd", "group", "services", "netgroup". */
int	namecache_flush_database(struct namecache *ctx, const char *database,
	    int timeout_ms, uint64_t *ret_count);
int	namecache_invalidate(struct namecache *ctx, const char *name,
	    int timeout_ms, uint64_t *ret_count);
int	namecache_reset_statistics(struct namecache *ctx, int timeout_ms);
int	namecache_reload(struct namecache *ctx, int timeout_ms);

/*
 * The daemon's metrics, in Prometheus' text format (version 0.0.4), as
 * GET /metrics gives them: *ret_text is NUL-terminated, *ret_len its
 * length (ret_len may be NULL); caller frees with free().
 */
int	namecache_metrics(struct namecache *ctx, int timeout_ms, char **ret_text,
	    size_t *ret_len);

/*
 * The monitor: every lookup the daemon answers, as it answers it (admin
 * only: root or the daemon's admin_group).  It has a connection of its
 * own.  Hits clients read from the shared segment or glibc's nscd maps
 * never reach the daemon and are not shown (namecache_monitor_note).
 */
struct namecache_monitor;

struct namecache_event {
	int64_t		 time_us;	/* answered then: µs since the epoch */
	uint32_t	 latency_us;	/* from the request to the reply */
	uint64_t	 lost;		/* events this monitor lost before this one
					   (it did not read fast enough) */
	const char	*frontend;	/* "socket", "nscd", "dns"; "": a report
					   of losses alone, the rest empty */
	int		 pid;		/* the client's; -1: not known (dns) */
	unsigned	 uid;
	const char	*client;	/* dns: "ADDR:PORT" of the asker; else "" */
	const char	*command;	/* the client's comm; "" if gone */
	const char	*name;		/* the name, or the address, asked */
	const char	*kind;		/* "AF_INET", "AF_INET6", "AF_UNSPEC",
					   "PTR", or a DNS type: "A", "MX" */
	const char	*source;	/* "files", "dns", a module's name, "none" */
	const char	*cache;		/* "hit", "miss", "stale", "coalesced",
					   "prefetch" */
	const char	*result;	/* "found", "not found", "no data", "failure" */
	const char	*status;	/* the daemon's status in words */
	size_t		 naddresses;
	const char *const *addresses;	/* the answer: addresses, or names of an
					   address, or records ("MX 10 mx.example.") */
};

/*
 * Connects and asks to monitor.  Returns 0 with *ret_monitor (close with
 * namecache_monitor_close()), or an error: NAMECACHE_ERR_DENIED for a
 * caller who is not admin, NAMECACHE_ERR_BUSY when too many monitor
 * already; *ret_reason (when not NULL) gets the daemon's words, or NULL
 * (caller frees).
 */
int	namecache_monitor_open(const char *socket_path, int timeout_ms,
	    struct namecache_monitor **ret_monitor, char **ret_reason);
/* What the monitor cannot show, in the daemon's words.  Borrowed. */
const char *namecache_monitor_note(const struct namecache_monitor *mon);
/* Its descriptor, to poll for POLLIN. */
int	namecache_monitor_fd(const struct namecache_monitor *mon);
/*
 * The next event, waiting up to timeout_ms (-1: for ever): 1 with
 * *ret_event (borrowed until the next call), 0 when none came in time, or
 * an error (NAMECACHE_ERR_UNAVAILABLE: the daemon has gone).
 */
int	namecache_monitor_next(struct namecache_monitor *mon, int timeout_ms,
	    const struct namecache_event **ret_event);
void	namecache_monitor_close(struct namecache_monitor *mon);

/* A name's validity as the daemon judges it: 0, or NAMECACHE_ERR_BADNAME
 * with a static reason in *ret_why when ret_why is not NULL. */
int	namecache_check_name(const char *name, const char **ret_why);

#ifdef __cplusplus
}
#endif

#endif
