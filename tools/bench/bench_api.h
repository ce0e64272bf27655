/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/bench_api.h - `etwforge bench`: what cmd_bench.c asks of the
 * benchmark (bench_run.c). The benchmark is the command line's, as xxHash
 * keeps its bench in its CLI: it measures the library's hot paths from
 * inside (the producer, the batching engine) and its commands through the
 * public API, and is not part of the installed library.
 */
#ifndef ETWFORGE_TOOLS_BENCH_BENCH_API_H
#define ETWFORGE_TOOLS_BENCH_BENCH_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etwforge/etwforge.h"

/* ---- benchmarks (`etwforge bench`) ---------------------------------------- */

/*
 * Measure the hot paths and the commands on this machine. Each figure is
 * the median of several runs, with their min and max, beside the machine
 * it was measured on and the work it measured: the seeds and the mix of
 * the streams (record forms, flush reasons) and the digest of what each
 * path wrote, so two runs provably measure the same work. A run that
 * writes other bytes than the first fails the benchmark. The hot paths (a
 * to c) are timed by the wall clock in laps of 4096 events, a lap the
 * thread was preempted in counted as the median lap; the commands (d to f)
 * in CPU time (user + system), which a shared machine's waits do not
 * inflate. Files go in a scratch folder that is removed at the end, on
 * failure, and (with cli_signals_install()) on SIGINT, SIGTERM and
 * SIGHUP. The gen path forks a child process per run.
 *
 *	struct bench *b;
 *	if (bench_run(NULL, &b, &err) == 0)
 *		bench_print(stdout, b, false);
 *	bench_free(b);
 */

/* The paths (etwforge_bench_opts.groups, a mask). */
enum bench_group {
	BENCH_CCSWAP = 0x01,	    /* (a) the compact batching engine alone */
	BENCH_CSWITCH = 0x02,	    /* (b) the plain CSwitch path, PMC, PEBS */
	BENCH_SPINLOCK = 0x04,	    /* (c) SpinLock 0x0529 events */
	BENCH_GEN = 0x08,	    /* (d) gen end to end, truth off and on */
	BENCH_DECODE = 0x10,	    /* (e) reading a generated file */
	BENCH_REPLAY_VERIFY = 0x20, /* (f) replay and verify of a truth */
	BENCH_MUTATE = 0x40,	    /* (g) the fuzzing mutator */
};
#define BENCH_ALL 0x7Fu

/**
 * bench_group_name - "ccswap", "cswitch", "spinlock", "gen",
 * "decode" or "replay_verify" for one BENCH_* bit.
 * Return: the name, or NULL for anything else.
 */
const char *bench_group_name(unsigned group);

/* How much work (etwforge_bench_opts.size). */
enum bench_scale {
	BENCH_FULL = 0, /* the figures: 16 M switches, a ~1 M-switch truth, 5 runs */
	BENCH_QUICK,	/* a smoke test: about 1/10 of the work, 3 runs */
	BENCH_TINY,	/* the test suite's: seconds, even under sanitizers */
};

/**
 * struct bench_opts - what to measure; zero fields take the default.
 * @groups:   a mask of BENCH_* (0 = all)
 * @size:     BENCH_FULL, _QUICK or _TINY
 * @runs:     timed runs per figure (0 = 5 for FULL, 3 otherwise; at most 99)
 * @tmpdir:   where the scratch folder goes (NULL = $TMPDIR, else /tmp)
 * @progress: called with what is measured next (NULL = never)
 */
struct bench_opts {
	unsigned groups;
	enum bench_scale size;
	unsigned runs;
	const char *tmpdir;
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
};

/**
 * struct bench_figure - one figure over its runs.
 * @name:  "ccswap.ns_per_switch": path, variant, quantity (stable: scripts
 *         may key on it)
 * @label: what it is, for people
 * @unit:  "ns/switch", "ns/event", "switches/s", "MB/s" (10^6 bytes),
 *         "MiB", "bytes/switch" or "x" (a ratio measured within each run)
 * @clock: the clock behind a time or a rate: "cpu" (the process's or the
 *         child's CPU time, user + system), "wall" (elapsed), or NULL (a
 *         ratio, a size, a count)
 */
struct bench_figure {
	const char *name;
	const char *label;
	const char *unit;
	const char *clock;
	unsigned runs;
	double median;
	double min;
	double max;
};

/**
 * struct bench_machine - where the figures were measured.
 * @cpu:      the model name of /proc/cpuinfo
 * @cores:    online
 * @compiler: the compiler that built the library (__VERSION__)
 * @build:    meson's build type and flags, "release (-O3 -DNDEBUG)"
 * @kernel:   uname: system, release, machine
 * @version:  etwforge_version()
 */
struct bench_machine {
	char cpu[256];
	unsigned cores;
	char compiler[128];
	char build[512];
	char kernel[256];
	char version[32];
};

struct bench;

/**
 * bench_run - measure what @opts asks (NULL = everything, full
 * size): about two minutes in full, seconds when tiny.
 * Return: 0 with *@out (free it with bench_free()); -EINVAL bad
 * options (status 2); -EIO a path failed or wrote other bytes than in its
 * first run, -ENOMEM, or the error of a file operation (status 1, @err
 * says which). On failure *@out is NULL and the scratch folder is gone.
 */
int bench_run(const struct bench_opts *opts, struct bench **out, struct etwforge_error *err);

/** bench_figures - the figures of @b, in order. Return: how many. */
unsigned bench_figures(const struct bench *b, const struct bench_figure **out);

/** bench_machine_of - the machine @b was measured on. */
const struct bench_machine *bench_machine_of(const struct bench *b);

/**
 * bench_print - @b as an aligned table with the machine and the
 * work of each path, for people; or (@json) as one JSON object with every
 * figure (median, min, max, unit), the machine and the work.
 * Return: 0, -EIO (a write error on @f) or -ENOMEM.
 */
int bench_print(FILE *f, const struct bench *b, bool json);

/** bench_free - NULL is a no-op. */
void bench_free(struct bench *b);

#endif
