// SPDX-License-Identifier: MIT
/*
 * tools/cli/compare_svg.c - the picture of `etwforge compare --svg`: at the
 * top the distance of each trait as a bar (green near 0, red near 1), under
 * it one panel per distribution or mix, trace A's shares and trace B's side
 * by side in each bucket or category.
 *
 *   title, legend (A blue, B orange)
 *   distances: one row per trait ........ bar, value
 *   panels, 3 a row: wake_latency | run_burst | wait_time | mixes ...
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compare_svg.h"
#include "text_escape.h"

#define WIDTH	   960
#define MARGIN	   20
#define ROW	   16 /* a distance row */
#define PANEL_W	   293
#define PANEL_H	   190
#define PANEL_GAP  20
#define PLOT_TOP   28 /* inside a panel: room for its title */
#define PLOT_BOT   34 /* room for the labels under the bars */
#define MIX_TOP	   8  /* a mix shows its 8 most common categories */
#define COLOR_A	   "#3b78c3"
#define COLOR_B	   "#e07b28"
#define COLOR_GRID "#dddddd"

/* @ns as a person reads a duration. */
static void duration(char *buf, size_t cap, double ns)
{
	if (ns < 1e3) {
		snprintf(buf, cap, "%.0f ns", ns);
	} else if (ns < 1e6) {
		snprintf(buf, cap, "%.3g us", ns / 1e3);
	} else if (ns < 1e9) {
		snprintf(buf, cap, "%.3g ms", ns / 1e6);
	} else {
		snprintf(buf, cap, "%.3g s", ns / 1e9);
	}
}

void compare_value_text(char *buf, size_t cap, const struct etwforge_trait *t)
{
	char d[32];
	unsigned top = 0;

	if (!t->present) {
		snprintf(buf, cap, "-");
		return;
	}
	switch (t->kind) {
	case ETWFORGE_TRAIT_AMOUNT:
		snprintf(buf, cap, "%.4g%s%s", t->value, t->unit[0] ? " " : "", t->unit);
		break;
	case ETWFORGE_TRAIT_FRACTION:
		snprintf(buf, cap, t->value > 0 && t->value < 0.001 ? "%.3f %%" : "%.1f %%",
			 100 * t->value);
		break;
	case ETWFORGE_TRAIT_SIGNED:
		snprintf(buf, cap, "%+.2f", t->value);
		break;
	case ETWFORGE_TRAIT_DIST_LOG2:
		if (strcmp(t->unit, "ns") != 0) { /* a count: frames */
			snprintf(buf, cap, "median %.0f%s%s", t->value, t->unit[0] ? " " : "",
				 t->unit);
			break;
		}
		duration(d, sizeof(d), t->value);
		snprintf(buf, cap, "median %s", d);
		break;
	case ETWFORGE_TRAIT_DIST_LINEAR:
		snprintf(buf, cap, "median %.0f %%", 100 * t->value);
		break;
	case ETWFORGE_TRAIT_MIX:
		for (unsigned k = 1; k < t->ncounts; k++) {
			top = t->counts[k] > t->counts[top] ? k : top;
		}
		snprintf(buf, cap, "%s (%.0f %%)", t->labels[top], 100 * t->value);
		break;
	}
}

/* A distance's color: green (0) to red (1) through yellow. */
static void distance_color(char *buf, size_t cap, double d)
{
	int r = d < 0.5 ? (int)(510 * d) : 255, g = d < 0.5 ? 200 : (int)(200 * (2 - 2 * d));

	snprintf(buf, cap, "#%02x%02x40", r > 255 ? 255 : r, g < 0 ? 0 : g);
}

static double share(const uint64_t *c, unsigned n, unsigned k)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		sum += c[i];
	}
	return sum ? (double)c[k] / (double)sum : 0;
}

/* A bucket's lower edge in @unit, as a short label. */
static void edge_label(char *buf, size_t cap, unsigned k, const char *unit)
{
	double v = k ? ldexp(1.0, (int)k) : 0;

	if (strcmp(unit, "ns") != 0) {
		snprintf(buf, cap, "%.3g", v);
	} else if (v < 1e3) {
		snprintf(buf, cap, "%.0fns", v);
	} else if (v < 1e6) {
		snprintf(buf, cap, "%.0fus", v / 1e3);
	} else if (v < 1e9) {
		snprintf(buf, cap, "%.0fms", v / 1e6);
	} else {
		snprintf(buf, cap, "%.0fs", v / 1e9);
	}
}

/* The categories a panel shows, @idx[0..*@n): buckets with a count, or a mix's top ones. */
static void pick(const struct etwforge_trait *x, const struct etwforge_trait *y, unsigned *idx,
		 unsigned *n)
{
	unsigned lo = x->ncounts, hi = 0;

	*n = 0;
	if (x->kind != ETWFORGE_TRAIT_MIX) {
		for (unsigned k = 0; k < x->ncounts; k++) {
			if ((x->present && x->counts[k]) || (y->present && y->counts[k])) {
				lo = k < lo ? k : lo;
				hi = k;
			}
		}
		if (x->kind == ETWFORGE_TRAIT_DIST_LINEAR) {
			lo = 0;
			hi = x->ncounts - 1;
		}
		for (unsigned k = lo; k <= hi && lo < x->ncounts; k++) {
			idx[(*n)++] = k;
		}
		return;
	}
	/* a mix: the categories by their larger share, at most MIX_TOP */
	while (*n < MIX_TOP) {
		int best = -1;
		double bs = 0;

		for (unsigned k = 0; k < x->ncounts; k++) {
			double s = fmax(x->present ? share(x->counts, x->ncounts, k) : 0,
					y->present ? share(y->counts, y->ncounts, k) : 0);
			bool taken = false;

			for (unsigned i = 0; i < *n; i++) {
				taken |= idx[i] == k;
			}
			if (!taken && s > bs) {
				bs = s;
				best = (int)k;
			}
		}
		if (best < 0) {
			break;
		}
		idx[(*n)++] = (unsigned)best;
	}
}

/* One panel at (@x0, @y0): trait @i of both traces. */
static void panel(FILE *f, int x0, int y0, const struct etwforge_trait *x,
		  const struct etwforge_trait *y)
{
	unsigned idx[64], n = 0;
	int pw = PANEL_W - 20, ph = PANEL_H - PLOT_TOP - PLOT_BOT;
	double top = 0, d;
	char label[32];

	pick(x, y, idx, &n);
	for (unsigned i = 0; i < n; i++) {
		top = fmax(top, x->present ? share(x->counts, x->ncounts, idx[i]) : 0);
		top = fmax(top, y->present ? share(y->counts, y->ncounts, idx[i]) : 0);
	}
	fprintf(f, "<g transform=\"translate(%d,%d)\">\n", x0, y0);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbbbbb\"/>\n", PANEL_W,
		PANEL_H);
	fprintf(f, "<text x=\"8\" y=\"16\" class=\"t\">");
	put_xml_text(f, x->name);
	if (etwforge_trait_distance(x, y, &d) == 0) {
		fprintf(f, " &#8212; distance %.3f", d);
	} else {
		fprintf(f, " &#8212; %s", x->present ? "only in A" : "only in B");
	}
	fprintf(f, "</text>\n");
	fprintf(f, "<line x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>\n", PLOT_TOP + ph,
		10 + pw, PLOT_TOP + ph, COLOR_GRID);
	for (unsigned i = 0; i < n && top > 0; i++) {
		double slot = (double)pw / n, bw = slot * 0.4;
		double xa = 10 + slot * i + slot * 0.1;
		double sa = x->present ? share(x->counts, x->ncounts, idx[i]) : 0;
		double sb = y->present ? share(y->counts, y->ncounts, idx[i]) : 0;
		double ha = ph * sa / top, hb = ph * sb / top;

		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"" COLOR_A
			"\"/>\n",
			xa, PLOT_TOP + ph - ha, bw, ha);
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"" COLOR_B
			"\"/>\n",
			xa + bw, PLOT_TOP + ph - hb, bw, hb);
		/* a label under every bucket when they fit, else under every few */
		if (x->kind == ETWFORGE_TRAIT_MIX || n <= 8 || i % ((n + 5) / 6) == 0) {
			if (x->kind == ETWFORGE_TRAIT_MIX) {
				snprintf(label, sizeof(label), "%s", x->labels[idx[i]]);
			} else if (x->kind == ETWFORGE_TRAIT_DIST_LINEAR) {
				snprintf(label, sizeof(label), "%u%%", 100 * idx[i] / x->ncounts);
			} else {
				edge_label(label, sizeof(label), idx[i], x->unit);
			}
			fprintf(f,
				"<text x=\"%.1f\" y=\"%d\" class=\"s\" text-anchor=\"end\" "
				"transform=\"rotate(-35 %.1f %d)\">",
				xa + bw, PLOT_TOP + ph + 12, xa + bw, PLOT_TOP + ph + 12);
			put_xml_text(f, label);
			fprintf(f, "</text>\n");
		}
	}
	if (top == 0) {
		fprintf(f, "<text x=\"10\" y=\"%d\" class=\"s\">nothing counted</text>\n",
			PLOT_TOP + ph / 2);
	}
	fprintf(f, "</g>\n");
}

static void draw(FILE *f, const struct etwforge_traits *a, const struct etwforge_traits *b,
		 const char *name_a, const char *name_b)
{
	size_t n = etwforge_traits_count(a), npanels = 0;
	unsigned compared = 0;
	double score = etwforge_traits_score(a, b, &compared);
	int y = MARGIN + 56, height;

	for (size_t i = 0; i < n; i++) {
		const struct etwforge_trait *x = etwforge_traits_at(a, i),
					    *z = etwforge_traits_at(b, i);

		npanels += (x->kind == ETWFORGE_TRAIT_DIST_LOG2 || x->kind == ETWFORGE_TRAIT_MIX ||
			    x->kind == ETWFORGE_TRAIT_DIST_LINEAR) &&
			   (x->present || z->present);
	}
	height = y + (int)n * ROW + 30 + (int)((npanels + 2) / 3) * (PANEL_H + PANEL_GAP) + MARGIN;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
		WIDTH, height, WIDTH, height);
	fprintf(f, "<style>.t{font-size:13px;font-weight:bold}.s{font-size:11px}"
		   ".m{font-size:11px;font-family:monospace}</style>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">", MARGIN,
		MARGIN + 8);
	fprintf(f,
		"etwforge compare: score %.3f over %u traits (0 alike, 1 as far apart as can "
		"be)</text>\n",
		score, compared);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"" COLOR_A "\"/>",
		MARGIN, MARGIN + 18);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">A  ", MARGIN + 18, MARGIN + 28);
	put_xml_text(f, name_a);
	fprintf(f,
		"</text>\n<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"" COLOR_B
		"\"/>",
		MARGIN, MARGIN + 34);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">B  ", MARGIN + 18, MARGIN + 44);
	put_xml_text(f, name_b);
	fprintf(f, "</text>\n");
	/* the distances, one row each */
	for (size_t i = 0; i < n; i++) {
		const struct etwforge_trait *x = etwforge_traits_at(a, i),
					    *z = etwforge_traits_at(b, i);
		int ry = y + (int)i * ROW;
		char color[16], va[64], vb[64];
		double d;

		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"m\"%s>", MARGIN, ry + 11,
			x->scored ? "" : " fill=\"#888888\"");
		put_xml_text(f, x->name);
		fprintf(f, "</text>\n");
		if (etwforge_trait_distance(x, z, &d) < 0) {
			fprintf(f,
				"<text x=\"%d\" y=\"%d\" class=\"s\" fill=\"#888888\">%s</text>\n",
				MARGIN + 200, ry + 11,
				!x->present && !z->present ? "in neither"
				: x->present		   ? "only in A"
							   : "only in B");
			continue;
		}
		distance_color(color, sizeof(color), d);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s/>\n",
			MARGIN + 200, ry + 2, 500 * d + 0.5, ROW - 4, x->scored ? color : "#cccccc",
			"");
		compare_value_text(va, sizeof(va), x);
		compare_value_text(vb, sizeof(vb), z);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"s\">%.3f%s  (A ",
			MARGIN + 206 + 500 * d, ry + 11, d, x->scored ? "" : " context");
		put_xml_text(f, va);
		fprintf(f, ", B ");
		put_xml_text(f, vb);
		fprintf(f, ")</text>\n");
	}
	y += (int)n * ROW + 30;
	for (size_t i = 0, p = 0; i < n; i++) {
		const struct etwforge_trait *x = etwforge_traits_at(a, i),
					    *z = etwforge_traits_at(b, i);

		if ((x->kind != ETWFORGE_TRAIT_DIST_LOG2 && x->kind != ETWFORGE_TRAIT_MIX &&
		     x->kind != ETWFORGE_TRAIT_DIST_LINEAR) ||
		    (!x->present && !z->present)) {
			continue;
		}
		panel(f, MARGIN + (int)(p % 3) * (PANEL_W + PANEL_GAP),
		      y + (int)(p / 3) * (PANEL_H + PANEL_GAP), x, z);
		p++;
	}
	fprintf(f, "</svg>\n");
}

int compare_svg_write(const char *out, const struct etwforge_traits *a,
		      const struct etwforge_traits *b, const char *name_a, const char *name_b,
		      const char *input_a, const char *input_b)
{
	struct etwforge_output *o = etwforge_output_new();
	struct etwforge_error *err = cli_err();
	int i, status = EXIT_OK;

	if (!o) {
		fprintf(stderr, "etwforge compare: out of memory\n");
		return EXIT_DATA;
	}
	if (etwforge_output_input(o, input_a, "A", err) < 0 ||
	    etwforge_output_input(o, input_b, "B", err) < 0 ||
	    (i = etwforge_output_add(o, out, "--svg", err)) < 0 ||
	    etwforge_output_open(o, err) < 0) {
		status = cli_error("compare", err);
		goto out;
	}
	draw(etwforge_output_stream(o, (unsigned)i), a, b, name_a, name_b);
	if (etwforge_output_commit(o, err) < 0) {
		status = cli_error("compare", err);
	}
out:
	etwforge_output_free(o); /* removes the temporary unless committed */
	return status;
}
