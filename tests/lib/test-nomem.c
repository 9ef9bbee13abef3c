/* SPDX-License-Identifier: MIT */
/* tests/lib/test-nomem.c - libnamecache when allocations fail: NAMECACHE_ERR_NOMEM, no leak, no crash. */

/*
 * The library's sources are linked in with -Wl,--wrap for malloc, calloc
 * and realloc, so this test can fail the Nth allocation the library makes.
 * For N = 1, 2, ... each scenario runs with its Nth allocation failing,
 * until one runs without reaching N: every run must end in success or
 * NAMECACHE_ERR_NOMEM, and (under ASan) leak nothing.  Run by
 * tests/lib/run.py like test-api: it starts its own daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <namecache.h>

void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
void	*__wrap_malloc(size_t);
void	*__wrap_calloc(size_t, size_t);
void	*__wrap_realloc(void *, size_t);

static long	fail_at;	/* 0: never */
static long	count;

static int
fail_now(void)
{
	return fail_at > 0 && ++count == fail_at;
}

void *
__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t m)
{
	return fail_now() ? NULL : __real_calloc(n, m);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

static char	dir[64], sock_path[128];
static pid_t	daemon_pid;

static int
setup(void **state)
{
	char	path[128];
	FILE	*f;
	int	fd, i;

	strcpy(dir, "/tmp/nc-nomem-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sock_path, sizeof(sock_path), "%s/sock", dir);
	snprintf(path, sizeof(path), "%s/hosts", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("10.1.0.1 hosta.api.test hosta\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/namecached.conf", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/resolv.conf", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("nameserver 127.0.0.1\noptions timeout:5 attempts:1\n", f);
	fclose(f);
	if ((daemon_pid = fork()) == 0) {
		char conf[128], hosts[128], resolv[128];

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(conf, sizeof(conf), "%s/namecached.conf", dir);
		snprintf(hosts, sizeof(hosts), "%s/hosts", dir);
		snprintf(resolv, sizeof(resolv), "%s/resolv.conf", dir);
		snprintf(conf, sizeof(conf), "%s/daemon.log", dir);
		fd = open(conf, O_WRONLY | O_CREAT | O_APPEND, 0644);
		snprintf(conf, sizeof(conf), "%s/namecached.conf", dir);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(getenv("NC_TEST_DAEMON"), "namecached", "--config", conf,
		    "--socket", sock_path, "--hosts-file", hosts, "--resolv-conf", resolv,
		    "--upstream", getenv("NC_TEST_UPSTREAM"), "--nsswitch-conf",
		    getenv("NC_TEST_NSSWITCH"), (char *)NULL);
		_exit(127);
	}
	/* Up to 30 s for its socket: longer means "hung". */
	for (i = 0; i < 3000; i++) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		int s = socket(AF_UNIX, SOCK_STREAM, 0), ok;

		strcpy(sun.sun_path, sock_path);
		ok = connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0;
		close(s);
		if (ok)
			break;
		usleep(10000);
	}
	assert_true(i < 3000);
	setenv("NAMECACHE_SOCKET", sock_path, 1);
	return 0;
}

/* The daemon's log holds no sanitizer report (printed if it does). */
static bool
log_clean(void)
{
	char	 path[128], line[4096];
	bool	 clean = true;
	FILE	*f;

	snprintf(path, sizeof(path), "%s/daemon.log", dir);
	if ((f = fopen(path, "r")) == NULL)
		return true;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "runtime error:") || strstr(line, "ERROR: AddressSanitizer") ||
		    strstr(line, "LeakSanitizer")) {
			printf("# sanitizer, in the daemon's log: %s", line);
			clean = false;
		}
	fclose(f);
	return clean;
}

static int
teardown(void **state)
{
	char cmd[128];
	int status;
	bool clean;

	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &status, 0);
	clean = log_clean();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 && clean && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void
on_answer(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	*(int *)arg = error;
	namecache_result_free(res);
}

/* One scenario: 0 or NAMECACHE_ERR_NOMEM. */
static int
scenario(int which)
{
	struct namecache_result	*res;
	struct namecache_values	*vals;
	struct namecache	*ctx;
	int			 r, got = 1;

	switch (which) {
	case 0:		/* blocking, through the socket */
		if ((r = namecache_lookup_name("hosta.api.test", AF_INET,
		    NAMECACHE_NO_SHARED, 5000, &res)) == 0)
			namecache_result_free(res);
		return r;
	case 1:		/* a context: a lookup, then statistics */
		if ((r = namecache_new(sock_path, &ctx)) < 0)
			return r;
		r = namecache_submit_name(ctx, "hosta.api.test", AF_INET,
		    NAMECACHE_NO_SHARED, 5000, on_answer, &got, NULL);
		if (r == 0 && (r = namecache_wait(ctx, 10000)) == 0)
			r = got;
		if (r == 0 && (r = namecache_statistics(ctx, 5000, &vals)) == 0)
			namecache_values_free(vals);
		namecache_free(ctx);
		return r;
	}
	return NAMECACHE_ERR_INVAL;
}

static void
allocation_failures(void **state)
{
	int which, r, nomem;

	for (which = 0; which < 2; which++) {
		nomem = 0;
		for (fail_at = 1; ; fail_at++) {
			count = 0;
			r = scenario(which);
			if (count < fail_at) {	/* no failure injected: the end */
				assert_int_equal(r, 0);
				break;
			}
			if (r != 0)
				assert_int_equal(r, NAMECACHE_ERR_NOMEM);
			nomem += r == NAMECACHE_ERR_NOMEM;
		}
		fail_at = 0;
		print_message("scenario %d: %ld allocations, %d failed with NOMEM\n",
		    which, count, nomem);
		assert_true(nomem > 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allocation_failures),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
