/* SPDX-License-Identifier: MIT */
/*
 * bench/spawn-loop.c - the whole cost of a new process doing one lookup.
 *
 *	spawn-loop [-n ROUNDS] [-w WARMUP] SPECFILE
 *
 * SPECFILE has one command a line, four fields separated by tabs:
 *	NAME	MOUNT-NS	ENV	ARGV
 * MOUNT-NS is a path such as /proc/PID/ns/mnt that the child enters with
 * setns() before execve(), or "-"; ENV is space-separated K=V added to this
 * environment, or "-"; ARGV is space-separated, an absolute path first.
 * Each round runs every command once, in turn, so that a machine whose
 * speed drifts (a VM, a neighbour) shifts all commands alike; each run is
 * timed from fork() to waitpid(), and a run that exits non-zero is an error.
 * Prints, per command: median, p99 and mean in microseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#define CMDS_MAX	32
#define ARGS_MAX	32

extern char **environ;

struct cmd {
	char	*name;
	int	 nsfd;
	char	*argv[ARGS_MAX + 1];
	char	*envp[ARGS_MAX + 256];
	double	*t;
};

static int
split(char *s, char **out, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(s, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save))
		out[n++] = tok;
	out[n] = NULL;
	return n;
}

static double
run(struct cmd *c)
{
	double	t0 = now();
	pid_t	pid = fork();
	int	st;

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		if (c->nsfd >= 0 && setns(c->nsfd, CLONE_NEWNS) < 0) {
			perror("setns");
			_exit(126);
		}
		if (chdir("/") < 0)
			_exit(126);
		execve(c->argv[0], c->argv, c->envp);
		perror(c->argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("waitpid");
		exit(1);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "spawn-loop: %s: exit status %d\n", c->name, st);
		exit(1);
	}
	return now() - t0;
}

int
main(int argc, char **argv)
{
	static struct cmd	 cmds[CMDS_MAX];
	static char		 line[8192];
	FILE			*f;
	int			 c, i, r, ncmds = 0, rounds = 300, warm = 10;

	while ((c = getopt(argc, argv, "n:w:")) != -1) {
		switch (c) {
		case 'n': rounds = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 1 || rounds < 10 || warm < 0)
		goto usage;
	if ((f = fopen(argv[optind], "r")) == NULL) {
		perror(argv[optind]);
		return 1;
	}
	while (fgets(line, sizeof(line), f) && ncmds < CMDS_MAX) {
		char *fld[4], *save = NULL, *p = strchr(line, '\n');
		struct cmd *k = &cmds[ncmds];
		int n = 0, e = 0;

		if (p)
			*p = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		for (p = strtok_r(line, "\t", &save); p && n < 4; p = strtok_r(NULL, "\t", &save))
			fld[n++] = p;
		if (n != 4) {
			fprintf(stderr, "spawn-loop: a line needs 4 tab-separated fields\n");
			return 2;
		}
		k->name = strdup(fld[0]);
		k->nsfd = -1;
		if (strcmp(fld[1], "-") != 0 && (k->nsfd = open(fld[1], O_RDONLY | O_CLOEXEC)) < 0) {
			perror(fld[1]);
			return 1;
		}
		if (strcmp(fld[2], "-") != 0)
			e = split(strdup(fld[2]), k->envp, ARGS_MAX);
		for (i = 0; environ[i] && e < ARGS_MAX + 255; i++) {
			size_t kl = strcspn(environ[i], "=");
			int j, dup = 0;

			for (j = 0; j < e && !dup; j++)
				dup = strncmp(k->envp[j], environ[i], kl + 1) == 0;
			if (!dup)
				k->envp[e++] = environ[i];
		}
		k->envp[e] = NULL;
		if (split(strdup(fld[3]), k->argv, ARGS_MAX) < 1 ||
		    (k->t = calloc((size_t)rounds, sizeof(double))) == NULL)
			return 2;
		ncmds++;
	}
	fclose(f);
	for (r = -warm; r < rounds; r++)
		for (i = 0; i < ncmds; i++) {
			double t = run(&cmds[i]);

			if (r >= 0)
				cmds[i].t[r] = t;
		}
	for (i = 0; i < ncmds; i++) {
		double sum = 0;

		for (r = 0; r < rounds; r++)
			sum += cmds[i].t[r];
		qsort(cmds[i].t, (size_t)rounds, sizeof(double), cmp);
		printf("%s\tmedian %.1f us\tp99 %.1f us\tmean %.1f us\tn=%d\n", cmds[i].name,
		    cmds[i].t[rounds / 2] * 1e6, cmds[i].t[rounds * 99 / 100] * 1e6,
		    sum / rounds * 1e6, rounds);
	}
	return 0;
usage:
	fprintf(stderr, "usage: spawn-loop [-n ROUNDS] [-w WARMUP] SPECFILE\n");
	return 2;
}
