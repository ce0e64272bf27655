// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_damage.c - what `etwforge dump` says about a damaged file, in
 * one place for every mode (listing, --jsonl, --stats, pictures): the
 * damage the salvaging open found and the batches that did not expand, in
 * file order. Without --keep-going a damaged file is one line, the first
 * damage a reader meets; with it, one line per damaged place and a count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

#define DAMAGE_LINES 10000 /* kept for sorting; a file damaged more is counted */

struct damage_line {
	uint64_t offset;
	unsigned seq; /* arrival, so that equal offsets keep their order */
	char msg[320];
};

/*
 * The offset in a reader message, `FILE: offset 0x...: what` (the form the
 * library documents for ETL input); UINT64_MAX when it has none, which
 * sorts it after every located one.
 */
static uint64_t offset_of(const char *msg)
{
	const char *p = strstr(msg, ": offset 0x");
	char *end;
	uint64_t v;

	if (!p) {
		return UINT64_MAX;
	}
	v = strtoull(p + 11, &end, 16);
	return end != p + 11 && *end == ':' ? v : UINT64_MAX;
}

void damage_add(struct damage_log *l, const char *msg, const char *suffix)
{
	uint64_t offset = offset_of(msg);

	l->total++;
	if (l->n == DAMAGE_LINES) {
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct damage_line *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			return; /* counted, not kept: the count still says it */
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].offset = offset;
	l->v[l->n].seq = (unsigned)l->n;
	snprintf(l->v[l->n].msg, sizeof(l->v[l->n].msg), "%s%s", msg, suffix ? suffix : "");
	l->n++;
}

void damage_add_file(struct damage_log *l, struct etwforge_file *f, bool keep_going)
{
	const struct etwforge_damage *dmg, *prev = NULL;
	char suffix[64];

	for (unsigned i = 0; (dmg = etwforge_file_damage_at(f, i)) != NULL; prev = dmg, i++) {
		if (prev && dmg->buffer == prev->buffer) {
			continue; /* one line per buffer */
		}
		snprintf(suffix, sizeof(suffix), " (buffer %u: the rest of it skipped)",
			 dmg->buffer);
		damage_add(l, dmg->msg, keep_going ? suffix : NULL);
		l->buffers++;
	}
}

static int by_offset(const void *a, const void *b)
{
	const struct damage_line *x = a, *y = b;

	if (x->offset != y->offset) {
		return x->offset < y->offset ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t damage_print(struct damage_log *l, const char *prog, const char *name, bool keep_going)
{
	size_t total = l->total;

	fflush(stdout);
	if (l->n) {
		qsort(l->v, l->n, sizeof(*l->v), by_offset);
	}
	for (size_t i = 0; i < l->n && (keep_going || i == 0); i++) {
		fprintf(stderr, "%s\n", l->v[i].msg);
	}
	if (keep_going && l->total > l->n) {
		fprintf(stderr, "%s: %s: %zu more damaged places not listed\n", prog, name,
			l->total - l->n);
	}
	if (keep_going && l->buffers) {
		fprintf(stderr, "%s: %s: %u damaged buffer%s skipped\n", prog, name, l->buffers,
			l->buffers == 1 ? "" : "s");
	}
	free(l->v);
	*l = (struct damage_log){0};
	return total;
}
