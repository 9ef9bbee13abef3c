/* SPDX-License-Identifier: MIT */
/* tests/unit/nomem.c - the allocators of the code under test, wrapped to fail on demand (nomem.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nomem.h"

#if defined(__SANITIZE_ADDRESS__)		/* gcc */
#define NOMEM_LSAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)	/* clang */
#define NOMEM_LSAN	1
#endif
#endif
#ifdef NOMEM_LSAN
#include <sanitizer/lsan_interface.h>
#endif

void	*__wrap_malloc(size_t);
void	*__wrap_calloc(size_t, size_t);
void	*__wrap_realloc(void *, size_t);
char	*__wrap_strdup(const char *);
char	*__wrap_strndup(const char *, size_t);
int	 __real_vasprintf(char **, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
int	 __wrap_vasprintf(char **, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
int	 __wrap_asprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
ssize_t	 __real_getline(char **, size_t *, FILE *);
ssize_t	 __wrap_getline(char **, size_t *, FILE *);

static long	fail_at;	/* 0: never */
static long	count;
static bool	failed;
static bool	held;

void
nomem_arm(long n)
{
	fail_at = n;
	count = 0;
	failed = false;
}

void
nomem_hold(bool on)
{
	held = on;
}

long
nomem_count(void)
{
	return count;
}

bool
nomem_failed(void)
{
	return failed;
}

int
nomem_leaks(void)
{
#ifdef NOMEM_LSAN
	return __lsan_do_recoverable_leak_check() != 0;
#else
	return 0;
#endif
}

/* Counts one allocation; true when this one is to fail. */
static bool
fail_now(void)
{
	if (held || ++count != fail_at || fail_at <= 0)
		return false;
	failed = true;
	errno = ENOMEM;
	return true;
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

char *
__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

int
__wrap_vasprintf(char **ret, const char *fmt, va_list ap)
{
	return fail_now() ? -1 : __real_vasprintf(ret, fmt, ap);
}

int
__wrap_asprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	r;

	if (fail_now())
		return -1;
	va_start(ap, fmt);
	r = __real_vasprintf(ret, fmt, ap);
	va_end(ap);
	return r;
}

/* getline allocates when it has no buffer yet: that call may fail. */
ssize_t
__wrap_getline(char **line, size_t *cap, FILE *f)
{
	if (*line == NULL && fail_now())
		return -1;
	return __real_getline(line, cap, f);
}
