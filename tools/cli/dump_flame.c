// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_flame.c - the samples' call tree drawn and folded (see
 * dump_flame.h). The flame graph is Brendan Gregg's: a frame is a box as
 * wide as its share of the samples, its callees stacked on it, the
 * outermost frame at the bottom; the first graph is the whole trace
 * ("all", then a box per process, the idle thread's included), then one
 * graph per busy process, each as wide as the page. Colours come from a
 * fixed hash of the frame's name (the same function has the same colour
 * in every graph and every file); a frame no image maps ("?") is grey.
 * Every box carries its name and count as a tooltip.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_flame.h"
#include "text_escape.h"

#define SVG_WIDTH      1200
#define MARGIN	       10
#define FRAME_H	       16
#define HEADER_H       28
#define CHAR_W	       6.6  /* an average character of the 11 px font */
#define MIN_BOX	       0.5  /* a box narrower than this (px) is left out, and its callees */
#define PROCESSES_MAX  8    /* graphs of their own, busiest first */
#define PROCESS_SHARE  0.01 /* ... holding at least this share of the samples not idle */
#define IDLE_NAME      "Idle (0)"
#define NAME_MAX_BYTES 512
#define LEVELS_MAX     512 /* deeper frames are not drawn (Windows writes 192 a record, 2 parts) */

static const struct etwforge_call_node *node(struct etwforge_analysis *an, int64_t i)
{
	return etwforge_analysis_call_node(an, (size_t)i);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h = (h ^ (unsigned char)*s++) * 16777619u;
	}
	return h;
}

/* The "hot" palette of flamegraph.pl, by a fixed hash of the name. */
static void colour(const struct etwforge_call_node *n, char out[8])
{
	uint32_t h = name_hash(n->name);

	if (!strcmp(n->name, "?")) {
		snprintf(out, 8, "#c8c8c8");
	} else if (n->depth <= 1) {
		snprintf(out, 8, "#%02x%02x%02x", 0xd8u, 0xd0u, 0xb8u + (h % 32u));
	} else {
		snprintf(out, 8, "#%02x%02x%02x", 205u + h % 50u, (h >> 8) % 230u, (h >> 16) % 55u);
	}
}

/* How many levels of boxes wide enough to draw stand on @i, drawn @w px wide (1: itself). */
static unsigned levels(struct etwforge_analysis *an, int64_t i, double w, unsigned level)
{
	const struct etwforge_call_node *n = node(an, i);
	unsigned most = 0;

	for (int64_t c = n->first_child; level + 1 < LEVELS_MAX && c >= 0;
	     c = node(an, c)->next_sibling) {
		double cw = w * (double)node(an, c)->samples / (double)n->samples;
		unsigned l;

		if (cw < MIN_BOX) {
			break; /* the rest are smaller: most samples first */
		}
		l = levels(an, c, cw, level + 1);
		most = l > most ? l : most;
	}
	return most + 1;
}

/* The box of @i at (@x, level @level above @bottom), @w wide, and its callees on it. */
static void box(FILE *out, struct etwforge_analysis *an, int64_t i, double x, double w,
		unsigned level, double bottom, uint64_t total)
{
	const struct etwforge_call_node *n = node(an, i);
	double y = bottom - (level + 1) * FRAME_H, cx = x;
	char fill[8];
	size_t fit = w > 3 * CHAR_W ? (size_t)((w - 4) / CHAR_W) : 0;

	colour(n, fill);
	fprintf(out, "<g><title>");
	put_xml_text(out, n->name);
	fprintf(out, " (%" PRIu64 " samples, %.2f%%)</title>", n->samples,
		total ? 100.0 * (double)n->samples / (double)total : 0.0);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\" "
		"ry=\"2\"/>",
		x, y, w, FRAME_H - 1, fill);
	if (fit >= 3) {
		char name[NAME_MAX_BYTES];

		if (strlen(n->name) > fit) {
			text_copy_name(name, fit - 1 < sizeof(name) ? fit - 1 : sizeof(name),
				       n->name);
			strcat(name, "..");
		} else {
			text_copy_name(name, sizeof(name), n->name);
		}
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		put_xml_text(out, name);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	for (int64_t c = n->first_child; level + 1 < LEVELS_MAX && c >= 0;
	     c = node(an, c)->next_sibling) {
		double cw = w * (double)node(an, c)->samples / (double)n->samples;

		if (cw < MIN_BOX) {
			break;
		}
		box(out, an, c, cx, cw, level + 1, bottom, total);
		cx += cw;
	}
}

/* The graphs: the whole trace's, then the busy processes'. */
struct graph {
	int64_t root;
	unsigned levels;
};

int flame_svg(FILE *out, struct etwforge_analysis *an, const char *title)
{
	size_t nodes;
	const struct etwforge_analysis_totals *t = etwforge_analysis_totals(an);
	const double width = SVG_WIDTH - 2 * MARGIN;
	struct graph g[1 + PROCESSES_MAX];
	unsigned ng = 0;
	uint64_t busy = 0;
	double y = HEADER_H;

	errno = 0;
	nodes = etwforge_analysis_call_nodes(an);
	if (nodes == 0 && errno == ENOMEM) {
		return -ENOMEM;
	}
	if (nodes) {
		const struct etwforge_call_node *root = node(an, 0);

		g[ng++] = (struct graph){0, 0};
		for (int64_t c = root->first_child; c >= 0; c = node(an, c)->next_sibling) {
			busy += strcmp(node(an, c)->name, IDLE_NAME) ? node(an, c)->samples : 0;
		}
		for (int64_t c = root->first_child; c >= 0 && ng < 1 + PROCESSES_MAX;
		     c = node(an, c)->next_sibling) {
			const struct etwforge_call_node *p = node(an, c);

			if (strcmp(p->name, IDLE_NAME) &&
			    (double)p->samples >= PROCESS_SHARE * (double)busy) {
				g[ng++] = (struct graph){c, 0};
			}
		}
	}
	for (unsigned k = 0; k < ng; k++) {
		g[k].levels = node(an, g[k].root)->samples ? levels(an, g[k].root, width, 0) : 0;
		y += HEADER_H + g[k].levels * FRAME_H;
	}
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<title>etwforge dump --flamegraph</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fbfbf6\"/>\n"
		"<text x=\"%d\" y=\"18\" font-size=\"14\">",
		SVG_WIDTH, y + MARGIN, SVG_WIDTH, y + MARGIN, MARGIN);
	put_xml_text(out, title);
	fprintf(out,
		": %" PRIu64 " samples, %" PRIu64 " with a stack, %" PRIu64
		" in a known module</text>\n",
		t->samples, t->samples_stacked, t->samples_in_image);
	y = HEADER_H;
	for (unsigned k = 0; k < ng; k++) {
		const struct etwforge_call_node *r = node(an, g[k].root);
		double bottom = y + HEADER_H + g[k].levels * FRAME_H;

		fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">",
			MARGIN, y + HEADER_H - 8);
		put_xml_text(out, k == 0 ? "the whole trace" : r->name);
		fprintf(out, ": %" PRIu64 " samples</text>\n", r->samples);
		if (r->samples) {
			box(out, an, g[k].root, MARGIN, width, 0, bottom, r->samples);
		}
		y = bottom;
	}
	fputs("</svg>\n", out);
	return 0;
}

/* @name after the path's first @len bytes (and a ';'). Return: the new length, SIZE_MAX no memory. */
static size_t path_add(char **path, size_t *cap, size_t len, const char *name)
{
	size_t add = strlen(name);

	if (len + add + 2 > *cap) {
		size_t c = 2 * (len + add + 2);
		char *p = realloc(*path, c);

		if (!p) {
			return SIZE_MAX;
		}
		*path = p;
		*cap = c;
	}
	if (len) {
		(*path)[len++] = ';';
	}
	memcpy(*path + len, name, add + 1);
	return len + add;
}

/* A folded line: the path, a name from the file untrusted (no control character breaks a line). */
static void fold_line(FILE *out, const char *path, size_t len, uint64_t n)
{
	for (size_t k = 0; k < len; k++) {
		putc((unsigned char)path[k] < 0x20 ? '?' : path[k], out);
	}
	fprintf(out, " %" PRIu64 "\n", n);
}

int flame_folded(FILE *out, struct etwforge_analysis *an)
{
	size_t nodes, cap = 0, *lens = NULL, nlens = 0;
	char *path = NULL;
	int64_t i;
	int rc = 0;

	errno = 0;
	nodes = etwforge_analysis_call_nodes(an);
	if (nodes == 0) {
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	/* depth first, without recursion (a stack may be thousands of frames deep): the
	 * path's length at each depth in @lens; "all" is no frame */
	i = node(an, 0)->first_child;
	while (i >= 0) {
		const struct etwforge_call_node *n = node(an, i);
		size_t d = n->depth - 1, len;

		if (d >= nlens) {
			size_t *v = realloc(lens, (d + 64) * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			lens = v;
			nlens = d + 64;
		}
		len = path_add(&path, &cap, d ? lens[d - 1] : 0, n->name);
		if (len == SIZE_MAX) {
			rc = -ENOMEM;
			break;
		}
		lens[d] = len;
		if (n->self) {
			fold_line(out, path, len, n->self);
		}
		if (n->first_child >= 0) {
			i = n->first_child;
			continue;
		}
		while (i > 0 && node(an, i)->next_sibling < 0) {
			i = node(an, i)->parent;
		}
		i = i > 0 ? node(an, i)->next_sibling : -1;
	}
	free(lens);
	free(path);
	return rc;
}
