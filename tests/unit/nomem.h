/* SPDX-License-Identifier: MIT */
/* tests/unit/nomem.h - making the Nth allocation of the code under test fail. */

/*
 * The unit tests built for allocation failure (tests/unit/meson.build,
 * the unit-nomem-* tests) link the daemon's libraries with
 * -Wl,--wrap for every allocator the daemon calls: malloc, calloc,
 * realloc, strdup, strndup, asprintf, vasprintf, getline.  Each wrapper
 * (nomem.c) counts the call and, when the count reaches the number armed,
 * fails it as libc would (NULL, or -1 with errno ENOMEM).  The daemon's
 * code is unchanged; allocations made inside shared libraries (libc's own,
 * libevent's, c-ares') are not wrapped and never fail here.
 *
 * A test file compiled with -DNOMEM includes this header after its system
 * headers: its own allocations then go to the real allocator, uncounted,
 * so only the code under test sees a failure.
 *
 * The driver, for each scenario: for N = 1, 2, ... run it with the Nth
 * allocation failing, until a run ends without reaching N.
 */
#ifndef NOMEM_H
#define NOMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* From now on, count allocations from 0 and fail the nth (0: none). */
void	nomem_arm(long n);
/* Allocations counted since the last nomem_arm(). */
long	nomem_count(void);
/* On: allocations are neither counted nor failed, until off. */
void	nomem_hold(bool on);
/* The armed failure has happened. */
bool	nomem_failed(void);
/*
 * Leaks found since the last call, by LeakSanitizer when the test runs
 * under it (each reported on stderr with its stack); 0 without it.
 */
int	nomem_leaks(void);

void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
char	*__real_strdup(const char *);
char	*__real_strndup(const char *, size_t);

#ifdef NOMEM
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#define malloc(n)	__real_malloc(n)
#define calloc(n, m)	__real_calloc(n, m)
#define realloc(p, n)	__real_realloc(p, n)
#define strdup(s)	__real_strdup(s)
#define strndup(s, n)	__real_strndup(s, n)
#endif

#endif
