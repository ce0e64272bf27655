/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/timeline_legend.h - the processes of `dump --timeline` when the
 * file names them (timeline_legend.c): each thread's busy time in the
 * window, a colour per process (its threads in shades of it), and the
 * legend under the lanes listing the processes that ran and their threads
 * with their share of the traced CPU time (busy / (window x CPUs shown)).
 */
#ifndef TOOLS_TIMELINE_LEGEND_H
#define TOOLS_TIMELINE_LEGEND_H

#include <stdint.h>
#include <stdio.h>

#include "dump_identity.h"
#include "thread_names.h"
#include "tid_map.h"

#define LEGEND_PROCESSES 12 /* processes listed; the rest summed on one line */
#define LEGEND_THREADS	 5  /* threads listed per process; the rest summed */
#define LEGEND_LINE_H	 16

/** struct busy_tally - TID -> ns busy in the window; zero-initialise. */
struct busy_tally {
	struct tid_map tids;
	int64_t unattributed_ns; /* of threads no Thread record names */
	int nomem;
};

/** busy_add - @ns more of thread @tid (not idle). */
void busy_add(struct busy_tally *b, uint32_t tid, int64_t ns);

/** busy_free - free the tally. */
void busy_free(struct busy_tally *b);

/** colour_mix - MurmurHash3's finaliser: neighbouring ids look unlike. */
uint32_t colour_mix(uint32_t x);

/** colour_hsl - HSL (hue in degrees, s and l in 0..1) to 0xRRGGBB. */
uint32_t colour_hsl(double hue, double s, double l);

/**
 * process_rgb - the colour of thread @tid when @id knows its process: the
 * process's hue (a fixed hash of its PID), the thread's lightness (of its
 * TID). Return: 1 with *@rgb (0xRRGGBB), or 0 when @id does not know @tid.
 */
int process_rgb(const struct identity *id, uint32_t tid, uint32_t *rgb);

/** legend_height - the pixels legend_write() takes (0: @id knows no thread). */
unsigned legend_height(const struct identity *id, const struct busy_tally *b);

/**
 * legend_write - the legend at @y (its first baseline - 12), @x the left
 * edge; @total_ns the traced CPU time of the picture.
 * Return: 0, or -ENOMEM.
 */
int legend_write(FILE *f, const struct identity *id, const struct busy_tally *b, double total_ns,
		 unsigned x, unsigned y);

#endif /* TOOLS_TIMELINE_LEGEND_H */
