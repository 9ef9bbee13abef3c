/* SPDX-License-Identifier: MIT */
/* daemon/sources/hosts.c - the hosts file, parsed by glibc's rules and indexed. */

/*
 * Design.  An index is built once from the whole file and never changed:
 * a reload builds a new one and the caller swaps the pointer, so a lookup
 * sees the old file or the new one, never a mix.  Single-threaded use; an
 * index may be read from any thread once built.
 *
 * Parsing follows glibc 2.36's nss_files (files-parse.c, files-hosts.c,
 * nss_readline.c): a line ends at '\n' or at a NUL byte; leading blanks are
 * skipped (with nss_readline's quirk: see copy_readline_quirk); an empty
 * line or one starting with '#' is skipped; '#' anywhere ends the line; the first field is the address, which inet_pton must take
 * as IPv4 or else IPv6, or the line is skipped; the next field is the
 * canonical name (possibly empty) and the rest are aliases.  Blanks are
 * C-locale isspace().  Names match case-insensitively in ASCII.
 *
 * glibc reads a line differently for each family asked ("the view"):
 *   UNSPEC (gethostbyname4_r)	the address as written;
 *   INET  (gethostbyname3_r)	IPv4 lines, plus IPv6 lines holding a
 *				v4-mapped address or ::1, read as IPv4;
 *   INET6			IPv6 lines only.
 * With "multi on" in host.conf every matching line of the view counts;
 * without it, only the first.  Merged answers keep the first line's name,
 * then list aliases line by line, each later line adding its own name when
 * it differs (case-sensitively) from the first's.  Reverse lookups take the
 * first line whose address, read in the view, equals the one asked.
 *
 * Layout, chosen to stay under 100 bytes a line at 1,000,000 lines:
 *   text	the file, compacted in place to "name\0alias\0alias\0" runs;
 *   ent	one 24-byte entry per valid line: address, text offset, count;
 *   nslot	open-addressed table of names (8 bytes a slot): the offset of
 *		one spelling, and where its postings start, so the postings
 *		of slot i end where those of slot i + 1 start;
 *   ntag	16 bits of each slot's hash, so a probe rarely has to compare
 *		text (a cache miss) to pass a slot;
 *   post	entry numbers, grouped by name, in file order;
 *   aslot	open-addressed table of addresses (4 bytes a slot): entry
 *		number, top bit set for an IPv6-view key.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "hosts.h"
#include "name.h"
#include "proto.h"

#define EMPTY		UINT32_MAX
#define V6KEY		0x80000000u
#define ENT_MAX		0x7ffffffeu
#define PIPE		8	/* names in flight while building */

struct entry {
	uint8_t		addr[16];	/* IPv4 in the first 4 bytes */
	uint32_t	text;		/* offset of the name, aliases follow */
	uint32_t	meta;		/* nalias << 1 | is IPv6 */
};

struct nslot {
	uint32_t	key;		/* text offset of a spelling, or EMPTY */
	uint32_t	post;		/* first posting */
};

struct hosts {
	char		*text;
	struct entry	*ent;
	size_t		 nent;
	uint32_t	*post;
	struct nslot	*nslot;		/* nmask + 2 slots: the last is a sentinel */
	uint16_t	*ntag;
	uint32_t	 nmask;
	uint32_t	*aslot;
	uint32_t	 amask;
	struct hosts_info info;
};

/* Any fixed key: the digest only tells a changed file from the same one. */
static const uint64_t digest_key[2] = { 0x6e616d6563616368ULL, 0x686f737473646967ULL };

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	    c == '\r';
}

static uint64_t
mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* FNV-1a: the file is the host's own, and a load of 1,000,000 names
 * counts every cycle; mix() spreads it over the slot and the tag bits. */
static uint64_t
hash_name(const char *s)
{
	return mix(hash_fnv1a_fold(HASH_FNV1A_INIT, s, strlen(s)));
}

static uint64_t
hash_addr(const uint8_t *a, size_t len)
{
	return mix(hash_fnv1a(HASH_FNV1A_INIT ^ len, a, len));
}

static bool
ent_v6(const struct entry *e)
{
	return e->meta & 1;
}

static uint32_t
ent_nalias(const struct entry *e)
{
	return e->meta >> 1;
}

/*
 * The address of e as glibc reads it for family (a PROTO_AF_*): its length
 * and *ret_family, or 0 when the line does not parse in that view.
 */
static size_t
view_addr(const struct entry *e, int family, uint8_t *out, uint8_t *ret_family)
{
	static const uint8_t loop4[4] = { 127, 0, 0, 1 };
	const struct in6_addr *a6 = (const struct in6_addr *)e->addr;

	switch (family) {
	case PROTO_AF_UNSPEC:
		*ret_family = ent_v6(e) ? PROTO_AF_INET6 : PROTO_AF_INET;
		memcpy(out, e->addr, ent_v6(e) ? 16 : 4);
		return ent_v6(e) ? 16 : 4;
	case PROTO_AF_INET:
		*ret_family = PROTO_AF_INET;
		if (!ent_v6(e))
			memcpy(out, e->addr, 4);
		else if (IN6_IS_ADDR_V4MAPPED(a6))
			memcpy(out, e->addr + 12, 4);
		else if (IN6_IS_ADDR_LOOPBACK(a6))
			memcpy(out, loop4, 4);
		else
			return 0;
		return 4;
	case PROTO_AF_INET6:
		*ret_family = PROTO_AF_INET6;
		if (!ent_v6(e))
			return 0;
		memcpy(out, e->addr, 16);
		return 16;
	}
	return 0;
}

/*
 * The big tables are touched at random: ask for huge pages, which saves most
 * of the page faults and TLB misses of a large load.  Advice only.
 */
static void *
alloc_big(size_t n)
{
	void		*p = malloc(n);
	uintptr_t	 a;

	if (p && n >= ((size_t)4 << 20)) {
		a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
		madvise((void *)a, n - (a - (uintptr_t)p), MADV_HUGEPAGE);
	}
	return p;
}

static size_t
pow2_at_least(size_t n)
{
	size_t p = 16;

	while (p < n)
		p <<= 1;
	return p;
}

struct hosts *
hosts_new_empty(unsigned flags)
{
	char *data = malloc(1);
	struct hosts *h = NULL;

	if (data == NULL)
		return NULL;
	if (hosts_parse(data, 0, flags, &h) < 0)
		return NULL;
	return h;
}

void
hosts_free(struct hosts *h)
{
	if (h == NULL)
		return;
	free(h->text);
	free(h->ent);
	free(h->post);
	free(h->nslot);
	free(h->ntag);
	free(h->aslot);
	free(h);
}

/*
 * glibc 2.36's nss_readline drops a line's leading blanks with
 * memmove(buf, p, strlen(p)), which does not move the terminator: when the
 * string holds no '\n' to cut at (a NUL inside the line, or a last line
 * without one), the last k bytes stay behind and the line reads k bytes
 * longer.  "Exactly as glibc" includes this: line[0..len) becomes
 * line[k..len) followed by line[len-k..len).
 */
static int
copy_readline_quirk(char *line, size_t len, size_t k)
{
	char	 small[64], *tail = small;

	if (k > sizeof(small) && (tail = malloc(k)) == NULL)
		return -ENOMEM;
	memcpy(tail, line + len - k, k);
	memmove(line, line + k, len - k);
	memcpy(line + len - k, tail, k);
	if (tail != small)
		free(tail);
	return 0;
}

/*
 * Pass 1: lines to entries, compacting the names to the front of the text.
 * Returns the number of non-empty names and aliases, or -ENOMEM.
 */
static ssize_t
parse_lines(struct hosts *h, char *d, size_t len)
{
	size_t	r = 0, w = 0, cap = 0, tokens = 0;
	char	*p, *nl;

	/* One entry a line at most: count lines for a single allocation. */
	for (p = d; (nl = memchr(p, '\n', len - (size_t)(p - d))) != NULL; p = nl + 1)
		cap++;
	cap++;
	if (cap > ENT_MAX)
		return -EFBIG;
	if ((h->ent = alloc_big(cap * sizeof(*h->ent))) == NULL)
		return -ENOMEM;

	while (r < len) {
		char		*line = d + r, *end, *tok, *cut;
		size_t		 linelen, n;
		struct entry	*e;
		uint32_t	 nalias = 0;

		nl = memchr(line, '\n', len - r);
		linelen = nl ? (size_t)(nl - line) : len - r;
		r += linelen + (nl ? 1 : 0);
		h->info.lines++;

		/* As fgets sees it: the string ends at a NUL, or after the '\n'. */
		end = line + linelen;
		if ((cut = memchr(line, '\0', linelen)) != NULL) {
			end = cut;
			nl = NULL;	/* the string holds no '\n' */
		}
		for (p = line; p < end && blank(*p); p++)
			;
		if (p == end || *p == '#')
			continue;
		if (p > line && nl == NULL &&
		    copy_readline_quirk(line, (size_t)(end - line),
		    (size_t)(p - line)) < 0)
			return -ENOMEM;
		if (p > line && nl == NULL)
			p = line;
		/* As strpbrk(line, "#\n") cuts it. */
		if ((cut = memchr(p, '#', (size_t)(end - p))) != NULL)
			end = cut;
		*end = '\0';

		tok = p;
		while (p < end && !blank(*p))
			p++;
		*p = '\0';	/* a blank or the end: the token is now a string */
		e = &h->ent[h->nent];
		memset(e->addr, 0, sizeof(e->addr));
		if (inet_pton(AF_INET, tok, e->addr) > 0)
			e->meta = 0;
		else if (inet_pton(AF_INET6, tok, e->addr) > 0)
			e->meta = 1;
		else {
			h->info.invalid++;
			continue;
		}
		if (p < end)
			p++;

		/* The name, possibly empty, then the aliases. */
		e->text = (uint32_t)w;
		for (;;) {
			while (p < end && blank(*p))
				p++;
			tok = p;
			while (p < end && !blank(*p))
				p++;
			n = (size_t)(p - tok);
			if (n == 0 && w != e->text)
				break;		/* no more aliases */
			if (p < end)
				p++;		/* past the blank the NUL may land on */
			/* w never passes tok, so the copy ends at or before p. */
			memmove(d + w, tok, n);
			d[w + n] = '\0';
			w += n + 1;
			if (n)
				tokens++;
			if (w - 1 - n != e->text)
				nalias++;
			if (n == 0)
				break;		/* an empty name: nothing follows */
		}
		e->meta |= nalias << 1;
		h->nent++;
	}
	h->info.entries = h->nent;
	h->info.text = w;
	return (ssize_t)tokens;
}

/* Finds the slot of name, or the empty slot where it would go. */
static uint32_t
name_slot(const struct hosts *h, const char *text, const char *name,
    uint16_t *ret_tag)
{
	uint64_t hash = hash_name(name);
	uint32_t i = (uint32_t)hash & h->nmask;
	uint16_t tag = (uint16_t)(hash >> 48);

	while (h->nslot[i].key != EMPTY && (h->ntag[i] != tag ||
	    !name_streq_fold(text + h->nslot[i].key, name)))
		i = (i + 1) & h->nmask;
	*ret_tag = tag;
	return i;
}

/*
 * While building, one 16-byte slot keeps together what each probe touches
 * (key, tag, count, last entry counted), so a name costs one cache miss;
 * the final tables are then copied out in order.
 */
struct bslot {
	uint32_t	key;
	uint32_t	count;
	uint32_t	last;
	uint16_t	tag;
};

struct pair {
	uint32_t	slot;
	uint32_t	ent;
};

struct pend {
	const char	*s;
	uint64_t	 hash;
	uint32_t	 ent;
};

static void
name_insert(struct bslot *b, uint32_t mask, const char *text,
    const struct pend *p, struct pair *pairs, size_t *npairs)
{
	uint16_t tag = (uint16_t)(p->hash >> 48);
	uint32_t slot;

	for (slot = (uint32_t)p->hash & mask; b[slot].key != EMPTY;
	    slot = (slot + 1) & mask)
		if (b[slot].tag == tag && name_streq_fold(text + b[slot].key, p->s))
			break;
	if (b[slot].key == EMPTY) {
		b[slot].key = (uint32_t)(p->s - text);
		b[slot].tag = tag;
	}
	if (b[slot].last == p->ent)
		return;		/* a line counts once per name */
	b[slot].last = p->ent;
	b[slot].count++;
	pairs[*npairs].slot = slot;
	pairs[*npairs].ent = p->ent;
	(*npairs)++;
}

/* Pass 2: the name table and its postings. */
static int
index_names(struct hosts *h, const char *text, size_t tokens)
{
	struct bslot	*b = NULL;
	struct pair	*pairs = NULL;
	struct pend	 q[PIPE];
	size_t		 nslots, npairs = 0, i, k, qh = 0, qn = 0;
	uint32_t	 sum, mask;
	int		 r = -ENOMEM;

	nslots = pow2_at_least(tokens + tokens / 2 + 1);
	if (nslots > UINT32_MAX / 2)
		return -EFBIG;
	mask = (uint32_t)(nslots - 1);
	h->nmask = mask;
	if ((b = alloc_big(nslots * sizeof(*b))) == NULL ||
	    (pairs = alloc_big((tokens ? tokens : 1) * sizeof(*pairs))) == NULL)
		goto done;
	for (i = 0; i < nslots; i++) {
		b[i].key = EMPTY;
		b[i].count = 0;
		b[i].last = EMPTY;
	}

	/*
	 * Names go through a short queue: each one's slot is prefetched when
	 * it enters and probed when it leaves, so the cache misses of several
	 * names overlap.  The queue keeps file order, which postings need.
	 */
	for (i = 0; i < h->nent; i++) {
		const struct entry *e = &h->ent[i];
		const char *s = text + e->text;

		for (k = 0; k <= ent_nalias(e); k++, s += strlen(s) + 1) {
			struct pend *p = &q[(qh + qn) % PIPE];

			if (*s == '\0')
				continue;
			p->s = s;
			p->hash = hash_name(s);
			p->ent = (uint32_t)i;
			__builtin_prefetch(&b[(uint32_t)p->hash & mask]);
			if (++qn == PIPE) {
				name_insert(b, mask, text, &q[qh], pairs, &npairs);
				qh = (qh + 1) % PIPE;
				qn--;
			}
		}
	}
	for (; qn > 0; qn--, qh = (qh + 1) % PIPE)
		name_insert(b, mask, text, &q[qh], pairs, &npairs);

	if ((h->nslot = alloc_big((nslots + 1) * sizeof(*h->nslot))) == NULL ||
	    (h->ntag = alloc_big(nslots * sizeof(*h->ntag))) == NULL ||
	    (h->post = alloc_big((npairs ? npairs : 1) * sizeof(*h->post))) == NULL)
		goto done;
	for (i = 0, sum = 0; i < nslots; i++) {
		h->nslot[i].key = b[i].key;
		h->nslot[i].post = sum;
		h->ntag[i] = b[i].tag;
		if (b[i].key != EMPTY)
			h->info.names++;
		b[i].last = sum;	/* now the fill cursor */
		sum += b[i].count;
	}
	h->nslot[nslots].key = EMPTY;
	h->nslot[nslots].post = sum;
	for (i = 0; i < npairs; i++) {
		if (i + PIPE < npairs)
			__builtin_prefetch(&b[pairs[i + PIPE].slot]);
		h->post[b[pairs[i].slot].last++] = pairs[i].ent;
	}
	r = 0;
done:
	free(pairs);
	free(b);
	return r;
}

/* The slot holding (view, addr), or the empty slot where it would go. */
static uint32_t
addr_slot(const struct hosts *h, int family, const uint8_t *addr, size_t len,
    uint32_t hash)
{
	uint32_t i = hash & h->amask;
	uint8_t	 a[16], fam;

	for (; h->aslot[i] != EMPTY; i = (i + 1) & h->amask) {
		uint32_t v = h->aslot[i];
		int view = v & V6KEY ? PROTO_AF_INET6 : PROTO_AF_INET;

		if (view == family &&
		    view_addr(&h->ent[v & ~V6KEY], view, a, &fam) == len &&
		    memcmp(a, addr, len) == 0)
			break;
	}
	return i;
}

struct apend {
	uint8_t		a[16];
	size_t		len;
	uint32_t	ent;
	uint32_t	hash;
	int		view;
};

static void
addr_insert(struct hosts *h, const struct apend *p)
{
	uint32_t slot = addr_slot(h, p->view, p->a, p->len, p->hash);

	if (h->aslot[slot] == EMPTY)
		h->aslot[slot] = p->ent | (p->view == PROTO_AF_INET6 ? V6KEY : 0);
}

/* Pass 3: the address table, first line wins. */
static int
index_addrs(struct hosts *h)
{
	static const int views[2] = { PROTO_AF_INET, PROTO_AF_INET6 };
	struct apend	 q[PIPE];
	size_t		 keys = 0, i, v, qh = 0, qn = 0;
	uint8_t		 a[16], fam;

	for (i = 0; i < h->nent; i++)
		for (v = 0; v < 2; v++)
			keys += view_addr(&h->ent[i], views[v], a, &fam) != 0;
	keys = pow2_at_least(keys + keys / 2 + 1);
	if (keys > UINT32_MAX / 2)
		return -EFBIG;
	h->amask = (uint32_t)(keys - 1);
	if ((h->aslot = alloc_big(keys * sizeof(*h->aslot))) == NULL)
		return -ENOMEM;
	memset(h->aslot, 0xff, keys * sizeof(*h->aslot));

	/* As for names: a short queue so that the probes' misses overlap. */
	for (i = 0; i < h->nent; i++) {
		for (v = 0; v < 2; v++) {
			struct apend *p = &q[(qh + qn) % PIPE];

			if ((p->len = view_addr(&h->ent[i], views[v], p->a, &fam)) == 0)
				continue;
			p->ent = (uint32_t)i;
			p->view = views[v];
			p->hash = (uint32_t)hash_addr(p->a, p->len);
			__builtin_prefetch(&h->aslot[p->hash & h->amask]);
			if (++qn == PIPE) {
				addr_insert(h, &q[qh]);
				qh = (qh + 1) % PIPE;
				qn--;
			}
		}
	}
	for (; qn > 0; qn--, qh = (qh + 1) % PIPE)
		addr_insert(h, &q[qh]);
	return 0;
}

int
hosts_parse(char *data, size_t len, unsigned flags, struct hosts **ret_hosts)
{
	struct hosts	*h;
	char		*d;
	ssize_t		 tokens;
	int		 r;

	if (len >= UINT32_MAX) {
		free(data);
		return -EFBIG;
	}
	/* One byte more, so the last line can be NUL-terminated in place. */
	if ((d = realloc(data, len + 1)) == NULL) {
		free(data);
		return -ENOMEM;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		free(d);
		return -ENOMEM;
	}
	h->text = d;
	h->info.flags = flags;
	/* Before parsing, which rewrites the text in place. */
	h->info.digest = hash_siphash13(digest_key, d, len);
	if ((tokens = parse_lines(h, d, len)) < 0) {
		r = (int)tokens;
		goto fail;
	}
	/* Give back what the compaction freed; shrinking cannot fail for long. */
	if ((d = realloc(h->text, h->info.text + 1)) != NULL)
		h->text = d;
	if (h->nent) {
		struct entry *ent = realloc(h->ent, h->nent * sizeof(*h->ent));

		if (ent)
			h->ent = ent;
	}
	if ((r = index_names(h, h->text, (size_t)tokens)) < 0 ||
	    (r = index_addrs(h)) < 0)
		goto fail;

	h->info.memory = sizeof(*h) + h->info.text + 1 +
	    h->nent * sizeof(*h->ent) +
	    ((size_t)h->nmask + 2) * sizeof(*h->nslot) +
	    ((size_t)h->nmask + 1) * sizeof(*h->ntag) +
	    h->nslot[h->nmask + 1].post * sizeof(*h->post) +
	    ((size_t)h->amask + 1) * sizeof(*h->aslot);
	*ret_hosts = h;
	return 0;
fail:
	hosts_free(h);
	return r;
}

static int
read_all(int fd, char **ret_data, size_t *ret_len)
{
	struct stat	 st;
	size_t		 cap, len = 0;
	char		*d, *nd;
	ssize_t		 n;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	if ((d = malloc(cap)) == NULL)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap >= UINT32_MAX) {
				free(d);
				return -EFBIG;
			}
			if ((nd = realloc(d, cap * 2)) == NULL) {
				free(d);
				return -ENOMEM;
			}
			d = nd;
			cap *= 2;
		}
		n = read(fd, d + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			free(d);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_data = d;
	*ret_len = len;
	return 0;
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int
hosts_load(const char *path, unsigned flags, struct hosts **ret_hosts,
    struct stat *ret_st)
{
	struct stat	 before, after;
	char		*data = NULL;
	size_t		 len = 0;
	int		 fd, r, tries;

	for (tries = 0; ; tries++) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				return -errno;
			data = NULL;
			len = 0;
			break;
		}
		if (fstat(fd, &before) < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		r = read_all(fd, &data, &len);
		if (r == 0 && stat(path, &after) < 0)
			memset(&after, 0, sizeof(after));
		close(fd);
		if (r < 0)
			return r;
		/* Changed or replaced while read: read it again, a few times. */
		if (same_file(&before, &after) || tries == 4)
			break;
		free(data);
	}
	if (data == NULL) {
		memset(&after, 0, sizeof(after));
		if ((data = malloc(1)) == NULL)
			return -ENOMEM;
	}
	if (ret_st)
		*ret_st = after;
	return hosts_parse(data, len, flags, ret_hosts);
}

unsigned
hosts_conf_flags(const char *path)
{
	FILE		*f;
	char		*line = NULL, *p, *kw, *arg;
	size_t		 cap = 0;
	unsigned	 flags = 0;

	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		if ((p = strpbrk(line, "#\n")) != NULL)
			*p = '\0';
		kw = strtok_r(line, " \t,", &p);
		arg = kw ? strtok_r(NULL, " \t,", &p) : NULL;
		if (kw == NULL || arg == NULL || strcasecmp(kw, "multi") != 0)
			continue;
		if (strcasecmp(arg, "on") == 0)
			flags |= HOSTS_MULTI;
		else if (strcasecmp(arg, "off") == 0)
			flags &= ~HOSTS_MULTI;
	}
	free(line);
	fclose(f);
	return flags;
}

static const char *
next_str(const char *s)
{
	return s + strlen(s) + 1;
}

int
hosts_lookup_name(const struct hosts *h, const char *name, int family,
    struct proto_wr *w)
{
	struct proto_answer_wr	 aw;
	const uint32_t		*post;
	const char		*canon, *s;
	size_t			 n, i, first, last, len;
	uint32_t		 slot, k;
	uint16_t		 tag;
	uint8_t			 a[16], fam;

	if (*name == '\0')
		return 0;
	slot = name_slot(h, h->text, name, &tag);
	if (h->nslot[slot].key == EMPTY)
		return 0;
	post = h->post + h->nslot[slot].post;
	n = h->nslot[slot + 1].post - h->nslot[slot].post;

	for (first = 0; first < n; first++)
		if (view_addr(&h->ent[post[first]], family, a, &fam))
			break;
	if (first == n)
		return 0;
	last = h->info.flags & HOSTS_MULTI ? n : first + 1;
	canon = h->text + h->ent[post[first]].text;

	proto_answer_begin(&aw, w, 0, PROTO_SRC_HOSTS, canon, strlen(canon));
	for (i = first; i < last; i++)
		if ((len = view_addr(&h->ent[post[i]], family, a, &fam)) != 0)
			proto_answer_addr(&aw, fam, a);
	for (i = first; i < last; i++) {
		const struct entry *e = &h->ent[post[i]];

		if (!view_addr(e, family, a, &fam))
			continue;
		s = h->text + e->text;
		for (k = 0, s = next_str(s); k < ent_nalias(e); k++, s = next_str(s))
			proto_answer_alias(&aw, s, strlen(s));
		s = h->text + e->text;
		if (i != first && strcmp(s, canon) != 0)
			proto_answer_alias(&aw, s, strlen(s));
	}
	return proto_answer_end(&aw) < 0 ? -EMSGSIZE : 1;
}

int
hosts_lookup_addr(const struct hosts *h, int family, const uint8_t *addr,
    struct proto_wr *w)
{
	struct proto_answer_wr	 aw;
	const struct entry	*e;
	const char		*s;
	size_t			 len = family == PROTO_AF_INET ? 4 : 16;
	uint32_t		 slot, k;

	if (family != PROTO_AF_INET && family != PROTO_AF_INET6)
		return 0;
	slot = addr_slot(h, family, addr, len, (uint32_t)hash_addr(addr, len));
	if (h->aslot[slot] == EMPTY)
		return 0;
	e = &h->ent[h->aslot[slot] & ~V6KEY];
	s = h->text + e->text;
	proto_answer_begin(&aw, w, 0, PROTO_SRC_HOSTS, s, strlen(s));
	proto_answer_addr(&aw, (uint8_t)family, addr);
	for (k = 0, s = next_str(s); k < ent_nalias(e); k++, s = next_str(s))
		proto_answer_alias(&aw, s, strlen(s));
	return proto_answer_end(&aw) < 0 ? -EMSGSIZE : 1;
}

void
hosts_get_info(const struct hosts *h, struct hosts_info *ret_info)
{
	*ret_info = h->info;
}
