/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_stacks.h - what fit needs of a trace's call stacks
 * (fit_stacks.c): how many events and samples have one, and the depth of
 * the samples' stacks, tallied in one pass in time order with memory
 * bounded by the threads and the cache's keys, not by the stack records
 * (the analysis's full join holds every record to the end).
 */
#ifndef TOOLS_LIB_FIT_FIT_STACKS_H
#define TOOLS_LIB_FIT_FIT_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * struct fit_stacks - the tally.
 * @events:     distinct (event time, thread) with a StackWalk or key reference
 * @samples:    SampledProfile events among them
 * @depth_hist: the samples' stacks' frames (kernel and user parts), bucket k
 *              for 2^k <= frames < 2^(k+1)
 * @records:    stack records read (walks and references)
 */
struct fit_stacks {
	uint64_t events, samples;
	uint64_t depth_hist[ETWFORGE_HIST_BUCKETS];
	uint64_t records;
};

/**
 * fit_stacks_read - tally @f's stacks (zeroed first). Damage: skipped when
 * @keep_going, else the error. @progress (NULL none) is called now and then
 * with the file offset reached (not always growing: events come in time
 * order).
 * Return: 0; -EINVAL damage (@err); -ENOMEM.
 */
int fit_stacks_read(struct etwforge_file *f, bool keep_going, struct fit_stacks *out,
		    void (*progress)(void *ctx, uint64_t offset), void *ctx,
		    struct etwforge_error *err);

#endif /* TOOLS_LIB_FIT_FIT_STACKS_H */
