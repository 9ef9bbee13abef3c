/* SPDX-License-Identifier: MIT */
/* daemon/log.h - logging to stderr, with journald priority prefixes. */
#ifndef NAMECACHE_LOG_H
#define NAMECACHE_LOG_H

enum log_level {
	LOG_LEVEL_ERROR = 3,	/* the syslog priorities, for journald */
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Picks the format: "<N>" prefixes when stderr is journald's stream. */
void	log_init(void);
void	log_set_level(int level);
int	log_get_level(void);
/* "error", "warning", "info", "debug": the level, or -1. */
int	log_level_from_str(const char *);
const char *log_level_str(int level);

void	log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...)	log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...)	do { if (log_get_level() >= LOG_LEVEL_DEBUG) \
				log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__); } while (0)

#endif
