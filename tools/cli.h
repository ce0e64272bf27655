/* SPDX-License-Identifier: MIT */
/*
 * tools/cli.h - what the subcommands of the `etwforge` tool share: the exit
 * statuses, one-line option errors, and printing a library error.
 */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include "etwforge/etwforge.h"

enum {
	EXIT_OK = ETWFORGE_EXIT_OK,
	EXIT_DATA = ETWFORGE_EXIT_DATA,
	EXIT_USAGE = ETWFORGE_EXIT_USAGE,
};

/**
 * cli_option_error - the one-line complaint about the option getopt_long()
 * refused (it must run with opterr = 0 and an optstring starting with ':').
 * @cmd: "gen", "replay", ...; @c: what getopt_long() returned (':' = a value
 * is missing, anything else = unknown option).
 * Return: EXIT_USAGE, for `return cli_option_error(...)`.
 */
int cli_option_error(const char *cmd, int c, char *const *argv);

/**
 * cli_error - print @err on one line (a message that says its own place as
 * it is, others after "etwforge @cmd: ").
 * Return: the exit status it calls for.
 */
int cli_error(const char *cmd, const struct etwforge_error *err);

#endif /* TOOLS_CLI_H */
