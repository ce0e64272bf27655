// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_backend.c - in-memory buffers for `etwforge bench` (see
 * bench_backend.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/producer.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_backend.h"
#include "writer/etl_layout.h"
#include "writer/etl_wire.h"

static void account(struct bench_backend *bk, const struct etl_buf *b, uint64_t ts)
{
	bk->buffers++;
	bk->events += b->events;
	bk->event_bytes += b->event_bytes;
	if (bk->hash) {
		uint8_t head[12];

		put_le32(head, b->cpu);
		put_le64(head + 4, ts);
		XXH3_64bits_update(bk->hash, head, sizeof(head));
		XXH3_64bits_update(bk->hash, b->base + ETL_BH_LEN, b->pos - ETL_BH_LEN);
	}
}

static int mem_get(void *ctx, unsigned cpu, uint64_t clock, struct etl_buf **out)
{
	struct bench_backend *bk = ctx;
	struct etl_buf *b;

	(void)clock;
	if (cpu >= bk->cpus) {
		return -EINVAL;
	}
	b = &bk->buf[cpu];
	if (!bk->held[cpu]) {
		b->base = bk->mem + (size_t)cpu * bk->size;
		b->size = bk->size;
		b->cpu = cpu;
		b->pos = ETL_BH_LEN;
		b->events = 0;
		b->event_bytes = 0;
		bk->held[cpu] = true;
	}
	*out = b;
	return 0;
}

static int mem_put(void *ctx, struct etl_buf *b, uint64_t ts)
{
	struct bench_backend *bk = ctx;

	account(bk, b, ts);
	bk->held[b->cpu] = false;
	return 0;
}

static uint32_t mem_max_event(void *ctx)
{
	const struct bench_backend *bk = ctx;
	uint32_t n = bk->size - ETL_BH_LEN;

	return n > 0xFFFFu ? 0xFFFFu : n;
}

const struct etl_backend_ops bench_backend_ops = {
	.buffer_get = mem_get,
	.buffer_put = mem_put,
	.max_event = mem_max_event,
};

int bench_backend_init(struct bench_backend *bk, unsigned cpus, uint32_t size)
{
	memset(bk, 0, sizeof(*bk));
	bk->cpus = cpus;
	bk->size = size;
	bk->mem = calloc(cpus, size);
	bk->buf = calloc(cpus, sizeof(*bk->buf));
	bk->held = calloc(cpus, sizeof(*bk->held));
	if (!bk->mem || !bk->buf || !bk->held) {
		bench_backend_free(bk);
		return -ENOMEM;
	}
	return 0;
}

void bench_backend_free(struct bench_backend *bk)
{
	free(bk->mem);
	free(bk->buf);
	free(bk->held);
	XXH3_freeState(bk->hash);
	memset(bk, 0, sizeof(*bk));
}

int bench_backend_begin(struct bench_backend *bk, bool hash)
{
	memset(bk->held, 0, bk->cpus * sizeof(*bk->held));
	bk->buffers = 0;
	bk->events = 0;
	bk->event_bytes = 0;
	XXH3_freeState(bk->hash);
	bk->hash = NULL;
	if (hash) {
		bk->hash = XXH3_createState();
		if (!bk->hash) {
			return -ENOMEM;
		}
		XXH3_64bits_reset(bk->hash);
	}
	return 0;
}

uint64_t bench_backend_end(struct bench_backend *bk)
{
	uint64_t h = 0;

	for (unsigned c = 0; c < bk->cpus; c++) {
		if (bk->held[c]) {
			account(bk, &bk->buf[c], 0);
			bk->held[c] = false;
		}
	}
	if (bk->hash) {
		h = XXH3_64bits_digest(bk->hash);
		XXH3_freeState(bk->hash);
		bk->hash = NULL;
	}
	return h;
}

void bench_backend_producer_cfg(struct producer_cfg *cfg, struct bench_backend *bk, unsigned cpus,
				uint32_t flags)
{
	struct producer_session *s = &cfg->sessions[0];

	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = ETL_ARCH_X64;
	cfg->cpus = cpus;
	cfg->cswitch_version = 4;
	cfg->max_wait_reason = 40;
	cfg->quirks = true;
	cfg->flush_at_end = true;
	cfg->nsessions = 1;
	s->name = "etwforge bench";
	s->clock = SIM_CLOCK_CYCLES;
	s->flags = flags;
	s->backend = &bench_backend_ops;
	s->backend_ctx = bk;
}

struct producer *bench_backend_pass_begin(struct bench_backend *bk, const struct producer_cfg *cfg,
					  bool hash)
{
	int rc = bench_backend_begin(bk, hash);

	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return producer_create(cfg);
}

int bench_backend_pass_end(struct bench_backend *bk, struct producer *p, int bad,
			   const float *lap_ns, uint64_t nlaps, uint64_t count, unsigned window,
			   struct bench_pass *out)
{
	producer_destroy(p);
	out->xxh3 = bench_backend_end(bk);
	out->events = bk->events;
	out->bytes = bk->event_bytes;
	if (bad < 0) {
		return bad;
	}
	out->ns = bench_laps_ns(lap_ns, nlaps, count, window);
	return out->ns < 0 ? -ENOMEM : 0;
}
