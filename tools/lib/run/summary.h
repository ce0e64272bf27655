/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/summary.h - a run's struct etwforge_summary (summary.c):
 * opaque in the public header, defined here.
 */
#ifndef ETWFORGE_TOOLS_LIB_RUN_SUMMARY_H
#define ETWFORGE_TOOLS_LIB_RUN_SUMMARY_H

#include <stdio.h>

#include "etwforge/etwforge.h"
#include "tools/lib/config/trace_config.h"
#include "tools/lib/run/session_run.h"

#define SUMMARY_MAX_SESSIONS  8
#define SUMMARY_FLUSH_REASONS 6 /* tid_full, ticks, size, delta, stop, end */
#define SUMMARY_MAX_LOCKS     256

/**
 * struct etwforge_summary - what a run did. The sessions' and locks' names
 * live in @session_name, @session_file and @lock_name, where the public
 * views' `const char *` point: a summary is never copied by value.
 * @t:                 the totals, as etwforge_summary_totals() hands them out
 * @batches_by_reason: indexed like etwforge_flush_reason_name()
 * @nlocks/@locks:     gen: the spin-lock families, as the scenario lists them
 */
struct etwforge_summary {
	struct etwforge_totals t;
	uint64_t batches_by_reason[SUMMARY_FLUSH_REASONS];
	unsigned nsessions;
	struct etwforge_session_summary sessions[SUMMARY_MAX_SESSIONS];
	char session_name[SUMMARY_MAX_SESSIONS][128];
	char session_file[SUMMARY_MAX_SESSIONS][4096];
	unsigned nlocks;
	struct etwforge_lock_summary locks[SUMMARY_MAX_LOCKS];
	char lock_name[SUMMARY_MAX_LOCKS][64];
};

/**
 * summary_fill - @sum from a finished run of @cfg that ended at @end
 * and took @wall seconds.
 */
void summary_fill(struct etwforge_summary *sum, const struct trace_config *cfg,
		  const struct session_run *run, const struct sim_end *end, double wall);

/**
 * summary_json - @sum as the JSON object `--json` writes, with a newline.
 * Return: as etwforge_event_json().
 */
size_t summary_json(const struct etwforge_summary *sum, char *buf, size_t cap);

/**
 * summary_note_empty - say on @notes that a run wrote no event at all (no
 * switch, no spin lock), so that an empty trace is never taken for a
 * result: "etwforge @prog: note: no context switch in @span of simulated
 * time ..." (@span NULL: "in the stream"). Nothing when there were events.
 */
void summary_note_empty(FILE *notes, const char *prog, const struct etwforge_summary *sum,
			const char *span);

#endif
