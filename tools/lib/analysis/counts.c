// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/counts.c - the counts and CPU times of a whole trace a
 * batch at a time (ETWFORGE_DETAIL_COUNTS).
 */
#include <errno.h>

#include "tools/lib/analysis/state.h"

int counts_run(struct etwforge_analysis *a, struct etwforge_error *err)
{
	(void)a;
	(void)err;
	return -EAGAIN;
}
