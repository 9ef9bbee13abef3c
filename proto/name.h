/* SPDX-License-Identifier: MIT */
/* proto/name.h - the one case fold of names: ASCII A-Z to a-z, nothing else. */
#ifndef NAMECACHE_NAME_H
#define NAMECACHE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Names match without regard to ASCII case (RFC 4343, and glibc's files
 * module), and only ASCII: bytes past 0x7f are compared as they are,
 * whatever the locale (strcasecmp follows the locale: not for names).
 * Every place that folds a name uses these, so the cache, the shared
 * segment, the hosts index and the nscd map agree on which spellings are
 * one name.  Pure: no I/O, no allocation, errno untouched.
 */

static inline uint8_t
name_fold_char(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* Inline: the hosts index, the cache and the stores compare on every lookup. */

/* Copies len bytes of src to dst, folded; dst may be src. */
static inline void
name_fold(void *dst, const void *src, size_t len)
{
	uint8_t		*d = dst;
	const uint8_t	*s = src;

	for (size_t i = 0; i < len; i++)
		d[i] = name_fold_char(s[i]);
}

/* Whether len bytes of a and b are equal once folded. */
static inline bool
name_eq_fold(const void *a, const void *b, size_t len)
{
	const uint8_t	*x = a, *y = b;

	for (size_t i = 0; i < len; i++)
		if (x[i] != y[i] && name_fold_char(x[i]) != name_fold_char(y[i]))
			return false;
	return true;
}

/* Whether NUL-terminated a and b are equal once folded. */
static inline bool
name_streq_fold(const char *a, const char *b)
{
	uint8_t x, y;

	do {
		x = name_fold_char((uint8_t)*a++);
		y = name_fold_char((uint8_t)*b++);
	} while (x != '\0' && x == y);
	return x == y;
}

/*
 * An order of folded names: -1, 0 or 1 as a, alen bytes, sorts before,
 * with, or after b, blen bytes; a prefix sorts first.
 */
int	name_cmp_fold(const void *a, size_t alen, const void *b, size_t blen);

#endif
