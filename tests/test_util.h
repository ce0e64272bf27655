/* SPDX-License-Identifier: MIT */
/*
 * tests/test_util.h - what the suites share: the one scratch folder helper
 * (a fresh folder per test, paths and files in it), running the built
 * `etwforge` (ETWFORGE_BIN) through the shell, hashing a file.
 */
#ifndef TESTS_TEST_UTIL_H
#define TESTS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The current test's scratch folder, made by test_dir_make(). */
extern char test_dir[64];

/** test_dir_make - a fresh /tmp/etwforge-test-XXXXXX in test_dir (a suite .init). */
void test_dir_make(void);

/** test_dir_remove - remove test_dir and everything in it (a suite .fini). */
void test_dir_remove(void);

/** test_path - "SCRATCH/@name" (one of 8 rotating buffers: keep no more at once). */
const char *test_path(const char *name);

/** test_write - write @len bytes of @data to SCRATCH/@name. Return: its path (test_path()). */
const char *test_write(const char *name, const void *data, size_t len);

/**
 * test_etwforge - run `etwforge @args` (shell words) in the scratch folder, its
 * standard error into @err (@cap bytes, NUL-terminated). Return: its exit status.
 */
int test_etwforge(const char *args, char *err, size_t cap);

/** test_read - SCRATCH/@name into @buf (@cap bytes, NUL-terminated, cut to fit). Return: @buf. */
char *test_read(const char *name, char *buf, size_t cap);

/** test_run - run a shell command built printf-style. Return: its exit status, -1 if killed. */
int test_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** test_file_xxh3 - XXH3-64 of the file at @path. Return: 0 or -errno. */
int test_file_xxh3(const char *path, uint64_t *out);

/** test_bin - the etwforge binary under test (asserts ETWFORGE_BIN is set). */
const char *test_bin(void);

/** test_sample - $ETWFORGE_SAMPLES/@name (a Windows sample); fails the test if unset. Static buffer. */
char *test_sample(const char *name);

/**
 * test_unhex - the bytes of hex text @hex (dump's "raw": two digits a byte,
 * to the first character that is not) into @out, at most @cap. Return: how many.
 */
size_t test_unhex(const char *hex, uint8_t *out, size_t cap);

#endif /* TESTS_TEST_UTIL_H */
