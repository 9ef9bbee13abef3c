/* SPDX-License-Identifier: MIT */
/* daemon/parts.c - namecached's parts: made and wired in order, a configuration applied, stopped. */

/*
 * main.c holds the parts (struct daemon) and says when: at start, on
 * SIGHUP or `namecachectl reload', at the end.  Here is the order they
 * are made and freed in, what each is told of the configuration, and
 * what the daemon does when an input changes under it (the hosts file,
 * the search list, nsswitch.conf).  Each part gets what it needs when it
 * is made; nothing here keeps state of its own.
 */
#include <assert.h>
#include <errno.h>
#include <nss.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "buildinfo.h"
#include "config.h"
#include "daemon.h"
#include "dnslisten.h"
#include "hash.h"
#include "hostsfile.h"
#include "httpmetrics.h"
#include "listener.h"
#include "lockfile.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "monitor.h"
#include "nscdmap.h"
#include "nscdsrv.h"
#include "nsspool.h"
#include "nsswitch.h"
#include "protocol.h"
#include "registry.h"
#include "resolver.h"
#include "selfnss.h"
#include "server.h"
#include "shm.h"
#include "shmfmt.h"
#include "store.h"
#include "watch.h"
#include "wiring.h"

#define HOST_CONF	"/etc/host.conf"

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

/*
 * One daemon per folder, and per store (lockfile.c).  The lock on a
 * folder guards what the daemon writes there (the segment, the store,
 * glibc's maps); persistent_cache's store, wherever it is, has one of its
 * own.  Each is taken before anything it guards is opened, retired or
 * removed (again before each: a folder not there yet guards nothing, and
 * is locked once the listener has made it), and held until parts_stop.
 * A folder on a read-only mount needs none: nothing in it can be written.
 * path: the folder ("" for /), or the store.  0, or -1 with one line: the
 * other daemon's pid, or why there is no lock.
 */
static int
own(struct daemon *d, const char *path, bool folder)
{
	const size_t	 n = sizeof(d->locks) / sizeof(d->locks[0]);
	const char	*shown = path[0] ? path : "/";
	char		 lock[4096], who[32];
	size_t		 i;
	long		 pid;
	int		 r;

	if ((size_t)snprintf(lock, sizeof(lock), folder ? "%s/lock" : "%s.lock",
	    path) >= sizeof(lock)) {
		log_error("%s: %s", shown, strerror(ENAMETOOLONG));
		return -1;
	}
	for (i = 0; i < n && d->locks[i]; i++)
		if (strcmp(lockfile_path(d->locks[i]), lock) == 0)
			return 0;
	assert(i < n);
	r = lockfile_new(lock, &d->locks[i]);
	if (r == 0 || r == -EROFS || r == -ENOENT)
		return 0;
	if (r != -EWOULDBLOCK) {
		log_error("cannot lock %s: %s", lock, strerror(-r));
		return -1;
	}
	/* Ours already, under another name of the folder (/var/run, /run). */
	if ((pid = lockfile_holder(lock)) == (long)getpid())
		return 0;
	if (pid > 0)
		snprintf(who, sizeof(who), "pid %ld", pid);
	else
		snprintf(who, sizeof(who), "pid unknown");
	if (folder)
		log_error("%s: another daemon owns this folder (namecached, %s): "
		    "its segment and store are left alone; stop it, or give this "
		    "daemon a socket in another folder", shown, who);
	else
		log_error("persistent_cache %s: another daemon owns this store "
		    "(namecached, %s): it is left alone; give each daemon a store "
		    "of its own", path, who);
	return -1;
}

/* The folder of path (a socket), into buf: "" for /.  -ENAMETOOLONG, -EINVAL. */
static int
folder_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return -EINVAL;
	if ((size_t)(slash - path) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, (size_t)(slash - path));
	buf[slash - path] = '\0';
	return 0;
}

/*
 * The socket whose folder holds the daemon's files (the segment, the
 * store, glibc's maps), where clients told of that socket look for the
 * segment: the configured one, or under socket activation the one systemd
 * passed, unless the configuration names another.  buf: room for the
 * passed one's path.
 */
static const char *
home(const struct daemon *d, char *buf, size_t len)
{
	if (strcmp(d->config->socket, NAMECACHE_SOCKET_PATH) == 0 &&
	    listener_passed_path(buf, len) == 0)
		return buf;
	return d->config->socket;
}

/* The socket's folder and persistent_cache's store: before anything else. */
static int
own_files(struct daemon *d)
{
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)], dir[4096];

	if (folder_of(home(d, sock, sizeof(sock)), dir, sizeof(dir)) == 0 &&
	    own(d, dir, true) < 0)
		return -1;
	if (d->config->persistent_cache[0] &&
	    own(d, d->config->persistent_cache, false) < 0)
		return -1;
	return 0;
}

/*
 * What the cache's answers rest on, written into its store so that the
 * next daemon keeps only what still holds: the search list and ndots
 * (DNS answers), the hosts line (NSS modules' answers).
 */
static void
store_fps(struct daemon *d)
{
	const char *const	*domains;
	uint64_t		 search = HASH_FNV1A_INIT, modules = HASH_FNV1A_INIT;
	int			 ndots, i;
	uint8_t			 nd;

	resolver_search(d->resolver, &domains, &ndots);
	for (i = 0; domains && domains[i]; i++)
		search = hash_fnv1a(search, domains[i], strlen(domains[i]) + 1);
	nd = (uint8_t)ndots;
	search = hash_fnv1a(search, &nd, 1);
	modules = hash_fnv1a(modules, d->hosts_line, strlen(d->hosts_line));
	cache_set_fps(lookup_cache(d->lookup), search, modules);
}

/*
 * The cache moves into its file beside the socket (home), taking over
 * what the daemon before left there (a restart costs no upstream query).
 */
static void
store_open(struct daemon *d)
{
	struct cache_adopt_report	 rep;
	char				 path[4096];
	char				 buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char			*sock = home(d, buf, sizeof(buf));
	const char			*slash = strrchr(sock, '/');
	size_t				 dir;
	int				 r;

	if (d->config->persistent_cache[0])
		snprintf(path, sizeof(path), "%s", d->config->persistent_cache);
	else if (slash == NULL || (dir = (size_t)(slash - sock)) +
	    sizeof("/store") > sizeof(path))
		return;
	else {
		memcpy(path, sock, dir);
		memcpy(path + dir, "/store", sizeof("/store"));
	}
	store_fps(d);
	if ((r = cache_open_file(lookup_cache(d->lookup), path, &rep)) < 0) {
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
	struct daemon	*d = arg;
	size_t		 n = admin_flush(d);

	store_fps(d);
	log_info("search list or ndots changed: flushed %zu cached answers", n);
}

static void
hosts_changed(void *arg)
{
	admin_shared_reset(arg);
}

/*
 * Reads the hosts line again: namecache's own entry out, the rest walked
 * for every lookup from now on.  A file that is missing or unreadable
 * gives glibc's default line, as in glibc; one that glibc would reject
 * keeps the line in place (at start: the default), with the reason in
 * `namecachectl status`.  Answers published under another line go.
 */
static void
nsswitch_load(struct daemon *d, bool initial)
{
	struct nsw_line	 l;
	const char	*path = d->config->nsswitch_conf;
	char		 text[sizeof(d->hosts_line)];
	bool		 found = false;
	FILE		*f;
	int		 r = 0;

	d->counters.nsswitch_reloads += !initial;
	nscdsrv_load_lines(d->nscd);	/* passwd, group, ...: theirs */
	/*
	 * Whatever resolves inside the daemon (a module calling getaddrinfo
	 * or getgrnam) walks the same lines, and never reaches namecache
	 * itself, nor glibc's nscd client (selfnss.c).
	 */
	selfnss_pin(path);
	d->nsswitch_error[0] = '\0';
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
		snprintf(d->nsswitch_error, sizeof(d->nsswitch_error),
		    "%s: %s", path, r == -EINVAL ? "a line glibc rejects" :
		    r == -E2BIG ? "more than 16 sources, or a name too long" :
		    strerror(-r));
		log_error("nsswitch: %s; %s", d->nsswitch_error,
		    initial ? "using glibc's default line" : "keeping the line in place");
		if (!initial)
			return;
		nsw_default(&l);
	}
	if (nsw_drop(&l, "namecache") == 0 && found)
		log_info("nsswitch: %s does not name namecache on its hosts line: "
		    "answering for the whole line", path);
	nsw_format(&l, text, sizeof(text));
	if (!initial && strcmp(text, d->hosts_line) == 0)
		return;
	snprintf(d->hosts_line, sizeof(d->hosts_line), "%s", text);
	lookup_set_line(d->lookup, &l);
	/* Inside the daemon too (selfnss.c): the line kept, whatever the file says. */
	__nss_configure_lookup("hosts", text);
	log_info("nsswitch: hosts: %s%s", text[0] ? text : "(no source)",
	    found ? "" : " (glibc's default: no hosts line)");
	if (!initial) {
		store_fps(d);
		admin_shared_reset(d);
	}
}

static void
nsswitch_changed(void *arg)
{
	struct daemon *d = arg;

	nsswitch_load(d, false);
	watch_rearm(d->nsswitch_watch);
}

static int
nsswitch_watch(struct daemon *d)
{
	watch_free(d->nsswitch_watch);
	d->nsswitch_watch = watch_new(d->base, d->config->nsswitch_conf,
	    nsswitch_changed, d);
	if (d->nsswitch_watch == NULL) {
		log_error("nsswitch: cannot watch %s: %s",
		    d->config->nsswitch_conf, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Each lookup answered: counted for the metrics, shown, logged. */
static void
observe(void *arg, const struct lookup_done *done)
{
	struct daemon *d = arg;

	metrics_lookup(d->metrics, done, monitor_source_str(d->monitor, done));
	monitor_lookup(d->monitor, done);
}

/* The daemon's own counters: the hosts line read again (here), the heartbeat's (main.c). */
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
reports_add(struct daemon *d)
{
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
metrics_listen(struct daemon *d)
{
	char *err = NULL;

	httpmetrics_free(d->http);
	d->http = NULL;
	if (!d->config->metrics_on)
		return 0;
	if ((d->http = httpmetrics_new(d->base, &d->config->metrics_addr,
	    metrics_render, d->metrics, &err)) == NULL) {
		log_error("metrics_listen %s: %s", d->config->metrics_listen,
		    err ? err : "out of memory");
		free(err);
		return -1;
	}
	log_info("metrics on http://%s/metrics", d->config->metrics_listen);
	return 0;
}

/* A resolv.conf that names our own DNS listener would loop: say so. */
static void
dns_self_check(struct daemon *d)
{
	struct resolver_info ri;

	if (d->dns == NULL)
		return;
	resolver_get_info(d->resolver, &ri);
	dnslisten_check_upstream(d->dns, ri.servers);
}

/*
 * The hosts database a daemon before left (glibc's nscd client maps it)
 * holds answers of the store this daemon took over, and readers go on
 * reading them: taken over before the first request, unless they may no
 * longer be what this daemon would answer.  They are when the store was
 * taken over with no answer of another search list or hosts line, and
 * no file they rest on changed after that daemon last stamped the map
 * (2 s: a change it had yet to see).  Else emptied.
 */
static void
nscd_map_take_over(struct daemon *d, int64_t (*clock)(void *))
{
	struct nscdmap			*m = nscdsrv_map(d->nscd);
	struct cache_adopt_report	 rep;
	struct store_stats		 ss;
	struct stat			 sb;
	const char			*files[3], *why = NULL;
	uint64_t			 at;
	int				 i, n;
	bool				 changed = false;

	if (m == NULL || (at = nscdmap_left_stamp(m)) == 0)
		return;
	files[0] = d->config->hosts_file;
	files[1] = d->config->nsswitch_conf;
	files[2] = d->config->resolv_conf;
	cache_get_adopt_report(lookup_cache(d->lookup), &rep);
	cache_get_store_stats(lookup_cache(d->lookup), &ss);
	if (!ss.file || rep.why || rep.mismatched || rep.adopted == 0)
		why = "not every answer of the store came over";
	for (i = 0; i < 3 && why == NULL; i++)
		if (files[i] && files[i][0] && stat(files[i], &sb) == 0 &&
		    (uint64_t)sb.st_mtim.tv_sec + 2 >= at) {
			why = files[i];
			changed = true;
		}
	if (why) {
		nscdmap_drop_left(m);
		log_info("nscd: the hosts answers a daemon before left are dropped: "
		    "%s%s", why, changed ? " changed" : "");
		return;
	}
	if ((n = nscdmap_take_over(m, clock(NULL))) >= 0)
		log_info("nscd: took over %d hosts answers a daemon before left", n);
	else
		log_warning("nscd: the hosts database a daemon before left is "
		    "damaged (%s): emptied", strerror(-n));
}

/*
 * glibc's nscd protocol, when nscd_socket names a socket or systemd
 * passed one named "nscd"; its hosts database beside namecache's socket
 * (home).
 */
static int
nscd_open(struct daemon *d, const struct daemon_ops *ops, int64_t (*clock)(void *))
{
	char		 map[4096], buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char		*err = NULL;
	const char	*sock = home(d, buf, sizeof(buf)), *slash = strrchr(sock, '/');
	const struct nscdsrv_parts parts = {
		.base = d->base,
		.lookup = d->lookup,
		.nss = d->nss,
		.monitor = d->monitor,
		.metrics = d->metrics,
		.clock = clock,
		.ops = *ops,
		.comes_back = server_socket_activated(protocol_server(d->proto)),
	};

	if (d->config->nscd_socket[0] == '\0' && !listener_nscd_passed())
		return 0;
	if (slash == NULL || (size_t)snprintf(map, sizeof(map), "%.*s/nscd-hosts",
	    (int)(slash - sock), sock) >= sizeof(map))
		return -ENAMETOOLONG;
	/* Its folder's lock (taken at start, unless the listener made the folder). */
	map[slash - sock] = '\0';
	if (own(d, map, true) < 0)
		return -1;
	map[slash - sock] = '/';
	d->nscd = nscdsrv_new(&parts, d->config,
	    d->config->nscd_socket, map, &err);
	if (d->nscd == NULL) {
		log_error("%s", err ? err : "nscd: out of memory");
		free(err);
		return -1;
	}
	protocol_set_nscd(d->proto, d->nscd);
	nscd_map_take_over(d, clock);
	return 0;
}

/*
 * The segment clients map, beside the socket.  At start, failing to make
 * one (a full or read-only /run) is fatal, with the path and the reason:
 * a daemon that runs on without it would hide the fault behind slower
 * lookups.  `shared = no` runs without a segment.
 */
static int
shared_open(struct daemon *d)
{
	const char	*sockpath;
	char		path[4096], dir[4096];
	char		passed[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t	nslots;
	size_t		data_size;
	int		r;

	if (!d->config->shared)
		return 0;
	shm_sizes(d->config->cache_size,
	    (size_t)d->config->shared_size_mb << 20, &nslots, &data_size);
	/*
	 * Beside the socket clients use: under socket activation, the one
	 * systemd passed, unless the configuration names another socket
	 * (clients look for the segment beside the socket they were told).
	 */
	sockpath = home(d, passed, sizeof(passed));
	if ((r = shm_path(sockpath, path, sizeof(path))) < 0) {
		log_error("shared segment beside %s: %s", sockpath, strerror(-r));
		return r;
	}
	/* Its folder's lock (taken at start, unless the listener made the folder). */
	if (folder_of(sockpath, dir, sizeof(dir)) == 0 && own(d, dir, true) < 0)
		return -1;
	if ((d->shm = shm_new(path, nslots, data_size)) == NULL) {
		r = -errno;
		log_error("cannot create the shared segment %s (%zu MiB): %s; "
		    "shared = no runs without it", path,
		    data_size >> 20, strerror(-r));
		return r;
	}
	lookup_set_shm(d->lookup, d->shm);
	metrics_set_shared_size(d->metrics,
	    (uint64_t)d->config->shared_size_mb << 20);
	log_info("publishing answers in %s", path);
	return 0;
}

int
parts_start(struct daemon *d, const struct daemon_ops *ops, int64_t (*clock)(void *))
{
	char	*err = NULL;
	int	 r;

	/* The lock first: nothing of another daemon's is touched. */
	if (own_files(d) < 0)
		return -1;
	if ((d->registry = registry_new()) == NULL ||
	    (d->hosts = hostsfile_new(d->base)) == NULL ||
	    (d->resolver = resolver_new(d->base)) == NULL ||
	    (d->nss = nsspool_new(d->base, d->config->nss_workers,
	    d->config->nss_timeout * 1000)) == NULL) {
		log_error("out of memory");
		return -1;
	}
	{
		struct lookup_env env;
		struct cache_limits lim;

		wiring_lookup_env(&env, d->hosts, d->resolver, d->nss, clock, NULL);
		cache_limits_from(d->config, &lim);
		if ((d->lookup = lookup_new(&env, &lim, d->config->prefetch)) == NULL) {
			log_error("out of memory");
			return -1;
		}
	}
	lookup_set_nss_ttls(d->lookup, d->config->nss_positive_ttl,
	    d->config->nss_negative_ttl);
	lookup_set_max_fetches(d->lookup, d->config->max_fetches);
	if ((d->monitor = monitor_new(d->nss)) == NULL ||
	    (d->metrics = metrics_new(d->registry, d->nss, d->resolver)) == NULL) {
		log_error("out of memory");
		return -1;
	}
	{
		const struct protocol_parts parts = {
			.lookup = d->lookup,
			.nss = d->nss,
			.registry = d->registry,
			.monitor = d->monitor,
			.metrics = d->metrics,
			.ops = *ops,
		};

		if ((d->proto = protocol_new(d->base, &parts)) == NULL) {
			log_error("out of memory");
			return -1;
		}
	}
	monitor_set_log(d->monitor, d->config->log_queries);
	lookup_set_observer(d->lookup, observe, d);
	if (nsswitch_watch(d) < 0)
		return -1;
	nsswitch_load(d, true);
	resolver_on_change(d->resolver, search_changed, d);
	if ((r = resolver_configure(d->resolver, d->config->resolv_conf,
	    d->config->servers, d->config->nservers, &err)) < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		return -1;
	}
	protocol_configure(d->proto, d->config);
	if ((r = hostsfile_open(d->hosts, d->config->hosts_file,
	    HOST_CONF)) == -ENOMEM) {
		log_error("out of memory loading %s", d->config->hosts_file);
		return -1;
	}
	/*
	 * A daemon killed before us left its segment looking live for a few
	 * seconds: retire it before clients can reach our socket.  (A daemon
	 * that runs holds the folder's lock, and we did not get this far; one
	 * that answers the socket without a lock, of a version before the
	 * lock, makes server_listen refuse to start, and its store and
	 * segment are left alone too.)
	 */
	if (listener_passed_any() || !listener_path_answered(d->config->socket)) {
		char seg[4096];

		if (d->config->shared && !listener_passed_any() &&
		    shm_path(d->config->socket, seg, sizeof(seg)) == 0)
			shm_retire_file(seg);
		store_open(d);
	}
	/* Before the socket: a client that reaches it finds DNS up too. */
	d->dns = dnslisten_new(d->base, d->lookup, d->config, &err);
	if (d->dns == NULL && err) {
		log_error("%s", err);
		free(err);
		return -1;
	}
	dns_self_check(d);
	if ((r = server_listen(protocol_server(d->proto), d->config->socket,
	    &err)) < 0) {
		log_error("%s", err ? err : strerror(-r));
		free(err);
		return -1;
	}
	if (shared_open(d) < 0 || nscd_open(d, ops, clock) < 0 ||
	    metrics_listen(d) < 0 || reports_add(d) < 0)
		return -1;
	hostsfile_on_change(d->hosts, hosts_changed, d);
	return 0;
}

void
parts_restart_only(const struct config *old, struct config *c)
{
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
}

void
parts_apply(struct daemon *d, struct config *c)
{
	struct config *old = d->config;

	d->config = c;
	monitor_set_log(d->monitor, c->log_queries);
	if (d->shm)	/* as configured, as it always showed */
		metrics_set_shared_size(d->metrics,
		    (uint64_t)c->shared_size_mb << 20);
	if (strcmp(c->metrics_listen, old->metrics_listen) != 0)
		metrics_listen(d);
	protocol_configure(d->proto, c);
	if (strcmp(c->hosts_file, old->hosts_file) != 0)
		hostsfile_open(d->hosts, c->hosts_file, HOST_CONF);
	else
		hostsfile_reload(d->hosts);
	nsspool_configure(d->nss, c->nss_workers, c->nss_timeout * 1000);
	lookup_set_nss_ttls(d->lookup, c->nss_positive_ttl, c->nss_negative_ttl);
	nscdsrv_configure(d->nscd, c);
	dnslisten_configure(d->dns, c);
	lookup_set_max_fetches(d->lookup, c->max_fetches);
	if (strcmp(c->nsswitch_conf, old->nsswitch_conf) != 0)
		nsswitch_watch(d);
	nsswitch_load(d, false);
	{
		struct cache_limits lim;
		char *err = NULL;

		cache_limits_from(c, &lim);
		lookup_configure(d->lookup, &lim, c->prefetch);
		if (resolver_configure(d->resolver, c->resolv_conf,
		    c->servers, c->nservers, &err) < 0) {
			log_error("reload: %s", err ? err : "DNS setup failed");
			free(err);
		}
		dns_self_check(d);
	}
	/*
	 * Published answers carry TTLs clamped by the old bounds: a new
	 * bound resets once.  A changed hosts file resets from hosts_changed,
	 * a changed search list from search_changed, a changed hosts line
	 * from nsswitch_load: each once, and only when it did change (a
	 * SIGHUP with nothing new resets nothing).
	 */
	if (c->min_ttl != old->min_ttl || c->max_ttl != old->max_ttl ||
	    c->negative_max_ttl != old->negative_max_ttl ||
	    c->nss_positive_ttl != old->nss_positive_ttl ||
	    c->nss_negative_ttl != old->nss_negative_ttl)
		admin_shared_reset(d);
	config_free(old);
}

void
parts_stop(struct daemon *d)
{
	/* What ends from here on is no lookup a client waits for: not shown. */
	if (d->lookup)
		lookup_set_observer(d->lookup, NULL, NULL);
	httpmetrics_free(d->http);
	/* Silent now, freed once the lookups a stop ends have ended. */
	monitor_quiet(d->monitor);
	/* The resolver first: its queries end (ECANCELED) while all else lives. */
	resolver_free(d->resolver);
	/* Then the module calls: their lookups end too. */
	nsspool_free(d->nss);
	watch_free(d->nsswitch_watch);
	lookup_free(d->lookup);
	/* Its readers go to the socket at once; the file stays for the next daemon. */
	nscdsrv_free(d->nscd);
	/* After the engine: its held queries were released as it went. */
	dnslisten_free(d->dns);
	monitor_free(d->monitor);
	/*
	 * Under socket activation a daemon comes back (the socket is
	 * systemd's, and a client's request starts one): readers go on with
	 * the segment's answers, each within its TTL, until the next daemon's
	 * replaces it, so a restart has no gap.  Else it is removed, and
	 * readers go to the socket (and find nobody) at once.
	 */
	if (d->shm)	/* made after the socket: proto is there */
		shm_free(d->shm, server_socket_activated(
		    protocol_server(d->proto)) ? SHM_LEAVE_LIVE : SHM_LEAVE_GONE);
	protocol_free(d->proto);
	metrics_free(d->metrics);
	hostsfile_free(d->hosts);
	registry_free(d->registry);
	/* Last: every file they guard is closed, left or removed. */
	for (size_t i = 0; i < sizeof(d->locks) / sizeof(d->locks[0]); i++) {
		lockfile_free(d->locks[i]);
		d->locks[i] = NULL;
	}
}
