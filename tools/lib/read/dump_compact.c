// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/dump_compact.c - batch expansion for the dump listing (see
 * dump_compact.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/lib/read/dump_compact.h"

struct cpu_slot {
	bool init;
	bool have_peek;
	struct dec_cursor cur;
	struct dec_event peek;
	bool have_err; /* the cursor met a damaged batch, maybe ahead of the listing */
	struct etl_error err;
};

struct dump_expander {
	const struct etl_reader *d;
	uint8_t max_wait_reason;
	unsigned ncpu;
	struct cpu_slot *cpu;
};

struct dump_expander *dump_expander_create(const struct etl_reader *d, uint8_t max_wait_reason)
{
	struct dump_expander *x = calloc(1, sizeof(*x));

	if (!x) {
		return NULL;
	}
	x->d = d;
	x->max_wait_reason = max_wait_reason;
	x->ncpu = 2048; /* ProcessorIndex is 11 bits */
	x->cpu = calloc(x->ncpu, sizeof(*x->cpu));
	if (!x->cpu) {
		free(x);
		return NULL;
	}
	return x;
}

void dump_expander_destroy(struct dump_expander *x)
{
	if (!x) {
		return;
	}
	free(x->cpu);
	free(x);
}

/* Peek the next compact event of @s. Return: 1, 0 at the end, -EINVAL. */
static int peek(struct dump_expander *x, struct cpu_slot *s, unsigned cpu, struct etl_error *err)
{
	if (!s->init) {
		dec_cursor_init(&s->cur, x->d, cpu, DEC_EV_COMPACT, x->max_wait_reason);
		s->init = true;
	}
	if (!s->have_peek && !s->have_err) {
		int r = dec_cursor_next(&s->cur, &s->peek, &s->err);

		if (r == 0) {
			return 0;
		}
		if (r < 0) {
			s->have_err = true;
		} else {
			s->have_peek = true;
		}
	}
	if (s->have_err && !s->have_peek) {
		*err = s->err;
		return -EINVAL;
	}
	return 1;
}

int dump_expander_batch(struct dump_expander *x, const struct etl_record *rec, dump_switch_fn fn,
			void *ctx, struct etl_error *err)
{
	struct cpu_slot *s;
	int r;

	if (rec->cpu >= x->ncpu) {
		return 0;
	}
	s = &x->cpu[rec->cpu];
	while ((r = peek(x, s, rec->cpu, err)) > 0) {
		if (s->peek.rec.file_offset > rec->file_offset) {
			return 0; /* met out of order: leave it */
		}
		s->have_peek = false;
		if (s->peek.rec.file_offset == rec->file_offset) {
			fn(ctx, &s->peek);
		}
	}
	if (r < 0 && err->offset >= rec->file_offset + rec->size) {
		return 0; /* the damage is in a later batch: said when the listing gets there */
	}
	if (r < 0) {
		s->have_err = false; /* said now; the cursor goes on after the batch */
		return -EINVAL;
	}
	return 0;
}
