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

#include "etwforge/etwforge.h"
#include "tools/lib/read/read.h"

/**
 * stats_identity_count - fill @out from @f (zeroed first). A batch that
 * does not expand is skipped when @f was opened to keep going.
 * Return: 0; -EINVAL damage (@err); -ENOMEM.
 */
int stats_identity_count(struct etwforge_file *f, struct stats_identity *out,
			 struct etwforge_error *err);

#endif
