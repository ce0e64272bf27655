/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/draw.h - the pictures of `etwforge dump` (the timeline, the
 * Chrome trace) made in one pass (draw.c): their view (view.h) opened on a
 * file, every item of its analysis handed to both. The pictures draw; what
 * ran, who woke whom and why a batch was flushed is the library's analysis
 * (etwforge_analysis_*).
 */
#ifndef TOOLS_CLI_DRAW_H
#define TOOLS_CLI_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "thread_names.h"
#include "view.h"

/**
 * struct draw_request - what to draw: the window asked for (@have_from,
 * @have_to), the CPUs (@cpu_mask, a bitmap of 65536 bits; NULL all),
 * whether to skip damage, whether the samples are items (@samples: the
 * Chrome trace draws them), and the symbol store naming the functions of
 * the sampled stacks (@symbols, NULL none).
 */
struct draw_request {
	bool have_from;
	bool have_to;
	int64_t from_ns;
	int64_t to_ns;
	const uint8_t *cpu_mask;
	bool keep_going;
	bool samples;
	const char *symbols;
};

/**
 * draw_open - @v for @f as @rq asks, threads named by @names (its @an is
 * set to the view's analysis): the lanes, the analysis (items of the
 * pictures, in the window and CPUs), the window drawn (the whole trace when
 * not given; an empty trace is drawn as 1 ns; *@past_end: --from is after
 * the end).
 * Return: 0; -ERANGE a CPU of the mask is not in the file (*@bad_cpu);
 * -EINVAL the analysis refused (@err: damage of the file's identity
 * records); -ENOENT the symbol store refused (@err: it is no folder, or a
 * symbol file of it is broken); -ENOMEM.
 */
int draw_open(struct draw_view *v, struct etwforge_file *f, const struct draw_request *rq,
	      struct thread_names *names, bool *past_end, unsigned *bad_cpu,
	      struct etwforge_error *err);

struct timeline;
struct chrome;

/**
 * draw_pass - every item of @v's analysis to @tl and @ch (either may be
 * NULL). Return: 0; -EINVAL damage (@err; with @keep_going the pass goes
 * on past it, counted in the totals); -ENOMEM.
 */
int draw_pass(struct draw_view *v, struct timeline *tl, struct chrome *ch, bool keep_going,
	      struct etwforge_error *err);

/** draw_close - free what draw_open() made. */
void draw_close(struct draw_view *v);

#endif /* TOOLS_CLI_DRAW_H */
