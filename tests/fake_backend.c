// SPDX-License-Identifier: MIT
/*
 * tests/fake_backend.c - the recording backend (see fake_backend.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake_backend.h"
#include "writer/etl_layout.h"
#include "writer/etl_wire.h"

static uint32_t bufsize(const struct fake_backend *fb)
{
	return fb->buffer_size ? fb->buffer_size : FAKE_BUFFER_SIZE;
}

static int fake_get(void *ctx, unsigned cpu, uint64_t clock, struct etl_buf **out)
{
	struct fake_backend *fb = ctx;
	struct etl_buf *b = &fb->held[cpu];

	(void)clock;
	if (fb->refuse) {
		fb->refused++;
		return fb->refuse;
	}
	if (cpu >= FAKE_MAX_CPUS) {
		return -EINVAL;
	}
	if (!b->base) {
		b->base = fb->mem[cpu];
		b->size = bufsize(fb);
		b->cpu = cpu;
		b->pos = ETL_BH_LEN;
		b->events = 0;
		b->event_bytes = 0;
		memset(b->base, 0xA5, b->size); /* catch bytes the producer forgets to write */
	}
	*out = b;
	return 0;
}

static int fake_put(void *ctx, struct etl_buf *b, uint64_t ts)
{
	struct fake_backend *fb = ctx;

	if (fb->nput >= FAKE_MAX_BUFFERS) {
		return -EIO;
	}
	fb->put_mem[fb->nput] = malloc(b->size);
	if (!fb->put_mem[fb->nput]) {
		return -ENOMEM;
	}
	memcpy(fb->put_mem[fb->nput], b->base, b->size);
	fb->put[fb->nput] = *b;
	fb->put[fb->nput].base = fb->put_mem[fb->nput];
	fb->put_ts[fb->nput] = ts;
	fb->nput++;
	b->base = NULL; /* the CPU holds none */
	return 0;
}

static uint32_t fake_max_event(void *ctx)
{
	return bufsize(ctx) - ETL_BH_LEN;
}

const struct etl_backend_ops fake_backend_ops = {
	.buffer_get = fake_get,
	.buffer_put = fake_put,
	.max_event = fake_max_event,
};

static void list_buffer(struct fake_backend *fb, const struct etl_buf *b, uint64_t put_ts)
{
	for (uint32_t pos = ETL_BH_LEN; pos < b->pos && fb->n < FAKE_MAX_EVENTS;) {
		struct fake_event *e = &fb->ev[fb->n++];
		uint16_t size = get_le16(b->base + pos + ETL_TH_SIZE);

		e->cpu = b->cpu;
		e->ts = get_le64(b->base + pos + ETL_TH_TS);
		e->size = size;
		memset(e->bytes, 0xA5, sizeof(e->bytes));
		memcpy(e->bytes, b->base + pos, size < FAKE_MAX_SIZE ? size : FAKE_MAX_SIZE);
		e->committed = 1;
		e->put_ts = put_ts;
		pos += (uint32_t)etl_align8(size ? size : 8);
	}
}

static void refresh(struct fake_backend *fb)
{
	fb->n = 0;
	for (unsigned i = 0; i < fb->nput; i++) {
		list_buffer(fb, &fb->put[i], fb->put_ts[i]);
	}
	for (unsigned c = 0; c < FAKE_MAX_CPUS; c++) {
		if (fb->held[c].base) {
			list_buffer(fb, &fb->held[c], 0);
		}
	}
}

unsigned fake_n(struct fake_backend *fb)
{
	refresh(fb);
	return fb->n;
}

struct fake_event *fake_ev(struct fake_backend *fb)
{
	refresh(fb);
	return fb->ev;
}

void fake_reset(struct fake_backend *fb)
{
	for (unsigned i = 0; i < fb->nput; i++) {
		free(fb->put_mem[i]);
	}
	memset(fb, 0, sizeof(*fb));
}
