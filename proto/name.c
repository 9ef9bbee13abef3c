/* SPDX-License-Identifier: MIT */
/* proto/name.c - the one case fold of names: ASCII A-Z to a-z, nothing else. */
#include "name.h"

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
