/* SPDX-License-Identifier: MIT */
/* client-lib/gaiconf.h - getaddrinfo's policy: glibc's tables, or /etc/gai.conf's. */
#ifndef NAMECACHE_GAICONF_H
#define NAMECACHE_GAICONF_H

#include <stdbool.h>

#include "namecache.h"

/*
 * One set of tables per process, as glibc keeps.  Not locked here: the
 * caller serializes every call (sort.c's lock), and restores errno.
 */

/*
 * Reads /etc/gai.conf on the first call, and again when it said "reload
 * yes" and its mtime changed.  Returns true when the tables were reloaded:
 * what was looked up in the old ones is stale.  Out of memory or no file:
 * the built-in tables.
 */
bool	gaiconf_refresh(void);

/* A destination's or source's label, precedence and scope (IPv4 as v4-mapped). */
int	gaiconf_label(const struct namecache_address *a);
int	gaiconf_precedence(const struct namecache_address *a);
int	gaiconf_scope(const struct namecache_address *a);

#endif
