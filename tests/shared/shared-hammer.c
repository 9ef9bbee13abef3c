/* SPDX-License-Identifier: MIT */
/* tests/shared/shared-hammer.c - reader threads on the shared segment; every answer checked. */

/*
 * Usage: shared-hammer SOCKET SECONDS THREADS NHOSTS NVARY NDNS NNEG
 *
 * Threads look names up as the NSS module does: the shared segment first
 * (ncc_shared_lookup), the socket on a miss (ncc_pool_call).  Every
 * answer, from either, is decoded and checked against what the name must
 * resolve to; the driver (test_concurrency.py) makes the daemon publish,
 * reset, reload and restart meanwhile.  A miss or a failure of the socket
 * is allowed; a wrong answer, an answer that does not decode (torn), or a
 * held answer whose bytes change, never.
 *
 * Names and what they resolve to (the driver writes the same):
 *	h<i>.hosts.test	always in the hosts file: 10.1.i/256.i%256
 *	v<i>.hosts.test	in the hosts file or not, as the driver reloads it:
 *			10.2.i/256.i%256, or not found (DNS: NXDOMAIN)
 *	d<i>.dns.test	DNS: A 10.3.i/256.i%256, AAAA 2001:db8::3:i; asked
 *			in random case, and answered as spelled
 *	n<i>.neg.test	DNS: NXDOMAIN with an SOA
 * and the reverse of each 10.1 address: h<i>.hosts.test.
 *
 * Prints one line of counts; exits 1 when any answer was wrong.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "proto.h"
#include "shared.h"
#include "shmfmt.h"

#define MAX_THREADS	64
#define DNS_TTL_MAX	30	/* the driver's answers live 3 s or less */

enum { C_HOSTS, C_VARY, C_DNS, C_NEG, C_REV };

struct counts {
	unsigned long	lookups, hits, misses, socket_ok, socket_neg, socket_err,
			socket_other, held, wrong, torn;
};

static const char	*sock;
static double		 until;
static unsigned		 nhosts, nvary, ndns, nneg;
static pthread_mutex_t	 out_lock = PTHREAD_MUTEX_INITIALIZER;
static int		 reported;

struct worker {
	pthread_t	th;
	unsigned	id;
	uint64_t	rnd;
	struct counts	c;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
next(struct worker *w)
{
	w->rnd ^= w->rnd << 13;
	w->rnd ^= w->rnd >> 7;
	w->rnd ^= w->rnd << 17;
	return w->rnd;
}

static void
wrong(struct worker *w, const char *from, const char *what, const char *name,
    uint8_t family)
{
	w->c.wrong++;
	pthread_mutex_lock(&out_lock);
	if (reported++ < 20)
		fprintf(stderr, "WRONG (%s) %s: %s family %u\n", from, what, name,
		    family);
	pthread_mutex_unlock(&out_lock);
}

static void
v4(unsigned base, unsigned i, uint8_t a[4])
{
	a[0] = 10;
	a[1] = (uint8_t)base;
	a[2] = (uint8_t)(i >> 8);
	a[3] = (uint8_t)i;
}

static void
v6(unsigned i, uint8_t a[16])
{
	memset(a, 0, 16);
	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = 0xb8;
	a[13] = 3;
	a[14] = (uint8_t)(i >> 8);
	a[15] = (uint8_t)i;
}

struct ask {
	int		 cls;
	unsigned	 i;
	uint8_t		 family;
	char		 name[64];	/* as asked */
	char		 canon[64];	/* as it must come back */
	uint8_t		 addr[4];	/* for C_REV */
};

/* Whether an answer (status, body) is right for the question.  NULL: right. */
static const char *
check(const struct ask *q, unsigned status, const uint8_t *body, size_t len,
    uint32_t ttl_left, bool shared)
{
	struct proto_answer	 a;
	const uint8_t		*ap;
	uint8_t			 want4[4], want6[16], fam;
	size_t			 cur = 0;
	unsigned		 n4 = 0, n6 = 0;

	if (status == PROTO_NOTFOUND || status == PROTO_NODATA) {
		if (q->cls == C_NEG || q->cls == C_VARY)
			return status == PROTO_NOTFOUND ? NULL : "NODATA for a missing name";
		return "not found";
	}
	if (status != PROTO_OK)
		return "a status a shared record cannot have";
	if (q->cls == C_NEG)
		return "an answer for a name that does not exist";
	if (proto_answer_decode(body, len, &a) < 0)
		return "TORN";
	if (a.canon_len != strlen(q->canon) ||
	    memcmp(a.canon, q->canon, a.canon_len) != 0)
		return "canonical name";
	if (a.nalias != 0)
		return "aliases";
	if (shared && q->cls != C_DNS && ttl_left != 0)
		return "a hosts answer with a TTL";
	if (shared && q->cls == C_DNS && (ttl_left == 0 || ttl_left > DNS_TTL_MAX))
		return "TTL out of range";
	if (q->cls == C_REV)
		memcpy(want4, q->addr, 4);
	else
		v4(q->cls == C_HOSTS || q->cls == C_REV ? 1 : q->cls == C_VARY ? 2 : 3,
		    q->i, want4);
	v6(q->i, want6);
	while (proto_answer_next_addr(&a, &cur, &fam, &ap)) {
		if (fam == PROTO_AF_INET) {
			if (memcmp(ap, want4, 4) != 0)
				return "IPv4 address";
			n4++;
		} else {
			if (q->cls != C_DNS || memcmp(ap, want6, 16) != 0)
				return "IPv6 address";
			n6++;
		}
	}
	if (q->cls == C_REV)
		return n4 == 1 && n6 == 0 ? NULL : "address count (reverse)";
	switch (q->family) {
	case PROTO_AF_INET:
		return n4 == 1 && n6 == 0 ? NULL : "address count (IPv4)";
	case PROTO_AF_INET6:
		return n4 == 0 && n6 == 1 ? NULL : "address count (IPv6)";
	default:
		if (q->cls == C_DNS)
			return n4 == 1 && n6 == 1 ? NULL : "address count (both)";
		return n4 == 1 && n6 == 0 ? NULL : "address count (hosts, both)";
	}
}

static void
pick(struct worker *w, struct ask *q)
{
	static const uint8_t fams[] = { PROTO_AF_INET, PROTO_AF_UNSPEC, PROTO_AF_INET6 };
	uint64_t r = next(w);
	size_t k;

	memset(q, 0, sizeof(*q));
	q->cls = (int)(r % 10);
	q->cls = q->cls < 3 ? C_HOSTS : q->cls < 4 ? C_VARY : q->cls < 8 ? C_DNS :
	    q->cls < 9 ? C_NEG : C_REV;
	r >>= 8;
	switch (q->cls) {
	case C_HOSTS:
	case C_REV:
		q->i = (unsigned)(r % nhosts);
		snprintf(q->canon, sizeof(q->canon), "h%u.hosts.test", q->i);
		snprintf(q->name, sizeof(q->name), "%s", q->canon);
		q->family = fams[(r >> 20) % 2];
		if (q->cls == C_REV) {
			v4(1, q->i, q->addr);
			q->family = PROTO_AF_INET;
		}
		break;
	case C_VARY:
		q->i = (unsigned)(r % nvary);
		snprintf(q->canon, sizeof(q->canon), "v%u.hosts.test", q->i);
		snprintf(q->name, sizeof(q->name), "%s", q->canon);
		q->family = fams[(r >> 20) % 2];
		break;
	case C_DNS:
		q->i = (unsigned)(r % ndns);
		snprintf(q->name, sizeof(q->name), "d%u.dns.test", q->i);
		q->family = fams[(r >> 20) % 3];
		/* One lookup in four in another spelling, answered as spelled. */
		if ((r >> 24) % 4 == 0) {
			for (k = 0; q->name[k]; k++)
				if (q->name[k] >= 'a' && q->name[k] <= 'z' &&
				    (next(w) & 3) == 0)
					q->name[k] = (char)(q->name[k] - 32);
		}
		memcpy(q->canon, q->name, sizeof(q->canon));
		break;
	default:
		q->i = (unsigned)(r % nneg);
		snprintf(q->name, sizeof(q->name), "n%u.neg.test", q->i);
		if ((r >> 24) % 4 == 0)
			q->name[0] = 'N';
		q->family = fams[(r >> 20) % 3];
		break;
	}
	/* Hosts answers are published case-folded: any spelling finds them. */
	if ((q->cls == C_HOSTS || q->cls == C_VARY) && (r >> 30) % 4 == 0)
		q->name[0] = (char)(q->name[0] - 32);
}

static void
ask_socket(struct worker *w, const struct ask *q)
{
	uint8_t			 buf[PROTO_HDR_LEN + 4 + PROTO_NAME_MAX + 2];
	struct proto_wr		 wr;
	struct ncc_reply	 rep;
	const char		*bad;
	int			 len, r;

	proto_wr_init(&wr, buf, sizeof(buf));
	if (q->cls == C_REV)
		len = proto_lookup_addr_encode(&wr, ncc_next_id(), PROTO_AF_INET, q->addr);
	else
		len = proto_lookup_name_encode(&wr, ncc_next_id(), q->family, q->name);
	if (len < 0) {
		wrong(w, "socket", "cannot encode", q->name, q->family);
		return;
	}
	if ((r = ncc_pool_call(sock, buf, (size_t)len, 5000, &rep)) < 0) {
		w->c.socket_err++;
		return;
	}
	switch (rep.hdr.status) {
	case PROTO_OK:
	case PROTO_NOTFOUND:
	case PROTO_NODATA:
		if ((bad = check(q, rep.hdr.status, rep.body, rep.body_len, 0,
		    false)) != NULL)
			wrong(w, "socket", bad, q->name, q->family);
		else if (rep.hdr.status == PROTO_OK)
			w->c.socket_ok++;
		else
			w->c.socket_neg++;
		break;
	default:
		/* TRYAGAIN (upstream), BUSY: allowed, not an answer. */
		w->c.socket_other++;
		break;
	}
	ncc_reply_free(&rep);
}

static void
one(struct worker *w)
{
	struct ncc_shared_hit	 hit;
	struct ask		 q;
	const char		*bad;
	uint8_t			 copy[2048];
	int			 r;

	pick(w, &q);
	w->c.lookups++;
	if (q.cls == C_REV)
		r = ncc_shared_lookup(sock, SHM_ADDR, PROTO_AF_INET, q.addr, 4, &hit);
	else
		r = ncc_shared_lookup(sock, SHM_NAME, q.family, q.name,
		    strlen(q.name), &hit);
	if (r != 1) {
		w->c.misses++;
		ask_socket(w, &q);
		return;
	}
	w->c.hits++;
	if ((bad = check(&q, hit.status, hit.body, hit.body_len, hit.ttl_left,
	    true)) != NULL) {
		if (strcmp(bad, "TORN") == 0)
			w->c.torn++;
		wrong(w, "shared", bad, q.name, q.family);
	}
	/*
	 * Now and then, hold the answer a while (the daemon may replace the
	 * segment meanwhile): its bytes must not change, nor go away.
	 */
	if ((next(w) & 63) == 0 && hit.body_len <= sizeof(copy)) {
		struct timespec ts = { 0, 2000000 };

		memcpy(copy, hit.body, hit.body_len);
		nanosleep(&ts, NULL);
		if (memcmp(copy, hit.body, hit.body_len) != 0)
			wrong(w, "shared", "held answer changed", q.name, q.family);
		w->c.held++;
	}
	ncc_shared_release(&hit);
}

static void *
run(void *arg)
{
	struct worker *w = arg;

	do {
		int i;

		for (i = 0; i < 32; i++)
			one(w);
	} while (now() < until);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct worker	*ws;
	struct counts	 t = { 0 };
	unsigned	 n, i;

	if (argc != 8) {
		fprintf(stderr, "usage: shared-hammer SOCKET SECONDS THREADS NHOSTS "
		    "NVARY NDNS NNEG\n");
		return 2;
	}
	sock = argv[1];
	until = now() + atof(argv[2]);
	n = (unsigned)atoi(argv[3]);
	nhosts = (unsigned)atoi(argv[4]);
	nvary = (unsigned)atoi(argv[5]);
	ndns = (unsigned)atoi(argv[6]);
	nneg = (unsigned)atoi(argv[7]);
	if (n == 0 || n > MAX_THREADS || !nhosts || !nvary || !ndns || !nneg ||
	    nhosts > 65535 || nvary > 65535 || ndns > 65535) {
		fprintf(stderr, "shared-hammer: bad arguments\n");
		return 2;
	}
	if ((ws = calloc(n, sizeof(*ws))) == NULL)
		return 2;
	for (i = 0; i < n; i++) {
		ws[i].id = i;
		ws[i].rnd = (0x9e3779b97f4a7c15ULL * (i + 1)) ^
		    ((uint64_t)getpid() << 20) ^ 1;
		if (pthread_create(&ws[i].th, NULL, run, &ws[i]) != 0) {
			fprintf(stderr, "shared-hammer: pthread_create failed\n");
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(ws[i].th, NULL);
		t.lookups += ws[i].c.lookups;
		t.hits += ws[i].c.hits;
		t.misses += ws[i].c.misses;
		t.socket_ok += ws[i].c.socket_ok;
		t.socket_neg += ws[i].c.socket_neg;
		t.socket_err += ws[i].c.socket_err;
		t.socket_other += ws[i].c.socket_other;
		t.held += ws[i].c.held;
		t.wrong += ws[i].c.wrong;
		t.torn += ws[i].c.torn;
	}
	printf("pid=%d threads=%u lookups=%lu hits=%lu misses=%lu socket_ok=%lu "
	    "socket_neg=%lu socket_err=%lu socket_other=%lu held=%lu torn=%lu "
	    "wrong=%lu\n", (int)getpid(), n, t.lookups, t.hits, t.misses,
	    t.socket_ok, t.socket_neg, t.socket_err, t.socket_other, t.held, t.torn,
	    t.wrong);
	free(ws);
	ncc_shared_forget();
	ncc_pool_clear();
	return t.wrong ? 1 : 0;
}
