/* SPDX-License-Identifier: MIT */
/* tests/unit/test-upstat.c - unit tests of the round trips per upstream server, on a fake clock. */

/*
 * upstat is told what sockets do and when; here the sockets are structs
 * and the times are numbers (µs since T0), so each round trip is known to
 * the microsecond and nothing touches the network or sleeps.  What it
 * counted is read back through upstat_foreach(), as the metrics read it.
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histo.h"
#include "upstat.h"

/* A monotonic clock is not 0 at boot; neither is this one. */
#define T0		UINT64_C(1000000000000)
#define MSG_MAX		512

/* Opens s and connects it to ip:port (IPv4, or IPv6 when ip has a colon). */
static void
sock_to(struct upstat *u, struct upstat_sock *s, bool tcp, const char *ip,
    unsigned port)
{
	struct sockaddr_in	sin = { .sin_family = AF_INET };
	struct sockaddr_in6	sin6 = { .sin6_family = AF_INET6 };

	upstat_open(u, s, tcp);
	if (strchr(ip, ':')) {
		sin6.sin6_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET6, ip, &sin6.sin6_addr), 1);
		upstat_connect(u, s, (struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		sin.sin_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
		upstat_connect(u, s, (struct sockaddr *)&sin, sizeof(sin));
	}
}

/* A DNS message of len bytes with this id (past the header: filler). */
static size_t
msg(uint8_t *p, uint16_t id, size_t len)
{
	size_t i;

	assert_true(len >= 2 && len <= MSG_MAX);
	p[0] = (uint8_t)(id >> 8);
	p[1] = (uint8_t)id;
	for (i = 2; i < len; i++)
		p[i] = (uint8_t)(0xa0 + i);
	return len;
}

/* The same on a stream: its 2-byte length, then the message. */
static size_t
frame(uint8_t *p, uint16_t id, size_t len)
{
	p[0] = (uint8_t)(len >> 8);
	p[1] = (uint8_t)len;
	return 2 + msg(p + 2, id, len);
}

static void
send_buf(struct upstat *u, struct upstat_sock *s, const uint8_t *p, size_t n,
    uint64_t t)
{
	struct iovec iov = { (void *)p, n };

	upstat_sent(u, s, &iov, 1, n, t);
}

struct found {
	const char		*name;
	struct upstat_server	 st;	/* zeroed when not listed */
	int			 listed;
	int			 n;	/* servers listed */
};

static void
found_cb(void *arg, const struct upstat_server *st)
{
	struct found *f = arg;

	f->n++;
	if (f->name && strcmp(st->server, f->name) == 0) {
		f->st = *st;
		f->listed++;
	}
}

/* What upstat_foreach() says of the server name. */
static struct upstat_server
server(const struct upstat *u, const char *name)
{
	struct found f = { .name = name };

	upstat_foreach(u, found_cb, &f);
	assert_in_range(f.listed, 0, 1);
	return f.st;
}

static bool
listed(const struct upstat *u, const char *name)
{
	struct found f = { .name = name };

	upstat_foreach(u, found_cb, &f);
	return f.listed == 1;
}

static int
nservers(const struct upstat *u)
{
	struct found f = { 0 };

	upstat_foreach(u, found_cb, &f);
	return f.n;
}

/* UDP: a reply takes the stamp of its id, and its RTT goes in its bucket. */
static void
test_udp_match(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 }, s2 = { 0 };
	struct upstat_server	 st;
	struct iovec		 iov[2];
	uint8_t			 q[MSG_MAX];
	uint64_t		 t = T0;
	uint64_t		 rtt1 = histo_bounds_us[4] + 1;	/* bucket 5 */
	uint64_t		 rtt2 = histo_bounds_us[1];	/* bucket 1: bounds are inclusive */

	assert_non_null(u);
	sock_to(u, &s, false, "192.0.2.1", 53);
	sock_to(u, &s2, false, "192.0.2.1", 53);
	assert_int_equal(nservers(u), 0);	/* nothing sent yet */

	send_buf(u, &s, q, msg(q, 0x1234, 40), t);
	st = server(u, "192.0.2.1:53");
	assert_int_equal(st.queries, 1);
	assert_int_equal(st.replies, 0);
	/* The same id from another socket of the same server is no reply. */
	upstat_received(u, &s2, q, msg(q, 0x1234, 60), t + 50);
	assert_int_equal(server(u, "192.0.2.1:53").replies, 0);

	upstat_received(u, &s, q, msg(q, 0x1234, 60), t + rtt1);
	st = server(u, "192.0.2.1:53");
	assert_int_equal(st.replies, 1);
	assert_int_equal(st.rtt.count, 1);
	assert_int_equal(st.rtt.sum_us, rtt1);
	assert_int_equal(st.rtt.bucket[5], 1);
	/* The stamp was taken: the same reply again counts for nothing. */
	upstat_received(u, &s, q, msg(q, 0x1234, 60), t + rtt1 + 1);
	assert_int_equal(server(u, "192.0.2.1:53").replies, 1);

	t += 1000000;
	send_buf(u, &s, q, msg(q, 7, 30), t);
	upstat_received(u, &s, q, msg(q, 7, 30), t + rtt2);
	st = server(u, "192.0.2.1:53");
	assert_int_equal(st.queries, 2);
	assert_int_equal(st.replies, 2);
	assert_int_equal(st.rtt.count, 2);
	assert_int_equal(st.rtt.bucket[1], 1);
	assert_int_equal(st.rtt.bucket[5], 1);
	assert_int_equal(st.rtt.sum_us, rtt1 + rtt2);

	/* One datagram in two iovecs, cut inside its id. */
	msg(q, 0x5678, 40);
	iov[0] = (struct iovec){ q, 1 };
	iov[1] = (struct iovec){ q + 1, 39 };
	upstat_sent(u, &s, iov, 2, 40, t + 100);
	upstat_received(u, &s, q, 40, t + 101);
	st = server(u, "192.0.2.1:53");
	assert_int_equal(st.queries, 3);
	assert_int_equal(st.replies, 3);
	assert_int_equal(upstat_stamps(u), 0);
	upstat_free(u);
}

/* A query sent again is stamped again: its round trip is from the last send. */
static void
test_retransmission(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	struct upstat_server	 st;
	uint8_t			 q[MSG_MAX];

	sock_to(u, &s, false, "2001:db8::53", 5353);
	send_buf(u, &s, q, msg(q, 9, 33), T0);
	send_buf(u, &s, q, msg(q, 9, 33), T0 + 2000000);
	assert_int_equal(upstat_stamps(u), 1);
	upstat_received(u, &s, q, msg(q, 9, 80), T0 + 2000000 + 40);
	st = server(u, "[2001:db8::53]:5353");
	assert_int_equal(st.queries, 2);
	assert_int_equal(st.replies, 1);
	assert_int_equal(st.rtt.count, 1);
	assert_int_equal(st.rtt.sum_us, 40);
	/* The answer to the first send, late: the stamp is gone. */
	upstat_received(u, &s, q, msg(q, 9, 80), T0 + 2000000 + 90);
	assert_int_equal(server(u, "[2001:db8::53]:5353").replies, 1);
	upstat_free(u);
}

/* A reply whose id was not sent on its socket is not counted. */
static void
test_unknown_id(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 }, loose = { 0 }, never = { 0 };
	struct upstat_server	 st;
	uint8_t			 q[MSG_MAX];

	unsigned		 id;

	sock_to(u, &s, false, "192.0.2.2", 53);
	send_buf(u, &s, q, msg(q, 0x0100, 40), T0);
	for (id = 0; id < 65536; id++)		/* every other id */
		if (id != 0x0100)
			upstat_received(u, &s, q, msg(q, (uint16_t)id, 40), T0 + 10);
	st = server(u, "192.0.2.2:53");
	assert_int_equal(st.replies, 0);
	assert_int_equal(st.rtt.count, 0);
	assert_int_equal(upstat_stamps(u), 1);	/* still waiting for its reply */

	/* A socket opened but not connected counts for no server. */
	upstat_open(u, &loose, false);
	send_buf(u, &loose, q, msg(q, 0x0100, 40), T0);
	upstat_received(u, &loose, q, msg(q, 0x0100, 40), T0 + 5);
	/* Nor does one never opened (zeroed). */
	send_buf(u, &never, q, msg(q, 0x0100, 40), T0);
	upstat_received(u, &never, q, msg(q, 0x0100, 40), T0 + 5);
	assert_int_equal(nservers(u), 1);
	assert_int_equal(server(u, "192.0.2.2:53").queries, 1);

	upstat_received(u, &s, q, msg(q, 0x0100, 40), T0 + 70);
	st = server(u, "192.0.2.2:53");
	assert_int_equal(st.replies, 1);
	assert_int_equal(st.rtt.sum_us, 70);
	upstat_close(u, &loose, T0);
	upstat_free(u);
}

/*
 * TCP: a message counts when its last byte is seen, wherever the stream is
 * cut: between two sends, between the iovecs of one send, by a short write
 * (n below the iovecs' total), between two reads.
 */
static void
test_tcp_split_everywhere(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	struct upstat_server	 st;
	struct iovec		 iov[3];
	uint8_t			 f[2 + MSG_MAX];
	uint64_t		 queries = 0, replies = 0, sum = 0, t = T0;
	size_t			 n, i, j;
	uint16_t		 id = 1;

	sock_to(u, &s, true, "192.0.2.3", 53);
	n = frame(f, 0, 29);
	/* Two sends, two reads, cut at k. */
	for (i = 0; i <= n; i++, id++, t += 1000) {
		frame(f, id, 29);
		send_buf(u, &s, f, i, t);
		assert_int_equal(server(u, "192.0.2.3:53").queries,
		    queries + (i == n));
		send_buf(u, &s, f + i, n - i, t);
		assert_int_equal(server(u, "192.0.2.3:53").queries, ++queries);

		frame(f, id, 29);
		upstat_received(u, &s, f, i, t + 10);
		assert_int_equal(server(u, "192.0.2.3:53").replies,
		    replies + (i == n));
		upstat_received(u, &s, f + i, n - i, t + 10 + i);
		sum += 10 + (i == n ? 0 : i);
		st = server(u, "192.0.2.3:53");
		assert_int_equal(st.replies, ++replies);
		assert_int_equal(st.rtt.sum_us, sum);
	}
	/* One send of three iovecs, cut at i and j. */
	for (i = 0; i <= n; i++)
		for (j = i; j <= n; j++, id++, t += 1000) {
			frame(f, id, 29);
			iov[0] = (struct iovec){ f, i };
			iov[1] = (struct iovec){ f + i, j - i };
			iov[2] = (struct iovec){ f + j, n - j };
			upstat_sent(u, &s, iov, 3, n, t);
			assert_int_equal(server(u, "192.0.2.3:53").queries, ++queries);
			upstat_received(u, &s, f, n, t + 5);
			assert_int_equal(server(u, "192.0.2.3:53").replies, ++replies);
		}
	/* A short write: i bytes of the whole went out, then the rest. */
	for (i = 1; i < n; i++, id++, t += 1000) {
		frame(f, id, 29);
		iov[0] = (struct iovec){ f, 7 };
		iov[1] = (struct iovec){ f + 7, n - 7 };
		upstat_sent(u, &s, iov, 2, i, t);
		assert_int_equal(server(u, "192.0.2.3:53").queries, queries);
		send_buf(u, &s, f + i, n - i, t);
		assert_int_equal(server(u, "192.0.2.3:53").queries, ++queries);
		upstat_received(u, &s, f, n, t + 5);
		assert_int_equal(server(u, "192.0.2.3:53").replies, ++replies);
	}
	assert_int_equal(upstat_stamps(u), 0);
	upstat_free(u);
}

/* TCP: several messages in one send, and in one read. */
static void
test_tcp_several_in_one(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	struct upstat_server	 st;
	struct iovec		 iov[2];
	uint8_t			 b[3 * MSG_MAX];
	size_t			 n = 0, cut;

	sock_to(u, &s, true, "192.0.2.4", 53);
	n += frame(b + n, 100, 40);
	n += frame(b + n, 101, 12);
	n += frame(b + n, 102, 300);
	send_buf(u, &s, b, n, T0);
	assert_int_equal(server(u, "192.0.2.4:53").queries, 3);
	assert_int_equal(upstat_stamps(u), 3);

	/* The replies in another order, the last one cut in two reads. */
	n = 0;
	n += frame(b + n, 102, 500);
	n += frame(b + n, 100, 60);
	cut = n + 20;
	n += frame(b + n, 101, 70);
	upstat_received(u, &s, b, cut, T0 + 100);
	st = server(u, "192.0.2.4:53");
	assert_int_equal(st.replies, 2);
	upstat_received(u, &s, b + cut, n - cut, T0 + 200);
	st = server(u, "192.0.2.4:53");
	assert_int_equal(st.replies, 3);
	assert_int_equal(st.rtt.sum_us, 100 + 100 + 200);

	/* Two queries in two iovecs cut inside the second one's length. */
	n = frame(b, 200, 33);
	cut = n + 1;
	n += frame(b + n, 201, 33);
	iov[0] = (struct iovec){ b, cut };
	iov[1] = (struct iovec){ b + cut, n - cut };
	upstat_sent(u, &s, iov, 2, n, T0 + 1000);
	assert_int_equal(server(u, "192.0.2.4:53").queries, 5);
	upstat_received(u, &s, b, n, T0 + 1001);
	assert_int_equal(server(u, "192.0.2.4:53").replies, 5);

	/* Each direction is followed on its own: half a query, half a reply. */
	send_buf(u, &s, b, frame(b, 300, 40), T0 + 2000);
	n = frame(b, 301, 40);
	send_buf(u, &s, b, 20, T0 + 2001);
	frame(b + MSG_MAX, 300, 50);
	upstat_received(u, &s, b + MSG_MAX, 30, T0 + 2002);
	send_buf(u, &s, b + 20, n - 20, T0 + 2003);
	assert_int_equal(server(u, "192.0.2.4:53").queries, 7);
	upstat_received(u, &s, b + MSG_MAX + 30, 52 - 30, T0 + 2004);
	upstat_received(u, &s, b, n, T0 + 2005);
	st = server(u, "192.0.2.4:53");
	assert_int_equal(st.replies, 7);
	assert_int_equal(st.rtt.sum_us, 400 + 1 + 1 + 4 + 2);
	upstat_free(u);
}

/* TCP: c-ares reads a reply's 2-byte length, then its body. */
static void
test_tcp_length_then_body(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	struct upstat_server	 st;
	uint8_t			 f[2 + MSG_MAX];
	static const size_t	 lens[] = { 12, 13, 255, 256, 512 };
	size_t			 i;

	sock_to(u, &s, true, "192.0.2.5", 853);
	for (i = 0; i < 5; i++)
		send_buf(u, &s, f, frame(f, (uint16_t)(0x4000 + i), 30), T0);
	for (i = 0; i < 5; i++) {
		frame(f, (uint16_t)(0x4000 + i), lens[i]);
		upstat_received(u, &s, f, 2, T0 + 10 * (i + 1));
		if (i % 2)	/* a short read of the body, too */
			upstat_received(u, &s, f + 2, 1, T0 + 10 * (i + 1));
		assert_int_equal(server(u, "192.0.2.5:853").replies, i);
		upstat_received(u, &s, f + 2 + i % 2, lens[i] - i % 2, T0 + 10 * (i + 1));
		assert_int_equal(server(u, "192.0.2.5:853").replies, i + 1);
	}
	st = server(u, "192.0.2.5:853");
	assert_int_equal(st.rtt.count, 5);
	assert_int_equal(st.rtt.sum_us, 10 + 20 + 30 + 40 + 50);
	upstat_free(u);
}

/*
 * A message shorter than a DNS header (12 bytes) has no id: it counts for
 * nothing, and on a stream the next message is still found.
 */
static void
test_short_messages(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 d = { 0 }, s = { 0 };
	uint8_t			 b[2 * MSG_MAX];
	size_t			 len, n;

	/* UDP: 11 bytes are nothing, 12 are a query. */
	sock_to(u, &d, false, "192.0.2.6", 53);
	send_buf(u, &d, b, msg(b, 0x0a0a, 11), T0);
	assert_false(listed(u, "192.0.2.6:53"));
	send_buf(u, &d, b, msg(b, 0x0a0a, 12), T0);
	assert_int_equal(server(u, "192.0.2.6:53").queries, 1);
	upstat_received(u, &d, b, msg(b, 0x0a0a, 11), T0 + 5);
	assert_int_equal(server(u, "192.0.2.6:53").replies, 0);
	upstat_received(u, &d, b, msg(b, 0x0a0a, 12), T0 + 6);
	assert_int_equal(server(u, "192.0.2.6:53").replies, 1);

	/*
	 * TCP: each length from 0 to 11, its first bytes those of a query
	 * in flight, then a real message.
	 */
	sock_to(u, &s, true, "192.0.2.7", 53);
	for (len = 0; len < 12; len++) {
		b[0] = 0;
		b[1] = (uint8_t)len;
		memset(b + 2, 0x0b, len);	/* "id" 0x0b0b when len >= 2 */
		n = 2 + len;
		n += frame(b + n, (uint16_t)(0x0c00 + len), 20);
		send_buf(u, &s, b, n, T0);
		assert_int_equal(server(u, "192.0.2.7:53").queries, len + 1);
	}
	send_buf(u, &s, b, frame(b, 0x0b0b, 20), T0);
	assert_int_equal(server(u, "192.0.2.7:53").queries, 13);
	for (len = 0; len < 12; len++) {
		b[0] = 0;
		b[1] = (uint8_t)len;
		memset(b + 2, 0x0b, len);
		n = 2 + len;
		n += frame(b + n, (uint16_t)(0x0c00 + len), 20);
		upstat_received(u, &s, b, n, T0 + 1);
		assert_int_equal(server(u, "192.0.2.7:53").replies, len + 1);
	}
	/* 0x0b0b is still waiting: no short message took its stamp. */
	upstat_received(u, &s, b, frame(b, 0x0b0b, 20), T0 + 2);
	assert_int_equal(server(u, "192.0.2.7:53").replies, 13);
	assert_int_equal(upstat_stamps(u), 0);
	upstat_free(u);
}

/*
 * A closed socket's stamps match nothing, on it or on the sockets after it,
 * even with the table full of the same id from closed sockets.
 */
static void
test_closed_socket(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	uint8_t			 q[MSG_MAX];
	unsigned		 i;

	sock_to(u, &s, false, "192.0.2.8", 53);
	send_buf(u, &s, q, msg(q, 77, 40), T0);
	upstat_close(u, &s, T0 + 1);
	assert_int_equal(upstat_stamps(u), 1);	/* dead, until it ages out */
	upstat_received(u, &s, q, msg(q, 77, 40), T0 + 2);
	assert_int_equal(server(u, "192.0.2.8:53").replies, 0);

	/* The next socket, in the same place (the same descriptor, say). */
	sock_to(u, &s, false, "192.0.2.8", 53);
	upstat_received(u, &s, q, msg(q, 77, 40), T0 + 3);
	assert_int_equal(server(u, "192.0.2.8:53").replies, 0);
	/* Its own query with that id does match. */
	send_buf(u, &s, q, msg(q, 77, 40), T0 + 4);
	upstat_received(u, &s, q, msg(q, 77, 40), T0 + 9);
	assert_int_equal(server(u, "192.0.2.8:53").replies, 1);
	assert_int_equal(server(u, "192.0.2.8:53").rtt.sum_us, 5);
	assert_int_equal(upstat_stamps(u), 1);	/* the dead one */
	upstat_close(u, &s, T0 + 10);

	for (i = 0; i < UPSTAT_STAMPS; i++) {
		sock_to(u, &s, false, "192.0.2.8", 53);
		send_buf(u, &s, q, msg(q, 77, 40), T0 + 20 + i);
		upstat_close(u, &s, T0 + 20 + i);
	}
	assert_int_equal(upstat_stamps(u), UPSTAT_STAMPS);
	sock_to(u, &s, false, "192.0.2.8", 53);
	upstat_received(u, &s, q, msg(q, 77, 40), T0 + 20 + i);
	assert_int_equal(server(u, "192.0.2.8:53").replies, 1);
	upstat_free(u);
}

/*
 * The stamps never pass UPSTAT_STAMPS, and the oldest make room.  Every id
 * of one socket: a set is the low bits of the id mixed with a constant of
 * the socket, so each set gets the same share, in the order sent, and keeps
 * the last ones: the last UPSTAT_STAMPS ids sent.
 */
static void
test_stamp_bound(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s = { 0 };
	struct upstat_server	 st;
	uint8_t			 q[MSG_MAX];
	unsigned		 id, first_kept = 65536 - UPSTAT_STAMPS;

	sock_to(u, &s, false, "192.0.2.9", 53);
	for (id = 0; id < 65536; id++) {
		send_buf(u, &s, q, msg(q, (uint16_t)id, 30), T0 + id);
		/* Every set filled one more place, up to the bound. */
		if (id % 1024 == 1023)
			assert_int_equal(upstat_stamps(u),
			    id + 1 < UPSTAT_STAMPS ? id + 1 : UPSTAT_STAMPS);
	}
	assert_int_equal(upstat_stamps(u), UPSTAT_STAMPS);
	for (id = 0; id < first_kept; id++)
		upstat_received(u, &s, q, msg(q, (uint16_t)id, 30), T0 + 65536);
	st = server(u, "192.0.2.9:53");
	assert_int_equal(st.queries, 65536);
	assert_int_equal(st.replies, 0);
	for (id = first_kept; id < 65536; id++)
		upstat_received(u, &s, q, msg(q, (uint16_t)id, 30), T0 + 65536);
	st = server(u, "192.0.2.9:53");
	assert_int_equal(st.replies, UPSTAT_STAMPS);
	assert_int_equal(st.rtt.sum_us, (uint64_t)UPSTAT_STAMPS * (UPSTAT_STAMPS + 1) / 2);
	assert_int_equal(upstat_stamps(u), 0);
	upstat_free(u);
}

static void
name_of(char *buf, size_t size, unsigned i)
{
	snprintf(buf, size, "198.51.100.%u", i + 1);
}

/* 17 servers, each with a socket open: the 17th is not counted. */
static void
test_servers_all_busy(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s[UPSTAT_SERVERS_MAX + 1] = { 0 }, again = { 0 };
	uint8_t			 q[MSG_MAX];
	char			 ip[32], key[64];
	unsigned		 i;

	for (i = 0; i <= UPSTAT_SERVERS_MAX; i++) {
		name_of(ip, sizeof(ip), i);
		sock_to(u, &s[i], false, ip, 53);
		send_buf(u, &s[i], q, msg(q, 1, 30), T0 + i);
	}
	assert_int_equal(nservers(u), UPSTAT_SERVERS_MAX);
	name_of(ip, sizeof(ip), UPSTAT_SERVERS_MAX);
	snprintf(key, sizeof(key), "%s:53", ip);
	assert_false(listed(u, key));

	/* One closes: the 17th's next socket takes its slot. */
	upstat_close(u, &s[3], T0 + 100);
	sock_to(u, &again, false, ip, 53);
	send_buf(u, &again, q, msg(q, 2, 30), T0 + 101);
	assert_int_equal(nservers(u), UPSTAT_SERVERS_MAX);
	assert_int_equal(server(u, key).queries, 1);
	assert_false(listed(u, "198.51.100.4:53"));
	upstat_free(u);
}

/*
 * Past UPSTAT_SERVERS_MAX servers, the one idle longest gives way; one
 * with a socket still open is not idle, whenever its others closed.  A
 * server that comes back starts from 0.
 */
static void
test_servers_longest_idle(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 s[UPSTAT_SERVERS_MAX] = { 0 }, extra = { 0 };
	struct upstat_sock	 n1 = { 0 }, n2 = { 0 };
	uint8_t			 q[MSG_MAX];
	char			 ip[32], key[64];
	unsigned		 i;

	for (i = 0; i < UPSTAT_SERVERS_MAX; i++) {
		name_of(ip, sizeof(ip), i);
		sock_to(u, &s[i], false, ip, 53);
		send_buf(u, &s[i], q, msg(q, 1, 30), T0);
	}
	/* Server 9 has a second socket, closed first of all. */
	name_of(ip, sizeof(ip), 9);
	sock_to(u, &extra, true, ip, 53);
	upstat_close(u, &extra, T0 + 1);
	/* Server 5 is closed next, the others later; 9's UDP socket stays. */
	upstat_close(u, &s[5], T0 + 2);
	for (i = 0; i < UPSTAT_SERVERS_MAX; i++)
		if (i != 5 && i != 9)
			upstat_close(u, &s[i], T0 + 10 + i);

	sock_to(u, &n1, false, "203.0.113.1", 53);
	send_buf(u, &n1, q, msg(q, 1, 30), T0 + 100);
	assert_int_equal(nservers(u), UPSTAT_SERVERS_MAX);
	assert_int_equal(server(u, "203.0.113.1:53").queries, 1);
	assert_false(listed(u, "198.51.100.6:53"));	/* server 5 */
	assert_true(listed(u, "198.51.100.10:53"));	/* server 9 */

	/* Server 5 comes back: server 0, idle longest now, gives way. */
	name_of(ip, sizeof(ip), 5);
	snprintf(key, sizeof(key), "%s:53", ip);
	sock_to(u, &n2, false, ip, 53);
	send_buf(u, &n2, q, msg(q, 1, 30), T0 + 200);
	assert_int_equal(server(u, key).queries, 1);
	assert_false(listed(u, "198.51.100.1:53"));
	assert_true(listed(u, "198.51.100.2:53"));
	assert_int_equal(nservers(u), UPSTAT_SERVERS_MAX);
	upstat_free(u);
}

/*
 * A reset zeroes the counts and drops the stamps; a server with a socket
 * open keeps its slot, and gives it up when the socket closes.
 */
static void
test_reset(void **state)
{
	struct upstat		*u = upstat_new();
	struct upstat_sock	 a = { 0 }, b = { 0 }, s[UPSTAT_SERVERS_MAX] = { 0 };
	struct upstat_server	 st;
	uint8_t			 q[MSG_MAX];
	char			 ip[32], key[64];
	unsigned		 i;

	sock_to(u, &a, false, "192.0.2.10", 53);
	sock_to(u, &b, false, "192.0.2.11", 53);
	send_buf(u, &a, q, msg(q, 1, 30), T0);
	upstat_received(u, &a, q, msg(q, 1, 30), T0 + 20);
	send_buf(u, &a, q, msg(q, 2, 30), T0 + 30);
	send_buf(u, &b, q, msg(q, 3, 30), T0 + 30);
	upstat_close(u, &b, T0 + 40);
	assert_int_equal(nservers(u), 2);
	assert_int_equal(upstat_stamps(u), 2);

	upstat_reset(u);
	assert_int_equal(nservers(u), 0);
	assert_int_equal(upstat_stamps(u), 0);
	/* The reply to a query sent before: not a round trip any more. */
	upstat_received(u, &a, q, msg(q, 2, 30), T0 + 50);
	assert_int_equal(nservers(u), 0);

	/* a's socket still counts, from 0. */
	send_buf(u, &a, q, msg(q, 4, 30), T0 + 60);
	upstat_received(u, &a, q, msg(q, 4, 30), T0 + 61);
	st = server(u, "192.0.2.10:53");
	assert_int_equal(st.queries, 1);
	assert_int_equal(st.replies, 1);
	assert_int_equal(st.rtt.count, 1);
	assert_int_equal(st.rtt.sum_us, 1);

	/*
	 * Its close leaves the slot idle: UPSTAT_SERVERS_MAX other servers,
	 * all with sockets open, are all counted.
	 */
	upstat_close(u, &a, T0 + 70);
	for (i = 0; i < UPSTAT_SERVERS_MAX; i++) {
		name_of(ip, sizeof(ip), i);
		sock_to(u, &s[i], false, ip, 53);
		send_buf(u, &s[i], q, msg(q, 1, 30), T0 + 80);
		snprintf(key, sizeof(key), "%s:53", ip);
		assert_true(listed(u, key));
	}
	assert_false(listed(u, "192.0.2.10:53"));
	assert_int_equal(nservers(u), UPSTAT_SERVERS_MAX);
	upstat_free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_match),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_tcp_split_everywhere),
		cmocka_unit_test(test_tcp_several_in_one),
		cmocka_unit_test(test_tcp_length_then_body),
		cmocka_unit_test(test_short_messages),
		cmocka_unit_test(test_closed_socket),
		cmocka_unit_test(test_stamp_bound),
		cmocka_unit_test(test_servers_all_busy),
		cmocka_unit_test(test_servers_longest_idle),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
