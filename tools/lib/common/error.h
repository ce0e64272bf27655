/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/error.h - filling the struct etwforge_error every room
 * of the library reports through (its type is the public one): a negative
 * errno comes back, and the struct says why in one line.
 */
#ifndef ETWFORGE_TOOLS_LIB_COMMON_ERROR_H
#define ETWFORGE_TOOLS_LIB_COMMON_ERROR_H

#include "etwforge/etwforge.h"

/**
 * error_fail - fill @err (may be NULL) with @code, @status and the message,
 * made one line.
 * Return: @code, for `return error_fail(...)`.
 */
int error_fail(struct etwforge_error *err, int code, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** error_fail_at - error_fail() for a message that starts with its own place (located). */
int error_fail_at(struct etwforge_error *err, int code, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** error_ok - clear @err (may be NULL). Return: 0. */
int error_ok(struct etwforge_error *err);

#endif
