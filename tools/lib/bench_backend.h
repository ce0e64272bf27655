/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/bench_backend.h - in-memory buffers for the producer paths of
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

#endif /* TOOLS_LIB_BENCH_BACKEND_H */
