/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/stats_identity.h - the identity counts of `dump --stats`
 * (stats_identity.c): processes and threads the file's Process and Thread
 * records name, its ReadyThread and SampledProfile events, and its switches
 * split by whether a Thread record names the thread switched in. One pass
 * of the iterator; memory bounded by the number of distinct PIDs and TIDs.
 */
#ifndef ETWFORGE_TOOLS_LIB_READ_STATS_IDENTITY_H
#define ETWFORGE_TOOLS_LIB_READ_STATS_IDENTITY_H

#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * struct stats_identity - the counts.
 * @processes:    distinct PIDs of Process records (0x0301-0x0304, 0x0327)
 * @threads:      distinct TIDs of Thread records (0x0501-0x0504)
 * @ready:        ReadyThread 0x0532 events (decoded: not a too-short one)
 * @samples:      SampledProfile 0x0F2E events
 * @attributed:   switches to a thread other than idle (TID != 0) that a
 *                Thread record anywhere in the file names
 * @unattributed: switches to a thread other than idle no Thread record
 *                names (a compact switch whose new thread the file does
 *                not say is neither)
 */
struct stats_identity {
	uint64_t processes;
	uint64_t threads;
	uint64_t ready;
	uint64_t samples;
	uint64_t attributed;
	uint64_t unattributed;
};

/**
 * stats_identity_count - fill @out from @f (zeroed first). A batch that
 * does not expand is skipped when @f was opened to keep going.
 * Return: 0; -EINVAL damage (@err); -ENOMEM.
 */
int stats_identity_count(struct etwforge_file *f, struct stats_identity *out,
			 struct etwforge_error *err);

#endif
