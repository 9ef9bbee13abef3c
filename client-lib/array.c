/* SPDX-License-Identifier: MIT */
/* client-lib/array.c - room for one more in a malloc'd array that doubles. */

/* Shared by gaiconf.c's lists and sort.c's address dump, so all grow alike. */
#include <errno.h>
#include <stdlib.h>

#include "array.h"

int
array_grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (n < *cap)
		return 0;
	if ((nv = realloc(*v, (*cap ? *cap * 2 : 8) * size)) == NULL)
		return -ENOMEM;
	*v = nv;
	*cap = *cap ? *cap * 2 : 8;
	return 0;
}
