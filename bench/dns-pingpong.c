/* SPDX-License-Identifier: MIT */
/*
 * bench/dns-pingpong.c - DNS round trips over UDP, one query at a time.
 *
 * A connected UDP socket asks ADDR:PORT the names of NAMEFILE (dnsperf's
 * format: "NAME TYPE" a line, TYPE A or AAAA), in turn, round and round:
 * send one query, wait for its answer, time it.  The latency of a server
 * with no queue in front of it, which dnsperf cannot give: with one query
 * outstanding (-q 1) it waits for its own timer between queries, about
 * 20 a second here.  -p CPU pins this process.  A query unanswered within
 * -t MS is counted lost and not timed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#define NAMES_MAX	100000

struct query {
	uint8_t	 wire[300];
	size_t	 len;
};

/* "name TYPE" as a query with id 0, RD set; -1 for a line it cannot encode. */
static int
encode(const char *line, struct query *q)
{
	char		 name[256], type[16];
	const char	*l, *dot;
	uint8_t		*p = q->wire;
	uint16_t	 qtype;

	if (sscanf(line, "%255s %15s", name, type) != 2)
		return -1;
	if (strcasecmp(type, "A") == 0)
		qtype = 1;
	else if (strcasecmp(type, "AAAA") == 0)
		qtype = 28;
	else
		return -1;
	memcpy(p, "\0\0\1\0\0\1\0\0\0\0\0\0", 12);	/* RD, QDCOUNT 1 */
	p += 12;
	for (l = name; *l; l = *dot ? dot + 1 : dot) {
		size_t n;

		if ((dot = strchr(l, '.')) == NULL)
			dot = l + strlen(l);
		n = (size_t)(dot - l);
		if (n == 0 || n > 63 || (size_t)(p - q->wire) + n + 6 > sizeof(q->wire))
			return -1;
		*p++ = (uint8_t)n;
		memcpy(p, l, n);
		p += n;
	}
	*p++ = 0;
	*p++ = qtype >> 8, *p++ = qtype & 0xff;
	*p++ = 0, *p++ = 1;				/* IN */
	q->len = (size_t)(p - q->wire);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in	 sa = { .sin_family = AF_INET };
	struct query		*qs;
	uint8_t			 buf[4096];
	double			*t, sum = 0;
	char			 line[512];
	FILE			*f;
	int			 c, fd, i, n = 20000, warm = 200, cpu = -1, timeout_ms = 1000;
	int			 nq = 0, got = 0, lost = 0, bad = 0;
	uint16_t		 id = 0;

	while ((c = getopt(argc, argv, "n:p:t:w:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'p': cpu = atoi(optarg); break;
		case 't': timeout_ms = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 3 || n < 10 || warm < 0 || timeout_ms < 1 ||
	    inet_pton(AF_INET, argv[optind], &sa.sin_addr) != 1 ||
	    atoi(argv[optind + 1]) <= 0 || atoi(argv[optind + 1]) > 65535)
		goto usage;
	sa.sin_port = htons((uint16_t)atoi(argv[optind + 1]));
	if ((qs = calloc(NAMES_MAX, sizeof(*qs))) == NULL ||
	    (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 1;
	if ((f = fopen(argv[optind + 2], "re")) == NULL) {
		perror(argv[optind + 2]);
		return 1;
	}
	while (nq < NAMES_MAX && fgets(line, sizeof(line), f))
		if (encode(line, &qs[nq]) == 0)
			nq++;
	fclose(f);
	if (nq == 0) {
		fprintf(stderr, "dns-pingpong: no name in %s\n", argv[optind + 2]);
		return 1;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("socket");
		return 1;
	}
	for (i = -warm; got < n && i < 10 * n; i++) {
		struct query	*q = &qs[(i + warm) % nq];
		struct pollfd	 pfd = { .fd = fd, .events = POLLIN };
		double		 t0, dt;
		ssize_t		 r;

		id++;
		q->wire[0] = id >> 8, q->wire[1] = id & 0xff;
		t0 = now();
		if (send(fd, q->wire, q->len, 0) != (ssize_t)q->len) {
			perror("send");
			return 1;
		}
		for (;;) {
			int left = timeout_ms - (int)((now() - t0) * 1e3);

			if (left <= 0 || poll(&pfd, 1, left) <= 0) {
				r = -1;
				break;
			}
			/* Each answer's own id: a late one of a lost query is skipped. */
			if ((r = recv(fd, buf, sizeof(buf), 0)) >= 12 &&
			    buf[0] == q->wire[0] && buf[1] == q->wire[1])
				break;
			if (r < 0 && errno != EINTR && errno != EAGAIN) {
				perror("recv");
				return 1;
			}
		}
		dt = now() - t0;
		if (r < 0) {
			lost++;
			continue;
		}
		if (!(buf[2] & 0x80) || (buf[3] & 0x0f) != 0)
			bad++;				/* not a NOERROR reply */
		if (i >= 0) {
			t[got++] = dt;
			sum += dt;
		}
	}
	close(fd);
	if (got == 0) {
		fprintf(stderr, "dns-pingpong: no answer (%d lost)\n", lost);
		return 1;
	}
	qsort(t, (size_t)got, sizeof(t[0]), cmp);
	printf("dns round trip median %8.2f us   p99 %8.2f us   mean %8.2f us   (n=%d, lost %d, "
	    "not NOERROR %d)\n", t[got / 2] * 1e6, t[(size_t)got * 99 / 100] * 1e6,
	    sum / got * 1e6, got, lost, bad);
	return 0;
usage:
	fprintf(stderr, "usage: dns-pingpong [-n COUNT] [-p CPU] [-t TIMEOUT_MS] [-w WARM] "
	    "ADDR PORT NAMEFILE\n");
	return 2;
}
