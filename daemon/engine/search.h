/* SPDX-License-Identifier: MIT */
/* daemon/engine/search.h - the search list: the names a search tries, in glibc's res_nsearch order. */
#ifndef NAMECACHE_SEARCH_H
#define NAMECACHE_SEARCH_H

#include <stdbool.h>

#include "proto.h"
#include "resolver.h"

/* Names one search tries, at most: each domain, and the name as asked. */
#define SEARCH_NAMES_MAX	(RESOLVER_SEARCH_MAX + 2)

/*
 * The names a search for name tries, in order, into out: a name ending in
 * a dot, alone (without its dot); with at least ndots dots, the name
 * first; then the name in each search domain (domains: NULL-terminated),
 * those too long left out; then the name as asked, if not tried yet.
 * *ret_asis_first: the name as asked goes first.  Returns how many.
 */
int	search_names(const char *name, const char *const *domains, int ndots,
	    char out[][PROTO_NAME_MAX + 2], bool *ret_asis_first);

/* Whether a search for name tries that one name only. */
bool	search_single(const char *name, const char *const *domains);

#endif
