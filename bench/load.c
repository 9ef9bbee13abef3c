/* SPDX-License-Identifier: MIT */
/*
 * bench/load.c - many client processes of mixed hits, misses and admin reads.
 *
 * Forks PROCS workers.  Each opens its own connection to namecached and,
 * one request at a time (as an NSS client does), picks a kind at random:
 * a hit (a name from HITS: hosts names and DNS names the caller cached
 * first), a miss (a name never asked before, m<seq>-<worker>.MISSZONE,
 * which the caller's DNS server answers), or an admin read (STATISTICS or
 * STATUS).  A worker stops after COUNT requests or at the deadline,
 * whichever comes first, so every run is bounded in count and in time.
 *
 * Every request ends in exactly one of: answered (a reply of the right
 * type and id with status OK), an error (a reply with any other status: a
 * clear error), or lost (no reply within TIMEOUT ms, or the connection
 * closed under it; the worker then reconnects).  Latencies go into
 * log-linear histograms (about 3% wide) in memory shared with the parent,
 * which merges them and prints one line per kind, key=value, for
 * bench/load.py.  Exit status: 0 when nothing was lost and every worker
 * finished, 1 otherwise, 2 for usage errors.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

#define PROCS_MAX	1024
#define HITS_MAX	64
#define SUB_BITS	5			/* 32 buckets per power of two */
#define NBUCKETS	(64 << SUB_BITS)
#define RBUF		(PROTO_FRAME_MAX + PROTO_HDR_LEN)

enum kind { K_HIT, K_MISS, K_ADMIN, K_N };
static const char *kind_name[K_N] = { "hit", "miss", "admin" };

struct kstats {
	uint64_t	sent;
	uint64_t	answered;
	uint64_t	errors;
	uint64_t	lost;
	uint64_t	by_status[16];	/* errors by status; 15 holds the rest */
	uint64_t	lat_max;	/* ns */
	uint64_t	lat_sum;
	uint64_t	hist[NBUCKETS];
};

struct wstats {
	struct kstats	k[K_N];
	uint64_t	reconnects;
	uint64_t	sources[5];	/* answers to hits, by enum proto_source */
	int		done;
};

/* Shared with the workers: the deadline, then one slot each. */
struct shared {
	volatile uint64_t deadline;	/* ns, written before the start */
	struct wstats	 w[];
};

static const char	*sock_path;
static const char	*hits[HITS_MAX];
static int		 nhits;
static const char	*miss_zone;
static int		 mix[K_N] = { 80, 15, 5 };
static long		 count = 1000000;
static double		 seconds = 60;
static int		 timeout_ms = 5000;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Log-linear bucket of a latency: SUB_BITS bits below the leading one. */
static unsigned
bucket(uint64_t ns)
{
	unsigned e;

	if (ns < (1u << SUB_BITS))
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	return ((e - SUB_BITS + 1) << SUB_BITS) |
	    (unsigned)((ns >> (e - SUB_BITS)) & ((1u << SUB_BITS) - 1));
}

/* The middle of a bucket, in ns. */
static double
bucket_mid(unsigned b)
{
	unsigned	e = b >> SUB_BITS, m = b & ((1u << SUB_BITS) - 1);
	double		lo, w;

	if (e == 0)
		return m;
	lo = (double)((uint64_t)((1u << SUB_BITS) | m) << (e - 1));
	w = (double)(1ull << (e - 1));
	return lo + w / 2;
}

static uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int
conn_open(void)
{
	struct sockaddr_un	sun = { .sun_family = AF_UNIX };
	int			fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	strcpy(sun.sun_path, sock_path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/*
 * Reads the reply to request id.  Returns its status (>= 0), or -ETIMEDOUT,
 * -EPIPE (closed), -EBADMSG (a reply of the wrong type or id).
 */
static int
read_reply(int fd, uint8_t *buf, uint32_t id, uint8_t want_type, uint64_t deadline,
    uint8_t *ret_source)
{
	struct proto_hdr	h;
	size_t			have = 0, need = PROTO_HDR_LEN;
	ssize_t			n;

	while (have < need) {
		struct pollfd	pfd = { .fd = fd, .events = POLLIN };
		uint64_t	t = now_ns();
		int		ms = t >= deadline ? 0 : (int)((deadline - t) / 1000000u) + 1;

		if (poll(&pfd, 1, ms) == 0)
			return -ETIMEDOUT;
		n = recv(fd, buf + have, need - have, 0);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return -EPIPE;
		if (n < 0)
			continue;
		have += (size_t)n;
		if (have == PROTO_HDR_LEN && need == PROTO_HDR_LEN) {
			if (proto_hdr_decode(buf, have, &h) < 0)
				return -EBADMSG;
			need = h.len;
		}
	}
	proto_hdr_decode(buf, have, &h);
	if (h.id != id || h.type != (want_type | PROTO_REPLY))
		return -EBADMSG;
	if (ret_source && h.status == PROTO_OK && h.len > PROTO_HDR_LEN + 4)
		*ret_source = buf[PROTO_HDR_LEN + 4];	/* u32 ttl, then u8 source */
	return h.status;
}

static void
record(struct kstats *k, uint64_t ns)
{
	k->hist[bucket(ns)]++;
	k->lat_sum += ns;
	if (ns > k->lat_max)
		k->lat_max = ns;
}

static void
worker(int idx, int fd, struct wstats *ws, uint64_t deadline, uint64_t seed)
{
	static uint8_t	rbuf[RBUF];
	uint8_t		wbuf[PROTO_HDR_LEN + 8 + PROTO_NAME_MAX + 2];
	char		name[PROTO_NAME_MAX + 2] = "";
	uint64_t	rng = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(idx + 1));
	uint32_t	id = 0;
	long		i, nmiss = 0;

	for (i = 0; i < count && now_ns() < deadline; i++) {
		struct proto_wr	 w;
		struct kstats	*k;
		enum kind	 kind;
		uint8_t		 type, source = 0;
		uint64_t	 t0, r = xorshift(&rng) % 100;
		int		 len, st;

		kind = r < (uint64_t)mix[K_HIT] ? K_HIT :
		    r < (uint64_t)(mix[K_HIT] + mix[K_MISS]) ? K_MISS : K_ADMIN;
		k = &ws->k[kind];
		id++;
		proto_wr_init(&w, wbuf, sizeof(wbuf));
		if (kind == K_ADMIN) {
			type = (id & 1) ? PROTO_STATISTICS : PROTO_STATUS;
			len = proto_simple_encode(&w, type, id);
		} else {
			if (kind == K_HIT)
				snprintf(name, sizeof(name), "%s",
				    hits[xorshift(&rng) % (uint64_t)nhits]);
			else
				snprintf(name, sizeof(name), "m%ld-%d.%s", nmiss++, idx,
				    miss_zone);
			type = PROTO_LOOKUP_NAME;
			len = proto_lookup_name_encode(&w, id, PROTO_AF_INET, name);
		}
		if (len < 0) {
			fprintf(stderr, "load: cannot encode %s\n", name);
			_exit(2);
		}
		t0 = now_ns();
		k->sent++;
		if (send(fd, wbuf, (size_t)len, MSG_NOSIGNAL) != len)
			st = -EPIPE;
		else
			st = read_reply(fd, rbuf, id, type,
			    t0 + (uint64_t)timeout_ms * 1000000u,
			    kind == K_HIT ? &source : NULL);
		if (st == PROTO_OK) {
			k->answered++;
			record(k, now_ns() - t0);
			if (kind == K_HIT && source < 5)
				ws->sources[source]++;
		} else if (st > 0) {
			k->errors++;
			k->by_status[st < 15 ? st : 15]++;
			record(k, now_ns() - t0);
		} else {
			/* No reply, or not ours: the connection is out of step. */
			k->lost++;
			if (ws->reconnects < 5)
				fprintf(stderr, "load: worker %d: request %u (%s %s): %s\n",
				    idx, id, kind_name[kind], kind == K_ADMIN ? "" : name,
				    st == -ETIMEDOUT ? "no reply in time" :
				    st == -EPIPE ? "connection closed" : "wrong reply");
			close(fd);
			ws->reconnects++;
			if ((fd = conn_open()) < 0) {
				fprintf(stderr, "load: worker %d: reconnect: %s\n", idx,
				    strerror(-fd));
				_exit(1);
			}
		}
	}
	close(fd);
	ws->done = 1;
	_exit(0);
}

static double
percentile(const struct kstats *k, double p)
{
	uint64_t	n = k->answered + k->errors, seen = 0, want;
	unsigned	b;

	if (n == 0)
		return 0;
	want = (uint64_t)(p * (double)n);
	if (want >= n)
		want = n - 1;
	for (b = 0; b < NBUCKETS; b++) {
		seen += k->hist[b];
		if (seen > want)
			return bucket_mid(b);
	}
	return (double)k->lat_max;
}

static void
merge(struct kstats *to, const struct kstats *from)
{
	unsigned b;

	to->sent += from->sent;
	to->answered += from->answered;
	to->errors += from->errors;
	to->lost += from->lost;
	for (b = 0; b < 16; b++)
		to->by_status[b] += from->by_status[b];
	if (from->lat_max > to->lat_max)
		to->lat_max = from->lat_max;
	to->lat_sum += from->lat_sum;
	for (b = 0; b < NBUCKETS; b++)
		to->hist[b] += from->hist[b];
}

static void
print_kind(const char *what, const struct kstats *k, double secs)
{
	uint64_t	n = k->answered + k->errors;
	unsigned	b;

	printf("load: kind=%s sent=%llu answered=%llu errors=%llu lost=%llu "
	    "per_sec=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f "
	    "mean_us=%.1f", what, (unsigned long long)k->sent,
	    (unsigned long long)k->answered, (unsigned long long)k->errors,
	    (unsigned long long)k->lost, (double)n / secs,
	    percentile(k, 0.5) / 1e3, percentile(k, 0.9) / 1e3, percentile(k, 0.99) / 1e3,
	    percentile(k, 0.999) / 1e3, (double)k->lat_max / 1e3,
	    n ? (double)k->lat_sum / (double)n / 1e3 : 0.0);
	for (b = 1; b < 16; b++)
		if (k->by_status[b])
			printf(" status_%u=%llu", b, (unsigned long long)k->by_status[b]);
	printf("\n");
}

static void
usage(void)
{
	fprintf(stderr, "usage: load [-p PROCS] [-t SECONDS] [-n COUNT] [-m HIT,MISS,ADMIN] "
	    "[-T TIMEOUT_MS] [-s SEED] SOCKET HITS MISSZONE\n"
	    "  PROCS workers (100), each on its own connection, one request at a time,\n"
	    "  until COUNT requests each (1000000) or SECONDS (60); the mix in percent\n"
	    "  (80,15,5); HITS: comma-separated names the daemon answers without\n"
	    "  upstream (hosts, cached); a miss asks m<seq>-<worker>.MISSZONE\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct shared	*sh;
	struct wstats	*ws, total;
	struct kstats	 all;
	pid_t		*pids;
	uint64_t	 seed = 1, deadline, t0, t1, hard;
	char		*list, *tok, *save = NULL;
	int		 c, i, procs = 100, start[2], ready[2], failed = 0, unfinished = 0;
	unsigned	 kk;

	while ((c = getopt(argc, argv, "p:t:n:m:T:s:")) != -1) {
		switch (c) {
		case 'p': procs = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'n': count = atol(optarg); break;
		case 'm':
			if (sscanf(optarg, "%d,%d,%d", &mix[0], &mix[1], &mix[2]) != 3)
				usage();
			break;
		case 'T': timeout_ms = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (argc - optind != 3 || procs < 1 || procs > PROCS_MAX || count < 1 ||
	    seconds <= 0 || seconds > 3600 || timeout_ms < 1 || mix[0] < 0 || mix[1] < 0 ||
	    mix[2] < 0 || mix[0] + mix[1] + mix[2] != 100)
		usage();
	sock_path = argv[optind];
	if (strlen(sock_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		usage();
	if ((list = strdup(argv[optind + 1])) == NULL)
		return 1;
	for (tok = strtok_r(list, ",", &save); tok && nhits < HITS_MAX;
	    tok = strtok_r(NULL, ",", &save))
		hits[nhits++] = tok;
	miss_zone = argv[optind + 2];
	if (nhits == 0 && mix[K_HIT] > 0)
		usage();
	if (seed == 0)
		seed = 1;

	sh = mmap(NULL, sizeof(*sh) + sizeof(*ws) * (size_t)procs, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc((size_t)procs, sizeof(*pids));
	if (sh == MAP_FAILED || pids == NULL || pipe(start) < 0 || pipe(ready) < 0) {
		perror("load");
		return 1;
	}
	ws = sh->w;	/* zero-filled by mmap */
	fflush(stdout);
	/* Every worker connects, says so, then waits for the start: they begin together. */
	for (i = 0; i < procs; i++) {
		if ((pids[i] = fork()) < 0) {
			perror("load: fork");
			procs = i;
			failed = 1;
			break;
		}
		if (pids[i] == 0) {
			char	b;
			int	fd;

			close(start[1]);
			close(ready[0]);
			if ((fd = conn_open()) < 0) {
				fprintf(stderr, "load: worker %d: connect: %s\n", i, strerror(-fd));
				_exit(1);
			}
			b = 1;
			if (write(ready[1], &b, 1) != 1 || read(start[0], &b, 1) < 0)
				_exit(1);
			worker(i, fd, &ws[i], sh->deadline, seed);
		}
	}
	/* Wait until every worker is connected (or gone: EOF). */
	close(ready[1]);
	for (i = 0; i < procs; i++) {
		char b;

		if (read(ready[0], &b, 1) != 1)
			break;
	}
	close(ready[0]);
	t0 = now_ns();
	deadline = t0 + (uint64_t)(seconds * 1e9);
	sh->deadline = deadline;
	close(start[0]);
	close(start[1]);		/* EOF: go */
	hard = deadline + (uint64_t)timeout_ms * 1000000u + 10000000000u;
	for (i = 0; i < procs; i++) {
		int	status = 0;
		pid_t	w;

		while ((w = waitpid(pids[i], &status, WNOHANG)) == 0) {
			if (now_ns() > hard) {
				fprintf(stderr, "load: worker %d still running past the deadline: killed\n", i);
				kill(pids[i], SIGKILL);
				w = waitpid(pids[i], &status, 0);
				break;
			}
			usleep(20000);
		}
		if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	t1 = now_ns();

	memset(&total, 0, sizeof(total));
	memset(&all, 0, sizeof(all));
	for (i = 0; i < procs; i++) {
		if (!ws[i].done)
			unfinished++;
		for (kk = 0; kk < K_N; kk++)
			merge(&total.k[kk], &ws[i].k[kk]);
		total.reconnects += ws[i].reconnects;
		for (kk = 0; kk < 5; kk++)
			total.sources[kk] += ws[i].sources[kk];
	}
	for (kk = 0; kk < K_N; kk++)
		merge(&all, &total.k[kk]);
	printf("load: procs=%d seconds=%.3f count=%ld mix=%d,%d,%d timeout_ms=%d "
	    "reconnects=%llu unfinished=%d hit_sources=hosts:%llu,dns:%llu,cache:%llu,stale:%llu\n",
	    procs, (double)(t1 - t0) / 1e9, count, mix[0], mix[1], mix[2], timeout_ms,
	    (unsigned long long)total.reconnects, unfinished,
	    (unsigned long long)total.sources[PROTO_SRC_HOSTS],
	    (unsigned long long)total.sources[PROTO_SRC_DNS],
	    (unsigned long long)total.sources[PROTO_SRC_CACHE],
	    (unsigned long long)total.sources[PROTO_SRC_STALE]);
	for (kk = 0; kk < K_N; kk++)
		print_kind(kind_name[kk], &total.k[kk], (double)(t1 - t0) / 1e9);
	print_kind("total", &all, (double)(t1 - t0) / 1e9);
	free(pids);
	free(list);
	munmap(sh, sizeof(*sh) + sizeof(*ws) * (size_t)procs);
	return failed || unfinished || all.lost ? 1 : 0;
}
