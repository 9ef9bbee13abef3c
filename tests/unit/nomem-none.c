/* SPDX-License-Identifier: MIT */
/* tests/unit/nomem-none.c - for the codecs' tests: the code under test allocates nothing. */

/*
 * Linked into a codec's unit test built with the allocators wrapped
 * (nomem.h) and the test's own allocations left to the real allocator
 * (-include nomem.h): from the start the first allocation of the code
 * under test fails, and at the end none may have been made.  For a
 * codec, "each allocation failing in turn" is this one run: it reads and
 * writes caller's buffers, and no allocation can fail inside it.
 */
#include <stdio.h>
#include <unistd.h>

#include "nomem.h"

static void __attribute__((constructor))
nomem_none_start(void)
{
	nomem_arm(1);
}

static void __attribute__((destructor))
nomem_none_end(void)
{
	if (nomem_count() == 0)
		return;
	fprintf(stderr, "nomem: the code under test made %ld allocations, "
	    "not none: it needs a scenario with each one failing\n", nomem_count());
	_exit(1);
}
