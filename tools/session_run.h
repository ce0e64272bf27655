/* SPDX-License-Identifier: MIT */
/*
 * tools/session_run.h - one tracing run: a writer per session and the
 * producer feeding them, behind a trace_sink. Shared by `gen` and `replay`:
 * open, feed records, finish (every file renamed into place) or abort
 * (no file left at any target path).
 */
#ifndef TOOLS_SESSION_RUN_H
#define TOOLS_SESSION_RUN_H

#include <stddef.h>

#include "producer/producer.h"
#include "tools/trace_config.h"
#include "writer/writer.h"

struct session_run {
	const struct trace_config *cfg;
	struct producer *prod;
	struct etl_writer *writers[SIM_MAX_SESSIONS];
	struct writer_stats wstats[SIM_MAX_SESSIONS];
	struct producer_stats pstats;
	int failed_session; /* session whose writer failed, or -1 */
};

/**
 * session_run_open - create every session's writer and the producer.
 * Return: 0, or a negative errno with @err = "FILE: what is wrong".
 */
int session_run_open(struct session_run *r, const struct trace_config *cfg, char *err,
		     size_t errlen);

/** session_run_sink - the producer's sink (records go straight to it). */
struct trace_sink session_run_sink(struct session_run *r);

/**
 * session_run_finish - producer_end(@end), then finish every writer
 * (EndTime from @end), collecting stats. On failure every file not yet
 * renamed is removed. Return: 0 or a negative errno with @err.
 */
int session_run_finish(struct session_run *r, const struct sim_end *end, char *err,
		       size_t errlen);

/** session_run_error - describe a failed feed (producer/backend error @rc). */
void session_run_error(struct session_run *r, int rc, char *err, size_t errlen);

/**
 * session_run_discard - remove the finished output files of the first @n
 * sessions (regular files only: a device or FIFO written in place stays),
 * when the run fails after they were renamed into place.
 */
void session_run_discard(struct session_run *r, unsigned n);

/** session_run_close - free everything; unfinished outputs are removed. */
void session_run_close(struct session_run *r);

#endif /* TOOLS_SESSION_RUN_H */
