/* SPDX-License-Identifier: MIT */
/* daemon/engine/nsswitch.c - the lines of nsswitch.conf, parsed as glibc parses them. */

/*
 * glibc (nss/nss_database.c, nss_action_parse.c, 2.33 and later) reads
 * nsswitch.conf line by line: leading blanks skipped, the database name
 * up to a blank or ':', then blanks and colons, then the service list.
 * There is no comment syntax of its own: a line "# x" names a database
 * "#", which is none, so it is skipped; a '#' inside a hosts line is a
 * source like any other, which no module answers (UNAVAIL).  A service
 * list that does not parse makes the whole file's load fail.  The last
 * line for a database wins.  Without one, hosts is "dns [!UNAVAIL=return]
 * files".
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nsswitch.h"

static void
source_defaults(struct nsw_source *s)
{
	int i;

	for (i = 0; i < NSW_NSTATUS; i++)
		s->action[i] = NSW_CONTINUE;
	s->action[NSW_SUCCESS] = NSW_RETURN;
}

static int
status_of(const char *p, size_t n)
{
	if (n == 7 && strncasecmp(p, "SUCCESS", 7) == 0)
		return NSW_SUCCESS;
	if (n == 7 && strncasecmp(p, "UNAVAIL", 7) == 0)
		return NSW_UNAVAIL;
	if (n == 8 && strncasecmp(p, "NOTFOUND", 8) == 0)
		return NSW_NOTFOUND;
	if (n == 8 && strncasecmp(p, "TRYAGAIN", 8) == 0)
		return NSW_TRYAGAIN;
	return -1;
}

static int
action_of(const char *p, size_t n)
{
	if (n == 6 && strncasecmp(p, "RETURN", 6) == 0)
		return NSW_RETURN;
	if (n == 8 && strncasecmp(p, "CONTINUE", 8) == 0)
		return NSW_CONTINUE;
	if (n == 5 && strncasecmp(p, "MERGE", 5) == 0)
		return NSW_MERGE;
	return -1;
}

static const char *
skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* A token ends at NUL, a blank, or one of stops. */
static const char *
token_end(const char *p, const char *stops)
{
	while (*p && !isspace((unsigned char)*p) && strchr(stops, *p) == NULL)
		p++;
	return p;
}

int
nsw_parse_services(const char *p, struct nsw_line *ret)
{
	struct nsw_line	 l;
	struct nsw_source *s, spare;
	const char	*name, *end;
	int		 st, act, i;
	bool		 neg, too_big = false;

	memset(&l, 0, sizeof(l));
	for (;;) {
		p = skip_ws(p);
		if (*p == '\0')
			break;
		name = p;
		p = token_end(p, "[");
		if (p == name)
			break;	/* a '[' with no source before it ends the list */
		if (l.n == NSW_SOURCES_MAX || (size_t)(p - name) >= NSW_NAME_MAX) {
			too_big = true;
			s = &spare;	/* parsed, then dropped */
		} else {
			s = &l.src[l.n++];
			memcpy(s->name, name, (size_t)(p - name));
		}
		source_defaults(s);
		p = skip_ws(p);
		if (*p != '[')
			continue;
		p = skip_ws(p + 1);
		do {
			if ((neg = *p == '!'))
				p++;
			end = token_end(p, "=]");
			if ((st = status_of(p, (size_t)(end - p))) < 0)
				return -EINVAL;
			p = skip_ws(end);
			if (*p != '=')
				return -EINVAL;
			p = skip_ws(p + 1);
			end = token_end(p, "=]");
			if ((act = action_of(p, (size_t)(end - p))) < 0)
				return -EINVAL;
			p = end;
			if (neg) {
				uint8_t keep = s->action[st];

				for (i = 0; i < NSW_NSTATUS; i++)
					s->action[i] = (uint8_t)act;
				s->action[st] = keep;
			} else
				s->action[st] = (uint8_t)act;
			p = skip_ws(p);
		} while (*p != ']');
		p++;
	}
	if (too_big)
		return -E2BIG;
	*ret = l;
	return 0;
}

void
nsw_default(struct nsw_line *ret)
{
	int r = nsw_parse_services(NSW_DEFAULT, ret);

	(void)r;
}

/* glibc's list of databases (nss/databases.def). */
static const char *const databases[] = { "aliases", "ethers", "group",
    "group_compat", "gshadow", "hosts", "initgroups", "netgroup", "networks",
    "passwd", "passwd_compat", "protocols", "publickey", "rpc", "services",
    "shadow", "shadow_compat", NULL };

int
nsw_parse_file_db(FILE *f, const char *db, struct nsw_line *ret, bool *ret_found)
{
	struct nsw_line	 l, cur;
	char		*line = NULL, *p, *name;
	size_t		 cap = 0, n, dblen = strlen(db), i;
	bool		 found = false;
	int		 r = 0;

	while (getline(&line, &cap, f) >= 0) {
		p = line;
		while (isspace((unsigned char)*p))
			p++;
		name = p;
		while (*p && !isspace((unsigned char)*p) && *p != ':')
			p++;
		if (*p == '\0' || p == name)
			continue;
		n = (size_t)(p - name);
		while (*p && (isspace((unsigned char)*p) || *p == ':'))
			p++;
		if (n != dblen || memcmp(name, db, n) != 0) {
			/*
			 * Another database's list must parse too, or glibc
			 * drops the whole file.
			 */
			for (i = 0; databases[i]; i++)
				if (strlen(databases[i]) == n &&
				    memcmp(name, databases[i], n) == 0)
					break;
			if (databases[i] && (r = nsw_parse_services(p, &cur)) == -EINVAL)
				goto done;
			r = 0;
			continue;
		}
		if ((r = nsw_parse_services(p, &cur)) < 0)
			goto done;
		l = cur;
		found = true;
	}
	/* Not the end: a read error, or getline's ENOMEM (no default then). */
	if (!feof(f)) {
		r = ferror(f) || errno == 0 ? -EIO : -errno;
		goto done;
	}
	if (!found)
		nsw_default_db(db, &l);
	*ret = l;
	*ret_found = found;
done:
	free(line);
	return r;
}

int
nsw_parse_file(FILE *f, struct nsw_line *ret, bool *ret_found)
{
	return nsw_parse_file_db(f, "hosts", ret, ret_found);
}

void
nsw_default_db(const char *db, struct nsw_line *ret)
{
	if (strcmp(db, "hosts") == 0)
		nsw_default(ret);
	else if (strcmp(db, "initgroups") == 0)
		ret->n = 0;	/* none: glibc walks the group line */
	else {
		/* glibc built without libnsl (Debian's): "files" */
		int r = nsw_parse_services("files", ret);

		(void)r;
	}
}

unsigned
nsw_drop(struct nsw_line *l, const char *name)
{
	unsigned i, j = 0, dropped = 0;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->src[i].name, name) == 0) {
			dropped++;
			continue;
		}
		if (j != i)
			l->src[j] = l->src[i];
		j++;
	}
	l->n = j;
	return dropped;
}

bool
nsw_equal(const struct nsw_line *a, const struct nsw_line *b)
{
	unsigned i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->src[i].name, b->src[i].name) != 0 ||
		    memcmp(a->src[i].action, b->src[i].action, NSW_NSTATUS) != 0)
			return false;
	return true;
}

void
nsw_format(const struct nsw_line *l, char *buf, size_t len)
{
	static const char *const sts[] = { "SUCCESS", "NOTFOUND", "UNAVAIL",
	    "TRYAGAIN" };
	static const char *const acts[] = { "continue", "return", "merge" };
	struct nsw_source def;
	size_t	 off = 0;
	unsigned i;
	int	 s, open;

	source_defaults(&def);
	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < l->n; i++) {
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
		    i ? " " : "", l->src[i].name);
		open = 0;
		for (s = 0; s < NSW_NSTATUS; s++) {
			if (l->src[i].action[s] == def.action[s])
				continue;
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0,
			    "%s%s=%s", open++ ? " " : " [", sts[s],
			    acts[l->src[i].action[s]]);
		}
		if (open)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "]");
		if (off >= len)
			return;
	}
}
