// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_common.c - the small things every public entry point
 * needs: filling struct etwforge_error, the version, a wall clock, the
 * signals and the closed standard descriptors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/lib/api.h"
#include "tools/lib/common/one_line.h"
#include "tools/lib/run/out_file.h"

const char *etwforge_version(void)
{
	return ETWFORGE_VERSION;
}

void etwforge_outputs_abandon(void)
{
	out_abandon();
}

unsigned etwforge_stdio_guard(void)
{
	return out_std_guard();
}

bool etwforge_stdio_closed(int fd)
{
	return out_std_closed(fd);
}
