// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/pass.c - the full pass: a file's events in time order
 * (the read room's ETWFORGE_ORDER_TIME), what runs on each CPU, and the
 * sums and items of state.h. Per CPU:
 *
 *   switch at ts (old -> new)   the slice of the running thread ends
 *                               (t0..ts): CPU time, a burst; the old
 *                               thread is out (its wait starts, its
 *                               state and wait reason counted); the new
 *                               one is in (its wait ends, its waiting
 *                               ReadyThreads become wake-ups); a
 *                               compact switch's new thread is the next
 *                               switch's old one, unknown after the CPU's
 *                               last (its time is unknown time)
 *   first switch of batch k+1   batch k was flushed here: why, from its
 *                               TidTable, size, span and this switch
 *   ReadyThread                 waits for the thread's next switch-in
 *   the end                     the last slices end at the end of
 *                               tracing; each CPU's last batch flushed at
 *                               its header time
 *
 * The thread running before a CPU's first switch is that switch's old
 * thread, since the session start. Sums are in clock units; each event
 * queues the items it closes, handed out before the next event is read.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/state.h"
#include "tools/lib/analysis/infer.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/grow.h"
#include "tools/lib/read/read.h"

#define STATE_READY	 1   /* KTHREAD_STATE Ready: preempted, or its quantum ended */
#define STATE_WAITING	 5   /* KTHREAD_STATE Waiting: the wait reason means something */
#define END_TOLERANCE_NS 100 /* EndTime is a FILETIME: 100 ns steps */

/* The events the pass reads. */
#define PASS_KINDS                                                                                 \
	(ETWFORGE_EV_SWITCHES | ETWFORGE_EV_SPINLOCK | ETWFORGE_EV_READY | ETWFORGE_EV_SAMPLE |    \
	 ETWFORGE_EV_PROFILE_INTERVAL)

/* A new item of @kind at the queue's end (NULL: no memory). */
static struct etwforge_item *queue_new(struct etwforge_analysis *a, enum etwforge_item_kind kind)
{
	struct an_queued *q;

	q = grow_room(a->q, &a->qcap, a->qn, sizeof(*q), 64);
	if (!q) {
		a->nomem = true;
		return NULL;
	}
	a->q = q;
	q += a->qn++;
	memset(q, 0, sizeof(*q));
	q->item.kind = kind;
	q->item.thread = -1;
	q->item.waker_thread = -1;
	return &q->item;
}

/* A new item of @kind at the queue's end (NULL: not asked for, or no memory). */
static inline struct etwforge_item *queue(struct etwforge_analysis *a, enum etwforge_item_kind kind)
{
	return a->o.items & kind ? queue_new(a, kind) : NULL;
}

/* an_thread_of(), its row found last taken without a call when it covers @ts. */
static inline int64_t thread_of(struct etwforge_analysis *a, struct an_tid *e, uint32_t tid,
				uint64_t ts)
{
	const struct an_thread *th = e->hit >= 0 ? &a->id.threads[e->hit] : NULL;

	return th && ts >= th->lo && ts <= th->hi ? e->hit : an_thread_of(&a->id, e, tid, ts);
}

/* Does thread @th keep distributions (FULL), made now if not yet? */
static inline bool full(struct etwforge_analysis *a, struct an_thread *th)
{
	return a->id.full && (th->hist || an_thread_full(th) == 0);
}

static int64_t clip_ns(const struct etwforge_analysis *a, int64_t t)
{
	return t < a->from_ns ? a->from_ns : t > a->to_ns ? a->to_ns : t;
}

static void hist_add(const struct etwforge_analysis *a, uint64_t *h, uint64_t ticks)
{
	h[an_bucket(&a->clock, ticks)]++;
}

/* The slice of CPU @c's running thread ends at @ts; @end: the end of tracing. */
static void close_slice(struct etwforge_analysis *a, unsigned c, uint64_t ts, bool end)
{
	struct an_cpu *cw = &a->cpu[c];
	uint64_t lo = cw->t0 > a->from_ts ? cw->t0 : a->from_ts;
	uint64_t hi = ts < a->to_ts ? ts : a->to_ts;
	uint64_t dur = hi > lo ? hi - lo : 0;
	struct an_thread *th = cw->known && cw->row >= 0 ? &a->id.threads[cw->row] : NULL;
	struct etwforge_item *it;

	if (!cw->counted) {
		return;
	}
	if (!cw->known) {
		cw->unknown_t += dur;
	} else if (cw->tid == 0) {
		cw->idle_t += dur;
	} else {
		cw->busy_t += dur;
		if (th) {
			th->cpu_t += dur;
			an_thread_sums_add(a, th, dur, 0, 0);
		}
	}
	if (th && cw->opened && !end && an_in_window(a, ts)) {
		/* a burst: from a switch-in to a switch-out, both in the file */
		uint64_t b = ts > cw->t0 ? ts - cw->t0 : 0;

		th->pub.bursts++;
		th->max_burst_t = b > th->max_burst_t ? b : th->max_burst_t;
		if (full(a, th)) {
			hist_add(a, th->hist, b);
		}
	}
	if (ts >= a->from_ts && cw->t0 <= a->to_ts && (it = queue(a, ETWFORGE_ITEM_SLICE))) {
		it->cpu = c;
		it->t0 = clip_ns(a, an_ns(&a->clock, cw->t0));
		it->t1 = clip_ns(a, an_ns(&a->clock, ts));
		if (!cw->opened) {
			it->t0 = clip_ns(a, 0);
		}
		it->tid = cw->known ? cw->tid : 0;
		it->thread = th ? cw->row : -1;
		it->known = cw->known;
		it->opened = cw->opened;
	}
}

/* A wake-up of thread @tid (row @row), readied as @r, switched in on @c at @ts. */
static void wakeup(struct etwforge_analysis *a, unsigned c, uint32_t tid, int64_t row,
		   const struct wake_ready *r, uint64_t ts)
{
	uint64_t lat = ts > r->ts ? ts - r->ts : 0;
	struct etwforge_item *it;

	if (!an_counted(a, c) || !an_in_window(a, ts)) {
		return;
	}
	a->tot.wakeups++;
	if (row >= 0) {
		struct an_thread *th = &a->id.threads[row];

		th->pub.wakeups++;
		th->wake_t += lat;
		if (full(a, th)) {
			hist_add(a, th->hist + 2 * ETWFORGE_HIST_BUCKETS, lat);
		}
	}
	hist_add(a, a->wake_hist, lat);
	if ((it = queue(a, ETWFORGE_ITEM_WAKE))) {
		it->cpu = c;
		it->from_cpu = r->cpu;
		it->t0 = an_ns(&a->clock, r->ts);
		it->t1 = an_ns(&a->clock, ts);
		it->tid = tid;
		it->thread = row;
		it->waker = r->waker;
		it->waker_thread = r->waker ? an_thread_find(&a->id, r->waker, r->ts) : -1;
	}
}

/*
 * Thread @tid (row @row, its TID's @e) switched in on @c at @ts, with
 * priority @pri (-1: the record does not say).
 */
static void switch_in(struct etwforge_analysis *a, unsigned c, uint32_t tid, struct an_tid *e,
		      int64_t row, uint64_t ts, int pri)
{
	struct an_thread *th = &a->id.threads[row];
	const struct wake_ready *r;
	size_t n;
	bool count = an_counted(a, c) && an_in_window(a, ts);

	if (count) {
		a->tot.switch_ins++;
		*(th->named ? &a->tot.attributed : &a->tot.unattributed) += 1;
		th->ins++;
		an_thread_sums_add(a, th, 0, 1, 0);
	}
	if (th->out) {
		uint64_t w = ts > th->out_ts ? ts - th->out_ts : 0;

		th->out = false;
		if (count) {
			th->pub.waits++;
			th->wait_t += w;
			th->max_wait_t = w > th->max_wait_t ? w : th->max_wait_t;
			if (full(a, th)) {
				hist_add(a, th->hist + ETWFORGE_HIST_BUCKETS, w);
			}
		}
	}
	e->has_in = true;
	e->last_in = ts;
	e->last_cpu = c;
	if (!wake_waiting(&e->wakes)) {
		return;
	}
	wake_take(&e->wakes, ts, &r, &n);
	for (size_t i = 0; i < n; i++) {
		wakeup(a, c, tid, row, &r[i], ts);
	}
	if (n && count && pri >= 0 && th->base_pri >= 0) {
		a->boosts[pri - th->base_pri + (int)(AN_BOOSTS / 2)]++;
	}
}

/*
 * The old thread of a switch is out: its state and wait reason, when the
 * record says them (@plain: a CSwitch, which says the wait reason of every
 * state; a compact record says it only for a waiting thread).
 */
static void switch_out(struct etwforge_analysis *a, unsigned c, uint64_t ts, bool says, bool plain,
		       unsigned state, unsigned reason)
{
	struct an_cpu *cw = &a->cpu[c];
	struct an_thread *th;

	if (!cw->known || cw->row < 0) {
		return;
	}
	th = &a->id.threads[cw->row];
	th->out = true;
	th->out_ts = ts;
	if (says && an_counted(a, c) && an_in_window(a, ts) && full(a, th)) {
		th->states[state < AN_STATES ? state : AN_STATES - 1]++;
		if (state == STATE_WAITING) {
			th->reasons[reason < AN_REASONS ? reason : AN_REASONS - 1]++;
		}
		if (plain && state == STATE_READY) {
			a->ready_reasons[reason < AN_REASONS ? reason : AN_REASONS - 1]++;
		}
	}
}

static void emit_flush(struct etwforge_analysis *a, unsigned c, uint64_t ts,
		       enum etwforge_flush_seen why)
{
	const struct an_cpu *cw = &a->cpu[c];
	struct etwforge_item *it;

	if (!cw->counted || !an_in_window(a, ts)) {
		return;
	}
	a->tot.flushes++;
	if ((it = queue(a, ETWFORGE_ITEM_FLUSH))) {
		it->cpu = c;
		it->t0 = it->t1 = an_ns(&a->clock, ts);
		it->reason = why;
		it->batch = cw->number;
		it->tids = cw->tids;
		it->record_bytes = cw->record_bytes;
	}
}

static uint64_t since(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * struct pass_switch - a switch as the pass reads it: a public event's
 * (plain CSwitch or compact), or a raw compact switch's (read_switch).
 * @known:  its new thread is known (@new_tid); @pri -1: not said
 * @says:   the record says the old thread's state (and wait reason)
 * @batch/@batch_first/@rec: compact: its batch, and its record
 */
struct pass_switch {
	unsigned cpu;
	uint64_t ts;
	uint32_t old_tid, new_tid;
	bool known, compact, says, batch_first;
	unsigned form_code, state, reason;
	int pri;
	uint64_t batch;
	const struct etwforge_record *rec;
};

/* The first switch of a batch: the batch before it was flushed here. */
static void batch_start(struct etwforge_analysis *a, const struct pass_switch *sw)
{
	struct an_cpu *cw = &a->cpu[sw->cpu];
	const struct etwforge_batch *b = &sw->rec->u.batch;

	if (cw->batch) {
		struct flush_evidence e = {
			.flusher_known = sw->batch == cw->number + 1,
			.flusher_old_tid = sw->old_tid,
			.tids = cw->tids,
			.tid_table = cw->table,
			.record_bytes = cw->record_bytes,
			.delta = since(sw->ts, cw->last_ts),
			.span_ns = an_span_ns(&a->clock, since(sw->ts, cw->first_ts)),
			.tick_ns = a->clock.tick_ns,
		};
		/* a batch skipped as damaged between them: the evidence is gone */
		emit_flush(a, sw->cpu, sw->ts,
			   e.flusher_known ? infer_flush(&e) : ETWFORGE_FLUSH_UNKNOWN);
	}
	cw->batch = true;
	cw->number = sw->batch;
	cw->first_ts = (uint64_t)b->first_ts;
	cw->header_ts = sw->rec->ts;
	cw->tids = b->tids;
	memcpy(cw->table, b->tid_table, sizeof(cw->table));
	cw->record_bytes = b->record_bytes;
}

static inline void on_switch(struct etwforge_analysis *a, const struct pass_switch *sw)
{
	unsigned c = sw->cpu;
	struct an_cpu *cw = &a->cpu[c];
	bool compact = sw->compact;
	uint32_t old_tid = sw->old_tid;
	bool known = sw->known;
	uint32_t new_tid = sw->new_tid;
	uint64_t ts = sw->ts;

	a->any_switch = true;
	if (!cw->seen) {
		/* what ran before the CPU's first switch: its old thread, since the start */
		cw->seen = true;
		cw->known = true;
		cw->opened = false;
		cw->tid = old_tid;
		cw->t0 = ts < a->clock.start_ts ? ts : a->clock.start_ts;
		cw->row = old_tid ? an_thread_at(&a->id, old_tid, cw->t0) : -1;
	}
	close_slice(a, c, ts, false);
	switch_out(a, c, ts, sw->says, !compact, sw->state, sw->reason);
	if (cw->counted && an_in_window(a, ts)) {
		a->tot.switches++;
		a->tot.compact += compact;
		a->forms[sw->form_code & 3u] += compact;
		cw->pub.switches++;
	}
	cw->known = known;
	cw->tid = known ? new_tid : 0;
	cw->row = -1;
	if (known && new_tid) {
		struct an_tid *e = id_map_get(&a->id.tids, new_tid);

		e = e ? e : an_tid(&a->id, new_tid);
		cw->row = e ? thread_of(a, e, new_tid, ts) : -1;
		if (cw->row < 0) {
			a->nomem = true;
		} else {
			switch_in(a, c, new_tid, e, cw->row, ts, sw->pri);
		}
	}
	cw->t0 = ts;
	cw->opened = true;
	if (compact) {
		if (sw->batch_first) {
			batch_start(a, sw);
		}
		cw->last_ts = ts;
	}
}

/* A switch event (plain or compact) of the public iterator. */
static void on_switch_event(struct etwforge_analysis *a, const struct etwforge_event *ev)
{
	bool compact = ev->kind == ETWFORGE_EV_COMPACT;
	const struct etwforge_compact *cc = &ev->u.compact;
	const struct etwforge_cswitch *cs = &ev->u.cswitch;
	struct pass_switch sw = {
		.cpu = ev->cpu,
		.ts = ev->ts,
		.old_tid = compact ? cc->old_tid : cs->old_tid,
		.new_tid = compact ? cc->new_tid : cs->new_tid,
		.known = compact ? cc->new_tid_known : true,
		.compact = compact,
		/* the idle forms describe the idle thread; LITE and FULL the old thread */
		.says = !compact || cc->form_code >= 2,
		.batch_first = compact && cc->batch_first,
		.form_code = compact ? cc->form_code : 0,
		.state = compact ? cc->old_state : cs->old_state,
		.reason = compact ? cc->old_wait_reason : cs->old_wait_reason,
		.pri = compact || cs->new_pri < 0 ? -1 : (cs->new_pri & 31),
		.batch = compact ? cc->batch : 0,
		.rec = ev->rec,
	};

	on_switch(a, &sw);
}

/* A raw compact switch (read_iter_next_raw()): as on_switch_event() of its event. */
static void on_raw_switch(struct etwforge_analysis *a, const struct read_switch *r)
{
	struct pass_switch sw = {
		.cpu = r->cpu,
		.ts = r->ts,
		.old_tid = r->old_tid,
		.new_tid = r->new_tid,
		.known = r->new_tid_known,
		.compact = true,
		.says = r->form_code >= 2,
		.batch_first = r->batch_first,
		.form_code = r->form_code,
		.state = r->old_state,
		.reason = r->old_wait_reason,
		.pri = -1,
		.batch = r->batch,
		.rec = r->rec,
	};

	if (r->cpu < a->ncpu) {
		on_switch(a, &sw);
	}
}

static void on_ready(struct etwforge_analysis *a, const struct etwforge_event *ev)
{
	uint32_t tid = ev->u.ready.tid;
	struct wake_ready r = {.ts = ev->ts, .waker = ev->rec->tid, .cpu = ev->cpu};
	struct an_tid *e;

	if (an_counted(a, ev->cpu) && an_in_window(a, ev->ts)) {
		a->tot.readies++;
	}
	if (tid == 0) {
		return;
	}
	e = an_tid(&a->id, tid);
	if (!e) {
		a->nomem = true;
		return;
	}
	if (e->has_in && e->last_in == ev->ts) {
		/* its switch-in at this very time was met first: it is the one */
		wakeup(a, e->last_cpu, tid, an_thread_find(&a->id, tid, ev->ts), &r, ev->ts);
	} else if (wake_add(&e->wakes, &r) < 0) {
		a->nomem = true;
	}
}

static void on_sample(struct etwforge_analysis *a, const struct etwforge_event *ev)
{
	const struct etwforge_sample *s = &ev->u.sample;
	struct etwforge_item *it;
	int64_t row = -1, stack;
	uint32_t pid;

	if (!an_counted(a, ev->cpu) || !an_in_window(a, ev->ts)) {
		return;
	}
	a->tot.samples++;
	a->cpu[ev->cpu].pub.samples++;
	if (s->tid == 0) {
		a->tot.idle_samples++;
		a->cpu[ev->cpu].pub.idle_samples++;
		if (a->id.full && ip_counts_add(&a->idle_ips, s->ip) < 0) {
			a->nomem = true;
		}
	} else {
		row = an_thread_at(&a->id, s->tid, ev->ts);
		if (row < 0) {
			a->nomem = true;
		} else {
			struct an_thread *th = &a->id.threads[row];

			th->samples++;
			an_thread_sums_add(a, th, 0, 0, 1);
			a->tot.samples_attributed += th->named;
			if (a->id.full && ip_counts_add(&th->ips, s->ip) < 0) {
				a->nomem = true;
			}
		}
	}
	if (an_sample_seen(a, s->tid, row, s->ip, ev->ts, &pid, &stack) < 0) {
		a->nomem = true;
	}
	if ((it = queue(a, ETWFORGE_ITEM_SAMPLE))) {
		it->cpu = ev->cpu;
		it->t0 = it->t1 = an_ns(&a->clock, ev->ts);
		it->tid = s->tid;
		it->thread = row;
		it->ip = s->ip;
		it->stack = stack;
		it->pid = pid;
		/* its Flags byte: ExecutingDpc, ExecutingIsr, Priority << 3 */
		it->reason = (unsigned)s->dpc | (unsigned)s->isr << 1 |
			     (unsigned)(s->priority & 31u) << 3;
	}
}

static void on_spin(struct etwforge_analysis *a, const struct etwforge_event *ev)
{
	struct etwforge_item *it;

	if (!an_counted(a, ev->cpu) || !an_in_window(a, ev->ts)) {
		return;
	}
	a->tot.spins++;
	if ((it = queue(a, ETWFORGE_ITEM_SPIN))) {
		struct an_queued *q = &a->q[a->qn - 1];

		q->lock = ev->u.spinlock;
		it->lock = &q->lock;
		it->cpu = ev->cpu;
		it->t0 = it->t1 = an_ns(&a->clock, ev->ts);
		it->reason = infer_spin(&ev->u.spinlock, &a->spin);
	}
}

/* After the last event: close each CPU's slice and its last batch. */
static void finish(struct etwforge_analysis *a)
{
	for (unsigned c = 0; c < a->ncpu; c++) {
		struct an_cpu *cw = &a->cpu[c];

		if (cw->seen) {
			close_slice(a, c, a->clock.end_ts > cw->t0 ? a->clock.end_ts : cw->t0,
				    true);
		}
		if (cw->batch) {
			int64_t t = an_ns(&a->clock, cw->header_ts);
			struct flush_evidence e = {
				.tids = cw->tids,
				.tid_table = cw->table,
				.record_bytes = cw->record_bytes,
				.delta = since(cw->header_ts, cw->last_ts),
				.span_ns =
					an_span_ns(&a->clock, since(cw->header_ts, cw->first_ts)),
				.tick_ns = a->clock.tick_ns,
				/* no switch flushed it: the end of tracing did, if at the end */
				.at_end = a->clock.end_ns <= 0 ||
					  t >= a->clock.end_ns - END_TOLERANCE_NS,
			};
			emit_flush(a, c, cw->header_ts, infer_flush(&e));
		}
	}
}

/* One event into the sums and the queue. */
static void on_event(struct etwforge_analysis *a, const struct etwforge_event *ev)
{
	if (ev->cpu >= a->ncpu) {
		return; /* a CPU past the file's: the reader gives none */
	}
	switch (ev->kind) {
	case ETWFORGE_EV_CSWITCH:
	case ETWFORGE_EV_COMPACT:
		on_switch_event(a, ev);
		break;
	case ETWFORGE_EV_READY:
		on_ready(a, ev);
		break;
	case ETWFORGE_EV_SAMPLE:
		on_sample(a, ev);
		break;
	case ETWFORGE_EV_SPINLOCK:
		on_spin(a, ev);
		break;
	case ETWFORGE_EV_PROFILE_INTERVAL:
		if (ev->u.profile_interval.source == 0 && ev->u.profile_interval.new_interval) {
			a->interval_100ns = ev->u.profile_interval.new_interval;
		}
		break;
	default:
		break;
	}
}

int pass_next(struct etwforge_analysis *a, struct etwforge_error *err)
{
	const struct etwforge_event *ev;
	const struct read_switch *sw;
	int rc;

	if (a->ended) {
		return 0;
	}
	if (!a->it) {
		a->it = a->no_raw ? read_iter_new(a->f, ETWFORGE_ORDER_TIME, PASS_KINDS, err)
				  : read_iter_new_raw(a->f, PASS_KINDS, err);
		if (!a->it) {
			return -ENOMEM;
		}
	}
	while (a->qn == 0) {
		rc = read_iter_next_raw(a->it, &ev, &sw, err);
		if (rc == 0) {
			a->ended = true;
			finish(a);
			return a->nomem ? error_fail(err, -ENOMEM, ERR_DATA, "out of memory")
					: a->qn > 0;
		}
		if (rc < 0) {
			if (!a->o.keep_going) {
				return rc;
			}
			a->tot.damaged++;
			continue;
		}
		if (sw) {
			on_raw_switch(a, sw);
		} else {
			on_event(a, ev);
		}
		if (a->nomem) {
			return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		}
	}
	return 1;
}
