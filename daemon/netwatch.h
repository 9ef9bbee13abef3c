/* SPDX-License-Identifier: MIT */
/* daemon/netwatch.h - rtnetlink's address and route changes, as a callback on the loop. */
#ifndef NAMECACHE_NETWATCH_H
#define NAMECACHE_NETWATCH_H

#include <event2/event.h>

struct netwatch;

/*
 * Calls changed(arg) once for every batch of rtnetlink address, link or
 * route messages.  Clients key their cached source addresses (RFC 6724
 * sorting) on the counters the callback bumps.  NULL, with errno, when
 * the host has no netlink socket for us: then nothing is ever called, and
 * readers redo their probes on every sort.
 */
struct netwatch	*netwatch_new(struct event_base *, void (*changed)(void *), void *arg);
void		 netwatch_free(struct netwatch *);

#endif
