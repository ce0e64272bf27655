/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/run_stop.h - the caller's stop flag (etwforge_run_opts.stop):
 * gen and replay look at it between steps and before their outputs go into
 * place; a run told to stop fails as "interrupted" and leaves every target
 * as it was (its outputs are aborted by the caller's usual clean-up).
 */
#ifndef TOOLS_LIB_RUN_RUN_STOP_H
#define TOOLS_LIB_RUN_RUN_STOP_H

#include <errno.h>
#include <stdbool.h>

#include "etwforge/etwforge.h"
#include "tools/lib/common/error.h"

/** run_stopped - has the caller asked @o's run to stop? Then @err = "interrupted". */
static inline bool run_stopped(const struct etwforge_run_opts *o, struct etwforge_error *err)
{
	if (!o->stop || !*o->stop) {
		return false;
	}
	error_fail(err, -ECANCELED, ERR_DATA, "interrupted");
	return true;
}

#endif /* TOOLS_LIB_RUN_RUN_STOP_H */
