/* SPDX-License-Identifier: MIT */
/* daemon/sources/hosts.h - the hosts file, parsed by glibc's rules and indexed. */
#ifndef NAMECACHE_HOSTS_H
#define NAMECACHE_HOSTS_H

#include <stddef.h>
#include <stdint.h>

struct proto_wr;
struct stat;
struct hosts;

/* Flags for parsing: what /etc/host.conf says. */
#define HOSTS_MULTI	0x1	/* "multi on": every matching line, not the first */

struct hosts_info {
	size_t		lines;		/* lines in the file */
	size_t		entries;	/* lines with a valid address */
	size_t		invalid;	/* lines skipped for a bad address */
	size_t		names;		/* distinct names, case folded */
	size_t		memory;		/* bytes held by the index, text included */
	size_t		text;		/* of which names */
	unsigned	flags;
	uint64_t	digest;		/* of the file's bytes: equal files, equal digests */
};

/*
 * Parses a hosts file held in data[0..len) into a new index.  Takes
 * ownership of data (a malloc'd buffer, modified in place), also on
 * failure.  Returns 0, -ENOMEM, or -EFBIG for a file over 4 GiB.
 * On success the caller frees *ret_hosts with hosts_free().
 */
int	 hosts_parse(char *data, size_t len, unsigned flags, struct hosts **ret_hosts);

/*
 * Reads and parses path.  A missing file gives an empty index, as glibc
 * answers nothing from it.  A file that changes while it is read is read
 * again.  Returns 0 or -errno; caller frees *ret_hosts with hosts_free().
 * When ret_st is set, it gets the stat of what was read (zeroes if none).
 */
int	 hosts_load(const char *path, unsigned flags, struct hosts **ret_hosts,
	    struct stat *ret_st);

/* An empty index.  Caller frees with hosts_free(); NULL means no memory. */
struct hosts *hosts_new_empty(unsigned flags);

void	 hosts_free(struct hosts *);

/*
 * The flags /etc/host.conf (or another path) asks for: HOSTS_MULTI when
 * "multi on" is its last word on the matter.  A missing file gives 0, as
 * in glibc.
 */
unsigned hosts_conf_flags(const char *path);

/*
 * Looks name up for a family (PROTO_AF_UNSPEC, _INET or _INET6) and writes
 * the answer body into w, as glibc's files module would answer
 * gethostbyname4_r (UNSPEC) or gethostbyname3_r (INET, INET6).  Returns 1
 * when found, 0 when the file has no such name for that family, or
 * -EMSGSIZE when the answer does not fit in w.
 */
int	 hosts_lookup_name(const struct hosts *, const char *name, int family,
	    struct proto_wr *w);

/*
 * Looks addr up (4 bytes for PROTO_AF_INET, 16 for _INET6) as
 * gethostbyaddr2_r does: the first line with that address.  Same returns.
 */
int	 hosts_lookup_addr(const struct hosts *, int family, const uint8_t *addr,
	    struct proto_wr *w);

void	 hosts_get_info(const struct hosts *, struct hosts_info *ret_info);

#endif
