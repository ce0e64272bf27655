// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/suggest.c - "did you mean": the closest of some names to
 * what was typed, by edit distance ignoring case, for every message about a
 * name that is not one (scenario keys and values, truth fields and kinds).
 */
#include "tools/lib/common/suggest.h"

#include <stdio.h>
#include <string.h>

/* did you mean: the closest name by edit distance, ignoring case */

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[65];
	size_t la = strlen(a);
	size_t lb = strlen(b);

	if (la > 64 || lb > 64) {
		return 1000;
	}
	for (size_t j = 0; j <= lb; j++) {
		row[j] = (unsigned)j;
	}
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (lower(a[i - 1]) != lower(b[j - 1]));

			if (up + 1 < best) {
				best = up + 1;
			}
			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *suggest_name(const char *s, const char *const *cands, unsigned n)
{
	const char *best = NULL;
	unsigned bd = 1000;

	for (unsigned i = 0; i < n; i++) {
		unsigned d;
		unsigned limit;

		if (!cands[i]) {
			continue;
		}
		d = edit_distance(s, cands[i]);
		limit = strlen(cands[i]) >= 6 ? 2 : 1;
		if (d <= limit && d < bd) {
			best = cands[i];
			bd = d;
		}
	}
	return best;
}

/* "a, b, c" into @buf. */
void join_names(char *buf, size_t len, const char *const *names, unsigned n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int k;

		if (!names[i]) {
			continue;
		}
		k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
		if (k < 0 || (size_t)k >= len - at) {
			break;
		}
		at += (size_t)k;
	}
}
