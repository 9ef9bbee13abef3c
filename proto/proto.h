/* SPDX-License-Identifier: MIT */
/* proto/proto.h - namecache wire protocol, version 1: frames, encoder, decoder. */
#ifndef NAMECACHE_PROTO_H
#define NAMECACHE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "rd.h"

/*
 * Every message is a frame: a 12-byte header, then a body whose layout the
 * type gives.  Integers are big-endian.  docs/protocol.md is the reference;
 * this header and three files are the only implementation, split by role:
 * proto.c (frames, lookups and their answers, errors), control.c
 * (statistics and status, invalidate, flush, show-cache) and records.c
 * (query -t, the DNS listener's records, type names).
 *
 *	u32 len		whole frame, header included: 12 .. PROTO_FRAME_MAX
 *	u8  version	PROTO_VERSION
 *	u8  type	enum proto_type; replies set PROTO_REPLY
 *	u16 status	0 in requests; enum proto_status in replies
 *	u32 id		chosen by the client, echoed in the reply
 */
#define PROTO_VERSION		1
#define PROTO_HDR_LEN		12
#define PROTO_FRAME_MAX		65536
#define PROTO_NAME_MAX		253	/* characters, without a trailing dot */
#define PROTO_LABEL_MAX		63
#define PROTO_KEY_MAX		64	/* statistics and status keys */

enum proto_type {
	PROTO_LOOKUP_NAME	= 1,
	PROTO_LOOKUP_ADDR	= 2,
	PROTO_STATISTICS	= 3,
	PROTO_STATUS		= 4,
	PROTO_QUERY_RR		= 5,	/* any record type, for query -t */
	PROTO_FLUSH_CACHES	= 6,	/* admin */
	PROTO_INVALIDATE	= 7,	/* admin */
	PROTO_RESET_STATISTICS	= 8,	/* admin */
	PROTO_RELOAD		= 9,	/* admin */
	PROTO_SHOW_CACHE	= 10,
	PROTO_MONITOR		= 11,	/* admin: every lookup, as answered (event.h) */
	PROTO_METRICS		= 12,	/* Prometheus' text, paged (event.h) */
};
#define PROTO_REPLY		0x80

enum proto_status {
	PROTO_OK		= 0,
	PROTO_NOTFOUND		= 1,	/* no such name or address */
	PROTO_NODATA		= 2,	/* the name exists, but not for this family */
	PROTO_TRYAGAIN		= 3,	/* temporary failure upstream */
	PROTO_BADREQUEST	= 4,	/* malformed body */
	PROTO_BADNAME		= 5,	/* invalid name or address */
	PROTO_UNSUPPORTED	= 6,	/* unknown version or type */
	PROTO_DENIED		= 7,	/* not allowed for this peer */
	PROTO_TOOBIG		= 8,	/* the answer does not fit in a frame */
	PROTO_INTERNAL		= 9,	/* the daemon failed, e.g. out of memory */
	PROTO_BUSY		= 10,	/* too many requests in flight */
	PROTO_UNAVAIL		= 11,	/* every source on the hosts line was
					   unavailable: the line's final answer */
	PROTO_NOTFOUND_TRYAGAIN	= 12,	/* not found, after a temporary failure:
					   the search list's first query failed
					   for now (SERVFAIL, REFUSED), a later
					   one got NXDOMAIN.  glibc's dns module
					   says NOTFOUND with h_errno TRY_AGAIN */
};

enum proto_family {
	PROTO_AF_UNSPEC		= 0,
	PROTO_AF_INET		= 4,
	PROTO_AF_INET6		= 6,
	PROTO_AF_INET6_SCOPED	= 7,	/* in answers only: an IPv6 address, then
					   u32 scope id (a link-local address an
					   NSS module gave with its interface) */
};

enum proto_source {
	PROTO_SRC_NONE		= 0,
	PROTO_SRC_HOSTS		= 1,
	PROTO_SRC_DNS		= 2,
	PROTO_SRC_CACHE		= 3,
	PROTO_SRC_STALE		= 4,
	PROTO_SRC_NSS		= 5,	/* an NSS module; its name follows the body */
};

enum proto_kv_kind {
	PROTO_KV_U64		= 0,
	PROTO_KV_STR		= 1,
};

struct proto_hdr {
	uint32_t	len;
	uint8_t		version;
	uint8_t		type;
	uint16_t	status;
	uint32_t	id;
};

/* The writer's mirror, struct rd, is the one reader of untrusted bytes (rd.h). */
struct proto_wr {
	uint8_t		*p;
	size_t		 cap;
	size_t		 off;
	int		 err;		/* 0 or -EMSGSIZE */
};

/* A u16 length and that many bytes, none of them NUL; borrowed from the buffer. */
const char *proto_get_str(struct rd *, size_t *ret_len);

void	 proto_wr_init(struct proto_wr *, void *, size_t);
void	 proto_put_u8(struct proto_wr *, uint8_t);
void	 proto_put_u16(struct proto_wr *, uint16_t);
void	 proto_put_u32(struct proto_wr *, uint32_t);
void	 proto_put_u64(struct proto_wr *, uint64_t);
void	 proto_put_bytes(struct proto_wr *, const void *, size_t);
void	 proto_put_str(struct proto_wr *, const char *, size_t);
/*
 * Writes v over the two bytes at off, written before (the place of a
 * count known only at the end).  Returns 0, or the writer's error, and
 * then writes nothing.
 */
int	 proto_put_u16_at(struct proto_wr *, size_t off, uint16_t v);

/*
 * Decodes the header at the start of buf.  Returns 0, -EAGAIN when fewer
 * than PROTO_HDR_LEN bytes are there, -EMSGSIZE for a length outside
 * 12 .. PROTO_FRAME_MAX, or -EPROTONOSUPPORT for another version (the
 * header is still filled in, so the id can be echoed).
 */
int	 proto_hdr_decode(const void *buf, size_t len, struct proto_hdr *ret_hdr);
/*
 * Writes hdr's fields, as they are, over the first PROTO_HDR_LEN bytes of
 * buf: to change a field of a frame already encoded (decode, set, encode).
 * Returns PROTO_HDR_LEN, or -EMSGSIZE when len is shorter.
 */
int	 proto_hdr_encode(const struct proto_hdr *hdr, void *buf, size_t len);

/*
 * Frames are written in place: begin, put the body, end.  proto_frame_end
 * patches the length and returns the frame size, or -EMSGSIZE when it
 * overflowed the buffer or PROTO_FRAME_MAX.
 */
void	 proto_frame_begin(struct proto_wr *, uint8_t type, uint16_t status, uint32_t id);
int	 proto_frame_end(struct proto_wr *);

/*
 * 0 when name is a name namecache looks up: 1 to 253 characters (one more
 * for a trailing dot), labels of 1 to 63, no NUL, control or DEL byte.
 * Otherwise -EINVAL, with a static reason in *ret_why when ret_why is set.
 */
int	 proto_name_check(const char *name, size_t len, const char **ret_why);

/* Lookup by name.  Body: u8 family, u8 flags, str name. */
struct proto_lookup_name {
	uint8_t		family;		/* enum proto_family */
	uint8_t		flags;		/* none defined yet: must be 0 */
	size_t		name_len;
	char		name[PROTO_NAME_MAX + 2];	/* NUL-terminated copy */
};
int	 proto_lookup_name_encode(struct proto_wr *, uint32_t id, uint8_t family,
	    const char *name);
/* -EBADMSG for a malformed body, -EINVAL for a bad name or family. */
int	 proto_lookup_name_decode(const void *body, size_t len,
	    struct proto_lookup_name *ret_req, const char **ret_why);

/* Lookup by address.  Body: u8 family (4 or 6), u8 flags, 4 or 16 bytes. */
struct proto_lookup_addr {
	uint8_t		family;
	uint8_t		flags;
	uint8_t		addr[16];
};
int	 proto_lookup_addr_encode(struct proto_wr *, uint32_t id, uint8_t family,
	    const void *addr);
int	 proto_lookup_addr_decode(const void *body, size_t len,
	    struct proto_lookup_addr *ret_req, const char **ret_why);

/* A request with no body: statistics, status. */
int	 proto_simple_encode(struct proto_wr *, uint8_t type, uint32_t id);

/*
 * The answer to a lookup, status PROTO_OK:
 *	u32 ttl, u8 source, u8 flags, u16 naddr, u16 nalias,
 *	str canonical name, naddr x (u8 family, 4|16 bytes), nalias x str,
 *	then, for an answer an NSS module gave (whatever the source byte says
 *	now: nss, cache), str origin: the module's name.
 * Written with proto_answer_begin/_addr/_alias/_end: all addresses first;
 * the origin, when there is one, with proto_put_str after _end.
 */
struct proto_answer_wr {
	struct proto_wr	*w;
	size_t		 counts_off;
	uint16_t	 naddr;
	uint16_t	 nalias;
};
void	 proto_answer_begin(struct proto_answer_wr *, struct proto_wr *,
	    uint32_t ttl, uint8_t source, const char *canon, size_t canon_len);
void	 proto_answer_addr(struct proto_answer_wr *, uint8_t family, const void *addr);
void	 proto_answer_alias(struct proto_answer_wr *, const char *, size_t);
int	 proto_answer_end(struct proto_answer_wr *);

/*
 * A decoded answer: pointers borrowed from the body, valid while it is.
 * The parts need not be contiguous (the daemon's typed answers point
 * them at different records): a walk reads each by its own length.
 */
struct proto_answer {
	uint32_t	 ttl;
	uint8_t		 source;
	uint8_t		 flags;
	uint16_t	 naddr;
	uint16_t	 naddr4;
	uint16_t	 naddr6;
	uint16_t	 nalias;
	const char	*canon;		/* not NUL-terminated */
	size_t		 canon_len;
	const uint8_t	*addrs;
	size_t		 addrs_len;	/* bytes */
	const uint8_t	*aliases;
	size_t		 aliases_len;	/* bytes */
	size_t		 strings_size;	/* canon and aliases, each with a NUL */
	const char	*origin;	/* the NSS module that answered, or NULL;
					   not NUL-terminated */
	size_t		 origin_len;
};
int	 proto_answer_decode(const void *body, size_t len, struct proto_answer *ret_ans);
/*
 * Walk a decoded answer; *cursor starts at 0.  Return 0 at the end.  The
 * family is as written: PROTO_AF_INET6_SCOPED has 20 bytes at *ret_addr
 * (proto_answer_addr copies it whole); proto_answer_scope reads its scope.
 * Each step is checked again against the decoded extents, so a body that
 * changed since it was decoded (shared memory) ends a walk early and never
 * leads it outside: a caller bounds what it writes by the decoded counts
 * (naddr, naddr4, naddr6, nalias, strings_size), not by the walk.
 */
uint32_t proto_answer_scope(uint8_t family, const uint8_t *addr);
/* Writes scope after the 16 bytes of a PROTO_AF_INET6_SCOPED address (20). */
void	 proto_answer_set_scope(uint8_t *addr, uint32_t scope);
/*
 * Overwrites an encoded answer's ttl and source in place (a cached answer
 * counts down).  0, or -EBADMSG when the body is too short for them.
 */
int	 proto_answer_stamp(void *body, size_t len, uint32_t ttl, uint8_t source);
int	 proto_answer_next_addr(const struct proto_answer *, size_t *cursor,
	    uint8_t *ret_family, const uint8_t **ret_addr);
int	 proto_answer_next_alias(const struct proto_answer *, size_t *cursor,
	    const char **ret_str, size_t *ret_len);

/* Statistics and status: u16 count, count x (str key, u8 kind, u64 | str). */
struct proto_kv_wr {
	struct proto_wr	*w;
	size_t		 count_off;
	uint16_t	 count;
};
void	 proto_kv_begin(struct proto_kv_wr *, struct proto_wr *);
void	 proto_kv_u64(struct proto_kv_wr *, const char *key, uint64_t);
void	 proto_kv_str(struct proto_kv_wr *, const char *key, const char *);
int	 proto_kv_end(struct proto_kv_wr *);

struct proto_kv {
	const char	*key;
	size_t		 key_len;
	uint8_t		 kind;
	uint64_t	 u64;
	const char	*str;
	size_t		 str_len;
};
struct proto_kv_rd {
	struct rd	 rd;
	uint16_t	 left;
};
int	 proto_kv_init(struct proto_kv_rd *, const void *body, size_t len);
/* 1 with *ret_kv filled, 0 at the end, -EBADMSG for a malformed body. */
int	 proto_kv_next(struct proto_kv_rd *, struct proto_kv *ret_kv);

/*
 * An error reply may carry a reason: str message.  An empty body has none.
 * PROTO_UNAVAIL's body is u8 h_errno + 1 (what the last source left in
 * h_errno: -1, NETDB_INTERNAL, for a module that does not load), u32
 * errno, str message.
 */
void	 proto_unavail_body(struct proto_wr *, int herrno, int err, const char *msg);
int	 proto_unavail_decode(const void *body, size_t len, int *ret_herrno,
	    int *ret_errno);
void	 proto_error_body(struct proto_wr *, const char *msg);
int	 proto_error_decode(const void *body, size_t len, const char **ret_msg,
	    size_t *ret_len);

/*
 * Records of any type.  Request body: u16 type, u8 flags (0), u8 0, str name.
 * Answer body: u32 ttl, u8 source, u8 flags, u16 count, then count x
 * (str owner, u16 type, u32 ttl, str rdata in presentation form).
 */
struct proto_query_rr {
	uint16_t	type;
	size_t		name_len;
	char		name[PROTO_NAME_MAX + 2];
};
int	 proto_query_rr_encode(struct proto_wr *, uint32_t id, uint16_t type,
	    const char *name);
int	 proto_query_rr_decode(const void *body, size_t len,
	    struct proto_query_rr *ret_req, const char **ret_why);

struct proto_records_wr {
	struct proto_wr	*w;
	size_t		 count_off;
	uint16_t	 count;
};
void	 proto_records_begin(struct proto_records_wr *, struct proto_wr *,
	    uint32_t ttl, uint8_t source);
void	 proto_records_add(struct proto_records_wr *, const char *owner,
	    uint16_t type, uint32_t ttl, const char *rdata);
int	 proto_records_end(struct proto_records_wr *);

struct proto_records {
	uint32_t	 ttl;
	uint8_t		 source;
	uint16_t	 count;
	const uint8_t	*items;		/* validated by the decoder */
	size_t		 items_len;
};
struct proto_record {
	const char	*owner;
	size_t		 owner_len;
	uint16_t	 type;
	uint32_t	 ttl;
	const char	*rdata;
	size_t		 rdata_len;
};
int	 proto_records_decode(const void *body, size_t len, struct proto_records *ret);
/*
 * proto_answer_stamp for a records answer: its ttl and source, then each
 * record's ttl.  0, or -EBADMSG for a malformed body (the ttl and source
 * are written when they fit, the records' only when all of it decodes).
 */
int	 proto_records_stamp(void *body, size_t len, uint32_t ttl, uint8_t source);
/* *cursor starts at 0; returns 1 with *ret_rec, 0 at the end. */
int	 proto_records_next(const struct proto_records *, size_t *cursor,
	    struct proto_record *ret_rec);

/*
 * DNS records in wire form, for the DNS listener (no client of the socket
 * sees them).  Body of a PROTO_OK, PROTO_NOTFOUND (NXDOMAIN) or
 * PROTO_NODATA reply: u32 cap, u32 age, u8 source, u8 0, u16 0, then the
 * records as daemon/front/dnswire.c keeps them (section, owner, type, class,
 * TTL, rdata; a negative answer's SOA in the authority section).  Each
 * record is told with its TTL less age, at most cap.
 */
struct proto_wire {
	uint32_t	 cap;		/* the answer's remaining TTL (stale: 30) */
	uint32_t	 age;		/* seconds since upstream gave it */
	uint8_t		 source;
	const uint8_t	*rrs;
	size_t		 rrs_len;
};
void	 proto_wire_body(struct proto_wr *, const struct proto_wire *);
int	 proto_wire_decode(const void *body, size_t len, struct proto_wire *ret);

/* Invalidate: body str name.  The reply is a kv list ("invalidated"). */
int	 proto_invalidate_encode(struct proto_wr *, uint32_t id, const char *name);
int	 proto_invalidate_decode(const void *body, size_t len, char *name,
	    size_t cap, const char **ret_why);

/*
 * Show-cache, a page at a time.  Request body: u64 cursor (0 to start),
 * then optionally str database (proto_show_db_encode).
 * Answer body: u64 next cursor (0: the end), u16 count, then count x
 * (str name, u32 kind, u8 status, u8 flags, u32 ttl left), and for kinds
 * with PROTO_CACHE_KIND_NSS or _NSCD set, str origin (the module's name;
 * a summary of an nscd answer).  kind is
 * a DNS type, or 0x10000 | type for records of query -t, or 0x20000 |
 * module << 8 | (0x80 for an address) | family for an NSS module's answer
 * (the name is then the address's text); status is 0 for an
 * answer, else NOTFOUND, NODATA or TRYAGAIN (a remembered failure); flags
 * bit 0 marks an expired entry.
 */
struct proto_cache_item {
	const char	*name;
	size_t		 name_len;
	uint32_t	 kind;
	uint8_t		 status;
	uint8_t		 flags;
	uint32_t	 ttl;
	const char	*origin;	/* NSS kinds: the module; not NUL-terminated */
	size_t		 origin_len;
};
#define PROTO_CACHE_EXPIRED	0x1
#define PROTO_CACHE_KIND_NSS	0x20000u
/* An entry of nscd's other databases: kind is this | glibc's request
 * type, origin (present, as for NSS kinds) a summary of the answer. */
#define PROTO_CACHE_KIND_NSCD	0x100000u
int	 proto_show_cache_encode(struct proto_wr *, uint32_t id, uint64_t cursor);
int	 proto_show_cache_decode(const void *body, size_t len, uint64_t *ret_cursor);
/*
 * show-cache and flush-caches of one database ("hosts", "passwd",
 * "group", "services", "netgroup"): the name after the cursor (or as the
 * whole body of a flush), absent for all.  The decoders give "" when it
 * is absent; -EINVAL for a name that is not lower-case letters.
 */
#define PROTO_DB_NAME_MAX	16
int	 proto_show_db_encode(struct proto_wr *, uint32_t id, uint64_t cursor,
	    const char *db);
int	 proto_show_db_decode(const void *body, size_t len, uint64_t *ret_cursor,
	    char *db, size_t cap);
int	 proto_flush_encode(struct proto_wr *, uint32_t id, const char *db);
int	 proto_flush_decode(const void *body, size_t len, char *db, size_t cap);

/*
 * A page is written begin, items, end: the next cursor and the count are
 * known only once the page is full, so _end writes both where _begin
 * left room for them (at *ret_page_off).
 */
void	 proto_cache_page_begin(struct proto_wr *, size_t *ret_page_off);
void	 proto_cache_page_item(struct proto_wr *, const struct proto_cache_item *);
int	 proto_cache_page_end(struct proto_wr *, size_t page_off, uint64_t next,
	    uint16_t count);
struct proto_cache_page {
	uint64_t	 next;
	uint16_t	 count;
	const uint8_t	*items;
	size_t		 items_len;
};
int	 proto_cache_page_decode(const void *body, size_t len, struct proto_cache_page *ret);
int	 proto_cache_page_next(const struct proto_cache_page *, size_t *cursor,
	    struct proto_cache_item *ret_item);

/* DNS record type mnemonics: "MX" <-> 15, "TYPE65280" for others. */
const char *proto_rrtype_str(uint16_t type, char *buf, size_t len);
int	 proto_rrtype_parse(const char *s);	/* the type, or -1 */

const char *proto_status_str(int status);
const char *proto_source_str(int source);

#endif
