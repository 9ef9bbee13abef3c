/* SPDX-License-Identifier: MIT */
/* daemon/main.c - namecached: flags, config, signals, the event loop. */
#include <errno.h>
#include <malloc.h>
#include <nss.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "buildinfo.h"
#include "config.h"
#include "daemon.h"
#include "hash.h"
#include "hostsfile.h"
#include "httpmetrics.h"
#include "listener.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "monitor.h"
#include "wiring.h"
#include "nsspool.h"
#include "nsswitch.h"
#include "resolver.h"
#include "nscdmap.h"
#include "netwatch.h"
#include "nscdsrv.h"
#include "protocol.h"
#include "registry.h"
#include "server.h"
#include "dnslisten.h"
#include "shm.h"
#include "shmfmt.h"
#include "watch.h"

#define HOST_CONF	"/etc/host.conf"

/* Flags given on the command line: applied over the file on every load. */
struct flag {
	const char	*key;
	const char	*value;
};

static struct daemon	 daemon_ctx;
static struct flag	 flags[8];
static int		 nflags;
static struct event	*notify_ev;	/* WATCHDOG=1 and STATUS= */
static bool		 notify_enabled;	/* NOTIFY_SOCKET is set */
static bool		 watchdog_enabled;
static struct event	*heartbeat_ev;
static struct event	*nscd_tick_ev;
static struct netwatch	*netwatch;

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: namecached [OPTION]...\n"
"Caching name service: answers lookups from /etc/hosts and DNS over a Unix socket.\n"
"\n"
"  --config FILE        configuration file (default " NAMECACHE_CONFIG_PATH ")\n"
"  --socket PATH        socket to listen on (default " NAMECACHE_SOCKET_PATH ")\n"
"  --hosts-file FILE    hosts file to serve (default /etc/hosts)\n"
"  --resolv-conf FILE   resolver configuration (default /etc/resolv.conf)\n"
"  --nsswitch-conf FILE the hosts: line to answer for (default /etc/nsswitch.conf)\n"
"  --nscd-socket PATH   also speak glibc's nscd protocol there, for hosts\n"
"                       (glibc's client uses /var/run/nscd/socket)\n"
"  --upstream \"ADDR[:PORT] ...\"  DNS servers to use instead of resolv.conf's\n"
"  --dns-listen \"ADDR[:PORT] ...\"  also answer DNS there, UDP and TCP (port 53)\n"
"  --log-level LEVEL    error, warning, info or debug\n"
"  --version            print the version and exit\n"
"  --help               print this help and exit\n"
"\n"
"Flags override the configuration file.  SIGHUP reloads; SIGTERM stops.\n");
}

static int
load_config(struct config **ret_config)
{
	struct config	*c = NULL;
	char		*err = NULL;
	int		 i, r;

	r = config_load(daemon_ctx.config_path,
	    strcmp(daemon_ctx.config_path, NAMECACHE_CONFIG_PATH) != 0, &c, &err);
	if (r < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		return r;
	}
	for (i = 0; i < nflags; i++) {
		if ((r = config_set(c, flags[i].key, flags[i].value, &err)) < 0) {
			log_error("--%s: %s", flags[i].key, err ? err : strerror(-r));
			free(err);
			config_free(c);
			return r;
		}
	}
	if ((r = config_check(c, &err)) < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		config_free(c);
		return r;
	}
	*ret_config = c;
	return 0;
}

/*
 * STATUS= for `systemctl status`: live figures, sent at start, after a
 * reload and from the notify timer when they changed.
 */
static void
notify_status(bool force)
{
	static char		 last[256];
	struct hostsfile_status	 hs;
	struct lookup_stats	 ls;
	const struct lookup_stats *st = &ls;
	char			 msg[256];
	uint64_t		 answered, requests = 0;

	if (!notify_enabled)
		return;
	registry_get(daemon_ctx.registry, "requests", &requests);	/* both sockets' */
	hostsfile_get_status(daemon_ctx.hosts, &hs);
	lookup_get_stats(daemon_ctx.lookup, &ls);
	answered = st->hosts_answers + st->cache_answers + st->dns_answers;
	snprintf(msg, sizeof(msg), "STATUS=%zu hosts entries, %zu cached answers, "
	    "%u clients; %llu requests, %llu%% from hosts and cache",
	    hs.info.entries, cache_count(lookup_cache(daemon_ctx.lookup)),
	    server_clients(protocol_server(daemon_ctx.proto)),
	    (unsigned long long)requests,
	    answered ? (unsigned long long)((st->hosts_answers +
	    st->cache_answers) * 100 / answered) : 0ULL);
	if (!force && strcmp(msg, last) == 0)
		return;
	snprintf(last, sizeof(last), "%s", msg);
	sd_notify(0, msg);
}

static int64_t
clock_ms(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Published answers go at once: after a hosts reload, a flush, a new search list. */
static void
shared_reset(void)
{
	if (daemon_ctx.shm && shm_reset(daemon_ctx.shm) < 0)
		log_warning("shared segment: cannot start a new one: %s",
		    strerror(errno));
	if (nscdsrv_map(daemon_ctx.nscd))
		nscdmap_reset(nscdsrv_map(daemon_ctx.nscd));
}

/*
 * A flush: every answer goes, from the cache and from what clients map
 * (the shared segment, the nscd map).  For namecachectl flush-caches,
 * nscd's INVALIDATE of hosts, a new search list.  Returns the number of
 * answers the cache held.
 */
static size_t
flush(void)
{
	struct cache	*c = lookup_cache(daemon_ctx.lookup);
	size_t		 n = cache_count(c);

	cache_flush(c);
	shared_reset();
	return n;
}

/*
 * What the cache's answers rest on, written into its store so that the
 * next daemon keeps only what still holds: the search list and ndots
 * (DNS answers), the hosts line (NSS modules' answers).
 */
static void
store_fps(void)
{
	const char *const	*domains;
	uint64_t		 search = HASH_FNV1A_INIT, modules = HASH_FNV1A_INIT;
	int			 ndots, i;
	uint8_t			 nd;

	resolver_search(daemon_ctx.resolver, &domains, &ndots);
	for (i = 0; domains && domains[i]; i++)
		search = hash_fnv1a(search, domains[i], strlen(domains[i]) + 1);
	nd = (uint8_t)ndots;
	search = hash_fnv1a(search, &nd, 1);
	modules = hash_fnv1a(modules, daemon_ctx.hosts_line,
	    strlen(daemon_ctx.hosts_line));
	cache_set_fps(lookup_cache(daemon_ctx.lookup), search, modules);
}

/*
 * The cache moves into its file beside the socket, taking over what the
 * daemon before left there (a restart costs no upstream query).
 */
static void
store_open(void)
{
	struct cache_adopt_report	 rep;
	char				 path[4096];
	const char			*slash = strrchr(daemon_ctx.config->socket, '/');
	size_t				 dir;
	int				 r;

	if (daemon_ctx.config->persistent_cache[0])
		snprintf(path, sizeof(path), "%s", daemon_ctx.config->persistent_cache);
	else if (slash == NULL || (dir = (size_t)(slash - daemon_ctx.config->socket)) +
	    sizeof("/store") > sizeof(path))
		return;
	else {
		memcpy(path, daemon_ctx.config->socket, dir);
		memcpy(path + dir, "/store", sizeof("/store"));
	}
	store_fps();
	if ((r = cache_open_file(lookup_cache(daemon_ctx.lookup), path, &rep)) < 0) {
		log_warning("cache: cannot make %s (%s): answers are kept in memory "
		    "only, and a restart loses them", path, strerror(-r));
		return;
	}
	if (rep.why)
		log_warning("cache: %s left by the daemon before was not taken "
		    "over: %s; starting empty", path, rep.why);
	else if (rep.adopted + rep.expired + rep.mismatched + rep.dropped +
	    rep.no_room > 0)
		log_info("cache: took over %zu answers from %s in %.1f ms (%zu of "
		    "them stale%s); left out %zu past use, %zu of another search "
		    "list or hosts line, %zu that failed a check, %zu past the "
		    "bounds", rep.adopted, path, (double)rep.usec / 1000, rep.stale,
		    rep.rebooted ? "; written before the last boot, its times "
		    "carried over by the real time" : "",
		    rep.expired, rep.mismatched, rep.dropped, rep.no_room);
}

/* Answers found through the old search list may no longer be what it finds. */
static void
search_changed(void *arg)
{
	size_t n = flush();

	store_fps();
	log_info("search list or ndots changed: flushed %zu cached answers", n);
}

static void
hosts_changed(void *arg)
{
	shared_reset();
}

/*
 * Reads the hosts line again: namecache's own entry out, the rest walked
 * for every lookup from now on.  A file that is missing or unreadable
 * gives glibc's default line, as in glibc; one that glibc would reject
 * keeps the line in place (at start: the default), with the reason in
 * `namecachectl status`.  Answers published under another line go.
 */
static void
nsswitch_load(bool initial)
{
	struct nsw_line	 l;
	const char	*path = daemon_ctx.config->nsswitch_conf;
	char		 text[sizeof(daemon_ctx.hosts_line)];
	bool		 found = false;
	FILE		*f;
	int		 r = 0;

	daemon_ctx.counters.nsswitch_reloads += !initial;
	nscdsrv_load_lines(daemon_ctx.nscd);	/* passwd, group, ...: theirs */
	daemon_ctx.nsswitch_error[0] = '\0';
	if ((f = fopen(path, "re")) == NULL) {
		if (errno != ENOENT && errno != EACCES && errno != EISDIR &&
		    errno != ELOOP && errno != ENOTDIR && errno != EPERM)
			r = -errno;
		else
			nsw_default(&l);
	} else {
		r = nsw_parse_file(f, &l, &found);
		fclose(f);
	}
	if (r < 0) {
		snprintf(daemon_ctx.nsswitch_error, sizeof(daemon_ctx.nsswitch_error),
		    "%s: %s", path, r == -EINVAL ? "a line glibc rejects" :
		    r == -E2BIG ? "more than 16 sources, or a name too long" :
		    strerror(-r));
		log_error("nsswitch: %s; %s", daemon_ctx.nsswitch_error,
		    initial ? "using glibc's default line" : "keeping the line in place");
		if (!initial)
			return;
		nsw_default(&l);
	}
	if (nsw_drop(&l, "namecache") == 0 && found)
		log_info("nsswitch: %s does not name namecache on its hosts line: "
		    "answering for the whole line", path);
	nsw_format(&l, text, sizeof(text));
	if (!initial && strcmp(text, daemon_ctx.hosts_line) == 0)
		return;
	snprintf(daemon_ctx.hosts_line, sizeof(daemon_ctx.hosts_line), "%s", text);
	lookup_set_line(daemon_ctx.lookup, &l);
	/*
	 * Whatever resolves inside the daemon (a module calling getaddrinfo)
	 * walks the same line, and never reaches namecache itself.
	 */
	__nss_configure_lookup("hosts", text);
	log_info("nsswitch: hosts: %s%s", text[0] ? text : "(no source)",
	    found ? "" : " (glibc's default: no hosts line)");
	if (!initial) {
		store_fps();
		shared_reset();
	}
}

static void
nsswitch_changed(void *arg)
{
	nsswitch_load(false);
	watch_rearm(daemon_ctx.nsswitch_watch);
}

static int
nsswitch_watch(void)
{
	watch_free(daemon_ctx.nsswitch_watch);
	daemon_ctx.nsswitch_watch = watch_new(daemon_ctx.base,
	    daemon_ctx.config->nsswitch_conf, nsswitch_changed, NULL);
	if (daemon_ctx.nsswitch_watch == NULL) {
		log_error("nsswitch: cannot watch %s: %s",
		    daemon_ctx.config->nsswitch_conf, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Each lookup answered: counted for the metrics, shown, logged. */
static void
observe(void *arg, const struct lookup_done *d)
{
	metrics_lookup(daemon_ctx.metrics, d, monitor_source_str(daemon_ctx.monitor, d));
	monitor_lookup(daemon_ctx.monitor, d);
}

/* --- what the front ends may ask of the daemon (daemon_ops) ------------- */

static void reload(void);

static void
op_reload(void *arg)
{
	reload();
}

static size_t
op_flush(void *arg)
{
	return flush();
}

/* One name's answers go, wherever they are: namecachectl invalidate. */
static size_t
op_invalidate(void *arg, const char *name)
{
	struct daemon	*d = arg;
	struct cache	*c = lookup_cache(d->lookup);
	char		 key[2 * PROTO_NAME_MAX + 4];
	size_t		 n = cache_invalidate(c, name);

	/* Only this name's records go: other names keep their hits. */
	if (d->shm)
		shm_retire_name(d->shm, name, strlen(name));
	if (nscdsrv_map(d->nscd))
		nscdmap_retire_name(nscdsrv_map(d->nscd), name, strlen(name));
	/* A module's answers for that spelling, capitals and all. */
	modsrc_key(name, key, sizeof(key));
	if (strcmp(key, name) != 0)
		n += cache_invalidate(c, key);
	return n;
}

/* Every module's counters, each reset by its owner. */
static void
op_reset_statistics(void *arg)
{
	struct daemon *d = arg;

	memset(&d->counters, 0, sizeof(d->counters));
	server_reset_stats(protocol_server(d->proto));
	hostsfile_reset_stats(d->hosts);
	resolver_reset_stats(d->resolver);
	nsspool_reset_stats(d->nss);
	nscdsrv_reset_stats(d->nscd);
	dnslisten_reset_stats(d->dns);
	lookup_reset_stats(d->lookup);
	monitor_reset_stats(d->monitor);
	metrics_reset(d->metrics);
}

/* `namecachectl status': the settings in force and the state of each part. */
static void
op_status(void *arg, struct proto_kv_wr *kw)
{
	struct daemon		*d = arg;
	struct server		*srv = protocol_server(d->proto);
	struct hostsfile_status	hs;
	struct resolver_info	ri;
	struct timespec		now;
	char			stamp[96];

	hostsfile_get_status(d->hosts, &hs);
	resolver_get_info(d->resolver, &ri);
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(stamp, sizeof(stamp), "%llu:%lld:%lld.%09ld",
	    (unsigned long long)hs.st.st_ino, (long long)hs.st.st_size,
	    (long long)hs.st.st_mtim.tv_sec, hs.st.st_mtim.tv_nsec);

	proto_kv_str(kw, "version", NAMECACHE_VERSION);
	proto_kv_u64(kw, "pid", (uint64_t)getpid());
	proto_kv_u64(kw, "uptime_sec", (uint64_t)(now.tv_sec - d->started.tv_sec));
	proto_kv_str(kw, "config_file", d->config_path);
	proto_kv_str(kw, "socket", d->config->socket);
	proto_kv_str(kw, "socket_activated",
	    server_socket_activated(srv) ? "yes" : "no");
	proto_kv_u64(kw, "clients", server_clients(srv));
	proto_kv_u64(kw, "max_clients", d->config->max_clients);
	proto_kv_str(kw, "log_level", log_level_str(d->config->log_level));
	proto_kv_str(kw, "log_queries", d->config->log_queries ? "yes" : "no");
	proto_kv_str(kw, "metrics_listen", d->config->metrics_listen);
	proto_kv_str(kw, "hosts_file", hs.path ? hs.path : "");
	proto_kv_u64(kw, "hosts_generation", hs.generation);
	proto_kv_str(kw, "hosts_stamp", stamp);
	proto_kv_str(kw, "hosts_error", hs.last_error ? strerror(-hs.last_error) : "");
	proto_kv_str(kw, "hosts_multi", hs.info.flags & HOSTS_MULTI ? "yes" : "no");
	proto_kv_u64(kw, "hosts_lines", hs.info.lines);
	proto_kv_u64(kw, "hosts_entries", hs.info.entries);
	proto_kv_u64(kw, "hosts_invalid_lines", hs.info.invalid);
	proto_kv_u64(kw, "hosts_names", hs.info.names);
	proto_kv_u64(kw, "hosts_memory_bytes", hs.info.memory);
	proto_kv_u64(kw, "hosts_text_bytes", hs.info.text);
	proto_kv_u64(kw, "hosts_load_usec", (uint64_t)hs.load_usec);
	proto_kv_str(kw, "resolv_conf", ri.resolv_conf);
	proto_kv_str(kw, "dns_servers", ri.servers);
	proto_kv_str(kw, "dns_search", ri.search);
	proto_kv_u64(kw, "dns_ndots", (uint64_t)ri.ndots);
	proto_kv_u64(kw, "dns_timeout_ms", (uint64_t)ri.timeout_ms);
	proto_kv_u64(kw, "dns_attempts", (uint64_t)ri.attempts);
	proto_kv_u64(kw, "dns_generation", ri.generation);
	proto_kv_u64(kw, "cache_size", d->config->cache_size);
	proto_kv_u64(kw, "cache_entries", cache_count(lookup_cache(d->lookup)));
	proto_kv_u64(kw, "min_ttl", d->config->min_ttl);
	proto_kv_u64(kw, "max_ttl", d->config->max_ttl);
	proto_kv_u64(kw, "negative_max_ttl", d->config->negative_max_ttl);
	proto_kv_u64(kw, "failure_ttl", d->config->failure_ttl);
	proto_kv_u64(kw, "serve_stale", d->config->serve_stale);
	proto_kv_str(kw, "prefetch", d->config->prefetch ? "yes" : "no");
	proto_kv_str(kw, "nsswitch_conf", d->config->nsswitch_conf);
	proto_kv_str(kw, "hosts_line", d->hosts_line);
	proto_kv_str(kw, "nsswitch_error", d->nsswitch_error);
	proto_kv_u64(kw, "nss_workers_max", d->config->nss_workers);
	proto_kv_u64(kw, "nss_workers_busy", nsspool_busy(d->nss));
	proto_kv_u64(kw, "nss_workers_stuck", nsspool_stuck(d->nss));
	proto_kv_u64(kw, "nss_timeout_sec", d->config->nss_timeout);
	if (d->shm) {
		struct shm_stats ss;

		shm_get_stats(d->shm, &ss);
		/* "failing": /run full, no segment now; clients ask the socket. */
		proto_kv_str(kw, "shared", ss.dead ? "failing" : "yes");
		proto_kv_u64(kw, "shared_slots", ss.nslots);
		proto_kv_u64(kw, "shared_data_bytes", ss.size);
	} else
		proto_kv_str(kw, "shared", "no");
	nscdsrv_status(d->nscd, kw);
	dnslisten_status(d->dns, kw);
}

static const struct daemon_ops daemon_ops = {
	.arg = &daemon_ctx,
	.reload = op_reload,
	.flush = op_flush,
	.invalidate = op_invalidate,
	.reset_statistics = op_reset_statistics,
	.status = op_status,
};

/* main.c's own counters. */
static void
report(void *arg, struct registry_wr *wr)
{
	const struct daemon *d = arg;

	/* Keys are part of the protocol: add new ones, never rename. */
	registry_counter(wr, "nsswitch_reloads", d->counters.nsswitch_reloads, NULL);
	registry_counter(wr, "heap_trims", d->counters.heap_trims, NULL);
	registry_gauge(wr, "heap_trim_max_usec", d->counters.heap_trim_max_usec, NULL);
}

/* A reload may open metrics_listen anew: the endpoint's counters are the open one's. */
static void
report_http(void *arg, struct registry_wr *wr)
{
	const struct daemon *d = arg;

	if (d->http)
		httpmetrics_report(d->http, wr);
}

/*
 * Every module's report, in the order `namecachectl statistics' has
 * always listed them (the parts not running have none).
 */
static int
registry_fill(void)
{
	struct daemon	*d = &daemon_ctx;
	const struct {
		registry_report_fn	*fn;
		void			*arg;
	} reports[] = {
		{ server_report, protocol_server(d->proto) },
		{ hostsfile_report, d->hosts },
		{ resolver_report, d->resolver },
		{ report, d },
		{ lookup_report, d->lookup },
		{ server_report_clients, protocol_server(d->proto) },
		{ nsspool_report, d->nss },
		{ nscdsrv_report, d->nscd },
		{ dnslisten_report, d->dns },
		{ shm_report, d->shm },
		{ monitor_report, d->monitor },
		{ report_http, d },
	};
	size_t i;

	for (i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
		if (reports[i].arg && registry_add(d->registry, reports[i].fn,
		    reports[i].arg) < 0)
			return -ENOSPC;
	return 0;
}

/* GET /metrics on metrics_listen, or nothing.  -1 when it cannot listen. */
static int
metrics_listen(void)
{
	char *err = NULL;

	httpmetrics_free(daemon_ctx.http);
	daemon_ctx.http = NULL;
	if (!daemon_ctx.config->metrics_on)
		return 0;
	if ((daemon_ctx.http = httpmetrics_new(daemon_ctx.base,
	    &daemon_ctx.config->metrics_addr, metrics_render, daemon_ctx.metrics,
	    &err)) == NULL) {
		log_error("metrics_listen %s: %s", daemon_ctx.config->metrics_listen,
		    err ? err : "out of memory");
		free(err);
		return -1;
	}
	log_info("metrics on http://%s/metrics", daemon_ctx.config->metrics_listen);
	return 0;
}

static void
heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct timespec ts, te;
	uint64_t	usec;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (daemon_ctx.shm)
		shm_heartbeat(daemon_ctx.shm, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	cache_heartbeat(lookup_cache(daemon_ctx.lookup));
	monitor_tick(daemon_ctx.monitor);
	/*
	 * What malloc holds free goes back to the kernel.  A burst of lookups
	 * (fetches, waiters, client buffers, c-ares' queries) leaves its peak
	 * in the heap, and glibc gives back only the top of it: 30,000 lookups
	 * left 5.1 MB of anonymous RSS, 1.0 MB after a trim.  The answers are
	 * not there (they are in the store), so what stays is small and the
	 * trim quick; statistics say how quick (heap_trim_max_usec).
	 */
	if (malloc_trim(0))
		daemon_ctx.counters.heap_trims++;
	clock_gettime(CLOCK_MONOTONIC, &te);
	usec = (uint64_t)((te.tv_sec - ts.tv_sec) * 1000000 + (te.tv_nsec - ts.tv_nsec) / 1000);
	if (usec > daemon_ctx.counters.heap_trim_max_usec)
		daemon_ctx.counters.heap_trim_max_usec = usec;
}

static void
nscd_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	nscdsrv_tick(daemon_ctx.nscd, clock_ms(NULL));
}

/*
 * An address or route changed: the counters clients key their cached
 * source addresses on (RFC 6724 sorting: libnamecache's, and glibc's
 * through the nscd mapping).
 */
static void
netlink_changed(void *arg)
{
	(void)arg;
	if (daemon_ctx.shm)
		shm_netlink_changed(daemon_ctx.shm);
	if (daemon_ctx.nscd)
		nscdsrv_netlink_changed(daemon_ctx.nscd);
}

/* A resolv.conf that names our own DNS listener would loop: say so. */
static void
dns_self_check(void)
{
	struct resolver_info ri;

	if (daemon_ctx.dns == NULL)
		return;
	resolver_get_info(daemon_ctx.resolver, &ri);
	dnslisten_check_upstream(daemon_ctx.dns, ri.servers);
}

/*
 * glibc's nscd protocol, when nscd_socket names a socket or systemd
 * passed one named "nscd"; its hosts database beside namecache's socket.
 */
static int
nscd_open(void)
{
	static const struct timeval second = { 1, 0 };
	char		 map[4096];
	char		*err = NULL;
	const char	*sock = daemon_ctx.config->socket, *slash = strrchr(sock, '/');
	const struct nscdsrv_parts parts = {
		.base = daemon_ctx.base,
		.lookup = daemon_ctx.lookup,
		.nss = daemon_ctx.nss,
		.monitor = daemon_ctx.monitor,
		.metrics = daemon_ctx.metrics,
		.clock = clock_ms,
		.ops = daemon_ops,
	};

	if (daemon_ctx.config->nscd_socket[0] == '\0' && !listener_nscd_passed())
		return 0;
	if (slash == NULL || (size_t)snprintf(map, sizeof(map), "%.*s/nscd-hosts",
	    (int)(slash - sock), sock) >= sizeof(map))
		return -ENAMETOOLONG;
	daemon_ctx.nscd = nscdsrv_new(&parts, daemon_ctx.config,
	    daemon_ctx.config->nscd_socket, map, &err);
	if (daemon_ctx.nscd == NULL) {
		log_error("%s", err ? err : "nscd: out of memory");
		free(err);
		return -1;
	}
	protocol_set_nscd(daemon_ctx.proto, daemon_ctx.nscd);
	nscd_tick_ev = event_new(daemon_ctx.base, -1, EV_PERSIST, nscd_tick_cb, NULL);
	if (nscd_tick_ev)
		event_add(nscd_tick_ev, &second);
	return 0;
}

/*
 * The segment clients map, beside the socket.  At start, failing to make
 * one (a full or read-only /run) is fatal, with the path and the reason:
 * a daemon that runs on without it would hide the fault behind slower
 * lookups.  `shared = no` runs without a segment.
 */
static int
shared_open(void)
{
	const char	*sockpath;
	char		path[4096], passed[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t	nslots;
	size_t		data_size;
	int		r;

	if (!daemon_ctx.config->shared)
		return 0;
	shm_sizes(daemon_ctx.config->cache_size,
	    (size_t)daemon_ctx.config->shared_size_mb << 20, &nslots, &data_size);
	/*
	 * Beside the socket clients use: under socket activation, the one
	 * systemd passed, unless the configuration names another socket
	 * (clients look for the segment beside the socket they were told).
	 */
	sockpath = daemon_ctx.config->socket;
	if (server_socket_activated(protocol_server(daemon_ctx.proto)) &&
	    strcmp(sockpath, NAMECACHE_SOCKET_PATH) == 0 &&
	    server_activated_path(protocol_server(daemon_ctx.proto), passed,
	    sizeof(passed)) == 0)
		sockpath = passed;
	if ((r = shm_path(sockpath, path, sizeof(path))) < 0) {
		log_error("shared segment beside %s: %s", sockpath, strerror(-r));
		return r;
	}
	if ((daemon_ctx.shm = shm_new(path, nslots, data_size)) == NULL) {
		r = -errno;
		log_error("cannot create the shared segment %s (%zu MiB): %s; "
		    "shared = no runs without it", path,
		    data_size >> 20, strerror(-r));
		return r;
	}
	lookup_set_shm(daemon_ctx.lookup, daemon_ctx.shm);
	metrics_set_shared_size(daemon_ctx.metrics,
	    (uint64_t)daemon_ctx.config->shared_size_mb << 20);
	log_info("publishing answers in %s", path);
	return 0;
}

static void
cache_limits_from(const struct config *c, struct cache_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_entries = c->cache_size;
	lim->max_bytes = (size_t)c->cache_size_mb << 20;
	lim->min_ttl = c->min_ttl;
	lim->max_ttl = c->max_ttl;
	lim->negative_max_ttl = c->negative_max_ttl;
	lim->failure_ttl = c->failure_ttl;
	lim->serve_stale = c->serve_stale;
}

static void
reload(void)
{
	struct config	*c = NULL, *old = daemon_ctx.config;
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	log_info("reloading");
	if (load_config(&c) < 0) {
		log_error("reload: keeping the old configuration");
	} else {
		if (strcmp(c->socket, old->socket) != 0)
			log_warning("reload: the socket path changes only on "
			    "restart; still on %s", old->socket);
		if (c->shared != old->shared ||
		    c->shared_size_mb != old->shared_size_mb)
			log_warning("reload: shared and shared_size_mb change "
			    "only on restart");
		if (strcmp(c->nscd_socket, old->nscd_socket) != 0)
			log_warning("reload: nscd_socket changes only on restart; "
			    "still %s", old->nscd_socket[0] ? old->nscd_socket : "off");
		if (strcmp(c->persistent_cache, old->persistent_cache) != 0)
			log_warning("reload: persistent_cache changes only on "
			    "restart; still %s", old->persistent_cache[0] ?
			    old->persistent_cache : "off");
		if (strcmp(c->dns_listen, old->dns_listen) != 0)
			log_warning("reload: dns_listen changes only on restart; "
			    "still %s", old->dns_listen[0] ? old->dns_listen : "off");
		free(c->socket);
		c->socket = strdup(old->socket);
		free(c->nscd_socket);
		c->nscd_socket = strdup(old->nscd_socket);
		free(c->persistent_cache);
		c->persistent_cache = strdup(old->persistent_cache);
		daemon_ctx.config = c;
		log_set_level(c->log_level);
		monitor_set_log(daemon_ctx.monitor, c->log_queries);
		if (daemon_ctx.shm)	/* as configured, as it always showed */
			metrics_set_shared_size(daemon_ctx.metrics,
			    (uint64_t)c->shared_size_mb << 20);
		if (strcmp(c->metrics_listen, old->metrics_listen) != 0)
			metrics_listen();
		protocol_configure(daemon_ctx.proto, c);
		if (strcmp(c->hosts_file, old->hosts_file) != 0)
			hostsfile_open(daemon_ctx.hosts, c->hosts_file, HOST_CONF);
		else
			hostsfile_reload(daemon_ctx.hosts);
		nsspool_configure(daemon_ctx.nss, c->nss_workers, c->nss_timeout * 1000);
		lookup_set_nss_ttls(daemon_ctx.lookup, c->nss_positive_ttl,
		    c->nss_negative_ttl);
		nscdsrv_configure(daemon_ctx.nscd, c);
		dnslisten_configure(daemon_ctx.dns, c);
		lookup_set_max_fetches(daemon_ctx.lookup, c->max_fetches);
		if (strcmp(c->nsswitch_conf, old->nsswitch_conf) != 0)
			nsswitch_watch();
		nsswitch_load(false);
		{
			struct cache_limits lim;
			char *err = NULL;

			cache_limits_from(c, &lim);
			lookup_configure(daemon_ctx.lookup, &lim, c->prefetch);
			if (resolver_configure(daemon_ctx.resolver, c->resolv_conf,
			    c->servers, c->nservers, &err) < 0) {
				log_error("reload: %s", err ? err : "DNS setup failed");
				free(err);
			}
			dns_self_check();
		}
		/*
		 * Published answers carry TTLs clamped by the old bounds: a
		 * new bound resets once.  A changed hosts file resets from
		 * hosts_changed, a changed search list from search_changed, a
		 * changed hosts line from nsswitch_load: each once, and only
		 * when it did change (a SIGHUP with nothing new resets nothing).
		 */
		if (c->min_ttl != old->min_ttl || c->max_ttl != old->max_ttl ||
		    c->negative_max_ttl != old->negative_max_ttl ||
		    c->nss_positive_ttl != old->nss_positive_ttl ||
		    c->nss_negative_ttl != old->nss_negative_ttl)
			shared_reset();
		config_free(old);
	}
	sd_notify(0, "READY=1");
	notify_status(true);
}

static void
signal_cb(evutil_socket_t sig, short what, void *arg)
{
	switch (sig) {
	case SIGHUP:
		reload();
		break;
	case SIGTERM:
	case SIGINT:
		log_info("stopping on signal %d", (int)sig);
		sd_notify(0, "STOPPING=1");
		event_base_loopbreak(daemon_ctx.base);
		break;
	}
}

/* On the loop, so a stuck loop stops the pings and systemd restarts us. */
static void
notify_cb(evutil_socket_t fd, short what, void *arg)
{
	if (watchdog_enabled)
		sd_notify(0, "WATCHDOG=1");
	notify_status(false);
}

/*
 * Pings at half the watchdog interval, as sd_watchdog_enabled(3) advises;
 * STATUS= is refreshed at that pace too, and at least every 5 s.
 */
static void
notify_start(void)
{
	uint64_t	 period = 5000000, wd_usec = 0;
	struct timeval	 tv;

	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		watchdog_enabled = true;
		if (wd_usec / 2 < period)
			period = wd_usec / 2;
		if (period == 0)
			period = 1;
	}
	if (!notify_enabled && !watchdog_enabled)
		return;
	tv.tv_sec = (time_t)(period / 1000000);
	tv.tv_usec = (suseconds_t)(period % 1000000);
	notify_ev = event_new(daemon_ctx.base, -1, EV_PERSIST, notify_cb, NULL);
	if (notify_ev == NULL || event_add(notify_ev, &tv) < 0)
		log_warning("cannot start the watchdog and status timer");
}

static int
add_flag(const char *key, const char *value)
{
	if (nflags == (int)(sizeof(flags) / sizeof(flags[0])))
		return -1;
	flags[nflags].key = key;
	flags[nflags].value = value;
	nflags++;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config",	 required_argument, NULL, 'c' },
		{ "socket",	 required_argument, NULL, 's' },
		{ "hosts-file",	 required_argument, NULL, 'H' },
		{ "resolv-conf", required_argument, NULL, 'r' },
		{ "nsswitch-conf", required_argument, NULL, 'n' },
		{ "nscd-socket", required_argument, NULL, 'N' },
		{ "upstream",	 required_argument, NULL, 'u' },
		{ "dns-listen",	 required_argument, NULL, 'D' },
		{ "log-level",	 required_argument, NULL, 'l' },
		{ "version",	 no_argument,	    NULL, 'V' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int sigs[] = { SIGHUP, SIGTERM, SIGINT };
	struct event	*sigev[3] = { NULL, NULL, NULL };
	char		*err = NULL;
	int		 c, i, r, status = 1;

	log_init();
	notify_enabled = getenv("NOTIFY_SOCKET") != NULL;
	daemon_ctx.config_path = NAMECACHE_CONFIG_PATH;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			daemon_ctx.config_path = optarg;
			break;
		case 's':
			add_flag("socket", optarg);
			break;
		case 'H':
			add_flag("hosts_file", optarg);
			break;
		case 'r':
			add_flag("resolv_conf", optarg);
			break;
		case 'n':
			add_flag("nsswitch_conf", optarg);
			break;
		case 'N':
			add_flag("nscd_socket", optarg);
			break;
		case 'u':
			add_flag("upstream", optarg);
			break;
		case 'D':
			add_flag("dns_listen", optarg);
			break;
		case 'l':
			add_flag("log_level", optarg);
			break;
		case 'V':
			printf("namecached %s\n", NAMECACHE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "namecached: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (load_config(&daemon_ctx.config) < 0)
		return 1;
	log_set_level(daemon_ctx.config->log_level);
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &daemon_ctx.started);

	if ((daemon_ctx.base = event_base_new()) == NULL) {
		log_error("cannot create the event loop");
		goto done;
	}
	for (i = 0; i < 3; i++) {
		sigev[i] = evsignal_new(daemon_ctx.base, sigs[i], signal_cb, NULL);
		if (sigev[i] == NULL || evsignal_add(sigev[i], NULL) < 0) {
			log_error("cannot handle signal %d", sigs[i]);
			goto done;
		}
	}
	if ((daemon_ctx.registry = registry_new()) == NULL ||
	    (daemon_ctx.hosts = hostsfile_new(daemon_ctx.base)) == NULL ||
	    (daemon_ctx.resolver = resolver_new(daemon_ctx.base)) == NULL ||
	    (daemon_ctx.nss = nsspool_new(daemon_ctx.base,
	    daemon_ctx.config->nss_workers,
	    daemon_ctx.config->nss_timeout * 1000)) == NULL) {
		log_error("out of memory");
		goto done;
	}
	{
		struct lookup_env env;
		struct cache_limits lim;

		wiring_lookup_env(&env, daemon_ctx.hosts, daemon_ctx.resolver,
		    daemon_ctx.nss, clock_ms, NULL);
		cache_limits_from(daemon_ctx.config, &lim);
		if ((daemon_ctx.lookup = lookup_new(&env, &lim,
		    daemon_ctx.config->prefetch)) == NULL) {
			log_error("out of memory");
			goto done;
		}
	}
	lookup_set_nss_ttls(daemon_ctx.lookup, daemon_ctx.config->nss_positive_ttl,
	    daemon_ctx.config->nss_negative_ttl);
	lookup_set_max_fetches(daemon_ctx.lookup, daemon_ctx.config->max_fetches);
	if ((daemon_ctx.monitor = monitor_new(daemon_ctx.nss)) == NULL ||
	    (daemon_ctx.metrics = metrics_new(daemon_ctx.registry, daemon_ctx.nss,
	    daemon_ctx.resolver)) == NULL) {
		log_error("out of memory");
		goto done;
	}
	{
		const struct protocol_parts parts = {
			.lookup = daemon_ctx.lookup,
			.nss = daemon_ctx.nss,
			.registry = daemon_ctx.registry,
			.monitor = daemon_ctx.monitor,
			.metrics = daemon_ctx.metrics,
			.ops = daemon_ops,
		};

		if ((daemon_ctx.proto = protocol_new(daemon_ctx.base, &parts)) == NULL) {
			log_error("out of memory");
			goto done;
		}
	}
	monitor_set_log(daemon_ctx.monitor, daemon_ctx.config->log_queries);
	lookup_set_observer(daemon_ctx.lookup, observe, NULL);
	if (nsswitch_watch() < 0)
		goto done;
	nsswitch_load(true);
	resolver_on_change(daemon_ctx.resolver, search_changed, daemon_ctx.lookup);
	if ((r = resolver_configure(daemon_ctx.resolver,
	    daemon_ctx.config->resolv_conf, daemon_ctx.config->servers,
	    daemon_ctx.config->nservers, &err)) < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		goto done;
	}
	protocol_configure(daemon_ctx.proto, daemon_ctx.config);
	if ((r = hostsfile_open(daemon_ctx.hosts, daemon_ctx.config->hosts_file,
	    HOST_CONF)) == -ENOMEM) {
		log_error("out of memory loading %s", daemon_ctx.config->hosts_file);
		goto done;
	}
	/*
	 * A daemon killed before us left its segment looking live for a few
	 * seconds: retire it before clients can reach our socket (unless a
	 * daemon answers there still: then server_listen refuses to start,
	 * and its store is left alone too).
	 */
	if (sd_listen_fds(0) > 0 || !listener_path_answered(daemon_ctx.config->socket)) {
		char seg[4096];

		if (daemon_ctx.config->shared && sd_listen_fds(0) <= 0 &&
		    shm_path(daemon_ctx.config->socket, seg, sizeof(seg)) == 0)
			shm_retire_file(seg);
		store_open();
	}
	/* Before the socket: a client that reaches it finds DNS up too. */
	daemon_ctx.dns = dnslisten_new(daemon_ctx.base, daemon_ctx.lookup,
	    daemon_ctx.config, &err);
	if (daemon_ctx.dns == NULL && err) {
		log_error("%s", err);
		free(err);
		goto done;
	}
	dns_self_check();
	if ((r = server_listen(protocol_server(daemon_ctx.proto),
	    daemon_ctx.config->socket, &err)) < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		goto done;
	}
	if (shared_open() < 0 || nscd_open() < 0 || metrics_listen() < 0 ||
	    registry_fill() < 0)
		goto done;
	/* Once a second, segment or not: the monitors' losses, the cache, the heap. */
	static const struct timeval second = { 1, 0 };

	heartbeat_ev = event_new(daemon_ctx.base, -1, EV_PERSIST, heartbeat_cb, NULL);
	if (heartbeat_ev == NULL || event_add(heartbeat_ev, &second) < 0) {
		log_error("out of memory");
		goto done;
	}
	if ((daemon_ctx.shm || daemon_ctx.nscd) &&
	    (netwatch = netwatch_new(daemon_ctx.base, netlink_changed, NULL)) == NULL)
		log_warning("no netlink socket (%s): clients redo their source "
		    "address probes on every sort", strerror(errno));
	hostsfile_on_change(daemon_ctx.hosts, hosts_changed, NULL);
	notify_start();
	log_info("namecached %s ready", NAMECACHE_VERSION);
	sd_notify(0, "READY=1");
	notify_status(true);

	if (event_base_dispatch(daemon_ctx.base) < 0)
		log_error("event loop failed");
	else
		status = 0;
done:
	if (notify_ev)
		event_free(notify_ev);
	/* What ends from here on is no lookup a client waits for: not shown. */
	if (daemon_ctx.lookup)
		lookup_set_observer(daemon_ctx.lookup, NULL, NULL);
	httpmetrics_free(daemon_ctx.http);
	monitor_free(daemon_ctx.monitor);
	/* The resolver first: its queries end (ECANCELED) while all else lives. */
	resolver_free(daemon_ctx.resolver);
	/* Then the module calls: their lookups end too. */
	nsspool_free(daemon_ctx.nss);
	watch_free(daemon_ctx.nsswitch_watch);
	lookup_free(daemon_ctx.lookup);
	if (heartbeat_ev)
		event_free(heartbeat_ev);
	if (nscd_tick_ev)
		event_free(nscd_tick_ev);
	netwatch_free(netwatch);
	/* Its readers go to the socket at once; the file stays for the next daemon. */
	nscdsrv_free(daemon_ctx.nscd);
	/* After the engine: its held queries were released as it went. */
	dnslisten_free(daemon_ctx.dns);
	/*
	 * Under socket activation a daemon comes back (the socket is
	 * systemd's, and a client's request starts one): readers go on with
	 * the segment's answers, each within its TTL, until the next daemon's
	 * replaces it, so a restart has no gap.  Else it is removed, and
	 * readers go to the socket (and find nobody) at once.
	 */
	if (daemon_ctx.shm)	/* made after the socket: proto is there */
		shm_free(daemon_ctx.shm, server_socket_activated(
		    protocol_server(daemon_ctx.proto)) ? SHM_LEAVE_LIVE : SHM_LEAVE_GONE);
	protocol_free(daemon_ctx.proto);
	metrics_free(daemon_ctx.metrics);
	hostsfile_free(daemon_ctx.hosts);
	registry_free(daemon_ctx.registry);
	for (i = 0; i < 3; i++)
		if (sigev[i])
			event_free(sigev[i]);
	if (daemon_ctx.base)
		event_base_free(daemon_ctx.base);
	config_free(daemon_ctx.config);
	return status;
}
