/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-hosts.c - fuzz target: the hosts file parser and its index. */

/*
 * The input is a hosts file.  It is parsed (from a malloc'd copy, which
 * hosts_parse takes), then words taken from the input are looked up as
 * names in all three families, and as addresses when they parse as one,
 * as do the first 4 and 16 bytes of the input.  Every answer must decode.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "hosts.h"
#include "proto.h"

#define WORDS_MAX	12
#define WORD_MAX	300

static uint8_t	answer[PROTO_FRAME_MAX];

static void
check_answer(size_t len)
{
	struct proto_answer	 a;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur, n, i;
	uint8_t			 fam;

	FUZZ_CHECK(proto_answer_decode(answer, len, &a) == 0);
	FUZZ_CHECK(a.source == PROTO_SRC_HOSTS && a.ttl == 0);
	FUZZ_CHECK(a.naddr >= 1 && a.naddr == a.naddr4 + a.naddr6);
	for (cur = 0, i = 0; proto_answer_next_addr(&a, &cur, &fam, &addr); i++)
		;
	FUZZ_CHECK(i == a.naddr);
	for (cur = 0, i = 0; proto_answer_next_alias(&a, &cur, &s, &n); i++)
		FUZZ_CHECK(n > 0);
	FUZZ_CHECK(i == a.nalias);
}

static void
lookup_name(const struct hosts *h, const char *name)
{
	static const int	 families[] = {
		PROTO_AF_UNSPEC, PROTO_AF_INET, PROTO_AF_INET6,
	};
	struct proto_wr		 w;
	size_t			 i;
	int			 r, r2;

	for (i = 0; i < 3; i++) {
		proto_wr_init(&w, answer, sizeof(answer));
		r = hosts_lookup_name(h, name, families[i], &w);
		FUZZ_CHECK(r == 0 || r == 1 || r == -EMSGSIZE);
		if (r == 1)
			check_answer(w.off);
		/* A small writer: the same result, or too big. */
		proto_wr_init(&w, answer, 64);
		r2 = hosts_lookup_name(h, name, families[i], &w);
		FUZZ_CHECK(r2 == r || (r == 1 && r2 == -EMSGSIZE));
	}
}

static void
lookup_addr(const struct hosts *h, int family, const uint8_t *addr)
{
	struct proto_wr	w;
	int		r;

	proto_wr_init(&w, answer, sizeof(answer));
	r = hosts_lookup_addr(h, family, addr, &w);
	FUZZ_CHECK(r == 0 || r == 1 || r == -EMSGSIZE);
	if (r == 1)
		check_answer(w.off);
}

/* A word of the input: up to a blank, '#' or NUL, at most WORD_MAX bytes. */
static size_t
next_word(const uint8_t *data, size_t size, size_t *off, char *word)
{
	size_t n = 0;

	while (*off < size && strchr(" \t\n\r\v\f#", data[*off]) != NULL &&
	    data[*off] != '\0')
		(*off)++;
	while (*off < size && data[*off] != '\0' &&
	    strchr(" \t\n\r\v\f#", data[*off]) == NULL) {
		if (n < WORD_MAX)
			word[n++] = (char)data[*off];
		(*off)++;
	}
	if (*off < size && n == 0)
		(*off)++;	/* a NUL byte */
	word[n] = '\0';
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hosts		*h = NULL;
	struct hosts_info	 info;
	char			*copy, word[WORD_MAX + 1];
	uint8_t			 a[16];
	size_t			 off = 0, i, k;
	unsigned		 words = 0;

	if ((copy = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	/* hosts_parse takes copy, also on failure. */
	if (hosts_parse(copy, size, size % 2 ? HOSTS_MULTI : 0, &h) < 0)
		return 0;
	hosts_get_info(h, &info);
	FUZZ_CHECK(info.entries + info.invalid <= info.lines);
	FUZZ_CHECK(info.lines <= size + 1);

	while (words < WORDS_MAX && off < size) {
		if (next_word(data, size, &off, word) == 0)
			continue;
		words++;
		lookup_name(h, word);
		/* Names match whatever their case. */
		for (k = 0; word[k]; k++)
			if (word[k] >= 'a' && word[k] <= 'z')
				word[k] = (char)(word[k] - 'a' + 'A');
		lookup_name(h, word);
		if (inet_pton(AF_INET, word, a) == 1)
			lookup_addr(h, PROTO_AF_INET, a);
		else if (inet_pton(AF_INET6, word, a) == 1) {
			lookup_addr(h, PROTO_AF_INET6, a);
			lookup_addr(h, PROTO_AF_INET, a + 12);
		}
	}
	lookup_name(h, "");
	lookup_name(h, "localhost");

	/* Raw bytes of the input as addresses. */
	memset(a, 0, sizeof(a));
	for (i = 0; i < size && i < 16; i++)
		a[i] = data[i];
	lookup_addr(h, PROTO_AF_INET, a);
	lookup_addr(h, PROTO_AF_INET6, a);
	lookup_addr(h, PROTO_AF_UNSPEC, a);

	hosts_free(h);
	return 0;
}
