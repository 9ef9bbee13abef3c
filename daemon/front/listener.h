/* SPDX-License-Identifier: MIT */
/* daemon/front/listener.h - the listening socket: systemd's, or one bound at a path. */
#ifndef NAMECACHE_LISTENER_H
#define NAMECACHE_LISTENER_H

#include <stdbool.h>
#include <stddef.h>

struct listener;

/* Caller frees with listener_free(); NULL is out of memory. */
struct listener *listener_new(void);
/*
 * Closes the socket, and unlinks the path it bound, if it bound one (a
 * listener_open that failed after binding leaves it bound until then).
 */
void	 listener_free(struct listener *);

/*
 * Takes the socket systemd passed (nscd: the one named "nscd"), or else
 * binds path with mode 0666, refusing if a daemon already answers there.
 * Returns 0 or -errno, with a message for the user in *ret_err (caller
 * frees); -ENOENT with no message: nothing passed and no path.
 */
int	 listener_open(struct listener *, const char *path, bool nscd,
	    char **ret_err);
/* The listening descriptor after listener_open succeeded; -1 before. */
int	 listener_fd(const struct listener *);
bool	 listener_activated(const struct listener *);
/* The path of the socket systemd passed (getsockname): 0, or -errno. */
int	 listener_activated_path(const struct listener *, char *buf, size_t len);

/*
 * Whether systemd passed any socket, and the path of namecache's own
 * (getsockname: 0, or -errno; -ENOTSOCK: none passed), before
 * listener_open.  (LISTEN_FDS is gone once the sockets are read.)
 */
bool	 listener_passed_any(void);
int	 listener_passed_path(char *buf, size_t len);
/* Whether systemd passed a socket named "nscd" (namecache-nscd.socket). */
bool	 listener_nscd_passed(void);
/*
 * The IPv4 and IPv6 sockets systemd passed (namecache-dns.socket), UDP
 * and listening TCP, for the DNS listener: how many, at *ret_fds.
 */
#define LISTENER_DNS_PASSED_MAX	16
int	 listener_dns_passed(const int **ret_fds);
/* Whether a daemon answers at path now (as listener_open checks). */
bool	 listener_path_answered(const char *path);

#endif
