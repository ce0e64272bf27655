// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_timeline.c - `dump --timeline OUT.svg`: the schedule as an SVG
 * picture, one lane per CPU, time across in ms since the session started.
 *
 *   title, what the file is, legend (flush reasons, spin-lock marks, counts)
 *   ms   0        50        100       150 ...        (grid lines down)
 *   CPU 0 [spin marks ▼ ■ ◆                    ]     only if there are any
 *         [thread bars, colour = hash of the TID]    idle is blank
 *         [batch ticks | | |, colour = reason   ]    only if there are any
 *   CPU 1 ...
 *
 * Bounded whatever the trace: the picture has PLOT_W pixel columns per
 * lane. A slice at least MIN_EXACT_PX wide is kept as it is (a span); the
 * narrower ones are summed per pixel column, and the column is drawn in the
 * colour of the thread that ran longest in it, its opacity the share of
 * the column that any thread ran (utilisation, SHADES steps). Batch ticks
 * and spin marks are kept per bin of a few pixels (one mark per kind and
 * bin; spin locks are counted per bin, and a kind that marks more than a
 * quarter of a lane's bins is drawn there as a band of bars instead, each
 * as high as the log2 of its count, so a busy lock reads as a density
 * rather than a solid row of marks). So memory and the SVG grow with lanes x columns, never with the
 * number of switches; everything is written at the end, spans of one
 * colour and shade merged into one <path>.
 *
 * What it draws are the items of the library's analysis of the file
 * (etwforge_analysis_next(): slices, flushes, spin locks, wake-ups); the
 * counts it prints are the analysis's totals, or the items it was given.
 * When the file names its threads (Process and Thread records) a thread
 * takes its process's colour and the legend under the lanes lists the
 * processes (timeline_legend.c); wake-ups are arrows when few enough to
 * read (timeline_wakeups.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dump_timeline.h"
#include "text_escape.h"
#include "timeline_legend.h"
#include "timeline_wakeups.h"

#define SVG_WIDTH     1400
#define MARGIN_L      76
#define MARGIN_R      24
#define PLOT_W	      (SVG_WIDTH - MARGIN_L - MARGIN_R) /* pixel columns of a lane */
#define PLOT_TOP      138				/* title, legend, axis labels above */
#define MIN_EXACT_PX  2.0				/* narrower slices are aggregated */
#define TICK_BIN_PX   2
#define SPIN_BIN_PX   3
#define TICK_BINS     ((PLOT_W + TICK_BIN_PX - 1) / TICK_BIN_PX)
#define SPIN_BINS     ((PLOT_W + SPIN_BIN_PX - 1) / SPIN_BIN_PX)
#define SPIN_DENSE    (SPIN_BINS / 4) /* more bins marked than this: a band of bars */
#define CANDIDATES    16	      /* threads tracked in one pixel column */
#define SHADES	      4		      /* utilisation steps: 25 %, 50 %, 75 %, 100 % opacity */
#define TENTHS	      10	      /* span ends are kept in tenths of a pixel */
#define FONT	      "sans-serif"
#define TID_UNKNOWN   UINT32_MAX /* a span of a thread the file does not name */
#define LABEL_GAP_PX  200	 /* a thread's label at most once in this many pixels */
#define FLUSH_REASONS ETWFORGE_FLUSH_SEEN
#define SPIN_KINDS    ETWFORGE_SPIN_SEEN

/* A horizontal piece of a lane in one colour: a slice, or a run of columns. */
struct span {
	uint32_t tid;
	int32_t row; /* its thread row, -1 none */
	uint32_t lane;
	uint32_t x0, x1; /* tenths of a pixel from the plot's left edge */
	uint8_t shade;	 /* 1..SHADES */
};

/* The pixel column a lane is summing now (its slices come in time order). */
struct column {
	int col; /* -1: none */
	double busy;
	unsigned n;
	struct {
		uint32_t tid;
		int32_t row;
		double ns;
	} cand[CANDIDATES];
};

struct timeline {
	const struct draw_view *v;
	const struct thread_names *names;
	int64_t from, to;
	double px_per_ns;
	double col_ns;
	unsigned nlanes;
	struct column *open;
	uint32_t *cell_tid;  /* [lane][PLOT_W]: the dominant thread */
	int32_t *cell_row;   /* [lane][PLOT_W]: its row */
	uint8_t *cell_shade; /* [lane][PLOT_W]: 0 = nothing ran */
	uint8_t *ticks;	     /* [lane][TICK_BINS]: bit r = a flush of reason r */
	uint16_t *spins;     /* [lane][SPIN_BINS][SPIN_KINDS]: spin locks (saturating) */
	uint64_t flushes[FLUSH_REASONS]; /* flush items by reason */
	uint64_t spin_n[SPIN_KINDS];	 /* spin items by kind */
	struct span *spans;
	size_t nspans, cap;
	bool aggregated;
	bool unknown; /* a span of TID_UNKNOWN exists */
	bool nomem;
	struct wake_arrows wakes; /* the window's wake-ups */
	struct legend legend;	  /* colours by process, and the legend (at the end) */
};

/* ---- colours ---------------------------------------------------------------- */

/* The colour of a span's thread: its process's hue when the file names it, else its TID's. */
static uint32_t span_rgb(const struct timeline *tl, uint32_t tid, int32_t row)
{
	return legend_rgb(&tl->legend, tid, row);
}

/* Dark text on light colours, white on dark ones (relative luminance). */
static bool dark_text_on(uint32_t rgb)
{
	double y = 0.2126 * (double)(rgb >> 16) + 0.7152 * (double)((rgb >> 8) & 0xFF) +
		   0.0722 * (double)(rgb & 0xFF);

	return y > 140.0;
}

static const char *const reason_colour[FLUSH_REASONS] = {
	[ETWFORGE_FLUSH_TID_FULL] = "#1f5fbf", [ETWFORGE_FLUSH_TICKS] = "#2ca02c",
	[ETWFORGE_FLUSH_SIZE] = "#ff7f0e",     [ETWFORGE_FLUSH_DELTA] = "#d62728",
	[ETWFORGE_FLUSH_END] = "#000000",      [ETWFORGE_FLUSH_UNKNOWN] = "#a05fd0",
};

static const char *const spin_colour[SPIN_KINDS] = {
	[ETWFORGE_SPIN_HOLD] = "#6b3d1f",
	[ETWFORGE_SPIN_CONTENDED] = "#d62728",
	[ETWFORGE_SPIN_SAMPLED] = "#7f7f7f",
};

/* ---- collecting --------------------------------------------------------------- */

struct timeline *timeline_new(const struct draw_view *v)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	size_t n = v->nlanes ? v->nlanes : 1;

	if (!tl) {
		return NULL;
	}
	tl->v = v;
	tl->names = v->names;
	tl->from = v->from;
	tl->to = v->to > v->from ? v->to : v->from + 1;
	tl->px_per_ns = (double)PLOT_W / (double)(tl->to - tl->from);
	tl->col_ns = (double)(tl->to - tl->from) / (double)PLOT_W;
	tl->nlanes = v->nlanes;
	tl->open = calloc(n, sizeof(*tl->open));
	tl->cell_tid = calloc(n * PLOT_W, sizeof(*tl->cell_tid));
	tl->cell_row = calloc(n * PLOT_W, sizeof(*tl->cell_row));
	tl->cell_shade = calloc(n * PLOT_W, 1);
	tl->ticks = calloc(n * TICK_BINS, 1);
	tl->spins = calloc(n * SPIN_BINS * SPIN_KINDS, sizeof(*tl->spins));
	if (!tl->open || !tl->cell_tid || !tl->cell_row || !tl->cell_shade || !tl->ticks ||
	    !tl->spins) {
		timeline_free(tl);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		tl->open[i].col = -1;
	}
	return tl;
}

void timeline_free(struct timeline *tl)
{
	if (!tl) {
		return;
	}
	free(tl->open);
	free(tl->cell_tid);
	free(tl->cell_row);
	free(tl->cell_shade);
	free(tl->ticks);
	free(tl->spins);
	free(tl->spans);
	legend_free(&tl->legend);
	free(tl);
}

static void add_span(struct timeline *tl, uint32_t tid, int32_t row, unsigned lane, double x0,
		     double x1, uint8_t shade)
{
	struct span *s;

	if (tl->nspans == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct span *p = realloc(tl->spans, cap * sizeof(*p));

		if (!p) {
			tl->nomem = true;
			return;
		}
		tl->spans = p;
		tl->cap = cap;
	}
	s = &tl->spans[tl->nspans++];
	s->tid = tid;
	s->row = row;
	s->lane = lane;
	s->x0 = (uint32_t)lround(x0 * TENTHS);
	s->x1 = (uint32_t)lround(x1 * TENTHS);
	s->shade = shade;
}

/* The column @lane was summing is complete: keep its dominant thread and shade. */
static void close_column(struct timeline *tl, unsigned lane)
{
	struct column *c = &tl->open[lane];
	unsigned best = 0;
	double util;

	if (c->col < 0 || c->busy <= 0 || c->n == 0) {
		c->col = -1;
		return;
	}
	for (unsigned i = 1; i < c->n; i++) {
		if (c->cand[i].ns > c->cand[best].ns) {
			best = i;
		}
	}
	util = c->busy / tl->col_ns;
	tl->cell_tid[(size_t)lane * PLOT_W + (unsigned)c->col] = c->cand[best].tid;
	tl->cell_row[(size_t)lane * PLOT_W + (unsigned)c->col] = c->cand[best].row;
	tl->cell_shade[(size_t)lane * PLOT_W + (unsigned)c->col] =
		(uint8_t)(util >= 1.0 ? SHADES : 1 + (int)(util * (SHADES - 1) + 0.5));
	tl->aggregated = true;
	c->col = -1;
}

static void add_to_column(struct timeline *tl, unsigned lane, int col, uint32_t tid, int32_t row,
			  double ns)
{
	struct column *c = &tl->open[lane];
	unsigned i;

	if (col != c->col) {
		if (col < c->col) {
			return; /* slices of a lane come in time order: cannot happen */
		}
		close_column(tl, lane);
		c->col = col;
		c->busy = 0;
		c->n = 0;
	}
	c->busy += ns;
	for (i = 0; i < c->n && (c->cand[i].tid != tid || c->cand[i].row != row); i++) {
	}
	if (i < c->n) {
		c->cand[i].ns += ns;
	} else if (c->n < CANDIDATES) {
		c->cand[c->n].tid = tid;
		c->cand[c->n].row = row;
		c->cand[c->n++].ns = ns;
	} else {
		unsigned min = 0;

		for (i = 1; i < CANDIDATES; i++) {
			if (c->cand[i].ns < c->cand[min].ns) {
				min = i;
			}
		}
		if (ns > c->cand[min].ns) { /* an approximation past CANDIDATES threads */
			c->cand[min].tid = tid;
			c->cand[min].row = row;
			c->cand[min].ns = ns;
		}
	}
}

static double x_of(const struct timeline *tl, int64_t t)
{
	return (double)(t - tl->from) * tl->px_per_ns;
}

static void tl_slice(struct timeline *tl, const struct etwforge_item *s, unsigned lane)
{
	int64_t t0 = s->t0 > tl->from ? s->t0 : tl->from;
	int64_t t1 = s->t1 < tl->to ? s->t1 : tl->to;
	int32_t row = s->thread >= 0 && s->thread <= INT32_MAX ? (int32_t)s->thread : -1;
	double x0, x1;

	if ((s->known && s->tid == 0) || t1 <= t0) {
		return; /* idle is blank */
	}
	x0 = x_of(tl, t0);
	x1 = x_of(tl, t1);
	if (!s->known) {
		if (x1 - x0 >= MIN_EXACT_PX) { /* hatched; a sliver does not matter */
			add_span(tl, TID_UNKNOWN, -1, lane, x0, x1, SHADES);
			tl->unknown = true;
		}
		return;
	}
	if (x1 - x0 >= MIN_EXACT_PX) {
		add_span(tl, s->tid, row, lane, x0, x1, SHADES);
		return;
	}
	for (int col = (int)x0; col <= (int)x1 && col < PLOT_W; col++) {
		double c0 = (double)tl->from + col * tl->col_ns, c1 = c0 + tl->col_ns;
		double a = (double)t0 > c0 ? (double)t0 : c0, b = (double)t1 < c1 ? (double)t1 : c1;

		if (b > a) {
			add_to_column(tl, lane, col, s->tid, row, b - a);
		}
	}
}

static void tl_flush(struct timeline *tl, const struct etwforge_item *fl, unsigned lane)
{
	double x = x_of(tl, fl->t0);

	tl->flushes[fl->reason < FLUSH_REASONS ? fl->reason : ETWFORGE_FLUSH_UNKNOWN]++;
	if (x >= 0 && x <= PLOT_W) {
		unsigned bin = (unsigned)x / TICK_BIN_PX;

		bin = bin < TICK_BINS ? bin : TICK_BINS - 1;
		tl->ticks[(size_t)lane * TICK_BINS + bin] |= (uint8_t)(1u << fl->reason);
	}
}

static void tl_spin(struct timeline *tl, const struct etwforge_item *sp, unsigned lane)
{
	double x = x_of(tl, sp->t0);
	unsigned k = sp->reason < SPIN_KINDS ? sp->reason : ETWFORGE_SPIN_SAMPLED;

	tl->spin_n[k]++;
	if (x >= 0 && x <= PLOT_W) {
		unsigned bin = (unsigned)x / SPIN_BIN_PX;
		uint16_t *c;

		bin = bin < SPIN_BINS ? bin : SPIN_BINS - 1;
		c = &tl->spins[((size_t)lane * SPIN_BINS + bin) * SPIN_KINDS + k];
		*c = (uint16_t)(*c + (*c < UINT16_MAX));
	}
}

void timeline_item(struct timeline *tl, const struct etwforge_item *it)
{
	int lane = draw_lane(tl->v, it->cpu);

	if (it->kind == ETWFORGE_ITEM_WAKE) {
		wake_arrows_add(&tl->wakes, it, draw_lane(tl->v, it->from_cpu), lane);
		return;
	}
	if (lane < 0) {
		return;
	}
	switch (it->kind) {
	case ETWFORGE_ITEM_SLICE:
		tl_slice(tl, it, (unsigned)lane);
		break;
	case ETWFORGE_ITEM_FLUSH:
		tl_flush(tl, it, (unsigned)lane);
		break;
	case ETWFORGE_ITEM_SPIN:
		tl_spin(tl, it, (unsigned)lane);
		break;
	default:
		break;
	}
}

/* ---- writing ------------------------------------------------------------------ */

/* Lane geometry, chosen once everything is known. */
struct layout {
	unsigned pitch;	 /* lane to lane */
	unsigned spin_h; /* strip of spin marks above the bar (0: none in the file) */
	unsigned bar_h;
	unsigned tick_h;      /* strip of batch ticks below the bar (0: no batches) */
	unsigned height;      /* of the whole picture */
	unsigned label_every; /* CPU label on every n-th lane */
	unsigned label_font;
	bool spin_bars; /* some lane draws a spin-lock kind as bars (write_spins) */
	unsigned below; /* the legend of processes and wake-ups under the axis */
};

static bool any_bit(const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]) {
			return true;
		}
	}
	return false;
}

/* Bins of @lane holding a spin lock of kind @k. */
static unsigned spin_bins_used(const struct timeline *tl, unsigned lane, unsigned k)
{
	const uint16_t *m = tl->spins + (size_t)lane * SPIN_BINS * SPIN_KINDS;
	unsigned used = 0;

	for (unsigned b = 0; b < SPIN_BINS; b++) {
		used += m[b * SPIN_KINDS + k] != 0;
	}
	return used;
}

/* Bits of @v: 1 for 1, 2 for 2-3, ... 16 (the bar scale, integers only). */
static unsigned bit_len(unsigned v)
{
	unsigned n = 0;

	for (; v; v >>= 1) {
		n++;
	}
	return n;
}

static bool any_count(const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]) {
			return true;
		}
	}
	return false;
}

/* The height of a strip of marks in a lane of pitch @p: 3/16 of it, 3 px at least. */
static unsigned strip(unsigned p)
{
	return p * 3 / 16 > 3 ? p * 3 / 16 : 3;
}

static void plan(const struct timeline *tl, struct layout *ly)
{
	unsigned n = tl->nlanes ? tl->nlanes : 1;
	unsigned min = n > 128 ? 4 : 12;
	unsigned p = 896 / n;
	unsigned gap;

	p = p < min ? min : p > 64 ? 64 : p;
	gap = p / 16 ? p / 16 : 1;
	ly->pitch = p;
	ly->spin_h =
		any_count(tl->spins, (size_t)tl->nlanes * SPIN_BINS * SPIN_KINDS) ? strip(p) : 0;
	ly->tick_h = any_bit(tl->ticks, (size_t)tl->nlanes * TICK_BINS) ? strip(p) : 0;
	ly->spin_bars = false;
	for (unsigned lane = 0; ly->spin_h && lane < tl->nlanes; lane++) {
		for (unsigned k = 0; k < SPIN_KINDS; k++) {
			ly->spin_bars |= spin_bins_used(tl, lane, k) > SPIN_DENSE;
		}
	}
	if (ly->spin_h + ly->tick_h + gap + 2 > p) { /* tiny lanes: bar first */
		ly->spin_h = ly->spin_h ? 1 : 0;
		ly->tick_h = ly->tick_h ? 1 : 0;
	}
	ly->bar_h = p - gap - ly->spin_h - ly->tick_h;
	ly->below = legend_height(&tl->legend);
	ly->below += tl->wakes.total ? LEGEND_LINE_H + 4 : 0;
	ly->height = PLOT_TOP + n * p + 36 + ly->below;
	ly->label_font = p >= 14 ? 11 : p >= 9 ? p - 2 : 9;
	ly->label_every = p >= 9 ? 1 : (11 + p - 1) / p;
}

static unsigned lane_top(const struct layout *ly, unsigned lane)
{
	return PLOT_TOP + lane * ly->pitch;
}

/* Text for XML: markup characters escaped, bytes outside printable ASCII as '?'. */
static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		xml_ascii(f, c < 0x80 ? c : '?');
	}
}

/* A coordinate in tenths of a pixel, as short as it can be written. */
static void put_tenths(FILE *f, uint32_t v)
{
	if (v % TENTHS) {
		fprintf(f, "%u.%u", v / TENTHS, v % TENTHS);
	} else {
		fprintf(f, "%u", v / TENTHS);
	}
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->tid != y->tid) {
		return x->tid < y->tid ? -1 : 1;
	}
	if (x->row != y->row) {
		return x->row < y->row ? -1 : 1;
	}
	if (x->shade != y->shade) {
		return x->shade < y->shade ? -1 : 1;
	}
	if (x->lane != y->lane) {
		return x->lane < y->lane ? -1 : 1;
	}
	return x->x0 < y->x0 ? -1 : x->x0 > y->x0;
}

/* Runs of equal (thread, shade) cells become spans too. */
static void cells_to_spans(struct timeline *tl)
{
	for (unsigned lane = 0; lane < tl->nlanes; lane++) {
		const uint32_t *tid = tl->cell_tid + (size_t)lane * PLOT_W;
		const int32_t *row = tl->cell_row + (size_t)lane * PLOT_W;
		const uint8_t *sh = tl->cell_shade + (size_t)lane * PLOT_W;

		close_column(tl, lane);
		for (unsigned c = 0; c < PLOT_W;) {
			unsigned e = c + 1;

			if (!sh[c]) {
				c++;
				continue;
			}
			while (e < PLOT_W && sh[e] == sh[c] && tid[e] == tid[c] &&
			       row[e] == row[c]) {
				e++;
			}
			add_span(tl, tid[c], row[c], lane, c, e, sh[c]);
			c = e;
		}
	}
}

static void write_spans(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	size_t i = 0;

	while (i < tl->nspans) {
		const struct span *s = &tl->spans[i];
		char name[THREAD_NAME_MAX];

		if (s->tid == TID_UNKNOWN) {
			fputs("<path fill=\"url(#unknown)\"", f);
		} else {
			fprintf(f, "<path fill=\"#%06x\"", span_rgb(tl, s->tid, s->row));
		}
		if (s->shade < SHADES) {
			fprintf(f, " fill-opacity=\"%.2f\"", (double)s->shade / SHADES);
		}
		fputs(" d=\"", f);
		for (; i < tl->nspans && tl->spans[i].tid == s->tid && tl->spans[i].row == s->row &&
		       tl->spans[i].shade == s->shade;
		     i++) {
			const struct span *p = &tl->spans[i];
			uint32_t w = p->x1 > p->x0 ? p->x1 - p->x0 : 1;

			putc('M', f);
			put_tenths(f, MARGIN_L * TENTHS + p->x0);
			fprintf(f, " %uh", lane_top(ly, p->lane) + ly->spin_h);
			put_tenths(f, w);
			fprintf(f, "v%uh-", ly->bar_h);
			put_tenths(f, w);
			putc('z', f);
		}
		fputs("\"><title>", f);
		put_xml_text(f,
			     s->tid == TID_UNKNOWN
				     ? "thread not known (after the CPU's last compact switch)"
				     : thread_name(tl->names, s->tid, s->row, name, sizeof(name)));
		fputs("</title></path>\n", f);
	}
}

/*
 * The longest label of @s's thread that fits in @room characters: its name
 * ("msedge.exe!CrBrowserMain 4120"), the thread's own name or its
 * process's image with the TID ("CrBrowserMain 4120"), without it
 * ("msedge.exe"), cut with an ellipsis ("msedge\xe2\x80\xa6"), the TID.
 * Return: it (in @buf), or NULL when none fits.
 */
static const char *fitting_label(const struct timeline *tl, const struct span *s, double room,
				 char *buf, size_t cap)
{
	const struct etwforge_thread_row *t =
		tl->names && tl->names->an && s->row >= 0
			? etwforge_analysis_thread(tl->names->an, (size_t)s->row)
			: NULL;
	const struct etwforge_process_row *p = thread_process(tl->names, s->row);
	const char *group = tl->names ? etwforge_names_group(tl->names->groups, s->tid) : NULL;
	const char *own = group				? group
			  : t && t->named && t->name[0] ? t->name
			  : p && p->image[0]		? p->image
							: NULL;
	char part[64];

	thread_name(tl->names, s->tid, s->row, buf, cap);
	if ((double)strlen(buf) <= room) {
		return buf;
	}
	if (own) {
		text_copy_name(part, sizeof(part), own);
		snprintf(buf, cap, "%s %" PRIu32, part, s->tid);
		if ((double)strlen(buf) <= room) {
			return buf;
		}
		snprintf(buf, cap, "%s", part);
		if ((double)strlen(buf) <= room && room >= 6) {
			return buf;
		}
		if (room >= 6) { /* its first characters and an ellipsis: a name, not a number */
			size_t keep = (size_t)room - 1;

			while (keep > 0 && ((unsigned char)part[keep] & 0xC0) == 0x80) {
				keep--; /* not inside a character */
			}
			snprintf(buf, cap, "%.*s\xe2\x80\xa6", (int)keep, part);
			return buf;
		}
	}
	snprintf(buf, cap, "%" PRIu32, s->tid);
	return (double)strlen(buf) <= room ? buf : NULL;
}

/* The thread's name (or TID) inside every span wide enough to hold it. */
static void write_labels(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	unsigned font;
	double char_w, last = -1e9;

	if (ly->bar_h < 10) {
		return; /* no legible text fits */
	}
	font = ly->bar_h >= 15 ? 11 : ly->bar_h - 3 > 8 ? ly->bar_h - 3 : 8;
	char_w = 0.6 * font;
	fprintf(f, "<g font-size=\"%u\">\n", font);
	for (size_t i = 0; i < tl->nspans; i++) {
		const struct span *s = &tl->spans[i];
		double w = (double)(s->x1 - s->x0) / TENTHS - 4;
		char name[THREAD_NAME_MAX];
		const char *text;

		/* spans are sorted by thread, shade, lane, x: the last label is just before */
		if (i == 0 || s->tid != tl->spans[i - 1].tid || s->lane != tl->spans[i - 1].lane ||
		    s->shade != tl->spans[i - 1].shade) {
			last = -1e9;
		}
		if (s->shade < SHADES || s->tid == TID_UNKNOWN ||
		    (double)s->x0 / TENTHS < last + LABEL_GAP_PX) {
			continue;
		}
		text = fitting_label(tl, s, w / char_w, name, sizeof(name));
		if (!text) {
			continue;
		}
		fputs("<text x=\"", f);
		put_tenths(f, MARGIN_L * TENTHS + s->x0 + 2 * TENTHS);
		fprintf(f, "\" y=\"%u\"%s>",
			lane_top(ly, s->lane) + ly->spin_h + ly->bar_h / 2 + font * 7 / 20,
			dark_text_on(span_rgb(tl, s->tid, s->row)) ? "" : " fill=\"#fff\"");
		put_xml_text(f, text);
		fputs("</text>\n", f);
		last = (double)s->x0 / TENTHS;
	}
	fputs("</g>\n", f);
}

static void write_ticks(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	if (!ly->tick_h) {
		return;
	}
	for (unsigned r = 0; r < FLUSH_REASONS; r++) {
		bool any = false;

		for (unsigned lane = 0; lane < tl->nlanes; lane++) {
			const uint8_t *t = tl->ticks + (size_t)lane * TICK_BINS;

			for (unsigned b = 0; b < TICK_BINS; b++) {
				if (!(t[b] & (1u << r))) {
					continue;
				}
				if (!any) {
					fprintf(f, "<path stroke=\"%s\" stroke-width=\"1\" d=\"",
						reason_colour[r]);
					any = true;
				}
				/* reasons that share a bin stand side by side */
				fprintf(f, "M%u.5 %uv%u",
					MARGIN_L + b * TICK_BIN_PX + (r % TICK_BIN_PX),
					lane_top(ly, lane) + ly->spin_h + ly->bar_h, ly->tick_h);
			}
		}
		if (any) {
			fprintf(f, "\"><title>batch flush: %s</title></path>\n",
				etwforge_flush_seen_label(r));
		}
	}
}

/* One mark of kind @k at x, top y, size s: contended ▼, hold ■, sampled ◆. */
static void put_mark(FILE *f, unsigned k, unsigned x, unsigned y, unsigned s)
{
	switch (k) {
	case ETWFORGE_SPIN_CONTENDED:
		fprintf(f, "M%u %uh%ul-%u %uz", x - s / 2, y, s, s / 2, s);
		break;
	case ETWFORGE_SPIN_HOLD:
		fprintf(f, "M%u %uh%uv%uh-%uz", x - s / 2, y, s, s, s);
		break;
	default:
		fprintf(f, "M%u %ul%u %ul-%u %ul-%u -%uz", x, y, s / 2, s / 2, s / 2, s / 2, s / 2,
			s / 2);
		break;
	}
}

/*
 * The spin-lock strip of every lane: one mark per kind and bin, except
 * where a kind marks more than SPIN_DENSE bins of a lane: there each bin is
 * a bar rising from the strip's bottom, bit_len(count) / bit_len(largest
 * count of that kind) of the strip high. Bars first, marks on top.
 */
static void write_spins(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	unsigned s = ly->spin_h > 10 ? 10 : ly->spin_h >= 3 ? ly->spin_h : 3;
	unsigned top_bits[SPIN_KINDS] = {0};

	if (!ly->spin_h) {
		return;
	}
	for (size_t i = 0; i < (size_t)tl->nlanes * SPIN_BINS; i++) {
		for (unsigned k = 0; k < SPIN_KINDS; k++) {
			unsigned b = bit_len(tl->spins[i * SPIN_KINDS + k]);

			top_bits[k] = b > top_bits[k] ? b : top_bits[k];
		}
	}
	for (unsigned pass = 0; pass < 2; pass++) { /* 0: bars, 1: marks */
		for (unsigned k = 0; k < SPIN_KINDS; k++) {
			bool any = false;

			for (unsigned lane = 0; lane < tl->nlanes; lane++) {
				const uint16_t *m =
					tl->spins + (size_t)lane * SPIN_BINS * SPIN_KINDS;
				bool bars = spin_bins_used(tl, lane, k) > SPIN_DENSE;

				if (bars != (pass == 0)) {
					continue;
				}
				for (unsigned b = 0; b < SPIN_BINS; b++) {
					unsigned c = m[b * SPIN_KINDS + k], x, h, y;

					if (!c) {
						continue;
					}
					if (!any) {
						fprintf(f, "<path fill=\"%s\" d=\"",
							spin_colour[k]);
						any = true;
					}
					x = MARGIN_L + b * SPIN_BIN_PX;
					y = lane_top(ly, lane);
					if (!bars) {
						put_mark(f, k, x + 1, y, s);
						continue;
					}
					h = s * bit_len(c) / top_bits[k];
					h = h ? h : 1;
					fprintf(f, "M%u %uh%uv%uh-%uz", x, y + s - h,
						SPIN_BIN_PX - 1, h, SPIN_BIN_PX - 1);
				}
			}
			if (!any) {
				continue;
			}
			if (pass == 0) {
				fprintf(f,
					"\"><title>spin lock: %s, too many to mark: a bar per %u "
					"px, "
					"its height log2 of the count (tallest: %u or "
					"more)</title></path>\n",
					etwforge_spin_seen_name(k), SPIN_BIN_PX,
					1u << (top_bits[k] - 1));
			} else {
				fprintf(f, "\"><title>spin lock: %s</title></path>\n",
					etwforge_spin_seen_name(k));
			}
		}
	}
}

/* Grid lines and labels every 1, 2 or 5 x 10^k ms, about ten of them. */
static void write_axis(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	double from_ms = (double)tl->from / 1e6, to_ms = (double)tl->to / 1e6;
	double raw = (to_ms - from_ms) / 10, mag = pow(10, floor(log10(raw))), step;
	int decimals;
	unsigned bottom = ly->height - 36 - ly->below;

	step = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
	decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	fputs("<path stroke=\"#d0d0d0\" stroke-width=\"1\" d=\"", f);
	for (double v = ceil(from_ms / step - 1e-9) * step; v <= to_ms + step * 1e-9; v += step) {
		fprintf(f, "M%.1f %uV%u", MARGIN_L + (v - from_ms) / (to_ms - from_ms) * PLOT_W,
			PLOT_TOP - 4, bottom + 4);
	}
	fputs("\"/>\n<g font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">\n", f);
	for (double v = ceil(from_ms / step - 1e-9) * step; v <= to_ms + step * 1e-9; v += step) {
		double x = MARGIN_L + (v - from_ms) / (to_ms - from_ms) * PLOT_W;

		fprintf(f,
			"<text x=\"%.1f\" y=\"%u\">%.*f</text><text x=\"%.1f\" "
			"y=\"%u\">%.*f</text>\n",
			x, PLOT_TOP - 7, decimals, fabs(v) < step * 1e-6 ? 0.0 : v, x, bottom + 16,
			decimals, fabs(v) < step * 1e-6 ? 0.0 : v);
	}
	fprintf(f,
		"</g>\n<text x=\"12\" y=\"%u\" font-size=\"11\" fill=\"#333\">ms</text>\n"
		"<text x=\"12\" y=\"%u\" font-size=\"11\" fill=\"#333\">ms</text>\n",
		PLOT_TOP - 7, bottom + 16);
}

static void write_lanes(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	fputs("<path fill=\"#f0f0f0\" d=\"", f);
	for (unsigned lane = 0; lane < tl->nlanes; lane++) {
		fprintf(f, "M%d %uh%dv%uh-%dz", MARGIN_L, lane_top(ly, lane) + ly->spin_h, PLOT_W,
			ly->bar_h, PLOT_W);
	}
	fprintf(f, "\"/>\n<g font-size=\"%u\" text-anchor=\"end\" fill=\"#333\">\n",
		ly->label_font);
	for (unsigned lane = 0; lane < tl->nlanes; lane += ly->label_every) {
		fprintf(f, "<text x=\"%d\" y=\"%u\">CPU %u</text>\n", MARGIN_L - 8,
			lane_top(ly, lane) + ly->spin_h + ly->bar_h / 2 + ly->label_font * 7 / 20,
			tl->v->lane_cpu[lane]);
	}
	fputs("</g>\n", f);
}

static const char *clock_name(uint32_t c)
{
	return c == 1 ? "QPC" : c == 2 ? "system time" : c == 3 ? "CPU cycle" : "raw";
}

/* A frequency as people write it: "10 MHz", "3 GHz", "14318180 Hz". */
static void put_hz(FILE *f, uint64_t hz)
{
	if (hz % 1000000000u == 0) {
		fprintf(f, "%" PRIu64 " GHz", hz / 1000000000u);
	} else if (hz % 1000000u == 0) {
		fprintf(f, "%" PRIu64 " MHz", hz / 1000000u);
	} else if (hz % 1000u == 0) {
		fprintf(f, "%" PRIu64 " kHz", hz / 1000u);
	} else {
		fprintf(f, "%" PRIu64 " Hz", hz);
	}
}

/* Title, what was drawn, and the legend with its counts. */
static void write_head(const struct timeline *tl, const struct layout *ly,
		       const struct etwforge_analysis_totals *tot, FILE *f)
{
	const struct etwforge_file_info *in = tl->v->info;
	uint64_t batches = 0, spins = 0;
	unsigned x;

	for (unsigned r = 0; r < FLUSH_REASONS; r++) {
		batches += tl->flushes[r];
	}
	for (unsigned k = 0; k < SPIN_KINDS; k++) {
		spins += tl->spin_n[k];
	}
	fputs("<text x=\"12\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", f);
	put_xml(f, in->name);
	fputs(" \xe2\x80\x94 ", f);
	put_xml(f, in->logger_name);
	fprintf(f,
		"</text>\n<text x=\"12\" y=\"40\" font-size=\"11\" fill=\"#333\">%u of %" PRIu32
		" CPUs, %s clock at ",
		tl->nlanes, in->cpus, clock_name(in->clock_type));
	put_hz(f, tl->v->hz);
	fprintf(f,
		", %.6g to %.6g ms since the session start: %" PRIu64 " switches (%" PRIu64
		" from compact batches), %" PRIu64 " batch flushes, %" PRIu64
		" spin-lock events%s</text>\n",
		(double)tl->from / 1e6, (double)tl->to / 1e6, tot->switches, tot->compact, batches,
		spins, tot->damaged ? "; damaged batches skipped" : "");

	/* legend, lines 1 and 2: what colour, shade and hatching mean */
	fprintf(f,
		"<g font-size=\"11\" fill=\"#333\">\n<text x=\"12\" y=\"60\">colour: %s; blank: "
		"idle%s</text>\n",
		tl->legend.named
			? "the process, in a shade per thread (the file's Process and Thread "
			  "records, listed under the lanes)"
			: "the thread (a fixed hash of its TID, the same in every picture)",
		tl->unknown
			? "; hatched: the thread is not known (after a CPU's last compact switch)"
			: "");
	if (tl->aggregated) {
		fputs("<text x=\"12\" y=\"78\">paler: where slices are narrower than 2 px, each "
		      "pixel column has the colour of the thread that ran longest in it, shaded by "
		      "the "
		      "share of the column that was busy</text>\n",
		      f);
	}
	/* line 2: batch flushes by reason */
	fputs("<text x=\"12\" y=\"98\">batch flushes:</text>\n", f);
	x = 104;
	if (batches == 0) {
		fprintf(f, "<text x=\"104\" y=\"98\">%s</text>\n",
			tot->compact ? "none in this window (its switches are in batches flushed "
				       "after it)"
				     : "none here (no compact batches)");
	}
	for (unsigned r = 0; batches && r < FLUSH_REASONS; r++) {
		const char *label = etwforge_flush_seen_label(r);

		fprintf(f, "<rect x=\"%u\" y=\"88\" width=\"3\" height=\"12\" fill=\"%s\"/>", x,
			reason_colour[r]);
		fprintf(f, "<text x=\"%u\" y=\"98\">%s: %" PRIu64 "</text>\n", x + 7, label,
			tl->flushes[r]);
		x += 7 + (unsigned)((double)strlen(label) * 6.2) + 64;
	}
	/* line 3: spin locks */
	fputs("<text x=\"12\" y=\"116\">spin locks:</text>\n", f);
	x = 104;
	if (spins == 0) {
		fputs("<text x=\"104\" y=\"116\">none here</text>\n", f);
		x += 60;
	}
	for (unsigned k = 0; spins && k < SPIN_KINDS; k++) {
		const char *name = etwforge_spin_seen_name(k);

		fprintf(f, "<path fill=\"%s\" d=\"", spin_colour[k]);
		put_mark(f, k, x + 4, 107, 9);
		fprintf(f, "\"/><text x=\"%u\" y=\"116\">%s: %" PRIu64 "</text>\n", x + 12, name,
			tl->spin_n[k]);
		x += 12 + (unsigned)((double)strlen(name) * 6.2) + 64;
	}
	if (ly->spin_bars) {
		fprintf(f,
			"<path fill=\"%s\" d=\"M%u 111h2v5h-2zM%u 108h2v8h-2zM%u 113h2v3h-2z\"/>"
			"<text x=\"%u\" y=\"116\">where too many to mark: bars, log2 of the "
			"count</text>\n",
			spin_colour[ETWFORGE_SPIN_CONTENDED], x, x + 3, x + 6, x + 12);
		x += 12 + 270;
	}
	fprintf(f,
		"<text x=\"%u\" y=\"116\" fill=\"#666\">flush reasons and spin-lock kinds are "
		"inferred from the file: see etwforge(1), dump --timeline</text>\n</g>\n",
		x + 20);
}

/* thread_name() in the form the arrows take it. */
static const char *wake_name(const void *ctx, uint32_t tid, int64_t row, char *buf, size_t cap)
{
	return thread_name(ctx, tid, row, buf, cap);
}

/* The wake-up arrows, when few enough. Return: 0, or -ENOMEM. */
static int write_wakes(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	unsigned *top;
	struct wake_geometry g = {.x0 = MARGIN_L,
				  .from_ns = tl->from,
				  .px_per_ns = tl->px_per_ns,
				  .plot_w = PLOT_W,
				  .nlanes = tl->nlanes,
				  .bar_h = ly->bar_h};

	if (!wake_arrows_drawn(&tl->wakes)) {
		return 0;
	}
	top = calloc(tl->nlanes ? tl->nlanes : 1, sizeof(*top));
	if (!top) {
		return -ENOMEM;
	}
	for (unsigned lane = 0; lane < tl->nlanes; lane++) {
		top[lane] = lane_top(ly, lane) + ly->spin_h;
	}
	g.lane_top = top;
	wake_arrows_write(f, &tl->wakes, &g, wake_name, tl->names);
	free(top);
	return 0;
}

/* Under the axis: the wake-ups line and the processes. */
static void write_below(const struct timeline *tl, const struct layout *ly, FILE *f)
{
	unsigned y = ly->height - ly->below;

	if (tl->wakes.total) {
		wake_arrows_legend(f, &tl->wakes, 12, y + 12);
		y += LEGEND_LINE_H + 4;
	}
	legend_write(f, &tl->legend, 12, y);
}

int timeline_write(struct timeline *tl, FILE *out)
{
	const struct etwforge_analysis_totals *tot = etwforge_analysis_totals(tl->v->an);
	struct layout ly;

	cells_to_spans(tl);
	if (tl->nomem ||
	    legend_build(&tl->legend, tl->names, (double)(tl->to - tl->from) * (double)tl->nlanes,
			 SVG_WIDTH) < 0) {
		return -ENOMEM;
	}
	if (tl->nspans) { /* qsort(NULL, 0, ...) is undefined */
		qsort(tl->spans, tl->nspans, sizeof(*tl->spans), span_cmp);
	}
	plan(tl, &ly);
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" viewBox=\"0 "
		"0 %d %u\" "
		"font-family=\"" FONT "\">\n"
		"<title>etwforge dump --timeline</title>\n"
		"<defs><pattern id=\"unknown\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"6\" height=\"6\" fill=\"#ececec\"/>"
		"<rect width=\"2\" height=\"6\" fill=\"#bdbdbd\"/></pattern>",
		SVG_WIDTH, ly.height, SVG_WIDTH, ly.height);
	if (wake_arrows_drawn(&tl->wakes)) {
		wake_arrows_defs(out);
	}
	fprintf(out, "</defs>\n<rect width=\"%d\" height=\"%u\" fill=\"#fff\"/>\n", SVG_WIDTH,
		ly.height);
	write_head(tl, &ly, tot, out);
	write_lanes(tl, &ly, out);
	write_axis(tl, &ly, out);
	write_spans(tl, &ly, out);
	write_labels(tl, &ly, out);
	write_ticks(tl, &ly, out);
	write_spins(tl, &ly, out);
	if (write_wakes(tl, &ly, out) < 0) {
		return -ENOMEM;
	}
	write_below(tl, &ly, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
