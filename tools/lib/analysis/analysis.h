/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/analysis.h - the analysis room: one reading of a trace
 * (who ran where, who each thread and process is, who woke whom, where the
 * CPU went) that every front end asks. The functions are the etwforge_
 * ones of the same name (include/etwforge/etwforge.h), which api_analysis.c
 * hands through; the tables and the pass are state.h's.
 */
#ifndef TOOLS_LIB_ANALYSIS_ANALYSIS_H
#define TOOLS_LIB_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

struct etwforge_analysis *analysis_new(struct etwforge_file *f,
				       const struct etwforge_analysis_opts *opts,
				       struct etwforge_error *err);
void analysis_free(struct etwforge_analysis *a);
int analysis_next(struct etwforge_analysis *a, const struct etwforge_item **item,
		  struct etwforge_error *err);
int analysis_run(struct etwforge_analysis *a, struct etwforge_error *err);
/**
 * analysis_no_raw - read the compact switches of the full pass as public
 * events, not raw (a test holds the fast path to the general one); before
 * the first analysis_next().
 */
void analysis_no_raw(struct etwforge_analysis *a);
const struct etwforge_analysis_totals *analysis_totals(const struct etwforge_analysis *a);
const struct etwforge_thread_row *analysis_thread(const struct etwforge_analysis *a, size_t i);
const struct etwforge_process_row *analysis_process(const struct etwforge_analysis *a, size_t i);
unsigned analysis_cpus(const struct etwforge_analysis *a);
/**
 * analysis_spin_config - the sampling parameters the spin locks were logged
 * with. Return: true the file's configuration rundown, false the kernel's
 * defaults (the file has none).
 */
bool analysis_spin_config(const struct etwforge_analysis *a, struct etwforge_spinlock_config *out);
const struct etwforge_cpu_row *analysis_cpu(const struct etwforge_analysis *a, unsigned i);
int64_t analysis_thread_at(const struct etwforge_analysis *a, uint32_t tid, int64_t t_ns);
const struct etwforge_ip_count *analysis_ips(struct etwforge_analysis *a, int64_t row, size_t *n);
const struct etwforge_image_row *analysis_image(const struct etwforge_analysis *a, size_t i);
const struct etwforge_stack_row *analysis_stack(const struct etwforge_analysis *a, size_t i);
int analysis_locate(struct etwforge_analysis *a, uint32_t pid, uint64_t addr, int64_t t_ns,
		    struct etwforge_location *out);
size_t analysis_call_nodes(struct etwforge_analysis *a);
const struct etwforge_call_node *analysis_call_node(const struct etwforge_analysis *a, size_t i);

struct jout;
/**
 * analysis_json - the members `dump --stats --jsonl` adds about @ctx (an
 * analysis read to its end): "wakeups", "cpu_time" (busy, idle, unknown,
 * by process, by CPU). A read_json_more_fn.
 */
void analysis_json(struct jout *j, const void *ctx);

/** analysis_forms - the compact switches read, by record form (idle_short, idle, lite, full). */
void analysis_forms(const struct etwforge_analysis *a, uint64_t forms[4]);

/** analysis_named - distinct TIDs and PIDs a Thread / Process record names (for --stats). */
void analysis_named(const struct etwforge_analysis *a, uint64_t *tids, uint64_t *pids);

/** analysis_stats_fill - @st's identity counts and compact switches by form, from @a read. */
void analysis_stats_fill(const struct etwforge_analysis *a, struct etwforge_stats *st);

struct etl_record;
/** analysis_tap_fn - handed every record the COUNTS detail's walk of the file reads. */
typedef void (*analysis_tap_fn)(void *ctx, const struct etl_record *r);

/**
 * analysis_tap - before the reading (COUNTS detail), ask for every record of
 * the batch sums' walk over the file (each buffer once) to be handed to @fn:
 * what else has to read every record reads it in the same walk (--stats).
 * A file the batch sums cannot read exactly (one for the full pass) ends
 * the reading at -EAGAIN instead: the caller reads it again, untapped.
 */
void analysis_tap(struct etwforge_analysis *a, analysis_tap_fn fn, void *ctx);

/**
 * analysis_tapped_all - did the tap get every record of the file: the walk
 * went to its end, met no damage and did not give up for the full pass?
 */
bool analysis_tapped_all(const struct etwforge_analysis *a);

#endif /* TOOLS_LIB_ANALYSIS_ANALYSIS_H */
