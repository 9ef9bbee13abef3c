/* SPDX-License-Identifier: MIT */
/* client-lib/gaiconf.c - getaddrinfo's policy: glibc's tables, or /etc/gai.conf's. */

/*
 * The label, precedence and scopev4 tables of RFC 6724's rules, and
 * /etc/gai.conf's syntax, follow glibc 2.36 (Debian 12), quirks included:
 * a bad line is ignored, each list the file gives ends with its catch-all,
 * equal prefixes keep file order, and out of memory means the built-in
 * tables.  State is per process, as glibc's; sort.c's lock guards it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "array.h"
#include "gaiconf.h"

#ifndef NC_GAICONF_PATH
#define NC_GAICONF_PATH	"/etc/gai.conf"
#endif

/* --- the tables: built in, or /etc/gai.conf's ---------------------------- */

struct prefix_ent {
	uint8_t		addr[16];
	unsigned	bits;
	int		val;
};

struct scope_ent {
	uint32_t	addr;		/* network order */
	uint32_t	mask;		/* network order */
	int		val;
};

#define P6(...) { __VA_ARGS__ }
static const struct prefix_ent default_labels[] = {
	{ P6(0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1), 128, 0 },
	{ P6(0x20,0x02), 16, 2 },
	{ P6(0), 96, 3 },
	{ P6(0,0,0,0,0,0,0,0,0,0,0xff,0xff), 96, 4 },
	/* glibc: site-local and ULA apart, as they are never NATed */
	{ P6(0xfe,0xc0), 10, 5 },
	{ P6(0xfc), 7, 6 },
	{ P6(0x20,0x01), 32, 7 },	/* Teredo */
	{ P6(0), 0, 1 },
};

static const struct prefix_ent default_precedence[] = {
	{ P6(0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1), 128, 50 },
	{ P6(0x20,0x02), 16, 30 },
	{ P6(0), 96, 20 },
	{ P6(0,0,0,0,0,0,0,0,0,0,0xff,0xff), 96, 10 },
	{ P6(0), 0, 40 },
};

/* Network order, written out byte by byte. */
#define NET4(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | \
	(uint32_t)(c) << 16 | (uint32_t)(d) << 24)
static const struct scope_ent default_scopes[] = {
	{ NET4(169, 254, 0, 0), NET4(255, 255, 0, 0), 2 },
	{ NET4(127, 0, 0, 0), NET4(255, 0, 0, 0), 2 },
	{ 0, 0, 14 },
};

struct tables {
	const struct prefix_ent	*labels;
	const struct prefix_ent	*precedence;
	const struct scope_ent	*scopes;
	bool			 reload;	/* "reload yes" */
	bool			 loaded;
	struct timespec		 mtime;
};

static struct tables	tab = {
	default_labels, default_precedence, default_scopes, false, false, { 0, 0 }
};

static bool
decimal(const char *s, unsigned long *ret)
{
	char		*end;
	unsigned long	 v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (end == s || *end != '\0' || (v == ULONG_MAX && errno == ERANGE))
		return false;
	*ret = v;
	return true;
}

/* A list being read, in file order. */
struct plist {
	struct prefix_ent	*v;
	size_t			 n, cap;
	bool			 has_zero;	/* a /0 entry was given */
};

struct slist {
	struct scope_ent	*v;
	size_t			 n, cap;
	bool			 has_zero;
};

/* "label" and "precedence": PREFIX[/BITS] VALUE; a bad line is ignored. */
static bool
add_prefix(struct plist *l, char *v1, const char *v2)
{
	struct in6_addr	 a;
	unsigned long	 bits = 128, val;
	char		*slash = strchr(v1, '/');

	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET6, v1, &a) != 1 ||
	    (slash && !decimal(slash, &bits)) || bits > 128 ||
	    !decimal(v2, &val) || val > INT_MAX)
		return true;
	if (array_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
		return false;
	memcpy(l->v[l->n].addr, &a, 16);
	l->v[l->n].bits = (unsigned)bits;
	l->v[l->n].val = (int)val;
	l->n++;
	l->has_zero |= bits == 0;
	return true;
}

static bool
add_scope(struct slist *l, uint32_t addr, unsigned long bits, unsigned long val)
{
	uint32_t mask;

	if (array_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
		return false;
	/* bits is 96 to 128: 96 is /0; glibc's shift by 32 - n, in 32 bits */
	mask = bits == 96 ? 0 : htonl(0xffffffffu << ((128 - bits) & 31));
	l->v[l->n].mask = mask;
	l->v[l->n].addr = addr & mask;
	l->v[l->n].val = (int)val;
	l->n++;
	l->has_zero |= bits == 96;
	return true;
}

/* "scopev4": an IPv4 or v4-mapped prefix, and a scope. */
static bool
add_scopev4(struct slist *l, char *v1, const char *v2)
{
	struct in6_addr	 a6;
	struct in_addr	 a4;
	unsigned long	 bits, val;
	char		*slash = strchr(v1, '/');

	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET6, v1, &a6) == 1) {
		bits = 128;
		if (IN6_IS_ADDR_V4MAPPED(&a6) && (!slash || decimal(slash, &bits)) &&
		    bits >= 96 && bits <= 128 && decimal(v2, &val) && val <= INT_MAX) {
			uint32_t w;

			memcpy(&w, a6.s6_addr + 12, 4);
			return add_scope(l, w, bits, val);
		}
		return true;
	}
	bits = 32;
	if (inet_pton(AF_INET, v1, &a4) == 1 && (!slash || decimal(slash, &bits)) &&
	    bits <= 32 && decimal(v2, &val) && val <= INT_MAX)
		return add_scope(l, a4.s_addr, bits + 96, val);
	return true;
}

/* Most specific first; equal ones keep file order (glibc's stable qsort). */
static void
psort(struct prefix_ent *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct prefix_ent e = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].bits < e.bits; j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

/* glibc compares the network-order masks as numbers: so do we. */
static void
ssort(struct scope_ent *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct scope_ent e = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].mask < e.mask; j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

static void
tables_free(struct tables *t)
{
	if (t->labels != default_labels)
		free((void *)t->labels);
	if (t->precedence != default_precedence)
		free((void *)t->precedence);
	if (t->scopes != default_scopes)
		free((void *)t->scopes);
	t->labels = default_labels;
	t->precedence = default_precedence;
	t->scopes = default_scopes;
}

/* Reads /etc/gai.conf as glibc's gaiconf_init does.  Under lock. */
static void
tables_load(void)
{
	struct plist	 labels = { 0 }, prec = { 0 };
	struct slist	 scopes = { 0 };
	struct stat	 st;
	char		*line = NULL;
	size_t		 cap = 0;
	FILE		*fp;
	bool		 ok = true, reload = tab.reload;

	tab.loaded = true;
	if ((fp = fopen(NC_GAICONF_PATH, "rce")) == NULL || fstat(fileno(fp), &st) < 0) {
		if (fp)
			fclose(fp);
		tables_free(&tab);
		return;
	}
	while (ok && getline(&line, &cap, fp) > 0) {
		char *cp = strchr(line, '#'), *cmd, *v1, *v2;

		if (cp)
			*cp = '\0';
		for (cp = line; isspace((unsigned char)*cp); cp++)
			;
		cmd = cp;
		while (*cp && !isspace((unsigned char)*cp))
			cp++;
		if (*cp)
			*cp++ = '\0';
		while (isspace((unsigned char)*cp))
			cp++;
		v1 = cp;
		while (*cp && !isspace((unsigned char)*cp))
			cp++;
		if (*cp)
			*cp++ = '\0';
		while (isspace((unsigned char)*cp))
			cp++;
		v2 = cp;
		while (*cp && !isspace((unsigned char)*cp))
			cp++;
		*cp = '\0';
		if (strcmp(cmd, "label") == 0)
			ok = add_prefix(&labels, v1, v2);
		else if (strcmp(cmd, "precedence") == 0)
			ok = add_prefix(&prec, v1, v2);
		else if (strcmp(cmd, "scopev4") == 0)
			ok = add_scopev4(&scopes, v1, v2);
		else if (strcmp(cmd, "reload") == 0)
			reload = strcmp(v1, "yes") == 0;
	}
	free(line);
	fclose(fp);
	tab.reload = reload;
	/* Each list ends with its catch-all, unless the file gave one. */
	if (ok && labels.n && !labels.has_zero && (ok = array_grow((void **)&labels.v,
	    &labels.cap, labels.n, sizeof(*labels.v)) == 0))
		labels.v[labels.n++] = (struct prefix_ent){ { 0 }, 0, 1 };
	if (ok && prec.n && !prec.has_zero && (ok = array_grow((void **)&prec.v,
	    &prec.cap, prec.n, sizeof(*prec.v)) == 0))
		prec.v[prec.n++] = (struct prefix_ent){ { 0 }, 0, 40 };
	if (ok && scopes.n && !scopes.has_zero && (ok = array_grow((void **)&scopes.v,
	    &scopes.cap, scopes.n, sizeof(*scopes.v)) == 0))
		scopes.v[scopes.n++] = (struct scope_ent){ 0, 0, 14 };
	tables_free(&tab);
	if (!ok) {
		/* out of memory: the built-in tables, as glibc */
		free(labels.v);
		free(prec.v);
		free(scopes.v);
		return;
	}
	if (labels.n) {
		psort(labels.v, labels.n);
		tab.labels = labels.v;
	}
	if (prec.n) {
		psort(prec.v, prec.n);
		tab.precedence = prec.v;
	}
	if (scopes.n) {
		ssort(scopes.v, scopes.n);
		tab.scopes = scopes.v;
	}
	tab.mtime = st.st_mtim;
}

bool
gaiconf_refresh(void)
{
	struct stat st;

	if (!tab.loaded) {
		tables_load();
		return false;
	}
	if (tab.reload && (stat(NC_GAICONF_PATH, &st) < 0 ||
	    st.st_mtim.tv_sec != tab.mtime.tv_sec ||
	    st.st_mtim.tv_nsec != tab.mtime.tv_nsec)) {
		tables_load();
		return true;
	}
	return false;
}

/* --- the lookups ---------------------------------------------------------- */

/* An address as glibc's tables see it: IPv4 as v4-mapped. */
static void
as_v6(const struct namecache_address *a, uint8_t out[16])
{
	if (a->family == AF_INET) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, a->addr.bytes, 4);
	} else
		memcpy(out, a->addr.bytes, 16);
}

static int
match_prefix(const struct namecache_address *a, const struct prefix_ent *list)
{
	uint8_t v[16];

	as_v6(a, v);
	for (size_t i = 0; ; i++) {
		unsigned	bits = list[i].bits, k = 0;

		while (bits >= 8 && list[i].addr[k] == v[k]) {
			k++;
			bits -= 8;
		}
		/* (bits 0 left: every byte matched; glibc reads one past, to no effect) */
		if (bits == 0 || (bits < 8 && ((list[i].addr[k] ^ v[k]) & (0xff00 >> bits)) == 0))
			return list[i].val;
		/* the /0 entry at the end always matches */
	}
}

int
gaiconf_scope(const struct namecache_address *a)
{
	if (a->family == AF_INET6) {
		const uint8_t *b = a->addr.bytes;

		if (b[0] == 0xff)
			return b[1] & 0xf;
		if ((b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
		    IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)(const void *)b))
			return 2;
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
			return 5;
		return 14;
	}
	if (a->family == AF_INET) {
		uint32_t w;

		memcpy(&w, a->addr.bytes, 4);
		for (size_t i = 0; ; i++)
			if ((w & tab.scopes[i].mask) == tab.scopes[i].addr)
				return tab.scopes[i].val;
	}
	return 15;
}

int
gaiconf_label(const struct namecache_address *a)
{
	return match_prefix(a, tab.labels);
}

int
gaiconf_precedence(const struct namecache_address *a)
{
	return match_prefix(a, tab.precedence);
}
