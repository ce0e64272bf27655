// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/tables.c - the hash mixer, the slot tables' growth and
 * the string pools the analysis's tables share (see tables.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/tables.h"

uint64_t an_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDu;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53u;
	h ^= h >> 33;
	return h;
}

int an_slots_grow(uint32_t **slots, size_t *nslots, size_t n,
		  uint64_t (*hash)(const void *ctx, uint32_t i), const void *ctx)
{
	size_t cap;
	uint32_t *s;

	if (2 * (n + 1) <= *nslots) {
		return 0;
	}
	cap = *nslots ? 2 * *nslots : 1024;
	s = calloc(cap, sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = hash(ctx, (uint32_t)i) & (cap - 1);

		while (s[k]) {
			k = (k + 1) & (cap - 1);
		}
		s[k] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = s;
	*nslots = cap;
	return 0;
}

size_t an_text_add(struct an_text *t, const char *s, size_t n)
{
	size_t at = t->len;

	while (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *p = realloc(t->buf, cap);

		if (!p) {
			return SIZE_MAX;
		}
		t->buf = p;
		t->cap = cap;
	}
	memcpy(t->buf + at, s, n);
	t->buf[at + n] = '\0';
	t->len += n + 1;
	return at;
}
