/* SPDX-License-Identifier: MIT */
/* daemon/engine/search.c - the search list: the names a search tries, in glibc's res_nsearch order. */
#include <string.h>

#include "search.h"

int
search_names(const char *name, const char *const *domains, int ndots,
    char out[][PROTO_NAME_MAX + 2], bool *ret_asis_first)
{
	size_t	len = strlen(name), dl;
	int	dots = 0, n = 0, i;
	bool	as_is = false;

	*ret_asis_first = true;
	if (len > 0 && name[len - 1] == '.') {
		memcpy(out[0], name, len - 1);
		out[0][len - 1] = '\0';
		return 1;
	}
	for (i = 0; name[i]; i++)
		dots += name[i] == '.';
	if (dots >= ndots) {
		memcpy(out[n++], name, len + 1);
		as_is = true;
	}
	for (i = 0; domains[i] && n < SEARCH_NAMES_MAX - 1; i++) {
		dl = strlen(domains[i]);
		if (len + 1 + dl > PROTO_NAME_MAX)
			continue;
		memcpy(out[n], name, len);
		out[n][len] = '.';
		memcpy(out[n] + len + 1, domains[i], dl + 1);
		n++;
	}
	if (!as_is)
		memcpy(out[n++], name, len + 1);
	*ret_asis_first = as_is;
	return n;
}

bool
search_single(const char *name, const char *const *domains)
{
	size_t	len = strlen(name);
	int	i;

	if (len > 0 && name[len - 1] == '.')
		return true;
	for (i = 0; domains[i]; i++)
		if (len + 1 + strlen(domains[i]) <= PROTO_NAME_MAX)
			return false;
	return true;
}
