/* SPDX-License-Identifier: MIT */
/* daemon/sources/resolvconf.c - what resolv.conf says that c-ares 1.18 does not read: glibc's timeout and attempts. */
#include <stdlib.h>
#include <string.h>

#include "resolvconf.h"

void
resolvconf_timeouts(FILE *f, int *ret_timeout_ms, int *ret_attempts)
{
	char	*line = NULL, *tok, *save;
	size_t	 cap = 0;
	long	 v;

	*ret_timeout_ms = 5000;
	*ret_attempts = 2;
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		tok = strtok_r(line, " \t\n", &save);
		if (tok == NULL || strcmp(tok, "options") != 0)
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save)) != NULL) {
			if (strncmp(tok, "timeout:", 8) == 0) {
				v = strtol(tok + 8, NULL, 10);
				*ret_timeout_ms = (int)(v < 1 ? 1 : v > 30 ? 30 : v) * 1000;
			} else if (strncmp(tok, "attempts:", 9) == 0) {
				v = strtol(tok + 9, NULL, 10);
				*ret_attempts = (int)(v < 1 ? 1 : v > 5 ? 5 : v);
			}
		}
	}
	free(line);
}
