/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/api.h - what the public API's implementation files share: the
 * opaque handles' contents and filling struct etwforge_error. Private to
 * the library.
 */
#ifndef TOOLS_LIB_API_H
#define TOOLS_LIB_API_H

#include "etwforge/etwforge.h"
#include "tools/lib/scenario/scenario.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/lib/run/input_check.h"
#include "tools/lib/run/session_run.h"
#include "tools/lib/run/summary.h"

/** struct etwforge_scenario - a scenario being built (handle of the API). */
struct etwforge_scenario {
	struct scenario sc;
};

/** api_file_reader - the reader behind a file handle. */
struct etl_reader *api_file_reader(const struct etwforge_file *f);
/** api_file_keep_going - was @f opened with ETWFORGE_OPEN_KEEP_GOING? */
bool api_file_keep_going(const struct etwforge_file *f);

#endif /* TOOLS_LIB_API_H */
