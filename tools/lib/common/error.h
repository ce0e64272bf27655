/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/error.h - filling the struct etwforge_error every room
 * of the library reports through (opaque in the public header, defined
 * here): a negative errno comes back, and the struct says why in one line
 * and what kind of error it is. Also the size check of the structs with
 * `size_t sz` first (the public header's "Growth").
 */
#ifndef ETWFORGE_TOOLS_LIB_COMMON_ERROR_H
#define ETWFORGE_TOOLS_LIB_COMMON_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#include "etwforge/etwforge.h"

/* The kinds as the rooms write them: INPUT, the caller's input; DATA, the rest. */
#define ERR_INPUT ETWFORGE_ERROR_INPUT
#define ERR_DATA  ETWFORGE_ERROR_DATA

/**
 * struct etwforge_error - the public error object.
 * @code:    the negative errno (0: none)
 * @kind:    enum etwforge_error_kind
 * @located: @msg starts with its own place
 */
struct etwforge_error {
	int code;
	int kind;
	bool located;
	char msg[1024];
};

/**
 * error_fail - fill @err (may be NULL) with @code, @kind (ERR_INPUT or
 * ERR_DATA) and the message, made one line.
 * Return: @code, for `return error_fail(...)`.
 */
int error_fail(struct etwforge_error *err, int code, int kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** error_fail_at - error_fail() for a message that starts with its own place (located). */
int error_fail_at(struct etwforge_error *err, int code, int kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * error_reclass - keep @err's message (may be NULL), and give it @code and
 * @kind: for a caller that knows better what its callee's failure is.
 * Return: @code.
 */
int error_reclass(struct etwforge_error *err, int code, int kind);

/** error_ok - clear @err (may be NULL). Return: 0. */
int error_ok(struct etwforge_error *err);

/**
 * sized_in - take the caller's struct @in (NULL: the defaults, all zero)
 * whose first field is `size_t sz` into @own, the library's struct of
 * @own_sz bytes: its first sz bytes, the rest zero, own->sz = @own_sz.
 * @first_end is where the field after sz ends (a smaller sz names no
 * field); @what names the struct in messages ("struct etwforge_run_opts").
 * Return: 0; -EINVAL (@err, ERR_INPUT) sz below @first_end, or above
 * @own_sz with a byte past it that is not zero.
 */
int sized_in(void *own, size_t own_sz, const void *in, size_t first_end, const char *what,
	     struct etwforge_error *err);

/**
 * sized_check - the same check of the caller's struct @out the library
 * fills (results), without copying. Return: as sized_in().
 */
int sized_check(const void *out, size_t own_sz, size_t first_end, const char *what,
		struct etwforge_error *err);

/**
 * sized_out - copy the library's filled @own (@own_sz bytes, sz first) into
 * the caller's @out (checked by sized_check()): its first out->sz bytes,
 * sz left as the caller set it.
 */
void sized_out(void *out, const void *own, size_t own_sz);

/* Where the field after sz ends, in struct @type. */
#define SIZED_FIRST_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

#endif
