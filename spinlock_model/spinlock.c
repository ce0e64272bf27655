// SPDX-License-Identifier: MIT
/*
 * spinlock_model/spinlock.c - the spin-lock subsystem's machine (see
 * spinlock.h for what it simulates).
 *
 * Each CPU runs a stack of frames, the top one active:
 *
 *   FR_LOCK  one acquisition:  ACQUIRE --(timer)--> HOLD1 --> [NESTED:
 *            a child frame per nested family, one after the other] -->
 *            HOLD2 --(timer)--> release;  or ACQUIRE <-- SPIN (no timer:
 *            waiting in the lock's queue until its holder hands it over)
 *   FR_LOG   the logger writing a 0x0529 (SPIN_LOG_CYCLES): the kernel's
 *            re-entrancy guard is up, so a release inside it (an ISR's)
 *            is not logged
 *
 * Levels: a thread's section (started by an arrival while one of the
 * family's groups runs and the CPU has no lock work), a DPC (started when
 * the CPU has no frames; queued until then), an ISR (starts at once over a
 * timed frame below its IRQL, else pends). The core's ops->busy is "this
 * CPU has frames": its thread stays until the last one is gone, then
 * sched_cpu_release() lets postponed decisions happen.
 *
 * Events, in the model's own queue (sched_evq: ids 0..ncpu-1 the CPUs'
 * frame timers, ncpu..2ncpu-1 their next arrivals), one per core step: the
 * model arms the core with the earliest.
 *
 * The stall guard: only a frame timer (a hold or an acquisition running
 * out) can ever release a lock, so a CPU that spins while no CPU has a
 * timer armed spins for ever, and a lock left free with CPUs in its queue
 * is never handed over (hand_over() runs at releases only). Either is a
 * fault of the model, not a trace: the event that causes it ends the run
 * with -EDEADLK and spin_stall_describe() says what was stuck. A count of
 * the CPUs spinning, the size of the event queue and an O(1) test where a
 * lock changes hands keep it off the cost of an event.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/sched_evq.h"
#include "scheduler_model/sim_rng.h"
#include "spinlock_model/spinlock.h"
#include "spinlock_model/spinlock_internal.h"

#define NONE	   UINT32_MAX
#define NEVER	   UINT64_MAX
#define MAX_FRAMES 32 /* a chain of 12 + its log frame, at two levels, and room */

enum level { LV_THREAD = 0, LV_DPC = 1, LV_ISR = 2 };
enum frame_kind { FR_LOCK = 0, FR_LOG = 1 };
enum phase { PH_ACQUIRE = 0, PH_SPIN, PH_HOLD1, PH_NESTED, PH_HOLD2, PH_LOG };
enum site { SITE_THREAD = 0, SITE_DPC = 1, SITE_ISR = 2, SITE_NESTED = 3 };

struct frame {
	uint8_t kind;
	uint8_t phase;
	uint8_t mode;
	uint8_t level;
	uint8_t irql;
	uint8_t site;
	bool contended;
	bool tracked;
	uint16_t lock;
	uint16_t next_child;
	uint32_t inst;
	uint64_t t0_cyc;
	uint64_t acq_cyc;
	uint64_t hold2;	    /* ns of own work after the nested families */
	uint64_t left;	    /* a paused timed piece: ns still to run */
	uint32_t int_start; /* PRCB InterruptCount at the query */
};

struct cpu {
	struct frame fr[MAX_FRAMES];
	unsigned nfr;
	unsigned ntracked;   /* entries on the PRCB's 8-deep acquire stack */
	uint64_t timer;	     /* end of the top frame's timed piece (NEVER: none runs) */
	uint32_t acquires;   /* PRCB SpinLockAcquireCount */
	uint32_t contention; /* PRCB SpinLockContentionCount */
	uint32_t irqs;	     /* DPC and ISR arrivals (InterruptCount = ticks + these) */
	uint16_t dpcq[SPIN_DPC_QUEUE];
	unsigned dpc_head, ndpc;
	uint16_t isrq[SPIN_ISR_PENDING];
	unsigned isr_head, nisr;
	uint32_t wait_next; /* next CPU waiting on the lock this one spins on */
	uint32_t gap_carry; /* sixteenths of a ns carried between arrival gaps */
	struct sim_rng rng;
};

struct inst {
	uint32_t owner;	 /* CPU holding it exclusively, or NONE */
	uint32_t shared; /* shared holders */
	uint32_t head;	 /* waiting CPUs, in arrival order */
	uint32_t tail;
	uint32_t nwait;
	uint32_t nexcl; /* of them, exclusive ones */
};

struct spin {
	struct spin_cfg cfg;
	struct sched *s;
	int handle;
	unsigned ncpu;
	uint32_t mhz;
	struct cpu *cpu;
	struct inst *inst;
	uint32_t inst0[SPIN_MAX_LOCKS]; /* first instance of each family */
	uint8_t irql[SPIN_MAX_LOCKS];
	uint64_t rate_cum[SPIN_MAX_LOCKS];
	uint64_t rate_total;
	uint64_t gap16; /* mean arrival gap per CPU, sixteenths of a ns */
	uint64_t handoff_ns;
	uint64_t log_ns;
	uint64_t acq_min_ns, acq_max_ns;
	struct spin_lock_stats *st;
	struct sched_evq q;
	uint32_t nspin;	   /* CPUs in some lock's queue */
	uint32_t narr;	   /* arrivals queued between events: ncpu, or 0 without a rate */
	uint32_t lost;	   /* an instance left free with CPUs in its queue, or NONE */
	bool stalled;	   /* the run was stopped: stall_* say why */
	uint32_t stall_in; /* the instance the first stuck CPU spins on */
	uint64_t stall_t;  /* when */
};

/* ---- small helpers ---------------------------------------------------------- */

/* ns to run @cyc cycles at the CPU clock, at least 1 */
static uint64_t ns_of_cycles(const struct spin *sp, uint64_t cyc)
{
	uint64_t ns = (cyc * 1000u + sp->mhz - 1u) / sp->mhz;

	return ns ? ns : 1u;
}

static unsigned hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < 16u) {
		return (unsigned)v;
	}
	e = 63u - sim_clz64(v);
	return (e - 3u) * 16u + (unsigned)((v >> (e - 4u)) & 15u);
}

uint64_t spin_hist_quantile(const uint32_t hist[SPIN_HIST_BUCKETS], unsigned permille)
{
	uint64_t total = 0, need, seen = 0;

	for (unsigned b = 0; b < SPIN_HIST_BUCKETS; b++) {
		total += hist[b];
	}
	if (total == 0) {
		return 0;
	}
	need = (total * permille + 999u) / 1000u;
	for (unsigned b = 0; b < SPIN_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= need && seen) {
			unsigned e;

			if (b < 16u) {
				return b;
			}
			e = b / 16u + 3u;
			/* the bucket's largest value */
			return ((UINT64_C(16) + (b & 15u)) << (e - 4u)) +
			       ((UINT64_C(1) << (e - 4u)) - 1u);
		}
	}
	return 0;
}

static struct frame *top(struct cpu *c)
{
	return c->nfr ? &c->fr[c->nfr - 1u] : NULL;
}

/* The CPU's IRQL: the highest of its frames (PASSIVE_LEVEL without any). */
static unsigned cpu_irql(const struct cpu *c)
{
	unsigned q = 0;

	for (unsigned i = 0; i < c->nfr; i++) {
		q = c->fr[i].irql > q ? c->fr[i].irql : q;
	}
	return q;
}

static bool has_level(const struct cpu *c, enum level lv)
{
	for (unsigned i = 0; i < c->nfr; i++) {
		if (c->fr[i].kind == FR_LOCK && c->fr[i].level == lv) {
			return true;
		}
	}
	return false;
}

static bool guard_up(const struct cpu *c)
{
	for (unsigned i = 0; i < c->nfr; i++) {
		if (c->fr[i].kind == FR_LOG) {
			return true;
		}
	}
	return false;
}

static void set_timer(struct spin *sp, unsigned c, uint64_t t)
{
	sp->cpu[c].timer = t;
	sched_evq_set(&sp->q, c, t);
}

static void rearm(struct spin *sp)
{
	sched_model_arm(sp->s, sp->handle, sp->q.n ? sched_evq_top(&sp->q).t : SCHED_NEVER_NS);
}

/* PRCB InterruptCount now: every tick, plus the DPC and ISR arrivals. */
static uint32_t prcb_interrupts(const struct spin *sp, unsigned c)
{
	return (uint32_t)(sched_ticks_now(sp->s) + sp->cpu[c].irqs);
}

/* ---- hold times ------------------------------------------------------------- */

/* 2^(@x / 65536) * 65536 for @x < 65536: linear between the powers of two. */
static uint64_t exp2_frac(uint64_t x)
{
	return 65536u + x;
}

/*
 * A hold: exponential with mean hold_ns, or (hold_tail percent of the time)
 * roughly log-uniform between hold_ns and the tail's end.
 */
static uint64_t draw_hold(struct spin *sp, struct cpu *cpu, const struct spin_lock_cfg *l)
{
	uint64_t h;

	if (l->hold_tail_pct && sim_rng_below(&cpu->rng, 100) < l->hold_tail_pct) {
		uint64_t hi = l->hold_tail_max_ns ? l->hold_tail_max_ns : l->hold_ns * 100u;
		uint64_t ratio, span, e;
		unsigned whole;

		if (hi > UINT64_C(1000000000)) {
			hi = UINT64_C(1000000000);
		}
		ratio = hi / l->hold_ns;
		/* log2(ratio) in 16.16, roughly (the same linear fraction as sim_rng_exp) */
		whole = ratio ? 63u - sim_clz64(ratio) : 0;
		span = ((uint64_t)whole << 16) +
		       (whole ? (((ratio << (63u - whole)) >> 47) & 0xFFFFu) : 0);
		e = (span * sim_rng_below(&cpu->rng, 65536)) >> 16;
		h = ((l->hold_ns << (e >> 16)) * exp2_frac(e & 0xFFFFu)) >> 16;
		if (h > hi) {
			h = hi;
		}
	} else {
		h = sim_rng_exp_precise(&cpu->rng, l->hold_ns);
	}
	(void)sp;
	return h ? h : 1u;
}

/* ---- lock instances ------------------------------------------------------------ */

/*
 * Every mode but shared owns the lock alone. A converted acquisition (mode
 * 4) takes it shared and converts; the conversion fails while others share
 * it, and the caller then waits for it exclusively - so in the model it
 * waits and holds like an exclusive one, and is logged as mode 4.
 */
static bool wants_exclusive(uint8_t mode)
{
	return mode != SPIN_MODE_SHARED;
}

static void wait_push(struct spin *sp, struct inst *in, unsigned c, bool excl)
{
	sp->cpu[c].wait_next = NONE;
	if (in->tail == NONE) {
		in->head = c;
	} else {
		sp->cpu[in->tail].wait_next = c;
	}
	in->tail = c;
	in->nwait++;
	in->nexcl += excl;
	sp->nspin++;
}

/* Take waiting CPU @w, which follows @prev (NONE: it is the head), off @in's queue. */
static void unlink_waiter(struct spin *sp, struct inst *in, uint32_t prev, uint32_t w)
{
	if (prev == NONE) {
		in->head = sp->cpu[w].wait_next;
	} else {
		sp->cpu[prev].wait_next = sp->cpu[w].wait_next;
	}
	if (in->tail == w) {
		in->tail = prev;
	}
	in->nwait--;
	sp->nspin--;
}

static void wait_remove(struct spin *sp, struct inst *in, unsigned c, bool excl)
{
	uint32_t prev = NONE;

	for (uint32_t w = in->head; w != NONE; prev = w, w = sp->cpu[w].wait_next) {
		if (w == c) {
			unlink_waiter(sp, in, prev, w);
			in->nexcl -= excl;
			return;
		}
	}
}

/* The waiting frame of CPU @w (its top frame). */
static struct frame *waiter_frame(struct spin *sp, uint32_t w)
{
	return top(&sp->cpu[w]);
}

/* Hand @in to CPU @w: its acquisition completes after the handoff. */
static void grant(struct spin *sp, uint32_t w)
{
	struct frame *f = waiter_frame(sp, w);

	f->phase = PH_ACQUIRE;
	set_timer(sp, w, sched_now(sp->s) + sp->handoff_ns);
}

/*
 * Stall guard: a free instance with CPUs in its queue stays so for ever
 * (it is handed over at releases only). Called where that could arise: at
 * the end of a hand-over and when a CPU joins a queue. O(1).
 */
static void check_handed_over(struct spin *sp, const struct inst *in)
{
	if (in->owner == NONE && in->shared == 0 && in->nwait && sp->lost == NONE) {
		sp->lost = (uint32_t)(in - sp->inst);
	}
}

/* Give @in shared to waiting CPU @w. */
static void grant_shared(struct spin *sp, struct inst *in, uint32_t w)
{
	wait_remove(sp, in, w, false);
	in->shared++;
	grant(sp, w);
}

/*
 * @in was released (or lost a shared holder): give it to whoever may have
 * it now: when it is free, the next waiter (at random among them for an
 * ordinary spin lock, which is unfair; in arrival order for queued and
 * executive ones) if it wants it exclusively; else, as long as no one owns
 * it exclusively, every shared waiter at the head of the queue.
 *
 * A random pick can land on a shared waiter behind an exclusive head. An
 * ordinary lock is a race: when it comes free every spinner's next test
 * competes and one wins. A shared winner leaves the lock word saying
 * "shared, no exclusive owner", which the next poll of every other shared
 * spinner accepts: they get in with it (in queue order, each after its
 * own hand-off), while the exclusive ones spin on until the last sharer
 * leaves, as they do behind any shared holder. Granting the winner alone
 * would keep sharers spinning on a lock they may share; granting nobody
 * (as the model once did) left the lock free with its queue spinning.
 */
static void hand_over(struct spin *sp, struct inst *in)
{
	if (in->owner != NONE || in->nwait == 0) {
		return;
	}
	if (in->shared == 0) {
		uint32_t w = in->head;
		struct frame *f = waiter_frame(sp, w);

		if (f->mode == SPIN_MODE_ORDINARY && in->nwait > 1u) {
			uint64_t k = sim_rng_below(&sp->cpu[w].rng, in->nwait);

			while (k--) {
				w = sp->cpu[w].wait_next;
			}
			f = waiter_frame(sp, w);
		}
		if (wants_exclusive(f->mode)) {
			wait_remove(sp, in, w, true);
			in->owner = w;
			grant(sp, w);
			return;
		}
		if (w != in->head) {
			/* a shared waiter won the race: every shared waiter gets in */
			uint32_t prev = NONE, next;

			for (w = in->head; w != NONE; w = next) {
				next = sp->cpu[w].wait_next;
				if (wants_exclusive(waiter_frame(sp, w)->mode)) {
					prev = w;
					continue;
				}
				unlink_waiter(sp, in, prev, w);
				in->shared++;
				grant(sp, w);
			}
			return;
		}
	}
	while (in->nwait && !wants_exclusive(waiter_frame(sp, in->head)->mode)) {
		grant_shared(sp, in, in->head);
	}
	check_handed_over(sp, in);
}

/* ---- sections --------------------------------------------------------------------- */

static void cpu_idle_check(struct spin *sp, unsigned c);

static unsigned pick_instance(struct spin *sp, unsigned c, unsigned lock)
{
	const struct spin_lock_cfg *l = &sp->cfg.locks[lock];

	if (l->count == 1) {
		return sp->inst0[lock];
	}
	if (l->per_cpu) {
		return sp->inst0[lock] + c % l->count;
	}
	return sp->inst0[lock] + (unsigned)sim_rng_below(&sp->cpu[c].rng, l->count);
}

static uint8_t pick_mode(struct spin *sp, unsigned c, unsigned lock)
{
	const struct spin_lock_cfg *l = &sp->cfg.locks[lock];
	uint64_t sum = 0, k;
	unsigned m;

	for (m = 0; m < SPIN_MODES; m++) {
		sum += l->mode_weight[m];
	}
	if (sum == l->mode_weight[0]) {
		return SPIN_MODE_ORDINARY;
	}
	k = sim_rng_below(&sp->cpu[c].rng, sum);
	for (m = 0; m < SPIN_MODES - 1u && k >= l->mode_weight[m]; m++) {
		k -= l->mode_weight[m];
	}
	return (uint8_t)m;
}

/* Try to take the top frame's lock now: at once, or join its queue and spin. */
static void try_acquire(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);
	struct inst *in = &sp->inst[f->inst];
	uint64_t now = sched_now(sp->s);
	uint64_t cost = sim_rng_range(&cpu->rng, sp->acq_min_ns, sp->acq_max_ns);

	if (!wants_exclusive(f->mode)) {
		if (in->owner == NONE && in->nexcl == 0) {
			in->shared++;
			f->phase = PH_ACQUIRE;
			set_timer(sp, c, now + cost);
			return;
		}
		wait_push(sp, in, c, false);
	} else {
		if (in->owner == NONE && in->shared == 0 && in->nwait == 0) {
			in->owner = c;
			f->phase = PH_ACQUIRE;
			set_timer(sp, c, now + cost);
			return;
		}
		wait_push(sp, in, c, true);
	}
	f->phase = PH_SPIN;
	f->contended = true;
	set_timer(sp, c, NEVER);
	check_handed_over(sp, in);
}

/* Push a section of family @lock at @level and start its acquisition (the query). */
static void start_section(struct spin *sp, unsigned c, unsigned lock, enum level lv, enum site site)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f;
	unsigned irql = sp->irql[lock];

	if (cpu->nfr == MAX_FRAMES) {
		sp->st[lock].dropped++; /* cannot happen with checked chains; counted anyway */
		return;
	}
	if (lv == LV_ISR && irql < SPIN_DEVICE_IRQL) {
		irql = SPIN_DEVICE_IRQL;
	}
	if (cpu_irql(cpu) > irql) {
		irql = cpu_irql(cpu);
	}
	f = &cpu->fr[cpu->nfr++];
	memset(f, 0, sizeof(*f));
	f->kind = FR_LOCK;
	f->lock = (uint16_t)lock;
	f->level = (uint8_t)lv;
	f->site = (uint8_t)site;
	f->irql = (uint8_t)irql;
	f->mode = pick_mode(sp, c, lock);
	f->inst = pick_instance(sp, c, lock);
	f->t0_cyc = sched_now_cycles(sp->s);
	f->int_start = prcb_interrupts(sp, c);
	cpu->acquires++;
	try_acquire(sp, c);
}

/* The top frame's lock is ours (ACQUIRE's timer ran out). */
static void acquired(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);
	struct spin_lock_stats *st = &sp->st[f->lock];
	const struct spin_lock_cfg *l = &sp->cfg.locks[f->lock];
	uint64_t hold, now = sched_now(sp->s);

	f->acq_cyc = sched_now_cycles(sp->s);
	if (f->contended) {
		uint64_t wait = f->acq_cyc - f->t0_cyc;

		cpu->contention++;
		st->contended++;
		st->spin_cycles += wait;
		st->spin_hist[hist_bucket(wait)]++;
	}
	st->acquisitions++;
	if (cpu->ntracked < SPIN_STACK_DEPTH) {
		cpu->ntracked++;
		f->tracked = true;
	} else {
		st->untracked++;
	}
	hold = draw_hold(sp, cpu, l);
	f->hold2 = hold - hold / 2u;
	f->phase = PH_HOLD1;
	set_timer(sp, c, now + hold / 2u);
}

/*
 * Release the top frame's lock now: the record, the sampling, the handover.
 * *@logging: the logger's frame was pushed (it runs next).
 */
static int release(struct spin *sp, unsigned c, bool *logging)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);
	struct spin_lock_stats *st = &sp->st[f->lock];
	struct inst *in = &sp->inst[f->inst];
	struct sim_spinlock sl;
	struct sched_cpu_view v;
	bool dpc = has_level(cpu, LV_DPC), isr = has_level(cpu, LV_ISR);
	unsigned nesting = (unsigned)dpc + (unsigned)isr;
	uint8_t level = f->level;
	uint64_t rel = sched_now_cycles(sp->s);
	int rc = 0;

	memset(&sl, 0, sizeof(sl));
	sched_cpu_view(sp->s, c, &v);
	sl.cpu = c;
	sl.lock = spin_lock_address(&sp->cfg, f->lock, f->inst - sp->inst0[f->lock]);
	sl.caller = spin_caller_address(&sp->cfg, f->lock, f->site);
	sl.acquire_time = f->acq_cyc;
	sl.release_time = rel;
	sl.wait_cycles = f->acq_cyc - f->t0_cyc;
	sl.spin_count = 0;
	if (f->contended) {
		uint64_t spins = sl.wait_cycles / SPIN_CYCLES_PER_SPIN;

		sl.spin_count = spins == 0 ? 1u : spins > UINT32_MAX ? UINT32_MAX : (uint32_t)spins;
	}
	sl.tid = v.tid;
	sl.interrupt_count = prcb_interrupts(sp, c) - f->int_start;
	sl.irql = f->irql;
	sl.depth = (uint8_t)cpu->ntracked; /* including this lock */
	sl.mode = f->mode;
	/* KERNEL_FACTS 6.2: DPC at nesting level 1 with a DPC running, ISR at 1 without or >= 2 */
	sl.dpc = nesting == 1u && dpc;
	sl.isr = (nesting == 1u && !dpc) || nesting >= 2u;
	sl.acquire_count = cpu->acquires;
	sl.contention_count = cpu->contention;
	sl.name = sp->cfg.locks[f->lock].name;
	sl.untracked = !f->tracked;
	if (f->tracked) {
		cpu->ntracked--;
		if (guard_up(cpu)) {
			sl.guarded = true;
			st->guarded++;
		} else {
			struct spin_prcb prcb = {cpu->acquires, cpu->contention};

			sl.why = spin_sample(&sp->cfg.sampling, &prcb, sl.acquire_time,
					     sl.release_time, sl.spin_count);
			sl.logged = sl.why != SIM_SPIN_NONE;
		}
	}
	st->releases++;
	st->hold_cycles += rel - f->acq_cyc;
	st->hold_hist[hist_bucket(rel - f->acq_cyc)]++;
	st->logged[sl.why]++;
	if (sp->cfg.instrumented) {
		rc = sched_fire_spinlock(sp->s, &sl, sp->cfg.counters);
	}

	/* the lock goes back */
	if (!wants_exclusive(f->mode)) {
		in->shared--;
	} else {
		in->owner = NONE;
	}
	hand_over(sp, in);

	cpu->nfr--;
	set_timer(sp, c, NEVER);
	*logging = sl.logged && sp->cfg.instrumented;
	if (*logging) {
		/* the logger runs with the guard up; an ISR may come in meanwhile */
		struct frame *lg = &cpu->fr[cpu->nfr++];

		memset(lg, 0, sizeof(*lg));
		lg->kind = FR_LOG;
		lg->phase = PH_LOG;
		lg->irql = sl.irql; /* recorded before the IRQL is restored: the held one */
		lg->level = level;
		set_timer(sp, c, sched_now(sp->s) + sp->log_ns);
	}
	return rc;
}

/* Start the next pending interrupt work on @c if it may run now. */
static void run_pending(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);

	if (cpu->nisr && cpu_irql(cpu) < SPIN_DEVICE_IRQL &&
	    (!f || (f->phase != PH_SPIN && f->phase != PH_ACQUIRE && f->phase != PH_NESTED))) {
		unsigned lock = cpu->isrq[cpu->isr_head];

		cpu->isr_head = (cpu->isr_head + 1u) % SPIN_ISR_PENDING;
		cpu->nisr--;
		if (f && cpu->timer != NEVER) {
			/* pause the interrupted piece */
			f->left = cpu->timer - sched_now(sp->s);
		}
		set_timer(sp, c, NEVER);
		start_section(sp, c, lock, LV_ISR, SITE_ISR);
		return;
	}
	if (!cpu->nfr && cpu->ndpc) {
		unsigned lock = cpu->dpcq[cpu->dpc_head];

		cpu->dpc_head = (cpu->dpc_head + 1u) % SPIN_DPC_QUEUE;
		cpu->ndpc--;
		start_section(sp, c, lock, LV_DPC, SITE_DPC);
	}
}

/* The frame under a finished one continues: its next nested family, or its own work. */
static void resume(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);
	uint64_t now = sched_now(sp->s);

	if (!f) {
		run_pending(sp, c);
		cpu_idle_check(sp, c);
		return;
	}
	if (f->kind == FR_LOCK && f->phase == PH_NESTED) {
		const struct spin_lock_cfg *l = &sp->cfg.locks[f->lock];

		if (f->next_child < l->nnested) {
			unsigned child = l->nested[f->next_child++];

			start_section(sp, c, child, (enum level)f->level, SITE_NESTED);
			return;
		}
		f->phase = PH_HOLD2;
		set_timer(sp, c, now + f->hold2);
		run_pending(sp, c);
		return;
	}
	/* a paused timed piece (an ISR came in): the rest of it */
	set_timer(sp, c, now + f->left);
	f->left = 0;
	run_pending(sp, c);
}

/* @c has no lock work left: its thread may go, postponed decisions happen. */
static void cpu_idle_check(struct spin *sp, unsigned c)
{
	if (!sp->cpu[c].nfr) {
		sched_cpu_release(sp->s, c);
	}
}

/* The top frame's timer ran out. */
static int timer_event(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	struct frame *f = top(cpu);
	int rc = 0;

	cpu->timer = NEVER;
	switch (f->phase) {
	case PH_ACQUIRE:
		acquired(sp, c);
		run_pending(sp, c);
		break;
	case PH_HOLD1:
		f->phase = PH_NESTED;
		resume(sp, c);
		break;
	case PH_HOLD2: {
		bool logging;

		rc = release(sp, c, &logging);
		if (logging) {
			run_pending(sp, c); /* an ISR may come in over the logger */
		} else {
			resume(sp, c);
		}
		break;
	}
	case PH_LOG:
		cpu->nfr--;
		resume(sp, c);
		break;
	default:
		break;
	}
	return rc;
}

/* ---- arrivals ------------------------------------------------------------------------ */

static void next_arrival(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	uint64_t g16;

	if (!sp->rate_total) {
		sched_evq_set(&sp->q, sp->ncpu + c, NEVER);
		return;
	}
	g16 = sim_rng_exp_precise(&cpu->rng, sp->gap16) + cpu->gap_carry;
	cpu->gap_carry = (uint32_t)(g16 & 15u);
	sched_evq_set(&sp->q, sp->ncpu + c, sched_now(sp->s) + (g16 >> 4));
}

static void arrival(struct spin *sp, unsigned c)
{
	struct cpu *cpu = &sp->cpu[c];
	uint64_t k = sim_rng_below(&cpu->rng, sp->rate_total);
	unsigned lock = 0, kinds = 0, pick;
	const struct spin_lock_cfg *l;
	enum level kind[3];

	while (k >= sp->rate_cum[lock]) {
		lock++;
	}
	l = &sp->cfg.locks[lock];
	if (l->groups) {
		kind[kinds++] = LV_THREAD;
	}
	if (l->by_dpc) {
		kind[kinds++] = LV_DPC;
	}
	if (l->by_isr) {
		kind[kinds++] = LV_ISR;
	}
	pick = kinds > 1u ? (unsigned)sim_rng_below(&cpu->rng, kinds) : 0u;
	next_arrival(sp, c);
	switch (kind[pick]) {
	case LV_THREAD: {
		struct sched_cpu_view v;

		sched_cpu_view(sp->s, c, &v);
		if (v.group < 0 || !((l->groups >> v.group) & 1u) || cpu->nfr || cpu->ndpc ||
		    cpu->nisr) {
			sp->st[lock].dropped++;
			return;
		}
		start_section(sp, c, lock, LV_THREAD, SITE_THREAD);
		return;
	}
	case LV_DPC:
		cpu->irqs++;
		if (cpu->ndpc == SPIN_DPC_QUEUE) {
			sp->st[lock].dropped++;
			return;
		}
		cpu->dpcq[(cpu->dpc_head + cpu->ndpc++) % SPIN_DPC_QUEUE] = (uint16_t)lock;
		run_pending(sp, c);
		return;
	case LV_ISR:
		cpu->irqs++;
		if (cpu->nisr == SPIN_ISR_PENDING) {
			sp->st[lock].dropped++;
			return;
		}
		cpu->isrq[(cpu->isr_head + cpu->nisr++) % SPIN_ISR_PENDING] = (uint16_t)lock;
		run_pending(sp, c);
		return;
	}
}

/* ---- the stall guard ---------------------------------------------------------------------- */

/*
 * Frame timers armed now (between events). Each CPU's next arrival is
 * always queued when there is a rate (arrival() draws the next one first),
 * so the queue's other entries are the timers: nothing to count.
 */
static uint32_t timers_armed(const struct spin *sp)
{
	return sp->q.n - sp->narr;
}

/*
 * The run cannot go on (see the top of this file): keep what was stuck
 * for spin_stall_describe() and stop it. The lock named is the one left
 * free, else the one the lowest spinning CPU waits on.
 */
static int stall(struct spin *sp)
{
	uint32_t in = sp->lost;

	for (unsigned c = 0; in == NONE && c < sp->ncpu; c++) {
		const struct frame *f = top(&sp->cpu[c]);

		if (f && f->kind == FR_LOCK && f->phase == PH_SPIN) {
			in = f->inst;
		}
	}
	sp->stalled = true;
	sp->stall_in = in;
	sp->stall_t = sched_now(sp->s);
	return -EDEADLK; /* the core keeps it: no later event runs */
}

/* The family instance @in belongs to. */
static unsigned family_of(const struct spin *sp, uint32_t in)
{
	unsigned i = 0;

	while (i + 1u < sp->cfg.nlocks && sp->inst0[i + 1u] <= in) {
		i++;
	}
	return i;
}

int spin_stall_describe(const struct spin *sp, char *buf, size_t len)
{
	const struct inst *in;
	unsigned lock, k;
	char where[96] = "";
	int n;

	if (!sp || !sp->stalled || sp->stall_in == NONE) {
		return 0;
	}
	in = &sp->inst[sp->stall_in];
	lock = family_of(sp, sp->stall_in);
	k = sp->stall_in - sp->inst0[lock];
	if (sp->cfg.locks[lock].count > 1u) {
		snprintf(where, sizeof(where), " (instance %u of %u)", k,
			 sp->cfg.locks[lock].count);
	}
	n = snprintf(buf, len,
		     "internal error: the spin-lock model stalled at %" PRIu64 ".%09" PRIu64
		     " s (simulated): lock %s%s ",
		     sp->stall_t / UINT64_C(1000000000), sp->stall_t % UINT64_C(1000000000),
		     sp->cfg.locks[lock].name, where);
	if (n < 0 || (size_t)n >= len) {
		return n;
	}
	if (in->owner == NONE && in->shared == 0) {
		n += snprintf(buf + n, len - (size_t)n, "is free");
	} else if (in->owner != NONE && in->owner < sp->ncpu) {
		n += snprintf(buf + n, len - (size_t)n, "is held by CPU %" PRIu32, in->owner);
	} else if (in->owner != NONE) {
		n += snprintf(buf + n, len - (size_t)n, "is held by no CPU of the machine");
	} else {
		n += snprintf(buf + n, len - (size_t)n, "is held shared by %" PRIu32 " CPU%s",
			      in->shared, in->shared == 1u ? "" : "s");
	}
	if ((size_t)n >= len) {
		return n;
	}
	n += snprintf(
		buf + n, len - (size_t)n,
		" while %" PRIu32 " CPU%s on it, CPU %" PRIu32 " first in its queue%s", in->nwait,
		in->nwait == 1u ? " spins" : "s spin", in->head,
		timers_armed(sp) ? "" : ", and no CPU has lock work pending that could release it");
	return n;
}

int spin_test_seize(struct spin *sp, unsigned lock, unsigned k, bool held)
{
	struct inst *in;

	if (!sp || lock >= sp->cfg.nlocks || k >= sp->cfg.locks[lock].count) {
		return -EINVAL;
	}
	in = &sp->inst[sp->inst0[lock] + k];
	if (held) {
		if (in->owner != NONE || in->shared) {
			return -EBUSY;
		}
		in->owner = sp->ncpu; /* no CPU: nothing will ever release it */
	} else {
		if (in->owner != sp->ncpu) {
			return -EINVAL;
		}
		in->owner = NONE; /* gone, and nobody told the queue */
	}
	return 0;
}

uint32_t spin_test_waiting(const struct spin *sp, unsigned lock, unsigned k)
{
	if (!sp || lock >= sp->cfg.nlocks || k >= sp->cfg.locks[lock].count) {
		return 0;
	}
	return sp->inst[sp->inst0[lock] + k].nwait;
}

/* ---- the core's hooks ------------------------------------------------------------------ */

static int hook_event(void *ctx, uint64_t now_ns)
{
	struct spin *sp = ctx;
	const struct sched_ev e = sched_evq_top(&sp->q);
	uint32_t id = e.id;
	int rc = 0;

	(void)now_ns;
	if (id < sp->ncpu) {
		sched_evq_set(&sp->q, id, NEVER);
		rc = timer_event(sp, id);
	} else {
		arrival(sp, id - sp->ncpu);
	}
	/* a lost hand-over leaves CPUs spinning: one test when none spins */
	if (sp->nspin && (sp->lost != NONE || !timers_armed(sp))) {
		return stall(sp);
	}
	rearm(sp);
	return rc;
}

static bool hook_busy(void *ctx, unsigned cpu)
{
	const struct spin *sp = ctx;

	return sp->cpu[cpu].nfr != 0;
}

static void spin_destroy(struct spin *sp)
{
	if (!sp) {
		return;
	}
	sched_evq_finish(&sp->q);
	free(sp->st);
	free(sp->inst);
	free(sp->cpu);
	free(sp);
}

static void hook_destroy(void *ctx)
{
	spin_destroy(ctx);
}

static const struct sim_hook_ops spin_hook_ops = {
	.event = hook_event,
	.busy = hook_busy,
	.destroy = hook_destroy,
};

int spin_attach(struct sched *s, const struct spin_cfg *cfg, struct spin **out)
{
	const struct sched_cfg *sc = sched_get_cfg(s);
	struct spin *sp;
	const char *why;
	uint64_t ninst = 0;
	int lock, rc;

	if (out) {
		*out = NULL;
	}
	if (spin_cfg_check(cfg, sc->ngroups, &why, &lock) < 0) {
		return -EINVAL;
	}
	if (cfg->nlocks == 0) {
		return 0;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		return -ENOMEM;
	}
	sp->cfg = *cfg;
	sp->s = s;
	sp->lost = NONE;
	sp->stall_in = NONE;
	sp->ncpu = sc->cpus;
	sp->mhz = sc->cpu_mhz;
	for (unsigned i = 0; i < cfg->nlocks; i++) {
		sp->inst0[i] = (uint32_t)ninst;
		ninst += cfg->locks[i].count;
		sp->irql[i] = (uint8_t)spin_lock_irql(cfg, i);
		sp->rate_total += cfg->locks[i].rate;
		sp->rate_cum[i] = sp->rate_total;
	}
	sp->cpu = calloc(sp->ncpu, sizeof(*sp->cpu));
	sp->inst = calloc(ninst, sizeof(*sp->inst));
	sp->st = calloc(cfg->nlocks, sizeof(*sp->st));
	if (!sp->cpu || !sp->inst || !sp->st || sched_evq_init(&sp->q, 2u * sp->ncpu) < 0) {
		spin_destroy(sp);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < ninst; i++) {
		sp->inst[i].owner = NONE;
		sp->inst[i].head = sp->inst[i].tail = NONE;
	}
	sp->handoff_ns = ns_of_cycles(sp, SPIN_HANDOFF_CYCLES);
	sp->log_ns = ns_of_cycles(sp, SPIN_LOG_CYCLES);
	sp->acq_min_ns = ns_of_cycles(sp, SPIN_ACQUIRE_CYCLES_MIN);
	sp->acq_max_ns = ns_of_cycles(sp, SPIN_ACQUIRE_CYCLES_MAX);
	if (sp->rate_total) {
		/* mean gap per CPU = cpus / rate seconds, in sixteenths of a ns */
		sp->gap16 = (uint64_t)sp->ncpu * UINT64_C(16000000000) / sp->rate_total;
		sp->gap16 = sp->gap16 ? sp->gap16 : 1u;
	}
	sp->narr = sp->rate_total ? sp->ncpu : 0u;
	rc = sched_attach(s, &spin_hook_ops, sp);
	if (rc < 0) {
		spin_destroy(sp);
		return rc;
	}
	sp->handle = rc;
	for (unsigned c = 0; c < sp->ncpu; c++) {
		sp->cpu[c].timer = NEVER;
		sim_rng_init(&sp->cpu[c].rng, sc->seed, SIM_RNG_SPIN, c);
		next_arrival(sp, c);
	}
	rearm(sp);
	if (out) {
		*out = sp;
	}
	return 0;
}

void spin_get_stats(const struct spin *sp, unsigned i, struct spin_lock_stats *st)
{
	if (!sp || i >= sp->cfg.nlocks) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = sp->st[i];
}
