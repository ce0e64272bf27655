// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/grow.c - arrays that grow by doubling (see grow.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "tools/lib/common/grow.h"

void *grow_room(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t want;
	void *p;

	if (n < *cap) {
		return v;
	}
	want = *cap ? *cap * 2 : first;
	if (want <= n || want > SIZE_MAX / size) {
		return NULL;
	}
	p = realloc(v, want * size);
	if (p) {
		*cap = want;
	}
	return p;
}
