// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/one_line.c - keep an error message on one line (one_line.h):
 * scenario errors, truth stream errors and every public error pass through
 * it, so no input can split the one-line `file:line: what` form.
 */
#include <stdio.h>

#include "tools/lib/common/one_line.h"

void one_line(char *err, size_t errlen)
{
	char tmp[2048];
	size_t o = 0;

	if (!err || errlen == 0) {
		return;
	}
	for (const char *p = err; *p && o + 5 < sizeof(tmp); p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n' || c == '\r' || c == '\t') {
			tmp[o++] = '\\';
			tmp[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20 || c == 0x7F) {
			o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "\\x%02x", c);
		} else {
			tmp[o++] = (char)c;
		}
	}
	tmp[o] = '\0';
	snprintf(err, errlen, "%s", tmp);
}
