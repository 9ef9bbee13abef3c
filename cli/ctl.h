/* SPDX-License-Identifier: MIT */
/* cli/ctl.h - what namecachectl's commands share: options, output, the daemon. */
#ifndef NAMECACHECTL_CTL_H
#define NAMECACHECTL_CTL_H

#include <stdbool.h>
#include <stdio.h>

#include <namecache.h>	/* the public library, nothing private */

#define TIMEOUT_MS	20000

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* not found, or the lookup failed */
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,	/* no daemon to ask */
};

extern const char	*socket_path;
extern bool		 json;
extern bool		 color;
extern struct namecache	*ctx;

/* code when colour is on, else "". */
const char *on(const char *code);

#define BOLD	on("\033[1m")
#define DIM	on("\033[2m")
#define RED	on("\033[31m")
#define GREEN	on("\033[32m")
#define YELLOW	on("\033[33m")
#define MAGENTA	on("\033[35m")
#define CYAN	on("\033[36m")
#define RESET	on("\033[0m")

void	json_str(FILE *f, const char *s, size_t len);
void	json_cstr(FILE *f, const char *s);
/* Control bytes from the daemon never reach a terminal raw. */
void	print_safe(const char *s, size_t len);

/* ctx connected: 0, or -(exit status), the failure printed. */
int	connect_daemon(void);
/* What a failed request exits with, the failure printed. */
int	failed(const char *key, int r);

/* cli/monitor.c */
int	cmd_monitor(void);
int	cmd_metrics(void);

#endif
