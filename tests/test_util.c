// SPDX-License-Identifier: MIT
/*
 * tests/cli_util.c - scratch folders and command runs for the CLI suites.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <xxhash.h>
#include <errno.h>

#include "tests/test_util.h"

char test_dir[64];

void test_dir_make(void)
{
	strcpy(test_dir, "/tmp/etwforge-test-XXXXXX");
	cr_assert_not_null(mkdtemp(test_dir));
}

void test_dir_remove(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s' && rm -rf '%s'", test_dir, test_dir);
	cr_assert_eq(system(cmd), 0);
}

const char *test_path(const char *name)
{
	static char buf[8][512];
	static unsigned k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", test_dir, name);
	return buf[k];
}

int test_etwforge(const char *args, char *err, size_t cap)
{
	int st = test_run("cd '%s' && '%s' %s 2>err.txt", test_dir, test_bin(), args);

	test_read("err.txt", err, cap);
	return st;
}

char *test_read(const char *name, char *buf, size_t cap)
{
	const char *p = test_path(name);
	FILE *f = fopen(p, "rb");
	size_t n;

	cr_assert_not_null(f, "%s", p);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

const char *test_write(const char *name, const void *data, size_t len)
{
	const char *p = test_path(name);
	FILE *f = fopen(p, "wb");

	cr_assert_not_null(f, "%s", p);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return p;
}

int test_run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *test_bin(void)
{
	const char *b = getenv("ETWFORGE_BIN");

	cr_assert_not_null(b, "ETWFORGE_BIN is not set: run the suite through meson test");
	return b;
}

int test_file_xxh3(const char *path, uint64_t *out)
{
	static unsigned char buf[1 << 16];
	XXH3_state_t *st;
	FILE *f = fopen(path, "rb");
	size_t n;
	int rc = 0;

	if (!f) {
		return -errno;
	}
	st = XXH3_createState();
	if (!st) {
		fclose(f);
		return -ENOMEM;
	}
	XXH3_64bits_reset(st);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		XXH3_64bits_update(st, buf, n);
	}
	if (ferror(f)) {
		rc = -EIO;
	}
	*out = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	fclose(f);
	return rc;
}

char *test_sample(const char *name)
{
	static char path[4096];
	const char *d = getenv("ETWFORGE_SAMPLES");

	cr_assert_not_null(d, "ETWFORGE_SAMPLES is not set");
	snprintf(path, sizeof(path), "%s/%s", d, name);
	return path;
}

size_t test_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (n < cap && isxdigit((unsigned char)hex[2 * n]) &&
	       isxdigit((unsigned char)hex[2 * n + 1])) {
		unsigned v;

		sscanf(hex + 2 * n, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}
