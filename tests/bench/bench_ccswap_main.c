// SPDX-License-Identifier: MIT
/*
 * tests/bench/bench_ccswap_main.c - `meson test --benchmark ccswap` driver:
 * one check pass (the work: forms, flush reasons, output digest), then
 * --runs timed passes, each with its memset baseline; prints every run and
 * the median/min/max.
 *
 *   bench_ccswap [SWITCHES] [--runs N] [--window N] [--seed N] [--clean]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench_ccswap.h"

#define MAX_RUNS 101

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_ccswap [SWITCHES] [--runs N] [--window N] [--seed N] "
			"[--clean]\n");
	return 2;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

int main(int argc, char **argv)
{
	struct ccswap_bench_opts o = {0};
	struct ccswap_bench_mix mix;
	double ns[MAX_RUNS], ms[MAX_RUNS], ratio[MAX_RUNS], fl[MAX_RUNS];
	unsigned runs = 5;
	struct ccswap_bench *bb;
	uint64_t v;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--clean")) {
			o.clean = true;
		} else if (!strcmp(argv[i], "--single")) {
			o.single = true;
		} else if (i + 1 < argc && !strcmp(argv[i], "--runs")) {
			if (!parse_u64(argv[++i], &v) || v == 0 || v > MAX_RUNS) {
				return usage();
			}
			runs = (unsigned)v;
		} else if (i + 1 < argc && !strcmp(argv[i], "--window")) {
			if (!parse_u64(argv[++i], &v) || v == 0 || v > (1u << 24)) {
				return usage();
			}
			o.window = (unsigned)v;
		} else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
			if (!parse_u64(argv[++i], &o.seed)) {
				return usage();
			}
		} else if (argv[i][0] != '-' && parse_u64(argv[i], &o.switches) && o.switches) {
			continue;
		} else {
			return usage();
		}
	}
	bb = ccswap_bench_create(&o);
	if (!bb) {
		perror("bench_ccswap");
		return 1;
	}
	rc = ccswap_bench_check(bb, &mix);
	if (rc < 0) {
		fprintf(stderr, "bench_ccswap: check pass: %s\n", strerror(-rc));
		ccswap_bench_destroy(bb);
		return 1;
	}
	printf("ccswap_log, quirks %s:\n", o.clean ? "off" : "on");
	ccswap_bench_print_mix(stdout, &mix);
	for (unsigned r = 0; r < runs; r++) {
		struct ccswap_bench_time t;

		rc = ccswap_bench_time(bb, &t);
		if (rc < 0) {
			fprintf(stderr, "bench_ccswap: timed pass: %s\n", strerror(-rc));
			ccswap_bench_destroy(bb);
			return 1;
		}
		ns[r] = t.ns_per_switch;
		fl[r] = t.floor_ns;
		ms[r] = t.memset_ns;
		ratio[r] = t.ns_per_switch / t.memset_ns;
		printf("run %u: %.3f ns/switch (%.1f M switches/s; raw %.3f, %llu preempted laps), "
		       "call floor %.3f, memset %.4f ns/switch, ratio %.1f\n",
		       r + 1, ns[r], 1e3 / ns[r], t.raw_ns_per_switch,
		       (unsigned long long)t.preempted_laps, fl[r], ms[r], ratio[r]);
	}
	{
		double lo = ns[0], hi = ns[0];

		for (unsigned r = 1; r < runs; r++) {
			lo = ns[r] < lo ? ns[r] : lo;
			hi = ns[r] > hi ? ns[r] : hi;
		}
		printf("median of %u: %.3f ns/switch (min %.3f, max %.3f), %.1f M switches/s, "
		       "%.3f bytes/switch, call floor %.3f, memset %.4f ns/switch, ratio %.1f\n",
		       runs, median(ns, runs), lo, hi, 1e3 / median(ns, runs),
		       (double)mix.out_bytes / (double)mix.switches, median(fl, runs),
		       median(ms, runs), median(ratio, runs));
	}
	ccswap_bench_destroy(bb);
	return 0;
}
