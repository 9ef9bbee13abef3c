/* SPDX-License-Identifier: MIT */
/* daemon/front/listener.c - the listening socket: systemd's, or one bound at a path. */

/*
 * A path is bound only when no daemon answers there: a live socket is
 * never stolen, a stale one is replaced.  systemd's descriptors are read
 * once for both servers, since reading them unsets LISTEN_FDS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "listener.h"
#include "log.h"

struct listener {
	int	 fd;
	char	*bound_path;	/* unlinked at exit, if we bound it */
	bool	 activated;
};

struct listener *
listener_new(void)
{
	struct listener *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->fd = -1;
	return l;
}

void
listener_free(struct listener *l)
{
	if (l == NULL)
		return;
	if (l->fd >= 0)
		close(l->fd);
	if (l->bound_path) {
		unlink(l->bound_path);
		free(l->bound_path);
	}
	free(l);
}

static char *
errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
errf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Whether a daemon answers on path: a live socket must not be stolen. */
static bool
socket_alive(const struct sockaddr_un *sun)
{
	int	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool	alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0;
	close(fd);
	return alive;
}

/* The DNS listener's sockets systemd passed: UDP, and listening TCP. */
static int	passed_dns[LISTENER_DNS_PASSED_MAX];
static int	npassed_dns;
static int	npassed;	/* every socket systemd passed */

/*
 * The sockets systemd passed, read once: the nscd socket is the one named
 * "nscd" (FileDescriptorName= of namecache-nscd.socket); namecache's own
 * is the first other Unix stream socket; IPv4 and IPv6 sockets are the
 * DNS listener's.  -1: none passed.
 */
static int
passed_socket(bool nscd)
{
	static int	 own = -1, nscd_fd = -1;
	static bool	 read_once;
	char		**names = NULL;
	int		 n, i;

	if (!read_once) {
		read_once = true;
		n = sd_listen_fds_with_names(1, &names);
		npassed = n > 0 ? n : 0;
		for (i = 0; i < n; i++) {
			int fd = SD_LISTEN_FDS_START + i;

			if (sd_is_socket_inet(fd, 0, SOCK_DGRAM, -1, 0) > 0 ||
			    sd_is_socket_inet(fd, 0, SOCK_STREAM, 1, 0) > 0) {
				if (npassed_dns < LISTENER_DNS_PASSED_MAX)
					passed_dns[npassed_dns++] = fd;
				else
					log_warning("ignoring passed descriptor %d: "
					    "more than %d DNS sockets", fd,
					    LISTENER_DNS_PASSED_MAX);
				continue;
			}
			if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
				log_warning("ignoring passed descriptor %d: not a "
				    "listening Unix stream socket, nor an IP one",
				    fd);
				continue;
			}
			if (names && names[i] && strcmp(names[i], "nscd") == 0)
				nscd_fd = nscd_fd < 0 ? fd : nscd_fd;
			else if (own < 0)
				own = fd;
		}
		for (i = 0; names && names[i]; i++)
			free(names[i]);
		free(names);
	}
	return nscd ? nscd_fd : own;
}

int
listener_dns_passed(const int **ret_fds)
{
	passed_socket(false);
	*ret_fds = passed_dns;
	return npassed_dns;
}

bool
listener_nscd_passed(void)
{
	return passed_socket(true) >= 0;
}

int
listener_open(struct listener *l, const char *path, bool nscd, char **ret_err)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	char			*dir, *slash;
	int			 fd = -1, r;

	*ret_err = NULL;
	if ((fd = passed_socket(nscd)) >= 0) {
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
		    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			r = -errno;
			*ret_err = errf("socket from systemd: %s", strerror(-r));
			return r;
		}
		l->activated = true;
		log_info("listening on the %ssocket systemd passed",
		    nscd ? "nscd " : "");
		goto listen_ok;
	}
	if (path == NULL || path[0] == '\0')
		return -ENOENT;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		*ret_err = errf("socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, path);
	if (socket_alive(&sun)) {
		*ret_err = errf("%s: another daemon is answering there", path);
		return -EADDRINUSE;
	}
	if ((dir = strdup(path)) != NULL && (slash = strrchr(dir, '/')) != NULL &&
	    slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			*ret_err = errf("cannot create %s: %s", dir, strerror(-r));
			free(dir);
			return r;
		}
	}
	free(dir);
	/* lstat first: on a read-only folder unlink says EROFS, stale or not. */
	if (lstat(path, &st) == 0 && unlink(path) < 0) {
		r = -errno;
		*ret_err = errf("cannot remove stale %s: %s", path, strerror(-r));
		return r;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		r = -errno;
		*ret_err = errf("cannot bind %s: %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if ((l->bound_path = strdup(path)) == NULL) {
		close(fd);
		unlink(path);
		return -ENOMEM;
	}
	if (chmod(path, 0666) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		*ret_err = errf("cannot listen on %s: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	log_info("listening on %s", path);
listen_ok:
	l->fd = fd;
	return 0;
}

int
listener_fd(const struct listener *l)
{
	return l->fd;
}

bool
listener_activated(const struct listener *l)
{
	return l->activated;
}

/* The path a Unix socket is bound to. */
static int
socket_path(int fd, char *buf, size_t len)
{
	struct sockaddr_un	sun;
	socklen_t		sl = sizeof(sun);

	memset(&sun, 0, sizeof(sun));
	if (getsockname(fd, (struct sockaddr *)&sun, &sl) < 0)
		return -errno;
	if (sl <= offsetof(struct sockaddr_un, sun_path) || sun.sun_path[0] == '\0')
		return -EADDRNOTAVAIL;	/* unnamed or abstract: no folder */
	if (strnlen(sun.sun_path, sizeof(sun.sun_path)) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, sun.sun_path, strnlen(sun.sun_path, sizeof(sun.sun_path)) + 1);
	return 0;
}

int
listener_activated_path(const struct listener *l, char *buf, size_t len)
{
	if (!l->activated)
		return -ENOTSOCK;
	return socket_path(l->fd, buf, len);
}

bool
listener_passed_any(void)
{
	passed_socket(false);
	return npassed > 0;
}

int
listener_passed_path(char *buf, size_t len)
{
	int fd = passed_socket(false);

	return fd < 0 ? -ENOTSOCK : socket_path(fd, buf, len);
}

bool
listener_path_answered(const char *path)
{
	struct sockaddr_un sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return false;
	strcpy(sun.sun_path, path);
	return socket_alive(&sun);
}
