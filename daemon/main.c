/* SPDX-License-Identifier: MIT */
/* daemon/main.c - namecached: flags, config, signals, sd_notify, the heartbeat, the event loop. */

/*
 * The process, and the only owner of globals, signals and the log's
 * set-up.  The parts are made, configured and freed in parts.c; what the
 * front ends may ask of the daemon is admin.c's (daemon_ops, filled
 * here); both are handed &daemon_ctx.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "buildinfo.h"
#include "cache.h"
#include "config.h"
#include "daemon.h"
#include "hostsfile.h"
#include "log.h"
#include "lookup.h"
#include "monitor.h"
#include "netwatch.h"
#include "nscdsrv.h"
#include "protocol.h"
#include "registry.h"
#include "selfnss.h"
#include "server.h"
#include "shm.h"

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

/* SIGHUP, or `namecachectl reload': the file and the flags again, applied to each part. */
static void
reload(void)
{
	struct config	*c = NULL;
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	log_info("reloading");
	if (load_config(&c) < 0) {
		log_error("reload: keeping the old configuration");
	} else {
		parts_restart_only(daemon_ctx.config, c);
		log_set_level(c->log_level);
		parts_apply(&daemon_ctx, c);
	}
	sd_notify(0, "READY=1");
	notify_status(true);
}

/*
 * What the front ends may ask of the daemon as a whole (protocol.h):
 * admin.c's, and the reload above.
 */
static void
op_reload(void *arg)
{
	reload();
}

static const struct daemon_ops daemon_ops = {
	.arg = &daemon_ctx,
	.reload = op_reload,
	.flush = admin_flush,
	.invalidate = admin_invalidate,
	.reset_statistics = admin_reset_statistics,
	.status = admin_status,
};

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
	int		 c, i, status = 1;

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

	/*
	 * Before anything looks a name up (admin_group, while the
	 * configuration is read): glibc inside the daemon never asks its nscd
	 * client or the namecache module, so no start waits on a socket whose
	 * daemon is this one (selfnss.c).  nsswitch_conf's lines follow.
	 */
	selfnss_pin("/etc/nsswitch.conf");
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
	if (parts_start(&daemon_ctx, &daemon_ops, clock_ms) < 0)
		goto done;
	/* Once a second, segment or not: the monitors' losses, the cache, the heap. */
	static const struct timeval second = { 1, 0 };

	heartbeat_ev = event_new(daemon_ctx.base, -1, EV_PERSIST, heartbeat_cb, NULL);
	if (heartbeat_ev == NULL || event_add(heartbeat_ev, &second) < 0) {
		log_error("out of memory");
		goto done;
	}
	if (daemon_ctx.nscd &&
	    (nscd_tick_ev = event_new(daemon_ctx.base, -1, EV_PERSIST, nscd_tick_cb,
	    NULL)) != NULL)
		event_add(nscd_tick_ev, &second);
	if ((daemon_ctx.shm || daemon_ctx.nscd) &&
	    (netwatch = netwatch_new(daemon_ctx.base, netlink_changed, NULL)) == NULL)
		log_warning("no netlink socket (%s): clients redo their source "
		    "address probes on every sort", strerror(errno));
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
	if (heartbeat_ev)
		event_free(heartbeat_ev);
	if (nscd_tick_ev)
		event_free(nscd_tick_ev);
	netwatch_free(netwatch);
	parts_stop(&daemon_ctx);
	for (i = 0; i < 3; i++)
		if (sigev[i])
			event_free(sigev[i]);
	if (daemon_ctx.base)
		event_base_free(daemon_ctx.base);
	config_free(daemon_ctx.config);
	return status;
}
