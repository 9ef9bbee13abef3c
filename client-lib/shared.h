/* SPDX-License-Identifier: MIT */
/* client-lib/shared.h - answers from the daemon's shared segment, without a system call. */
#ifndef NAMECACHE_SHARED_H
#define NAMECACHE_SHARED_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* A hit: borrowed from the mapping until ncc_shared_release(). */
struct ncc_shared_hit {
	void		*map;		/* private: the mapping held */
	uint8_t		 status;	/* PROTO_OK, PROTO_NOTFOUND, PROTO_NODATA */
	const uint8_t	*body;		/* an answer body, for PROTO_OK */
	size_t		 body_len;
	uint32_t	 ttl_left;	/* seconds, rounded up; 0 for hosts answers */
#ifdef NCC_SHARED_TESTING
	unsigned long	 unmaps;	/* private: the mapping's unmaps when held */
#endif
};

/*
 * Looks (kind, family, key) up in the segment beside the daemon socket at
 * sockpath (its folder's "cache" file), mapping it on first use.  Returns
 * 1 with *ret (release it with ncc_shared_release), or 0 when the answer
 * is not there, is about to expire (the daemon then refreshes it), or the
 * segment cannot be used: ask the socket.  A hit makes no system call
 * beyond clock_gettime (vDSO).  Thread-safe, fork-safe; errno preserved.
 */
int	ncc_shared_lookup(const char *sockpath, uint8_t kind, uint8_t family,
	    const void *key, size_t key_len, struct ncc_shared_hit *ret);
void	ncc_shared_release(struct ncc_shared_hit *);

/*
 * "The shared segment, then the socket", with its one rule, for every
 * caller (the NSS module, namecache_lookup_*, namecache_submit_*): 1 when
 * the segment answers, with *ret held (release with ncc_shared_release):
 * a negative status (PROTO_NOTFOUND, PROTO_NODATA), or PROTO_OK with a body
 * that decodes, in *ret_ans.  0 means ask the socket: no record, expired
 * or in its last 10%, a body that does not decode, any other status.  A
 * caller that cannot use a hit (out of memory copying it) releases it and
 * asks the socket too.
 */
/*
 * The daemon's last heartbeat, as its segment beside sockpath says: 1 with
 * *ret_beat (CLOCK_MONOTONIC ns, the daemon's) and *ret_age (ns since, on
 * this process's clock), or 0 when there is no live segment to read (no
 * daemon, shared = no, or one that stopped and left its segment for the
 * next: a client then waits on the socket, which systemd holds).  A stale segment is read too: this is how a client
 * waiting on the socket tells a hung daemon from a slow answer.
 */
int	ncc_shared_beat(const char *sockpath, int64_t *ret_beat, int64_t *ret_age);

/*
 * The one rule for "the daemon is hung", for every client that waits on
 * the socket (ncc_call, the non-blocking context): its last beat is
 * NCC_HUNG_MS to a minute old, or the beat has not moved for NCC_HUNG_MS of
 * this wait.  (A beat more than a minute old is judged by the second rule
 * only: a process in another time namespace reads the daemon's clock with
 * an offset.)  w carries the beat first seen and when, across the calls of
 * one wait; zero it when a wait starts.  No segment: never hung.
 */
#define NCC_HUNG_MS	3000
struct ncc_beat_watch {
	int64_t	beat;
	int64_t	since_ms;	/* 0: none seen yet */
};
bool	ncc_shared_hung(const char *sockpath, int64_t now_ms, struct ncc_beat_watch *w);

/*
 * The key a client's cached source addresses are valid for: the live,
 * beating segment's generation and netlink counter (the daemon bumps it on
 * every address or route change).  1 with ret_key, or 0 when there is no
 * such segment (then nothing can be cached).  No system call but the
 * vDSO's clock; errno preserved.
 */
int	ncc_shared_netstamp(const char *sockpath, uint64_t ret_key[2]);

struct proto_answer;
int	ncc_shared_answer(const char *sockpath, uint8_t kind, uint8_t family,
	    const void *key, size_t key_len, struct ncc_shared_hit *ret,
	    struct proto_answer *ret_ans);

/* Unmaps what can be (tests; a process about to exec). */
void	ncc_shared_forget(void);

#ifdef NCC_SHARED_TESTING
/* Hits released whose mapping was unmapped while they held it: must be 0. */
unsigned long ncc_shared_test_held_unmapped(void);
/* Maps the segment anew and sweeps, as when the daemon replaces it. */
int	ncc_shared_test_remap(const char *sockpath);
/* The reader's clock: CLOCK_MONOTONIC ns, or the time set below. */
int64_t	ncc_shared_test_now(void);
/* Stops the reader's clock at at_ns (0: CLOCK_MONOTONIC again). */
void	ncc_shared_test_clock(int64_t at_ns);
/* No new try to map a segment before this (reader's clock), or 0. */
int64_t	ncc_shared_test_retry_at(void);
#endif

#endif
