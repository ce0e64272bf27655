/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit.h - the lookalike: a scenario that `etwforge gen` runs
 * into a trace like the one read (the machine, its processes and their
 * threads, images and hot functions, how threads run and wait), from one
 * full analysis of the file. What the scenario language cannot say is
 * named in comments of the YAML, never dropped silently.
 */
#ifndef TOOLS_LIB_FIT_FIT_H
#define TOOLS_LIB_FIT_FIT_H

#include "etwforge/etwforge.h"
#include "tools/lib/fit/fit_names.h"

/**
 * struct fit_opts - how to fit.
 * @anonymize: FIT_ANON_NONE, _NAMES (well-known Windows names kept), _ALL
 * @progress:  called now and then with the share of the trace read (0..1)
 *             and once with 1 at the end; NULL never
 */
struct fit_opts {
	enum fit_anon anonymize;
	void (*progress)(void *ctx, double done);
	void *progress_ctx;
};

/** struct fit_result - the scenario as YAML (with comments) and as JSON, both malloc'd. */
struct fit_result {
	char *yaml;
	char *json;
};

/**
 * fit_trace - read @f in full and write the scenario that looks like it.
 * Damage: as the analysis (the file's keep-going flag).
 * Return: 0 with @out filled (free it with fit_result_free()); -EINVAL
 * damage (@err); -ENOMEM.
 */
int fit_trace(struct etwforge_file *f, const struct fit_opts *o, struct fit_result *out,
	      struct etwforge_error *err);

/** fit_result_free - free what @r holds (its fields NULL after). */
void fit_result_free(struct fit_result *r);

#endif /* TOOLS_LIB_FIT_FIT_H */
