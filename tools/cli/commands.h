/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/commands.h - the subcommands of the `etwforge` executable. Each takes
 * the arguments after its name (argv[0] = the subcommand) and returns the
 * process exit status: 0 success, 1 bad data / failed check / write error,
 * 2 bad usage or scenario.
 */
#ifndef TOOLS_COMMANDS_H
#define TOOLS_COMMANDS_H

int cmd_gen(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fit(int argc, char **argv);

#endif /* TOOLS_COMMANDS_H */
