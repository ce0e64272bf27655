/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/session_run.h - one tracing run: a writer per session and the
 * producer feeding them, behind a trace_sink, and every output file of the
 * run in one struct out_set (tools/lib/run/out_file.h). Shared by `gen` and
 * `replay`:
 *
 *   session_run_name()    name each session's file from -o (OUT-2.etl, ...)
 *   session_run_plan()    add each session's file to the set (collisions
 *                         refused before anything is created)
 *   out_set_add(&r->outs) the caller's other outputs (truth, JSON report)
 *   session_run_open()    create every output, the writers, the producer
 *   ... feed records through session_run_sink() ...
 *   session_run_finish()  end of tracing: every ETL complete, not yet in place
 *   session_run_commit()  every output renamed into place at once
 *   session_run_notes()   say which sessions were discarded
 *   session_run_close()   free; whatever was not committed is removed
 */
#ifndef TOOLS_LIB_SESSION_RUN_H
#define TOOLS_LIB_SESSION_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "producer/producer.h"
#include "tools/lib/config/trace_config.h"
#include "tools/lib/run/out_file.h"
#include "tools/lib/run/out_sink.h"
#include "writer/writer.h"

struct session_run {
	const struct trace_config *cfg;
	struct out_set outs;
	int out_index[SIM_MAX_SESSIONS]; /* each session's output in @outs */
	struct producer *prod;
	struct out_sink sinks[SIM_MAX_SESSIONS]; /* each writer's way into its output */
	struct etl_writer *writers[SIM_MAX_SESSIONS];
	struct writer_stats wstats[SIM_MAX_SESSIONS];
	struct producer_stats pstats;
};

/* The label of a session discarded by session_run_name(). */
#define SESSION_RUN_DISCARDED "the discarded session"

/**
 * session_run_name - name the files of @tc's sessions for a run: @output
 * (NULL: keep the configured one) names the first; a later session
 * without a file of its own gets OUT-N.etl beside it (".etl" taken off
 * OUT first), its label in @labels "the derived name"; when the first is
 * not a regular file ("-", a device, a FIFO) it is discarded instead: its
 * file is /dev/null, which takes nothing (counted, not written), its
 * label SESSION_RUN_DISCARDED. With @rederive (replay: the files come
 * from a stream gen wrote), a session whose file is the name derived from
 * the stream's first file follows the new @output too, so `replay t.jsonl
 * -o r.etl` writes r-2.etl, never gen's own OUT-2.etl (replay without
 * --stream-paths has dropped every later session's name when -o is given,
 * so all of them derive from it).
 */
void session_run_name(struct trace_config *tc, const char *output, bool rederive,
		      const char *labels[SIM_MAX_SESSIONS]);

/**
 * session_run_notes - one note on @notes (NULL: none) per session that
 * session_run_name() discarded, naming @prog and how to give it a file.
 * Said once the run has succeeded, so a failed run's one line stays one.
 */
void session_run_notes(const struct trace_config *tc, const char *const labels[SIM_MAX_SESSIONS],
		       bool rederive, const char *prog, FILE *notes);

/** struct run_input - a file the run reads ("the scenario", "the stream"). */
struct run_input {
	const char *path;
	const char *label;
};

/**
 * session_run_plan - start a run of @cfg: note the @ninputs files it reads
 * (no output may be one of them), add the file of every session to
 * @r->outs, labelled by @labels[i] (NULL = "sessions.I.file"), checking
 * each writer's options. The caller may add more outputs to @r->outs.
 * Return: 0, or a negative errno with @err = one line (-EEXIST: two
 * outputs, or an output and an input, are the same file; -EBADF: "-"
 * while standard output is closed, ERR_DATA; -EINVAL: a bad option or a
 * missing file; the kind ERR_INPUT but for -EBADF and no memory).
 */
int session_run_plan(struct session_run *r, const struct trace_config *cfg,
		     const char *const labels[SIM_MAX_SESSIONS], const struct run_input *inputs,
		     unsigned ninputs, struct etwforge_error *err);

/**
 * session_run_open - create every output of @r->outs, the writers and the
 * producer. Return: 0, or a negative errno with @err = "FILE: what is wrong"
 * (ERR_INPUT for -EINVAL, a bad option; ERR_DATA the rest).
 */
int session_run_open(struct session_run *r, struct etwforge_error *err);

/** session_run_sink - the producer's sink (records go straight to it). */
struct trace_sink session_run_sink(struct session_run *r);

/**
 * session_run_finish - producer_end(@end), then complete every writer
 * (EndTime from @end), collecting stats and file hashes. Nothing is in
 * place until session_run_commit(). Return: 0 or a negative errno with @err
 * (ERR_DATA).
 */
int session_run_finish(struct session_run *r, const struct sim_end *end,
		       struct etwforge_error *err);

/** session_run_commit - put every output of the run in place at once. Return: as out_set_commit(). */
int session_run_commit(struct session_run *r, struct etwforge_error *err);

/** session_run_error - describe a failed feed (producer/backend error @rc) in @err, ERR_DATA. */
void session_run_error(struct session_run *r, int rc, struct etwforge_error *err);

/** session_run_close - free everything; uncommitted outputs are removed. */
void session_run_close(struct session_run *r);

#endif /* TOOLS_LIB_SESSION_RUN_H */
