/* SPDX-License-Identifier: MIT */
/* cli/namecachectl.c - namecachectl: ask namecached, in the style of resolvectl. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

const char		*socket_path;
bool			 json;
bool			 color;
struct namecache	*ctx;
static int		 family = AF_UNSPEC;
static int		 rrtype;		/* query -t, 0 when not given */

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: namecachectl [OPTIONS] COMMAND [ARGS]...\n"
"Ask namecached, the caching name service.\n"
"\n"
"Commands:\n"
"  query [-4|-6] [-t TYPE] NAME|ADDRESS...\n"
"                                 look names up, addresses back to names, or\n"
"                                 records of any type (MX, SRV, TXT, ...)\n"
"  statistics                     show the daemon's counters\n"
"  reset-statistics               set them back to zero (admin)\n"
"  status                         show what the daemon serves and how\n"
"  show-cache [DATABASE]          list the cached answers and their TTLs\n"
"                                 (hosts, or passwd, group, services, netgroup)\n"
"  flush-caches [DATABASE]        drop every cached answer, or one database's (admin)\n"
"  invalidate NAME...             drop what is cached for these names (admin)\n"
"  reload                         reread configuration, hosts, resolv.conf (admin)\n"
"  monitor                        show every lookup as it is answered (admin)\n"
"  metrics                        print the metrics in Prometheus' text format\n"
"\n"
"Options:\n"
"  -4, -6           ask only IPv4 or only IPv6 addresses\n"
"  -t, --type TYPE  ask for records of TYPE\n"
"      --json       print JSON\n"
"      --socket PATH  daemon socket (default $NAMECACHE_SOCKET, else %s)\n"
"  -h, --help       print this help\n"
"      --version    print the version\n"
"\n"
"Admin commands need root or the daemon's admin_group.\n"
"Exit status: 0 success, 1 not found or failed (or permission denied),\n"
"2 usage error, 3 daemon unreachable.\n", NAMECACHECTL_SOCKET_PATH);
}

const char *
on(const char *code)
{
	return color ? code : "";
}

/* JSON strings must be UTF-8: valid sequences pass, anything else is escaped. */
void
json_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	fputc('"', f);
	while (p < end) {
		unsigned char c = *p;
		size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 :
		    (c >> 3) == 30 ? 4 : 0;
		size_t i;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		for (i = 1; n > 1 && i < n; i++)
			if (p + i >= end || (p[i] & 0xc0) != 0x80)
				n = 0;
		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

void
json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

void
print_safe(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

int
connect_daemon(void)
{
	int r;

	if (ctx == NULL && (r = namecache_new(socket_path, &ctx)) < 0) {
		fprintf(stderr, "namecachectl: %s: %s\n", socket_path, namecache_strerror(r));
		return -EXIT_USAGE;
	}
	if (namecache_connect(ctx) < 0) {
		fprintf(stderr, "namecachectl: cannot reach namecached at %s: %s\n",
		    socket_path, strerror(namecache_errno(ctx)));
		return -EXIT_UNREACHABLE;
	}
	return 0;
}

/*
 * Failures of the exchange itself, not answers of the daemon: the daemon
 * went away, did not answer in time, or broke the framing.
 */
static bool
no_answer(int r)
{
	return r == NAMECACHE_ERR_UNAVAILABLE || r == NAMECACHE_ERR_TIMEOUT ||
	    r == NAMECACHE_ERR_NOMEM || (r == NAMECACHE_ERR_PROTOCOL && namecache_errno(ctx) != 0);
}

/* Reports a failed exchange; the context connects again next time. */
static int
unreachable(void)
{
	int e = namecache_errno(ctx);

	fprintf(stderr, "namecachectl: no answer from namecached at %s: %s\n",
	    socket_path, strerror(e ? e : EIO));
	return EXIT_UNREACHABLE;
}

static const char *
family_str(int f)
{
	return f == AF_INET ? "ipv4" : f == AF_INET6 ? "ipv6" : "any";
}

static const char *
addr_str(const struct namecache_address *a, char *buf, size_t len)
{
	return inet_ntop(a->family, &a->addr, buf, (socklen_t)len);
}

static void
print_json_answer(const char *key, const struct namecache_result *a, double ms)
{
	char	buf[INET6_ADDRSTRLEN];
	size_t	i;

	printf("{\"name\":");
	json_cstr(stdout, key);
	printf(",\"family\":\"%s\",\"status\":\"ok\",\"canonical\":", family_str(family));
	json_cstr(stdout, a->canonical);
	printf(",\"addresses\":[");
	for (i = 0; i < a->naddresses; i++)
		printf("%s\"%s\"", i == 0 ? "" : ",",
		    addr_str(&a->addresses[i], buf, sizeof(buf)));
	printf("],\"aliases\":[");
	for (i = 0; i < a->naliases; i++) {
		printf("%s", i == 0 ? "" : ",");
		json_cstr(stdout, a->aliases[i]);
	}
	printf("],\"ttl\":%u,\"source\":\"%s\",", a->ttl,
	    namecache_source_str(a->source));
	if (a->origin) {
		printf("\"module\":");
		json_cstr(stdout, a->origin);
		putchar(',');
	}
	printf("\"time_ms\":%.3f}\n", ms);
}

static void
print_answer(const char *key, bool reverse, const struct namecache_result *a, double ms)
{
	size_t	i, indent = strlen(key) + 2;
	char	buf[INET6_ADDRSTRLEN];

	printf("%s%s%s: ", BOLD, key, RESET);
	if (reverse) {
		print_safe(a->canonical, strlen(a->canonical));
		putchar('\n');
	} else {
		for (i = 0; i < a->naddresses; i++)
			printf("%*s%s\n", i == 0 ? 0 : (int)indent, "",
			    addr_str(&a->addresses[i], buf, sizeof(buf)));
		if (strcasecmp(a->canonical, key) != 0) {
			printf("%*s%s(", (int)indent, "", DIM);
			print_safe(a->canonical, strlen(a->canonical));
			printf(")%s\n", RESET);
		}
	}
	if (a->naliases) {
		printf("%*s%saliases:", (int)indent, "", DIM);
		for (i = 0; i < a->naliases; i++) {
			putchar(' ');
			print_safe(a->aliases[i], strlen(a->aliases[i]));
		}
		printf("%s\n", RESET);
	}
	/* "nss (myhostname)", "cache (myhostname)": the module, whichever way. */
	printf("\n%s-- Answered from %s", DIM, namecache_source_str(a->source));
	if (a->origin) {
		printf(" (");
		print_safe(a->origin, strlen(a->origin));
		printf(")");
	}
	if (a->source != NAMECACHE_SOURCE_HOSTS)
		printf(", TTL %us", a->ttl);
	printf(", in %.2f ms.%s\n", ms, RESET);
}

/* The daemon's answer was a failure (error is one of its statuses). */
static void
print_failure(const char *key, int error)
{
	const char *msg = namecache_reason(ctx);

	if (json) {
		printf("{\"name\":");
		json_cstr(stdout, key);
		printf(",\"family\":\"%s\",\"status\":\"%s\",\"error\":", family_str(family),
		    error == NAMECACHE_ERR_NOTFOUND ? "notfound" :
		    error == NAMECACHE_ERR_NODATA ? "nodata" :
		    error == NAMECACHE_ERR_NOTFOUND_TRYAGAIN ? "notfound-tryagain" : "error");
		json_cstr(stdout, msg ? msg : namecache_strerror(error));
		printf(",\"addresses\":[],\"ttl\":0,\"source\":\"none\"}\n");
		return;
	}
	fprintf(stderr, "%s%s%s: %s", RED, key, RESET, namecache_strerror(error));
	if (msg) {
		fputs(": ", stderr);
		fputs(msg, stderr);
	}
	fputc('\n', stderr);
}

/*
 * What a failed request exits with, the failure printed: the exchange
 * failed (3), the reply did not parse, or the daemon answered a failure (1).
 */
int
failed(const char *key, int r)
{
	if (no_answer(r))
		return unreachable();
	if (r == NAMECACHE_ERR_PROTOCOL) {
		fprintf(stderr, "namecachectl: %s: malformed answer from the daemon\n", key);
		return EXIT_FAILED;
	}
	print_failure(key, r);
	return EXIT_FAILED;
}

static double
ms_since(const struct timespec *ts0)
{
	struct timespec ts1;

	clock_gettime(CLOCK_MONOTONIC, &ts1);
	return (ts1.tv_sec - ts0->tv_sec) * 1e3 + (ts1.tv_nsec - ts0->tv_nsec) / 1e6;
}

static int
query_records(const char *key)
{
	struct namecache_records *recs;
	struct timespec	 ts0;
	const char	*why = NULL;
	char		 tbuf[16];
	size_t		 i;
	double		 ms;
	int		 r;

	if (namecache_check_name(key, &why) < 0) {
		fprintf(stderr, "namecachectl: '%s': %s\n", key, why);
		return EXIT_FAILED;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	if ((r = connect_daemon()) < 0)
		return -r;
	if ((r = namecache_query_records(ctx, key, (uint16_t)rrtype, TIMEOUT_MS, &recs)) < 0)
		return failed(key, r);
	ms = ms_since(&ts0);
	if (json) {
		printf("{\"name\":");
		json_cstr(stdout, key);
		printf(",\"type\":\"%s\",\"status\":\"ok\",\"records\":[",
		    namecache_rrtype_str((uint16_t)rrtype, tbuf, sizeof(tbuf)));
	}
	for (i = 0; i < recs->count; i++) {
		const struct namecache_record *rec = &recs->records[i];
		const char *t = namecache_rrtype_str(rec->type, tbuf, sizeof(tbuf));

		if (json) {
			printf("%s{\"name\":", i == 0 ? "" : ",");
			json_cstr(stdout, rec->owner);
			printf(",\"type\":\"%s\",\"ttl\":%u,\"data\":", t, rec->ttl);
			json_cstr(stdout, rec->data);
			putchar('}');
		} else {
			printf("%s", BOLD);
			print_safe(rec->owner, strlen(rec->owner));
			printf("%s IN %s ", RESET, t);
			print_safe(rec->data, strlen(rec->data));
			putchar('\n');
		}
	}
	if (json)
		printf("],\"ttl\":%u,\"source\":\"%s\",\"time_ms\":%.3f}\n",
		    recs->ttl, namecache_source_str(recs->source), ms);
	else
		printf("\n%s-- Answered from %s, TTL %us, in %.2f ms.%s\n", DIM,
		    namecache_source_str(recs->source), recs->ttl, ms, RESET);
	namecache_records_free(recs);
	return EXIT_OK;
}

/* The outcome of one lookup, filled in by its callback. */
struct outcome {
	bool			 done;
	int			 error;
	struct namecache_result	*result;
};

static void
on_answer(struct namecache *c, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct outcome *o = arg;

	o->done = true;
	o->error = error;
	o->result = res;	/* ours now: freed by query_one */
}

static int
query_one(const char *key)
{
	struct outcome	 o = { 0 };
	struct timespec	 ts0;
	uint8_t		 addr[16];
	const char	*why = NULL;
	bool		 reverse = true;
	double		 ms;
	int		 r;

	if (rrtype)
		return query_records(key);
	if (inet_pton(AF_INET, key, addr) != 1 && inet_pton(AF_INET6, key, addr) != 1) {
		reverse = false;
		if (namecache_check_name(key, &why) < 0) {
			fprintf(stderr, "namecachectl: '%s': %s\n", key, why);
			return EXIT_FAILED;
		}
	}
	/* Round trips to the daemon, timed: never the shared cache. */
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	if ((r = connect_daemon()) < 0)
		return -r;
	if (!reverse)
		r = namecache_submit_name(ctx, key, family, NAMECACHE_NO_SHARED, TIMEOUT_MS,
		    on_answer, &o, NULL);
	else if (inet_pton(AF_INET, key, addr) == 1)
		r = namecache_submit_addr(ctx, AF_INET, addr, NAMECACHE_NO_SHARED,
		    TIMEOUT_MS, on_answer, &o, NULL);
	else
		r = namecache_submit_addr(ctx, AF_INET6, addr, NAMECACHE_NO_SHARED,
		    TIMEOUT_MS, on_answer, &o, NULL);
	if (r >= 0)
		r = namecache_wait(ctx, -1);
	if (r < 0 || !o.done)
		return failed(key, r < 0 ? r : NAMECACHE_ERR_UNAVAILABLE);
	if (o.error < 0)
		return failed(key, o.error);
	ms = ms_since(&ts0);
	if (json)
		print_json_answer(key, o.result, ms);
	else
		print_answer(key, reverse, o.result, ms);
	namecache_result_free(o.result);
	return EXIT_OK;
}

static int
cmd_query(int argc, char **argv)
{
	int i, r, worst = EXIT_OK;

	if (argc == 0) {
		fprintf(stderr, "namecachectl: query needs at least one name or address\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < argc; i++) {
		r = query_one(argv[i]);
		if (r == EXIT_UNREACHABLE)
			return r;
		if (r > worst)
			worst = r;
		if (!json && i + 1 < argc)
			putchar('\n');
	}
	return worst;
}

/* "hosts_load_usec" -> "Hosts load usec" */
static void
label(const char *key, size_t len, char *out, size_t cap)
{
	size_t i;

	for (i = 0; i < len && i + 1 < cap; i++)
		out[i] = key[i] == '_' ? ' ' : key[i];
	out[i] = '\0';
	if (out[0] >= 'a' && out[0] <= 'z')
		out[0] -= 'a' - 'A';
}

enum kv_cmd { KV_STATISTICS, KV_STATUS };

static int
cmd_kv(enum kv_cmd which)
{
	struct namecache_values	*vals;
	size_t			 width = 0, i;
	char			 lab[128];
	int			 r;

	if ((r = connect_daemon()) < 0)
		return -r;
	r = which == KV_STATUS ? namecache_status(ctx, TIMEOUT_MS, &vals) :
	    namecache_statistics(ctx, TIMEOUT_MS, &vals);
	if (r == NAMECACHE_ERR_PROTOCOL && !no_answer(r)) {
		fprintf(stderr, "namecachectl: malformed reply from the daemon\n");
		return EXIT_FAILED;
	}
	if (r < 0)
		return failed(which == KV_STATUS ? "status" : "statistics", r);
	/* The label width first, for aligned output. */
	for (i = 0; i < vals->count; i++)
		if (strlen(vals->values[i].key) > width)
			width = strlen(vals->values[i].key);
	if (json)
		putchar('{');
	for (i = 0; i < vals->count; i++) {
		const struct namecache_value *v = &vals->values[i];

		if (json) {
			printf("%s", i == 0 ? "" : ",");
			json_cstr(stdout, v->key);
			putchar(':');
			if (v->kind == NAMECACHE_VALUE_NUMBER)
				printf("%llu", (unsigned long long)v->number);
			else
				json_cstr(stdout, v->string);
			continue;
		}
		label(v->key, strlen(v->key), lab, sizeof(lab));
		printf("%s%*s%s: ", BOLD, (int)width, lab, RESET);
		if (v->kind == NAMECACHE_VALUE_NUMBER)
			printf("%llu\n", (unsigned long long)v->number);
		else {
			print_safe(v->string, strlen(v->string));
			putchar('\n');
		}
	}
	if (json)
		printf("}\n");
	namecache_values_free(vals);
	return EXIT_OK;
}

enum admin_cmd { A_FLUSH, A_INVALIDATE, A_RESET, A_RELOAD };

/* Sends an admin request and prints its outcome as a sentence: "Flushed 3 entries." */
static int
cmd_admin(enum admin_cmd what, const char *name)
{
	const char	*why = NULL, *msg;
	uint64_t	 n = 0;
	int		 r;

	if (what == A_INVALIDATE && namecache_check_name(name, &why) < 0) {
		fprintf(stderr, "namecachectl: '%s': %s\n", name, why);
		return EXIT_FAILED;
	}
	if ((r = connect_daemon()) < 0)
		return -r;
	switch (what) {
	case A_FLUSH:
		r = name ? namecache_flush_database(ctx, name, TIMEOUT_MS, &n) :
		    namecache_flush_caches(ctx, TIMEOUT_MS, &n);
		break;
	case A_INVALIDATE:
		r = namecache_invalidate(ctx, name, TIMEOUT_MS, &n);
		break;
	case A_RESET:
		r = namecache_reset_statistics(ctx, TIMEOUT_MS);
		break;
	case A_RELOAD:
		r = namecache_reload(ctx, TIMEOUT_MS);
		break;
	}
	if (no_answer(r))
		return unreachable();
	if (r < 0) {
		msg = namecache_reason(ctx);
		if (json)
			printf("{\"status\":\"%s\"}\n", r == NAMECACHE_ERR_DENIED ?
			    "denied" : "error");
		fprintf(stderr, "namecachectl: %s\n", msg ? msg : "");
		if (!msg)
			fprintf(stderr, "namecachectl: %s\n", namecache_strerror(r));
		return EXIT_FAILED;
	}
	if (json) {
		printf("{\"status\":\"ok\"");
		if (what == A_FLUSH)
			printf(",\"flushed\":%llu", (unsigned long long)n);
		if (what == A_INVALIDATE) {
			printf(",\"name\":");
			json_cstr(stdout, name);
			printf(",\"invalidated\":%llu", (unsigned long long)n);
		}
		printf("}\n");
		return EXIT_OK;
	}
	switch (what) {
	case A_FLUSH:
		printf("Flushed %llu cached %s%sanswers.\n", (unsigned long long)n,
		    name ? name : "", name ? " " : "");
		break;
	case A_INVALIDATE:
		printf("%s: dropped %llu cached answers.\n", name, (unsigned long long)n);
		break;
	case A_RESET:
		printf("Statistics reset.\n");
		break;
	case A_RELOAD:
		printf("Reloaded configuration, hosts file and resolv.conf.\n");
		break;
	}
	return EXIT_OK;
}

static const char *
kind_str(uint32_t kind, char *buf, size_t len)
{
	char t[16];

	/* An NSS module's answer: what was asked, by name or by address. */
	if (kind & 0x20000) {
		snprintf(buf, len, "%s%s", kind & 0x80 ? "addr" : "name",
		    (kind & 0xf) == 4 ? "4" : (kind & 0xf) == 6 ? "6" : "");
		return buf;
	}
	/* Records asked with query -t are marked, beside the address lookups,
	 * and so are the halves of an AF_UNSPEC search (A and AAAA together)
	 * and the DNS listener's records, kept in wire form. */
	snprintf(buf, len, "%s%s", namecache_rrtype_str((uint16_t)kind, t, sizeof(t)),
	    kind & 0x10000 ? "/rr" : kind & 0x40000 ? "/any" : kind & 0x80000 ? "/wire" :
	    "");
	return buf;
}

/*
 * A module's answer is said in nsswitch.conf's words (NOTFOUND, and
 * NO_DATA for a name without the family asked): the module did not find
 * the name, which is no verdict of DNS's.  DNS answers keep DNS's words.
 */
static const char *
item_status(const struct namecache_cache_entry *e)
{
	if (e->kind & 0x20000)
		switch (e->status) {
		case 0:				return "answer";
		case NAMECACHE_ERR_NOTFOUND:	return "notfound";
		case NAMECACHE_ERR_NODATA:	return "nodata";
		default:			return "tryagain";
		}
	switch (e->status) {
	case 0:				return "answer";
	case NAMECACHE_ERR_NOTFOUND:	return "NXDOMAIN";
	case NAMECACHE_ERR_NODATA:	return "NODATA";
	/* NXDOMAIN, after an earlier candidate of the search list failed */
	case NAMECACHE_ERR_NOTFOUND_TRYAGAIN:	return "NX+FAIL";
	}
	return "failed";
}

static int
cmd_show_cache(void)
{
	struct namecache_cache_page *pg;
	uint64_t	 cursor = 0, total = 0;
	size_t		 i;
	char		 kbuf[24];
	bool		 first = true;
	int		 r;

	if (json)
		putchar('[');
	else
		printf("%s%-50s %-9s %-9s %8s  %s%s\n", BOLD, "NAME", "KIND", "STATUS",
		    "TTL", "SOURCE", RESET);
	do {
		if ((r = connect_daemon()) < 0)
			return -r;
		if ((r = namecache_show_cache(ctx, cursor, TIMEOUT_MS, &pg)) < 0) {
			if (no_answer(r))
				return unreachable();
			fprintf(stderr, "namecachectl: show-cache: %s\n", namecache_strerror(r));
			return EXIT_FAILED;
		}
		for (i = 0; i < pg->count; i++, total++) {
			const struct namecache_cache_entry *e = &pg->entries[i];

			kind_str(e->kind, kbuf, sizeof(kbuf));
			if (json) {
				printf("%s{\"name\":", first ? "" : ",");
				json_cstr(stdout, e->name);
				printf(",\"kind\":\"%s\",\"query\":\"%s\",\"status\":"
				    "\"%s\",\"ttl\":%u,\"expired\":%s,\"source\":",
				    kbuf, e->kind & 0x10000 ? "records" : e->kind & 0x80000 ?
				    "wire" : "address",
				    item_status(e), e->ttl,
				    e->flags & NAMECACHE_ENTRY_EXPIRED ? "true" : "false");
				json_cstr(stdout, e->origin ? e->origin : "dns");
				putchar('}');
				first = false;
				continue;
			}
			printf("%-50s %-9s %-9s %7us  %s%s\n", e->name,
			    kbuf, item_status(e), e->ttl, e->origin ? e->origin : "dns",
			    e->flags & NAMECACHE_ENTRY_EXPIRED ? " (expired)" : "");
		}
		cursor = pg->next;
		namecache_cache_page_free(pg);
	} while (cursor != 0);
	if (json)
		printf("]\n");
	else
		printf("\n%s-- %llu cached answers.%s\n", DIM, (unsigned long long)total,
		    RESET);
	return EXIT_OK;
}

/* show-cache passwd (group, services, netgroup): glibc's records, by key. */
static int
cmd_show_db(const char *db)
{
	struct namecache_cache_page *pg;
	uint64_t	 cursor = 0, total = 0;
	size_t		 i;
	bool		 first = true;
	int		 r;

	if (json)
		putchar('[');
	else
		printf("%s%-40s %-10s %8s  %s%s\n", BOLD, "KEY", "STATUS", "TTL",
		    "ANSWER", RESET);
	do {
		if ((r = connect_daemon()) < 0)
			return -r;
		if ((r = namecache_show_database(ctx, db, cursor, TIMEOUT_MS, &pg)) < 0) {
			if (no_answer(r))
				return unreachable();
			fprintf(stderr, "namecachectl: show-cache %s: %s\n", db,
			    namecache_reason(ctx) ? namecache_reason(ctx) :
			    namecache_strerror(r));
			return EXIT_FAILED;
		}
		for (i = 0; i < pg->count; i++, total++) {
			const struct namecache_cache_entry *e = &pg->entries[i];
			const char *sp = strchr(e->name, ' ');

			if (json) {
				printf("%s{\"database\":", first ? "" : ",");
				json_cstr(stdout, db);
				printf(",\"by\":\"%.*s\",\"key\":", sp ?
				    (int)(sp - e->name) : 0, e->name);
				json_cstr(stdout, sp ? sp + 1 : e->name);
				printf(",\"request\":%u,\"status\":\"%s\",\"ttl\":%u,"
				    "\"expired\":%s,\"answer\":", e->kind & 0xffff,
				    e->status == 0 ? "found" : "notfound", e->ttl,
				    e->flags & NAMECACHE_ENTRY_EXPIRED ? "true" : "false");
				json_cstr(stdout, e->origin ? e->origin : "");
				putchar('}');
				first = false;
				continue;
			}
			printf("%-40s %-10s %7us  %s%s\n", e->name,
			    e->status == 0 ? "found" : "not found", e->ttl,
			    e->origin ? e->origin : "",
			    e->flags & NAMECACHE_ENTRY_EXPIRED ? " (expired)" : "");
		}
		cursor = pg->next;
		namecache_cache_page_free(pg);
	} while (cursor != 0);
	if (json)
		printf("]\n");
	else
		printf("\n%s-- %llu cached %s answers.%s\n", DIM,
		    (unsigned long long)total, db, RESET);
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket",	required_argument, NULL, 's' },
		{ "json",	no_argument,	   NULL, 'j' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ "type",	required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char	*cmd;
	const char	*term = getenv("TERM");
	int		 c, r;

	socket_path = namecache_socket_path();
	/* Options may come before or after the command, as with resolvectl. */
	while ((c = getopt_long(argc, argv, "46ht:", opts, NULL)) != -1) {
		switch (c) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if ((rrtype = namecache_rrtype_parse(optarg)) < 0) {
				fprintf(stderr, "namecachectl: unknown record type '%s'\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("namecachectl %s\n", NAMECACHECTL_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	color = !json && isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL &&
	    term != NULL && strcmp(term, "dumb") != 0;
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "query") == 0)
		r = cmd_query(argc - optind, argv + optind);
	else if (strcmp(cmd, "statistics") == 0 && optind == argc)
		r = cmd_kv(KV_STATISTICS);
	else if (strcmp(cmd, "status") == 0 && optind == argc)
		r = cmd_kv(KV_STATUS);
	else if (strcmp(cmd, "show-cache") == 0 && optind == argc)
		r = cmd_show_cache();
	else if (strcmp(cmd, "show-cache") == 0 && optind + 1 == argc &&
	    strcmp(argv[optind], "hosts") == 0)
		r = cmd_show_cache();
	else if (strcmp(cmd, "show-cache") == 0 && optind + 1 == argc)
		r = cmd_show_db(argv[optind]);
	else if (strcmp(cmd, "flush-caches") == 0 && optind == argc)
		r = cmd_admin(A_FLUSH, NULL);
	else if (strcmp(cmd, "flush-caches") == 0 && optind + 1 == argc)
		r = cmd_admin(A_FLUSH, argv[optind]);
	else if (strcmp(cmd, "reset-statistics") == 0 && optind == argc)
		r = cmd_admin(A_RESET, NULL);
	else if (strcmp(cmd, "reload") == 0 && optind == argc)
		r = cmd_admin(A_RELOAD, NULL);
	else if (strcmp(cmd, "monitor") == 0 && optind == argc)
		r = cmd_monitor();
	else if (strcmp(cmd, "metrics") == 0 && optind == argc)
		r = cmd_metrics();
	else if (strcmp(cmd, "invalidate") == 0 && optind < argc) {
		r = EXIT_OK;
		for (; optind < argc && r != EXIT_UNREACHABLE; optind++) {
			int one = cmd_admin(A_INVALIDATE, argv[optind]);

			if (one > r)
				r = one;
		}
	}
	else {
		fprintf(stderr, "namecachectl: unknown command or extra arguments: '%s'\n",
		    cmd);
		usage(stderr);
		r = EXIT_USAGE;
	}
	namecache_free(ctx);
	fflush(stdout);
	return ferror(stdout) ? EXIT_FAILED : r;
}
