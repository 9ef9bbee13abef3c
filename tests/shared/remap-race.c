/* SPDX-License-Identifier: MIT */
/*
 * tests/shared/remap-race.c - the reader's hold against the remapper's sweep.
 *
 * Usage: remap-race SECONDS READERS
 *
 * A segment made with daemon/engine/shm.c (in this process) holds one name; READERS
 * threads look it up as the NSS module does, read the answer while
 * holding it, and let it go, while the main thread maps the segment anew
 * in a loop (ncc_shared_test_remap: what a reader does when the daemon
 * replaces the file, and every time a sweep of the old mappings), and,
 * every 64 remaps, the daemon's side replaces the file itself.  client-lib's
 * shared.c is compiled in with NCC_SHARED_TESTING, which counts hits whose
 * mapping was unmapped while they held it: the store-then-load race of
 * issue 12, which acquire/release order allows and seq_cst forbids.  Any
 * such hit fails the test (exit 1); so does an answer with the wrong bytes.
 * Prints the counts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "shared.h"
#include "shm.h"
#include "shmfmt.h"

static char		 sock[256];
static atomic_bool	 stop;
static atomic_ulong	 hits, misses, wrong, remaps;
static uint8_t		 body[64];
static size_t		 body_len;

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
reader(void *arg)
{
	struct ncc_shared_hit	hit;
	volatile uint8_t	sum;
	size_t			i;

	while (!atomic_load(&stop)) {
		if (!ncc_shared_lookup(sock, SHM_NAME, PROTO_AF_INET, "race.test", 9, &hit)) {
			atomic_fetch_add(&misses, 1);
			continue;
		}
		/* Read it all, as a caller copying the answer would. */
		for (i = 0, sum = 0; i < hit.body_len; i++)
			sum += hit.body[i];
		if (hit.body_len != body_len || memcmp(hit.body, body, body_len) != 0)
			atomic_fetch_add(&wrong, 1);
		ncc_shared_release(&hit);
		atomic_fetch_add(&hits, 1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct proto_answer_wr	 aw;
	struct proto_wr		 w;
	struct shm		*s;
	pthread_t		 t[16];
	char			 dir[] = "/tmp/nc-race-XXXXXX", path[300];
	int64_t			 end;
	int			 i, nreaders;
	unsigned long		 bad;

	if (argc != 3 || (nreaders = atoi(argv[2])) < 1 || nreaders > 16) {
		fprintf(stderr, "usage: remap-race SECONDS READERS(1-16)\n");
		return 2;
	}
	if (mkdtemp(dir) == NULL)
		return 2;
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	if (shm_path(sock, path, sizeof(path)) < 0 ||
	    (s = shm_new(path, 64, 64 * 1024)) == NULL) {
		perror("shm_new");
		return 2;
	}
	proto_wr_init(&w, body, sizeof(body));
	proto_answer_begin(&aw, &w, 0, PROTO_SRC_HOSTS, "race.test", 9);
	proto_answer_addr(&aw, PROTO_AF_INET, "\xc0\x00\x02\x07");
	proto_answer_end(&aw);
	body_len = w.off;
	shm_heartbeat(s, now_ns());
	shm_put(s, SHM_NAME, PROTO_AF_INET, "race.test", 9, false, PROTO_OK, SHM_FOREVER,
	    0, body, body_len);
	for (i = 0; i < nreaders; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	end = now_ns() + (int64_t)(atof(argv[1]) * 1e9);
	while (now_ns() < end) {
		if (ncc_shared_test_remap(sock))
			atomic_fetch_add(&remaps, 1);
		if ((atomic_load(&remaps) & 63) == 0 && shm_reset(s) == 0) {
			shm_heartbeat(s, now_ns());
			shm_put(s, SHM_NAME, PROTO_AF_INET, "race.test", 9, false,
			    PROTO_OK, SHM_FOREVER, 0, body, body_len);
		}
	}
	atomic_store(&stop, true);
	for (i = 0; i < nreaders; i++)
		pthread_join(t[i], NULL);
	bad = ncc_shared_test_held_unmapped();
	printf("remap-race: %lu remaps, %lu hits, %lu misses, "
	    "%lu wrong, %lu held and unmapped\n", atomic_load(&remaps),
	    atomic_load(&hits), atomic_load(&misses), atomic_load(&wrong), bad);
	ncc_shared_forget();
	shm_free(s, SHM_LEAVE_GONE);
	rmdir(dir);
	return bad || atomic_load(&wrong) || atomic_load(&hits) == 0 ? 1 : 0;
}
