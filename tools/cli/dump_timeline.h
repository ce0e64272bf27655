/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_timeline.h - the SVG timeline `etwforge dump --timeline`
 * draws of a file's schedule (dump_timeline.c): make it, hand it every item
 * of the view's analysis, then write it.
 */
#ifndef TOOLS_DUMP_TIMELINE_H
#define TOOLS_DUMP_TIMELINE_H

#include <stdio.h>

#include "view.h"

struct timeline;

/**
 * timeline_new - an empty picture of @v's lanes over its window (threads
 * named, and coloured by process, by @v->names). Its memory is bounded by
 * the picture's size (lanes x pixel columns) and the threads of the file,
 * not by the trace's length.
 * Return: the timeline, or NULL (ENOMEM).
 */
struct timeline *timeline_new(const struct draw_view *v);

/** timeline_item - one item of the analysis (slice, flush, spin lock, wake-up). */
void timeline_item(struct timeline *tl, const struct etwforge_item *it);

/**
 * timeline_write - the SVG document of what @tl was given, with the
 * analysis's totals in its legend, to @out (the analysis read to its end).
 * Return: 0, -ENOMEM, or -EIO when @out has an error.
 */
int timeline_write(struct timeline *tl, FILE *out);

/** timeline_free - NULL is a no-op. */
void timeline_free(struct timeline *tl);

#endif /* TOOLS_DUMP_TIMELINE_H */
