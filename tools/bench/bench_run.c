// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_run.c - bench_run() and its results: the sizes
 * of each kind of run, the scratch folder, and the paths in order:
 *
 *   size   (a) ccswap (b) cswitch (c) spinlock (d) gen default, server64 (e, f) source  (g)
 *   full   16 M       4 M x 3     4 M          60 s, 2 s simulated        120 s (~1 M sw.)  64
 *   quick  1 M        512 K x 3   512 K        6 s, 200 ms                12 s              16
 *   tiny   64 K       32 K x 3    32 K         500 ms, 20 ms              1 s               2
 *
 * (switches or events per pass; (g): mutants of each catalogue file; full: 5 runs, the
 * others 3). The hot paths
 * come first, while the process is small; gen's children are forked from
 * it before the decode path allocates its counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"

#define SEC 1000000000ull

/* clang-format off */
static const struct bench_size sizes[] = {
	/* runs, ccswap, cswitch, spinlock, gen default, gen server64, source, decode repeats,
	 * mutate stage */
	[BENCH_FULL]  = {5, 1u << 24, 1u << 22, 1u << 22, 60 * SEC, 2 * SEC, 120 * SEC, 8, 64},
	[BENCH_QUICK] = {3, 1u << 20, 1u << 19, 1u << 19, 6 * SEC, SEC / 5, 12 * SEC, 2, 16},
	[BENCH_TINY]  = {3, 1u << 16, 1u << 15, 1u << 15, SEC / 2, SEC / 50, SEC, 1, 2},
};
/* clang-format on */

static const char *const group_names[] = {"ccswap", "cswitch",	     "spinlock", "gen",
					  "decode", "replay_verify", "mutate"};

const char *bench_group_name(unsigned group)
{
	for (unsigned i = 0; i < sizeof(group_names) / sizeof(group_names[0]); i++) {
		if (group == 1u << i) {
			return group_names[i];
		}
	}
	return NULL;
}

int bench_run(const struct bench_opts *opts, struct bench **out, struct etwforge_error *err)
{
	static const struct bench_opts defaults = {0};
	const struct bench_opts *o = opts ? opts : &defaults;
	struct bench_scratch *scratch = NULL;
	struct bench *b;
	struct bench_size sz;
	unsigned groups = o->groups ? o->groups : BENCH_ALL;
	struct etwforge_error local;
	int rc = 0;

	*out = NULL;
	if (!err) {
		err = &local; /* the paths read err->code */
	}
	if ((groups & ~BENCH_ALL) || (unsigned)o->size > BENCH_TINY || o->runs > BENCH_MAX_RUNS) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "bad options (groups 0x%x, size %u, runs %u: at most %u)", groups,
				  (unsigned)o->size, o->runs, BENCH_MAX_RUNS);
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
	}
	sz = sizes[o->size];
	sz.runs = o->runs ? o->runs : sz.runs;
	b->size = o->size;
	b->groups = groups;
	b->runs = sz.runs;
	b->progress = o->progress;
	b->progress_ctx = o->progress_ctx;
	bench_machine_fill(&b->machine);
	if (groups & (BENCH_GEN | BENCH_DECODE | BENCH_REPLAY_VERIFY)) {
		scratch = bench_scratch_create(o->tmpdir, err);
		if (!scratch) {
			free(b);
			return err->code;
		}
	}
	/* the hot paths are timed in laps of the wall clock, the rest in CPU time */
	b->clock = BENCH_WALL;
	if (groups & BENCH_CCSWAP) {
		rc = bench_compact(b, &sz, err);
	}
	if (rc == 0 && (groups & BENCH_CSWITCH)) {
		rc = bench_cswitch(b, &sz, err);
	}
	if (rc == 0 && (groups & BENCH_SPINLOCK)) {
		rc = bench_spinlock(b, &sz, err);
	}
	b->clock = BENCH_CPU;
	if (rc == 0 && (groups & BENCH_GEN)) {
		rc = bench_gen(b, &sz, scratch, err);
	}
	if (rc == 0 && (groups & BENCH_GEN)) {
		rc = bench_cores(b, &sz, scratch, err);
	}
	if (rc == 0 && (groups & BENCH_DECODE)) {
		rc = bench_decode(b, &sz, scratch, err);
	}
	if (rc == 0 && (groups & BENCH_REPLAY_VERIFY)) {
		rc = bench_replay_verify(b, &sz, scratch, err);
	}
	if (rc == 0 && (groups & BENCH_MUTATE)) {
		rc = bench_mutate(b, &sz, err);
	}
	bench_scratch_destroy(scratch);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*out = b;
	return error_ok(err);
}

unsigned bench_figures(const struct bench *b, const struct bench_figure **out)
{
	*out = b->fig;
	return b->nfig;
}

const struct bench_machine *bench_machine_of(const struct bench *b)
{
	return &b->machine;
}

void bench_free(struct bench *b)
{
	free(b);
}
