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

/* Copies len bytes of src to dst, folded; dst may be src. */
void	name_fold(void *dst, const void *src, size_t len);

/* Whether len bytes of a and b are equal once folded. */
bool	name_eq_fold(const void *a, const void *b, size_t len);

/* Whether NUL-terminated a and b are equal once folded. */
bool	name_streq_fold(const char *a, const char *b);

/*
 * An order of folded names: -1, 0 or 1 as a, alen bytes, sorts before,
 * with, or after b, blen bytes; a prefix sorts first.
 */
int	name_cmp_fold(const void *a, size_t alen, const void *b, size_t blen);

#endif
