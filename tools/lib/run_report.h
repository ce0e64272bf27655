/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run_report.h - the final summary of a `gen` or `replay` run, as
 * readable text or one JSON object: switches, batches by flush reason,
 * bytes per switch, events lost, and the xxh3-64 of every output file.
 */
#ifndef TOOLS_LIB_RUN_REPORT_H
#define TOOLS_LIB_RUN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/lib/session_run.h"

/** run_report_file_xxh3 - XXH3_64bits of the file at @path. Return: 0 or -errno. */
int run_report_file_xxh3(const char *path, uint64_t *out);

/**
 * run_report_print - the summary of a finished @run that ended at @end and
 * took @wall_s seconds: text for people, or (@json) one JSON object with
 * seed, duration_ns, cpus, wall_seconds, the counts and every session's
 * name, file, sizes and xxh3.
 */
void run_report_print(FILE *f, const struct trace_config *cfg, const struct session_run *run,
		      const struct sim_end *end, double wall_s, bool json);

#endif /* TOOLS_LIB_RUN_REPORT_H */
