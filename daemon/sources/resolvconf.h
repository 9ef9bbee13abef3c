/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolvconf.h - what resolv.conf says that c-ares 1.18 does not read: glibc's timeout and attempts. */
#ifndef NAMECACHE_RESOLVCONF_H
#define NAMECACHE_RESOLVCONF_H

#include <stdio.h>

/*
 * glibc's "options timeout:N attempts:N" from f, with glibc's defaults
 * (5 s, 2) and caps (30, 5); a later option wins.  f NULL: the defaults.
 * Always fills both.
 */
void	resolvconf_timeouts(FILE *f, int *ret_timeout_ms, int *ret_attempts);

#endif
