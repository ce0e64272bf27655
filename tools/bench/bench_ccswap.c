// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_ccswap.c - the compact-batching benchmark core (see
 * bench_ccswap.h).
 *
 *   pass:   reset the generator to the seed (per CPU a profile: working
 *           set, step sizes)
 *           for lap = 0..: generate the next W switches into window[W]
 *                          [stop flag on every block every Nth lap]
 *                          t0; ccswap_log() x W; t1   (only this is timed)
 *           ccswap_finish() every block (untimed)
 *
 * The window is regenerated for every lap rather than replayed: a replayed
 * window repeats its record forms every W switches, and the branch
 * predictor learns them (a branchy engine looked 10 % faster with W = 4096
 * than with W = 32768). Generating outside the timed region keeps the
 * stream non-periodic and cache resident.
 *
 * CPU profiles (cycle clock, 3 GHz, 15.625 ms ticks): CPUs 0-4 run working
 * sets of 6..14 threads (batches fill up: size flushes), CPU 5 sixteen with
 * churn and CPU 6 twenty (TID table full), CPU 7 is nearly idle with
 * steps of ~0.1 s and takes only 1 switch in 32 (500-tick age). Every CPU
 * also sleeps past 2^30 cycles about once in 1000 switches (delta limit).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "producer/ccswap_internal.h"
#include "scheduler_model/sim_rng.h"
#include "writer/etl_wire.h"
#include "tools/bench/bench_ccswap.h"

#define BENCH_CLOCK	  SIM_CLOCK_CYCLES
#define TICK_CYCLES	  46875000ull /* 15.625 ms at 3 GHz */
#define TICK0		  1000u
#define TS0		  9000000000ull
#define MAX_WS		  24u
#define DEFAULT_SWITCHES  (16ull << 20)
#define DEFAULT_WINDOW	  4096u
#define DEFAULT_STOP	  16u
#define DEFAULT_MAX_WAITR 40u

struct cpu_model {
	uint32_t pool[MAX_WS]; /* working set */
	unsigned ws;	       /* its size */
	unsigned churn;	       /* 1 in @churn switches replaces a pool thread (0: never) */
	bool sparse;	       /* ~0.1 s steps */
	uint32_t cur;	       /* running thread, 0 = idle */
	uint32_t fresh;	       /* next new TID */
	uint64_t ts;	       /* cycle clock */
};

struct ccswap_bench {
	struct ccswap_bench_opts o;
	struct ccswap_params prm;
	struct sim_rng rng; /* the stream generator: RNG and CPU models */
	struct cpu_model cpu[CCSWAP_BENCH_CPUS];
	struct sim_cswitch *win;		      /* the current lap's switches */
	struct ccswap_block *blk;		      /* [CCSWAP_BENCH_CPUS] */
	struct ccswap_block *blkp[CCSWAP_BENCH_CPUS]; /* &blk[c], as ccswap_log_n() takes them */
	float *lap_ns;	 /* per-switch time of each lap of the last pass */
	float *floor_ns; /* the same for the empty function */
	uint64_t nlaps;
	uint16_t *sizes; /* batch sizes of the check pass */
	size_t nsizes;
	size_t cap_sizes;
	bool checked;
	uint64_t out_bytes;
};

/* ---- stream generation ---------------------------------------------------- */

static uint64_t below(struct sim_rng *r, uint64_t n)
{
	return sim_rng_below(r, n);
}

static uint64_t step(struct sim_rng *r, const struct cpu_model *m)
{
	unsigned k = (unsigned)below(r, 1000);

	if (k == 0) {
		return 0x40000001ull + below(r, 0x40000000ull); /* delta flush */
	}
	if (m->sparse) {
		/* ~7 ticks a step: 500 ticks after ~70 switches */
		return 200000000ull + below(r, 250000000ull);
	}
	k %= 100;
	if (k < 55) {
		return 200 + below(r, 0x3000); /* IDLE_SHORT, LITE */
	}
	if (k < 93) {
		return 0x3200 + below(r, 0x1C000); /* IDLE_SHORT/IDLE, LITE */
	}
	if (k < 99) {
		return 0x20000 + below(r, 0x1E0000); /* FULL by delta */
	}
	return 0x200000 + below(r, 0x10000000ull);
}

static int8_t base_pri_of(uint32_t tid)
{
	return (int8_t)(4 + (tid * 2654435761u >> 28) % 12);
}

static uint32_t pick(struct sim_rng *r, struct cpu_model *m)
{
	uint32_t t;

	if (below(r, 5) == 0) {
		return 0; /* ~20 % idle */
	}
	if (m->churn && below(r, m->churn) == 0) {
		m->pool[below(r, m->ws)] = m->fresh++;
	}
	t = m->pool[below(r, m->ws)];
	if (t == m->cur) {
		t = m->pool[below(r, m->ws)];
	}
	return t;
}

static uint32_t wait_ticks(struct sim_rng *r)
{
	unsigned k = (unsigned)below(r, 100);

	if (k < 60) {
		return 0;
	}
	if (k < 90) {
		return 1;
	}
	if (k < 96) {
		return 2 + (uint32_t)below(r, 50);
	}
	if (k < 99) {
		return 51 + (uint32_t)below(r, 100000);
	}
	return 0x1FFFF + (uint32_t)below(r, 0x100000); /* saturates */
}

static void fill_old(struct sim_rng *r, struct sim_cswitch *cs, uint8_t max_wait_reason)
{
	int base = base_pri_of(cs->old_tid);
	unsigned k = (unsigned)below(r, 100);
	int pri;

	if (k < 85) {
		pri = base + (int)below(r, 3);
	} else if (k < 97) {
		pri = base + 3 + (int)below(r, 5);
	} else if (k < 99) {
		pri = base + 8 + (int)below(r, 8); /* increment > 7: FULL */
	} else {
		pri = base - 1 - (int)below(r, 3); /* below base: FULL */
	}
	cs->old_base_pri = (int8_t)base;
	cs->old_pri = (int8_t)(pri > 31 ? 31 : pri < 0 ? 0 : pri);
	k = (unsigned)below(r, 100);
	if (k < 65) {
		cs->old_state = ETW_THREAD_STATE_WAITING;
		cs->old_wait_reason = (uint8_t)below(r, max_wait_reason);
	} else if (k < 90) {
		cs->old_state = 1; /* Ready: preempted */
	} else {
		cs->old_state = (uint8_t)below(r, ETW_THREAD_STATE_MAX + 1);
	}
}

static void model_init(struct cpu_model *m, struct sim_rng *r, unsigned cpu)
{
	static const unsigned ws[CCSWAP_BENCH_CPUS] = {6, 8, 10, 12, 14, 16, 20, 8};

	memset(m, 0, sizeof(*m));
	m->ws = ws[cpu];
	m->churn = cpu == 5 ? 64 : cpu == 6 ? 256 : 1024;
	m->sparse = cpu == 7;
	m->fresh = 1000 + cpu * 1000000u;
	for (unsigned i = 0; i < m->ws; i++) {
		m->pool[i] = m->fresh++;
	}
	m->ts = TS0 + below(r, 1000000);
}

static uint32_t tick_of(uint64_t ts)
{
	return (uint32_t)(TICK0 + ts / TICK_CYCLES);
}

/* Back to the start of the stream. */
static void gen_reset(struct ccswap_bench *bb)
{
	sim_rng_init(&bb->rng, bb->o.seed, 0x63637362u /* "ccsb" */, 0);
	for (unsigned c = 0; c < CCSWAP_BENCH_CPUS; c++) {
		model_init(&bb->cpu[c], &bb->rng, c);
	}
}

/* The next @n switches of the stream into the window. */
static void gen_window(struct ccswap_bench *bb, unsigned n)
{
	struct sim_rng *r = &bb->rng;

	for (unsigned i = 0; i < n; i++) {
		struct sim_cswitch *cs = &bb->win[i];
		/* CPU 7 (sparse) takes 1 switch in 32, the others share the rest */
		unsigned c = below(r, 32) == 0 ? 7 : (unsigned)below(r, 7);
		struct cpu_model *cm = &bb->cpu[c];

		memset(cs, 0, sizeof(*cs));
		cm->ts += step(r, cm);
		cs->cpu = c;
		cs->tick = tick_of(cm->ts);
		cs->ts[BENCH_CLOCK] = cm->ts;
		cs->old_tid = cm->cur;
		cs->new_tid = pick(r, cm);
		cm->cur = cs->new_tid;
		if (cs->old_tid != 0) {
			fill_old(r, cs, bb->o.max_wait_reason);
		} else {
			cs->old_state = 2; /* the idle thread was running */
		}
		cs->new_wait_ticks = cs->new_tid != 0 ? wait_ticks(r) : 0;
	}
}

void ccswap_bench_stream_reset(struct ccswap_bench *bb)
{
	gen_reset(bb);
}

struct sim_cswitch *ccswap_bench_stream_next(struct ccswap_bench *bb, unsigned n)
{
	assert(n >= 1 && n <= bb->o.window);
	gen_window(bb, n);
	return bb->win;
}

struct ccswap_bench *ccswap_bench_create(const struct ccswap_bench_opts *opts)
{
	struct ccswap_bench *bb = calloc(1, sizeof(*bb));

	if (!bb) {
		return NULL;
	}
	if (opts) {
		bb->o = *opts;
	}
	bb->o.switches = bb->o.switches ? bb->o.switches : DEFAULT_SWITCHES;
	bb->o.seed = bb->o.seed ? bb->o.seed : 1;
	bb->o.window = bb->o.window ? bb->o.window : DEFAULT_WINDOW;
	bb->o.stop_every = bb->o.stop_every ? bb->o.stop_every : DEFAULT_STOP;
	bb->o.max_wait_reason = bb->o.max_wait_reason ? bb->o.max_wait_reason : DEFAULT_MAX_WAITR;
	if (bb->o.max_wait_reason > 63) {
		free(bb);
		errno = EINVAL;
		return NULL;
	}
	bb->prm.max_wait_reason = bb->o.max_wait_reason;
	bb->prm.quirks = !bb->o.clean;
	bb->win = calloc(bb->o.window, sizeof(*bb->win));
	bb->blk = calloc(CCSWAP_BENCH_CPUS, sizeof(*bb->blk));
	bb->lap_ns = calloc((size_t)((bb->o.switches + bb->o.window - 1) / bb->o.window),
			    sizeof(*bb->lap_ns));
	bb->floor_ns = calloc((size_t)((bb->o.switches + bb->o.window - 1) / bb->o.window),
			      sizeof(*bb->floor_ns));
	if (!bb->win || !bb->blk || !bb->lap_ns || !bb->floor_ns) {
		ccswap_bench_destroy(bb);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned c = 0; c < CCSWAP_BENCH_CPUS; c++) {
		bb->blkp[c] = &bb->blk[c];
	}
	return bb;
}

void ccswap_bench_destroy(struct ccswap_bench *bb)
{
	if (!bb) {
		return;
	}
	free(bb->win);
	free(bb->lap_ns);
	free(bb->floor_ns);
	free(bb->blk);
	free(bb->sizes);
	free(bb);
}

/* ---- passes --------------------------------------------------------------- */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The call floor: same arguments, nothing done. */
static int empty_log(struct ccswap_block *b, const struct ccswap_params *prm,
		     const struct sim_cswitch *cs, uint64_t ts, ccswap_emit_fn emit, void *ctx)
{
	(void)b, (void)prm, (void)cs, (void)ts, (void)emit, (void)ctx;
	return 0;
}

/* Through a volatile pointer, so the call is never inlined away. */
static int (*volatile empty_log_fn)(struct ccswap_block *, const struct ccswap_params *,
				    const struct sim_cswitch *, uint64_t, ccswap_emit_fn,
				    void *) = empty_log;

/*
 * Feed all switches lap by lap, keeping each lap's time per switch in
 * @bb->lap_ns; returns the summed time of the ccswap_log() loops in ns.
 * With @floor, each lap is fed a second time to an empty function (times
 * in @bb->floor_ns): what the loop and the call cost alone.
 * *@rc: 0 or the (negative) error of a failing switch.
 */
/*
 * The engine's fast path as it was before ccswap_log_n() (ccswap_log() at
 * the start of that work, kept here as the anchor of its figure): the flush
 * tests one branch each, the record by ccswap_rec_encode(). A switch that
 * starts or closes a batch goes to ccswap_log(), whose slow path is the same.
 */
#define BEFORE_TICK_LIMIT  500u
#define BEFORE_DELTA_LIMIT 0x40000000
#define BEFORE_OFF_MAX_M1  (ETW_BATCH_CAP - 8u - 1u)

static int log_before(struct ccswap_block *b, const struct ccswap_params *prm,
		      const struct sim_cswitch *cs, uint64_t ts, ccswap_emit_fn emit, void *ctx)
{
	uint32_t off = b->offset;
	uint32_t n = b->ntids;
	uint32_t tid = cs->old_tid;
	int64_t delta = (int64_t)(ts - b->last_ts);
	uint32_t hit = ccswap_tid_match(b->tids, tid);
	uint32_t idx = ccswap_ctz(hit | 1u << n);

	if (CCSWAP_UNLIKELY(off - 1u > BEFORE_OFF_MAX_M1) ||
	    CCSWAP_UNLIKELY((uint32_t)(cs->tick - b->start_tick) > BEFORE_TICK_LIMIT) ||
	    CCSWAP_UNLIKELY(delta > BEFORE_DELTA_LIMIT) || CCSWAP_UNLIKELY(b->stop) ||
	    CCSWAP_UNLIKELY(idx == ETW_CCSWAP_MAX_TID)) {
		return ccswap_log(b, prm, cs, ts, emit, ctx);
	}

	uint32_t absent = (uint32_t)(hit == 0) & (uint32_t)(tid != 0);
	int8_t base =
		(int8_t)ccswap_sel(absent, (uint8_t)cs->old_base_pri, (uint8_t)b->base_pri[idx]);

	b->tids[idx] = tid;
	b->base_pri[idx] = base;
	b->ntids = n + absent;
	b->last_ts = ts;

	struct ccswap_rec_in in = {
		.delta = delta,
		.old_tid = tid,
		.new_tid = cs->new_tid,
		.wait = cs->new_wait_ticks,
		.old_pri = cs->old_pri,
		.base = base,
		.state = cs->old_state,
		.wait_reason = cs->old_wait_reason,
		.idx = idx,
		.max_wait_reason = prm->max_wait_reason,
	};

	b->offset = off + ccswap_rec_encode(b->bytes + off, &in);
	b->records++;
	return 0;
}

/* ccswap_log_n()'s emitter over a ccswap_log() one: the same batches. */
struct emit_at {
	ccswap_emit_fn fn;
	void *ctx;
};

static int emit_at(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why,
		   const struct sim_cswitch *cs)
{
	const struct emit_at *e = ctx;

	(void)cs;
	return e->fn(e->ctx, b, why);
}

static double run_pass(struct ccswap_bench *bb, ccswap_emit_fn emit, void *ctx, bool floor, int *rc)
{
	struct emit_at ea = {emit, ctx};
	double total = 0;
	uint64_t left = bb->o.switches;
	int err = 0;

	bb->nlaps = 0;
	gen_reset(bb);
	for (unsigned c = 0; c < CCSWAP_BENCH_CPUS; c++) {
		ccswap_block_init(&bb->blk[c]);
	}
	for (uint64_t lap = 0; left && !err; lap++) {
		unsigned n = left < bb->o.window ? (unsigned)left : bb->o.window;
		const struct sim_cswitch *cs = bb->win;
		double t0, t1;

		gen_window(bb, n);
		if (lap % bb->o.stop_every == bb->o.stop_every - 1) {
			for (unsigned c = 0; c < CCSWAP_BENCH_CPUS; c++) {
				bb->blk[c].stop = true; /* what producer_ccswap_stop() does */
			}
		}
		t0 = now_ns();
		if (bb->o.single) {
			for (unsigned i = 0; i < n; i++, cs++) {
				/* errors are negative: OR-ing keeps "some switch failed" without a branch */
				err |= log_before(&bb->blk[cs->cpu], &bb->prm, cs,
						  cs->ts[BENCH_CLOCK], emit, ctx);
			}
		} else {
			size_t done;

			err |= ccswap_log_n(bb->blkp, &bb->prm, cs, n, BENCH_CLOCK, emit_at, &ea,
					    &done);
		}
		t1 = now_ns();
		total += t1 - t0;
		bb->lap_ns[bb->nlaps] = (float)((t1 - t0) / n);
		if (floor) {
			int (*fn)(struct ccswap_block *, const struct ccswap_params *,
				  const struct sim_cswitch *, uint64_t, ccswap_emit_fn, void *) =
				empty_log_fn;

			cs = bb->win;
			t0 = now_ns();
			for (unsigned i = 0; i < n; i++, cs++) {
				err |= fn(&bb->blk[cs->cpu], &bb->prm, cs, cs->ts[BENCH_CLOCK],
					  emit, ctx);
			}
			t1 = now_ns();
			bb->floor_ns[bb->nlaps] = (float)((t1 - t0) / n);
		}
		bb->nlaps++;
		left -= n;
	}
	for (unsigned c = 0; c < CCSWAP_BENCH_CPUS && !err; c++) {
		err = ccswap_finish(&bb->blk[c], emit, ctx);
	}
	*rc = err < 0 ? err : 0;
	return total;
}

struct check_ctx {
	struct ccswap_bench *bb;
	struct ccswap_bench_mix *mix;
	XXH3_state_t *h;
};

static int check_emit(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	struct check_ctx *k = ctx;
	struct ccswap_bench *bb = k->bb;
	uint8_t head[8];
	uint32_t pos = ETW_BATCH_FIXED_LEN;

	if (bb->nsizes == bb->cap_sizes) {
		size_t cap = bb->cap_sizes ? 2 * bb->cap_sizes : 4096;
		uint16_t *p = realloc(bb->sizes, cap * sizeof(*p));

		if (!p) {
			return -ENOMEM;
		}
		bb->sizes = p;
		bb->cap_sizes = cap;
	}
	bb->sizes[bb->nsizes++] = (uint16_t)b->offset;
	k->mix->batches++;
	k->mix->reasons[why]++;
	k->mix->records += b->records;
	k->mix->out_bytes += b->offset;
	put_le32(head, (uint32_t)why);
	put_le32(head + 4, b->records);
	XXH3_64bits_update(k->h, head, sizeof(head));
	XXH3_64bits_update(k->h, b->bytes + ETL_TH_LEN, b->offset - ETL_TH_LEN);
	while (pos < b->offset) {
		static const uint8_t len[4] = {2, 4, 4, 8};
		unsigned type = b->bytes[pos] & ETW_CCSWAP_TYPE_MASK;

		k->mix->forms[type]++;
		pos += len[type];
	}
	return pos == b->offset ? 0 : -EIO;
}

int ccswap_bench_check(struct ccswap_bench *bb, struct ccswap_bench_mix *mix)
{
	struct check_ctx k = {.bb = bb, .mix = mix, .h = XXH3_createState()};
	int rc;

	memset(mix, 0, sizeof(*mix));
	if (!k.h) {
		return -ENOMEM;
	}
	XXH3_64bits_reset(k.h);
	bb->nsizes = 0;
	run_pass(bb, check_emit, &k, false, &rc);
	mix->switches = bb->o.switches;
	mix->xxh3 = XXH3_64bits_digest(k.h);
	XXH3_freeState(k.h);
	if (rc < 0) {
		return rc;
	}
	if (mix->records != mix->switches) {
		return -EIO;
	}
	bb->checked = true;
	bb->out_bytes = mix->out_bytes;
	return 0;
}

struct time_ctx {
	uint64_t out_bytes;
	uint8_t sink[ETW_BATCH_CAP];
};

/* What a real emitter does at least: copy the batch out. */
static int time_emit(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	struct time_ctx *k = ctx;

	(void)why;
	memcpy(k->sink, b->bytes + ETL_TH_LEN, b->offset - ETL_TH_LEN);
	k->out_bytes += b->offset;
	return 0;
}

/*
 * The destination comes through a volatile pointer, so the compiler cannot
 * know that nothing reads the bytes and must keep every memset.
 */
static uint8_t memset_buf[ETW_BATCH_CAP];
static uint8_t *volatile memset_dst = memset_buf;

static double time_memset(const struct ccswap_bench *bb)
{
	uint8_t *dst = memset_dst;
	double t0 = now_ns();

	for (size_t i = 0; i < bb->nsizes; i++) {
		memset(dst, (int)(i & 0xFF), bb->sizes[i]);
	}
	return now_ns() - t0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * The pass time with preempted laps taken out: the machine is shared, and a
 * lap during which the thread was descheduled takes milliseconds instead of
 * microseconds. A lap above 4x the median lap counts as the median lap.
 */
static double filtered_ns(const struct ccswap_bench *bb, const float *lap_ns, uint64_t *outliers)
{
	uint64_t left = bb->o.switches;
	double total = 0;
	float *v = malloc(bb->nlaps * sizeof(*v));
	float med;

	*outliers = 0;
	if (!v) {
		return -1;
	}
	memcpy(v, lap_ns, bb->nlaps * sizeof(*v));
	qsort(v, bb->nlaps, sizeof(*v), cmp_float);
	med = v[bb->nlaps / 2];
	free(v);
	for (uint64_t i = 0; i < bb->nlaps; i++) {
		uint64_t n = left < bb->o.window ? left : bb->o.window;
		float x = lap_ns[i];

		if (x > 4 * med) {
			x = med;
			(*outliers)++;
		}
		total += (double)x * (double)n;
		left -= n;
	}
	return total;
}

int ccswap_bench_time(struct ccswap_bench *bb, struct ccswap_bench_time *t)
{
	struct time_ctx *k;
	double ns, best = 0;
	uint64_t outliers;
	int rc;

	if (!bb->checked) {
		return -EINVAL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		return -ENOMEM;
	}
	ns = run_pass(bb, time_emit, k, true, &rc);
	t->out_bytes = k->out_bytes;
	free(k);
	if (rc < 0) {
		return rc;
	}
	if (t->out_bytes != bb->out_bytes) {
		return -EIO;
	}
	t->raw_ns_per_switch = ns / (double)bb->o.switches;
	ns = filtered_ns(bb, bb->lap_ns, &t->preempted_laps);
	if (ns < 0) {
		return -ENOMEM;
	}
	t->ns_per_switch = ns / (double)bb->o.switches;
	ns = filtered_ns(bb, bb->floor_ns, &outliers);
	if (ns < 0) {
		return -ENOMEM;
	}
	t->floor_ns = ns / (double)bb->o.switches;
	/* deterministic and short: the best of three (after a warm-up) */
	time_memset(bb);
	for (unsigned i = 0; i < 3; i++) {
		double m = time_memset(bb);

		best = i == 0 || m < best ? m : best;
	}
	t->memset_ns = best / (double)bb->o.switches;
	return 0;
}

void ccswap_bench_single(struct ccswap_bench *bb, bool on)
{
	bb->o.single = on;
}

void ccswap_bench_print_mix(FILE *f, const struct ccswap_bench_mix *mix)
{
	static const char *const forms[4] = {"idle_short", "idle", "lite", "full"};
	static const char *const why[PRODUCER_FLUSH_REASONS] = {"tid_full", "ticks", "size",
								"delta",    "stop",  "end"};
	double n = (double)mix->switches;

	fprintf(f, "switches %llu, batches %llu, %.3f bytes/switch, output xxh3 %016llx\n",
		(unsigned long long)mix->switches, (unsigned long long)mix->batches,
		(double)mix->out_bytes / n, (unsigned long long)mix->xxh3);
	fprintf(f, "forms:  ");
	for (unsigned i = 0; i < 4; i++) {
		fprintf(f, " %s %.1f%%", forms[i], 100.0 * (double)mix->forms[i] / n);
	}
	fprintf(f, "\nflushes:");
	for (unsigned i = 0; i < PRODUCER_FLUSH_REASONS; i++) {
		fprintf(f, " %s %llu", why[i], (unsigned long long)mix->reasons[i]);
	}
	fprintf(f, "\n");
}
