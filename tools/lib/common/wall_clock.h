/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/wall_clock.h - the wall clock runs report their time by.
 */
#ifndef ETWFORGE_TOOLS_LIB_COMMON_WALL_CLOCK_H
#define ETWFORGE_TOOLS_LIB_COMMON_WALL_CLOCK_H

/** wall_seconds - a monotonic clock, in seconds. */
double wall_seconds(void);

#endif
