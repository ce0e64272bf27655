// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/input_check.c - see input_check.h.
 */
#include "tools/lib/run/input_check.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tools/lib/common/error.h"
#include "tools/lib/run/out_file.h"

int run_stdin_closed(const char *path, struct etwforge_error *err)
{
	if (path && !strcmp(path, "-") && out_std_closed(STDIN_FILENO)) {
		return error_fail(err, -EBADF, ERR_DATA, "standard input is closed");
	}
	return 0;
}
