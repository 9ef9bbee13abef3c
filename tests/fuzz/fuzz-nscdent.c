/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-nscdent.c - fuzz target: the keys and group replies of nscd's other databases. */

/*
 * The first byte picks what the rest is: a name key, a number key, a
 * services key (by name, by port), an INNETGR key, or a group reply
 * (read back, then merged with itself).  What is accepted must hold
 * what the daemon relies on: NUL-terminated names inside the key,
 * numbers that fit, fields inside the bytes given, merges that parse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nscd.h"
#include "nscdent.h"

static void
group(const uint8_t *p, size_t n)
{
	struct nscd_gr_view	v, m;
	uint8_t			*out;
	size_t			cap = 2 * n + 64;
	int			len;

	if (nscd_gr_view(p, n, &v) < 0)
		return;
	FUZZ_CHECK(v.name >= (const char *)p && v.name < (const char *)p + n);
	FUZZ_CHECK((const char *)v.members + v.members_len == (const char *)p + n);
	FUZZ_CHECK(strlen(v.name) + 1 == (size_t)v.hdr->name_len);
	if ((out = malloc(cap)) == NULL)
		return;
	len = nscd_gr_merge(&v, &v, out, cap);
	FUZZ_CHECK(len > 0);
	FUZZ_CHECK(nscd_gr_view(out, (size_t)len, &m) == 0);
	FUZZ_CHECK(m.hdr->mem_cnt == 2 * v.hdr->mem_cnt);
	FUZZ_CHECK(m.members_len == 2 * v.members_len);
	/* Too small a buffer is said, never overrun. */
	FUZZ_CHECK(nscd_gr_merge(&v, &v, out, (size_t)len - 1) == -E2BIG);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nscd_innetgr_key	 ik;
	struct nscd_serv_key	 sk;
	const uint8_t		*p = data + 1;
	uint32_t		 v;
	size_t			 n;
	uint8_t			*copy;

	if (size < 1)
		return 0;
	n = size - 1;
	/* A copy of exactly n bytes: a read past it is ASan's to see. */
	if ((copy = malloc(n ? n : 1)) == NULL)
		return 0;
	memcpy(copy, p, n);
	switch (data[0] % 6) {
	case 0:
		if (nscd_key_name(copy, n) == 0)
			FUZZ_CHECK(n >= 1 && strlen((char *)copy) == n - 1);
		break;
	case 1:
		if (nscd_key_number(copy, n, &v) == 0)
			FUZZ_CHECK(n >= 2 && n <= 11 && copy[0] >= '0' && copy[0] <= '9');
		break;
	case 2:
	case 3:
		if (nscd_key_serv(data[0] % 6 == 2 ? NSCD_GETSERVBYNAME :
		    NSCD_GETSERVBYPORT, copy, n, &sk) == 0) {
			FUZZ_CHECK(sk.crit[0] != '\0');
			FUZZ_CHECK(strlen(sk.crit) + strlen(sk.proto) + 2 == n);
		}
		break;
	case 4:
		if (nscd_key_innetgr(copy, n, &ik) == 0) {
			const char *f[] = { ik.netgroup, ik.host, ik.user, ik.domain };
			int i;

			for (i = 0; i < 4; i++)
				if (f[i]) {
					FUZZ_CHECK(f[i] >= (char *)copy &&
					    f[i] < (char *)copy + n);
					FUZZ_CHECK(f[i] + strlen(f[i]) < (char *)copy + n);
				}
		}
		break;
	default:
		group(copy, n);
		break;
	}
	free(copy);
	return 0;
}
