/* SPDX-License-Identifier: MIT */
/* tests/fuzz/store-seeds.c - writes fuzz-store's seeds: real stores, whole, cut short and bit-flipped. */

/*
 * Usage: store-seeds DIR.  A cache in a small store (4 KiB pages, 64
 * entries) is filled as the daemon fills it, with every kind it keeps:
 * addresses, a pair's halves, a PTR, records of query -t, the DNS
 * listener's wire records, an NSS module's answer, negative answers, a
 * failure, an expired answer (stale), and replaced and evicted entries
 * (dead bytes, a cleaned page).  Its file is then written to DIR as
 * fuzz-store inputs (a control byte, then the image; fuzz-store.c):
 * whole, with and without the checks; cut short at a dozen places; with
 * single bits flipped in the header, the slots, the records and the data.
 * The clock is fuzz-store's (FAKECLOCK_T0).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/fakeclock.h"
#include "cache.h"
#include "dnsmsg.h"
#include "proto.h"
#include "storefmt.h"

static size_t
answer(uint8_t *buf, size_t cap, const char *canon, const char *a4, const char *a6)
{
	struct proto_wr		w;
	struct proto_answer_wr	aw;
	uint8_t			addr[16];

	proto_wr_init(&w, buf, cap);
	proto_answer_begin(&aw, &w, 300, PROTO_SRC_DNS, canon, strlen(canon));
	if (a4 && inet_pton(AF_INET, a4, addr) == 1)
		proto_answer_addr(&aw, PROTO_AF_INET, addr);
	if (a6 && inet_pton(AF_INET6, a6, addr) == 1)
		proto_answer_addr(&aw, PROTO_AF_INET6, addr);
	if (proto_answer_end(&aw) < 0) {
		fprintf(stderr, "store-seeds: answer does not fit\n");
		exit(1);
	}
	return w.off;
}

static void
put(struct cache *c, const char *name, uint32_t kind, int status, uint32_t ttl,
    const void *data, size_t len)
{
	int r = cache_put(c, name, kind, status, ttl, data, len);

	if (r < 0) {
		fprintf(stderr, "store-seeds: put %s: %s\n", name, strerror(-r));
		exit(1);
	}
}

static void
write_seed(const char *dir, const char *name, uint8_t ctl, const uint8_t *img,
    size_t len)
{
	char	path[4096];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL || fputc(ctl, f) == EOF ||
	    (len && fwrite(img, 1, len, f) != len) || fclose(f) != 0) {
		fprintf(stderr, "store-seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	static const uint8_t	 kept[] = {
		/* answer section: www.seed.example. A 60 192.0.2.7 */
		1, 3, 'w', 'w', 'w', 4, 's', 'e', 'e', 'd', 7, 'e', 'x', 'a', 'm', 'p',
		'l', 'e', 0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 7,
	};
	struct cache_limits		 lim;
	struct cache_adopt_report	 rep;
	struct cache			*c;
	struct proto_wr			 w;
	struct proto_records_wr		 rw;
	struct stat			 st;
	uint8_t				 body[512], *img;
	char				 path[4096], name[64];
	size_t				 len, n, i;
	int				 fd;

	if (argc != 2) {
		fprintf(stderr, "usage: store-seeds DIR\n");
		return 2;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_entries = 64;
	lim.max_ttl = 86400;
	lim.negative_max_ttl = 3600;
	lim.failure_ttl = 5;
	lim.serve_stale = 86400;
	lim.store_page = 4096;
	snprintf(path, sizeof(path), "%s/.store-seeds.%d", argv[1], (int)getpid());
	fakeclock_at(0);
	if ((c = cache_new(&lim, fakeclock_now, NULL)) == NULL ||
	    cache_open_file(c, path, &rep) < 0) {
		fprintf(stderr, "store-seeds: no cache in %s\n", path);
		return 1;
	}
	/* Written a little before FAKECLOCK_T0: one answer is stale by then. */
	fakeclock_at(-5000);
	n = answer(body, sizeof(body), "stale.seed.example", "192.0.2.99", NULL);
	put(c, "stale.seed.example", DNS_T_A, CACHE_POSITIVE, 2, body, n);
	fakeclock_at(0);
	n = answer(body, sizeof(body), "www.seed.example", "192.0.2.1", "2001:db8::1");
	put(c, "www.seed.example", DNS_T_A, CACHE_POSITIVE, 300, body, n);
	put(c, "www.seed.example", CACHE_KIND_PAIR | DNS_T_A, CACHE_POSITIVE, 300, body, n);
	put(c, "www.seed.example", CACHE_KIND_PAIR | DNS_T_AAAA, CACHE_NODATA, 300, NULL, 0);
	n = answer(body, sizeof(body), "alias.seed.example", "192.0.2.2", NULL);
	put(c, "Mixed.Seed.Example", DNS_T_A, CACHE_POSITIVE, 600, body, n);
	put(c, "nx.seed.example", DNS_T_A, CACHE_NXDOMAIN, 60, NULL, 0);
	n = answer(body, sizeof(body), "host.seed.example", NULL, NULL);
	put(c, "1.2.0.192.in-addr.arpa", DNS_T_PTR, CACHE_POSITIVE, 300, body, n);
	proto_wr_init(&w, body, sizeof(body));
	proto_records_begin(&rw, &w, 300, PROTO_SRC_DNS);
	proto_records_add(&rw, "seed.example", DNS_T_MX, 300, "10 mx.seed.example");
	proto_records_end(&rw);
	put(c, "seed.example", CACHE_KIND_RR | DNS_T_MX, CACHE_POSITIVE, 300, body, w.off);
	put(c, "www.seed.example", CACHE_KIND_WIRE | DNS_T_A, CACHE_POSITIVE, 60,
	    kept, sizeof(kept));
	n = answer(body, sizeof(body), "myhost", "127.0.1.1", NULL);
	put(c, "myhost", CACHE_KIND_NSS | 1 << 8, CACHE_POSITIVE, 60, body, n);
	cache_put_failure(c, "down.seed.example", DNS_T_A, false);
	cache_put_failure(c, "www.seed.example", DNS_T_AAAA, true);
	/* Churn: replaced and evicted entries, so pages have dead bytes. */
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "churn%zu.seed.example", i % 90);
		n = answer(body, sizeof(body), name, "198.51.100.1", NULL);
		put(c, name, DNS_T_A, CACHE_POSITIVE, 120, body, n);
	}
	cache_free(c);		/* the file stays, as a stopped daemon's */

	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0 ||
	    (img = malloc((size_t)st.st_size)) == NULL ||
	    read(fd, img, (size_t)st.st_size) != st.st_size) {
		fprintf(stderr, "store-seeds: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	unlink(path);
	len = (size_t)st.st_size;
	write_seed(argv[1], "whole-checked", 1, img, len);
	write_seed(argv[1], "whole", 0, img, len);
	{
		static const size_t cuts[] = { 0, 7, 64, 4095, 4096, 4600, 8192,
		    8232, 9000, 12288, 16000 };

		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			if (cuts[i] >= len)
				continue;
			snprintf(name, sizeof(name), "cut-%zu", cuts[i]);
			write_seed(argv[1], name, 2, img, cuts[i]);
			snprintf(name, sizeof(name), "cut-%zu-checked", cuts[i]);
			write_seed(argv[1], name, 3, img, cuts[i]);
		}
	}
	{
		/* Bits in the header's sizes, slots, record headers and data. */
		static const size_t flips[] = { 8, 16, 64, 72, 80, 88, 96, 104,
		    4096 + 3, 4096 + 200, 4096 + 517, 8192 + 0, 8192 + 4, 8192 + 12,
		    8192 + 33, 8192 + 36, 8192 + 41, 8192 + 60, 8192 + 100, 12288 + 2,
		    12288 + 50, 16384 + 9 };

		for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
			if (flips[i] >= len)
				continue;
			img[flips[i]] ^= (uint8_t)(1u << (i % 8));
			snprintf(name, sizeof(name), "flip-%zu", flips[i]);
			write_seed(argv[1], name, 0, img, len);
			snprintf(name, sizeof(name), "flip-%zu-checked", flips[i]);
			write_seed(argv[1], name, 1, img, len);
			img[flips[i]] ^= (uint8_t)(1u << (i % 8));
		}
	}
	free(img);
	return 0;
}
