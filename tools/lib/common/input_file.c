// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/input_file.c - see input_file.h.
 */
#include "tools/lib/common/input_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

FILE *input_open(const char *path, struct etwforge_error *err)
{
	FILE *f = fopen(path, "rb");
	/* = {0}: MemorySanitizer of clang < 15 does not see fstat() fill it */
	struct stat st = {0};
	int e;

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		e = errno;
		error_fail_at(err, -e, ERR_INPUT, "%s: cannot open: %s", path, strerror(e));
		errno = e;
	}
	return f;
}
