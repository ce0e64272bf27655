/* SPDX-License-Identifier: MIT */
/*
 * tests/cli_util.h - what the command-line suites share: a scratch folder
 * per test, running the built `etwforge` (ETWFORGE_BIN) through the shell,
 * and its exit status.
 */
#ifndef TESTS_CLI_UTIL_H
#define TESTS_CLI_UTIL_H

#include <stdint.h>

/* The current test's scratch folder, made by cli_tmpdir_make(). */
extern char cli_dir[64];

/** cli_tmpdir_make - a fresh /tmp/etwforge-test-XXXXXX in cli_dir (a suite .init). */
void cli_tmpdir_make(void);

/** cli_tmpdir_remove - remove cli_dir and everything in it (a suite .fini). */
void cli_tmpdir_remove(void);

/** cli_run - run a shell command built printf-style. Return: its exit status, -1 if killed. */
int cli_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** cli_file_xxh3 - XXH3-64 of the file at @path. Return: 0 or -errno. */
int cli_file_xxh3(const char *path, uint64_t *out);

/** cli_bin - the etwforge binary under test (asserts ETWFORGE_BIN is set). */
const char *cli_bin(void);

#endif /* TESTS_CLI_UTIL_H */
