/* SPDX-License-Identifier: MIT */
/* client-lib/array.h - room for one more in a malloc'd array that doubles. */
#ifndef NAMECACHE_ARRAY_H
#define NAMECACHE_ARRAY_H

#include <stddef.h>

/*
 * Makes room for element n of *v (elements of size bytes, *cap of them
 * allocated), doubling from 8.  Returns 0, or -ENOMEM with *v and *cap
 * as they were (the caller still frees *v).
 */
int	array_grow(void **v, size_t *cap, size_t n, size_t size);

#endif
