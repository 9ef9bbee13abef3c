/* SPDX-License-Identifier: MIT */
/* daemon/config.c - namecached.conf and the flags that override it. */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "config.h"
#include "log.h"

enum kind {
	K_PATH, K_OPTPATH, K_UINT, K_BOOL, K_UPSTREAM, K_GROUP, K_LOGLEVEL,
	K_DNSLISTEN, K_DNSALLOW, K_DNSSOURCES, K_NSCDDBS, K_NAMES, K_METRICSLISTEN,
};

struct key {
	const char	*name;
	enum kind	 kind;
	size_t		 off;
	unsigned	 min, max;
};

#define F(f)	offsetof(struct config, f)
static const struct key keys[] = {
	{ "socket",		K_PATH,		F(socket),		0, 0 },
	{ "hosts_file",		K_PATH,		F(hosts_file),		0, 0 },
	{ "resolv_conf",	K_PATH,		F(resolv_conf),		0, 0 },
	{ "nsswitch_conf",	K_PATH,		F(nsswitch_conf),	0, 0 },
	{ "nscd_socket",	K_OPTPATH,	F(nscd_socket),		0, 0 },
	{ "persistent_cache",	K_OPTPATH,	F(persistent_cache),	0, 0 },
	{ "nscd_reloads",	K_UINT,		F(nscd_reloads),	0, 255 },
	{ "nscd_databases",	K_NSCDDBS,	F(nscd_databases_text),	0, 0 },
	{ "nscd_uncached_modules", K_NAMES,	F(nscd_uncached_modules), 0, 0 },
	{ "nscd_passwd_ttl",	K_UINT,		F(nscd_ttl[CONFIG_DB_PASSWD][0]), 0, 604800 },
	{ "nscd_passwd_negative_ttl", K_UINT,	F(nscd_ttl[CONFIG_DB_PASSWD][1]), 0, 604800 },
	{ "nscd_group_ttl",	K_UINT,		F(nscd_ttl[CONFIG_DB_GROUP][0]), 0, 604800 },
	{ "nscd_group_negative_ttl", K_UINT,	F(nscd_ttl[CONFIG_DB_GROUP][1]), 0, 604800 },
	{ "nscd_services_ttl",	K_UINT,		F(nscd_ttl[CONFIG_DB_SERVICES][0]), 0, 604800 },
	{ "nscd_services_negative_ttl", K_UINT,	F(nscd_ttl[CONFIG_DB_SERVICES][1]), 0, 604800 },
	{ "nscd_netgroup_ttl",	K_UINT,		F(nscd_ttl[CONFIG_DB_NETGROUP][0]), 0, 604800 },
	{ "nscd_netgroup_negative_ttl", K_UINT,	F(nscd_ttl[CONFIG_DB_NETGROUP][1]), 0, 604800 },
	{ "nss_workers",	K_UINT,		F(nss_workers),		1, 64 },
	{ "max_fetches",	K_UINT,		F(max_fetches),		1, 65536 },
	{ "nss_timeout",	K_UINT,		F(nss_timeout),		1, 300 },
	{ "nss_positive_ttl",	K_UINT,		F(nss_positive_ttl),	0, 604800 },
	{ "nss_negative_ttl",	K_UINT,		F(nss_negative_ttl),	0, 604800 },
	{ "upstream",		K_UPSTREAM,	F(upstream),		0, 0 },
	{ "cache_size",		K_UINT,		F(cache_size),		1, 100000000 },
	{ "cache_size_mb",	K_UINT,		F(cache_size_mb),	1, 1048576 },
	{ "min_ttl",		K_UINT,		F(min_ttl),		0, 604800 },
	{ "max_ttl",		K_UINT,		F(max_ttl),		1, 604800 },
	{ "negative_max_ttl",	K_UINT,		F(negative_max_ttl),	0, 604800 },
	{ "failure_ttl",	K_UINT,		F(failure_ttl),		0, 3600 },
	{ "serve_stale",	K_UINT,		F(serve_stale),		0, 604800 },
	{ "prefetch",		K_BOOL,		F(prefetch),		0, 0 },
	{ "shared",		K_BOOL,		F(shared),		0, 0 },
	{ "shared_size_mb",	K_UINT,		F(shared_size_mb),	1, 4096 },
	{ "max_clients",	K_UINT,		F(max_clients),		1, 1000000 },
	{ "idle_timeout",	K_UINT,		F(idle_timeout),	1, 86400 },
	{ "admin_group",	K_GROUP,	F(admin_group),		0, 0 },
	{ "dns_listen",		K_DNSLISTEN,	F(dns_listen),		0, 0 },
	{ "dns_allow",		K_DNSALLOW,	F(dns_allow),		0, 0 },
	{ "dns_sources",	K_DNSSOURCES,	F(dns_sources),		0, 0 },
	{ "dns_max_pending",	K_UINT,		F(dns_max_pending),	1, 1000000 },
	{ "dns_max_pending_source", K_UINT,	F(dns_max_pending_source), 1, 1000000 },
	{ "dns_tcp_clients",	K_UINT,		F(dns_tcp_clients),	1, 100000 },
	{ "dns_tcp_idle",	K_UINT,		F(dns_tcp_idle),	1, 3600 },
	{ "log_level",		K_LOGLEVEL,	F(log_level),		0, 0 },
	{ "log_queries",	K_BOOL,		F(log_queries),		0, 0 },
	{ "metrics_listen",	K_METRICSLISTEN, F(metrics_listen),	0, 0 },
};
#undef F

static char *
fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *
fmt(const char *f, ...)
{
	char	*s = NULL;
	va_list	 ap;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

struct config *
config_new(void)
{
	struct config *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->socket = strdup(NAMECACHE_SOCKET_PATH);
	c->hosts_file = strdup("/etc/hosts");
	c->resolv_conf = strdup("/etc/resolv.conf");
	c->nsswitch_conf = strdup("/etc/nsswitch.conf");
	c->nscd_socket = strdup("");
	c->persistent_cache = strdup("");
	c->nscd_reloads = 5;
	c->nscd_databases_text = strdup(CONFIG_NSCD_DATABASES);
	c->nscd_databases = CONFIG_DBS_ALL;
	c->nscd_uncached_modules = strdup("systemd");
	/* nscd.conf's defaults */
	c->nscd_ttl[CONFIG_DB_PASSWD][0] = 600;
	c->nscd_ttl[CONFIG_DB_PASSWD][1] = 20;
	c->nscd_ttl[CONFIG_DB_GROUP][0] = 3600;
	c->nscd_ttl[CONFIG_DB_GROUP][1] = 60;
	c->nscd_ttl[CONFIG_DB_SERVICES][0] = 28800;
	c->nscd_ttl[CONFIG_DB_SERVICES][1] = 20;
	c->nscd_ttl[CONFIG_DB_NETGROUP][0] = 28800;
	c->nscd_ttl[CONFIG_DB_NETGROUP][1] = 20;
	c->nss_workers = 4;
	c->max_fetches = 65536;
	c->nss_timeout = 5;
	c->nss_positive_ttl = 30;
	c->nss_negative_ttl = 5;
	c->upstream = strdup("");
	c->dns_listen = strdup("");
	c->dns_allow = strdup("");
	c->metrics_listen = strdup("");
	c->dns_sources = CONFIG_DNS_LINE;
	c->dns_max_pending = 4096;
	c->dns_max_pending_source = 512;
	c->dns_tcp_clients = 256;
	c->dns_tcp_idle = 10;
	c->admin_group = strdup("");
	c->admin_gid = (gid_t)-1;	/* SERVER_NO_GROUP: none */
	c->cache_size = 1000000;
	c->cache_size_mb = 120;
	c->min_ttl = 0;
	c->max_ttl = 86400;
	c->negative_max_ttl = 3600;
	c->failure_ttl = 5;
	c->serve_stale = 86400;
	c->prefetch = true;
	c->shared = true;
	c->shared_size_mb = 8;
	c->max_clients = 4096;
	c->idle_timeout = 60;
	c->log_level = LOG_LEVEL_INFO;
	if (!c->socket || !c->hosts_file || !c->resolv_conf || !c->nsswitch_conf ||
	    !c->nscd_socket || !c->persistent_cache || !c->upstream || !c->dns_listen || !c->dns_allow ||
	    !c->metrics_listen ||
	    !c->admin_group || !c->nscd_databases_text ||
	    !c->nscd_uncached_modules) {
		config_free(c);
		return NULL;
	}
	return c;
}

void
config_free(struct config *c)
{
	if (c == NULL)
		return;
	free(c->socket);
	free(c->nsswitch_conf);
	free(c->nscd_socket);
	free(c->persistent_cache);
	free(c->nscd_databases_text);
	free(c->nscd_uncached_modules);
	free(c->hosts_file);
	free(c->resolv_conf);
	free(c->upstream);
	free(c->dns_listen);
	free(c->dns_allow);
	free(c->metrics_listen);
	free(c->admin_group);
	free(c);
}

static int
parse_uint(const char *v, unsigned min, unsigned max, unsigned *ret)
{
	unsigned long	 n;
	char		*end;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end != '\0' || n < min || n > max)
		return -EINVAL;
	*ret = (unsigned)n;
	return 0;
}

static int
parse_bool(const char *v, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcmp(v, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(v, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* "ADDR", "ADDR:PORT", "[ADDR6]:PORT" or a bare IPv6 address. */
static int
parse_server(const char *tok, struct config_server *s)
{
	char		 host[INET6_ADDRSTRLEN + 2];
	const char	*port = NULL, *close;
	size_t		 n;

	s->port = 53;
	if (tok[0] == '[') {
		if ((close = strchr(tok, ']')) == NULL)
			return -EINVAL;
		n = (size_t)(close - tok - 1);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return -EINVAL;
		tok++;
	} else if (strchr(tok, ':') != strrchr(tok, ':')) {
		n = strlen(tok);	/* several colons: a bare IPv6 address */
	} else if ((close = strchr(tok, ':')) != NULL) {
		n = (size_t)(close - tok);
		port = close + 1;
	} else
		n = strlen(tok);
	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, tok, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, s->addr) == 1)
		s->family = AF_INET;
	else if (inet_pton(AF_INET6, host, s->addr) == 1)
		s->family = AF_INET6;
	else
		return -EINVAL;
	if (port && parse_uint(port, 1, 65535, &s->port) < 0)
		return -EINVAL;
	return 0;
}

/* "ADDR/LEN" or "ADDR" (one address), IPv4 or IPv6; the host bits must be zero. */
static int
parse_prefix(const char *tok, struct config_prefix *p)
{
	char		 host[INET6_ADDRSTRLEN];
	const char	*slash = strchr(tok, '/');
	size_t		 n = slash ? (size_t)(slash - tok) : strlen(tok);
	unsigned	 i, max;

	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, tok, n);
	host[n] = '\0';
	memset(p->addr, 0, sizeof(p->addr));
	if (inet_pton(AF_INET, host, p->addr) == 1)
		p->family = AF_INET, max = 32;
	else if (inet_pton(AF_INET6, host, p->addr) == 1)
		p->family = AF_INET6, max = 128;
	else
		return -EINVAL;
	p->len = max;
	if (slash && parse_uint(slash + 1, 0, max, &p->len) < 0)
		return -EINVAL;
	for (i = p->len; i < max; i++)
		if (p->addr[i / 8] & (0x80 >> (i % 8)))
			return -EINVAL;
	return 0;
}

const char *const config_db_names[CONFIG_DB_COUNT] = {
	"hosts", "passwd", "group", "services", "netgroup",
};

/* A list of NSS module names ("systemd ldap"): plain names, no paths. */
static int
check_names(const char *key, const char *v, char **ret_err)
{
	const char *p;

	for (p = v; *p; p++)
		if (!(*p == ' ' || *p == '\t' || *p == ',' || *p == '_' ||
		    *p == '-' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
			*ret_err = fmt("%s: '%s' is not a list of module names", key, v);
			return -EINVAL;
		}
	return 0;
}

/*
 * The list-valued keys (upstream, dns_listen, dns_allow, nscd_databases)
 * share one reading: items split on blanks and commas, each handed to the
 * key's item parser, and the list taken whole or not at all, so a refused
 * value leaves the old one in place.  The messages are put together from
 * each key's words, so every key says what it said when it had a loop of
 * its own.
 */
struct list_rule {
	const char	*head;		/* begins each message: "dns_allow: ", or "" */
	const char	*bad;		/* comes before a bad item: "bad prefix " */
	const char	*want;		/* comes after it: ": want ADDR/LEN ..." */
	const char	*items;		/* what there are too many of: "prefixes" */
	unsigned	 max;		/* items at most; 0: no bound */
	/* Item i is tok: parses it into scratch; 0, or < 0 when it is bad. */
	int		(*item)(void *scratch, unsigned i, const char *tok);
	/* Where the items and their count go; size 0: nscd_databases, a set. */
	size_t		 size, array, count;
};

/* Room for any list key's items, before they are known to be good. */
union list_scratch {
	struct config_server	servers[CONFIG_UPSTREAM_MAX];
	struct config_server	dns_addrs[CONFIG_DNS_LISTEN_MAX];
	struct config_prefix	dns_prefixes[CONFIG_DNS_ALLOW_MAX];
	unsigned		nscd_databases;	/* 1 << enum config_db */
};

/* Returns the number of items, or -errno with *ret_err set for -EINVAL. */
static int
parse_list(const struct list_rule *rule, const char *v, void *scratch,
    char **ret_err)
{
	char		*copy, *tok, *save = NULL;
	unsigned	 n = 0;
	int		 r = 0;

	if ((copy = strdup(v)) == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t,", &save); tok;
	    tok = strtok_r(NULL, " \t,", &save)) {
		if (rule->max > 0 && n == rule->max) {
			*ret_err = fmt("%smore than %u %s", rule->head, rule->max,
			    rule->items);
			r = -EINVAL;
			break;
		}
		if (rule->item(scratch, n, tok) < 0) {
			*ret_err = fmt("%s%s'%s'%s", rule->head, rule->bad, tok,
			    rule->want);
			r = -EINVAL;
			break;
		}
		n++;
	}
	free(copy);
	return r < 0 ? r : (int)n;
}

static int
server_item(void *scratch, unsigned i, const char *tok)
{
	return parse_server(tok, (struct config_server *)scratch + i);
}

static int
prefix_item(void *scratch, unsigned i, const char *tok)
{
	return parse_prefix(tok, (struct config_prefix *)scratch + i);
}

/* "hosts passwd group": the databases glibc's nscd client is answered for. */
static int
nscd_db_item(void *scratch, unsigned i, const char *tok)
{
	unsigned *set = scratch, db;

	for (db = 0; db < CONFIG_DB_COUNT; db++)
		if (strcmp(tok, config_db_names[db]) == 0) {
			*set |= 1u << db;
			return 0;
		}
	return -EINVAL;
}

#define F(f)	offsetof(struct config, f)
#define WANT_SERVER	": want ADDR, ADDR:PORT or [ADDR6]:PORT"
static const struct list_rule list_rules[] = {
	[K_UPSTREAM] = { .head = "", .bad = "bad upstream server ",
	    .want = WANT_SERVER, .items = "upstream servers",
	    .max = CONFIG_UPSTREAM_MAX, .item = server_item,
	    .size = sizeof(struct config_server), .array = F(servers),
	    .count = F(nservers) },
	[K_DNSLISTEN] = { .head = "dns_listen: ", .bad = "bad address ",
	    .want = WANT_SERVER, .items = "addresses",
	    .max = CONFIG_DNS_LISTEN_MAX, .item = server_item,
	    .size = sizeof(struct config_server), .array = F(dns_addrs),
	    .count = F(ndns_addrs) },
	[K_DNSALLOW] = { .head = "dns_allow: ", .bad = "bad prefix ",
	    .want = ": want ADDR/LEN (host bits zero) or ADDR",
	    .items = "prefixes", .max = CONFIG_DNS_ALLOW_MAX,
	    .item = prefix_item, .size = sizeof(struct config_prefix),
	    .array = F(dns_prefixes), .count = F(ndns_prefixes) },
	/* Unbounded: a name said twice is still one database. */
	[K_NSCDDBS] = { .head = "nscd_databases: ", .bad = "",
	    .want = " is not hosts, passwd, group, services or netgroup",
	    .item = nscd_db_item },
};
#undef WANT_SERVER
#undef F

static int
set_list(struct config *c, const struct list_rule *rule, const char *v,
    char **ret_err)
{
	union list_scratch	 scratch = { .nscd_databases = 0 };
	int			 n;

	assert(rule->max * rule->size <= sizeof(scratch));
	if ((n = parse_list(rule, v, &scratch, ret_err)) < 0)
		return n;
	if (rule->size > 0) {
		memcpy((char *)c + rule->array, &scratch, (size_t)n * rule->size);
		*(unsigned *)((char *)c + rule->count) = (unsigned)n;
	} else {
		c->nscd_databases = scratch.nscd_databases;
		c->nscd_databases_given = true;
	}
	return 0;
}

int
config_set(struct config *c, const char *key, const char *value, char **ret_err)
{
	const struct key	*k = NULL;
	char			**sp, *s;
	struct group		*gr;
	size_t			 i;
	unsigned		 u;
	bool			 b;
	int			 l, r;

	*ret_err = NULL;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, key) == 0)
			k = &keys[i];
	if (k == NULL) {
		*ret_err = fmt("unknown key '%s'", key);
		return -EINVAL;
	}
	switch (k->kind) {
	case K_OPTPATH:
	case K_PATH:
		if (k->kind == K_OPTPATH && value[0] == '\0')
			break;
		if (value[0] != '/') {
			*ret_err = fmt("%s: '%s' is not an absolute path", key, value);
			return -EINVAL;
		}
		break;
	case K_UINT:
		if (parse_uint(value, k->min, k->max, &u) < 0) {
			*ret_err = fmt("%s: '%s' is not a whole number from %u to %u",
			    key, value, k->min, k->max);
			return -EINVAL;
		}
		*(unsigned *)((char *)c + k->off) = u;
		return 0;
	case K_BOOL:
		if (parse_bool(value, &b) < 0) {
			*ret_err = fmt("%s: '%s' is not yes or no", key, value);
			return -EINVAL;
		}
		*(bool *)((char *)c + k->off) = b;
		return 0;
	case K_UPSTREAM:
	case K_DNSLISTEN:
	case K_DNSALLOW:
	case K_NSCDDBS:
		/* -EINVAL, or -ENOMEM: then not the value's fault */
		if ((r = set_list(c, &list_rules[k->kind], value, ret_err)) < 0)
			return r;
		break;
	case K_DNSSOURCES:
		if (strcmp(value, "line") == 0)
			c->dns_sources = CONFIG_DNS_LINE;
		else if (strcmp(value, "dns") == 0)
			c->dns_sources = CONFIG_DNS_DNS;
		else {
			*ret_err = fmt("dns_sources: '%s' is not line or dns", value);
			return -EINVAL;
		}
		return 0;
	case K_METRICSLISTEN:
		/* One address, its port required: no default port to guess. */
		c->metrics_on = false;
		if (value[0] != '\0') {
			const char *colon = strchr(value, ':');
			bool port = value[0] == '[' ? strstr(value, "]:") != NULL :
			    colon != NULL && colon == strrchr(value, ':');

			if (!port || strpbrk(value, " \t,") ||
			    parse_server(value, &c->metrics_addr) < 0) {
				*ret_err = fmt("metrics_listen: bad address '%s': want "
				    "ADDR:PORT or [ADDR6]:PORT", value);
				return -EINVAL;
			}
			c->metrics_on = true;
		}
		break;
	case K_NAMES:
		if (check_names(key, value, ret_err) < 0)
			return -EINVAL;
		break;
	case K_GROUP:
		if (value[0] == '\0')
			c->admin_gid = (gid_t)-1;	/* none */
		else {
			errno = 0;
			if ((gr = getgrnam(value)) == NULL) {
				*ret_err = fmt("admin_group: no group '%s'", value);
				return -EINVAL;
			}
			c->admin_gid = gr->gr_gid;
		}
		break;
	case K_LOGLEVEL:
		if ((l = log_level_from_str(value)) < 0) {
			*ret_err = fmt("log_level: '%s' is not error, warning, "
			    "info or debug", value);
			return -EINVAL;
		}
		c->log_level = l;
		return 0;
	}
	if ((s = strdup(value)) == NULL)
		return -ENOMEM;
	sp = (char **)((char *)c + k->off);
	free(*sp);
	*sp = s;
	return 0;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
	    e[-1] == '\n'))
		*--e = '\0';
	return s;
}

int
config_parse(struct config *c, FILE *f, const char *path, char **ret_err)
{
	char		*line = NULL, *p, *key, *value, *err = NULL;
	size_t		 cap = 0;
	unsigned	 lineno = 0;
	int		 r = 0;

	*ret_err = NULL;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		key = trim(line);
		if (*key == '\0')
			continue;
		if ((p = strchr(key, '=')) == NULL) {
			*ret_err = fmt("%s:%u: expected 'key = value'", path, lineno);
			r = -EINVAL;
			break;
		}
		*p = '\0';
		key = trim(key);
		value = trim(p + 1);
		if ((r = config_set(c, key, value, &err)) < 0) {
			*ret_err = fmt("%s:%u: %s", path, lineno,
			    err ? err : strerror(-r));
			free(err);
			break;
		}
	}
	/*
	 * A read error (a folder, EIO), or getline's ENOMEM, must not pass
	 * for the end of the file.
	 */
	if (r == 0 && !feof(f)) {
		int e = errno ? errno : EIO;

		*ret_err = fmt("%s: %s", path, strerror(e));
		r = -e;
	}
	free(line);
	return r;
}

int
config_check(const struct config *c, char **ret_err)
{
	*ret_err = NULL;
	if (c->min_ttl > c->max_ttl) {
		*ret_err = fmt("min_ttl (%u) is above max_ttl (%u)", c->min_ttl,
		    c->max_ttl);
		return -EINVAL;
	}
	return 0;
}

int
config_load(const char *path, bool must_exist, struct config **ret_config,
    char **ret_err)
{
	struct config	*c;
	FILE		*f;
	int		 r = 0;

	*ret_err = NULL;
	if ((c = config_new()) == NULL)
		return -ENOMEM;
	if ((f = fopen(path, "re")) == NULL) {
		if (errno != ENOENT || must_exist) {
			r = -errno;
			*ret_err = fmt("%s: %s", path, strerror(errno));
		}
	} else {
		r = config_parse(c, f, path, ret_err);
		fclose(f);
	}
	if (r == 0)
		r = config_check(c, ret_err);
	if (r < 0) {
		config_free(c);
		return r;
	}
	*ret_config = c;
	return 0;
}
