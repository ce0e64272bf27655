/* SPDX-License-Identifier: MIT */
/*
 * tools/dump_draw.h - the two pictures `etwforge dump` draws of a file's
 * schedule (dump_sched.h): an SVG timeline (dump_timeline.c) and a Chrome
 * trace-event JSON file (dump_chrome.c). Each is a consumer of the walk:
 * make it, hand its ops to sched_walk(), then write or finish it.
 */
#ifndef TOOLS_DUMP_DRAW_H
#define TOOLS_DUMP_DRAW_H

#include <stdio.h>

#include "dump_sched.h"
#include "thread_names.h"

struct timeline;

/** timeline_ops - the callbacks that feed a struct timeline. */
extern const struct sched_ops timeline_ops;

/**
 * timeline_new - an empty picture of @fr's lanes over [@from_ns, @to_ns]
 * (@to_ns > @from_ns), threads named by @names (may be NULL). Its memory
 * is bounded by the picture's size (lanes x pixel columns), not by the
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

struct chrome;

/** chrome_ops - the callbacks that feed a struct chrome: each writes its event at once. */
extern const struct sched_ops chrome_ops;

/**
 * chrome_new - start a Chrome trace-event JSON document on @out: the
 * object's head and the metadata events naming the process (the session)
 * and one thread per CPU of @fr. Memory does not grow with the trace.
 * Return: the writer, or NULL (ENOMEM).
 */
struct chrome *chrome_new(const struct sched_frame *fr, const struct thread_names *names,
			  FILE *out);

/**
 * chrome_finish - close the document.
 * Return: 0, or -EIO when the stream has an error.
 */
int chrome_finish(struct chrome *c);

/** chrome_free - NULL is a no-op. */
void chrome_free(struct chrome *c);

#endif /* TOOLS_DUMP_DRAW_H */
