// SPDX-License-Identifier: MIT
/*
 * tools/cli/timeline_legend.c - the timeline's colours and its legend of
 * processes (timeline_legend.h). The legend is laid out as pieces (a
 * process and its share, then each of its threads), set into lines of the
 * picture's width; a process whose threads do not fit on one line goes on
 * over the next ones, indented. Its memory is one entry per process and
 * thread that ran in the window.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text_escape.h"
#include "timeline_legend.h"

#define CHAR_PX	       6.5 /* the width of a character of the 11 px font, at most about */
#define GOLDEN_ANGLE   137.508
#define THREADS_LISTED 24 /* threads named per process; the rest summed */

static uint32_t colour_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85EBCA6Bu;
	x ^= x >> 13;
	x *= 0xC2B2AE35u;
	x ^= x >> 16;
	return x;
}

static uint32_t colour_hsl(double hue, double s, double l)
{
	double c = (1.0 - fabs(2.0 * l - 1.0)) * s, h = hue / 60.0;
	double x = c * (1.0 - fabs(fmod(h, 2.0) - 1.0)), m = l - c / 2.0;
	double r = 0, g = 0, b = 0;

	switch ((int)h) {
	case 0:
		r = c, g = x;
		break;
	case 1:
		r = x, g = c;
		break;
	case 2:
		g = c, b = x;
		break;
	case 3:
		g = x, b = c;
		break;
	case 4:
		r = x, b = c;
		break;
	default:
		r = c, b = x;
		break;
	}
	return (uint32_t)lround((r + m) * 255) << 16 | (uint32_t)lround((g + m) * 255) << 8 |
	       (uint32_t)lround((b + m) * 255);
}

/* A thread the file does not name: hue, saturation and lightness from a hash of its TID. */
static uint32_t tid_rgb(uint32_t tid)
{
	uint32_t h = colour_mix(tid);

	return colour_hsl((double)(h % 360u), (50.0 + (double)((h >> 9) % 35u)) / 100.0,
			  (40.0 + (double)((h >> 17) % 24u)) / 100.0);
}

/*
 * The hue of process row @p: by its rank in the window, a golden angle apart
 * on the wheel from the one before, so that the busiest processes, side by
 * side in the legend, are far apart whatever their PIDs; a process that did
 * not run there, by a hash of its PID.
 */
static double process_hue(const struct legend *lg, size_t p, uint32_t pid)
{
	if (p < lg->nprocs && lg->rank_of[p] != SIZE_MAX) {
		return fmod((double)lg->rank_of[p] * GOLDEN_ANGLE + 20.0, 360.0);
	}
	return (double)(colour_mix(pid ^ 0x9E3779B9u) % 360u);
}

uint32_t legend_rgb(const struct legend *lg, uint32_t tid, int64_t row)
{
	const struct etwforge_thread_row *t;
	double hue;

	if (!lg->named || row < 0 || !(t = etwforge_analysis_thread(lg->names->an, (size_t)row)) ||
	    !t->named) {
		return tid_rgb(tid);
	}
	hue = process_hue(lg, t->process >= 0 ? (size_t)t->process : SIZE_MAX, t->pid);
	return colour_hsl(hue, 0.62, 0.36 + (double)(colour_mix(tid) % 28u) / 100.0);
}

/* A piece of the legend's text; @swatch: a process piece (its row), else SIZE_MAX. */
struct piece {
	char text[200];
	size_t swatch;
};

struct pieces {
	struct piece *v;
	size_t n, cap;
};

static struct piece *piece_add(struct pieces *p, size_t swatch)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct piece *v = realloc(p->v, cap * sizeof(*v));

		if (!v) {
			return NULL;
		}
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n].swatch = swatch;
	p->v[p->n].text[0] = '\0';
	return &p->v[p->n++];
}

static double share(uint64_t ns, double total_ns)
{
	return total_ns > 0 ? 100.0 * (double)ns / total_ns : 0.0;
}

/* Characters of @s (UTF-8: the bytes that do not continue a sequence). */
static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		n += ((unsigned char)*s & 0xC0) != 0x80;
	}
	return n;
}

struct ranked {
	size_t row;
	uint64_t ns;
	uint32_t id;
};

static int by_ns(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->ns != y->ns) {
		return x->ns > y->ns ? -1 : 1;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The threads of process row @p that ran, busiest first. Return: them (*@n), NULL none or ENOMEM. */
static struct ranked *threads_of(const struct etwforge_analysis *an, size_t nthreads, int64_t p,
				 size_t *n)
{
	struct ranked *v = NULL;
	size_t k = 0, cap = 0;

	for (size_t i = 0; i < nthreads; i++) {
		const struct etwforge_thread_row *t = etwforge_analysis_thread(an, i);

		if (t->process != p || !t->named || t->cpu_ns == 0) {
			continue;
		}
		if (k == cap) {
			struct ranked *w = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*w));

			if (!w) {
				free(v);
				*n = SIZE_MAX;
				return NULL;
			}
			v = w;
		}
		v[k++] = (struct ranked){i, t->cpu_ns, t->tid};
	}
	if (k) {
		qsort(v, k, sizeof(*v), by_ns);
	}
	*n = k;
	return v;
}

/* The pieces of process row @p (rank @rank): its head, its threads. */
static int process_pieces(struct pieces *ps, const struct etwforge_analysis *an, size_t nthreads,
			  size_t p, double total_ns)
{
	const struct etwforge_process_row *pr = etwforge_analysis_process(an, p);
	struct piece *pc = piece_add(ps, p);
	size_t n;
	struct ranked *th = threads_of(an, nthreads, (int64_t)p, &n);
	uint64_t rest = 0;
	char image[64];

	if (!pc || (!th && n == SIZE_MAX)) {
		free(th);
		return -ENOMEM;
	}
	text_copy_name(image, sizeof(image), pr->image[0] ? pr->image : "?");
	snprintf(pc->text, sizeof(pc->text), "%s (PID %" PRIu32 ") %.1f%%:", image, pr->pid,
		 share(pr->cpu_ns, total_ns));
	for (size_t i = 0; i < n; i++) {
		const struct etwforge_thread_row *t = etwforge_analysis_thread(an, th[i].row);
		char name[64];

		if (i >= THREADS_LISTED) {
			rest += t->cpu_ns;
			continue;
		}
		if (!(pc = piece_add(ps, SIZE_MAX))) {
			free(th);
			return -ENOMEM;
		}
		text_copy_name(name, sizeof(name), t->name);
		snprintf(pc->text, sizeof(pc->text), "%s%s%" PRIu32 " %.1f%%%s", name,
			 name[0] ? " " : "", t->tid, share(t->cpu_ns, total_ns),
			 i + 1 < n ? "," : "");
	}
	if (n > THREADS_LISTED && (pc = piece_add(ps, SIZE_MAX))) {
		snprintf(pc->text, sizeof(pc->text), "%zu more threads %.1f%%", n - THREADS_LISTED,
			 share(rest, total_ns));
	}
	free(th);
	return 0;
}

/* Set @ps into lines of at most @max characters; a line that goes on is indented. */
static int set_lines(struct legend *lg, const struct pieces *ps, size_t max)
{
	for (size_t i = 0; i < ps->n;) {
		char line[4096] = "";
		size_t len = 0, at = i;
		char **v;
		size_t *sw;

		if (ps->v[i].swatch == SIZE_MAX) {
			len = (size_t)snprintf(line, sizeof(line), "    ");
		}
		/* at least one piece per line; more while they fit */
		do {
			size_t w = chars(ps->v[i].text);

			if (i > at && (len + 1 + w > max || ps->v[i].swatch != SIZE_MAX)) {
				break;
			}
			len += (size_t)snprintf(line + strlen(line), sizeof(line) - strlen(line),
						"%s%s", i > at ? " " : "", ps->v[i].text);
			i++;
		} while (i < ps->n && strlen(line) + 210 < sizeof(line));
		v = realloc(lg->lines, (lg->nlines + 1) * sizeof(*v));
		if (v) {
			lg->lines = v;
		}
		sw = realloc(lg->line_swatch, (lg->nlines + 1) * sizeof(*sw));
		if (sw) {
			lg->line_swatch = sw;
		}
		if (!v || !sw || !(lg->lines[lg->nlines] = strdup(line))) {
			return -ENOMEM;
		}
		lg->line_swatch[lg->nlines++] = ps->v[at].swatch;
	}
	return 0;
}

int legend_build(struct legend *lg, const struct thread_names *names, double total_ns,
		 unsigned width)
{
	const struct etwforge_analysis_totals *t;
	struct ranked *procs = NULL;
	struct pieces ps = {0};
	size_t np = 0, max = (size_t)((double)(width > 50 ? width - 50 : width) / CHAR_PX);
	uint64_t named_ns = 0, rest = 0;
	struct piece *pc;
	int rc = -ENOMEM;

	memset(lg, 0, sizeof(*lg));
	lg->names = names;
	lg->named = thread_named_rows(names);
	if (!lg->named) {
		return 0;
	}
	t = etwforge_analysis_totals(names->an);
	lg->nprocs = t->processes;
	lg->rank_of = malloc((lg->nprocs ? lg->nprocs : 1) * sizeof(*lg->rank_of));
	procs = calloc(lg->nprocs ? lg->nprocs : 1, sizeof(*procs));
	if (!lg->rank_of || !procs) {
		goto out;
	}
	for (size_t i = 0; i < lg->nprocs; i++) {
		const struct etwforge_process_row *p = etwforge_analysis_process(names->an, i);

		lg->rank_of[i] = SIZE_MAX;
		if (p && p->cpu_ns) {
			procs[np++] = (struct ranked){i, p->cpu_ns, p->pid};
		}
	}
	if (np) {
		qsort(procs, np, sizeof(*procs), by_ns);
	}
	for (size_t i = 0; i < np; i++) {
		lg->rank_of[procs[i].row] = i;
		named_ns += procs[i].ns;
		if (i >= LEGEND_PROCESSES) {
			rest += procs[i].ns;
		} else if (process_pieces(&ps, names->an, t->threads, procs[i].row, total_ns) < 0) {
			goto out;
		}
	}
	if (!(pc = piece_add(&ps, SIZE_MAX - 1))) {
		goto out;
	}
	if (np == 0) {
		snprintf(pc->text, sizeof(pc->text),
			 "none ran here: no context switch to a thread they name");
	} else if (np > LEGEND_PROCESSES) {
		snprintf(pc->text, sizeof(pc->text), "%zu more processes %.1f%%",
			 np - LEGEND_PROCESSES, share(rest, total_ns));
	} else {
		ps.n--;
	}
	if (!(pc = piece_add(&ps, SIZE_MAX - 1))) {
		goto out;
	}
	snprintf(pc->text, sizeof(pc->text),
		 "threads without a Thread record (colour: a hash of the TID): %.1f%%",
		 share(t->busy_ns > named_ns ? t->busy_ns - named_ns : 0, total_ns));
	rc = set_lines(lg, &ps, max);
out:
	free(procs);
	free(ps.v);
	return rc;
}

unsigned legend_height(const struct legend *lg)
{
	/* the title, the lines */
	return lg->named ? (unsigned)(lg->nlines + 1) * LEGEND_LINE_H + 8 : 0;
}

void legend_write(FILE *f, const struct legend *lg, unsigned x, unsigned y)
{
	const struct etwforge_analysis_totals *t;
	uint64_t pids = 0, tids = 0;

	if (!lg->named) {
		return;
	}
	t = etwforge_analysis_totals(lg->names->an);
	for (size_t i = 0; i < t->threads; i++) {
		tids += etwforge_analysis_thread(lg->names->an, i)->named;
	}
	pids = t->processes;
	fprintf(f,
		"<g font-size=\"11\" fill=\"#333\">\n<text x=\"%u\" y=\"%u\">processes "
		"(the file's Process and Thread records: %" PRIu64 " processes, %" PRIu64
		" threads named; colour: the process, shades: its threads), with their share of "
		"the traced CPU time (busy / (window x CPUs shown)):</text>\n",
		x, y + 12, pids, tids);
	y += 12 + LEGEND_LINE_H;
	for (size_t i = 0; i < lg->nlines; i++, y += LEGEND_LINE_H) {
		size_t p = lg->line_swatch[i];

		if (p < lg->nprocs) {
			/* the swatch of the process: its hue, a middle shade */
			uint32_t rgb = colour_hsl(process_hue(lg, p, 0), 0.62, 0.45);

			fprintf(f,
				"<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" "
				"fill=\"#%06x\"/>",
				x, y - 9, rgb);
		}
		fprintf(f, "<text x=\"%u\" y=\"%u\" xml:space=\"preserve\">", x + 14, y);
		put_xml_text(f, lg->lines[i]);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

void legend_free(struct legend *lg)
{
	for (size_t i = 0; i < lg->nlines; i++) {
		free(lg->lines[i]);
	}
	free(lg->lines);
	free(lg->line_swatch);
	free(lg->rank_of);
	memset(lg, 0, sizeof(*lg));
}
