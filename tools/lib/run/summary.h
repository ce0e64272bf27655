/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/summary.h - a run's struct etwforge_summary (summary.c).
 */
#ifndef ETWFORGE_TOOLS_LIB_RUN_SUMMARY_H
#define ETWFORGE_TOOLS_LIB_RUN_SUMMARY_H

#include <stdio.h>

#include "etwforge/etwforge.h"
#include "tools/lib/config/trace_config.h"
#include "tools/lib/run/session_run.h"

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
