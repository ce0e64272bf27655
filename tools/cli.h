/* SPDX-License-Identifier: MIT */
/*
 * tools/cli.h - small command-line helpers shared by the subcommands.
 */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

/**
 * cli_option_error - the one-line complaint about the option getopt_long()
 * refused (it must run with opterr = 0 and an optstring starting with ':').
 * @cmd: "gen", "replay", ...; @c: what getopt_long() returned (':' = a value
 * is missing, anything else = unknown option).
 * Return: EXIT_USAGE, for `return cli_option_error(...)`.
 */
int cli_option_error(const char *cmd, int c, char *const *argv);

#endif /* TOOLS_CLI_H */
