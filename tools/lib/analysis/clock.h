/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/clock.h - the clock of a file (clock.c): its session
 * clock's rate, nanoseconds since the session started of a timestamp, the
 * end of tracing, the interrupt tick. Every time an analysis reports is
 * one of these nanoseconds; every sum it keeps is in clock units and is
 * turned into nanoseconds once.
 */
#ifndef TOOLS_LIB_ANALYSIS_CLOCK_H
#define TOOLS_LIB_ANALYSIS_CLOCK_H

#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * struct an_clock - a file's clock.
 * @hz:       session clock units per second (QPC: PerfFreq; system time:
 *            10^7; CPU cycles: CpuSpeedInMHz x 10^6; 10^7 when unknown)
 * @start_ts: the session start in clock units (the header event's time)
 * @end_ns:   the end of tracing (EndTime, else the latest buffer's time)
 * @end_ts:   the same in clock units
 * @tick_ns:  the interrupt tick, TimerResolution x 100 ns (0: unknown)
 * @bucket_at: the fewest clock units whose span is 2^k ns or more, for each
 *            k of a distribution's buckets (an_bucket() divides nothing)
 */
struct an_clock {
	uint64_t hz;
	uint64_t start_ts;
	int64_t end_ns;
	uint64_t end_ts;
	uint64_t tick_ns;
	uint64_t bucket_at[64];
	int log2_ns_per_tick; /* floor(log2(10^9 / @hz)): where an_bucket() starts */
};

/**
 * an_bucket - the distribution bucket of a span of @ticks clock units: k
 * where 2^k <= its ns < 2^(k+1) (0 for 0 and 1 ns), the ns as an_span_ns().
 */
unsigned an_bucket(const struct an_clock *c, uint64_t ticks);

/** an_clock_init - the clock of @f (reads its buffer headers when EndTime is missing). */
void an_clock_init(struct an_clock *c, struct etwforge_file *f);

/** an_clock_buckets - @bucket_at and @log2_ns_per_tick of @c, from its @hz. */
void an_clock_buckets(struct an_clock *c);

/** an_ns - @ts as ns since the session start; negative before it, saturated. */
int64_t an_ns(const struct an_clock *c, uint64_t ts);

/** an_span_ns - a span of @ticks clock units in ns (rounded down, saturated). */
uint64_t an_span_ns(const struct an_clock *c, uint64_t ticks);

/** an_ts_at - the first timestamp whose an_ns() is @ns or later (saturated). */
uint64_t an_ts_at(const struct an_clock *c, int64_t ns);

#endif /* TOOLS_LIB_ANALYSIS_CLOCK_H */
