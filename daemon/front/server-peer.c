/* SPDX-License-Identifier: MIT */
/* daemon/front/server-peer.c - who a client of the Unix sockets is: its groups, and the one admin check. */
#include <sys/socket.h>

#include "server.h"

bool
server_peer_in_group(const struct server_req *req, gid_t gid)
{
	gid_t		groups[256];
	socklen_t	len = sizeof(groups);
	size_t		i;
	int		fd;

	if (req->cred.gid == gid)
		return true;
	/* The groups the client had when it connected (Linux 4.13). */
	if ((fd = server_req_fd(req)) < 0 || getsockopt(fd, SOL_SOCKET,
	    SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

bool
server_peer_is_admin(const struct server_req *req, gid_t admin_gid)
{
	/* A failed SO_PEERCRED leaves -1s: never root, never in a group. */
	if (req->cred.uid == 0)
		return true;
	return admin_gid != SERVER_NO_GROUP && server_peer_in_group(req, admin_gid);
}
