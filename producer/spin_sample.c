// SPDX-License-Identifier: MIT
/*
 * producer/spin_sample.c - the spin-lock sampling parameters and the
 * release predicate (declared in trace_sink.h, KERNEL_FACTS 6.2 and 6.3).
 */
#include <errno.h>
#include <stddef.h>

#include "producer/trace_sink.h"

void spin_sampling_defaults(struct spin_sampling *p)
{
	p->spin_threshold = SPIN_DEFAULT_SPIN_THRESHOLD;
	p->acquire_sample_rate = SPIN_DEFAULT_ACQUIRE_SAMPLE_RATE;
	p->contention_sample_rate = SPIN_DEFAULT_CONTENTION_SAMPLE_RATE;
	p->hold_threshold = SPIN_DEFAULT_HOLD_THRESHOLD;
}

int spin_sampling_check(const struct spin_sampling *p, const char **why)
{
	if (p->spin_threshold < 1) {
		*why = "spin_threshold must be at least 1";
	} else if (p->acquire_sample_rate < SPIN_MIN_ACQUIRE_SAMPLE_RATE) {
		*why = "acquire_sample_rate must be at least 1000";
	} else if (p->contention_sample_rate < 1) {
		*why = "contention_sample_rate must be at least 1";
	} else if (p->hold_threshold != 0 && p->hold_threshold < SPIN_MIN_HOLD_THRESHOLD) {
		*why = "hold_threshold must be 0 (off) or at least 1000000 cycles";
	} else {
		*why = NULL;
		return 0;
	}
	return -EINVAL;
}

enum sim_spin_why spin_sample(const struct spin_sampling *p, const struct spin_prcb *prcb,
			      uint64_t acquire_time, uint64_t release_time, uint32_t spin_count)
{
	if (p->hold_threshold != 0 && (uint32_t)(release_time - acquire_time) > p->hold_threshold) {
		return SIM_SPIN_HOLD;
	}
	if (spin_count >= p->spin_threshold &&
	    prcb->contention_count % p->contention_sample_rate == 0) {
		return SIM_SPIN_CONTENDED;
	}
	if (spin_count == 0 &&
	    (uint32_t)(prcb->acquire_count - prcb->contention_count) % p->acquire_sample_rate ==
		    0) {
		return SIM_SPIN_ACQUIRE_SAMPLE;
	}
	return SIM_SPIN_NONE;
}
