// SPDX-License-Identifier: MIT
/*
 * tests/test_ccswap_run.c - ccswap_log_n(), a run of switches in one call,
 * against ccswap_log() called once per switch: on random streams (every
 * record form, wrapping ticks, clocks that jump far ahead and go back,
 * TID tables that fill), with stop flags set between runs, both quirk
 * modes, three clocks, runs of every length from 1 on, every batch must be
 * the same (bytes, reason, records) and be told the switch that closed it.
 * An emitter's error stops the run at that switch (@done).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap.h"
#include "scheduler_model/sim_rng.h"
#include "tests/stream_gen.h"
#include "writer/etl_wire.h"

#define CPUS  6
#define RUN   97 /* switches in one ccswap_log_n() at most */
#define TOTAL 60000u

struct batch {
	enum producer_flush_reason why;
	uint32_t records;
	uint32_t offset;
	long closer; /* index of the switch that closed it (-1: finish) */
	uint8_t bytes[ETW_BATCH_CAP];
};

struct batch_log {
	struct batch *v;
	size_t n, cap;
	const struct sim_cswitch *base; /* the stream: closer = cs - base */
	long at;			/* ccswap_log(): the switch being logged */
	long fail_at;			/* the emitter fails from here on (-1: never) */
};

static int keep(struct batch_log *l, const struct ccswap_block *b, enum producer_flush_reason why,
		long closer)
{
	struct batch *x;

	if (closer >= 0 && l->fail_at >= 0 && closer >= l->fail_at) {
		return -EIO; /* the first batch closed from that switch on */
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	x = &l->v[l->n++];
	x->why = why;
	x->records = b->records;
	x->offset = b->offset;
	x->closer = closer;
	memcpy(x->bytes, b->bytes + ETL_TH_LEN, b->offset - ETL_TH_LEN);
	return 0;
}

static int emit_one(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	struct batch_log *l = ctx;

	return keep(l, b, why, l->at);
}

static int emit_run(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why,
		    const struct sim_cswitch *cs)
{
	struct batch_log *l = ctx;

	return keep(l, b, why, cs ? (long)(cs - l->base) : -1);
}

static void same_batches(const struct batch_log *a, const struct batch_log *b, const char *what)
{
	cr_assert_eq(a->n, b->n, "%s: %zu batches, one by one %zu", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct batch *x = &a->v[i], *y = &b->v[i];

		cr_assert_eq(x->why, y->why, "%s: batch %zu: reason", what, i);
		cr_assert_eq(x->records, y->records, "%s: batch %zu: records", what, i);
		cr_assert_eq(x->offset, y->offset, "%s: batch %zu: size", what, i);
		cr_assert_eq(x->closer, y->closer, "%s: batch %zu: closed by switch %ld, not %ld",
			     what, i, x->closer, y->closer);
		cr_assert(!memcmp(x->bytes, y->bytes, x->offset - ETL_TH_LEN),
			  "%s: batch %zu: bytes", what, i);
	}
}

/* A stream of @n switches with a few far jumps and steps back of the clock. */
static struct sim_cswitch *stream(uint64_t seed, unsigned n, enum sim_clock clock)
{
	struct stream_gen *g = malloc(sizeof(*g));
	struct sim_cswitch *v = calloc(n, sizeof(*v));
	struct sim_rng r;

	cr_assert(g && v);
	stream_gen_init(g, seed, CPUS, 40, 40);
	sim_rng_init(&r, seed, 0x72756e73u, 0);
	for (unsigned i = 0; i < n; i++) {
		stream_gen_next(g, &v[i]);
		v[i].tick += 0xFFFFFFFFu - 5000u; /* ticks wrap during the stream */
		v[i].ts[clock] = v[i].ts[SIM_CLOCK_QPC];
		switch (sim_rng_below(&r, 400)) {
		case 0:
			v[i].ts[clock] += 0x40000000ull + sim_rng_below(&r, 4); /* at the limit */
			break;
		case 1:
			v[i].ts[clock] -= sim_rng_below(&r, 1000); /* backwards */
			break;
		default:
			break;
		}
	}
	free(g);
	return v;
}

static void run_vs_one_by_one(uint64_t seed, bool quirks, enum sim_clock clock, long fail_at)
{
	struct sim_cswitch *cs = stream(seed, TOTAL, clock);
	struct ccswap_block *one = calloc(CPUS, sizeof(*one)), *run = calloc(CPUS, sizeof(*run));
	struct ccswap_block *ptr[CPUS];
	struct ccswap_params prm = {.max_wait_reason = 40, .quirks = quirks};
	struct batch_log lo = {.base = cs, .fail_at = fail_at};
	struct batch_log lr = {.base = cs, .fail_at = fail_at};
	struct sim_rng r;
	int rc_one = 0, rc_run = 0;
	size_t i = 0, stopped_one = TOTAL, stopped_run = TOTAL;

	cr_assert(one && run);
	sim_rng_init(&r, seed, 0x72756e32u, 0);
	for (unsigned c = 0; c < CPUS; c++) {
		ccswap_block_init(&one[c]);
		ccswap_block_init(&run[c]);
		ptr[c] = &run[c];
	}
	while (i < TOTAL && rc_run == 0) {
		size_t n = 1 + sim_rng_below(&r, RUN), done = 0;

		n = n > TOTAL - i ? TOTAL - i : n;
		if (sim_rng_below(&r, 20) == 0) { /* EtwpCCSwapStop between two runs */
			for (unsigned c = 0; c < CPUS; c++) {
				one[c].stop = run[c].stop = true;
			}
		}
		for (size_t k = i; k < i + n && rc_one == 0; k++) {
			lo.at = (long)k;
			rc_one = ccswap_log(&one[cs[k].cpu], &prm, &cs[k], cs[k].ts[clock],
					    emit_one, &lo);
			if (rc_one < 0) {
				stopped_one = k;
			}
		}
		rc_run = ccswap_log_n(ptr, &prm, &cs[i], n, clock, emit_run, &lr, &done);
		if (rc_run < 0) {
			stopped_run = i + done;
		} else {
			cr_assert_eq(done, n, "a run without an error logs all of it");
		}
		i += n;
	}
	cr_assert_eq(rc_one, rc_run, "the same error");
	cr_assert_eq(stopped_one, stopped_run, "stopped at switch %zu, one by one at %zu",
		     stopped_run, stopped_one);
	for (unsigned c = 0; rc_run == 0 && c < CPUS; c++) {
		lo.at = lr.at = -1;
		cr_assert_eq(ccswap_finish(&one[c], emit_one, &lo), 0);
		cr_assert_eq(ccswap_finish(&run[c], emit_one, &lr), 0);
	}
	same_batches(&lr, &lo, quirks ? "quirks" : "clean");
	cr_assert_gt(lo.n, 100, "the stream closes batches");
	free(lo.v);
	free(lr.v);
	free(one);
	free(run);
	free(cs);
}

Test(ccswap_run, a_run_makes_the_batches_of_one_call_per_switch)
{
	static const enum sim_clock clocks[] = {SIM_CLOCK_QPC, SIM_CLOCK_SYSTIME, SIM_CLOCK_CYCLES};

	for (unsigned k = 0; k < 3; k++) {
		run_vs_one_by_one(11 + k, true, clocks[k], -1);
		run_vs_one_by_one(21 + k, false, clocks[k], -1);
	}
}

Test(ccswap_run, an_emitter_error_stops_the_run_at_its_switch)
{
	run_vs_one_by_one(7, true, SIM_CLOCK_QPC, 20000);
	run_vs_one_by_one(8, false, SIM_CLOCK_CYCLES, 31337);
}
