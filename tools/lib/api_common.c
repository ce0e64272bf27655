// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_common.c - the small things every public entry point
 * needs: the error object's accessors, the version, the outputs abandoned
 * from a signal handler and the closed standard descriptors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

struct etwforge_error *etwforge_error_new(void)
{
	return calloc(1, sizeof(struct etwforge_error));
}

void etwforge_error_free(struct etwforge_error *err)
{
	free(err);
}

const char *etwforge_error_message(const struct etwforge_error *err)
{
	return err ? err->msg : "";
}

int etwforge_error_code(const struct etwforge_error *err)
{
	return err ? err->code : 0;
}

enum etwforge_error_kind etwforge_error_kind(const struct etwforge_error *err)
{
	if (!err || (!err->code && !err->msg[0])) {
		return ETWFORGE_ERROR_NONE;
	}
	return err->kind == ETWFORGE_ERROR_INPUT ? ETWFORGE_ERROR_INPUT : ETWFORGE_ERROR_DATA;
}

bool etwforge_error_located(const struct etwforge_error *err)
{
	return err && err->located;
}
