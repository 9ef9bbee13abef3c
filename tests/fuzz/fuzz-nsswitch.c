/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-nsswitch.c - fuzz target: the nsswitch.conf hosts: line parser. */

/*
 * The input is an nsswitch.conf, read through fmemopen as namecached reads
 * the real one.  On success the line is within its bounds, every name is a
 * NUL-terminated token with no blank or '[', every action is known, and
 * the line written out by nsw_format parses back to the same line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nsswitch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nsw_line	 l, again;
	char		*copy, text[NSW_SOURCES_MAX * (NSW_NAME_MAX + 64)];
	bool		 found;
	unsigned	 i, s;
	FILE		*f;
	int		 r;

	if ((copy = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if ((f = fmemopen(copy, size, "r")) == NULL) {
		free(copy);
		return 0;
	}
	r = nsw_parse_file(f, &l, &found);
	fclose(f);
	free(copy);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -E2BIG || r == -EIO);
		return 0;
	}
	FUZZ_CHECK(l.n <= NSW_SOURCES_MAX);
	for (i = 0; i < l.n; i++) {
		const char *n = l.src[i].name;

		FUZZ_CHECK(n[0] != '\0' && strlen(n) < NSW_NAME_MAX);
		for (; *n; n++)
			FUZZ_CHECK(!isspace((unsigned char)*n) && *n != '[');
		for (s = 0; s < NSW_NSTATUS; s++)
			FUZZ_CHECK(l.src[i].action[s] <= NSW_MERGE);
	}
	nsw_format(&l, text, sizeof(text));
	FUZZ_CHECK(nsw_parse_services(text, &again) == 0);
	FUZZ_CHECK(nsw_equal(&l, &again));
	nsw_drop(&l, "namecache");
	for (i = 0; i < l.n; i++)
		FUZZ_CHECK(strcmp(l.src[i].name, "namecache") != 0);
	return 0;
}
