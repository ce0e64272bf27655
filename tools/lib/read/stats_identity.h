/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/stats_identity.h - the identity counts of `dump --stats`
 * (stats_identity.c): processes and threads the file's Process and Thread
 * records name, its ReadyThread and SampledProfile events, and its switches
 * split by whether a Thread record names the thread switched in: plain
 * switches from stats.c's framing pass, the rest from a pass of the
 * iterator; memory bounded by the number of distinct PIDs and TIDs.
 */
#ifndef ETWFORGE_TOOLS_LIB_READ_STATS_IDENTITY_H
#define ETWFORGE_TOOLS_LIB_READ_STATS_IDENTITY_H

#include "etwforge/etwforge.h"
#include "tools/lib/read/read.h"

struct stats_ident;

/** stats_identity_new - empty sets. Return: them, or NULL (ENOMEM). */
struct stats_ident *stats_identity_new(void);

/**
 * stats_identity_switch_in - a plain CSwitch (0x0524, decoded) to thread
 * @new_tid, from the framing pass (0, idle, is not counted).
 * Return: 0, or -ENOMEM.
 */
int stats_identity_switch_in(struct stats_ident *si, uint32_t new_tid);

/**
 * stats_identity_finish - the second pass over @f (compact switches, the
 * identity records), then the counts into @out. A batch that does not
 * expand is skipped when @f was opened to keep going.
 * Return: 0; -EINVAL damage (@err); -ENOMEM.
 */
int stats_identity_finish(struct stats_ident *si, struct etwforge_file *f,
			  struct stats_identity *out, struct etwforge_error *err);

/** stats_identity_free - NULL is a no-op. */
void stats_identity_free(struct stats_ident *si);

#endif
