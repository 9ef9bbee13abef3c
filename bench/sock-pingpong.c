/* SPDX-License-Identifier: MIT */
/*
 * bench/sock-pingpong.c - the bare Unix-socket round trip between two processes.
 *
 * A parent and a forked child share a connected AF_UNIX stream socket.  The
 * parent writes a REQ-byte request, the child reads it and writes a
 * REP-byte reply, the parent reads it: one round trip, timed.  No
 * protocol, no poll, no allocation: the reference that any lookup over a
 * socket pays at least ("a miss through the socket costs at most 1.3x the
 * bare round trip").  -p CPU pins both processes to that CPU.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

static int
xfer(int fd, char *buf, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char	 buf[65536];
	double	*t, sum = 0;
	int	 c, i, sv[2], n = 20000, warm = 200, cpu = -1;
	size_t	 req = 40, rep = 100;
	pid_t	 pid;

	while ((c = getopt(argc, argv, "n:p:q:r:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'p': cpu = atoi(optarg); break;
		case 'q': req = (size_t)atoi(optarg); break;
		case 'r': rep = (size_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: sock-pingpong [-n COUNT] [-p CPU] [-q REQBYTES] [-r REPBYTES]\n");
			return 2;
		}
	}
	if (n < 10 || req < 1 || rep < 1 || req > sizeof(buf) || rep > sizeof(buf) ||
	    (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	memset(buf, 'x', sizeof(buf));
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		while (xfer(sv[1], buf, req, 0) == 0 && xfer(sv[1], buf, rep, 1) == 0)
			;
		_exit(0);
	}
	close(sv[1]);
	for (i = -warm; i < n; i++) {
		double t0 = now();

		if (xfer(sv[0], buf, req, 1) < 0 || xfer(sv[0], buf, rep, 0) < 0) {
			fprintf(stderr, "sock-pingpong: the peer went away\n");
			return 1;
		}
		if (i >= 0) {
			t[i] = now() - t0;
			sum += t[i];
		}
	}
	close(sv[0]);
	waitpid(pid, NULL, 0);
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	printf("unix round trip %s median %8.2f us   p99 %8.2f us   mean %8.2f us   (n=%d, %zu/%zu bytes)\n",
	    cpu >= 0 ? "pinned" : "free  ", t[n / 2] * 1e6, t[n * 99 / 100] * 1e6,
	    sum / n * 1e6, n, req, rep);
	return 0;
}
