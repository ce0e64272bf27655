/* SPDX-License-Identifier: MIT */
/*
 * producer/spin_sample.h - which spin-lock releases the kernel logs: the
 * sampling parameters of EVENT_TRACE_SPINLOCK_INFORMATION with their
 * defaults and set-time rules (KERNEL_FACTS 6.3), and the predicate of
 * PerfLogSpinLockRelease (6.2). The spin-lock model asks it at every
 * release; verify asks it again of every truth row.
 *
 *   log if   HoldThreshold != 0 and (u32)(Release - Acquire) > HoldThreshold     "hold"
 *        or  SpinCount >= SpinThreshold
 *            and ContentionCount % ContentionSampleRate == 0                    "contended"
 *        or  SpinCount == 0
 *            and (AcquireCount - ContentionCount) % AcquireSampleRate == 0       "acquire_sample"
 *
 * The counters are the processor's PRCB counters (ULONG) at the release;
 * the reason reported is the first test that holds, in that order.
 */
#ifndef PRODUCER_SPIN_SAMPLE_H
#define PRODUCER_SPIN_SAMPLE_H

#include <stdint.h>

#include "producer/trace_sink.h"

/* The kernel's defaults (KERNEL_FACTS 6.3). */
#define SPIN_DEFAULT_SPIN_THRESHOLD	    1u
#define SPIN_DEFAULT_ACQUIRE_SAMPLE_RATE    1000u
#define SPIN_DEFAULT_CONTENTION_SAMPLE_RATE 1u
#define SPIN_DEFAULT_HOLD_THRESHOLD	    1000000u

/* Set-time minimums (STATUS_INVALID_PARAMETER below them). */
#define SPIN_MIN_ACQUIRE_SAMPLE_RATE 1000u
#define SPIN_MIN_HOLD_THRESHOLD	     1000000u /* or 0: off */

/**
 * struct spin_sampling - EVENT_TRACE_SPINLOCK_INFORMATION's parameters.
 * @spin_threshold:         a release with SpinCount >= this is "contended" (>= 1)
 * @acquire_sample_rate:    1 in this many uncontended acquisitions (>= 1000)
 * @contention_sample_rate: 1 in this many contended ones (>= 1)
 * @hold_threshold:         cycles held; 0 = off, else >= 1000000
 */
struct spin_sampling {
	uint32_t spin_threshold;
	uint32_t acquire_sample_rate;
	uint32_t contention_sample_rate;
	uint32_t hold_threshold;
};

/** spin_sampling_defaults - the kernel's defaults: 1, 1000, 1, 1000000. */
void spin_sampling_defaults(struct spin_sampling *p);

/**
 * spin_sampling_check - the kernel's set-time rules.
 * Return: 0, or -EINVAL with *@why naming the parameter and its rule.
 */
int spin_sampling_check(const struct spin_sampling *p, const char **why);

/**
 * struct spin_prcb - the processor's counters at a release.
 * @acquire_count:    SpinLockAcquireCount (every acquisition, at its query)
 * @contention_count: SpinLockContentionCount (contended ones, once acquired)
 */
struct spin_prcb {
	uint32_t acquire_count;
	uint32_t contention_count;
};

/**
 * spin_sample - the predicate above for one release.
 * Return: SIM_SPIN_HOLD, SIM_SPIN_CONTENDED, SIM_SPIN_ACQUIRE_SAMPLE, or
 * SIM_SPIN_NONE (not logged).
 */
enum sim_spin_why spin_sample(const struct spin_sampling *p, const struct spin_prcb *prcb,
			      uint64_t acquire_time, uint64_t release_time, uint32_t spin_count);

#endif /* PRODUCER_SPIN_SAMPLE_H */
