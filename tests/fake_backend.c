// SPDX-License-Identifier: MIT
/*
 * tests/fake_backend.c - the recording backend (see fake_backend.h).
 */
#include <errno.h>
#include <string.h>

#include "tests/fake_backend.h"

static int fake_reserve(void *ctx, unsigned cpu, size_t size, uint64_t ts, uint8_t **out)
{
	struct fake_backend *fb = ctx;
	struct fake_event *e;

	if (fb->refuse) {
		fb->refused++;
		return fb->refuse;
	}
	if (fb->n >= FAKE_MAX_EVENTS || size > FAKE_MAX_SIZE) {
		return -E2BIG;
	}
	e = &fb->ev[fb->n++];
	memset(e, 0xA5, sizeof(*e)); /* catch bytes the producer forgets to write */
	e->cpu = cpu;
	e->ts = ts;
	e->size = size;
	e->committed = 0;
	*out = e->bytes;
	return 0;
}

static void fake_commit(void *ctx, unsigned cpu)
{
	struct fake_backend *fb = ctx;

	(void)cpu;
	fb->ev[fb->n - 1].committed = 1;
}

const struct producer_backend_ops fake_backend_ops = {
	.reserve = fake_reserve,
	.commit = fake_commit,
};
