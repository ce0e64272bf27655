// SPDX-License-Identifier: MIT
/*
 * tools/cli/timeline_wakeups.c - the wake-up arrows of the timeline
 * (timeline_wakeups.h): a line from the ReadyThread's lane (its CPU) at its
 * time to the readied thread's lane at its switch-in, curved above the bar
 * when both are on one lane, an arrowhead at the switch-in.
 */
#include <inttypes.h>

#include "text_escape.h"
#include "timeline_wakeups.h"

#define WAKE_COLOUR "#111"

void wake_arrows_add(struct wake_arrows *a, const struct etwforge_item *wk, int from_lane,
		     int to_lane)
{
	a->total++;
	if (from_lane < 0 || to_lane < 0) {
		a->off_lane++;
		return;
	}
	if (a->n < WAKE_ARROWS_MAX) {
		a->v[a->n++] = (struct wake_arrow){*wk, from_lane, to_lane};
	}
}

bool wake_arrows_drawn(const struct wake_arrows *a)
{
	return a->n > 0 && a->total - a->off_lane <= WAKE_ARROWS_MAX;
}

void wake_arrows_defs(FILE *f)
{
	fputs("<marker id=\"wake-head\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" "
	      "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L8 4L0 8z\" "
	      "fill=\"" WAKE_COLOUR "\"/></marker>",
	      f);
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void wake_arrows_write(FILE *f, const struct wake_arrows *a, const struct wake_geometry *g,
		       const char *(*name_of)(const void *ctx, uint32_t tid, int64_t row, char *buf,
					      size_t cap),
		       const void *ctx)
{
	if (!wake_arrows_drawn(a)) {
		return;
	}
	fputs("<g fill=\"none\" stroke=\"" WAKE_COLOUR "\" stroke-width=\"1.3\" "
	      "stroke-opacity=\"0.85\" marker-end=\"url(#wake-head)\">\n",
	      f);
	for (unsigned i = 0; i < a->n; i++) {
		const struct wake_arrow *ar = &a->v[i];
		const struct etwforge_item *w = &ar->wk;
		double x1 = clamp(g->x0 + (double)(w->t0 - g->from_ns) * g->px_per_ns, g->x0,
				  g->x0 + g->plot_w);
		double x2 = clamp(g->x0 + (double)(w->t1 - g->from_ns) * g->px_per_ns, g->x0,
				  g->x0 + g->plot_w);
		double y1 = g->lane_top[ar->from_lane] + g->bar_h / 2.0;
		double y2 = g->lane_top[ar->to_lane] + g->bar_h / 2.0;
		char waker[160], woken[160];

		if (ar->from_lane == ar->to_lane) { /* an arc over the bar of the lane */
			double top = g->lane_top[ar->to_lane] - 2.0;

			fprintf(f, "<path d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\">", x1, y1,
				x1, top, x2, top, x2, y2);
		} else {
			fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1f\">", x1, y1, x2, y2);
		}
		fputs("<title>wake-up: ", f);
		put_xml_text(f, name_of(ctx, w->waker, w->waker_thread, waker, sizeof(waker)));
		fputs(" readied ", f);
		put_xml_text(f, name_of(ctx, w->tid, w->thread, woken, sizeof(woken)));
		fprintf(f, " at %.6f ms on CPU %u; it ran at %.6f ms on CPU %u</title></path>\n",
			(double)w->t0 / 1e6, w->from_cpu, (double)w->t1 / 1e6, w->cpu);
	}
	fputs("</g>\n", f);
}

void wake_arrows_legend(FILE *f, const struct wake_arrows *a, unsigned x, unsigned y)
{
	if (a->total == 0) {
		return;
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"11\" fill=\"#333\">", x, y);
	if (wake_arrows_drawn(a)) {
		fprintf(f,
			"arrows: %" PRIu64 " wake-ups, from the ReadyThread (its CPU and time) to "
			"the readied thread's next switch-in",
			a->total - a->off_lane);
	} else {
		fprintf(f,
			"wake-ups: %" PRIu64 " here, too many to draw (arrows when at most %u "
			"are in the window: narrow it with --from/--to)",
			a->total - a->off_lane, WAKE_ARROWS_MAX);
	}
	if (a->off_lane) {
		fprintf(f, "; %" PRIu64 " more from or to a CPU not shown", a->off_lane);
	}
	fputs("</text>\n", f);
}
