// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_print.c - the results of `etwforge bench`, as an aligned
 * table for people or as one JSON object (`--json`):
 *
 *   {"format":"etwforge-bench","version":1,"size":"full","quick":false,"runs":5,
 *    "machine":{"cpu":..,"cores":..,"compiler":..,"build":..,"kernel":..,"etwforge":..},
 *    "figures":{"ccswap.ns_per_switch":{"label":..,"median":..,"min":..,"max":..,
 *                                       "unit":"ns/switch","runs":5}, ...},
 *    "work":{"ccswap":{"what":..,"seed":1,"switches":..,...,"xxh3":"0x..."}, ...}}
 *
 * Units are plain (switches/s, not M switches/s) in JSON; the table scales
 * rates to millions.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench.h"
#include "tools/lib/common/json_out.h"

static const char *const size_names[] = {"full", "quick", "tiny"};

/* Digits after the point for about four significant digits. */
static unsigned decimals(double v)
{
	double a = v < 0 ? -v : v;

	return a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : a >= 0.01 ? 4 : 6;
}

static void jdouble(struct jout *j, double v)
{
	if (isfinite(v)) {
		jout_double(j, v, v >= 1000 || v <= -1000 ? 0 : decimals(v) + 2);
	} else {
		jout_raw(j, "null", 4);
	}
}

static void build_json(struct jout *j, const struct bench *b)
{
	const struct bench_machine *m = &b->machine;

	jout_open(j, '{');
	jout_kstr(j, "format", "etwforge-bench");
	jout_ku64(j, "version", 1);
	jout_kstr(j, "size", size_names[b->size]);
	jout_kbool(j, "quick", b->size != BENCH_FULL);
	jout_ku64(j, "runs", b->runs);
	jout_key(j, "machine");
	jout_open(j, '{');
	jout_kstr(j, "cpu", m->cpu);
	jout_ku64(j, "cores", m->cores);
	jout_kstr(j, "compiler", m->compiler);
	jout_kstr(j, "build", m->build);
	jout_kstr(j, "kernel", m->kernel);
	jout_kstr(j, "etwforge", m->version);
	jout_close(j, '}');
	jout_key(j, "figures");
	jout_open(j, '{');
	for (unsigned i = 0; i < b->nfig; i++) {
		const struct bench_figure *f = &b->fig[i];

		jout_key(j, f->name);
		jout_open(j, '{');
		jout_kstr(j, "label", f->label);
		jout_key(j, "median");
		jdouble(j, f->median);
		jout_key(j, "min");
		jdouble(j, f->min);
		jout_key(j, "max");
		jdouble(j, f->max);
		jout_kstr(j, "unit", f->unit);
		jout_key(j, "clock");
		if (f->clock) {
			jout_str(j, f->clock);
		} else {
			jout_raw(j, "null", 4);
		}
		jout_ku64(j, "runs", f->runs);
		jout_close(j, '}');
	}
	jout_close(j, '}');
	jout_key(j, "work");
	jout_open(j, '{');
	for (unsigned i = 0; i < b->nwork; i++) {
		const struct bench_work *w = &b->work[i];

		jout_key(j, w->name);
		jout_open(j, '{');
		jout_kstr(j, "what", w->what);
		for (unsigned k = 0; k < w->nkv; k++) {
			const struct bench_kv *kv = &w->kv[k];

			switch (kv->type) {
			case BENCH_KV_U64:
				jout_ku64(j, kv->key, kv->u);
				break;
			case BENCH_KV_F64:
				jout_key(j, kv->key);
				jout_double(j, kv->d, kv->dec);
				break;
			case BENCH_KV_STR:
				jout_kstr(j, kv->key, kv->s);
				break;
			case BENCH_KV_HEX:
				jout_khex(j, kv->key, kv->u);
				break;
			}
		}
		jout_close(j, '}');
	}
	jout_close(j, '}');
	jout_close(j, '}');
}

static int print_json(FILE *f, const struct bench *b)
{
	struct jout j;
	size_t n;
	char *buf;

	jout_init(&j, NULL, 0);
	build_json(&j, b);
	n = jout_finish(&j);
	buf = malloc(n + 1);
	if (!buf) {
		return -ENOMEM;
	}
	jout_init(&j, buf, n + 1);
	build_json(&j, b);
	jout_finish(&j);
	fputs(buf, f);
	fputc('\n', f);
	free(buf);
	return 0;
}

/* @v in the table's unit: rates in millions. */
static double shown(const struct bench_figure *fig, double v, const char **unit)
{
	if (!strcmp(fig->unit, "switches/s")) {
		*unit = "M switches/s";
		return v * 1e-6;
	}
	*unit = fig->unit;
	return v;
}

static void print_num(FILE *f, double v)
{
	fprintf(f, "  %10.*f", (int)decimals(v), v);
}

/* @text from column 16 on, wrapped at word boundaries before column 100. */
static void print_wrapped(FILE *f, const char *text)
{
	unsigned col = 16;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > 16 && col + 1 + n > 100) {
			fprintf(f, "\n%16s", "");
			col = 16;
		} else if (col > 16) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, text);
		col += (unsigned)n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/* One work item: its description, then its values, wrapped. */
static void print_work(FILE *f, const struct bench_work *w)
{
	unsigned col = 16;

	fprintf(f, "%-15s ", w->name);
	print_wrapped(f, w->what);
	fprintf(f, "%16s", "");
	for (unsigned k = 0; k < w->nkv; k++) {
		const struct bench_kv *kv = &w->kv[k];
		char item[256];
		int n = 0;

		switch (kv->type) {
		case BENCH_KV_U64:
			n = snprintf(item, sizeof(item), "%s %llu", kv->key,
				     (unsigned long long)kv->u);
			if (kv->of) {
				snprintf(item + n, sizeof(item) - (size_t)n, " (%.1f %%)",
					 100.0 * (double)kv->u / (double)kv->of);
			}
			break;
		case BENCH_KV_F64:
			snprintf(item, sizeof(item), "%s %.*f", kv->key, (int)kv->dec, kv->d);
			break;
		case BENCH_KV_STR:
			snprintf(item, sizeof(item), "%s %s", kv->key, kv->s);
			break;
		case BENCH_KV_HEX:
			snprintf(item, sizeof(item), "%s %016llx", kv->key,
				 (unsigned long long)kv->u);
			break;
		}
		n = (int)strlen(item);
		if (col > 16 && col + 2 + (unsigned)n > 100) {
			fprintf(f, ",\n%16s", "");
			col = 16;
		} else if (col > 16) {
			fputs(", ", f);
			col += 2;
		}
		fputs(item, f);
		col += (unsigned)n;
	}
	fputc('\n', f);
}

static void print_text(FILE *f, const struct bench *b)
{
	const struct bench_machine *m = &b->machine;

	fprintf(f, "etwforge bench %s: the median of %u runs, with the min and max\n", m->version,
		b->runs);
	if (b->size == BENCH_QUICK) {
		fprintf(f, "QUICK figures (--quick: fewer and smaller runs): a smoke test, not "
			   "figures to compare\n");
	} else if (b->size == BENCH_TINY) {
		fprintf(f, "TINY figures (the test suite's size): they only show that it runs\n");
	}
	fprintf(f, "machine  %s, %u cores, %s\n", m->cpu, m->cores, m->kernel);
	fprintf(f, "build    %s, %s\n\n", m->compiler, m->build);
	fprintf(f, "%-44s  %10s  %10s  %10s  %-5s %s\n", "figure", "median", "min", "max", "clock",
		"unit");
	for (unsigned i = 0; i < b->nfig; i++) {
		const struct bench_figure *fig = &b->fig[i];
		const char *unit;

		fprintf(f, "%-44s", fig->name);
		print_num(f, shown(fig, fig->median, &unit));
		print_num(f, shown(fig, fig->min, &unit));
		print_num(f, shown(fig, fig->max, &unit));
		fprintf(f, "  %-5s %s\n",
			!fig->clock			 ? ""
			: !strcmp(fig->clock, BENCH_CPU) ? "CPU"
							 : "wall",
			unit);
	}
	fprintf(f, "(clock: CPU = CPU time, user + system; wall = elapsed time)\n");
	if (b->nwork) {
		fprintf(f, "\nwork (the same in every run of the same size: compare it between "
			   "runs)\n");
	}
	for (unsigned i = 0; i < b->nwork; i++) {
		print_work(f, &b->work[i]);
	}
}

int bench_print(FILE *f, const struct bench *b, bool json)
{
	if (json) {
		int rc = print_json(f, b);

		if (rc < 0) {
			return rc;
		}
	} else {
		print_text(f, b);
	}
	return ferror(f) ? -EIO : 0;
}
