/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz.h - the libFuzzer entry point, shared by targets and replay. */
#ifndef NAMECACHE_FUZZ_H
#define NAMECACHE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Each fuzz-<name>.c defines this.  Under clang with -Dfuzz=true it is
 * linked with libFuzzer; always, it is linked with replay.c, which runs it
 * over the checked-in corpus as a plain test.  Returns 0.
 */
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant the code under test broke: a crash the fuzzer reports. */
#define FUZZ_CHECK(x)	do { if (!(x)) abort(); } while (0)

#endif
