// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_spinlock.c - (c) of `etwforge bench`: SpinLock 0x0529
 * events through the producer. Pre-built releases (struct sim_spinlock, all
 * logged) of a seeded stream - 8 CPUs, 64 locks, 15 % contended, every
 * acquire mode, DPCs and ISRs - go through producer_spinlock() into the
 * in-memory buffers of bench_backend.c, one session (x64, cycle clock), in
 * laps of a window generated outside the timed region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/producer.h"
#include "scheduler_model/sim_rng.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_backend.h"

#define CPUS	    8u
#define LOCKS	    64u
#define WINDOW	    4096u
#define BUFFER_SIZE 65536u
#define SEED	    1u

struct spin_stream {
	struct sim_rng rng;
	uint64_t ts[CPUS]; /* each CPU's cycle clock */
	struct sim_spinlock *win;
	uint64_t contended; /* releases with SpinCount > 0 so far */
	uint64_t modes[5];  /* releases by AcquireMode so far */
};

static void stream_reset(struct spin_stream *s)
{
	sim_rng_init(&s->rng, SEED, 0x7370696eu /* "spin" */, 0);
	for (unsigned c = 0; c < CPUS; c++) {
		s->ts[c] = 9000000000ull + sim_rng_below(&s->rng, 1000000);
	}
	s->contended = 0;
	memset(s->modes, 0, sizeof(s->modes));
}

static void stream_next(struct spin_stream *s, unsigned n)
{
	struct sim_rng *r = &s->rng;

	for (unsigned i = 0; i < n; i++) {
		struct sim_spinlock *sl = &s->win[i];
		unsigned c = (unsigned)sim_rng_below(r, CPUS);
		unsigned k = (unsigned)sim_rng_below(r, LOCKS);
		uint64_t hold = 200 + sim_rng_below(r, 4000);
		uint32_t spin =
			sim_rng_below(r, 100) < 15 ? 1 + (uint32_t)sim_rng_below(r, 400) : 0;

		memset(sl, 0, sizeof(*sl));
		s->ts[c] += 500 + sim_rng_below(r, 20000);
		sl->cpu = c;
		sl->tick = (uint32_t)(s->ts[c] / 46875000u);
		sl->ts[SIM_CLOCK_CYCLES] = s->ts[c];
		sl->release_time = s->ts[c];
		sl->acquire_time = s->ts[c] - hold;
		sl->lock = 0xFFFFF80312000000ull + k * 64u;
		sl->caller = 0xFFFFF80312400000ull + k * 0x40u + sim_rng_below(r, 4) * 0x10u;
		sl->spin_count = spin;
		sl->wait_cycles =
			spin ? spin * 140u + sim_rng_below(r, 140) : 20 + sim_rng_below(r, 40);
		sl->tid = 4096 + 4 * (uint32_t)sim_rng_below(r, 64);
		sl->interrupt_count = (uint32_t)sim_rng_below(r, 3);
		sl->isr = sim_rng_below(r, 100) < 5;
		sl->dpc = !sl->isr && sim_rng_below(r, 100) < 30;
		sl->irql = sl->isr ? 8 : 2;
		sl->depth = (uint8_t)sim_rng_below(r, 3);
		sl->mode = (uint8_t)sim_rng_below(r, 5);
		sl->logged = true;
		sl->why = spin ? SIM_SPIN_CONTENDED : SIM_SPIN_ACQUIRE_SAMPLE;
		s->contended += spin != 0;
		s->modes[sl->mode]++;
	}
}

static int run_pass(struct spin_stream *st, struct bench_backend *bk, uint64_t events,
		    float *lap_ns, bool check, struct bench_pass *out)
{
	struct producer_cfg cfg;
	struct producer *p;
	uint64_t left = events, nlaps = 0;
	int bad = 0;

	bench_backend_producer_cfg(&cfg, bk, CPUS, PRODUCER_F_SPINLOCK);
	p = bench_backend_pass_begin(bk, &cfg, check);
	if (!p) {
		return -errno;
	}
	stream_reset(st);
	while (left && !bad) {
		unsigned n = left < WINDOW ? (unsigned)left : WINDOW;
		double t0, t1;

		stream_next(st, n);
		t0 = bench_wall_ns();
		for (unsigned i = 0; i < n; i++) {
			bad |= producer_spinlock(p, &st->win[i]);
		}
		t1 = bench_wall_ns();
		lap_ns[nlaps++] = (float)((t1 - t0) / n);
		left -= n;
	}
	return bench_backend_pass_end(bk, p, bad, lap_ns, nlaps, events, WINDOW, out);
}

static void describe(struct bench *b, const struct spin_stream *st, uint64_t events,
		     const struct bench_pass *check)
{
	static const char *const mode_key[5] = {"ordinary", "queued", "shared", "exclusive",
						"converted"};
	struct bench_work *w = bench_work_add(
		b, "spinlock",
		"producer_spinlock(), one session (x64, cycle clock) into in-memory %u KiB "
		"buffers; seeded releases: %u CPUs, %u locks, every one logged",
		BUFFER_SIZE / 1024, CPUS, LOCKS);

	bench_kv_u64(w, "seed", SEED, 0);
	bench_kv_u64(w, "events", events, 0);
	bench_kv_u64(w, "contended", st->contended, events);
	for (unsigned m = 0; m < 5; m++) {
		bench_kv_u64(w, mode_key[m], st->modes[m], events);
	}
	bench_kv_u64(w, "bytes", check->bytes, 0);
	bench_kv_hex(w, "xxh3", check->xxh3);
}

int bench_spinlock(struct bench *b, const struct bench_size *sz, struct etwforge_error *err)
{
	uint64_t events = sz->spinlock_events;
	double ns[BENCH_MAX_RUNS];
	struct spin_stream st = {0};
	struct bench_backend bk;
	struct bench_pass check;
	float *lap_ns;
	int rc;

	bench_progress(b, "spinlock: SpinLock events through the producer");
	st.win = calloc(WINDOW, sizeof(*st.win));
	lap_ns = calloc((size_t)(events / WINDOW + 1), sizeof(*lap_ns));
	if (!st.win || !lap_ns || bench_backend_init(&bk, CPUS, BUFFER_SIZE) < 0) {
		free(st.win);
		free(lap_ns);
		return error_fail(err, -ENOMEM, ERR_DATA, "spinlock: %s", strerror(ENOMEM));
	}
	rc = run_pass(&st, &bk, events, lap_ns, true, &check);
	if (rc == 0 && check.events != events) {
		rc = -EIO;
	}
	if (rc == 0) {
		describe(b, &st, events, &check);
	}
	for (unsigned r = 0; r < sz->runs && rc == 0; r++) {
		struct bench_pass t = {0};

		rc = run_pass(&st, &bk, events, lap_ns, false, &t);
		if (rc == 0 && (t.events != check.events || t.bytes != check.bytes)) {
			rc = -EIO;
		}
		ns[r] = t.ns / (double)events;
	}
	bench_backend_free(&bk);
	free(st.win);
	free(lap_ns);
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "spinlock: %s%s", strerror(-rc),
				  rc == -EIO ? " (a pass wrote other events than the check pass)"
					     : "");
	}
	bench_figure(b, "spinlock.ns_per_event", "SpinLock 0x0529 through the producer", "ns/event",
		     ns, sz->runs);
	return 0;
}
