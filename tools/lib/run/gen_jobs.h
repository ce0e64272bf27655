/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/gen_jobs.h - `gen --jobs N`: the machine's records encoded
 * by worker threads while the simulation goes on. The bytes are those of
 * one thread (the test gen_jobs holds them to each other).
 *
 *   simulation thread                     N - 1 workers, chunk after chunk
 *   -----------------                     --------------------------------
 *   records -> chunk (copied, strings     all: lane k encodes the records of
 *   and all), 4096 records a chunk;            CPUs c % (N-1) == k; the truth
 *   a full chunk is handed over, the           lines of its share, in memory
 *   next one filled meanwhile (while      last to finish: each writer's kept
 *   the workers are still on it: the           buffers in record order, the
 *   full chunk's first truth lines)            truth lines in order
 *
 * The producer's lanes and the writers' deferred flushes (producer.h,
 * writer.h) make each CPU's encoding independent of the others. A chunk in
 * which a session's bounded buffer pool could run out is encoded by one
 * worker, record after record, exactly as one thread would (the pool is
 * consulted at each buffer), so losses come out the same too.
 */
#ifndef TOOLS_LIB_RUN_GEN_JOBS_H
#define TOOLS_LIB_RUN_GEN_JOBS_H

#include <stdbool.h>
#include <stdio.h>

#include "producer/trace_sink.h"
#include "tools/lib/run/session_run.h"
#include "tools/lib/truth/truth.h"

struct gen_jobs;

/**
 * gen_jobs_start - @workers threads (>= 1) that encode into @run's
 * producer and writers, and format truth lines for @truth_f (NULL: no
 * truth; @logged_spinlocks_only: only the logged releases get a line).
 * @npmc: the machine's PMC counters (a switch's pmc[] past them is not read)
 * Return: 0 with *@out, or a negative errno.
 */
int gen_jobs_start(struct gen_jobs **out, struct session_run *run, unsigned workers, unsigned npmc,
		   FILE *truth_f, const struct trace_config *tc, bool logged_spinlocks_only);

/** gen_jobs_sink - what the simulation fires its records into (not the end). */
struct trace_sink gen_jobs_sink(struct gen_jobs *j);

/**
 * gen_jobs_drain - hand over what is left and wait for every chunk;
 * the writers write each buffer as it is put again afterwards.
 * Return: 0 or the first error of a worker (the truth's: -EIO).
 */
int gen_jobs_drain(struct gen_jobs *j);

/** gen_jobs_errno - the errno of a failed truth write (0: none), seen by the worker that wrote. */
int gen_jobs_errno(struct gen_jobs *j);

/** gen_jobs_bytes - ETL bytes written so far (for the progress line). */
uint64_t gen_jobs_bytes(struct gen_jobs *j);

/** gen_jobs_stop - stop the workers and free. NULL is a no-op. */
void gen_jobs_stop(struct gen_jobs *j);

#endif /* TOOLS_LIB_RUN_GEN_JOBS_H */
