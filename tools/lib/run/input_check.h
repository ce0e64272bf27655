/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/input_check.h - an input named "-" when standard input was
 * closed at the start (etwforge_stdio_guard()): what took its place would
 * be read instead, so it is refused.
 */
#ifndef ETWFORGE_TOOLS_LIB_RUN_INPUT_CHECK_H
#define ETWFORGE_TOOLS_LIB_RUN_INPUT_CHECK_H

#include "etwforge/etwforge.h"

/**
 * run_stdin_closed - @path is "-" and standard input was closed at
 * etwforge_stdio_guard(): reading it would read nothing, or what took
 * its place. Return: -EBADF with @err ("standard input is closed", exit
 * status 1), else 0.
 */
int run_stdin_closed(const char *path, struct etwforge_error *err);

#endif
