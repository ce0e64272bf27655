// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_sched.c - the schedule of a file, one pass in time order (see
 * dump_sched.h). Per CPU it keeps the thread that runs now and the batch
 * being read:
 *
 *   switch at t (old -> new)     slice(running since t0, t0..t), then new
 *                                runs from t (not known after a CPU's
 *                                last compact switch: a slice of an
 *                                unknown thread)
 *   first switch of batch k+1    flush(batch k, at t): the evidence of
 *                                dump_infer.c - batch k's TidTable, record
 *                                bytes, first and last switch - and the
 *                                flushing switch (this one)
 *   end of the file              the last slices end at the end of
 *                                tracing; each CPU's last batch flushed at
 *                                its header TS (the end, or a switch whose
 *                                batch was not written)
 *
 * The thread running before a CPU's first switch is that switch's old
 * thread, drawn from the start of tracing (@opened false).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dump_sched.h"

#define NS_PER_S	 1000000000ull
#define FILETIME_NS	 100 /* one FILETIME unit */
#define END_TOLERANCE_NS 100 /* EndTime is a FILETIME: 100 ns steps */

/* One CPU's state during the walk. */
struct cpu_walk {
	bool seen;	 /* a switch of this CPU was met: a slice runs since @t0 */
	bool known;	 /* @tid is known */
	uint32_t tid;	 /* the thread running now */
	int64_t t0;	 /* since when */
	bool opened;	 /* a switch put it there */
	bool batch;	 /* a compact batch was met: the fields below describe it */
	uint64_t number; /* its number on the CPU */
	uint64_t first_ts;
	uint64_t last_ts; /* its last switch so far (clock units) */
	uint64_t header_ts;
	unsigned tids;
	uint32_t table[16];
	uint64_t record_bytes;
};

struct walk {
	const struct sched_frame *fr;
	const struct sched_consumer *cons;
	unsigned ncons;
	struct sched_totals *tot;
	struct cpu_walk *cpu;
	struct wake_pairing wakes;
	bool nomem;
};

int64_t sched_ns(const struct sched_frame *fr, uint64_t ts)
{
	uint64_t start = fr->info->start_ts;
	uint64_t d = ts >= start ? ts - start : start - ts;
	uint64_t q = d / fr->hz, r = d % fr->hz;
	/*
	 * q * 10^9 + r * 10^9 / hz, exact while r * 10^9 fits (hz below 1.8e10,
	 * every real clock); a damaged file's faster clock is rounded down
	 */
	uint64_t r_ns =
		r <= UINT64_MAX / NS_PER_S ? r * NS_PER_S / fr->hz : r / (fr->hz / NS_PER_S);
	uint64_t ns =
		q > (uint64_t)INT64_MAX / NS_PER_S ? (uint64_t)INT64_MAX : q * NS_PER_S + r_ns;

	if (ns > (uint64_t)INT64_MAX) {
		ns = (uint64_t)INT64_MAX;
	}
	return ts >= start ? (int64_t)ns : -(int64_t)ns;
}

/* The end of tracing when EndTime does not say it: the latest buffer. */
static int64_t last_buffer_ns(struct etwforge_file *f, const struct sched_frame *fr)
{
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_BUFFER, NULL);
	const struct etwforge_event *ev;
	int64_t end = 0;

	while (it && etwforge_iter_next(it, &ev, NULL) == 1) {
		if (ev->u.buffer.index > 0 && ev->u.buffer.timestamp > 0) {
			int64_t t = sched_ns(fr, (uint64_t)ev->u.buffer.timestamp);

			end = t > end ? t : end;
		}
	}
	etwforge_iter_free(it);
	return end;
}

/*
 * The sampling parameters the spin locks were logged with: the file's
 * configuration rundown (0x0F4B, CPU 0's first record) when it has one,
 * else the kernel's defaults.
 */
static void spin_params(struct etwforge_file *f, struct etwforge_spinlock_config *c)
{
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_RECORD, NULL);
	const struct etwforge_event *ev;

	c->spin_threshold = INFER_SPIN_THRESHOLD;
	c->contention_sample_rate = 1;
	c->acquire_sample_rate = 1000;
	c->hold_threshold = INFER_HOLD_THRESHOLD;
	if (it && etwforge_iter_next(it, &ev, NULL) == 1 &&
	    ev->rec->decoded == ETWFORGE_PAYLOAD_SPINLOCK_CONFIG) {
		*c = ev->rec->u.spinlock_config;
	}
	etwforge_iter_free(it);
}

int sched_frame_init(struct sched_frame *fr, struct etwforge_file *f, int64_t from_ns,
		     int64_t to_ns, const uint8_t *cpu_mask, unsigned *bad_cpu)
{
	const struct etwforge_file_info *in = etwforge_file_info(f);
	unsigned ncpu = in->cpus < SCHED_MAX_CPUS ? in->cpus : SCHED_MAX_CPUS;

	memset(fr, 0, sizeof(*fr));
	fr->info = in;
	switch (in->clock_type) {
	case 2: /* system time: 100 ns units */
		fr->hz = NS_PER_S / FILETIME_NS;
		break;
	case 3: /* CPU cycles */
		fr->hz = (uint64_t)in->cpu_mhz * 1000000u;
		break;
	default: /* QPC, and what the reader did not recognise */
		fr->hz = in->perf_freq > 0 ? (uint64_t)in->perf_freq : 0;
		break;
	}
	if (fr->hz == 0) {
		fr->hz = NS_PER_S / FILETIME_NS;
	}
	fr->tick_ns = (uint64_t)in->timer_resolution * FILETIME_NS;
	spin_params(f, &fr->spin);
	fr->from_ns = from_ns;
	fr->to_ns = to_ns;
	if (in->end_time > in->start_time) {
		/* the difference of two int64 is exact in uint64; saturate, as sched_ns() */
		uint64_t d = (uint64_t)in->end_time - (uint64_t)in->start_time;

		fr->end_ns = d > (uint64_t)INT64_MAX / FILETIME_NS ? INT64_MAX
								   : (int64_t)(d * FILETIME_NS);
	} else {
		fr->end_ns = last_buffer_ns(f, fr);
	}
	if (cpu_mask) {
		for (unsigned c = ncpu; c < SCHED_MAX_CPUS; c++) {
			if (cpu_mask[c / 8] & (1u << (c % 8))) {
				*bad_cpu = c;
				return -ERANGE;
			}
		}
	}
	fr->lane_cpu = calloc(ncpu ? ncpu : 1, sizeof(*fr->lane_cpu));
	fr->cpu_lane = calloc(ncpu ? ncpu : 1, sizeof(*fr->cpu_lane));
	if (!fr->lane_cpu || !fr->cpu_lane) {
		sched_frame_finish(fr);
		return -ENOMEM;
	}
	for (unsigned c = 0; c < ncpu; c++) {
		if (!cpu_mask || (cpu_mask[c / 8] & (1u << (c % 8)))) {
			fr->cpu_lane[c] = (int)fr->nlanes;
			fr->lane_cpu[fr->nlanes++] = c;
		} else {
			fr->cpu_lane[c] = -1;
		}
	}
	return 0;
}

void sched_frame_finish(struct sched_frame *fr)
{
	free(fr->lane_cpu);
	free(fr->cpu_lane);
	fr->lane_cpu = NULL;
	fr->cpu_lane = NULL;
}

/* @a - @b, or 0 when @a is before @b (a clock that went back). */
static uint64_t since(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)(a - b) : 0;
}

static uint64_t since_ts(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static bool in_window(const struct sched_frame *fr, int64_t t)
{
	return t >= fr->from_ns && t <= fr->to_ns;
}

/* The slice of @cw's running thread up to @t1, clipped, to every consumer. */
static void emit_slice(struct walk *w, unsigned cpu, int64_t t1)
{
	struct cpu_walk *cw = &w->cpu[cpu];
	struct sched_slice s = {
		.lane = (unsigned)w->fr->cpu_lane[cpu],
		.cpu = cpu,
		.t0 = cw->t0 > w->fr->from_ns ? cw->t0 : w->fr->from_ns,
		.t1 = t1 < w->fr->to_ns ? t1 : w->fr->to_ns,
		.tid = cw->tid,
		.known = cw->known,
		.opened = cw->opened,
	};

	if (t1 < w->fr->from_ns || cw->t0 > w->fr->to_ns || s.t1 < s.t0) {
		return;
	}
	w->tot->slices++;
	for (unsigned i = 0; i < w->ncons; i++) {
		if (w->cons[i].ops->slice) {
			w->cons[i].ops->slice(w->cons[i].ctx, &s);
		}
	}
}

static void emit_flush(struct walk *w, unsigned cpu, int64_t t, enum flush_reason why)
{
	const struct cpu_walk *cw = &w->cpu[cpu];
	struct sched_flush fl = {
		.lane = (unsigned)w->fr->cpu_lane[cpu],
		.cpu = cpu,
		.t = t,
		.reason = why,
		.batch = cw->number,
		.tids = cw->tids,
		.record_bytes = cw->record_bytes,
	};

	if (!in_window(w->fr, t)) {
		return;
	}
	w->tot->flushes[why]++;
	for (unsigned i = 0; i < w->ncons; i++) {
		if (w->cons[i].ops->flush) {
			w->cons[i].ops->flush(w->cons[i].ctx, &fl);
		}
	}
}

static void on_spin(struct walk *w, const struct etwforge_event *ev, int64_t t)
{
	struct sched_spin sp = {
		.lane = (unsigned)w->fr->cpu_lane[ev->cpu],
		.cpu = ev->cpu,
		.t = t,
		.kind = infer_spin(&ev->u.spinlock, &w->fr->spin),
		.lock = &ev->u.spinlock,
	};

	if (!in_window(w->fr, t)) {
		return;
	}
	w->tot->spins[sp.kind]++;
	for (unsigned i = 0; i < w->ncons; i++) {
		if (w->cons[i].ops->spin) {
			w->cons[i].ops->spin(w->cons[i].ctx, &sp);
		}
	}
}

/* The first switch of a batch: the batch before it was flushed here. */
static void on_batch_start(struct walk *w, const struct etwforge_event *ev, int64_t t)
{
	struct cpu_walk *cw = &w->cpu[ev->cpu];
	const struct etwforge_compact *c = &ev->u.compact;
	const struct etwforge_batch *b = &ev->rec->u.batch;

	if (cw->batch) {
		struct flush_evidence e = {
			.flusher_known = c->batch == cw->number + 1,
			.flusher_old_tid = c->old_tid,
			.tids = cw->tids,
			.tid_table = cw->table,
			.record_bytes = cw->record_bytes,
			.delta = since_ts(ev->ts, cw->last_ts),
			.span_ns = since(t, sched_ns(w->fr, cw->first_ts)),
			.tick_ns = w->fr->tick_ns,
		};
		/* a batch skipped as damaged between them: the evidence is gone */
		emit_flush(w, ev->cpu, t, e.flusher_known ? infer_flush(&e) : FLUSH_UNKNOWN);
	}
	cw->batch = true;
	cw->number = c->batch;
	cw->first_ts = (uint64_t)b->first_ts;
	cw->header_ts = ev->rec->ts;
	cw->tids = b->tids;
	memcpy(cw->table, b->tid_table, sizeof(cw->table));
	cw->record_bytes = b->record_bytes;
}

/* A ReadyThread: pending until the readied thread's next switch-in. */
static void on_ready(struct walk *w, const struct etwforge_event *ev, int64_t t)
{
	if (wake_ready(&w->wakes, ev->u.ready.tid, ev->rec->tid, ev->cpu, t) < 0) {
		w->nomem = true;
	}
}

/* Thread @tid switched in on @cpu at @t: the wake-up of its pending ReadyThread, if any. */
static void emit_wake(struct walk *w, uint32_t tid, unsigned cpu, int64_t t)
{
	struct sched_wake wk;
	unsigned ncpu = w->fr->info->cpus < SCHED_MAX_CPUS ? w->fr->info->cpus : SCHED_MAX_CPUS;

	if (tid == 0 || !wake_switch_in(&w->wakes, tid, cpu, t, &wk) || wk.t_run < w->fr->from_ns ||
	    wk.t_ready > w->fr->to_ns) {
		return;
	}
	wk.from_lane = wk.from_cpu < ncpu ? w->fr->cpu_lane[wk.from_cpu] : -1;
	wk.to_lane = w->fr->cpu_lane[cpu];
	w->tot->wakes++;
	for (unsigned i = 0; i < w->ncons; i++) {
		if (w->cons[i].ops->wake) {
			w->cons[i].ops->wake(w->cons[i].ctx, &wk);
		}
	}
}

/* A switch on a CPU not shown: its new thread's pending ReadyThread is spent all the same. */
static void forget_wake(struct walk *w, const struct etwforge_event *ev, int64_t t)
{
	struct sched_wake wk;

	if (ev->kind == ETWFORGE_EV_CSWITCH) {
		wake_switch_in(&w->wakes, ev->u.cswitch.new_tid, ev->cpu, t, &wk);
	} else if (ev->kind == ETWFORGE_EV_COMPACT && ev->u.compact.new_tid_known) {
		wake_switch_in(&w->wakes, ev->u.compact.new_tid, ev->cpu, t, &wk);
	}
}

static void on_switch(struct walk *w, const struct etwforge_event *ev, int64_t t)
{
	struct cpu_walk *cw = &w->cpu[ev->cpu];
	bool compact = ev->kind == ETWFORGE_EV_COMPACT;
	uint32_t old_tid = compact ? ev->u.compact.old_tid : ev->u.cswitch.old_tid;

	if (in_window(w->fr, t)) {
		w->tot->switches++;
		w->tot->compact += compact;
	}
	if (!cw->seen) {
		/* what ran before the CPU's first switch: its old thread, since the start */
		cw->seen = true;
		cw->known = true;
		cw->tid = old_tid;
		cw->t0 = 0;
		cw->opened = false;
	} else {
		emit_slice(w, ev->cpu, t);
		if (!cw->known) {
			/* a "lite" record did not name the thread it switched in: this one's
			 * old thread is it, switched in at t0 */
			emit_wake(w, old_tid, ev->cpu, cw->t0);
		}
	}
	if (compact) {
		if (ev->u.compact.batch_first) {
			on_batch_start(w, ev, t);
		}
		cw->last_ts = ev->ts;
		cw->known = ev->u.compact.new_tid_known;
		cw->tid = ev->u.compact.new_tid;
	} else {
		cw->known = true;
		cw->tid = ev->u.cswitch.new_tid;
	}
	if (cw->known) {
		emit_wake(w, cw->tid, ev->cpu, t);
	}
	cw->t0 = t;
	cw->opened = true;
}

/* After the last event: close each CPU's slice and its last batch. */
static void finish(struct walk *w)
{
	const struct sched_frame *fr = w->fr;
	int64_t end = fr->end_ns > w->tot->last_ns ? fr->end_ns : w->tot->last_ns;

	for (unsigned c = 0; c < fr->info->cpus && c < SCHED_MAX_CPUS; c++) {
		struct cpu_walk *cw = &w->cpu[c];

		if (fr->cpu_lane[c] < 0) {
			continue;
		}
		if (cw->seen) {
			emit_slice(w, c, end);
		}
		if (cw->batch) {
			int64_t t = sched_ns(fr, cw->header_ts);
			struct flush_evidence e = {
				.tids = cw->tids,
				.tid_table = cw->table,
				.record_bytes = cw->record_bytes,
				.delta = since_ts(cw->header_ts, cw->last_ts),
				.span_ns = since(t, sched_ns(fr, cw->first_ts)),
				.tick_ns = fr->tick_ns,
				/* no switch flushed it: the end of tracing did, if at the end */
				.at_end = fr->end_ns <= 0 || t >= fr->end_ns - END_TOLERANCE_NS,
			};
			emit_flush(w, c, t, infer_flush(&e));
		}
	}
}

int sched_walk(struct etwforge_file *f, const struct sched_frame *fr,
	       const struct sched_consumer *cons, unsigned ncons, bool keep_going,
	       struct sched_totals *tot, struct etwforge_error *err)
{
	struct walk w = {.fr = fr, .cons = cons, .ncons = ncons, .tot = tot};
	unsigned ncpu = fr->info->cpus < SCHED_MAX_CPUS ? fr->info->cpus : SCHED_MAX_CPUS;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	int rc;

	memset(tot, 0, sizeof(*tot));
	w.cpu = calloc(ncpu ? ncpu : 1, sizeof(*w.cpu));
	if (!w.cpu) {
		return -ENOMEM;
	}
	it = etwforge_iter_new(f, ETWFORGE_ORDER_TIME,
			       ETWFORGE_EV_SWITCHES | ETWFORGE_EV_SPINLOCK | ETWFORGE_EV_READY,
			       err);
	if (!it) {
		free(w.cpu);
		return -errno;
	}
	while ((rc = etwforge_iter_next(it, &ev, err)) != 0) {
		int64_t t;

		if (rc < 0) {
			if (!keep_going) {
				break;
			}
			tot->damaged++;
			continue;
		}
		t = sched_ns(fr, ev->ts);
		tot->last_ns = t > tot->last_ns ? t : tot->last_ns;
		if (ev->kind == ETWFORGE_EV_READY) {
			on_ready(&w, ev, t); /* from any CPU: its thread may run on one shown */
			continue;
		}
		if (ev->cpu >= ncpu || fr->cpu_lane[ev->cpu] < 0) {
			forget_wake(&w, ev, t); /* run on a CPU not shown: not a later wake-up */
			continue;
		}
		if (ev->kind == ETWFORGE_EV_SPINLOCK) {
			on_spin(&w, ev, t);
		} else {
			on_switch(&w, ev, t);
		}
	}
	etwforge_iter_free(it);
	if (rc == 0) {
		finish(&w);
	}
	free(w.cpu);
	wake_pairing_free(&w.wakes);
	if (w.nomem) {
		return -ENOMEM;
	}
	return rc < 0 ? rc : 0;
}
