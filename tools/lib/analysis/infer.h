/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/infer.h - what an ETL file does not store but its
 * events imply: why a compact CSwitch batch was flushed, and why a
 * spin-lock release was logged (infer.c). Pure functions of the evidence;
 * the reasons are the public enum etwforge_flush_seen / etwforge_spin_seen.
 */
#ifndef TOOLS_LIB_ANALYSIS_INFER_H
#define TOOLS_LIB_ANALYSIS_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * struct flush_evidence - what the file says about one flushed batch.
 * @flusher_known:  the switch that flushed it is in the file (the first
 *                  switch of the next batch on the CPU)
 * @flusher_old_tid: that switch's old thread
 * @tids:           TidTable entries of the flushed batch
 * @tid_table:      its TidTable
 * @record_bytes:   bytes of records after its 0x58-byte header
 * @delta:          flush time - the batch's last switch, in clock units
 * @span_ns:        flush time - the batch's FirstTimeStamp, in ns
 * @tick_ns:        the interrupt tick (TimerResolution x 100 ns), 0 unknown
 * @at_end:         the batch's header TS is the end of tracing, and no
 *                  switch flushed it
 */
struct flush_evidence {
	bool flusher_known;
	uint32_t flusher_old_tid;
	unsigned tids;
	const uint32_t *tid_table;
	size_t record_bytes;
	uint64_t delta;
	uint64_t span_ns;
	uint64_t tick_ns;
	bool at_end;
};

/**
 * infer_flush - the reason the kernel's flush test gave, in its order
 * (TID table, ticks, size, delta, stop): TID table full when the batch
 * holds 16 TIDs and the flushing switch's old thread (not idle) is not
 * among them; ticks when the batch spans 501 ticks or more (500 < span <
 * 501 ticks, where the tick phase decides, counts as ticks only when size
 * and delta do not show); size when 0x68 + @record_bytes + 8 > 0x400;
 * delta when @delta > 0x40000000.
 * Return: the reason, ETWFORGE_FLUSH_UNKNOWN when no rule shows or an
 * earlier rule cannot be excluded.
 */
enum etwforge_flush_seen infer_flush(const struct flush_evidence *e);

/*
 * The sampling parameters' defaults, for a file without the configuration
 * rundown (0x0F4B) that says what they were.
 */
#define INFER_SPIN_THRESHOLD 1u
#define INFER_HOLD_THRESHOLD 1000000u /* cycles */

/**
 * infer_spin - the first clause of the sampling predicate that @l meets,
 * with the thresholds of @cfg (the file's rundown, or the defaults): hold
 * when HoldThreshold != 0 and (u32)(ReleaseTime - AcquireTime) >
 * HoldThreshold, contended when SpinCount >= SpinThreshold, else sampled.
 */
enum etwforge_spin_seen infer_spin(const struct etwforge_spinlock *l,
				   const struct etwforge_spinlock_config *cfg);

/** infer_flush_name / _label, infer_spin_name - as etwforge_flush_seen_name() and the others. */
const char *infer_flush_name(unsigned r);
const char *infer_flush_label(unsigned r);
const char *infer_spin_name(unsigned k);

#endif /* TOOLS_LIB_ANALYSIS_INFER_H */
