/* SPDX-License-Identifier: MIT */
/*
 * bench/dns-floor.c - the DNS listener's floor: a UDP responder that does
 * nothing but recvmmsg and sendmmsg.
 *
 *   dns-floor [-a ADDR] -p PORT
 *
 * Answers every DNS query on ADDR:PORT (default 127.0.0.1; IPv4) with a
 * fixed minimal reply built from the query: its id and RD bit, QR and RA
 * set, NOERROR, the question copied byte for byte, and for a question of
 * class IN and type A one answer, a pointer to the question's name, TTL
 * 3600, 192.0.2.99 (the address nsd's wildcard gives every
 * h<i>.bench.example); any other type gets no answer (NODATA).  No EDNS
 * in the reply (RFC 6891 allows a responder without it).  A datagram that
 * is not a standard query with one question, that is longer than 4096
 * bytes (as namecached) or whose name does not parse is dropped.  No
 * lookup, no cache, no allocation after start: what is left of a cached
 * hit is the kernel's UDP receive and send and the loop's wake-ups, the
 * floor that namecached's DNS listener (daemon/front/dnslisten.c) cannot
 * go below.  bench/run.sh's listener section runs it beside the servers,
 * pinned like them, and its targets are ratios to it.  It is to the DNS
 * listener what bench/floor's libnss_floor.so.2 is to the NSS module.
 *
 * How it waits: epoll, as namecached does, not a blocking recvmmsg with
 * MSG_WAITFORONE.  namecached's one libevent loop (epoll, level-triggered)
 * serves its UDP and TCP sockets, its own socket, nscd's and its timers,
 * so its listener cannot block in recvmmsg; the floor must differ from it
 * only by what namecached does per query (parse, the engine, the encoding),
 * not by the way it is woken, or the ratio would charge namecached an
 * epoll_wait per wake-up that no design with one event loop can save.  The
 * loop is namecached's udp_cb: on each wake-up, up to 8 batches of
 * recvmmsg(MSG_DONTWAIT), each answered with one sendmmsg(MSG_DONTWAIT)
 * before the next read, DNSLISTEN_UDP_BATCH datagrams a batch (the same
 * constant, from daemon/front/dnslisten.h); a batch shorter than that ends
 * the reading, so no recvmmsg returns EAGAIN per wake-up.
 *
 * SIGTERM or SIGINT: it prints its counts on stderr and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dnslisten.h"

#define BATCH		DNSLISTEN_UDP_BATCH
#define IN_MAX		4096		/* namecached's UDP_IN_MAX: longer is dropped */
#define OUT_MAX		512		/* header + question (<= 259) + one A: under 300 */
#define READS_MAX	8		/* batches per wake-up, as namecached's udp_cb */
#define TTL		3600

static const uint8_t	answer_a[4] = { 192, 0, 2, 99 };

static struct mmsghdr		imsg[BATCH], omsg[BATCH];
static struct iovec		iiov[BATCH], oiov[BATCH];
static struct sockaddr_storage	peer[BATCH];
static uint8_t			in[BATCH][IN_MAX], out[BATCH][OUT_MAX];

static volatile sig_atomic_t	stopping;

static void
on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* The reply to q (n bytes) in r; its length, or 0 to drop q. */
static size_t
reply(const uint8_t *q, size_t n, uint8_t *r)
{
	size_t	 off = 12, qend;
	unsigned qtype, qclass, an;

	if (n < 12 || (q[2] & 0xf8) != 0 ||		/* QR clear, opcode QUERY */
	    q[4] != 0 || q[5] != 1)			/* QDCOUNT 1 */
		return 0;
	for (;;) {					/* the name: labels, no pointer */
		if (off >= n || (q[off] & 0xc0) != 0)
			return 0;
		if (q[off] == 0)
			break;
		off += 1 + q[off];
		if (off - 12 > 254)
			return 0;
	}
	qend = off + 1 + 4;
	if (qend > n)
		return 0;
	qtype = (unsigned)q[off + 1] << 8 | q[off + 2];
	qclass = (unsigned)q[off + 3] << 8 | q[off + 4];
	an = qtype == 1 && qclass == 1;
	r[0] = q[0];
	r[1] = q[1];
	r[2] = 0x80 | (q[2] & 0x01);			/* QR, RD as asked */
	r[3] = 0x80;					/* RA, NOERROR */
	memcpy(r + 4, "\0\1\0\0\0\0\0\0", 8);		/* QDCOUNT 1, the rest 0 */
	r[7] = (uint8_t)an;				/* ANCOUNT */
	memcpy(r + 12, q + 12, qend - 12);
	if (!an)
		return qend;
	r += qend;
	r[0] = 0xc0;					/* the question's name */
	r[1] = 12;
	r[2] = 0;					/* A */
	r[3] = 1;
	r[4] = 0;					/* IN */
	r[5] = 1;
	r[6] = (uint8_t)(TTL >> 24);
	r[7] = (uint8_t)(TTL >> 16);
	r[8] = (uint8_t)(TTL >> 8);
	r[9] = (uint8_t)TTL;
	r[10] = 0;					/* RDLENGTH 4 */
	r[11] = 4;
	memcpy(r + 12, answer_a, 4);
	return qend + 16;
}

static void
usage(void)
{
	fprintf(stderr, "usage: dns-floor [-a IPV4-ADDRESS] -p PORT\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in	 sin;
	struct epoll_event	 ev;
	struct sigaction	 sa;
	const char		*addr = "127.0.0.1";
	unsigned long long	 answered = 0, dropped = 0, unsent = 0, wakeups = 0, reads = 0;
	int			 c, fd, ep, port = -1;

	while ((c = getopt(argc, argv, "a:p:")) != -1) {
		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || port <= 0 || port > 65535)
		usage();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		usage();
	/* Non-blocking, as namecached's listening sockets; default buffers, as its. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		fprintf(stderr, "dns-floor: udp %s:%d: %s\n", addr, port, strerror(errno));
		return 1;
	}
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		fprintf(stderr, "dns-floor: epoll_create1: %s\n", strerror(errno));
		return 1;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;				/* level-triggered, as libevent's */
	ev.data.fd = fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		fprintf(stderr, "dns-floor: epoll_ctl: %s\n", strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;			/* no SA_RESTART: epoll_wait returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	while (!stopping) {
		int rounds, n;

		if (epoll_wait(ep, &ev, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "dns-floor: epoll_wait: %s\n", strerror(errno));
			return 1;
		}
		wakeups++;
		for (rounds = 0; rounds < READS_MAX; rounds++) {
			unsigned i, nout = 0, sent;
			int r;

			for (i = 0; i < BATCH; i++) {
				iiov[i].iov_base = in[i];
				iiov[i].iov_len = sizeof(in[i]);
				memset(&imsg[i], 0, sizeof(imsg[i]));
				imsg[i].msg_hdr.msg_name = &peer[i];
				imsg[i].msg_hdr.msg_namelen = sizeof(peer[i]);
				imsg[i].msg_hdr.msg_iov = &iiov[i];
				imsg[i].msg_hdr.msg_iovlen = 1;
			}
			if ((n = recvmmsg(fd, imsg, BATCH, MSG_DONTWAIT, NULL)) <= 0)
				break;
			reads++;
			for (i = 0; i < (unsigned)n; i++) {
				size_t len = 0;

				if (!(imsg[i].msg_hdr.msg_flags & MSG_TRUNC))
					len = reply(in[i], imsg[i].msg_len, out[nout]);
				if (len == 0) {
					dropped++;
					continue;
				}
				oiov[nout].iov_base = out[nout];
				oiov[nout].iov_len = len;
				memset(&omsg[nout], 0, sizeof(omsg[nout]));
				omsg[nout].msg_hdr.msg_name = &peer[i];
				omsg[nout].msg_hdr.msg_namelen = imsg[i].msg_hdr.msg_namelen;
				omsg[nout].msg_hdr.msg_iov = &oiov[nout];
				omsg[nout].msg_hdr.msg_iovlen = 1;
				nout++;
			}
			for (sent = 0; sent < nout; sent += (unsigned)r)
				if ((r = sendmmsg(fd, omsg + sent, nout - sent, MSG_DONTWAIT)) <= 0) {
					unsent += nout - sent;
					break;
				}
			answered += sent;
			if (n < BATCH)
				break;
		}
	}
	fprintf(stderr, "dns-floor: answered %llu, dropped %llu, not sent %llu; "
	    "%llu wake-ups, %llu reads\n", answered, dropped, unsent, wakeups, reads);
	close(ep);
	close(fd);
	return 0;
}
