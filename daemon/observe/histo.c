/* SPDX-License-Identifier: MIT */
/* daemon/observe/histo.c - the buckets every latency histogram of the daemon shares. */
#include "histo.h"

const uint32_t histo_bounds_us[HISTO_BOUNDS] = {
	10, 25, 50, 100, 250, 500,
	1000, 2500, 5000, 10000, 25000, 50000,
	100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
};
