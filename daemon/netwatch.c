/* SPDX-License-Identifier: MIT */
/* daemon/netwatch.c - rtnetlink's address and route changes, as a callback on the loop. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netwatch.h"

struct netwatch {
	int		 fd;
	struct event	*ev;
	void		(*changed)(void *);
	void		*arg;
};

static void
readable(evutil_socket_t fd, short what, void *arg)
{
	struct netwatch	*nw = arg;
	char		 buf[8192];
	bool		 any = false;

	(void)what;
	/* The messages themselves do not matter, only that some came. */
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		any = true;
	/* ENOBUFS: some were lost, which is a change all the same. */
	if (any || errno == ENOBUFS)
		nw->changed(nw->arg);
}

struct netwatch *
netwatch_new(struct event_base *base, void (*changed)(void *), void *arg)
{
	struct sockaddr_nl snl = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
		    RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_IPV6_PREFIX,
	};
	struct netwatch *nw = calloc(1, sizeof(*nw));
	int		 e;

	if (nw == NULL)
		return NULL;
	nw->changed = changed;
	nw->arg = arg;
	nw->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    NETLINK_ROUTE);
	if (nw->fd < 0 || bind(nw->fd, (struct sockaddr *)&snl, sizeof(snl)) < 0)
		goto fail;
	nw->ev = event_new(base, nw->fd, EV_READ | EV_PERSIST, readable, nw);
	if (nw->ev == NULL || event_add(nw->ev, NULL) < 0)
		goto fail;
	return nw;
fail:
	e = errno;
	netwatch_free(nw);
	errno = e;
	return NULL;
}

void
netwatch_free(struct netwatch *nw)
{
	if (nw == NULL)
		return;
	if (nw->ev)
		event_free(nw->ev);
	if (nw->fd >= 0)
		close(nw->fd);
	free(nw);
}
