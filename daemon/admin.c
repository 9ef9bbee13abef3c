/* SPDX-License-Identifier: MIT */
/* daemon/admin.c - the daemon's side of daemon_ops: the one flush, invalidate, reset statistics, status. */

/*
 * What the front ends may ask of the daemon as a whole (protocol.h):
 * each of these reaches parts that no front end was given.  main.c puts
 * them in its daemon_ops, with d as their arg; reload is main.c's own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cache.h"
#include "config.h"
#include "daemon.h"
#include "dnslisten.h"
#include "hostsfile.h"
#include "log.h"
#include "lookup.h"
#include "metrics.h"
#include "modsrc.h"
#include "monitor.h"
#include "nscdmap.h"
#include "nscdsrv.h"
#include "nsspool.h"
#include "protocol.h"
#include "resolver.h"
#include "server.h"
#include "shm.h"

void
admin_shared_reset(struct daemon *d)
{
	if (d->shm && shm_reset(d->shm) < 0)
		log_warning("shared segment: cannot start a new one: %s",
		    strerror(errno));
	if (nscdsrv_map(d->nscd))
		nscdmap_reset(nscdsrv_map(d->nscd));
}

size_t
admin_flush(void *arg)
{
	struct daemon	*d = arg;
	struct cache	*c = lookup_cache(d->lookup);
	size_t		 n = cache_count(c);

	cache_flush(c);
	admin_shared_reset(d);
	return n;
}

/* One name's answers go, wherever they are: namecachectl invalidate. */
size_t
admin_invalidate(void *arg, const char *name)
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
void
admin_reset_statistics(void *arg)
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
void
admin_status(void *arg, struct proto_kv_wr *kw)
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
