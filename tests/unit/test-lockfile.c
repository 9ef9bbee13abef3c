/* SPDX-License-Identifier: MIT */
/* tests/unit/test-lockfile.c - one daemon per folder: the lock file (daemon/lockfile.c). */

/*
 * A lock taken is refused to every other taker, with the holder's pid;
 * one released is taken again; one whose holder was killed (SIGKILL) is
 * free at once, the kernel having dropped it; a file the taker may not
 * write (another user's) is replaced by one of its own; paths that are
 * no file (a folder, a symbolic link, a missing folder) are refused with
 * their errno.  Holders in other processes are forked children.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lockfile.h"

struct fixture {
	char	dir[64];
	char	path[96];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/nc-lockfile-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/lock", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;
	char		 cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The file's bytes, as a string. */
static void
slurp(const char *path, char *buf, size_t len)
{
	int	fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t	n;

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

static void
test_taken_refused_released(void **state)
{
	struct fixture	*f = *state;
	struct lockfile	*l = NULL, *l2 = NULL;
	struct stat	 st;
	char		 buf[32], want[32];

	assert_int_equal(lockfile_new(f->path, &l), 0);
	assert_non_null(l);
	assert_string_equal(lockfile_path(l), f->path);
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	slurp(f->path, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* Another open file of the same process is another taker: refused. */
	assert_int_equal(lockfile_new(f->path, &l2), -EWOULDBLOCK);
	assert_null(l2);
	assert_int_equal(lockfile_holder(f->path), (long)getpid());
	/* Released: the file goes, and the next taker makes it again. */
	lockfile_free(l);
	assert_int_equal(access(f->path, F_OK), -1);
	assert_int_equal(lockfile_new(f->path, &l2), 0);
	lockfile_free(l2);
	lockfile_free(NULL);
}

/* A child that takes the lock, says so on ready, and waits for a byte on go. */
static pid_t
holder_child(const char *path, int ready[2], int go[2], bool drop)
{
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	if ((pid = fork()) == 0) {
		struct lockfile	*l = NULL;
		char		 c = 'e';

		if (drop && geteuid() == 0 && (setgroups(0, NULL) < 0 ||
		    setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0))
			_exit(3);
		if (lockfile_new(path, &l) == 0)
			c = 'y';
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		lockfile_free(l);
		_exit(0);
	}
	assert_true(pid > 0);
	close(ready[1]);
	close(go[0]);
	return pid;
}

static void
test_killed_holder_frees_the_lock(void **state)
{
	struct fixture	*f = *state;
	struct lockfile	*l = NULL;
	int		 ready[2], go[2], status;
	pid_t		 pid;
	char		 c;

	pid = holder_child(f->path, ready, go, false);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	assert_int_equal(lockfile_new(f->path, &l), -EWOULDBLOCK);
	assert_int_equal(lockfile_holder(f->path), (long)pid);
	/* SIGKILL: no release of its own; the kernel drops the lock. */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(lockfile_holder(f->path), (long)pid);	/* the file stays */
	assert_int_equal(lockfile_new(f->path, &l), 0);
	assert_int_equal(lockfile_holder(f->path), (long)getpid());
	lockfile_free(l);
	close(ready[0]);
	close(go[1]);
}

/*
 * A lock file the taker may not write (as root: root's, taken by uid
 * 65534; else our own, mode 0444): taken all the same, and replaced by
 * one of the taker's with its pid.
 */
static void
test_file_not_writable_is_replaced(void **state)
{
	struct fixture	*f = *state;
	struct lockfile	*l = NULL;
	struct stat	 st;
	int		 ready[2], go[2], status, fd;
	pid_t		 pid;
	char		 c, buf[32], want[32];

	assert_int_equal(chmod(f->dir, 0777), 0);
	assert_true((fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) >= 0);
	assert_int_equal(write(fd, "1\n", 2), 2);
	close(fd);
	assert_int_equal(chmod(f->path, 0444), 0);
	pid = holder_child(f->path, ready, go, true);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	snprintf(want, sizeof(want), "%ld\n", (long)pid);
	slurp(f->path, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_uid, geteuid() == 0 ? 65534 : geteuid());
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(lockfile_new(f->path, &l), -EWOULDBLOCK);
	assert_int_equal(lockfile_holder(f->path), (long)pid);
	/* Its release removes its file. */
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(access(f->path, F_OK), -1);
	assert_int_equal(lockfile_new(f->path, &l), 0);
	lockfile_free(l);
	close(ready[0]);
	close(go[1]);
}

static void
test_not_a_file(void **state)
{
	struct fixture	*f = *state;
	struct lockfile	*l = NULL;
	char		 p[128];
	int		 fd;

	snprintf(p, sizeof(p), "%s/missing/lock", f->dir);
	assert_int_equal(lockfile_new(p, &l), -ENOENT);
	assert_int_equal(mkdir(f->path, 0755), 0);
	assert_int_equal(lockfile_new(f->path, &l), -EISDIR);
	assert_int_equal(rmdir(f->path), 0);
	snprintf(p, sizeof(p), "%s/elsewhere", f->dir);
	assert_int_equal(symlink(p, f->path), 0);
	assert_int_equal(lockfile_new(f->path, &l), -ELOOP);
	assert_int_equal(access(p, F_OK), -1);		/* not followed, not made */
	assert_int_equal(unlink(f->path), 0);
	assert_null(l);
	/* What the holder wrote, or 0: garbage, nothing, no file. */
	assert_true((fd = open(f->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0);
	assert_int_equal(write(fd, "12ab\n", 5), 5);
	close(fd);
	assert_int_equal(lockfile_holder(f->path), 0);
	assert_int_equal(truncate(f->path, 0), 0);
	assert_int_equal(lockfile_holder(f->path), 0);
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(lockfile_holder(f->path), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_taken_refused_released, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_holder_frees_the_lock, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_not_writable_is_replaced, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_not_a_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
