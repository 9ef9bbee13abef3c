/* SPDX-License-Identifier: MIT */
/* proto/name.c - the one case fold of names: ASCII A-Z to a-z, nothing else. */
#include "name.h"

void
name_fold(void *dst, const void *src, size_t len)
{
	uint8_t		*d = dst;
	const uint8_t	*s = src;
	size_t		 i;

	for (i = 0; i < len; i++)
		d[i] = name_fold_char(s[i]);
}

bool
name_eq_fold(const void *a, const void *b, size_t len)
{
	const uint8_t	*x = a, *y = b;
	size_t		 i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i] && name_fold_char(x[i]) != name_fold_char(y[i]))
			return false;
	return true;
}

bool
name_streq_fold(const char *a, const char *b)
{
	uint8_t x, y;

	do {
		x = name_fold_char((uint8_t)*a++);
		y = name_fold_char((uint8_t)*b++);
	} while (x != '\0' && x == y);
	return x == y;
}

int
name_cmp_fold(const void *a, size_t alen, const void *b, size_t blen)
{
	const uint8_t	*x = a, *y = b;
	size_t		 i;
	uint8_t		 cx, cy;

	for (i = 0; i < alen && i < blen; i++) {
		cx = name_fold_char(x[i]);
		cy = name_fold_char(y[i]);
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	if (alen == blen)
		return 0;
	return alen < blen ? -1 : 1;
}
