// SPDX-License-Identifier: MIT
/*
 * tests/bench/bench_decode.c - how fast a compact file is read back, through
 * the public API only: `dump --stats` (etwforge_file_open() +
 * etwforge_file_stats()), and the two iterators that expand compact batches
 * into switches (time order, as verify and `dump --timeline` read; file
 * order with every record, as `dump --jsonl` reads).
 *
 *   bench_decode [FILE.etl|-] [RUNS] [stats|time|file]
 *
 * Without FILE (or with "-") it generates the built-in scenario (8 CPUs, a compact QPC
 * session) for 600 simulated seconds into a temporary directory (seed 1:
 * always the same file, about 18 MB and 4.9 M switches). Each figure is the
 * median of RUNS (default 5) timed runs after one untimed run, with min and
 * max; CPU time is the process's, wall time includes waiting for a core on
 * a shared machine. The third argument measures one pass only. Files are
 * opened as `etwforge dump` opens them (ETWFORGE_OPEN_SALVAGE). Prints
 * figures, asserts none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etwforge/etwforge.h"

#define RUNS_MAX 101

struct sample {
	double cpu;  /* seconds of process CPU time */
	double wall; /* seconds of wall time */
};

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One pass over @path; *@switches = compact switches seen. Return: 0 or -1. */
typedef int (*pass_fn)(const char *path, uint64_t *switches);

static int pass_stats(const char *path, uint64_t *switches)
{
	struct etwforge_stats *s = etwforge_stats_new();
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f;
	uint64_t v;
	int rc = -1;

	/* as `etwforge dump` opens every file: salvage, which walks every record at open */
	f = s ? etwforge_file_open(path, ETWFORGE_OPEN_SALVAGE, err) : NULL;
	if (f && etwforge_file_stats(f, s, err) == 0) {
		*switches = 0;
		for (unsigned k = 0; etwforge_stats_count(s, ETWFORGE_STAT_COMPACT, k, &v) == 0;
		     k++) {
			*switches += v;
		}
		rc = 0;
	} else if (s) {
		fprintf(stderr, "bench_decode: %s\n", etwforge_error_message(err));
	}
	etwforge_file_close(f);
	etwforge_stats_free(s);
	etwforge_error_free(err);
	return rc;
}

static int pass_iter(const char *path, enum etwforge_order order, unsigned kinds,
		     uint64_t *switches)
{
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f = etwforge_file_open(path, ETWFORGE_OPEN_SALVAGE, err);
	struct etwforge_iter *it = f ? etwforge_iter_new(f, order, kinds, err) : NULL;
	const struct etwforge_event *ev;
	uint64_t n = 0;
	int rc = -1;

	if (it) {
		while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
			n += ev->kind == ETWFORGE_EV_COMPACT;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "bench_decode: %s\n", etwforge_error_message(err));
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	etwforge_error_free(err);
	*switches = n;
	return rc < 0 ? -1 : 0;
}

static int pass_time(const char *path, uint64_t *switches)
{
	return pass_iter(path, ETWFORGE_ORDER_TIME, ETWFORGE_EV_COMPACT, switches);
}

static int pass_file(const char *path, uint64_t *switches)
{
	return pass_iter(path, ETWFORGE_ORDER_FILE,
			 ETWFORGE_EV_RECORD | ETWFORGE_EV_COMPACT | ETWFORGE_EV_BUFFER, switches);
}

static int measure(const char *label, pass_fn fn, const char *path, double mb, unsigned runs)
{
	struct sample s[RUNS_MAX];
	double cpu[RUNS_MAX], wall[RUNS_MAX];
	uint64_t sw = 0;

	if (fn(path, &sw) < 0) { /* untimed: warms the page cache and the code */
		return -1;
	}
	for (unsigned i = 0; i < runs; i++) {
		double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);

		if (fn(path, &sw) < 0) {
			return -1;
		}
		s[i].cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		s[i].wall = now(CLOCK_MONOTONIC) - w0;
		cpu[i] = s[i].cpu;
		wall[i] = s[i].wall;
	}
	qsort(cpu, runs, sizeof(double), cmp_double);
	qsort(wall, runs, sizeof(double), cmp_double);
	printf("%-28s cpu %8.2f ms (min %.2f max %.2f)  wall %8.2f ms (min %.2f max %.2f)\n", label,
	       cpu[runs / 2] * 1e3, cpu[0] * 1e3, cpu[runs - 1] * 1e3, wall[runs / 2] * 1e3,
	       wall[0] * 1e3, wall[runs - 1] * 1e3);
	printf("%-28s %" PRIu64 " switches: %.1f M switches/s, %.0f MB/s of file (median cpu)\n",
	       "", sw, (double)sw / cpu[runs / 2] * 1e-6, mb / cpu[runs / 2]);
	return 0;
}

/* Generate the default scenario for 600 s into @dir/d.etl. */
static int generate(const char *dir, char *path, size_t cap)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = path);
	struct etwforge_error *err = etwforge_error_new();
	int rc;

	snprintf(path, cap, "%s/d.etl", dir);
	rc = sc ? etwforge_scenario_set(sc, "duration=600s", err) : -ENOMEM;
	if (rc == 0) {
		rc = etwforge_scenario_set(sc, "seed=1", err);
	}
	if (rc == 0) {
		rc = etwforge_generate(sc, &o, NULL, err);
	}
	if (rc < 0) {
		fprintf(stderr, "bench_decode: generate: %s\n",
			sc ? etwforge_error_message(err) : "out of memory");
	}
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
	return rc;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bench_decode.XXXXXX", path[256], other[256];
	static const struct {
		const char *name, *label;
		pass_fn fn;
	} passes[] = {
		{"stats", "dump --stats", pass_stats},
		{"time", "iter time order, compact", pass_time},
		{"file", "iter file order, all", pass_file},
	};
	const char *file = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
	unsigned runs = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 5;
	const char *only = argc > 3 ? argv[3] : NULL;
	bool made = false;
	struct stat st;
	int rc = 0;

	if (runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: bench_decode [FILE.etl|-] [RUNS 1..%d] [stats|time|file]\n",
			RUNS_MAX);
		return 2;
	}
	if (!file) {
		if (!mkdtemp(dir) || generate(dir, path, sizeof(path)) < 0) {
			return 1;
		}
		file = path;
		made = true;
	}
	if (stat(file, &st) < 0) {
		fprintf(stderr, "bench_decode: %s: %s\n", file, strerror(errno));
		return 1;
	}
	printf("file %s, %.1f MB, %u runs\n", file, (double)st.st_size * 1e-6, runs);
	for (unsigned i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		if ((!only || !strcmp(only, passes[i].name)) &&
		    measure(passes[i].label, passes[i].fn, file, (double)st.st_size * 1e-6, runs) <
			    0) {
			rc = 1;
		}
	}
	if (made) {
		snprintf(other, sizeof(other), "%s/d-2.etl", dir);
		unlink(path);
		unlink(other);
		rmdir(dir);
	}
	return rc;
}
