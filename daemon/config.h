/* SPDX-License-Identifier: MIT */
/* daemon/config.h - namecached.conf and the flags that override it. */
#ifndef NAMECACHE_CONFIG_H
#define NAMECACHE_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define CONFIG_UPSTREAM_MAX	8
#define CONFIG_DNS_LISTEN_MAX	8	/* dns_listen addresses */
#define CONFIG_DNS_ALLOW_MAX	64	/* dns_allow prefixes */

/* What the DNS listener answers A, AAAA and PTR from. */
enum config_dns_sources {
	CONFIG_DNS_LINE	= 0,	/* the hosts line, as the NSS module */
	CONFIG_DNS_DNS	= 1,	/* the cache and upstream only */
};

struct config_prefix {
	int		family;		/* AF_INET or AF_INET6 */
	unsigned char	addr[16];	/* bits past len are zero */
	unsigned	len;
};

struct config_server {
	int		family;		/* AF_INET or AF_INET6 */
	unsigned char	addr[16];
	unsigned	port;		/* 53 unless given */
};

/* The databases of glibc's nscd protocol namecache answers. */
enum config_db {
	CONFIG_DB_HOSTS		= 0,
	CONFIG_DB_PASSWD	= 1,
	CONFIG_DB_GROUP		= 2,	/* and initgroups, which glibc maps with group */
	CONFIG_DB_SERVICES	= 3,
	CONFIG_DB_NETGROUP	= 4,
	CONFIG_DB_COUNT		= 5,
};
#define CONFIG_DBS_ALL		0x1fu
#define CONFIG_NSCD_DATABASES	"hosts passwd group services netgroup"
extern const char *const config_db_names[CONFIG_DB_COUNT];

struct config {
	char		*socket;
	char		*hosts_file;
	char		*resolv_conf;
	char		*nsswitch_conf;	/* its hosts: line is the order of sources */
	char		*nscd_socket;	/* glibc's nscd protocol here; "": off */
	char		*persistent_cache;	/* the store on disk here; "": beside the socket */
	unsigned	 nscd_reloads;	/* refreshes of an nscd record nobody asks for */
	char		*nscd_databases_text;	/* as written */
	unsigned	 nscd_databases;	/* 1 << enum config_db */
	bool		 nscd_databases_given;	/* set: sss lines are answered too */
	char		*nscd_uncached_modules;	/* answers never kept (nss-systemd's
						   DynamicUser users) */
	unsigned	 nscd_ttl[CONFIG_DB_COUNT][2];	/* positive, negative; [0] unused */
	unsigned	 nss_workers;	/* threads calling NSS modules, at most */
	unsigned	 max_fetches;	/* upstream resolutions in flight, at most */
	unsigned	 nss_timeout;	/* seconds before a module call is TRYAGAIN */
	unsigned	 nss_positive_ttl;	/* TTL of a module's answer, when it gives none */
	unsigned	 nss_negative_ttl;
	char		*upstream;	/* as written; parsed below */
	struct config_server servers[CONFIG_UPSTREAM_MAX];
	unsigned	 nservers;
	unsigned	 cache_size;
	unsigned	 cache_size_mb;	/* MiB of heap the cached answers may hold */
	unsigned	 min_ttl;
	unsigned	 max_ttl;
	unsigned	 negative_max_ttl;
	unsigned	 failure_ttl;
	unsigned	 serve_stale;
	bool		 prefetch;
	bool		 shared;
	unsigned	 shared_size_mb;	/* most MiB of answers in the segment */
	unsigned	 max_clients;
	unsigned	 idle_timeout;	/* seconds a silent connection is kept */
	/* The DNS listener: addresses as written, then parsed (port 53 unless given). */
	char		*dns_listen;
	struct config_server dns_addrs[CONFIG_DNS_LISTEN_MAX];
	unsigned	 ndns_addrs;
	char		*dns_allow;	/* besides loopback */
	struct config_prefix dns_prefixes[CONFIG_DNS_ALLOW_MAX];
	unsigned	 ndns_prefixes;
	int		 dns_sources;	/* enum config_dns_sources */
	unsigned	 dns_max_pending;	/* queries waiting on a source, in all */
	unsigned	 dns_max_pending_source;	/* of them, from one address */
	unsigned	 dns_tcp_clients;	/* TCP connections at once */
	unsigned	 dns_tcp_idle;		/* seconds an idle TCP connection is kept */
	char		*admin_group;
	gid_t		 admin_gid;	/* SERVER_NO_GROUP ((gid_t)-1) when
					   admin_group is empty */
	int		 log_level;
	bool		 log_queries;	/* a log line per lookup */
	/* GET /metrics over HTTP: ADDR:PORT as written, then parsed. */
	char		*metrics_listen;
	struct config_server metrics_addr;
	bool		 metrics_on;	/* metrics_listen is not empty */
};

/* Built-in defaults.  Caller frees with config_free(); NULL is out of memory. */
struct config *config_new(void);
void	config_free(struct config *);

/*
 * Sets key to value, checked.  Returns 0, or -EINVAL with a message for
 * the user in *ret_err (caller frees with free()).
 */
int	config_set(struct config *, const char *key, const char *value, char **ret_err);

/*
 * Reads "key = value" lines from f; '#' starts a comment.  Errors name
 * path and line: "namecached.conf:3: unknown key 'foo'".  Returns 0 or
 * -errno (-EINVAL for a bad line, the read error otherwise) with *ret_err
 * set (caller frees with free()).
 */
int	config_parse(struct config *, FILE *f, const char *path, char **ret_err);

/*
 * Loads path over the defaults.  A missing file is fine when !must_exist.
 * Caller frees *ret_config with config_free().
 */
int	config_load(const char *path, bool must_exist, struct config **ret_config,
	    char **ret_err);

/* Checks the values together (min_ttl <= max_ttl...). */
int	config_check(const struct config *, char **ret_err);

#endif
