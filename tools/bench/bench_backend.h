/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/bench_backend.h - in-memory buffers for the producer paths of
 * `etwforge bench` (the per-buffer contract of writer/backend.h): one
 * buffer per CPU, lent again as soon as it is put back. Nothing is copied
 * or zeroed, so what is timed is the producer alone; in a check pass every
 * buffer put back is hashed (CPU, TimeStamp and its events' bytes), so the
 * timed passes can be held to the same output.
 */
#ifndef TOOLS_LIB_BENCH_BACKEND_H
#define TOOLS_LIB_BENCH_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <xxhash.h>

#include "writer/backend.h"

/**
 * struct bench_backend - the buffers and what went through them.
 * @buffers:     buffers put back (bench_backend_end() included)
 * @events:      events in them
 * @event_bytes: their unaligned Size, summed
 */
struct bench_backend {
	unsigned cpus;
	uint32_t size;
	uint8_t *mem;	     /* @cpus buffers of @size bytes */
	struct etl_buf *buf; /* [@cpus] */
	bool *held;	     /* [@cpus]: lent to the producer */
	XXH3_state_t *hash;  /* NULL: count only */
	uint64_t buffers;
	uint64_t events;
	uint64_t event_bytes;
};

extern const struct etl_backend_ops bench_backend_ops;

/** bench_backend_init - @cpus buffers of @size bytes. Return: 0 or -ENOMEM. */
int bench_backend_init(struct bench_backend *bk, unsigned cpus, uint32_t size);

/** bench_backend_free - free the buffers. */
void bench_backend_free(struct bench_backend *bk);

/**
 * bench_backend_begin - a new pass: no buffer lent, counters at zero,
 * hashing when @hash. Return: 0 or -ENOMEM.
 */
int bench_backend_begin(struct bench_backend *bk, bool hash);

/**
 * bench_backend_end - the end of a pass (what writer_finish() does): the
 * buffers still lent are put back. Return: the XXH3-64 of the pass (0
 * without hashing).
 */
uint64_t bench_backend_end(struct bench_backend *bk);

struct producer;
struct producer_cfg;

/**
 * bench_backend_producer_cfg - the producer the producer paths time: x64,
 * @cpus CPUs, CSwitch v4, quirks on, one session "etwforge bench" on the
 * cycle clock logging @flags (PRODUCER_F_*) into @bk's buffers.
 */
void bench_backend_producer_cfg(struct producer_cfg *cfg, struct bench_backend *bk, unsigned cpus,
				uint32_t flags);

/**
 * bench_backend_pass_begin - a new pass (bench_backend_begin(), hashing when
 * @hash) and the producer of @cfg writing into it.
 * Return: the producer (returned, not stored through a pointer, so the
 * timed loop keeps it in a register), or NULL with errno set.
 */
struct producer *bench_backend_pass_begin(struct bench_backend *bk, const struct producer_cfg *cfg,
					  bool hash);

/**
 * struct bench_pass - what one pass of a producer path gave.
 * @events: events in the buffers
 * @bytes:  their unaligned Size, summed
 * @xxh3:   the pass's hash (0 unless hashed)
 * @ns:     the pass's time, preempted laps taken out (bench_laps_ns())
 */
struct bench_pass {
	uint64_t events;
	uint64_t bytes;
	uint64_t xxh3;
	double ns;
};

/**
 * bench_backend_pass_end - the end of a producer pass, after its timed laps:
 * destroy @p (its pending batches reach the buffers), bench_backend_end(),
 * and the pass's figures in @out. @bad: the producer calls' returns OR-ed
 * together; @lap_ns: @nlaps laps of @window events, @count events in all.
 * Return: 0, @bad when it is negative, or -ENOMEM.
 */
int bench_backend_pass_end(struct bench_backend *bk, struct producer *p, int bad,
			   const float *lap_ns, uint64_t nlaps, uint64_t count, unsigned window,
			   struct bench_pass *out);

#endif /* TOOLS_LIB_BENCH_BACKEND_H */
