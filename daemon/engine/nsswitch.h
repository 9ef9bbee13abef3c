/* SPDX-License-Identifier: MIT */
/* daemon/engine/nsswitch.h - the lines of nsswitch.conf, parsed as glibc parses them. */
#ifndef NAMECACHE_NSSWITCH_H
#define NAMECACHE_NSSWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NSW_SOURCES_MAX	16	/* sources on one line; more is an error */
#define NSW_NAME_MAX	64	/* a source name's bytes, with the NUL */
#define NSW_DEFAULT	"dns [!UNAVAIL=return] files"	/* glibc's, for hosts */

/* The statuses of an NSS call, as nsswitch.conf names them. */
enum nsw_status {
	NSW_SUCCESS	= 0,
	NSW_NOTFOUND	= 1,
	NSW_UNAVAIL	= 2,
	NSW_TRYAGAIN	= 3,
	NSW_NSTATUS	= 4,
};

enum nsw_action {
	NSW_CONTINUE	= 0,
	NSW_RETURN	= 1,
	NSW_MERGE	= 2,	/* hosts has no merge: glibc returns, and so do we */
};

struct nsw_source {
	char	name[NSW_NAME_MAX];
	uint8_t	action[NSW_NSTATUS];	/* enum nsw_action, by enum nsw_status */
};

struct nsw_line {
	unsigned		n;
	struct nsw_source	src[NSW_SOURCES_MAX];
};

/*
 * Parses a service list ("files [NOTFOUND=return] dns") with glibc's
 * grammar: sources, each optionally followed by "[" ("!"? STATUS "="
 * ACTION)+ "]", names of statuses and actions in any case.  Returns 0 with
 * *ret filled, or -EINVAL for a list glibc rejects (*ret untouched), or
 * -E2BIG for more than NSW_SOURCES_MAX sources or a name too long.
 */
int	nsw_parse_services(const char *text, struct nsw_line *ret);

/*
 * Reads a whole nsswitch.conf: the last "hosts" line wins, as in glibc.
 * Sets *ret_found to whether there was one; without one, *ret is glibc's
 * default (NSW_DEFAULT).  Returns 0, or -EINVAL (a line glibc would reject,
 * which makes glibc reject the file) or a read error, *ret untouched.
 */
int	nsw_parse_file(FILE *f, struct nsw_line *ret, bool *ret_found);

/*
 * The same for database db ("passwd", "group", "initgroups", ...).  With
 * no line, glibc's default (built without libnsl, as Debian's): "files",
 * and for initgroups none (n = 0: glibc walks the group line instead).
 */
int	nsw_parse_file_db(FILE *f, const char *db, struct nsw_line *ret,
	    bool *ret_found);
/* glibc's default hosts line. */
void	nsw_default(struct nsw_line *ret);
void	nsw_default_db(const char *db, struct nsw_line *ret);

/* Removes every source called name, with its actions.  Returns how many. */
unsigned nsw_drop(struct nsw_line *, const char *name);

bool	nsw_equal(const struct nsw_line *, const struct nsw_line *);

/* The line as text, with every action that is not the default written out. */
void	nsw_format(const struct nsw_line *, char *buf, size_t len);

/* enum nsw_action for status after source i. */
static inline int
nsw_action(const struct nsw_line *l, unsigned i, int status)
{
	return l->src[i].action[status];
}

#endif
