/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/bench_ccswap.h - a repeatable benchmark of the compact CSwitch
 * batching engine alone (ccswap_log() into in-memory blocks), shared by
 * `etwforge bench` (bench_compact.c, bench_cswitch.c) and the meson
 * benchmark tests/bench/bench_ccswap.
 *
 * The stream is pre-generated from a seed with the models' RNG: 8 CPUs,
 * ~20 % idle switches, all four record forms and every flush reason (TID
 * table full, 500-tick age, size, time-delta overflow, stop flag). It is
 * generated @window switches at a time, outside the timed region, into a
 * cache-resident window that ccswap_log() then consumes: 16 M switches need
 * no gigabytes, and the stream never repeats (a replayed window would let
 * the branch predictor learn it). Same options, same work: the mix and the
 * xxh3 of the emitted batches printed by the check pass prove it.
 */
#ifndef TOOLS_LIB_BENCH_CCSWAP_H
#define TOOLS_LIB_BENCH_CCSWAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "producer/ccswap.h"

#define CCSWAP_BENCH_CPUS 8u

/**
 * struct ccswap_bench_opts - what to run; zero fields take the default.
 * @switches:        switches per pass (16 M)
 * @seed:            stream seed (1)
 * @window:          switches generated per lap, then timed (4096)
 * @stop_every:      set the stop flag on every block every Nth lap (16)
 * @clean:           run with quirks off (prm.quirks = false)
 * @single:          one call per switch of the engine as it was before
 *                   ccswap_log_n() (bench_ccswap.c keeps its fast path), not
 *                   the whole lap in one ccswap_log_n() call
 * @max_wait_reason: OldThreadStateWr bias (40, win10-1709)
 */
struct ccswap_bench_opts {
	uint64_t switches;
	uint64_t seed;
	unsigned window;
	unsigned stop_every;
	bool clean;
	bool single;
	uint8_t max_wait_reason;
};

/**
 * struct ccswap_bench_mix - the work one pass does (from the check pass).
 * @switches:  switches fed
 * @records:   records in the emitted batches (== @switches)
 * @batches:   batches emitted, including the final ones (reason END)
 * @out_bytes: bytes emitted: the sum of the batch event sizes
 * @forms:     records by form (IDLE_SHORT, IDLE, LITE, FULL)
 * @reasons:   batches by flush reason
 * @xxh3:      XXH3-64 of every batch (reason, record count, payload)
 */
struct ccswap_bench_mix {
	uint64_t switches;
	uint64_t records;
	uint64_t batches;
	uint64_t out_bytes;
	uint64_t forms[4];
	uint64_t reasons[PRODUCER_FLUSH_REASONS];
	uint64_t xxh3;
};

/**
 * struct ccswap_bench_time - one timed pass.
 * @ns_per_switch:     ccswap_log() time per switch: the laps summed, a lap
 *                     above 4x the median lap (preempted) counted as the median
 * @raw_ns_per_switch: the laps summed as measured
 * @preempted_laps:    laps replaced by the median
 * @floor_ns:          the same loop calling an empty function with the same
 *                     arguments (through a pointer), per switch: the part of
 *                     @ns_per_switch that is the harness and the call
 * @memset_ns:         memset of the same output bytes, in the same chunks
 *                     (one per batch, into a cache-resident buffer), per
 *                     switch: the best of three
 * @out_bytes:         bytes emitted by the timed pass (must equal the mix's)
 */
struct ccswap_bench_time {
	double ns_per_switch;
	double raw_ns_per_switch;
	uint64_t preempted_laps;
	double floor_ns;
	double memset_ns;
	uint64_t out_bytes;
};

struct ccswap_bench;

/**
 * ccswap_bench_create - generate the stream window.
 * @opts: NULL = defaults
 * Return: the benchmark, or NULL with errno set (ENOMEM, EINVAL).
 */
struct ccswap_bench *ccswap_bench_create(const struct ccswap_bench_opts *opts);

/** ccswap_bench_destroy - free @bb (NULL is a no-op). */
void ccswap_bench_destroy(struct ccswap_bench *bb);

/**
 * ccswap_bench_check - one untimed pass that hashes and classifies every
 * emitted batch (and records the batch sizes the memset baseline replays).
 * Must run before ccswap_bench_time().
 * Return: 0, -ENOMEM, or -EIO if records != switches.
 */
int ccswap_bench_check(struct ccswap_bench *bb, struct ccswap_bench_mix *mix);

/**
 * ccswap_bench_time - one timed pass, then the memset baseline.
 * Return: 0, -EINVAL if the check pass has not run, -EIO if the timed pass
 * emitted other bytes than the check pass, -ENOMEM.
 */
int ccswap_bench_time(struct ccswap_bench *bb, struct ccswap_bench_time *t);

/**
 * ccswap_bench_single - feed the next passes to the engine as it was before
 * ccswap_log_n(), a call per switch (@on), or a lap per ccswap_log_n() call
 * (the default): the same switches, the same bytes.
 */
void ccswap_bench_single(struct ccswap_bench *bb, bool on);

/** ccswap_bench_print_mix - the mix as a few text lines. */
void ccswap_bench_print_mix(FILE *f, const struct ccswap_bench_mix *mix);

/**
 * ccswap_bench_stream_reset - back to the start of @bb's stream (its seed),
 * for a benchmark that feeds the same switches to another path.
 */
void ccswap_bench_stream_reset(struct ccswap_bench *bb);

/**
 * ccswap_bench_stream_next - the next @n switches of the stream (1..window)
 * in @bb's window, valid (and the caller's to change) until the next call.
 * The blocks are not touched.
 */
struct sim_cswitch *ccswap_bench_stream_next(struct ccswap_bench *bb, unsigned n);

#endif /* TOOLS_LIB_BENCH_CCSWAP_H */
