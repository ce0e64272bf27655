// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/error.c - see error.h.
 */
#include "tools/lib/common/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/common/one_line.h"

static int vfail(struct etwforge_error *err, int code, int kind, bool located, const char *fmt,
		 va_list ap)
{
	if (err) {
		err->code = code;
		err->kind = kind;
		err->located = located;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		one_line(err->msg, sizeof(err->msg));
	}
	return code;
}

int error_fail(struct etwforge_error *err, int code, int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, kind, false, fmt, ap);
	va_end(ap);
	return code;
}

int error_fail_at(struct etwforge_error *err, int code, int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, kind, true, fmt, ap);
	va_end(ap);
	return code;
}

int error_reclass(struct etwforge_error *err, int code, int kind)
{
	if (err) {
		err->code = code;
		err->kind = kind;
	}
	return code;
}

int error_ok(struct etwforge_error *err)
{
	if (err) {
		err->code = 0;
		err->kind = ETWFORGE_ERROR_NONE;
		err->located = false;
		err->msg[0] = '\0';
	}
	return 0;
}

int sized_check(const void *out, size_t own_sz, size_t first_end, const char *what,
		struct etwforge_error *err)
{
	size_t sz;

	memcpy(&sz, out, sizeof(sz));
	if (sz < first_end) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "%s: sz %zu is too small (at least %zu): set it to the size of "
				  "the struct (ETWFORGE_OPTS)",
				  what, sz, first_end);
	}
	for (size_t i = own_sz; i < sz; i++) {
		if (((const unsigned char *)out)[i]) {
			return error_fail(err, -EINVAL, ERR_INPUT,
					  "%s: sz %zu is larger than this library's %zu, and byte "
					  "%zu is not zero: an option this library does not know",
					  what, sz, own_sz, i);
		}
	}
	return 0;
}

int sized_in(void *own, size_t own_sz, const void *in, size_t first_end, const char *what,
	     struct etwforge_error *err)
{
	size_t sz;

	memset(own, 0, own_sz);
	if (in) {
		int rc = sized_check(in, own_sz, first_end, what, err);

		if (rc < 0) {
			return rc;
		}
		memcpy(&sz, in, sizeof(sz));
		memcpy(own, in, sz < own_sz ? sz : own_sz);
	}
	memcpy(own, &own_sz, sizeof(own_sz));
	return 0;
}

void sized_out(void *out, const void *own, size_t own_sz)
{
	size_t sz;

	memcpy(&sz, out, sizeof(sz));
	if (sz > sizeof(sz)) {
		memcpy((unsigned char *)out + sizeof(sz), (const unsigned char *)own + sizeof(sz),
		       (sz < own_sz ? sz : own_sz) - sizeof(sz));
	}
}
