/* SPDX-License-Identifier: MIT */
/*
 * tests/fake_sink.h - a recording trace_sink for model tests: counts every
 * record, keeps the first few, hashes all of them (XXH3 over the fields
 * serialized one by one, little-endian, so the digest does not depend on
 * struct padding or the host), forwards each switch to an optional checker
 * and can fail on purpose after a given number of switches.
 */
#ifndef TESTS_FAKE_SINK_H
#define TESTS_FAKE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "producer/trace_sink.h"

/* bytes of one serialized switch record (tag included) */
#define FAKE_SINK_CSWITCH_BYTES                                                                    \
	(1 + 4 + 4 + 8 * SIM_CLOCK_SLOTS + 4 + 5 + 4 + 4 + 3 + 4 + 2 + 4 + 1 +                     \
	 8 * SIM_MAX_COUNTERS + 8)

struct fake_sink {
	uint64_t ncswitch;
	uint64_t nspinlock;
	uint64_t nstop;
	uint64_t nend;
	struct sim_cswitch *keep; /* the first @keep_cap switches */
	size_t keep_cap;
	size_t kept;
	struct sim_end end; /* the last end record */
	void *hash;	    /* XXH3_state_t */
	/* optional: called for every switch before it is counted; non-zero stops the run */
	int (*check)(void *ctx, const struct sim_cswitch *cs);
	void *check_ctx;
	uint64_t fail_after; /* with @fail_rc: switches accepted before failing */
	int fail_rc;
};

/** fake_sink_init - zeroed sink keeping @keep switches. Return: 0 or -ENOMEM. */
int fake_sink_init(struct fake_sink *fs, size_t keep);

/** fake_sink_finish - free what init allocated. */
void fake_sink_finish(struct fake_sink *fs);

/** fake_sink - the trace_sink that records into @fs. */
struct trace_sink fake_sink(struct fake_sink *fs);

/** fake_sink_digest - XXH3-64 of every record so far, in order. */
uint64_t fake_sink_digest(const struct fake_sink *fs);

/** fake_sink_serialize - @cs field by field, little-endian; returns FAKE_SINK_CSWITCH_BYTES. */
size_t fake_sink_serialize(const struct sim_cswitch *cs, uint8_t out[FAKE_SINK_CSWITCH_BYTES]);

#endif /* TESTS_FAKE_SINK_H */
