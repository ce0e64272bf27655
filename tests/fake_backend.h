/* SPDX-License-Identifier: MIT */
/*
 * tests/fake_backend.h - a recording backend for producer tests, on the
 * per-buffer contract of writer/backend.h: it lends one buffer per CPU (the
 * unwritten bytes filled with 0xA5, to catch bytes the producer forgets),
 * keeps the buffers the producer puts back, and can refuse buffers with a
 * given error to test losses. fake_n() / fake_ev() list every event written
 * so far (put back or still held), in the order they were written per CPU,
 * CPUs' buffers in the order they were put (held ones last, by CPU).
 */
#ifndef TESTS_FAKE_BACKEND_H
#define TESTS_FAKE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "writer/backend.h"

#define FAKE_MAX_EVENTS	 4096
#define FAKE_MAX_SIZE	 0x500
#define FAKE_MAX_CPUS	 64
#define FAKE_MAX_BUFFERS 256
#define FAKE_BUFFER_SIZE 0x4000

struct fake_event {
	unsigned cpu;
	uint64_t ts; /* the event's header TS */
	size_t size; /* its Size */
	uint8_t bytes[FAKE_MAX_SIZE];
	int committed;	 /* written completely (always, once listed) */
	uint64_t put_ts; /* TimeStamp its buffer was put back with (0: still held) */
};

struct fake_backend {
	int refuse; /* buffer_get returns this when non-zero */
	unsigned refused;
	uint32_t buffer_size; /* 0 = FAKE_BUFFER_SIZE */
	unsigned nput;
	struct etl_buf put[FAKE_MAX_BUFFERS]; /* buffers put back (copies) */
	uint64_t put_ts[FAKE_MAX_BUFFERS];
	struct etl_buf held[FAKE_MAX_CPUS];
	uint8_t mem[FAKE_MAX_CPUS][FAKE_BUFFER_SIZE];
	uint8_t *put_mem[FAKE_MAX_BUFFERS];
	/* the listing, refreshed by fake_n() / fake_ev() */
	unsigned n;
	struct fake_event ev[FAKE_MAX_EVENTS];
};

extern const struct etl_backend_ops fake_backend_ops;

/** fake_n - events written so far. */
unsigned fake_n(struct fake_backend *fb);

/** fake_ev - the events written so far (refreshed). */
struct fake_event *fake_ev(struct fake_backend *fb);

/** fake_reset - forget everything (free the kept buffers). */
void fake_reset(struct fake_backend *fb);

#endif /* TESTS_FAKE_BACKEND_H */
