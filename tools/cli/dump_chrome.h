/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_chrome.h - the Chrome trace-event JSON `etwforge dump
 * --chrome-trace` writes of a file's schedule (dump_chrome.c): make it,
 * hand it every item of the view's analysis, then finish it.
 */
#ifndef TOOLS_DUMP_CHROME_H
#define TOOLS_DUMP_CHROME_H

#include <stdio.h>

#include "view.h"

struct chrome;

/**
 * chrome_new - start the JSON of @v's lanes in @out: the header and the
 * tracks (CPUs, and the file's named processes and threads). Events are
 * written as items come: memory does not grow with the trace.
 * Return: it, or NULL (ENOMEM).
 */
struct chrome *chrome_new(const struct draw_view *v, FILE *out);

/** chrome_item - one item of the analysis as trace events. */
void chrome_item(struct chrome *c, const struct etwforge_item *it);

/** chrome_finish - close the JSON. Return: 0, or -EIO when @out has an error. */
int chrome_finish(struct chrome *c);

/** chrome_free - NULL is a no-op. */
void chrome_free(struct chrome *c);

#endif /* TOOLS_DUMP_CHROME_H */
