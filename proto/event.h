/* SPDX-License-Identifier: MIT */
/* proto/event.h - the monitor's events and the metrics' pages, as the socket carries them. */
#ifndef NAMECACHE_PROTO_EVENT_H
#define NAMECACHE_PROTO_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/*
 * PROTO_MONITOR (admin, empty body): the reply is a kv list (the note
 * on what the daemon cannot see, the bound on what it queues), then, on
 * the same id and for as long as the connection lasts, one frame per
 * lookup answered, whose body is an event:
 *
 *   u64 time (µs since the epoch), u32 latency (µs), u64 lost (events
 *   this monitor lost since the last it got), i32 pid (-1: not known),
 *   u32 uid, u8 frontend (PROTO_FE_*; 0: a report of losses alone),
 *   u8 cache (PROTO_CACHE_*), u8 question (PROTO_Q_*), u8 family
 *   (PROTO_AF_* asked, or of the address), u16 type (the DNS type asked:
 *   query -t, or a DNS client's question; PROTO_Q_DB: glibc's request
 *   type, getpwnam's 0 to innetgr's 20), u16 status (PROTO_*),
 *   u8 client family (0, 4, 6), u16 client port, 16 bytes client
 *   address, 16 bytes address asked (PROTO_Q_ADDR), str command, str
 *   source ("files", "dns", a module's name, "none"), str name, u8 reply
 *   type, str reply body (the answer's own bytes, PROTO_OK only; else
 *   empty).
 *
 * The daemon copies; the monitor's side reads the answer and says it in
 * words (the words below), so that an attached monitor costs the lookups
 * it follows a copy, not a printf.
 */
enum proto_fe {
	PROTO_FE_NONE		= 0,
	PROTO_FE_SOCKET		= 1,
	PROTO_FE_NSCD		= 2,
	PROTO_FE_DNS		= 3,
	PROTO_FE_COUNT		= 4,
};
enum proto_cache_status {
	PROTO_CACHE_HIT		= 0,
	PROTO_CACHE_MISS	= 1,
	PROTO_CACHE_STALE	= 2,
	PROTO_CACHE_COALESCED	= 3,
	PROTO_CACHE_PREFETCH	= 4,
	PROTO_CACHE_COUNT	= 5,
};
enum proto_question {
	PROTO_Q_NAME		= 0,
	PROTO_Q_ADDR		= 1,
	PROTO_Q_RR		= 2,
	PROTO_Q_WIRE		= 3,	/* the DNS listener's records */
	PROTO_Q_DB		= 4,	/* nscd's other databases: type is glibc's */
};

struct proto_event {
	uint64_t	 time_us;
	uint32_t	 usec;
	uint64_t	 lost;
	int32_t		 pid;
	uint32_t	 uid;
	uint8_t		 fe;
	uint8_t		 cache;
	uint8_t		 question;
	uint8_t		 family;
	uint16_t	 type;
	uint16_t	 status;
	uint8_t		 client_family;
	uint16_t	 client_port;
	uint8_t		 client_addr[16];
	uint8_t		 addr[16];
	const char	*command;	/* not NUL-terminated */
	size_t		 command_len;
	const char	*source;
	size_t		 source_len;
	const char	*name;
	size_t		 name_len;
	uint8_t		 reply_type;
	const uint8_t	*body;
	size_t		 body_len;
};
/* Where lost sits in an event's body: patched per monitor. */
#define PROTO_EVENT_LOST_OFF	12
/* The bytes before command: time to the address asked. */
#define PROTO_EVENT_FIXED	71

/* Writes the body.  w->err says. */
void	proto_event_body(struct proto_wr *, const struct proto_event *);
/* 0, or -EBADMSG.  The strings and the body point into body. */
int	proto_event_decode(const void *body, size_t len, struct proto_event *ret);

/* The words of the monitor, the query log and the metrics' labels. */
const char *proto_fe_str(int fe);			/* "socket", "nscd", "dns" */
const char *proto_cache_str(int cache);			/* "hit", "miss", ... */
const char *proto_result_str(int status);		/* "found", "not found", ... */
/* "AF_INET", "AF_INET6", "AF_UNSPEC", "PTR", the DNS type's mnemonic, or
 * for nscd's other databases glibc's call: "getpwnam", "initgroups"... */
const char *proto_kind_str(int question, int family, uint16_t type, char *buf,
	    size_t len);

/*
 * An answer's body (a reply's to question, PROTO_OK) in words, one at a
 * time, at most max: its addresses (a scoped one with "%SCOPE"), the
 * names of an address (canonical first), or records ("MX 10 mx.example.").
 * s is borrowed for the call.  Returns how many fn got.
 */
unsigned proto_answer_words(int question, const uint8_t *body, size_t len,
	    unsigned max, void (*fn)(void *arg, const char *s, size_t n), void *arg);

/*
 * PROTO_METRICS: Prometheus' text exposition, a page at a time.  Request
 * body: u64 serial (0: render it now), u64 offset.  Reply body: u64
 * serial, u64 total length, then the page's bytes.  The daemon keeps the
 * text of the last serial it gave; a request for another (it rendered
 * again for someone else meanwhile) is answered PROTO_TRYAGAIN, and the
 * client starts over.
 */
#define PROTO_METRICS_PAGE	60000
int	proto_metrics_encode(struct proto_wr *, uint32_t id, uint64_t serial,
	    uint64_t offset);
int	proto_metrics_decode(const void *body, size_t len, uint64_t *ret_serial,
	    uint64_t *ret_offset);
struct proto_metrics_page {
	uint64_t	 serial;
	uint64_t	 total;
	const uint8_t	*text;
	size_t		 len;
};
int	proto_metrics_page_decode(const void *body, size_t len,
	    struct proto_metrics_page *ret);

#endif
