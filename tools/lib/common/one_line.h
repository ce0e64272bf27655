/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/one_line.h - every error message is one line: values echoed into
 * a message (a YAML scalar, a JSON string of the truth) may hold line breaks
 * or other control characters, which become "\n"-style escapes.
 */
#ifndef ETWFORGE_TOOLS_LIB_ONE_LINE_H
#define ETWFORGE_TOOLS_LIB_ONE_LINE_H

#include <stddef.h>

/**
 * one_line - rewrite the string in @err (a buffer of @errlen bytes) with
 * '\n', '\r', '\t' as two-character escapes and other control characters
 * as "\xHH"; cut to @errlen - 1 bytes (and to 2047) like snprintf.
 */
void one_line(char *err, size_t errlen);

#endif
