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

#include "buildinfo.h"
#include "client.h"
#include "proto.h"

#define TIMEOUT_MS	20000

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* not found, or the lookup failed */
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,	/* no daemon to ask */
};

static const char	*socket_path;
static bool		 json;
static bool		 color;
static int		 family = PROTO_AF_UNSPEC;
static int		 rrtype;		/* query -t, 0 when not given */
static int		 conn_fd = -1;

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
"  show-cache                     list the cached answers and their TTLs\n"
"  flush-caches                   drop every cached answer (admin)\n"
"  invalidate NAME...             drop what is cached for these names (admin)\n"
"  reload                         reread configuration, hosts, resolv.conf (admin)\n"
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
"2 usage error, 3 daemon unreachable.\n", NAMECACHE_SOCKET_PATH);
}

static const char *
on(const char *code)
{
	return color ? code : "";
}

#define BOLD	on("\033[1m")
#define DIM	on("\033[2m")
#define RED	on("\033[31m")
#define RESET	on("\033[0m")

/* JSON strings must be UTF-8: valid sequences pass, anything else is escaped. */
static void
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

static void
json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

/* Control bytes from the daemon never reach a terminal raw. */
static void
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

static int
connect_daemon(void)
{
	int r;

	if (conn_fd >= 0)
		return 0;
	if ((r = ncc_connect(socket_path, &conn_fd)) < 0) {
		fprintf(stderr, "namecachectl: cannot reach namecached at %s: %s\n",
		    socket_path, strerror(-r));
		return -EXIT_UNREACHABLE;
	}
	return 0;
}

/* Sends one request frame; returns 0 with *rep, or -EXIT_*. */
static int
call(const uint8_t *req, int len, struct ncc_reply *rep)
{
	int r;

	if (len < 0) {
		fprintf(stderr, "namecachectl: cannot encode the request: %s\n",
		    strerror(-len));
		return -EXIT_USAGE;
	}
	if ((r = connect_daemon()) < 0)
		return r;
	if ((r = ncc_call(conn_fd, req, (size_t)len, ncc_now_ms() + TIMEOUT_MS,
	    rep)) < 0) {
		fprintf(stderr, "namecachectl: no answer from namecached at %s: %s\n",
		    socket_path, strerror(-r));
		close(conn_fd);
		conn_fd = -1;
		return -EXIT_UNREACHABLE;
	}
	return 0;
}

static const char *
family_str(int f)
{
	return f == PROTO_AF_INET ? "ipv4" : f == PROTO_AF_INET6 ? "ipv6" : "any";
}

static void
addr_str(uint8_t fam, const uint8_t *a, char *buf, size_t len)
{
	inet_ntop(fam == PROTO_AF_INET ? AF_INET : AF_INET6, a, buf, (socklen_t)len);
}

static void
print_json_answer(const char *key, const struct proto_answer *a, double ms)
{
	const uint8_t	*addr;
	const char	*s;
	size_t		 cur = 0, n;
	uint8_t		 fam;
	char		 buf[INET6_ADDRSTRLEN];
	bool		 first = true;

	printf("{\"name\":");
	json_cstr(stdout, key);
	printf(",\"family\":\"%s\",\"status\":\"ok\",\"canonical\":", family_str(family));
	json_str(stdout, a->canon, a->canon_len);
	printf(",\"addresses\":[");
	while (proto_answer_next_addr(a, &cur, &fam, &addr)) {
		addr_str(fam, addr, buf, sizeof(buf));
		printf("%s\"%s\"", first ? "" : ",", buf);
		first = false;
	}
	printf("],\"aliases\":[");
	for (cur = 0, first = true; proto_answer_next_alias(a, &cur, &s, &n); first = false) {
		printf("%s", first ? "" : ",");
		json_str(stdout, s, n);
	}
	printf("],\"ttl\":%u,\"source\":\"%s\",\"time_ms\":%.3f}\n", a->ttl,
	    proto_source_str(a->source), ms);
}

static void
print_answer(const char *key, bool reverse, const struct proto_answer *a, double ms)
{
	const uint8_t	*addr;
	const char	*s;
	size_t		 cur = 0, n, indent = strlen(key) + 2;
	uint8_t		 fam;
	char		 buf[INET6_ADDRSTRLEN];
	bool		 first = true;

	printf("%s%s%s: ", BOLD, key, RESET);
	if (reverse) {
		print_safe(a->canon, a->canon_len);
		putchar('\n');
		first = false;
	} else {
		while (proto_answer_next_addr(a, &cur, &fam, &addr)) {
			addr_str(fam, addr, buf, sizeof(buf));
			printf("%*s%s\n", first ? 0 : (int)indent, "", buf);
			first = false;
		}
		if (a->canon_len != strlen(key) ||
		    strncasecmp(a->canon, key, a->canon_len) != 0) {
			printf("%*s%s(", (int)indent, "", DIM);
			print_safe(a->canon, a->canon_len);
			printf(")%s\n", RESET);
		}
	}
	if (a->nalias) {
		printf("%*s%saliases:", (int)indent, "", DIM);
		for (cur = 0; proto_answer_next_alias(a, &cur, &s, &n); ) {
			putchar(' ');
			print_safe(s, n);
		}
		printf("%s\n", RESET);
	}
	printf("\n%s-- Answered from %s", DIM, proto_source_str(a->source));
	if (a->source != PROTO_SRC_HOSTS)
		printf(", TTL %us", a->ttl);
	printf(", in %.2f ms.%s\n", ms, RESET);
}

static void
print_failure(const char *key, const struct ncc_reply *rep)
{
	const char	*msg;
	size_t		 len;

	proto_error_decode(rep->body, rep->body_len, &msg, &len);
	if (json) {
		printf("{\"name\":");
		json_cstr(stdout, key);
		printf(",\"family\":\"%s\",\"status\":\"%s\",\"error\":", family_str(family),
		    rep->hdr.status == PROTO_NOTFOUND ? "notfound" :
		    rep->hdr.status == PROTO_NODATA ? "nodata" : "error");
		if (msg)
			json_str(stdout, msg, len);
		else
			json_cstr(stdout, proto_status_str(rep->hdr.status));
		printf(",\"addresses\":[],\"ttl\":0,\"source\":\"none\"}\n");
		return;
	}
	fprintf(stderr, "%s%s%s: %s", RED, key, RESET, proto_status_str(rep->hdr.status));
	if (msg) {
		fputs(": ", stderr);
		fwrite(msg, 1, len, stderr);
	}
	fputc('\n', stderr);
}

/*
 * Asks, timing the round trip.  Returns EXIT_OK with an OK reply in *rep
 * (caller frees), or the exit status, the failure already printed.
 */
static int
ask(const char *key, const uint8_t *req, int len, struct ncc_reply *rep,
    double *ret_ms)
{
	struct timespec	ts0, ts1;
	int		r;

	clock_gettime(CLOCK_MONOTONIC, &ts0);
	if ((r = call(req, len, rep)) < 0)
		return -r;
	clock_gettime(CLOCK_MONOTONIC, &ts1);
	*ret_ms = (ts1.tv_sec - ts0.tv_sec) * 1e3 + (ts1.tv_nsec - ts0.tv_nsec) / 1e6;
	if (rep->hdr.status != PROTO_OK) {
		print_failure(key, rep);
		ncc_reply_free(rep);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

static int
bad_answer(const char *key, struct ncc_reply *rep)
{
	fprintf(stderr, "namecachectl: %s: malformed answer from the daemon\n", key);
	ncc_reply_free(rep);
	return EXIT_FAILED;
}

static int
query_records(const char *key)
{
	uint8_t		 buf[PROTO_HDR_LEN + 6 + PROTO_NAME_MAX + 1];
	struct proto_records recs;
	struct proto_record rec;
	struct ncc_reply rep;
	struct proto_wr	 w;
	const char	*why = NULL;
	char		 tbuf[16];
	size_t		 cur = 0;
	bool		 first = true;
	double		 ms;
	int		 r;

	if (proto_name_check(key, strlen(key), &why) < 0) {
		fprintf(stderr, "namecachectl: '%s': %s\n", key, why);
		return EXIT_FAILED;
	}
	proto_wr_init(&w, buf, sizeof(buf));
	if ((r = ask(key, buf, proto_query_rr_encode(&w, ncc_next_id(),
	    (uint16_t)rrtype, key), &rep, &ms)) != EXIT_OK)
		return r;
	if (proto_records_decode(rep.body, rep.body_len, &recs) < 0)
		return bad_answer(key, &rep);
	if (json) {
		printf("{\"name\":");
		json_cstr(stdout, key);
		printf(",\"type\":\"%s\",\"status\":\"ok\",\"records\":[",
		    proto_rrtype_str((uint16_t)rrtype, tbuf, sizeof(tbuf)));
	}
	while (proto_records_next(&recs, &cur, &rec)) {
		const char *t = proto_rrtype_str(rec.type, tbuf, sizeof(tbuf));

		if (json) {
			printf("%s{\"name\":", first ? "" : ",");
			json_str(stdout, rec.owner, rec.owner_len);
			printf(",\"type\":\"%s\",\"ttl\":%u,\"data\":", t, rec.ttl);
			json_str(stdout, rec.rdata, rec.rdata_len);
			putchar('}');
		} else {
			printf("%s", BOLD);
			print_safe(rec.owner, rec.owner_len);
			printf("%s IN %s ", RESET, t);
			print_safe(rec.rdata, rec.rdata_len);
			putchar('\n');
		}
		first = false;
	}
	if (json)
		printf("],\"ttl\":%u,\"source\":\"%s\",\"time_ms\":%.3f}\n",
		    recs.ttl, proto_source_str(recs.source), ms);
	else
		printf("\n%s-- Answered from %s, TTL %us, in %.2f ms.%s\n", DIM,
		    proto_source_str(recs.source), recs.ttl, ms, RESET);
	ncc_reply_free(&rep);
	return EXIT_OK;
}

static int
query_one(const char *key)
{
	uint8_t		 buf[PROTO_HDR_LEN + 4 + PROTO_NAME_MAX + 1], addr[16];
	struct proto_answer a;
	struct ncc_reply rep;
	struct proto_wr	 w;
	const char	*why = NULL;
	bool		 reverse = true;
	double		 ms;
	int		 len, r;

	proto_wr_init(&w, buf, sizeof(buf));
	if (rrtype)
		return query_records(key);
	if (inet_pton(AF_INET, key, addr) == 1)
		len = proto_lookup_addr_encode(&w, ncc_next_id(), PROTO_AF_INET, addr);
	else if (inet_pton(AF_INET6, key, addr) == 1)
		len = proto_lookup_addr_encode(&w, ncc_next_id(), PROTO_AF_INET6, addr);
	else {
		reverse = false;
		if (proto_name_check(key, strlen(key), &why) < 0) {
			fprintf(stderr, "namecachectl: '%s': %s\n", key, why);
			return EXIT_FAILED;
		}
		len = proto_lookup_name_encode(&w, ncc_next_id(), (uint8_t)family, key);
	}
	if ((r = ask(key, buf, len, &rep, &ms)) != EXIT_OK)
		return r;
	if (proto_answer_decode(rep.body, rep.body_len, &a) < 0)
		return bad_answer(key, &rep);
	if (json)
		print_json_answer(key, &a, ms);
	else
		print_answer(key, reverse, &a, ms);
	ncc_reply_free(&rep);
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

static int
cmd_kv(uint8_t type)
{
	uint8_t		 buf[PROTO_HDR_LEN];
	struct proto_kv_rd kr;
	struct proto_kv	 kv;
	struct ncc_reply rep;
	struct proto_wr	 w;
	size_t		 width = 0;
	char		 lab[PROTO_KEY_MAX + 1];
	bool		 first = true;
	int		 r, pass;

	proto_wr_init(&w, buf, sizeof(buf));
	if ((r = call(buf, proto_simple_encode(&w, type, ncc_next_id()), &rep)) < 0)
		return -r;
	if (rep.hdr.status != PROTO_OK) {
		print_failure(type == PROTO_STATUS ? "status" : "statistics", &rep);
		ncc_reply_free(&rep);
		return EXIT_FAILED;
	}
	/* Two passes: the first finds the label width, for aligned output. */
	for (pass = json ? 1 : 0; pass < 2; pass++) {
		if (proto_kv_init(&kr, rep.body, rep.body_len) < 0)
			goto bad;
		if (pass == 1 && json)
			putchar('{');
		while ((r = proto_kv_next(&kr, &kv)) > 0) {
			if (pass == 0) {
				if (kv.key_len > width)
					width = kv.key_len;
				continue;
			}
			if (json) {
				printf("%s", first ? "" : ",");
				json_str(stdout, kv.key, kv.key_len);
				putchar(':');
				if (kv.kind == PROTO_KV_U64)
					printf("%llu", (unsigned long long)kv.u64);
				else
					json_str(stdout, kv.str, kv.str_len);
				first = false;
				continue;
			}
			label(kv.key, kv.key_len, lab, sizeof(lab));
			printf("%s%*s%s: ", BOLD, (int)width, lab, RESET);
			if (kv.kind == PROTO_KV_U64)
				printf("%llu\n", (unsigned long long)kv.u64);
			else {
				print_safe(kv.str, kv.str_len);
				putchar('\n');
			}
		}
		if (r < 0)
			goto bad;
	}
	if (json)
		printf("}\n");
	ncc_reply_free(&rep);
	return EXIT_OK;
bad:
	fprintf(stderr, "namecachectl: malformed reply from the daemon\n");
	ncc_reply_free(&rep);
	return EXIT_FAILED;
}

/* Sends a request and prints its kv reply as a sentence: "Flushed 3 entries." */
static int
cmd_admin(uint8_t type, const char *name)
{
	uint8_t		 buf[PROTO_HDR_LEN + 2 + PROTO_NAME_MAX + 1];
	struct proto_kv_rd kr;
	struct proto_kv	 kv;
	struct ncc_reply rep;
	struct proto_wr	 w;
	uint64_t	 n = 0;
	int		 len, r;

	proto_wr_init(&w, buf, sizeof(buf));
	if (type == PROTO_INVALIDATE) {
		const char *why = NULL;

		if (proto_name_check(name, strlen(name), &why) < 0) {
			fprintf(stderr, "namecachectl: '%s': %s\n", name, why);
			return EXIT_FAILED;
		}
		len = proto_invalidate_encode(&w, ncc_next_id(), name);
	} else
		len = proto_simple_encode(&w, type, ncc_next_id());
	if ((r = call(buf, len, &rep)) < 0)
		return -r;
	if (rep.hdr.status != PROTO_OK) {
		const char *msg;
		size_t mlen;

		proto_error_decode(rep.body, rep.body_len, &msg, &mlen);
		if (json)
			printf("{\"status\":\"%s\"}\n", rep.hdr.status == PROTO_DENIED ?
			    "denied" : "error");
		fprintf(stderr, "namecachectl: %.*s\n", msg ? (int)mlen : 0, msg ? msg : "");
		if (!msg)
			fprintf(stderr, "namecachectl: %s\n", proto_status_str(rep.hdr.status));
		ncc_reply_free(&rep);
		return EXIT_FAILED;
	}
	if (proto_kv_init(&kr, rep.body, rep.body_len) == 0 &&
	    proto_kv_next(&kr, &kv) > 0 && kv.kind == PROTO_KV_U64)
		n = kv.u64;
	ncc_reply_free(&rep);
	if (json) {
		printf("{\"status\":\"ok\"");
		if (type == PROTO_FLUSH_CACHES)
			printf(",\"flushed\":%llu", (unsigned long long)n);
		if (type == PROTO_INVALIDATE) {
			printf(",\"name\":");
			json_cstr(stdout, name);
			printf(",\"invalidated\":%llu", (unsigned long long)n);
		}
		printf("}\n");
		return EXIT_OK;
	}
	switch (type) {
	case PROTO_FLUSH_CACHES:
		printf("Flushed %llu cached answers.\n", (unsigned long long)n);
		break;
	case PROTO_INVALIDATE:
		printf("%s: dropped %llu cached answers.\n", name, (unsigned long long)n);
		break;
	case PROTO_RESET_STATISTICS:
		printf("Statistics reset.\n");
		break;
	case PROTO_RELOAD:
		printf("Reloaded configuration, hosts file and resolv.conf.\n");
		break;
	}
	return EXIT_OK;
}

static const char *
kind_str(uint32_t kind, char *buf, size_t len)
{
	char t[16];

	/* Records asked with query -t are marked, beside the address lookups. */
	snprintf(buf, len, "%s%s", proto_rrtype_str((uint16_t)kind, t, sizeof(t)),
	    kind & 0x10000 ? "/rr" : "");
	return buf;
}

static const char *
item_status(const struct proto_cache_item *it)
{
	switch (it->status) {
	case PROTO_OK:		return "answer";
	case PROTO_NOTFOUND:	return "NXDOMAIN";
	case PROTO_NODATA:	return "NODATA";
	}
	return "failed";
}

static int
cmd_show_cache(void)
{
	uint8_t		 buf[PROTO_HDR_LEN + 8];
	struct proto_cache_page pg;
	struct proto_cache_item it;
	struct ncc_reply rep;
	struct proto_wr	 w;
	uint64_t	 cursor = 0, total = 0;
	size_t		 cur;
	char		 kbuf[24];
	bool		 first = true;
	int		 r;

	if (json)
		putchar('[');
	else
		printf("%s%-50s %-9s %-9s %8s%s\n", BOLD, "NAME", "KIND", "STATUS",
		    "TTL", RESET);
	do {
		proto_wr_init(&w, buf, sizeof(buf));
		if ((r = call(buf, proto_show_cache_encode(&w, ncc_next_id(), cursor),
		    &rep)) < 0)
			return -r;
		if (rep.hdr.status != PROTO_OK ||
		    proto_cache_page_decode(rep.body, rep.body_len, &pg) < 0) {
			fprintf(stderr, "namecachectl: show-cache: %s\n",
			    proto_status_str(rep.hdr.status));
			ncc_reply_free(&rep);
			return EXIT_FAILED;
		}
		for (cur = 0; proto_cache_page_next(&pg, &cur, &it); total++) {
			kind_str(it.kind, kbuf, sizeof(kbuf));
			if (json) {
				printf("%s{\"name\":", first ? "" : ",");
				json_str(stdout, it.name, it.name_len);
				printf(",\"kind\":\"%s\",\"query\":\"%s\",\"status\":"
				    "\"%s\",\"ttl\":%u,\"expired\":%s,\"source\":\"dns\"}",
				    kbuf, it.kind & 0x10000 ? "records" : "address",
				    item_status(&it), it.ttl,
				    it.flags & PROTO_CACHE_EXPIRED ? "true" : "false");
				first = false;
				continue;
			}
			printf("%-50.*s %-9s %-9s %7us%s\n", (int)it.name_len, it.name,
			    kbuf, item_status(&it), it.ttl,
			    it.flags & PROTO_CACHE_EXPIRED ? " (expired)" : "");
		}
		cursor = pg.next;
		ncc_reply_free(&rep);
	} while (cursor != 0);
	if (json)
		printf("]\n");
	else
		printf("\n%s-- %llu cached answers.%s\n", DIM, (unsigned long long)total,
		    RESET);
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

	socket_path = ncc_socket_path();
	/* Options may come before or after the command, as with resolvectl. */
	while ((c = getopt_long(argc, argv, "46ht:", opts, NULL)) != -1) {
		switch (c) {
		case '4':
			family = PROTO_AF_INET;
			break;
		case '6':
			family = PROTO_AF_INET6;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if ((rrtype = proto_rrtype_parse(optarg)) < 0) {
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
			printf("namecachectl %s\n", NAMECACHE_VERSION);
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
		r = cmd_kv(PROTO_STATISTICS);
	else if (strcmp(cmd, "status") == 0 && optind == argc)
		r = cmd_kv(PROTO_STATUS);
	else if (strcmp(cmd, "show-cache") == 0 && optind == argc)
		r = cmd_show_cache();
	else if (strcmp(cmd, "flush-caches") == 0 && optind == argc)
		r = cmd_admin(PROTO_FLUSH_CACHES, NULL);
	else if (strcmp(cmd, "reset-statistics") == 0 && optind == argc)
		r = cmd_admin(PROTO_RESET_STATISTICS, NULL);
	else if (strcmp(cmd, "reload") == 0 && optind == argc)
		r = cmd_admin(PROTO_RELOAD, NULL);
	else if (strcmp(cmd, "invalidate") == 0 && optind < argc) {
		r = EXIT_OK;
		for (; optind < argc && r != EXIT_UNREACHABLE; optind++) {
			int one = cmd_admin(PROTO_INVALIDATE, argv[optind]);

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
	if (conn_fd >= 0)
		close(conn_fd);
	fflush(stdout);
	return ferror(stdout) ? EXIT_FAILED : r;
}
