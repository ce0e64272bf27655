// SPDX-License-Identifier: MIT
/*
 * tests/cli_util.c - scratch folders and command runs for the CLI suites.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <xxhash.h>
#include <errno.h>

#include "tests/cli_util.h"

char cli_dir[64];

void cli_tmpdir_make(void)
{
	strcpy(cli_dir, "/tmp/etwforge-test-XXXXXX");
	cr_assert_not_null(mkdtemp(cli_dir));
}

void cli_tmpdir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cli_dir);
	cr_assert_eq(system(cmd), 0);
}

int cli_run(const char *fmt, ...)
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

const char *cli_bin(void)
{
	const char *b = getenv("ETWFORGE_BIN");

	cr_assert_not_null(b, "ETWFORGE_BIN is not set: run the suite through meson test");
	return b;
}

int cli_file_xxh3(const char *path, uint64_t *out)
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
