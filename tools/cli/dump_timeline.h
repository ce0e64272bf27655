/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_timeline.h - the SVG timeline `etwforge dump --timeline` draws
 * of a file's schedule (dump_timeline.c): a consumer of the walk of
 * dump_sched.h - make it, hand its ops to sched_walk(), then write it.
 */
#ifndef TOOLS_DUMP_TIMELINE_H
#define TOOLS_DUMP_TIMELINE_H

#include <stdio.h>

#include "dump_sched.h"
#include "thread_names.h"

struct timeline;

/** timeline_ops - the callbacks that feed a struct timeline. */
extern const struct sched_ops timeline_ops;

/**
 * timeline_new - an empty picture of @fr's lanes over [@from_ns, @to_ns]
 * (@to_ns > @from_ns), threads named by @names (may be NULL; its @ident
 * also colours them by process). Its memory is bounded by the picture's
 * size (lanes x pixel columns) and the threads of the file, not by the
 * trace's length.
 * Return: the timeline, or NULL (ENOMEM).
 */
struct timeline *timeline_new(const struct sched_frame *fr, const struct thread_names *names,
			      int64_t from_ns, int64_t to_ns);

/**
 * timeline_write - the SVG document of what @tl was given, with @tot in
 * its legend, to @out.
 * Return: 0, or -EIO when @out has an error.
 */
int timeline_write(struct timeline *tl, const struct sched_totals *tot, FILE *out);

/** timeline_free - NULL is a no-op. */
void timeline_free(struct timeline *tl);

#endif /* TOOLS_DUMP_TIMELINE_H */
