// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_util.c - the small things every path of `etwforge bench`
 * needs: clocks, a figure from its runs (median, min, max), preempted laps
 * taken out, and the work descriptions.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/bench/bench.h"

double bench_wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

double bench_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Is @unit a time or a rate (so it has a clock)? */
static bool timed(const char *unit)
{
	size_t n = strlen(unit);

	return (n >= 2 && !strcmp(unit + n - 2, "/s")) || !strncmp(unit, "ns/", 3);
}

void bench_figure(struct bench *b, const char *name, const char *label, const char *unit,
		  const double *v, unsigned n)
{
	bench_figure_clock(b, name, label, unit, timed(unit) ? b->clock : NULL, v, n);
}

void bench_figure_clock(struct bench *b, const char *name, const char *label, const char *unit,
			const char *clock, const double *v, unsigned n)
{
	struct bench_figure *f;
	double s[BENCH_MAX_RUNS];

	if (b->nfig == BENCH_MAX_FIGURES || n == 0 || n > BENCH_MAX_RUNS) {
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	f = &b->fig[b->nfig++];
	f->name = name;
	f->label = label;
	f->unit = unit;
	f->clock = clock;
	f->runs = n;
	f->min = s[0];
	f->max = s[n - 1];
	f->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

double bench_laps_ns(const float *lap_ns, uint64_t nlaps, uint64_t events, unsigned window)
{
	double total = 0;
	float *v, med;

	if (nlaps == 0) {
		return 0;
	}
	v = malloc(nlaps * sizeof(*v));
	if (!v) {
		return -1;
	}
	memcpy(v, lap_ns, nlaps * sizeof(*v));
	qsort(v, nlaps, sizeof(*v), cmp_float);
	med = v[nlaps / 2];
	free(v);
	for (uint64_t i = 0; i < nlaps; i++) {
		uint64_t n = events < window ? events : window;
		float x = lap_ns[i] > 4 * med ? med : lap_ns[i];

		total += (double)x * (double)n;
		events -= n;
	}
	return total;
}

void bench_progress(struct bench *b, const char *what)
{
	if (b->progress) {
		b->progress(b->progress_ctx, what);
	}
}

struct bench_work *bench_work_add(struct bench *b, const char *name, const char *fmt, ...)
{
	struct bench_work *w;
	va_list ap;
	int n;

	if (b->nwork == BENCH_MAX_WORK) {
		return NULL;
	}
	w = &b->work[b->nwork++];
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name);
	va_start(ap, fmt);
	n = vsnprintf(w->what, sizeof(w->what), fmt, ap);
	va_end(ap);
	/* a description cut off would say something else: fail loudly instead */
	assert(n >= 0 && (size_t)n < sizeof(w->what));
	if (n < 0 || (size_t)n >= sizeof(w->what)) {
		snprintf(w->what, sizeof(w->what), "%s: (its description is too long)", name);
	}
	return w;
}

static struct bench_kv *kv_add(struct bench_work *w, const char *key, enum bench_kv_type t)
{
	struct bench_kv *kv;

	if (!w || w->nkv == BENCH_MAX_KV) {
		return NULL;
	}
	kv = &w->kv[w->nkv++];
	memset(kv, 0, sizeof(*kv));
	kv->key = key;
	kv->type = t;
	return kv;
}

void bench_kv_u64(struct bench_work *w, const char *key, uint64_t v, uint64_t of)
{
	struct bench_kv *kv = kv_add(w, key, BENCH_KV_U64);

	if (kv) {
		kv->u = v;
		kv->of = of;
	}
}

void bench_kv_f64(struct bench_work *w, const char *key, double v, unsigned dec)
{
	struct bench_kv *kv = kv_add(w, key, BENCH_KV_F64);

	if (kv) {
		kv->d = v;
		kv->dec = dec;
	}
}

void bench_kv_str(struct bench_work *w, const char *key, const char *v)
{
	struct bench_kv *kv = kv_add(w, key, BENCH_KV_STR);

	if (kv) {
		snprintf(kv->s, sizeof(kv->s), "%s", v);
	}
}

void bench_kv_hex(struct bench_work *w, const char *key, uint64_t v)
{
	struct bench_kv *kv = kv_add(w, key, BENCH_KV_HEX);

	if (kv) {
		kv->u = v;
	}
}
