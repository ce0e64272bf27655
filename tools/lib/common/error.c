// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/error.c - see error.h.
 */
#include "tools/lib/common/error.h"

#include <stdarg.h>
#include <stdio.h>

#include "tools/lib/common/one_line.h"

static int vfail(struct etwforge_error *err, int code, int status, bool located, const char *fmt,
		 va_list ap)
{
	if (err) {
		err->code = code;
		err->status = status;
		err->located = located;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		one_line(err->msg, sizeof(err->msg));
	}
	return code;
}

int error_fail(struct etwforge_error *err, int code, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, status, false, fmt, ap);
	va_end(ap);
	return code;
}

int error_fail_at(struct etwforge_error *err, int code, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, status, true, fmt, ap);
	va_end(ap);
	return code;
}

int error_ok(struct etwforge_error *err)
{
	if (err) {
		err->code = 0;
		err->status = ETWFORGE_EXIT_OK;
		err->located = false;
		err->msg[0] = '\0';
	}
	return 0;
}
