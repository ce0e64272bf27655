/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/timeline_legend.h - the colours of the timeline and the legend
 * of processes under its lanes (timeline_legend.c). When the file names its
 * threads (the analysis's thread and process tables), the processes that
 * ran in the window are ranked by their CPU time there; each takes a hue by
 * its rank, spread round the colour wheel by the golden angle so that the
 * busiest ones, side by side in the legend, are far apart; its threads are
 * shades of it. The legend lists the processes and their threads with
 * their share of the window's CPU time, its lines wrapped to the picture's
 * width. Without names a thread's colour is a hash of its TID.
 */
#ifndef TOOLS_TIMELINE_LEGEND_H
#define TOOLS_TIMELINE_LEGEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "thread_names.h"

#define LEGEND_PROCESSES 12 /* processes listed; the rest summed on one line */
#define LEGEND_LINE_H	 16

/** struct legend - the ranked processes and the legend's lines; zero-initialise. */
struct legend {
	const struct thread_names *names;
	bool named;	     /* the file names threads: colours by process, a legend */
	size_t *rank_of;     /* process row -> its rank (SIZE_MAX: did not run) */
	size_t nprocs;	     /* process rows */
	char **lines;	     /* the legend's text lines (XML-escaped), swatch row first */
	size_t *line_swatch; /* process row whose swatch starts the line, SIZE_MAX none */
	size_t nlines;
};

/**
 * legend_build - rank the processes by CPU time in the window and lay out
 * the legend for a picture @width px wide, @total_ns the CPU time the
 * window offers (its length x CPUs drawn). Return: 0, or -ENOMEM.
 */
int legend_build(struct legend *lg, const struct thread_names *names, double total_ns,
		 unsigned width);

/** legend_rgb - the colour of thread @tid (row @row): 0xRRGGBB. */
uint32_t legend_rgb(const struct legend *lg, uint32_t tid, int64_t row);

/** legend_height - the height of the legend (0 without names). */
unsigned legend_height(const struct legend *lg);

/** legend_write - the legend at (@x, @y). */
void legend_write(FILE *f, const struct legend *lg, unsigned x, unsigned y);

/** legend_free - free what legend_build() made. */
void legend_free(struct legend *lg);

#endif /* TOOLS_TIMELINE_LEGEND_H */
