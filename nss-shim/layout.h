/* SPDX-License-Identifier: MIT */
/* nss-shim/layout.h - a decoded answer laid out in glibc's buffers: getaddrinfo's tuples, a hostent. */
#ifndef NAMECACHE_LAYOUT_H
#define NAMECACHE_LAYOUT_H

#include <netdb.h>
#include <nss.h>
#include <stddef.h>

#include "proto.h"

/*
 * Each layout writes into the caller's buffer no more than the answer's
 * decoded counts (naddr, naddr4, naddr6, nalias, strings_size) allow,
 * whatever a walk of its body finds: a hit's body lies in shared memory,
 * where a hostile or broken writer could change it after it was decoded,
 * and the walks (proto_answer_next_addr) then stop early.  Every pointer
 * written points into the buffer, and every string ends inside it.
 *
 * Both return 0, or -ENOENT when the answer has no address of the family
 * asked (NO_DATA), -ERANGE when buf (len bytes) is too short for it (glibc
 * then grows it), or -EBADMSG when the body has fewer addresses than were
 * counted: it changed since it was decoded.  Nothing is borrowed from the
 * answer: the strings and addresses are copied.  Pure: errno untouched.
 */

/*
 * getaddrinfo's list (gethostbyname4_r): the tuples, then the canonical
 * name, which the first tuple carries.  *pat is as glibc hands it in:
 * storage for the first tuple, which is copied there, or NULL, which is
 * pointed at the list.
 */
int	layout_gaih(const struct proto_answer *a, struct gaih_addrtuple **pat,
	    char *buf, size_t len);

/*
 * A hostent of family af (AF_INET or AF_INET6): the address pointers, the
 * alias pointers, the addresses, then the strings.  A scoped IPv6 address
 * is its 16 bytes: a hostent has no scope ids.
 */
int	layout_hostent(const struct proto_answer *a, int af, struct hostent *host,
	    char *buf, size_t len);

#endif
