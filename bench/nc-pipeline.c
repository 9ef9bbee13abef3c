/* SPDX-License-Identifier: MIT */
/*
 * bench/nc-pipeline.c - the daemon's throughput over its socket.
 *
 * Opens CONNS connections to namecached and keeps DEPTH LOOKUP_NAME frames
 * in flight on each (pipelined: one connection carries many requests, see
 * docs/protocol.md), for SECONDS or until COUNT replies came back.  Prints
 * the replies per second and their statuses.  NAME may hold one %d: request
 * i then asks NAME with BASE + i, a new name each time (to fill a cache).
 * Frames are written and read with proto/ (the project's one codec).
 * Also prints the longest time without a reply while lookups were in
 * flight: with the daemon kept busy, how long its loop stopped at most
 * (a stall of the daemon's, or of the machine's scheduler).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

#define CONNS_MAX	64
#define RBUF		(256 * 1024)
#define WBUF		(64 * 1024)

struct conn {
	int		 fd;
	int		 inflight;
	uint8_t		*rbuf;
	size_t		 rlen;
	uint8_t		*wbuf;
	size_t		 wlen;
};

static const char	*pattern;
static long		 base, next_req, count = -1;
static int		 family, depth = 32;
static unsigned long	 replies, by_status[16], other_status;
static double		 last_reply, gap_max;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die(const char *what)
{
	fprintf(stderr, "nc-pipeline: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Queues requests until DEPTH are in flight (or COUNT were sent). */
static void
fill(struct conn *c)
{
	char		 name[PROTO_NAME_MAX + 2];
	const char	*at = strstr(pattern, "%d");
	struct proto_wr	 w;
	int		 len;

	while (c->inflight < depth && (count < 0 || next_req < count) &&
	    c->wlen + PROTO_HDR_LEN + 4 + sizeof(name) <= WBUF) {
		if (at)
			snprintf(name, sizeof(name), "%.*s%ld%s", (int)(at - pattern),
			    pattern, base + next_req, at + 2);
		else
			snprintf(name, sizeof(name), "%s", pattern);
		proto_wr_init(&w, c->wbuf + c->wlen, WBUF - c->wlen);
		len = proto_lookup_name_encode(&w, (uint32_t)next_req, (uint8_t)family, name);
		if (len < 0) {
			fprintf(stderr, "nc-pipeline: cannot encode %s\n", name);
			exit(2);
		}
		c->wlen += (size_t)len;
		c->inflight++;
		next_req++;
	}
}

static int
flush_out(struct conn *c)
{
	while (c->wlen > 0) {
		ssize_t n = send(c->fd, c->wbuf, c->wlen, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			die("send");
		}
		memmove(c->wbuf, c->wbuf + n, c->wlen - (size_t)n);
		c->wlen -= (size_t)n;
	}
	return 0;
}

static void
read_in(struct conn *c)
{
	struct proto_hdr h;
	size_t off = 0;
	ssize_t n;

	n = recv(c->fd, c->rbuf + c->rlen, RBUF - c->rlen, 0);
	if (n == 0) {
		fprintf(stderr, "nc-pipeline: the daemon closed a connection\n");
		exit(1);
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		die("recv");
	}
	c->rlen += (size_t)n;
	{
		double t = now();

		if (last_reply > 0 && t - last_reply > gap_max)
			gap_max = t - last_reply;
		last_reply = t;
	}
	while (proto_hdr_decode(c->rbuf + off, c->rlen - off, &h) == 0 &&
	    h.len <= c->rlen - off) {
		if (h.type != (PROTO_LOOKUP_NAME | PROTO_REPLY)) {
			fprintf(stderr, "nc-pipeline: unexpected reply type %u\n", h.type);
			exit(1);
		}
		if (h.status < 16)
			by_status[h.status]++;
		else
			other_status++;
		replies++;
		c->inflight--;
		off += h.len;
	}
	memmove(c->rbuf, c->rbuf + off, c->rlen - off);
	c->rlen -= off;
}

static void
usage(void)
{
	fprintf(stderr, "usage: nc-pipeline [-c CONNS] [-d DEPTH] [-t SECONDS | -n COUNT] [-f 0|4|6] [-b BASE] SOCKET NAME\n"
	    "  keeps DEPTH lookups of NAME in flight on each of CONNS connections\n"
	    "  (defaults: 4 connections, depth 32, 3 seconds, family 0);\n"
	    "  NAME may hold %%d: request i asks NAME with BASE + i\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un	 sun = { .sun_family = AF_UNIX };
	struct conn		 conns[CONNS_MAX];
	struct pollfd		 pfd[CONNS_MAX];
	double			 secs = 3, t0, t1, deadline;
	int			 c, i, nconns = 4;

	while ((c = getopt(argc, argv, "c:d:t:n:f:b:")) != -1) {
		switch (c) {
		case 'c': nconns = atoi(optarg); break;
		case 'd': depth = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'n': count = atol(optarg); break;
		case 'f': family = atoi(optarg); break;
		case 'b': base = atol(optarg); break;
		default: usage();
		}
	}
	if (argc - optind != 2 || nconns < 1 || nconns > CONNS_MAX || depth < 1 ||
	    depth > 128 || (family != 0 && family != 4 && family != 6))
		usage();
	if (strlen(argv[optind]) >= sizeof(sun.sun_path))
		usage();
	strcpy(sun.sun_path, argv[optind]);
	pattern = argv[optind + 1];

	for (i = 0; i < nconns; i++) {
		struct conn *k = &conns[i];

		memset(k, 0, sizeof(*k));
		if ((k->rbuf = malloc(RBUF)) == NULL || (k->wbuf = malloc(WBUF)) == NULL)
			die("malloc");
		if ((k->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
			die("socket");
		if (connect(k->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
			die(sun.sun_path);
	}
	t0 = now();
	last_reply = t0;
	deadline = count < 0 ? t0 + secs : 1e300;
	for (;;) {
		int busy = 0;

		if (now() >= deadline)
			count = next_req;	/* stop sending; collect what is in flight */
		for (i = 0; i < nconns; i++) {
			fill(&conns[i]);
			flush_out(&conns[i]);
			busy |= conns[i].inflight > 0;
			pfd[i].fd = conns[i].fd;
			pfd[i].events = POLLIN | (conns[i].wlen ? POLLOUT : 0);
		}
		if (!busy)
			break;
		if (poll(pfd, (nfds_t)nconns, 10000) <= 0)
			die("poll (no reply for 10 s)");
		for (i = 0; i < nconns; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				read_in(&conns[i]);
	}
	t1 = now();
	printf("nc-pipeline %s: %lu replies in %.3f s: %.0f lookups/s "
	    "(%d connections x %d in flight; ok %lu, notfound %lu, nodata %lu, "
	    "tryagain %lu, busy %lu, other %lu); longest gap between replies %.1f ms\n",
	    pattern, replies, t1 - t0, replies / (t1 - t0), nconns, depth,
	    by_status[PROTO_OK], by_status[PROTO_NOTFOUND], by_status[PROTO_NODATA],
	    by_status[PROTO_TRYAGAIN], by_status[PROTO_BUSY],
	    replies - by_status[PROTO_OK] - by_status[PROTO_NOTFOUND] -
	    by_status[PROTO_NODATA] - by_status[PROTO_TRYAGAIN] - by_status[PROTO_BUSY],
	    gap_max * 1000);
	for (i = 0; i < nconns; i++)
		close(conns[i].fd);
	return 0;
}
