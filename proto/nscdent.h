/* SPDX-License-Identifier: MIT */
/* proto/nscdent.h - glibc's nscd replies for passwd, group, initgroups, services and netgroup. */
#ifndef NAMECACHE_NSCDENT_H
#define NAMECACHE_NSCDENT_H

/*
 * Written from glibc's nscd/nscd-client.h and the client readers
 * (nscd_getpw_r.c, nscd_getgr_r.c, nscd_initgroups.c, nscd_getserv_r.c,
 * nscd_netgroup.c), 2.36.  Every reply is a header of int32s (host order),
 * then its strings, each with its NUL, lengths counting the NUL:
 *
 *   passwd    header; name, passwd, gecos, dir, shell
 *   group     header; gr_mem_cnt u32 member lengths; name, passwd; members
 *   initgr    header; ngrps u32 gids
 *   services  header; name, proto; s_aliases_cnt u32 lengths; aliases
 *   netgroup  header; nresults triples host, user, domain ("" for none)
 *   innetgr   header only
 *
 * The keys glibc sends: a name and its NUL; a uid or gid in decimal and
 * its NUL; "name/proto" or "port/proto" (proto "" for none; the port as
 * the int getservbyport was given, in network order, in decimal); for
 * INNETGR the netgroup, then host, user, domain each "\1" VALUE or a
 * lone "\0" for none.  Pure: no I/O, no allocation.
 */
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nscd_pw_reply {
	int32_t		version;
	int32_t		found;
	int32_t		name_len;
	int32_t		passwd_len;
	uint32_t	uid;
	uint32_t	gid;
	int32_t		gecos_len;
	int32_t		dir_len;
	int32_t		shell_len;
};

struct nscd_gr_reply {
	int32_t		version;
	int32_t		found;
	int32_t		name_len;
	int32_t		passwd_len;
	uint32_t	gid;
	int32_t		mem_cnt;
};

struct nscd_initgr_reply {
	int32_t		version;
	int32_t		found;
	int32_t		ngrps;
};

struct nscd_serv_reply {
	int32_t		version;
	int32_t		found;
	int32_t		name_len;
	int32_t		proto_len;
	int32_t		aliases_cnt;
	int32_t		port;		/* network order, as in struct servent */
};

struct nscd_netgr_reply {
	int32_t		version;
	int32_t		found;
	int32_t		nresults;
	int32_t		result_len;
};

struct nscd_innetgr_reply {
	int32_t		version;
	int32_t		found;
	int32_t		result;
};

_Static_assert(sizeof(struct nscd_pw_reply) == 36, "pw_response_header");
_Static_assert(sizeof(struct nscd_gr_reply) == 24, "gr_response_header");
_Static_assert(sizeof(struct nscd_initgr_reply) == 12, "initgr_response_header");
_Static_assert(sizeof(struct nscd_serv_reply) == 24, "serv_response_header");
_Static_assert(sizeof(struct nscd_netgr_reply) == 16, "netgroup_response_header");
_Static_assert(sizeof(struct nscd_innetgr_reply) == 12, "innetgroup_response_header");

/* Members and aliases in one reply, at most (a bound on hostile input). */
#define NSCDDB_LIST_MAX		(1u << 20)
#define NSCD_SERV_CRIT_MAX	1024	/* glibc's MAXKEYLEN */

/*
 * The replies, into out (cap bytes): the length, or -E2BIG when it does
 * not fit, -EINVAL for what the format cannot say (a NULL string field,
 * too many members).
 */
int	 nscd_build_pw(const struct passwd *, void *out, size_t cap);
int	 nscd_build_gr(const struct group *, void *out, size_t cap);
int	 nscd_build_serv(const struct servent *, void *out, size_t cap);
int	 nscd_build_initgr(const uint32_t *gids, size_t n, void *out, size_t cap);
int	 nscd_build_innetgr(bool in, void *out, size_t cap);
/* found = 0: the key is not in the database (every type above). */
int	 nscd_build_notfound(int32_t type, void *out, size_t cap);

/* A group reply, read back (for merging and show-cache). */
struct nscd_gr_view {
	const struct nscd_gr_reply *hdr;
	const uint8_t	*lens;		/* mem_cnt u32, unaligned */
	const char	*name;
	const char	*passwd;
	const char	*members;	/* mem_cnt strings, one after another */
	size_t		 members_len;
};
/* 0 with *ret, or -EBADMSG: a found = 1 reply whose every length holds. */
int	 nscd_gr_view(const void *reply, size_t len, struct nscd_gr_view *ret);
/*
 * glibc's [SUCCESS=merge] of two groups (grp/grp-merge.c): a's name,
 * passwd and gid, a's members then all of b's (no duplicate is dropped);
 * a alone when b is another group (gid or name).  Into out: the length,
 * or -E2BIG.
 */
int	 nscd_gr_merge(const struct nscd_gr_view *a, const struct nscd_gr_view *b,
	    void *out, size_t cap);

/*
 * Keys.  A name key: 0, or -EINVAL unless it is 0 .. NSCD_KEY_MAX - 1
 * bytes with no NUL, then its NUL (glibc asks for "" too).  A number
 * key: decimal, no sign, up to UINT32_MAX, then its NUL (glibc writes uids with %u: 3000000000 is
 * a uid, "-1" is not).  A services key: the part before its last '/'
 * (name or port, not empty) and after it (proto, "" for any).
 */
int	 nscd_key_name(const void *key, size_t len);
int	 nscd_key_number(const void *key, size_t len, uint32_t *ret);
struct nscd_serv_key {
	char		 crit[NSCD_SERV_CRIT_MAX];
	char		 proto[NSCD_SERV_CRIT_MAX];
	int32_t		 port;		/* GETSERVBYPORT: network order */
};
int	 nscd_key_serv(int32_t type, const void *key, size_t len,
	    struct nscd_serv_key *ret);
/* INNETGR's key: pointers into key; NULL for a field not given. */
struct nscd_innetgr_key {
	const char	*netgroup;
	const char	*host;
	const char	*user;
	const char	*domain;
};
int	 nscd_key_innetgr(const void *key, size_t len, struct nscd_innetgr_key *ret);

#endif
