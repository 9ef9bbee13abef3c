/* SPDX-License-Identifier: MIT */
/* daemon/selfnss.c - glibc inside the daemon: never its nscd client, never the namecache module. */

/*
 * A lookup made inside the daemon (an LDAP module resolving its server,
 * a passwd module calling getgrnam, admin_group at a reload, on the loop)
 * must never reach the daemon: its loop may be the one that would have to
 * answer.  glibc sends such a lookup to nscd first (/run/nscd/socket: the
 * daemon's own with nscd_socket) unless the database's line was set by
 * the program, and walks the hosts line, which names namecache.  So the
 * process sets every line it may walk, namecache left out, first from
 * /etc/nsswitch.conf before the configuration is read (admin_group's
 * getgrnam), then from nsswitch_conf at every load.  The own-pid checks
 * of both sockets stay behind it as a second lock.
 */
#include <errno.h>
#include <nss.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "nsswitch.h"
#include "selfnss.h"

static const char *const dbs[] = { "hosts", "passwd", "group", "services",
    "netgroup" };
static bool pinned[sizeof(dbs) / sizeof(dbs[0])];

int
selfnss_pin(const char *path)
{
	struct nsw_line	 l;
	char		 text[1024];
	bool		 found;
	size_t		 i;
	int		 failed = 0, r;
	FILE		*f;

	for (i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		r = 0;
		if ((f = fopen(path, "re")) == NULL) {
			nsw_default_db(dbs[i], &l);	/* as glibc, without the file */
		} else {
			r = nsw_parse_file_db(f, dbs[i], &l, &found);
			fclose(f);
		}
		if (r < 0) {
			if (pinned[i]) {
				failed++;
				continue;
			}
			nsw_default_db(dbs[i], &l);
		}
		nsw_drop(&l, "namecache");
		nsw_format(&l, text, sizeof(text));
		if (__nss_configure_lookup(dbs[i], text) < 0) {
			log_warning("nsswitch: cannot set %s's line inside the "
			    "daemon (%s): %s", dbs[i], text, strerror(errno));
			failed++;
			continue;
		}
		pinned[i] = true;
	}
	return failed;
}
