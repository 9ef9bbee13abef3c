/* SPDX-License-Identifier: MIT */
/* cli/monitor.c - namecachectl monitor and metrics: what the daemon does, live and counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"

#define NAME_COL	28	/* names shorter than this are padded to it */

static void
json_event(const struct namecache_event *ev)
{
	static const char *const keys[] = { "frontend", "client", "command", "name",
	    "kind", "source", "cache", "result", "status" };
	const char *vals[] = { ev->frontend, ev->client, ev->command, ev->name,
	    ev->kind, ev->source, ev->cache, ev->result, ev->status };
	size_t i;

	printf("{\"time_us\":%lld,\"lost\":%llu", (long long)ev->time_us,
	    (unsigned long long)ev->lost);
	if (ev->frontend[0] == '\0') {
		printf("}\n");		/* a report of losses alone */
		return;
	}
	printf(",\"pid\":%d,\"uid\":%u,\"latency_us\":%u", ev->pid, ev->uid,
	    ev->latency_us);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		printf(",\"%s\":", keys[i]);
		json_cstr(stdout, vals[i]);
	}
	printf(",\"addresses\":[");
	for (i = 0; i < ev->naddresses; i++) {
		if (i)
			putchar(',');
		json_cstr(stdout, ev->addresses[i]);
	}
	printf("]}\n");
}

static const char *
cache_color(const char *cache)
{
	if (strcmp(cache, "hit") == 0 || strcmp(cache, "prefetch") == 0)
		return GREEN;
	if (strcmp(cache, "stale") == 0)
		return MAGENTA;
	return YELLOW;
}

/* Fixed columns, so a terminal's lines line up; the answer last, as wide as it is. */
static void
human_event(const struct namecache_event *ev)
{
	char		when[32], who[64], lat[16];
	struct tm	tm;
	time_t		t = (time_t)(ev->time_us / 1000000);

	if (ev->lost)
		printf("%s-- %llu lookups not shown: this monitor did not read fast "
		    "enough%s\n", RED, (unsigned long long)ev->lost, RESET);
	if (ev->frontend[0] == '\0')
		return;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (ev->client[0])
		snprintf(who, sizeof(who), "%s", ev->client);
	else
		snprintf(who, sizeof(who), "%d %s", ev->pid, ev->command);
	snprintf(lat, sizeof(lat), "%uus", ev->latency_us);
	printf("%s%s.%03d%s %-6s %-20.20s ", DIM, when, (int)(ev->time_us / 1000 % 1000),
	    RESET, ev->frontend, who);
	/* Names are as long as they are; the columns after them pad to line up. */
	print_safe(ev->name, strlen(ev->name));
	printf("%*s", strlen(ev->name) < NAME_COL ? (int)(NAME_COL - strlen(ev->name)) : 0,
	    "");
	printf(" %s%-9s%s %-10.10s %s%-9s%s %s%-9s%s %s%8s%s", CYAN, ev->kind, RESET,
	    ev->source, cache_color(ev->cache), ev->cache, RESET,
	    strcmp(ev->result, "failure") == 0 ? RED : BOLD, ev->result, RESET,
	    DIM, lat, RESET);
	for (size_t i = 0; i < ev->naddresses; i++) {
		putchar(' ');
		print_safe(ev->addresses[i], strlen(ev->addresses[i]));
	}
	putchar('\n');
}

int
cmd_monitor(void)
{
	struct namecache_monitor	*mon;
	const struct namecache_event	*ev;
	char				*why = NULL;
	int				 r;

	if ((r = namecache_monitor_open(socket_path, TIMEOUT_MS, &mon, &why)) < 0) {
		fprintf(stderr, "namecachectl: monitor: %s%s%s\n",
		    why ? why : namecache_strerror(r),
		    r == NAMECACHE_ERR_UNAVAILABLE ? ": " : "",
		    r == NAMECACHE_ERR_UNAVAILABLE ? socket_path : "");
		free(why);
		return r == NAMECACHE_ERR_UNAVAILABLE || r == NAMECACHE_ERR_TIMEOUT ?
		    EXIT_UNREACHABLE : EXIT_FAILED;
	}
	/* The header says what cannot be shown; JSON lines stay events only. */
	if (json)
		fprintf(stderr, "namecachectl: monitor: not shown: %s\n",
		    namecache_monitor_note(mon));
	else
		printf("%s-- Every lookup namecached answers, as it answers it.\n"
		    "-- Not shown: %s.%s\n%s%-12s %-6s %-20s %-*s %-9s %-10s %-9s %-9s "
		    "%8s ANSWER%s\n", DIM, namecache_monitor_note(mon), RESET, BOLD,
		    "TIME", "FROM", "CLIENT", NAME_COL, "NAME", "KIND", "SOURCE",
		    "CACHE", "RESULT", "LATENCY", RESET);
	fflush(stdout);
	for (;;) {
		/* Many events to one write; flushed once none is waiting. */
		if ((r = namecache_monitor_next(mon, 0, &ev)) == 0) {
			fflush(stdout);
			r = namecache_monitor_next(mon, -1, &ev);
		}
		if (r < 0)
			break;
		if (json)
			json_event(ev);
		else
			human_event(ev);
		if (ferror(stdout))
			break;
	}
	namecache_monitor_close(mon);
	if (ferror(stdout))
		return EXIT_FAILED;
	fprintf(stderr, "namecachectl: monitor: %s\n", namecache_strerror(r));
	return r == NAMECACHE_ERR_UNAVAILABLE ? EXIT_UNREACHABLE : EXIT_FAILED;
}

int
cmd_metrics(void)
{
	char	*text;
	size_t	 len;
	int	 r;

	if ((r = connect_daemon()) < 0)
		return -r;
	if ((r = namecache_metrics(ctx, TIMEOUT_MS, &text, &len)) < 0)
		return failed("metrics", r);
	fwrite(text, 1, len, stdout);
	free(text);
	return EXIT_OK;
}
