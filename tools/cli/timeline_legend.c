// SPDX-License-Identifier: MIT
/*
 * tools/cli/timeline_legend.c - process colours and the process legend of the
 * timeline (timeline_legend.h). The legend sorts the processes that ran in
 * the window by busy time, then each one's threads; its memory is one
 * entry per thread that ran.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text_escape.h"
#include "timeline_legend.h"

void busy_add(struct busy_tally *b, uint32_t tid, int64_t ns)
{
	int64_t *v;

	b->tids.elem_size = sizeof(*v);
	v = tid_map_add(&b->tids, tid);
	if (!v) {
		b->nomem = 1;
		return;
	}
	*v += ns;
}

void busy_free(struct busy_tally *b)
{
	tid_map_free(&b->tids);
}

uint32_t colour_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85EBCA6Bu;
	x ^= x >> 13;
	x *= 0xC2B2AE35u;
	x ^= x >> 16;
	return x;
}

uint32_t colour_hsl(double hue, double s, double l)
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

static double process_hue(uint32_t pid)
{
	return (double)(colour_mix(pid ^ 0x9E3779B9u) % 360u);
}

int process_rgb(const struct identity *id, uint32_t tid, uint32_t *rgb)
{
	const struct ident_thread *t = identity_thread(id, tid);

	if (!t) {
		return 0;
	}
	*rgb = colour_hsl(process_hue(t->pid), 0.62,
			  0.36 + (double)(colour_mix(tid) % 28u) / 100.0);
	return 1;
}

/* One thread that ran, with its process's total for the sort. */
struct row {
	uint32_t pid;
	uint32_t tid;
	int64_t ns;
	int64_t process_ns;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->process_ns != y->process_ns) {
		return x->process_ns > y->process_ns ? -1 : 1;
	}
	if (x->pid != y->pid) {
		return x->pid < y->pid ? -1 : 1;
	}
	if (x->ns != y->ns) {
		return x->ns > y->ns ? -1 : 1;
	}
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The threads that ran and that @id knows, sorted by process busy time,
 * then their own. Return: the rows (free them; NULL with *@n 0 when none),
 * *@n of them, *@nproc processes; NULL with *@n 1 when out of memory.
 */
static struct row *sorted_rows(const struct identity *id, const struct busy_tally *b, size_t *n,
			       size_t *nproc)
{
	struct tid_map per_pid = {.elem_size = sizeof(int64_t)};
	struct row *v = calloc(b->tids.n ? b->tids.n : 1, sizeof(*v));
	size_t k = 0;

	*n = 1;
	*nproc = 0;
	if (!v) {
		return NULL;
	}
	for (size_t i = 0; i < b->tids.cap; i++) {
		uint32_t tid;
		const int64_t *ns = tid_map_at(&b->tids, i, &tid);
		const struct ident_thread *t = ns ? identity_thread(id, tid) : NULL;
		int64_t *pns;

		if (!t || *ns <= 0) {
			continue;
		}
		pns = tid_map_add(&per_pid, t->pid);
		if (!pns) {
			free(v);
			tid_map_free(&per_pid);
			return NULL;
		}
		*pns += *ns;
		v[k++] = (struct row){.pid = t->pid, .tid = tid, .ns = *ns};
	}
	for (size_t i = 0; i < k; i++) {
		v[i].process_ns = *(int64_t *)tid_map_get(&per_pid, v[i].pid);
	}
	*nproc = per_pid.n;
	tid_map_free(&per_pid);
	if (k) {
		qsort(v, k, sizeof(*v), row_cmp);
	}
	*n = k;
	return v;
}

unsigned legend_height(const struct identity *id, const struct busy_tally *b)
{
	size_t n, nproc;
	struct row *r;

	if (!identity_any(id)) {
		return 0;
	}
	r = sorted_rows(id, b, &n, &nproc);
	free(r);
	nproc = nproc > LEGEND_PROCESSES ? LEGEND_PROCESSES : nproc;
	/* the title, a line per process listed, "more processes", "without a Thread record" */
	return (unsigned)(nproc + 3) * LEGEND_LINE_H + 8;
}

static void put_share(FILE *f, int64_t ns, double total_ns)
{
	fprintf(f, "%.1f%%", total_ns > 0 ? 100.0 * (double)ns / total_ns : 0.0);
}

/* One process's line: swatch, "image (PID p) share: thread share, ...". */
static void write_process(FILE *f, const struct identity *id, const struct row *r, size_t n,
			  double total_ns, unsigned x, unsigned y)
{
	const char *image = identity_image(id, r[0].pid);
	uint32_t rgb = 0;
	int64_t rest = 0;
	size_t rest_n = 0;

	process_rgb(id, r[0].tid, &rgb);
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"#%06x\"/>", x, y - 9,
		rgb);
	fprintf(f, "<text x=\"%u\" y=\"%u\">", x + 14, y);
	put_xml_text(f, image[0] ? image : "?");
	fprintf(f, " (PID %" PRIu32 ") ", r[0].pid);
	put_share(f, r[0].process_ns, total_ns);
	fputs(":", f);
	for (size_t i = 0; i < n; i++) {
		const struct ident_thread *t = identity_thread(id, r[i].tid);

		if (i >= LEGEND_THREADS) {
			rest += r[i].ns;
			rest_n++;
			continue;
		}
		fputs(i ? ", " : " ", f);
		if (t && t->name[0]) {
			put_xml_text(f, t->name);
			putc(' ', f);
		}
		fprintf(f, "%" PRIu32 " ", r[i].tid);
		put_share(f, r[i].ns, total_ns);
	}
	if (rest_n) {
		fprintf(f, ", %zu more threads ", rest_n);
		put_share(f, rest, total_ns);
	}
	fputs("</text>\n", f);
}

int legend_write(FILE *f, const struct identity *id, const struct busy_tally *b, double total_ns,
		 unsigned x, unsigned y)
{
	size_t n, nproc, shown = 0, i = 0;
	struct row *r;
	int64_t rest = 0;

	if (!identity_any(id)) {
		return 0;
	}
	r = sorted_rows(id, b, &n, &nproc);
	if (!r && n) {
		return -ENOMEM;
	}
	fprintf(f,
		"<g font-size=\"11\" fill=\"#333\">\n<text x=\"%u\" y=\"%u\">processes "
		"(the file's Process and Thread records: %zu processes, %zu threads named; colour: "
		"the process, shades: its threads), with their share of the traced CPU time "
		"(busy / (window x CPUs shown)):</text>\n",
		x, y + 12, id->processes.n, id->threads.n);
	y += 12 + LEGEND_LINE_H;
	while (i < n) {
		size_t e = i + 1;

		while (e < n && r[e].pid == r[i].pid) {
			e++;
		}
		if (shown < LEGEND_PROCESSES) {
			write_process(f, id, r + i, e - i, total_ns, x, y);
			y += LEGEND_LINE_H;
			shown++;
		} else {
			rest += r[i].process_ns;
		}
		i = e;
	}
	if (n == 0) {
		fprintf(f,
			"<text x=\"%u\" y=\"%u\">none ran here: no context switch to a thread "
			"they name</text>\n",
			x + 14, y);
		y += LEGEND_LINE_H;
	}
	if (nproc > shown) {
		fprintf(f, "<text x=\"%u\" y=\"%u\">%zu more processes ", x + 14, y, nproc - shown);
		put_share(f, rest, total_ns);
		fputs("</text>\n", f);
		y += LEGEND_LINE_H;
	}
	fprintf(f,
		"<text x=\"%u\" y=\"%u\">threads without a Thread record (colour: a hash of the "
		"TID): ",
		x + 14, y);
	put_share(f, b->unattributed_ns, total_ns);
	fputs("</text>\n</g>\n", f);
	free(r);
	return 0;
}
