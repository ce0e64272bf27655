/* SPDX-License-Identifier: MIT */
/*
 * tests/stream_gen.h - random but self-consistent multi-CPU switch streams
 * for property tests: per CPU the new thread of a switch is the old thread
 * of the next, time and ticks never go backwards, and the values hit every
 * boundary the batching rules care about (idle/short deltas, 0x20000,
 * exactly 0x40000000 and above, > 500 ticks, > 16 threads, waits 0/1/2/
 * huge, priorities above/below base, every state and wait reason).
 * Deterministic: a seed in, the same stream out.
 */
#ifndef TESTS_STREAM_GEN_H
#define TESTS_STREAM_GEN_H

#include <stdint.h>

#include "scheduler_model/sim_rng.h"
#include "producer/trace_sink.h"

struct stream_gen {
	struct sim_rng rng; /* the models' xoshiro256** */
	unsigned cpus;
	uint8_t max_wait_reason;
	unsigned nthreads; /* pool of TIDs 1000.. */
	uint32_t tick[1024];
	uint64_t ts[1024][SIM_CLOCK_SLOTS];
	uint32_t cur[1024]; /* thread running on each CPU (0 = idle) */
	int8_t base[4096];
	uint64_t pmc[1024][SIM_MAX_COUNTERS];
	uint64_t pebs[1024];
};

/** stream_gen_init - @cpus <= 1024, @nthreads <= 4096. */
void stream_gen_init(struct stream_gen *g, uint64_t seed, unsigned cpus, unsigned nthreads,
		     uint8_t max_wait_reason);

/** stream_gen_next - the next switch (on a random CPU). */
void stream_gen_next(struct stream_gen *g, struct sim_cswitch *cs);

/** stream_gen_end - an end record not before any CPU's last switch. */
void stream_gen_end(const struct stream_gen *g, struct sim_end *end);

/** stream_gen_u64 - the generator's next random number. */
uint64_t stream_gen_u64(struct stream_gen *g);

#endif /* TESTS_STREAM_GEN_H */
