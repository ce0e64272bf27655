/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/input_file.h - opening a file the user named for reading (a
 * scenario, a truth stream): one wording and one meaning for every command,
 * `PATH: cannot open: REASON`, also for a directory, which fopen() would
 * open and only the first read would refuse.
 */
#ifndef ETWFORGE_TOOLS_LIB_INPUT_FILE_H
#define ETWFORGE_TOOLS_LIB_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "tools/lib/common/error.h"

/**
 * input_open - fopen(@path, "rb"), refusing a directory.
 * Return: the stream, or NULL with errno set and `PATH: cannot open:
 * REASON` in @err (ERR_INPUT, located: a path that names nothing readable).
 */
FILE *input_open(const char *path, struct etwforge_error *err);

#endif
