/* SPDX-License-Identifier: MIT */
/* proto/nscd.h - glibc's nscd protocol and mapped hosts database, as its client reads them. */
#ifndef NAMECACHE_NSCD_H
#define NAMECACHE_NSCD_H

/*
 * Written from glibc's nscd/nscd-client.h, nscd_helper.c, nscd_gethst_r.c,
 * nscd_getai.c and nss/nss_hash.c (2.36 to 2.43, unchanged in that range).
 * These are the bytes glibc's built-in client sends, reads and maps; the
 * static asserts pin every size and offset it depends on, for the
 * 64-bit ABIs namecache builds for.  Integers are in host order.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define NSCD_VERSION		2	/* of requests, replies and the mapping */
#define NSCD_SOCKET_PATH	"/var/run/nscd/socket"	/* fixed in glibc */
#define NSCD_KEY_MAX		1024	/* glibc's MAXKEYLEN */
#define NSCD_MAPPING_TIMEOUT	300	/* s a stale mapping is still read */
#define NSCD_ENDREF		UINT32_MAX
#define NSCD_ALIGN		16	/* of the bucket array's end */
#define NSCD_NOT_USE_RETRY	100	/* lookups glibc skips nscd for after a refusal */

enum nscd_req {
	NSCD_GETPWBYNAME	= 0,
	NSCD_GETPWBYUID		= 1,
	NSCD_GETGRBYNAME	= 2,
	NSCD_GETGRBYGID		= 3,
	NSCD_GETHOSTBYNAME	= 4,
	NSCD_GETHOSTBYNAMEv6	= 5,
	NSCD_GETHOSTBYADDR	= 6,
	NSCD_GETHOSTBYADDRv6	= 7,
	NSCD_SHUTDOWN		= 8,
	NSCD_GETSTAT		= 9,
	NSCD_INVALIDATE		= 10,
	NSCD_GETFDPW		= 11,
	NSCD_GETFDGR		= 12,
	NSCD_GETFDHST		= 13,
	NSCD_GETAI		= 14,
	NSCD_INITGROUPS		= 15,
	NSCD_GETSERVBYNAME	= 16,
	NSCD_GETSERVBYPORT	= 17,
	NSCD_GETFDSERV		= 18,
	NSCD_GETNETGRENT	= 19,
	NSCD_INNETGR		= 20,
	NSCD_GETFDNETGR		= 21,
	NSCD_LASTREQ		= 22,
};

/* A request: this header, then key_len bytes of key.  One per connection. */
#define NSCD_REQ_HDR_LEN	12
struct nscd_req_hdr {
	int32_t		version;
	int32_t		type;		/* enum nscd_req */
	int32_t		key_len;	/* names: with their NUL */
};

/*
 * Decodes the request header at the start of buf.  Returns 0, -EAGAIN
 * when fewer than NSCD_REQ_HDR_LEN bytes are there, -EPROTONOSUPPORT for
 * another version, -EBADMSG for a negative type, or -EMSGSIZE for a key
 * length outside 0 .. NSCD_KEY_MAX.  *ret_hdr is written only on success.
 */
int	 nscd_req_decode(const void *buf, size_t len, struct nscd_req_hdr *ret_hdr);

/* The reply to the hostent requests (4 to 7), then: h_name (with NUL),
 * h_aliases_cnt u32 alias lengths (with NUL), the addresses
 * (h_addr_list_cnt x h_length), the aliases. */
struct nscd_hst_reply {
	int32_t		version;
	int32_t		found;		/* 1, 0 (error is h_errno), -1: refused */
	int32_t		h_name_len;
	int32_t		h_aliases_cnt;
	int32_t		h_addrtype;
	int32_t		h_length;
	int32_t		h_addr_list_cnt;
	int32_t		error;
};

/* The reply to GETAI, then: the addresses (addrslen bytes, 4 or 16 each),
 * naddrs family bytes (AF_INET, AF_INET6), the canonical name (canonlen,
 * with NUL; 0 for none). */
struct nscd_ai_reply {
	int32_t		version;
	int32_t		found;
	int32_t		naddrs;
	int32_t		addrslen;
	int32_t		canonlen;
	int32_t		error;
};

/* The size of each request type's reply header: a refusal (found = -1)
 * is one of these, as glibc reads it in one read; 0: the request has none. */
size_t	 nscd_reply_hdr_size(int32_t type);

/* The mapped database: this header, `module' bucket heads, padding to
 * NSCD_ALIGN, then data_size bytes of records. */
struct nscd_db_head {
	int32_t		version;
	int32_t		header_size;	/* sizeof(struct nscd_db_head) */
	int32_t		gc_cycle;	/* odd: being changed, do not read */
	int32_t		certainly_running;
	uint64_t	timestamp;	/* time(); a mapping 300 s older is dropped */
	uint32_t	extra_data[4];	/* [0]: the netlink change counter */
	int32_t		module;		/* buckets */
	int32_t		data_size;
	int32_t		first_free;
	int32_t		nentries;
	int32_t		maxnentries;
	int32_t		maxnsearched;
	uint64_t	poshit;
	uint64_t	neghit;
	uint64_t	posmiss;
	uint64_t	negmiss;
	uint64_t	rdlockdelayed;
	uint64_t	wrlockdelayed;
	uint64_t	addfailed;
	uint32_t	array[];	/* offsets into the data area, or NSCD_ENDREF */
};

/* One key in a bucket's chain.  8-aligned (glibc checks it). */
struct nscd_hashentry {
	uint8_t		type;		/* enum nscd_req */
	uint8_t		first;
	uint8_t		pad_[2];
	int32_t		len;		/* of the key */
	uint32_t	key;		/* offset of the key */
	int32_t		owner;
	uint32_t	next;		/* the next entry in the bucket, or NSCD_ENDREF */
	uint32_t	packet;		/* offset of the record's struct nscd_datahead */
	uint64_t	unused_;	/* nscd's own pointer; never read by clients */
};

/* One record: this, then the reply (header and data) glibc copies out.
 * 8-aligned. */
struct nscd_datahead {
	int32_t		allocsize;	/* bytes from here the record spans */
	int32_t		recsize;	/* bytes of the reply, from data */
	uint64_t	timeout;	/* time() it expires; clients never read it */
	uint8_t		notfound;
	uint8_t		nreloads;
	uint8_t		usable;		/* 0: clients skip the record */
	uint8_t		unused;
	uint32_t	ttl;
	uint8_t		data[];		/* struct nscd_hst_reply or nscd_ai_reply, ... */
};

_Static_assert(sizeof(struct nscd_req_hdr) == NSCD_REQ_HDR_LEN, "request header");
_Static_assert(sizeof(struct nscd_hst_reply) == 32, "hostent reply");
_Static_assert(sizeof(struct nscd_ai_reply) == 24, "ai reply");
_Static_assert(sizeof(struct nscd_db_head) == 120, "glibc checks header_size == 120");
_Static_assert(offsetof(struct nscd_db_head, timestamp) == 16, "timestamp");
_Static_assert(offsetof(struct nscd_db_head, module) == 40, "module");
_Static_assert(sizeof(struct nscd_hashentry) == 32, "hashentry");
_Static_assert(offsetof(struct nscd_hashentry, len) == 4 &&
    offsetof(struct nscd_hashentry, key) == 8 &&
    offsetof(struct nscd_hashentry, next) == 16 &&
    offsetof(struct nscd_hashentry, packet) == 20, "hashentry fields");
_Static_assert(offsetof(struct nscd_datahead, data) == 24 &&
    offsetof(struct nscd_datahead, usable) == 18, "datahead");

/* glibc's __nss_hash (sdbm: h = c + 65599 h), which picks the bucket. */
uint32_t nscd_hash(const void *key, size_t len);

/* A refusal of a request of this type, written to out (36 bytes at most):
 * its length, 0 for a type that has no reply (close instead). */
size_t	 nscd_refusal(int32_t type, void *out);
/*
 * The replies glibc reads, built from a namecache answer into out: the
 * length, -E2BIG when it does not fit, or -ENOTSUP when the format cannot
 * say the answer (a scoped IPv6 address; a v4-mapped address's name):
 * the caller refuses, and glibc asks NSS itself.  An answer with no
 * address of the family asked is a negative reply (NO_DATA).
 */
int	 nscd_build_ai(const struct proto_answer *, void *out, size_t cap);
int	 nscd_build_hst(int32_t type, const struct proto_answer *, void *out,
	    size_t cap);
/* A negative reply (found = 0) for GETAI or a hostent request. */
int	 nscd_build_negative(int32_t type, int herrno, void *out, size_t cap);

/*
 * glibc's reply to a request of nscd type `type' from a namecache answer
 * (status, and for PROTO_OK the answer, else NULL), into out: its length,
 * or 0 when glibc must be refused (a temporary failure, an answer the
 * format cannot carry).
 */
int	 nscd_reply_from(int32_t type, uint16_t status, const struct proto_answer *a,
	    void *out, size_t cap);

/* Offset of the data area from the start of the mapping. */
size_t	 nscd_data_offset(uint32_t module);

#endif
