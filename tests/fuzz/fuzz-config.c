/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz-config.c - fuzz target: the namecached.conf parser. */

/*
 * The input is a configuration file, read through fmemopen as config_load
 * reads a real one.  A failure must come with a message naming the file;
 * a success must leave values within their documented bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	*c;
	FILE		*f;
	char		*copy, *err = NULL;
	int		 r;

	/* fmemopen wants a writable buffer; an exact copy keeps ASan precise. */
	if ((copy = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if ((c = config_new()) == NULL) {
		free(copy);
		return 0;
	}
	if ((f = fmemopen(copy, size, "r")) == NULL) {
		config_free(c);
		free(copy);
		return 0;
	}
	r = config_parse(c, f, "fuzz.conf", &err);
	fclose(f);
	if (r < 0) {
		FUZZ_CHECK(err != NULL && strncmp(err, "fuzz.conf", 9) == 0);
	} else {
		FUZZ_CHECK(err == NULL);
		FUZZ_CHECK(c->socket[0] == '/' && c->hosts_file[0] == '/' &&
		    c->resolv_conf[0] == '/');
		FUZZ_CHECK(c->nservers <= CONFIG_UPSTREAM_MAX);
		FUZZ_CHECK(c->cache_size >= 1 && c->cache_size <= 100000000);
		FUZZ_CHECK(c->max_ttl >= 1 && c->max_ttl <= 604800);
		FUZZ_CHECK(c->max_clients >= 1);
		free(err);
		err = NULL;
		r = config_check(c, &err);
		FUZZ_CHECK((r < 0) == (err != NULL));
	}
	free(err);
	config_free(c);
	free(copy);
	return 0;
}
