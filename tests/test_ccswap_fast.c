// SPDX-License-Identifier: MIT
/*
 * tests/test_ccswap_fast.c - the batching engine's fast path against slow,
 * obvious references: the 16-lane TidTable match (SSE2 and portable) against
 * a serial scan on random tables, the trailing-zero count against a loop,
 * the form index (an adc chain on x86-64) against its five flags, the cmov
 * select against ?:, the branch-free record encoder against
 * etw_encode_ccswap_rec() with ETW_ENC_WRAP on random records of every form
 * and at every boundary, and
 * the whole engine against the engine it replaced (tests/ccswap_ref.c),
 * batch for batch, on random streams with stop flags, drops, finishes,
 * backward clocks and wrapping ticks, quirks on and off.
 *
 * tests/meson.build builds this suite twice: against the library, and as
 * ccswap_fast_portable against producer/ccswap.c compiled with
 * CCSWAP_NO_SIMD and CCSWAP_NO_BUILTINS, so the fallbacks run here too.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/sim_rng.h"
#include "producer/ccswap.h"
#include "producer/ccswap_internal.h"
#include "producer/etw_encode.h"
#include "tests/ccswap_ref.h"
#include "tests/stream_gen.h"

static uint64_t below(struct sim_rng *r, uint64_t n)
{
	return sim_rng_below(r, n);
}

/* ---- TidTable match ------------------------------------------------------ */

static uint32_t serial_match(const uint32_t *tids, uint32_t tid)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < 16; i++) {
		if (tids[i] == tid) {
			m |= 1u << i;
		}
	}
	return m;
}

/* The old lookup without the insert: first equal slot, else first empty, else 16. */
static unsigned serial_lookup(const uint32_t *tids, uint32_t tid)
{
	for (unsigned i = 0; i < 16; i++) {
		if (tids[i] == tid || tids[i] == 0) {
			return i;
		}
	}
	return 16;
}

static uint32_t some_tid(struct sim_rng *r)
{
	switch (below(r, 4)) {
	case 0:
		return 0xFFFFFFFFu - (uint32_t)below(r, 3); /* sign bit set in every lane */
	case 1:
		return 0x80000000u + (uint32_t)below(r, 3);
	default:
		return 1 + (uint32_t)below(r, 40); /* small pool: hits and duplicates */
	}
}

Test(ccswap_fast, tid_match_equals_a_serial_scan)
{
	struct sim_rng r;
	alignas(16) uint32_t tids[16];

	sim_rng_init(&r, 11, 0x74657374u, 0);
	for (unsigned it = 0; it < 200000; it++) {
		unsigned n = (unsigned)below(&r, 17);
		bool prefix = below(&r, 4) != 0;
		uint32_t tid;

		for (unsigned i = 0; i < 16; i++) {
			/* the engine's tables are a prefix; anything else must match too */
			tids[i] = prefix ? (i < n ? some_tid(&r) : 0)
					 : (below(&r, 3) == 0 ? 0 : some_tid(&r));
		}
		switch (below(&r, 3)) {
		case 0:
			tid = tids[below(&r, 16)];
			break;
		case 1:
			tid = 0;
			break;
		default:
			tid = some_tid(&r);
			break;
		}
		uint32_t want = serial_match(tids, tid);

		cr_assert_eq(ccswap_tid_match_portable(tids, tid), want, "it %u tid %u", it, tid);
		cr_assert_eq(ccswap_tid_match(tids, tid), want, "it %u tid %u", it, tid);
#if defined(CCSWAP_SSE2)
		cr_assert_eq(ccswap_tid_match_sse2(tids, tid), want, "it %u tid %u", it, tid);
#endif
		if (prefix && tid != 0) {
			/* how ccswap_log() turns the mask into an index */
			cr_assert_eq(ccswap_ctz(want | 1u << n), serial_lookup(tids, tid),
				     "it %u n %u tid %u", it, n, tid);
		}
	}
}

Test(ccswap_fast, ctz_equals_a_loop)
{
	struct sim_rng r;

	sim_rng_init(&r, 12, 0x74657374u, 0);
	for (unsigned it = 0; it < 100000 + 32; it++) {
		uint32_t x = it < 32 ? 1u << it : (uint32_t)sim_rng_next(&r) | 1u << below(&r, 32);
		unsigned want = 0;

		while (!(x >> want & 1)) {
			want++;
		}
		cr_assert_eq(ccswap_ctz_portable(x), want, "x %#x", x);
		cr_assert_eq(ccswap_ctz(x), want, "x %#x", x);
	}
}

/* ---- form index and cmov ------------------------------------------------- */

Test(ccswap_fast, form_index_equals_its_flags)
{
	static const int64_t dedge[] = {INT64_MIN, INT64_MIN + 1, -0x80000000ll, -1,
					0,	   0x3FFF,	  0x4000,	 0x1FFFF,
					0x20000,   0x40000000,	  INT64_MAX};
	static const uint32_t uedge[] = {0, 1, 2, 7, 8, 9, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
	struct sim_rng r;

	sim_rng_init(&r, 14, 0x74657374u, 0);
	for (unsigned it = 0; it < 1000000; it++) {
		uint32_t tid = below(&r, 3) == 0 ? 0 : (uint32_t)sim_rng_next(&r);
		int64_t delta = below(&r, 2) ? dedge[below(&r, sizeof(dedge) / sizeof(dedge[0]))]
					     : (int64_t)sim_rng_next(&r) >> below(&r, 64);
		uint32_t wait = below(&r, 2) ? uedge[below(&r, sizeof(uedge) / sizeof(uedge[0]))]
					     : (uint32_t)sim_rng_next(&r);
		uint32_t inc = below(&r, 2) ? uedge[below(&r, sizeof(uedge) / sizeof(uedge[0]))]
					    : (uint32_t)sim_rng_next(&r);
		uint64_t want = (uint64_t)(tid == 0) << 4 | (uint64_t)(delta >= 0x4000) << 3 |
				(uint64_t)(delta < 0x20000) << 2 | (uint64_t)(wait <= 1) << 1 |
				(uint64_t)(inc <= 7);
		uint64_t d = (uint64_t)delta;
		uint64_t got = ccswap_form_index(tid, &d, wait, inc);

		cr_assert_eq(got, want, "it %u: tid %u delta %lld wait %u inc %u: %llu, want %llu",
			     it, tid, (long long)delta, wait, inc, (unsigned long long)got,
			     (unsigned long long)want);
		cr_assert_eq((uint32_t)d, (uint32_t)delta, "it %u: the delta's low bits changed",
			     it);
	}
}

Test(ccswap_fast, pick_is_a_select)
{
	static const uint32_t conds[] = {0, 1, 2, 0x80000000u, 0xFFFFFFFFu};
	struct sim_rng r;

	sim_rng_init(&r, 15, 0x74657374u, 0);
	for (unsigned it = 0; it < 100000; it++) {
		uint32_t c = below(&r, 2) ? conds[below(&r, 5)] : (uint32_t)sim_rng_next(&r);
		uint64_t a = sim_rng_next(&r), b = sim_rng_next(&r);

		cr_assert_eq(ccswap_pick(c, a, b), c != 0 ? a : b, "it %u: c %#x", it, c);
	}
}

/* ---- record encoder ------------------------------------------------------ */

/* The old encode_record(): form choice, then the generic encoder. */
static int ref_encode(uint8_t *out, const struct ccswap_rec_in *in)
{
	struct etw_ccswap_rec r = {0};

	r.delta = (uint32_t)in->delta;
	if (in->old_tid == 0) {
		r.type = in->delta < 0x4000 ? ETW_CCSWAP_IDLE_SHORT : ETW_CCSWAP_IDLE;
	} else {
		uint32_t wait = in->new_tid != 0 ? in->wait : 0;
		uint32_t inc = (uint32_t)((int32_t)in->old_pri - (int32_t)in->base);

		r.tid_index = (uint8_t)in->idx;
		r.state_wr = etw_ccswap_state_wr(in->state, in->wait_reason, in->max_wait_reason);
		if (wait <= 1 && in->delta < 0x20000 && inc <= 7) {
			r.type = ETW_CCSWAP_LITE;
			r.pri_inc = (uint8_t)inc;
		} else {
			r.type = ETW_CCSWAP_FULL;
			r.priority = (uint8_t)in->old_pri;
			r.wait_time = wait > ETW_CCSWAP_WAIT_SAT ? ETW_CCSWAP_WAIT_SAT : wait;
		}
	}
	return etw_encode_ccswap_rec(out, 8, &r, ETW_ENC_WRAP);
}

/* A delta on or next to a boundary of the forms or the flush test, or anything. */
static int64_t some_delta(struct sim_rng *r)
{
	static const int64_t edge[] = {0,	    1,		0x3FFF,	    0x4000,	0x1FFFF,
				       0x20000,	    0x3FFFFFFF, 0x40000000, 0x40000001, 0xFFFFFFFF,
				       0x100000000, -1,		-0x4000,    -0x20001,	INT64_MIN};

	switch (below(r, 4)) {
	case 0:
		return edge[below(r, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		/* next to an edge; unsigned arithmetic, so INT64_MIN - 2 wraps */
		return (int64_t)((uint64_t)edge[below(r, sizeof(edge) / sizeof(edge[0]))] +
				 below(r, 5) - 2);
	case 2:
		return (int64_t)below(r, 0x40000);
	default:
		return (int64_t)sim_rng_next(r);
	}
}

static uint32_t some_wait(struct sim_rng *r)
{
	static const uint32_t edge[] = {0, 1, 2, 0x1FFFE, 0x1FFFF, 0x20000, 0xFFFFFFFF};

	return below(r, 2) ? edge[below(r, sizeof(edge) / sizeof(edge[0]))]
			   : (uint32_t)sim_rng_next(r);
}

static void some_rec(struct sim_rng *r, struct ccswap_rec_in *in)
{
	static const uint8_t bias[] = {0, 37, 39, 40, 43, 63, 64, 200, 255};

	memset(in, 0, sizeof(*in));
	in->delta = some_delta(r);
	in->old_tid = below(r, 5) == 0 ? 0 : some_tid(r);
	in->new_tid = below(r, 5) == 0 ? 0 : some_tid(r);
	in->wait = some_wait(r);
	in->base = (int8_t)sim_rng_next(r);
	/* increments around 0 and 7/8, or any priority at all */
	in->old_pri =
		below(r, 2) ? (int8_t)(in->base + (int)below(r, 12) - 2) : (int8_t)sim_rng_next(r);
	in->state = below(r, 2) ? ETW_THREAD_STATE_WAITING : (uint8_t)sim_rng_next(r);
	in->wait_reason = (uint8_t)sim_rng_next(r);
	in->idx = (uint32_t)below(r, 16);
	in->max_wait_reason = bias[below(r, sizeof(bias) / sizeof(bias[0]))];
}

Test(ccswap_fast, encoder_matches_the_generic_encoder)
{
	struct sim_rng r;
	uint64_t forms[4] = {0};

	sim_rng_init(&r, 13, 0x74657374u, 0);
	for (unsigned it = 0; it < 1000000; it++) {
		struct ccswap_rec_in in;
		uint8_t want[8], got[8 + 8];
		int n;
		uint32_t len;

		some_rec(&r, &in);
		n = ref_encode(want, &in);
		cr_assert_gt(n, 0);
		memset(got, 0xA5, sizeof(got));
		len = ccswap_rec_encode(got, &in);
		cr_assert_eq(len, (uint32_t)n, "it %u: length %u, want %d", it, len, n);
		{
			uint8_t again[8];
			uint64_t step = ccswap_rec_step(again, &in);

			/* the step a block's Offset and record count grow by, and the same bytes */
			cr_assert_eq(step, (uint64_t)n | 1ull << 32, "it %u: step %#llx", it,
				     (unsigned long long)step);
			cr_assert_eq(memcmp(again, got, 8), 0, "it %u: step stored other bytes",
				     it);
		}
		cr_assert_eq(memcmp(got, want, len), 0, "it %u: record differs (type %u)", it,
			     want[0] & 3u);
		for (unsigned i = 8; i < sizeof(got); i++) {
			cr_assert_eq(got[i], 0xA5, "it %u: stored past 8 bytes", it);
		}
		forms[want[0] & 3u]++;
	}
	for (unsigned t = 0; t < 4; t++) {
		cr_assert_gt(forms[t], 1000, "form %u seen %llu times", t,
			     (unsigned long long)forms[t]);
	}
}

/* ---- the engine against the reference engine ---------------------------- */

struct batch {
	enum producer_flush_reason why;
	uint32_t records;
	uint32_t offset;
	uint8_t bytes[ETW_BATCH_CAP];
};

struct batch_log {
	struct batch *v;
	size_t n;
	size_t cap;
};

static int log_batch(struct batch_log *l, enum producer_flush_reason why, uint32_t records,
		     uint32_t offset, const uint8_t *bytes)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct batch *v = realloc(l->v, cap * sizeof(*v));

		cr_assert_not_null(v);
		l->v = v;
		l->cap = cap;
	}
	cr_assert_leq(offset, ETW_BATCH_CAP);
	l->v[l->n].why = why;
	l->v[l->n].records = records;
	l->v[l->n].offset = offset;
	/* the payload the emitter reads: [0x10, offset) */
	memcpy(l->v[l->n].bytes, bytes + ETL_TH_LEN, offset - ETL_TH_LEN);
	l->n++;
	return 0;
}

static int emit_new(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	return log_batch(ctx, why, b->records, b->offset, b->bytes);
}

static int emit_ref(void *ctx, const struct ccswap_ref_block *b, enum producer_flush_reason why)
{
	return log_batch(ctx, why, b->records, b->offset, b->bytes);
}

#define CPUS 4

static void compare_logs(const struct batch_log *a, const struct batch_log *b, uint64_t sw)
{
	cr_assert_eq(a->n, b->n, "after switch %llu: %zu batches, reference %zu",
		     (unsigned long long)sw, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct batch *x = &a->v[i], *y = &b->v[i];

		cr_assert_eq(x->why, y->why, "batch %zu: reason %d, reference %d", i, x->why,
			     y->why);
		cr_assert_eq(x->records, y->records, "batch %zu: records", i);
		cr_assert_eq(x->offset, y->offset, "batch %zu: size", i);
		for (uint32_t k = 0; k < x->offset - ETL_TH_LEN; k++) {
			cr_assert_eq(
				x->bytes[k], y->bytes[k],
				"batch %zu (reason %d): byte 0x%x differs: %02x, reference %02x", i,
				x->why, k + ETL_TH_LEN, x->bytes[k], y->bytes[k]);
		}
	}
}

/*
 * @switches random switches on CPUS blocks into both engines, with the same
 * disturbances for both; then every batch must be the same.
 */
static void run_against_reference(uint64_t seed, bool quirks, uint8_t bias, unsigned nthreads,
				  unsigned switches)
{
	struct stream_gen *g = malloc(sizeof(*g));
	struct ccswap_block *nb = calloc(CPUS, sizeof(*nb));
	struct ccswap_ref_block *rb = calloc(CPUS, sizeof(*rb));
	struct batch_log ln = {0}, lr = {0};
	struct ccswap_params prm = {.max_wait_reason = bias, .quirks = quirks};
	struct sim_rng r;
	/* ticks start just below 2^32 and wrap during the run */
	uint32_t tick_bias = 0xFFFFFFFFu - 20000u;

	cr_assert(g && nb && rb);
	stream_gen_init(g, seed, CPUS, nthreads, bias);
	sim_rng_init(&r, seed, 0x74657374u, 1);
	for (unsigned c = 0; c < CPUS; c++) {
		ccswap_block_init(&nb[c]);
		ccswap_ref_block_init(&rb[c]);
	}
	for (unsigned i = 0; i < switches; i++) {
		struct sim_cswitch cs;
		uint64_t ts;
		unsigned c;

		stream_gen_next(g, &cs);
		c = cs.cpu;
		cs.tick += tick_bias;
		ts = cs.ts[SIM_CLOCK_QPC];
		if (below(&r, 50) == 0) {
			ts -= below(&r, 1u << 20); /* a clock that went backwards: negative delta */
		}
		switch (below(&r, 1000)) {
		case 0:
		case 1:
			/* EtwpCCSwapStop: every block's stop flag (before or after a batch) */
			for (unsigned k = 0; k < CPUS; k++) {
				nb[k].stop = rb[k].stop = true;
			}
			break;
		case 2:
			/* producer_end() with flush_at_end off: pending data dropped */
			nb[c].offset = rb[c].offset = 0;
			break;
		case 3:
			cr_assert_eq(ccswap_finish(&nb[c], emit_new, &ln), 0);
			cr_assert_eq(ccswap_ref_finish(&rb[c], emit_ref, &lr), 0);
			break;
		default:
			break;
		}
		cr_assert_eq(ccswap_log(&nb[c], &prm, &cs, ts, emit_new, &ln), 0);
		cr_assert_eq(ccswap_ref_log(&rb[c], &prm, &cs, ts, emit_ref, &lr), 0);
		cr_assert_eq(nb[c].offset, rb[c].offset, "switch %u: offset %#x, reference %#x", i,
			     nb[c].offset, rb[c].offset);
		cr_assert_eq(nb[c].records, rb[c].records, "switch %u: records", i);
		cr_assert_eq(ln.n, lr.n, "switch %u: %zu batches, reference %zu", i, ln.n, lr.n);
	}
	for (unsigned c = 0; c < CPUS; c++) {
		cr_assert_eq(ccswap_finish(&nb[c], emit_new, &ln), 0);
		cr_assert_eq(ccswap_ref_finish(&rb[c], emit_ref, &lr), 0);
	}
	compare_logs(&ln, &lr, switches);
	cr_assert_gt(ln.n, switches / 400, "the stream should flush often (%zu batches)", ln.n);
	free(ln.v);
	free(lr.v);
	free(g);
	free(nb);
	free(rb);
}

Test(ccswap_fast, engine_equals_reference_with_quirks)
{
	static const uint8_t bias[] = {37, 39, 40, 43};

	for (unsigned s = 0; s < 8; s++) {
		run_against_reference(100 + s, true, bias[s % 4], s % 2 ? 14 : 40, 150000);
	}
}

Test(ccswap_fast, engine_equals_reference_without_quirks)
{
	static const uint8_t bias[] = {37, 39, 40, 43};

	for (unsigned s = 0; s < 8; s++) {
		run_against_reference(200 + s, false, bias[s % 4], s % 2 ? 14 : 40, 150000);
	}
}

/* A stop flag set while nothing is pending flushes an empty batch (quirk) or is dropped. */
Test(ccswap_fast, stop_on_an_idle_block_matches_reference)
{
	for (int q = 0; q < 2; q++) {
		struct ccswap_params prm = {.max_wait_reason = 40, .quirks = q == 1};
		struct ccswap_block nb;
		struct ccswap_ref_block rb;
		struct batch_log ln = {0}, lr = {0};
		struct sim_cswitch cs;

		memset(&cs, 0, sizeof(cs));
		ccswap_block_init(&nb);
		ccswap_ref_block_init(&rb);
		nb.stop = rb.stop = true;
		cs.tick = 7;
		cs.old_tid = 1000;
		cs.old_pri = 9;
		cs.old_base_pri = 8;
		cs.old_state = ETW_THREAD_STATE_WAITING;
		cs.new_tid = 1001;
		cr_assert_eq(ccswap_log(&nb, &prm, &cs, 5000, emit_new, &ln), 0);
		cr_assert_eq(ccswap_ref_log(&rb, &prm, &cs, 5000, emit_ref, &lr), 0);
		cr_assert_eq(ccswap_finish(&nb, emit_new, &ln), 0);
		cr_assert_eq(ccswap_ref_finish(&rb, emit_ref, &lr), 0);
		compare_logs(&ln, &lr, 1);
		cr_assert_eq(ln.n, q == 1 ? 2u : 1u, "quirks %d: %zu batches", q, ln.n);
		free(ln.v);
		free(lr.v);
	}
}
