// SPDX-License-Identifier: MIT
/*
 * tools/cli/draw.c - the frame of the pictures (see draw.h): the lanes, the
 * library's analysis asked for the items they draw, and one pass handing
 * each item to both pictures. `dump` (dump_draw.c) adds the output files
 * and the messages; the fuzz target of the pictures calls it as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "dump_chrome.h"
#include "dump_timeline.h"

#define DRAW_ITEMS                                                                                 \
	(ETWFORGE_ITEM_SLICE | ETWFORGE_ITEM_WAKE | ETWFORGE_ITEM_FLUSH | ETWFORGE_ITEM_SPIN)
#define MAX_CPUS 65536u /* a --cpus bitmap's bits */

/* The lanes of @v: the CPUs of @mask (NULL: all), in order. Return: 0, -ERANGE (*@bad), -ENOMEM. */
static int lanes_init(struct draw_view *v, const uint8_t *mask, unsigned *bad)
{
	unsigned n = v->info->cpus < MAX_CPUS ? v->info->cpus : MAX_CPUS;

	if (mask) {
		for (unsigned c = n; c < MAX_CPUS; c++) {
			if (mask[c / 8] & (1u << (c % 8))) {
				*bad = c;
				return -ERANGE;
			}
		}
	}
	v->ncpu = n;
	v->lane_cpu = calloc(n ? n : 1, sizeof(*v->lane_cpu));
	v->cpu_lane = calloc(n ? n : 1, sizeof(*v->cpu_lane));
	if (!v->lane_cpu || !v->cpu_lane) {
		return -ENOMEM;
	}
	for (unsigned c = 0; c < n; c++) {
		if (!mask || (mask[c / 8] & (1u << (c % 8)))) {
			v->cpu_lane[c] = (int)v->nlanes;
			v->lane_cpu[v->nlanes++] = c;
		} else {
			v->cpu_lane[c] = -1;
		}
	}
	return 0;
}

int draw_open(struct draw_view *v, struct etwforge_file *f, const struct draw_request *rq,
	      struct thread_names *names, bool *past_end, unsigned *bad_cpu,
	      struct etwforge_error *err)
{
	const struct etwforge_analysis_totals *tot;
	ETWFORGE_OPTS(etwforge_analysis_opts, ao,
		      .items = DRAW_ITEMS | (rq->samples ? ETWFORGE_ITEM_SAMPLE : 0u),
		      .window = rq->have_from || rq->have_to,
		      .from_ns = rq->have_from ? rq->from_ns : INT64_MIN,
		      .to_ns = rq->have_to ? rq->to_ns : INT64_MAX, .cpus = rq->cpu_mask,
		      .cpus_bytes = rq->cpu_mask ? MAX_CPUS / 8 : 0, .keep_going = rq->keep_going,
		      .symbols = rq->symbols);
	int rc;

	*v = (struct draw_view){.info = etwforge_file_info(f), .names = names};
	*past_end = false;
	rc = lanes_init(v, rq->cpu_mask, bad_cpu);
	if (rc < 0) {
		return rc;
	}
	if (rq->cpu_mask) {
		/* the analysis counts the CPUs the file has; the mask's others were refused */
		ao.cpus_bytes = (v->ncpu + 7) / 8;
	}
	v->an = etwforge_analysis_new(f, &ao, err);
	if (!v->an) {
		const char *msg = etwforge_error_message(err);

		if (errno == ENOMEM) {
			return -ENOMEM;
		}
		/* the store's own errors name it, or a file in it; the ETL file's name the file */
		if (rq->symbols &&
		    (errno != EINVAL || (msg && !strncmp(msg, rq->symbols, strlen(rq->symbols))))) {
			return -ENOENT;
		}
		return -EINVAL;
	}
	names->an = v->an;
	tot = etwforge_analysis_totals(v->an);
	v->hz = tot->clock_hz;
	v->end_ns = tot->end_ns;
	v->from = rq->have_from ? rq->from_ns : 0;
	v->to = rq->have_to ? rq->to_ns : v->end_ns;
	if (!rq->have_to && v->to <= v->from) {
		/* an empty or 1 ns trace is drawn as 1 ns; a --from past the end is refused, but
		 * only once the analysis has shown the file is sound (its damage comes first) */
		*past_end = rq->have_from;
		v->to = v->from + 1;
	}
	return 0;
}

int draw_pass(struct draw_view *v, struct timeline *tl, struct chrome *ch, bool keep_going,
	      struct etwforge_error *err)
{
	const struct etwforge_item *item;
	int rc;

	while ((rc = etwforge_analysis_next(v->an, &item, err)) != 0) {
		if (rc < 0) {
			if (!keep_going || rc == -ENOMEM) {
				return rc;
			}
			continue;
		}
		if (tl) {
			timeline_item(tl, item);
		}
		if (ch) {
			chrome_item(ch, item);
		}
	}
	return 0;
}

void draw_close(struct draw_view *v)
{
	etwforge_analysis_free(v->an);
	free(v->lane_cpu);
	free(v->cpu_lane);
	v->an = NULL;
	v->lane_cpu = NULL;
	v->cpu_lane = NULL;
}
