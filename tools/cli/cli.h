/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/cli.h - what the subcommands of the `etwforge` tool share: the exit
 * statuses (the one place where the library's error kinds become them),
 * one-line option errors, and printing a library error.
 */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include "etwforge/etwforge.h"

/* The exit statuses of the tool (etwforge(1), EXIT STATUS). */
enum {
	EXIT_OK = 0,	/* success */
	EXIT_DATA = 1,	/* bad data, failed check, write error: ETWFORGE_ERROR_DATA */
	EXIT_USAGE = 2, /* bad usage, scenario or stream, outputs that collide: _INPUT */
	/*
	 * A command stopped because standard output failed and said nothing:
	 * main() says why on one line and exits EXIT_DATA. A command that
	 * failed otherwise has said why itself, and main() adds nothing.
	 */
	EXIT_STDOUT_FAILED = -1,
};

/**
 * cli_signals_install - once, first in main(): every signal whose default
 * action ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2,
 * SIGALRM, the real-time ones, ...) removes the temporary files of the runs
 * in progress (etwforge_outputs_abandon()), runs the cli_at_signal() hook,
 * and exits with 128 + the signal number; the fault signals (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS) and SIGABRT clean up the same
 * way, then end as they would have (a core dump, a sanitizer's report). A
 * signal ignored on entry stays ignored (nohup, background jobs). SIGPIPE
 * and SIGXFSZ are ignored, so a closed pipe (EPIPE) and a file-size limit
 * (EFBIG) are write errors a command decides about (cli_error(),
 * cli_exit_sigpipe()).
 */
void cli_signals_install(void);

/**
 * cli_at_signal - @fn (NULL: none) runs in that handler after the library's
 * temporary files are removed, just before the exit: for files and folders
 * of the command's own a signal must not leave behind (`etwforge bench`'s
 * scratch folder). It must be async-signal-safe.
 */
void cli_at_signal(void (*fn)(int sig));

/**
 * cli_option_error - the one-line complaint about the option getopt_long()
 * refused (it must run with opterr = 0 and an optstring starting with ':').
 * @cmd: "gen", "replay", ...; @c: what getopt_long() returned (':' = a value
 * is missing, anything else = unknown option).
 * Return: EXIT_USAGE, for `return cli_option_error(...)`.
 */
int cli_option_error(const char *cmd, int c, char *const *argv);

/**
 * cli_err - the error object the commands hand to the library: one for the
 * process, made at the first call and freed at exit. NULL when there is no
 * memory for it (the library takes NULL; cli_error() then says "out of
 * memory").
 */
struct etwforge_error *cli_err(void);

/**
 * cli_exit_status - the exit status @err calls for: ETWFORGE_ERROR_INPUT
 * is EXIT_USAGE, every other error EXIT_DATA (NULL: EXIT_DATA).
 */
int cli_exit_status(const struct etwforge_error *err);

/**
 * cli_error - print @err on one line (a message that says its own place as
 * it is, others after "etwforge @cmd: ").
 * Return: the exit status it calls for (cli_exit_status()). A closed pipe (EPIPE) when
 * standard output's reader has gone is no error to report: the process
 * ends by SIGPIPE, silently (cli_exit_sigpipe()).
 */
int cli_error(const char *cmd, const struct etwforge_error *err);

/**
 * cli_stdout_gone - standard output is a pipe or socket whose reader has
 * gone (`etwforge dump x.etl | head`): a write there fails with EPIPE.
 */
bool cli_stdout_gone(void);

/**
 * cli_exit_sigpipe - end as GNU tools do when their reader stops
 * reading: killed by SIGPIPE (the shell says 141), no message. Call it
 * once the library has removed the run's temporary files (it has when a
 * call has returned).
 */
_Noreturn void cli_exit_sigpipe(void);

/**
 * cli_parse_cpu_list - a CPU list such as "0-3,8" (numbers and ranges
 * a-b, comma-separated) into @mask: bit c of byte c / 8 for CPU c, CPUs
 * below @max (a multiple of 8; @mask holds @max / 8 bytes, cleared first).
 * Return: 0; -EINVAL not a list (@why says what); -ERANGE a CPU >= @max.
 */
int cli_parse_cpu_list(const char *s, uint8_t *mask, unsigned max, const char **why);

/**
 * cli_parse_duration - a duration option's value: a number and its unit
 * (ns, us, ms, s, min, h: "250us", "1.5s"), or "0". A bare number other
 * than 0 is refused: in a scenario file it means nanoseconds, but typed on
 * the command line it is more often seconds or milliseconds without their
 * unit, and a run of 5 ns is not what anyone meant.
 * Return: 0 with *@ns; -EINVAL not a duration, -ENOMSG a bare number
 * (what @why says either way), -ERANGE above 2^63-1 ns.
 */
int cli_parse_duration(const char *s, int64_t *ns, const char **why);

#endif /* TOOLS_CLI_H */
