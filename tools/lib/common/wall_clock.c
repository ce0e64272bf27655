// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/wall_clock.c - see wall_clock.h.
 */
#include "tools/lib/common/wall_clock.h"

#include <time.h>

double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
