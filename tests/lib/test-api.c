/* SPDX-License-Identifier: MIT */
/* tests/lib/test-api.c - libnamecache's public API against a real namecached and a fake one. */

/*
 * Run by tests/lib/run.py, which starts a DNS fault server on 127.0.0.1
 * and passes NC_TEST_UPSTREAM (its address), NC_TEST_DAEMON (namecached)
 * and NC_TEST_OK_NAMES.  The server answers okN.api.test with A
 * 10.0.N/256.N%256, nx.api.test with NXDOMAIN, nodata.api.test with
 * NODATA, fail.api.test with SERVFAIL, and nothing else at all: every
 * other name is black-holed.  This test starts the daemon itself (so it
 * can restart it), with its own hosts file, resolv.conf and --upstream,
 * and a fake daemon of its own that accepts and then answers as told, or
 * never.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <namecache.h>

#define BLACKHOLED	100
/*
 * Every wait for something that comes (an answer, a daemon's socket) is
 * bounded by this: missing it means "hung", never "slow".  A lookup that
 * is meant to time out says its own, short, timeout.
 */
#define HUNG_MS		30000

static char	 dir[64];
static char	 sock_path[128], fake_path[128], none_path[128];
static pid_t	 daemon_pid = -1;
static int	 ok_names;

/* --- helpers ---------------------------------------------------------------- */

static void
pathf(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void
write_file(const char *name, const char *text)
{
	char	 path[128];
	FILE	*f;

	pathf(path, sizeof(path), name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
can_connect(const char *path)
{
	struct sockaddr_un	sun = { .sun_family = AF_UNIX };
	int			fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool			ok;

	strcpy(sun.sun_path, path);
	ok = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	close(fd);
	return ok;
}

static void
daemon_start(void)
{
	char	conf[128], hosts[128], resolv[128], log[128];
	int64_t	deadline;
	int	fd;

	pathf(conf, sizeof(conf), "namecached.conf");
	pathf(hosts, sizeof(hosts), "hosts");
	pathf(resolv, sizeof(resolv), "resolv.conf");
	pathf(log, sizeof(log), "daemon.log");
	daemon_pid = fork();
	assert_true(daemon_pid >= 0);
	if (daemon_pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(getenv("NC_TEST_DAEMON"), "namecached", "--config", conf,
		    "--socket", sock_path, "--hosts-file", hosts, "--resolv-conf", resolv,
		    "--upstream", getenv("NC_TEST_UPSTREAM"), "--nsswitch-conf",
		    getenv("NC_TEST_NSSWITCH"), (char *)NULL);
		_exit(127);
	}
	for (deadline = now_ms() + HUNG_MS; now_ms() < deadline; usleep(10000))
		if (can_connect(sock_path))
			return;
	fail_msg("namecached did not start");
}

/*
 * Whether the daemon's log is free of sanitizer reports (a report that
 * let it go on, or one its exit status would not show), printing any.
 */
static bool
log_clean(void)
{
	char	 path[128], line[4096];
	bool	 clean = true;
	FILE	*f;

	pathf(path, sizeof(path), "daemon.log");
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

static void
daemon_stop(void)
{
	int status;

	assert_true(daemon_pid > 0);
	kill(daemon_pid, SIGTERM);
	assert_int_equal(waitpid(daemon_pid, &status, 0), daemon_pid);
	daemon_pid = -1;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(log_clean());
}

/*
 * The fake daemon: a child that accepts one connection at a time and, for
 * each request frame, replies with status (the frame's type | 0x80 and
 * its id) and fake_body, or never replies (status < 0), or replies bytes
 * that break the framing (status FAKE_GARBAGE).
 */
#define FAKE_SILENT	-1
#define FAKE_GARBAGE	-2

static const uint8_t	*fake_body;	/* set before fake_start, or NULL */
static size_t		 fake_body_len;

static pid_t
fake_start(int status)
{
	struct sockaddr_un	sun = { .sun_family = AF_UNIX };
	uint8_t			hdr[12], body[65536];
	uint32_t		len;
	pid_t			pid;
	int			lfd, fd;

	unlink(fake_path);
	strcpy(sun.sun_path, fake_path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(lfd, 16), 0);
	assert_true((pid = fork()) >= 0);
	if (pid > 0) {
		close(lfd);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlives the test */
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		/* A process a connection: a silent one must not hold up the next. */
		if ((pid = fork()) != 0) {
			close(fd);
			continue;
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(lfd);
		while (recv(fd, hdr, 12, MSG_WAITALL) == 12) {
			len = (uint32_t)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 | hdr[3];
			if (len < 12 || len > sizeof(body) ||
			    (len > 12 && recv(fd, body, len - 12, MSG_WAITALL) != (ssize_t)(len - 12)))
				break;
			if (status == FAKE_SILENT)
				continue;
			if (status == FAKE_GARBAGE) {
				hdr[4] = 9;	/* a version nobody speaks */
			} else {
				len = 12 + (uint32_t)fake_body_len;
				hdr[0] = (uint8_t)(len >> 24);
				hdr[1] = (uint8_t)(len >> 16);
				hdr[2] = (uint8_t)(len >> 8);
				hdr[3] = (uint8_t)len;
				hdr[5] |= 0x80;
				hdr[6] = 0;
				hdr[7] = (uint8_t)status;
			}
			if (send(fd, hdr, 12, MSG_NOSIGNAL | (fake_body_len ? MSG_MORE : 0)) !=
			    12 || (status != FAKE_GARBAGE && fake_body_len &&
			    send(fd, fake_body, fake_body_len, MSG_NOSIGNAL) !=
			    (ssize_t)fake_body_len))
				break;
		}
		_exit(0);
	}
	_exit(0);
}

static void
fake_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(fake_path);
}

/* What a callback saw. */
struct seen {
	int			 calls;
	int			 error;
	struct namecache_result	*result;
	struct namecache_query	*query;
};

static void
on_answer(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct seen *s = arg;

	s->calls++;
	s->error = error;
	s->query = q;
	namecache_result_free(s->result);
	s->result = res;
}

static void
seen_clear(struct seen *s)
{
	namecache_result_free(s->result);
	memset(s, 0, sizeof(*s));
}

/* Processes ctx until s has been called, or the deadline: returns its calls. */
static int
until_called(struct namecache *ctx, struct seen *s, int ms)
{
	int64_t		deadline = now_ms() + ms;
	struct pollfd	pfd;
	int		t;

	while (s->calls == 0 && now_ms() < deadline) {
		pfd.fd = namecache_fd(ctx);
		pfd.events = namecache_events(ctx);
		t = namecache_timeout(ctx);
		if (t < 0 || t > 50)
			t = 50;
		poll(&pfd, pfd.fd >= 0 ? 1 : 0, t);
		namecache_process(ctx);
	}
	return s->calls;
}

static const char *
addr0(const struct namecache_result *r, char *buf, size_t len)
{
	if (r->naddresses == 0)
		return "";
	return inet_ntop(r->addresses[0].family, &r->addresses[0].addr, buf, (socklen_t)len);
}

static uint64_t
stat_value(const char *key)
{
	struct namecache_values	*v;
	struct namecache	*ctx;
	uint64_t		 n = UINT64_MAX;
	size_t			 i;

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	assert_int_equal(namecache_statistics(ctx, HUNG_MS, &v), 0);
	for (i = 0; i < v->count; i++)
		if (strcmp(v->values[i].key, key) == 0)
			n = v->values[i].number;
	namecache_values_free(v);
	namecache_free(ctx);
	assert_true(n != UINT64_MAX);
	return n;
}

/*
 * Whether a blocking lookup of name is answered from the shared cache
 * (the daemon counts no lookup), trying until HUNG_MS: a reader that
 * failed to map a segment (another test's path has none) waits a second
 * before it tries again.  *ret gets the last result.
 */
static bool
shared_hit(const char *name, int family, struct namecache_result **ret)
{
	uint64_t	before;
	int64_t		deadline = now_ms() + HUNG_MS;

	for (; now_ms() < deadline; usleep(100000)) {
		before = stat_value("lookups_name");
		assert_int_equal(namecache_lookup_name(name, family, 0, HUNG_MS, ret), 0);
		if (stat_value("lookups_name") == before)
			return true;
		namecache_result_free(*ret);
	}
	return false;
}

static void
ok_name(int i, char *buf, size_t len)
{
	snprintf(buf, len, "ok%d.api.test", i);
}

static void
ok_addr(int i, char *buf, size_t len)
{
	snprintf(buf, len, "10.0.%d.%d", i / 256, i % 256);
}

/* --- setup ------------------------------------------------------------------ */

static int
group_setup(void **state)
{
	char	*hosts, *p;
	size_t	 cap = 200000;
	int	 i;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	/* Children (the daemon, fakes, fork tests) must not repeat our output. */
	setvbuf(stdout, NULL, _IONBF, 0);
	assert_non_null(getenv("NC_TEST_DAEMON"));
	assert_non_null(getenv("NC_TEST_UPSTREAM"));
	ok_names = atoi(getenv("NC_TEST_OK_NAMES"));
	strcpy(dir, "/tmp/nc-api-XXXXXX");
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755);	/* an unprivileged child must reach the socket */
	pathf(sock_path, sizeof(sock_path), "sock");
	/* Folders of their own: the shared segment lives beside a socket. */
	pathf(fake_path, sizeof(fake_path), "fake");
	assert_int_equal(mkdir(fake_path, 0755), 0);
	pathf(fake_path, sizeof(fake_path), "fake/sock");
	pathf(none_path, sizeof(none_path), "none");
	assert_int_equal(mkdir(none_path, 0755), 0);
	pathf(none_path, sizeof(none_path), "none/sock");
	/* timeout:5: a black-holed name stays pending for seconds. */
	write_file("resolv.conf", "nameserver 127.0.0.1\noptions timeout:5 attempts:1\n");
	write_file("namecached.conf", "");
	/* big.api.test: one line whose aliases overflow a 64 KiB frame. */
	assert_non_null(hosts = malloc(cap));
	p = hosts + sprintf(hosts, "127.0.0.1 localhost\n10.1.0.1 hosta.api.test hosta\n"
	    "10.1.0.2 hostb.api.test\n2001:db8::b hostb.api.test\n10.1.0.3 big.api.test");
	for (i = 0; i < 1300; i++)
		p += sprintf(p, " alias%04d-of-a-rather-long-name-to-fill-a-frame.api.test", i);
	strcpy(p, "\n");
	write_file("hosts", hosts);
	free(hosts);
	daemon_start();
	setenv("NAMECACHE_SOCKET", sock_path, 1);
	return 0;
}

static int
group_teardown(void **state)
{
	char cmd[128];

	if (daemon_pid > 0)
		daemon_stop();
	snprintf(cmd, sizeof(cmd), getenv("NC_TEST_KEEP") ? "true %s" : "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* --- blocking ----------------------------------------------------------------- */

static void
blocking_hosts(void **state)
{
	struct namecache_result	*r;
	uint8_t			 a[4] = { 10, 1, 0, 1 };
	char			 buf[64];

	assert_int_equal(namecache_lookup_name("hosta.api.test", AF_UNSPEC, 0, HUNG_MS, &r), 0);
	assert_string_equal(r->canonical, "hosta.api.test");
	assert_int_equal(r->naddresses, 1);
	assert_string_equal(addr0(r, buf, sizeof(buf)), "10.1.0.1");
	assert_int_equal(r->naliases, 1);
	assert_string_equal(r->aliases[0], "hosta");
	assert_null(r->aliases[1]);
	assert_int_equal(r->source, NAMECACHE_SOURCE_HOSTS);
	assert_int_equal(r->ttl, 0);
	namecache_result_free(r);

	/* Both families, in file order. */
	assert_int_equal(namecache_lookup_name("hostb.api.test", AF_UNSPEC, 0, HUNG_MS, &r), 0);
	assert_int_equal(r->naddresses, 2);
	assert_int_equal(r->addresses[0].family, AF_INET);
	assert_int_equal(r->addresses[1].family, AF_INET6);
	assert_string_equal(inet_ntop(AF_INET6, &r->addresses[1].addr, buf, sizeof(buf)),
	    "2001:db8::b");
	/* a hosts file gives no scope */
	assert_non_null(r->scope_ids);
	assert_int_equal(r->scope_ids[0], 0);
	assert_int_equal(r->scope_ids[1], 0);
	namecache_result_free(r);

	assert_int_equal(namecache_lookup_addr(AF_INET, a, 0, HUNG_MS, &r), 0);
	assert_string_equal(r->canonical, "hosta.api.test");
	assert_int_equal(r->source, NAMECACHE_SOURCE_HOSTS);
	namecache_result_free(r);
}

static void
blocking_dns_then_shared(void **state)
{
	struct namecache_result	*r;
	char			 name[64], want[32], buf[64];

	ok_name(0, name, sizeof(name));
	ok_addr(0, want, sizeof(want));
	assert_int_equal(namecache_lookup_name(name, AF_INET, 0, HUNG_MS, &r), 0);
	assert_string_equal(addr0(r, buf, sizeof(buf)), want);
	assert_int_equal(r->source, NAMECACHE_SOURCE_DNS);
	assert_true(r->ttl > 0 && r->ttl <= 300);
	namecache_result_free(r);

	/* The daemon's cache over the socket. */
	assert_int_equal(namecache_lookup_name(name, AF_INET, NAMECACHE_NO_SHARED, HUNG_MS, &r), 0);
	assert_int_equal(r->source, NAMECACHE_SOURCE_CACHE);
	assert_string_equal(addr0(r, buf, sizeof(buf)), want);
	namecache_result_free(r);

	/* The shared cache: the daemon is not asked at all. */
	assert_true(shared_hit(name, AF_INET, &r));
	assert_int_equal(r->source, NAMECACHE_SOURCE_CACHE);
	assert_string_equal(addr0(r, buf, sizeof(buf)), want);
	assert_true(r->ttl > 0 && r->ttl <= 300);
	namecache_result_free(r);
}

/*
 * NAMECACHE_SHARED_ONLY: the shared segment alone, as a binding asks on its
 * event loop's thread; a miss is NAMECACHE_ERR_MISS and never reaches the
 * daemon, even when there is none.
 */
static void
shared_only(void **state)
{
	struct namecache_result	*r = NULL;
	char			 name[64], want[32], buf[64];
	uint64_t		 before;

	ok_name(150, name, sizeof(name));
	ok_addr(150, want, sizeof(want));
	before = stat_value("lookups_name");
	assert_int_equal(namecache_lookup_name(name, AF_INET, NAMECACHE_SHARED_ONLY, 1000, &r),
	    NAMECACHE_ERR_MISS);
	assert_null(r);
	assert_int_equal(stat_value("lookups_name"), before);
	assert_string_equal(namecache_strerror(NAMECACHE_ERR_MISS), "not in the shared cache");
	assert_int_equal(namecache_lookup_name(name, AF_INET,
	    NAMECACHE_SHARED_ONLY | NAMECACHE_NO_SHARED, 1000, &r), NAMECACHE_ERR_INVAL);
	/* Asked once over the socket, it is published; then no request at all. */
	assert_true(shared_hit(name, AF_INET, &r));
	namecache_result_free(r);
	before = stat_value("lookups_name");
	assert_int_equal(namecache_lookup_name(name, AF_INET, NAMECACHE_SHARED_ONLY, 1000, &r), 0);
	assert_string_equal(addr0(r, buf, sizeof(buf)), want);
	assert_int_equal(r->source, NAMECACHE_SOURCE_CACHE);
	namecache_result_free(r);
	assert_int_equal(stat_value("lookups_name"), before);
	/* Another family of it is not published yet: a miss, not a wait. */
	assert_int_equal(namecache_lookup_name(name, AF_INET6, NAMECACHE_SHARED_ONLY, 1000, &r),
	    NAMECACHE_ERR_MISS);
	/* Nobody at the path: a miss still (no connect is tried). */
	setenv("NAMECACHE_SOCKET", none_path, 1);
	assert_int_equal(namecache_lookup_name(name, AF_INET, NAMECACHE_SHARED_ONLY, 1000, &r),
	    NAMECACHE_ERR_MISS);
	setenv("NAMECACHE_SOCKET", sock_path, 1);
}

/* --- every error code ------------------------------------------------------ */

static int
lookup_code(const char *name, int family, unsigned flags, int timeout)
{
	struct namecache_result	*r = NULL;
	int			 e = namecache_lookup_name(name, family, flags, timeout, &r);

	if (e == 0)
		namecache_result_free(r);
	else
		assert_null(r);
	return e;
}

static void
errors_from_the_daemon(void **state)
{
	struct namecache	*ctx;
	struct seen		 s = { 0 };
	uint64_t		 n;
	int			 status;
	pid_t			 pid;

	assert_int_equal(lookup_code("nx.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_NOTFOUND);
	assert_int_equal(lookup_code("nodata.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_NODATA);
	assert_int_equal(lookup_code("fail.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_TRYAGAIN);
	assert_int_equal(lookup_code("big.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_TOOBIG);
	/* Negative answers are shared too: the same codes from the segment. */
	assert_int_equal(lookup_code("nx.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_NOTFOUND);
	assert_int_equal(lookup_code("nodata.api.test", AF_INET, 0, HUNG_MS), NAMECACHE_ERR_NODATA);

	/* Asynchronously, with the daemon's reason. */
	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "big.api.test", AF_INET, NAMECACHE_NO_SHARED,
	    HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.error, NAMECACHE_ERR_TOOBIG);
	assert_null(s.result);
	seen_clear(&s);
	assert_int_equal(namecache_query_records(ctx, "nx.api.test", 15, HUNG_MS,
	    &(struct namecache_records *){ NULL }), NAMECACHE_ERR_NOTFOUND);

	/* Administration by someone else than root: denied, with a reason. */
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		struct namecache *c2;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		if (namecache_new(sock_path, &c2) < 0)
			_exit(4);
		if (namecache_flush_caches(c2, HUNG_MS, &n) != NAMECACHE_ERR_DENIED ||
		    namecache_reason(c2) == NULL)
			_exit(1);
		/* Lookups and statistics stay open to all. */
		if (lookup_code("hosta.api.test", AF_INET, NAMECACHE_NO_SHARED, HUNG_MS) != 0)
			_exit(2);
		namecache_free(c2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	namecache_free(ctx);
}

static void
errors_of_the_caller(void **state)
{
	struct namecache	*ctx;
	struct seen		 s = { 0 };
	char			 label[80];
	uint8_t			 a[16] = { 0 };

	memset(label, 'a', 70);
	strcpy(label + 70, ".test");
	assert_int_equal(lookup_code(label, AF_INET, 0, 1000), NAMECACHE_ERR_BADNAME);
	assert_int_equal(lookup_code("two..dots", AF_INET, 0, 1000), NAMECACHE_ERR_BADNAME);
	assert_int_equal(lookup_code("hosta.api.test", 12345, 0, 1000), NAMECACHE_ERR_INVAL);
	assert_int_equal(lookup_code("hosta.api.test", AF_INET, 0x80, 1000), NAMECACHE_ERR_INVAL);
	assert_int_equal(namecache_lookup_addr(AF_UNSPEC, a, 0, 1000,
	    &(struct namecache_result *){ NULL }), NAMECACHE_ERR_INVAL);
	assert_int_equal(namecache_check_name("ok.test", NULL), 0);

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, label, AF_INET, 0, 1000, on_answer, &s,
	    NULL), NAMECACHE_ERR_BADNAME);
	assert_int_equal(namecache_submit_name(ctx, "x.test", AF_INET, 0, 1000, NULL, &s,
	    NULL), NAMECACHE_ERR_INVAL);
	assert_int_equal(namecache_invalidate(ctx, "bad..name", 1000, NULL),
	    NAMECACHE_ERR_BADNAME);
	assert_int_equal(namecache_rrtype_parse("NOSUCHTYPE"), NAMECACHE_ERR_INVAL);
	assert_int_equal(namecache_rrtype_parse("mx"), 15);
	assert_int_equal(s.calls, 0);
	namecache_free(ctx);
}

static void
errors_without_a_daemon(void **state)
{
	struct namecache	*ctx;
	struct seen		 s = { 0 };

	/* Nobody listens at the path. */
	setenv("NAMECACHE_SOCKET", none_path, 1);
	assert_int_equal(lookup_code("hosta.api.test", AF_INET, NAMECACHE_NO_SHARED, 1000),
	    NAMECACHE_ERR_UNAVAILABLE);
	setenv("NAMECACHE_SOCKET", sock_path, 1);
	assert_int_equal(namecache_new(none_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET, 0, 1000,
	    on_answer, &s, NULL), NAMECACHE_ERR_UNAVAILABLE);
	assert_int_equal(namecache_errno(ctx), ENOENT);
	assert_int_equal(namecache_connect(ctx), NAMECACHE_ERR_UNAVAILABLE);
	assert_int_equal(namecache_fd(ctx), -1);
	assert_int_equal(namecache_timeout(ctx), -1);
	assert_int_equal(s.calls, 0);
	namecache_free(ctx);
}

/* A fake daemon that answers every request with one status. */
static void
errors_from_a_fake(void **state)
{
	static const struct { int status, error; } cases[] = {
		{ 4, NAMECACHE_ERR_BADREQUEST },
		{ 6, NAMECACHE_ERR_UNSUPPORTED },
		{ 9, NAMECACHE_ERR_INTERNAL },
		{ 10, NAMECACHE_ERR_BUSY },
		{ 11, NAMECACHE_ERR_NOSOURCE },		/* the hosts line's final UNAVAIL */
		{ 12, NAMECACHE_ERR_NOTFOUND_TRYAGAIN },	/* NXDOMAIN after SERVFAIL */
		{ 77, NAMECACHE_ERR_PROTOCOL },		/* a status nobody defined */
		{ FAKE_GARBAGE, NAMECACHE_ERR_PROTOCOL },
	};
	struct namecache	*ctx;
	struct seen		 s = { 0 };
	size_t			 i;
	pid_t			 pid;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid = fake_start(cases[i].status);
		setenv("NAMECACHE_SOCKET", fake_path, 1);
		assert_int_equal(lookup_code("hosta.api.test", AF_INET, NAMECACHE_NO_SHARED,
		    HUNG_MS), cases[i].error);
		setenv("NAMECACHE_SOCKET", sock_path, 1);
		assert_int_equal(namecache_new(fake_path, &ctx), 0);
		assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET, 0, HUNG_MS,
		    on_answer, &s, NULL), 0);
		assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
		assert_int_equal(s.calls, 1);
		assert_int_equal(s.error, cases[i].error);
		seen_clear(&s);
		namecache_free(ctx);
		fake_stop(pid);
	}
	for (i = 0; i < 19; i++)
		assert_string_not_equal(namecache_strerror(-(int)i), "unknown error");
	assert_string_equal(namecache_strerror(-19), "unknown error");
	assert_string_equal(namecache_strerror(NAMECACHE_ERR_NOTFOUND_TRYAGAIN),
	    "name not found, after a temporary failure");
}

/*
 * An answer with a scoped address, as a module's gethostbyname4_r gives
 * one (2001:db8::5, fe80::5 on interface 7, 198.51.100.5): the scope id
 * comes with its address, through the blocking call, a context and the
 * sort, and the text has no scope (inet_ntop's, as the runtimes print).
 */
static const uint8_t scoped_body[] = {
	0, 0, 0, 60,			/* ttl */
	5, 0,				/* source nss, flags */
	0, 3, 0, 0,			/* 3 addresses, no alias */
	0, 10, 's', 'c', 'o', 'p', 'e', 'd', '.', 'n', 'c', 't',
	6, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5,
	7, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 7,
	4, 198, 51, 100, 5,
	0, 6, 'n', 'c', 't', 'e', 's', 't',	/* origin */
};

static void
check_scoped(const struct namecache_result *r)
{
	char	text[INET6_ADDRSTRLEN];
	size_t	i, seen = 0;

	assert_int_equal(r->naddresses, 3);
	assert_non_null(r->scope_ids);
	assert_string_equal(r->origin, "nctest");
	for (i = 0; i < r->naddresses; i++) {
		assert_non_null(namecache_address_str(&r->addresses[i], text, sizeof(text)));
		if (strcmp(text, "fe80::5") == 0) {
			assert_int_equal(r->addresses[i].family, AF_INET6);
			assert_int_equal(r->scope_ids[i], 7);
			seen |= 1;
		} else if (strcmp(text, "2001:db8::5") == 0) {
			assert_int_equal(r->scope_ids[i], 0);
			seen |= 2;
		} else {
			assert_string_equal(text, "198.51.100.5");
			assert_int_equal(r->scope_ids[i], 0);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
}

static void
scope_ids_from_a_fake(void **state)
{
	struct namecache_result		*r = NULL;
	struct namecache		*ctx;
	struct seen			 s = { 0 };
	struct namecache_address	 v[3];
	uint32_t			 ids[3];
	pid_t				 pid;

	(void)state;
	fake_body = scoped_body;
	fake_body_len = sizeof(scoped_body);
	pid = fake_start(0);
	setenv("NAMECACHE_SOCKET", fake_path, 1);
	/* in the source's order, then sorted: the ids move with their addresses */
	assert_int_equal(namecache_lookup_name("scoped-5.nct", AF_UNSPEC, NAMECACHE_NO_SHARED,
	    HUNG_MS, &r), 0);
	check_scoped(r);
	assert_int_equal(r->scope_ids[1], 7);
	memcpy(v, r->addresses, sizeof(v));
	memcpy(ids, r->scope_ids, sizeof(ids));
	assert_int_equal(namecache_sort_addresses_scoped(r->addresses, r->scope_ids,
	    r->naddresses), 0);
	check_scoped(r);
	/* NULL ids: the addresses alone, as namecache_sort_addresses() */
	assert_int_equal(namecache_sort_addresses_scoped(v, NULL, 3), 0);
	v[0].family = AF_UNIX;
	assert_int_equal(namecache_sort_addresses_scoped(v, ids, 3), NAMECACHE_ERR_INVAL);
	namecache_result_free(r);
	assert_int_equal(namecache_lookup_name("scoped-5.nct", AF_UNSPEC,
	    NAMECACHE_NO_SHARED | NAMECACHE_SORT, HUNG_MS, &r), 0);
	check_scoped(r);
	namecache_result_free(r);
	setenv("NAMECACHE_SOCKET", sock_path, 1);
	/* through a context, sorted there */
	assert_int_equal(namecache_new(fake_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "scoped-5.nct", AF_UNSPEC, NAMECACHE_SORT,
	    HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.error, 0);
	check_scoped(s.result);
	seen_clear(&s);
	namecache_free(ctx);
	fake_stop(pid);
	fake_body = NULL;
	fake_body_len = 0;
}

/* A daemon that accepts and never answers. */
static void
timeout_never_answered(void **state)
{
	struct namecache	*ctx;
	struct seen		 s = { 0 };
	pid_t			 pid = fake_start(FAKE_SILENT);

	/* The blocking call gives up with ETIMEDOUT (how long it waited is
	 * not a test's to assert; the context's own timer, below, is read). */
	setenv("NAMECACHE_SOCKET", fake_path, 1);
	assert_int_equal(lookup_code("hosta.api.test", AF_INET, NAMECACHE_NO_SHARED, 300),
	    NAMECACHE_ERR_TIMEOUT);
	setenv("NAMECACHE_SOCKET", sock_path, 1);

	assert_int_equal(namecache_new(fake_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET, 0, 300,
	    on_answer, &s, NULL), 0);
	assert_true(namecache_fd(ctx) >= 0);
	assert_true(namecache_timeout(ctx) > 0 && namecache_timeout(ctx) <= 300);
	assert_int_equal(namecache_process(ctx), 0);	/* nothing yet */
	assert_int_equal(until_called(ctx, &s, HUNG_MS), 1);
	assert_int_equal(s.error, NAMECACHE_ERR_TIMEOUT);
	assert_int_equal(namecache_errno(ctx), ETIMEDOUT);
	assert_int_equal(namecache_pending(ctx), 0);
	assert_int_equal(namecache_timeout(ctx), -1);
	seen_clear(&s);
	/* A blocking call on the context times out as well. */
	assert_int_equal(namecache_reload(ctx, 200), NAMECACHE_ERR_TIMEOUT);
	namecache_free(ctx);
	fake_stop(pid);
}

/* --- non-blocking -------------------------------------------------------------- */

static void
shared_answers_at_submit(void **state)
{
	struct namecache	*ctx;
	struct namecache_query	*q = (void *)1;
	struct seen		 s = { 0 };
	char			 buf[64];

	/* In the shared cache, and the reader maps it again. */
	assert_true(shared_hit("hosta.api.test", AF_INET, &s.result));
	seen_clear(&s);
	assert_int_equal(namecache_new(NULL, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET, 0, 1000,
	    on_answer, &s, &q), 1);
	assert_null(q);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.error, 0);
	assert_null(s.query);
	assert_string_equal(addr0(s.result, buf, sizeof(buf)), "10.1.0.1");
	assert_int_equal(namecache_pending(ctx), 0);
	assert_int_equal(namecache_fd(ctx), -1);	/* the socket was never needed */
	seen_clear(&s);
	namecache_free(ctx);
}

static void
cancel_in_flight(void **state)
{
	struct namecache	*ctx;
	struct namecache_query	*q1, *q2;
	struct seen		 s1 = { 0 }, s2 = { 0 }, s3 = { 0 };

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	/* One never answered, one answered at once: both cancelled in flight. */
	assert_int_equal(namecache_submit_name(ctx, "cancel-blackholed.api.test", AF_INET, 0,
	    HUNG_MS, on_answer, &s1, &q1), 0);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s2, &q2), 0);
	assert_int_equal(namecache_pending(ctx), 2);
	assert_int_equal(namecache_cancel(ctx, q1), 0);
	assert_int_equal(namecache_cancel(ctx, q2), 0);
	assert_int_equal(namecache_pending(ctx), 0);
	/* The answer to q2 arrives and is dropped; a later query still works. */
	assert_int_equal(namecache_submit_name(ctx, "hostb.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s3, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s3.calls, 1);
	assert_int_equal(s3.error, 0);
	assert_int_equal(s1.calls + s2.calls, 0);
	seen_clear(&s3);

	/* Cancelled after the answer came in (the socket is readable), before
	 * it was delivered (nothing processed it). */
	assert_int_equal(namecache_submit_name(ctx, "hostb.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s2, &q2), 0);
	{
		struct pollfd pfd = { namecache_fd(ctx), POLLIN, 0 };

		assert_true(pfd.fd >= 0);
		assert_int_equal(poll(&pfd, 1, HUNG_MS), 1);
		assert_true(pfd.revents & POLLIN);
	}
	assert_int_equal(namecache_cancel(ctx, q2), 0);
	assert_int_equal(namecache_process(ctx), 0);
	assert_int_equal(s2.calls, 0);
	namecache_free(ctx);
}

/* Cancels every query of an array from within a callback. */
struct canceller {
	struct namecache	*ctx;
	struct namecache_query	**qs;
	int			 n, calls, self_cancel;
};

static void
on_cancel_others(struct namecache *ctx, struct namecache_query *q, int error,
    struct namecache_result *res, void *arg)
{
	struct canceller	*c = arg;
	int			 i;

	c->calls++;
	namecache_result_free(res);
	c->self_cancel = namecache_cancel(ctx, q);
	for (i = 0; i < c->n; i++)
		if (c->qs[i] && c->qs[i] != q) {
			assert_int_equal(namecache_cancel(ctx, c->qs[i]), 0);
			c->qs[i] = NULL;
		}
}

static void
cancel_from_a_callback(void **state)
{
	struct namecache_query	*qs[3];
	struct canceller	 c = { .qs = qs, .n = 3 };
	struct namecache	*ctx;
	int			 i;

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
		    NAMECACHE_NO_SHARED, HUNG_MS, on_cancel_others, &c, &qs[i]), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.self_cancel, NAMECACHE_ERR_INVAL);
	namecache_free(ctx);
}

/*
 * The point of it all: with 100 lookups pending on a black-holed upstream,
 * lookups of cached and hosts names on the same context still complete,
 * through the socket as well as from the shared cache.
 */
static void
cached_answers_pass_the_blackholed(void **state)
{
	struct namecache_query	*slow[BLACKHOLED];
	struct seen		 slow_seen[BLACKHOLED], fast[20];
	struct namecache	*ctx;
	char			 name[64], want[32], buf[64];
	int64_t			 t0, total_us = 0;
	int			 i, round, done, completed = 0, immediate = 0;

	/* Cached in the daemon first. */
	for (i = 0; i < 20; i++) {
		ok_name(i, name, sizeof(name));
		assert_int_equal(lookup_code(name, AF_INET, 0, HUNG_MS), 0);
	}
	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	memset(slow_seen, 0, sizeof(slow_seen));
	for (i = 0; i < BLACKHOLED; i++) {
		snprintf(name, sizeof(name), "slow%d.api.test", i);
		assert_int_equal(namecache_submit_name(ctx, name, AF_INET, 0, 60000, on_answer,
		    &slow_seen[i], &slow[i]), 0);
	}
	assert_int_equal(namecache_pending(ctx), BLACKHOLED);
	for (round = 0; round < 5; round++) {
		memset(fast, 0, sizeof(fast));
		/* Through the socket, behind the black-holed ones on the connection. */
		t0 = now_ms();
		for (i = 0; i < 20; i++) {
			ok_name(i, name, sizeof(name));
			assert_int_equal(namecache_submit_name(ctx, i % 5 == 4 ? "hosta.api.test" :
			    name, AF_INET, NAMECACHE_NO_SHARED, 60000, on_answer, &fast[i], NULL), 0);
		}
		for (done = 0; done < 20 && now_ms() - t0 < HUNG_MS; ) {
			struct pollfd pfd = { namecache_fd(ctx), namecache_events(ctx), 0 };

			poll(&pfd, 1, 100);
			namecache_process(ctx);
			for (done = 0, i = 0; i < 20; i++)
				done += fast[i].calls;
		}
		total_us += (now_ms() - t0) * 1000;
		for (i = 0; i < 20; i++) {
			assert_int_equal(fast[i].calls, 1);
			assert_int_equal(fast[i].error, 0);
			if (i % 5 == 4)
				assert_int_equal(fast[i].result->source, NAMECACHE_SOURCE_HOSTS);
			else {
				ok_addr(i, want, sizeof(want));
				assert_string_equal(addr0(fast[i].result, buf, sizeof(buf)), want);
				assert_int_equal(fast[i].result->source, NAMECACHE_SOURCE_CACHE);
			}
			seen_clear(&fast[i]);
			completed++;
		}
		/* From the shared cache: answered inside submit. */
		for (i = 0; i < 20; i++) {
			ok_name(i, name, sizeof(name));
			if (namecache_submit_name(ctx, name, AF_INET, 0, 60000, on_answer, &fast[i],
			    NULL) == 1) {
				assert_int_equal(fast[i].calls, 1);
				assert_int_equal(fast[i].error, 0);
				immediate++;
			}
		}
		assert_int_equal(namecache_wait(ctx, 0), NAMECACHE_ERR_TIMEOUT);
		for (i = 0; i < 20; i++)
			seen_clear(&fast[i]);
	}
	/* Every black-holed lookup is still pending, none answered. */
	for (i = 0; i < BLACKHOLED; i++)
		assert_int_equal(slow_seen[i].calls, 0);
	assert_int_equal(namecache_pending(ctx), BLACKHOLED);
	assert_int_equal(completed, 100);
	assert_int_equal(immediate, 100);
	printf("# %d answers through the socket with %d lookups pending upstream, "
	    "%d from the shared cache (%.1f ms a round of 20)\n", completed, BLACKHOLED,
	    immediate, total_us / 1000.0 / 5);
	for (i = 0; i < BLACKHOLED; i++)
		assert_int_equal(namecache_cancel(ctx, slow[i]), 0);
	assert_int_equal(namecache_pending(ctx), 0);
	namecache_free(ctx);
}

static void
many_on_one_connection(void **state)
{
	struct namecache	*ctx;
	struct seen		*s;
	char			 name[64], want[32], buf[64];
	int			 i, n = ok_names;

	assert_non_null(s = calloc((size_t)n, sizeof(*s)));
	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	for (i = 0; i < n; i++) {
		ok_name(i, name, sizeof(name));
		assert_true(namecache_submit_name(ctx, name, i % 2 ? AF_INET : AF_UNSPEC,
		    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s[i], NULL) == 0);
	}
	assert_int_equal(namecache_wait(ctx, 30000), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(s[i].calls, 1);
		if (s[i].error)
			print_message("ok%d: %s\n", i, namecache_strerror(s[i].error));
		assert_int_equal(s[i].error, 0);
		ok_addr(i, want, sizeof(want));
		assert_string_equal(addr0(s[i].result, buf, sizeof(buf)), want);
		seen_clear(&s[i]);
	}
	free(s);
	namecache_free(ctx);
}

/* --- the daemon restarting, and fork ----------------------------------- */

static void
daemon_restarts(void **state)
{
	struct namecache	*ctx;
	struct seen		 s = { 0 }, lost = { 0 };
	int			 fd;

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s.error, 0);
	seen_clear(&s);
	fd = namecache_fd(ctx);

	/* Restarted between two queries: the next one goes to the new daemon. */
	daemon_stop();
	daemon_start();
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.error, 0);
	assert_true(namecache_fd(ctx) >= 0 && namecache_fd(ctx) != fd);
	seen_clear(&s);

	/* Stopped with a query in flight: it fails, the context lives on. */
	assert_int_equal(namecache_submit_name(ctx, "restart-blackholed.api.test", AF_INET, 0,
	    30000, on_answer, &lost, NULL), 0);
	daemon_stop();
	assert_int_equal(until_called(ctx, &lost, HUNG_MS), 1);
	assert_int_equal(lost.error, NAMECACHE_ERR_UNAVAILABLE);
	assert_int_equal(namecache_fd(ctx), -1);
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s, NULL), NAMECACHE_ERR_UNAVAILABLE);
	daemon_start();
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(namecache_wait(ctx, HUNG_MS), 0);
	assert_int_equal(s.error, 0);
	seen_clear(&s);
	seen_clear(&lost);
	namecache_free(ctx);
}

static void
fork_with_a_context(void **state)
{
	struct namecache	*ctx;
	struct namecache_query	*pending;
	struct seen		 inherited = { 0 }, s = { 0 };
	int			 status;
	pid_t			 pid;

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	assert_int_equal(namecache_submit_name(ctx, "fork-blackholed.api.test", AF_INET, 0,
	    30000, on_answer, &inherited, &pending), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		int code = 0;

		/* The inherited query ends here; the parent's goes on. */
		if (namecache_process(ctx) != 1 || inherited.calls != 1 ||
		    inherited.error != NAMECACHE_ERR_UNAVAILABLE)
			code |= 1;
		if (namecache_submit_name(ctx, "hosta.api.test", AF_INET, NAMECACHE_NO_SHARED,
		    HUNG_MS, on_answer, &s, NULL) != 0 || namecache_wait(ctx, HUNG_MS) != 0 ||
		    s.calls != 1 || s.error != 0)
			code |= 2;
		seen_clear(&s);
		namecache_free(ctx);
		exit(code);	/* exit, not _exit: the leak checker runs */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's connection was not disturbed by the child. */
	assert_int_equal(namecache_submit_name(ctx, "hosta.api.test", AF_INET,
	    NAMECACHE_NO_SHARED, HUNG_MS, on_answer, &s, NULL), 0);
	assert_int_equal(until_called(ctx, &s, HUNG_MS), 1);
	assert_int_equal(s.error, 0);
	assert_int_equal(inherited.calls, 0);
	assert_int_equal(namecache_pending(ctx), 1);
	assert_int_equal(namecache_cancel(ctx, pending), 0);
	seen_clear(&s);
	namecache_free(ctx);
}

/* --- what namecachectl uses ------------------------------------------------ */

static void
control_requests(void **state)
{
	struct namecache_cache_page	*pg;
	struct namecache_records	*recs;
	struct namecache_values		*v;
	struct namecache		*ctx;
	uint64_t			 n = 0, cursor = 0;
	size_t				 i, entries = 0;
	bool				 found = false;
	char				 name[64], want[32];

	assert_int_equal(namecache_new(sock_path, &ctx), 0);
	ok_name(3, name, sizeof(name));
	ok_addr(3, want, sizeof(want));
	assert_int_equal(namecache_query_records(ctx, name, 1, HUNG_MS, &recs), 0);
	assert_int_equal(recs->count, 1);
	assert_string_equal(recs->records[0].data, want);
	assert_int_equal(recs->records[0].type, 1);
	namecache_records_free(recs);

	assert_int_equal(namecache_status(ctx, HUNG_MS, &v), 0);
	assert_true(v->count > 0);
	namecache_values_free(v);

	do {
		assert_int_equal(namecache_show_cache(ctx, cursor, HUNG_MS, &pg), 0);
		for (i = 0; i < pg->count; i++, entries++)
			found |= strcmp(pg->entries[i].name, name) == 0;
		cursor = pg->next;
		namecache_cache_page_free(pg);
	} while (cursor);
	assert_true(found && entries >= 1);

	assert_int_equal(namecache_invalidate(ctx, name, HUNG_MS, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(namecache_reset_statistics(ctx, HUNG_MS), 0);
	assert_int_equal(namecache_flush_caches(ctx, HUNG_MS, &n), 0);
	assert_int_equal(namecache_reload(ctx, HUNG_MS), 0);
	assert_int_equal(namecache_show_cache(ctx, 0, HUNG_MS, &pg), 0);
	assert_int_equal(pg->count, 0);
	namecache_cache_page_free(pg);
	namecache_free(ctx);
}

/* namecache_address_str() writes what inet_ntop() writes, for every shape of address. */
static void
address_text_as_inet_ntop(void **state)
{
	struct namecache_address	a;
	char				want[INET6_ADDRSTRLEN], got[INET6_ADDRSTRLEN];
	uint32_t			x = 12345;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		memset(&a, 0, sizeof(a));
		a.family = i % 5 == 0 ? AF_INET : AF_INET6;
		for (int k = 0; k < 16; k++) {
			x = x * 1103515245u + 12345u;
			a.addr.bytes[k] = (uint8_t)(x >> 16);
		}
		if (a.family == AF_INET6) {
			/* runs of zero words anywhere, v4-mapped and v4-compatible forms */
			x = x * 1103515245u + 12345u;
			int start = (int)(x >> 16) % 8, len = (int)(x >> 20) % 9;

			for (int w = start; w < start + len && w < 8; w++)
				a.addr.bytes[2 * w] = a.addr.bytes[2 * w + 1] = 0;
			if (i % 7 == 0) {
				memset(a.addr.bytes, 0, 10);
				a.addr.bytes[10] = a.addr.bytes[11] = (i % 14 == 0) ? 0xff : 0;
			}
			if (i % 11 == 0)
				for (int w = 0; w < 8; w++)
					if ((x >> w) & 1)
						a.addr.bytes[2 * w] = a.addr.bytes[2 * w + 1] = 0;
			if (i % 13 == 0)
				for (int k = 0; k < 16; k++)
					a.addr.bytes[k] &= 0x0f;
		}
		assert_non_null(inet_ntop(a.family, a.addr.bytes, want, sizeof(want)));
		assert_non_null(namecache_address_str(&a, got, sizeof(got)));
		if (strcmp(want, got) != 0)
			fail_msg("inet_ntop %s, namecache_address_str %s", want, got);
	}
	/* the edges: ::, ::1, a short buffer, a bad family */
	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	assert_string_equal(namecache_address_str(&a, got, sizeof(got)), "::");
	a.addr.bytes[15] = 1;
	assert_string_equal(namecache_address_str(&a, got, sizeof(got)), "::1");
	assert_null(namecache_address_str(&a, got, 3));
	a.family = AF_UNIX;
	assert_null(namecache_address_str(&a, got, sizeof(got)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocking_hosts),
		cmocka_unit_test(blocking_dns_then_shared),
		cmocka_unit_test(shared_only),
		cmocka_unit_test(errors_from_the_daemon),
		cmocka_unit_test(errors_of_the_caller),
		cmocka_unit_test(errors_without_a_daemon),
		cmocka_unit_test(errors_from_a_fake),
		cmocka_unit_test(scope_ids_from_a_fake),
		cmocka_unit_test(timeout_never_answered),
		cmocka_unit_test(shared_answers_at_submit),
		cmocka_unit_test(cancel_in_flight),
		cmocka_unit_test(cancel_from_a_callback),
		/*
		 * After it, on purpose: 200 new names while the daemon still has
		 * 100 black-holed fetches in flight.  (Seen failing once; the
		 * cause was the fault server's UDP receive buffer dropping the
		 * burst, now enlarged in dnsenv.py, not the daemon.)
		 */
		cmocka_unit_test(cached_answers_pass_the_blackholed),
		cmocka_unit_test(many_on_one_connection),
		cmocka_unit_test(daemon_restarts),
		cmocka_unit_test(fork_with_a_context),
		cmocka_unit_test(control_requests),
		cmocka_unit_test(address_text_as_inet_ntop),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
