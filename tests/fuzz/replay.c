/* SPDX-License-Identifier: MIT */
/* tests/fuzz/replay.c - runs a fuzz target over corpus files, without libFuzzer. */

/*
 * Usage: fuzz-replay-NAME PATH...  Each PATH is a file, or a folder whose
 * regular files (not hidden ones) are each one input.  Every input is read
 * into a heap buffer of exactly its size, so that under ASan a read past
 * the end is caught as libFuzzer would catch it.  Exits 1 when a path
 * cannot be read or no input was found, so an empty corpus fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int
run_file(const char *path)
{
	struct stat	 st;
	uint8_t		*buf;
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	len = (size_t)st.st_size;
	if ((buf = malloc(len ? len : 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (off < len) {
		n = read(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: short read\n", path);
			free(buf);
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's inputs in name order, so that a run is repeatable. */
static int
run_dir(const char *path, unsigned *count)
{
	DIR		 *d;
	struct dirent	 *de;
	struct stat	  st;
	char		**names = NULL, **nn, *p;
	size_t		  n = 0, cap = 0, i;
	int		  r = 0;

	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0) {
			r = -1;
			break;
		}
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nn = realloc(names, cap * sizeof(*names))) == NULL) {
				free(p);
				r = -1;
				break;
			}
			names = nn;
		}
		names[n++] = p;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (r == 0 && run_file(names[i]) < 0)
			r = -1;
		else if (r == 0)
			(*count)++;
		free(names[i]);
	}
	free(names);
	return r;
}

int
main(int argc, char **argv)
{
	struct stat	st;
	unsigned	count = 0;
	int		i, r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc && r == 0; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode))
			r = run_dir(argv[i], &count);
		else if ((r = run_file(argv[i])) == 0)
			count++;
	}
	if (r < 0)
		return 1;
	printf("replayed %u inputs\n", count);
	return count ? 0 : 1;
}
