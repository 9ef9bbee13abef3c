/* SPDX-License-Identifier: MIT */
/* daemon/selfnss.h - glibc inside the daemon: never its nscd client, never the namecache module. */
#ifndef NAMECACHE_SELFNSS_H
#define NAMECACHE_SELFNSS_H

/*
 * Sets the lines of hosts, passwd, group, services and netgroup that
 * glibc walks inside this process (a module calling getaddrinfo or
 * getgrnam, admin_group's getgrnam) to path's, namecache dropped, with
 * __nss_configure_lookup: glibc then never asks its nscd client for
 * them (initgroups goes by group's), nor the namecache module for hosts,
 * so no lookup of the daemon's ever waits on the daemon.  A line glibc
 * would reject keeps the one set before (the first time: glibc's
 * default).  Returns how many lines could not be set.
 */
int	selfnss_pin(const char *path);

#endif
