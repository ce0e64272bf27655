/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/timeline_wakeups.h - wake-ups in `dump --timeline` as arrows
 * (timeline_wakeups.c): from the CPU and time of a ReadyThread to the CPU
 * and time the readied thread was switched in. Arrows are legible only
 * when few: they are drawn when the window holds at most WAKE_ARROWS_MAX
 * wake-ups (both CPUs shown); with more, none is, and the legend says how
 * many there are and how to see them (a narrower --from/--to). Memory:
 * WAKE_ARROWS_MAX of them at most.
 */
#ifndef TOOLS_TIMELINE_WAKEUPS_H
#define TOOLS_TIMELINE_WAKEUPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etwforge/etwforge.h"

#define WAKE_ARROWS_MAX 200

/**
 * struct wake_arrow - a wake-up (an analysis's ETWFORGE_ITEM_WAKE) and the
 * lanes of its two CPUs (-1: not drawn).
 */
struct wake_arrow {
	struct etwforge_item wk;
	int from_lane;
	int to_lane;
};

/** struct wake_arrows - the wake-ups of a window; zero-initialise. */
struct wake_arrows {
	struct wake_arrow v[WAKE_ARROWS_MAX];
	unsigned n;
	uint64_t total;	   /* wake-ups in the window, both CPUs shown or not */
	uint64_t off_lane; /* of which with a CPU not shown */
};

/** wake_arrows_add - one wake-up of the window, its CPUs on lanes @from_lane and @to_lane. */
void wake_arrows_add(struct wake_arrows *a, const struct etwforge_item *wk, int from_lane,
		     int to_lane);

/** wake_arrows_drawn - are the arrows drawn (at most WAKE_ARROWS_MAX, at least one)? */
bool wake_arrows_drawn(const struct wake_arrows *a);

/**
 * struct wake_geometry - where things are in the picture.
 * @x0:        the plot's left edge
 * @from_ns:   the window's start; @px_per_ns its scale; @plot_w its width
 * @lane_top:  y of each lane's bar (@nlanes of them); @bar_h its height
 */
struct wake_geometry {
	double x0;
	int64_t from_ns;
	double px_per_ns;
	double plot_w;
	const unsigned *lane_top;
	unsigned nlanes;
	unsigned bar_h;
};

/** wake_arrows_defs - the arrowhead marker, inside <defs>. */
void wake_arrows_defs(FILE *f);

/**
 * wake_arrows_write - the arrows, when drawn; @name_of names a thread (its
 * TID and thread row) into a buffer.
 */
void wake_arrows_write(FILE *f, const struct wake_arrows *a, const struct wake_geometry *g,
		       const char *(*name_of)(const void *ctx, uint32_t tid, int64_t row, char *buf,
					      size_t cap),
		       const void *ctx);

/** wake_arrows_legend - the legend's text about wake-ups (nothing when the file has none). */
void wake_arrows_legend(FILE *f, const struct wake_arrows *a, unsigned x, unsigned y);

#endif /* TOOLS_TIMELINE_WAKEUPS_H */
