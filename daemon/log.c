/* SPDX-License-Identifier: MIT */
/* daemon/log.c - logging to stderr, with journald priority prefixes. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int	level = LOG_LEVEL_INFO;
static bool	journal;

void
log_init(void)
{
	const char		*js = getenv("JOURNAL_STREAM");
	unsigned long long	 dev, ino;
	struct stat		 st;

	/* JOURNAL_STREAM is "dev:ino" of the stream journald gave us. */
	journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 &&
	    st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

void
log_set_level(int l)
{
	level = l;
}

int
log_get_level(void)
{
	return level;
}

int
log_level_from_str(const char *s)
{
	if (strcmp(s, "error") == 0)
		return LOG_LEVEL_ERROR;
	if (strcmp(s, "warning") == 0)
		return LOG_LEVEL_WARNING;
	if (strcmp(s, "info") == 0)
		return LOG_LEVEL_INFO;
	if (strcmp(s, "debug") == 0)
		return LOG_LEVEL_DEBUG;
	return -1;
}

const char *
log_level_str(int l)
{
	switch (l) {
	case LOG_LEVEL_ERROR:	return "error";
	case LOG_LEVEL_WARNING:	return "warning";
	case LOG_LEVEL_INFO:	return "info";
	case LOG_LEVEL_DEBUG:	return "debug";
	}
	return "?";
}

void
log_msg(int l, const char *fmt, ...)
{
	char		 msg[1024], stamp[32];
	struct timespec	 ts;
	struct tm	 tm;
	va_list		 ap;
	int		 saved = errno;

	if (l > level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (journal)
		fprintf(stderr, "<%d>%s\n", l, msg);
	else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld namecached[%s]: %s\n", stamp,
		    ts.tv_nsec / 1000000, log_level_str(l), msg);
	}
	errno = saved;
}
