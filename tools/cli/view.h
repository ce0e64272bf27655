/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/view.h - what the pictures of `etwforge dump` share: the file,
 * the window and the CPUs drawn (one lane each), the analysis whose items
 * they draw, and the names of threads (draw.c opens it).
 */
#ifndef TOOLS_CLI_VIEW_H
#define TOOLS_CLI_VIEW_H

#include <stdint.h>

#include "etwforge/etwforge.h"
#include "thread_names.h"

/**
 * struct draw_view - one picture's frame.
 * @from/@to:  the window drawn, ns since the session start
 * @nlanes:    CPUs drawn, in increasing order; @lane_cpu[lane] is the CPU,
 *             @cpu_lane[cpu] its lane or -1 (@ncpu entries)
 */
struct draw_view {
	const struct etwforge_file_info *info;
	struct etwforge_analysis *an;
	const struct thread_names *names;
	uint64_t hz;
	int64_t end_ns;
	int64_t from;
	int64_t to;
	unsigned nlanes;
	unsigned *lane_cpu;
	int *cpu_lane;
	unsigned ncpu;
};

/** draw_lane - the lane of CPU @cpu, -1 when it is not drawn. */
static inline int draw_lane(const struct draw_view *v, unsigned cpu)
{
	return cpu < v->ncpu ? v->cpu_lane[cpu] : -1;
}

#endif /* TOOLS_CLI_VIEW_H */
