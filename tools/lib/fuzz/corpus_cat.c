// SPDX-License-Identifier: MIT
/*
 * tools/lib/fuzz/corpus_cat.c - the catalogue of `etwforge corpus`: one small
 * valid ETL file per named edge case of the producer, each written as a
 * truth stream (DESIGN.md schema) by a stream builder and encoded by
 * replay_mem(), the same checks and the same engine as `etwforge replay`.
 * No ETL byte is assembled here.
 *
 *   edge table ──► builder (struct sb) ──► truth text ──► replay_mem()
 *        │           marks: "this switch matters"           │ one image per session
 *        └──────────────────────────────────────────────────┴──► struct corpus_file
 *
 * The builder keeps, per CPU, the thread on it (so switches chain), one
 * value per clock (the first session's clock advances by the exact deltas
 * an edge asks for, the others in proportion), and the interrupt tick
 * (from elapsed time, so the 500-tick rule follows time unless an edge
 * jumps). The seed picks what the edge leaves free: thread ids, base
 * priorities, wait modes, quanta, PMC values, PebsIndex, lock addresses.
 * The boundaries themselves are exact whatever the seed.
 *
 * Sizes: 4 KiB buffers (8 KiB where an edge needs room), one CPU unless
 * the edge is about CPUs, a handful of switches around the boundary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "scheduler_model/sim_rng.h"
#include "producer/etw_layout.h"
#include "producer/producer.h"
#include "producer/trace_sink.h"
#include "producer/targets.h"
#include "tools/lib/fuzz/corpus_cat.h"
#include "tools/lib/run/replay_mem.h"
#include "tools/lib/truth/truth.h"

#define SB_MAX_CPUS    64
#define SB_MAX_THREADS 256

#define TS_WAITING     5  /* KTHREAD_STATE Waiting */
#define TS_READY       1  /* KTHREAD_STATE Ready */
#define WR_USERREQUEST 6  /* KWAIT_REASON UserRequest */
#define DEFAULT_DELTA  40 /* a small gap between switches, in the first clock's units */

/* Spin-lock sampling defaults (KERNEL_FACTS 6.3): spin, acquire rate, contention rate, hold. */
#define SPIN_THRESHOLD	  1u
#define ACQUIRE_SAMPLE	  1000u
#define CONTENTION_SAMPLE 1u
#define HOLD_THRESHOLD	  1000000u
#define SPIN_MAX_DEPTH	  8u /* the per-CPU acquire stack (KERNEL_FACTS 6.2) */

struct sb_cpu {
	uint32_t cur;			/* the thread on the CPU */
	uint64_t ts[SIM_CLOCK_SLOTS];	/* each clock's value */
	uint64_t t100;			/* elapsed 100 ns units */
	uint32_t tick_extra;		/* ticks added by edges that jump */
	uint64_t nsw;			/* switches so far */
	uint64_t nspin;			/* logged spin locks so far */
	uint64_t pmc[SIM_MAX_COUNTERS]; /* running counter values */
	uint64_t pebs;			/* PebsIndex */
	uint32_t acquires, contentions; /* PRCB SpinLockAcquireCount, ContentionCount */
};

struct sb_thread {
	uint32_t tid;
	int8_t base;
};

/* A stream being built: the truth of one edge case. */
struct sb {
	const char *id;
	struct trace_config cfg;
	struct sim_rng rng;
	FILE *f;
	char *text;
	size_t len;
	bool started;
	uint32_t start_tick;
	struct sb_cpu cpu[SB_MAX_CPUS];
	struct sb_thread thr[SB_MAX_THREADS];
	unsigned nthr;
	struct corpus_mark marks[CORPUS_MARKS_MAX];
	unsigned nmarks;
	struct sb_hook_count {
		uint16_t hook;
		unsigned cpu;
		uint64_t n;
	} hooks[32]; /* identity records written so far, per hook and CPU (marks) */
	unsigned nhooks;
	uint64_t kbase; /* where the seed puts the kernel objects (EPROCESS, stacks) */
	bool verifies;
	int err;
};

/* One switch: what an edge says about it (zero fields take the defaults). */
struct sb_sw {
	uint64_t delta;	  /* first clock's units since the CPU's last record (0: DEFAULT_DELTA) */
	bool zero_delta;  /* a delta of 0 really */
	uint32_t new_tid; /* the thread switched to (0: idle) */
	int inc;	  /* old thread: priority = base + inc */
	int state;	  /* old thread's state + 1 (0: Waiting) */
	int reason;	  /* old thread's wait reason + 1 (0: UserRequest) */
	uint32_t wait;	  /* new thread: TickCount - WaitTime */
	uint32_t ticks;	  /* ticks to add before the switch (an edge that jumps) */
	const char *mark; /* this switch's record matters */
};

/* One spin-lock acquire and release. */
struct sb_spin {
	uint64_t delta; /* first clock's units before the release */
	uint64_t lock;	/* 0: one from the seed */
	uint64_t hold;	/* ReleaseTime - AcquireTime (cycles) */
	uint64_t wait;	/* AcquireTime - T0 (cycles) */
	uint32_t spins; /* SpinCount */
	uint8_t depth;	/* 0: 1 */
	uint8_t mode;	/* AcquireMode 0..4 */
	uint8_t irql;	/* 0: DISPATCH_LEVEL (2) */
	bool dpc, isr;	/* ExecuteDpc / ExecuteIsr */
	uint32_t interrupts;
	bool untracked;	  /* a 9th nested acquire: never logged */
	const char *mark; /* mark it when logged */
};

/* ---- the builder ------------------------------------------------------------ */

static void sb_fail(struct sb *b, int rc)
{
	if (!b->err) {
		b->err = rc;
	}
}

/* Each session's file: "ID.etl", or "ID-SUFFIX.etl" for the ones after the first. */
static void sb_session_file(struct sb *b, unsigned i, const char *suffix)
{
	struct trace_session_cfg *s = &b->cfg.sessions[i];

	if (suffix) {
		snprintf(s->file, sizeof(s->file), "%s-%s.etl", b->id, suffix);
	} else {
		snprintf(s->file, sizeof(s->file), "%s.etl", b->id);
	}
}

static void sb_init(struct sb *b, const char *id, uint64_t seed)
{
	struct trace_session_cfg *s;

	memset(b, 0, sizeof(*b));
	b->id = id;
	b->verifies = true;
	sim_rng_init(&b->rng, seed, SIM_RNG_CORPUS, XXH32(id, strlen(id), 0));
	trace_config_defaults(&b->cfg);
	b->cfg.cpus = 1;
	b->cfg.seed = seed;
	b->cfg.nsessions = 1;
	s = &b->cfg.sessions[0];
	snprintf(s->name, sizeof(s->name), "NT Kernel Logger");
	s->clock = SIM_CLOCK_QPC;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 4096;
	sb_session_file(b, 0, NULL);
}

/* Add a session after the first; its file is "ID-SUFFIX.etl". */
static struct trace_session_cfg *sb_add_session(struct sb *b, const char *name,
						enum sim_clock clock, unsigned flags,
						const char *suffix)
{
	struct trace_session_cfg *s = &b->cfg.sessions[b->cfg.nsessions];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->clock = clock;
	s->flags = flags;
	s->buffer_size = 4096;
	sb_session_file(b, b->cfg.nsessions, suffix);
	b->cfg.nsessions++;
	return s;
}

static void sb_target(struct sb *b, const char *name)
{
	b->cfg.target = etw_target_find(name);
	if (!b->cfg.target) {
		sb_fail(b, -EINVAL);
		b->cfg.target = etw_target_find("win10-1709");
	}
	b->cfg.max_wait_reason = b->cfg.target->max_wait_reason;
}

/* Session @s counts PMC sources @names[@n] and stamps @hooks[@nh]. */
static void sb_pmc(struct sb *b, struct trace_session_cfg *s, unsigned n, const uint16_t *hooks,
		   unsigned nh)
{
	static const char *const names[] = {
		"TotalCycles",	"InstructionRetired", "CacheMisses", "BranchMispredictions",
		"LLCReference", "DcacheMisses",	      "IcacheMisses"};

	s->pmc_count = n;
	for (unsigned j = 0; j < n && j < SIM_MAX_PMC; j++) {
		int id = trace_config_counter_id(&b->cfg, names[j]);

		if (id < 0) {
			sb_fail(b, id);
			return;
		}
		s->pmc_counters[j] = (uint8_t)id;
	}
	s->pmc_event_count = nh;
	for (unsigned j = 0; j < nh && j < 4; j++) {
		s->pmc_events[j] = hooks[j];
	}
}

/* Clock values at the start: one hour of uptime (QPC and cycles count from boot). */
static uint64_t clock_start(const struct trace_config *cfg, enum sim_clock c)
{
	switch (c) {
	case SIM_CLOCK_QPC:
		return 3600u * cfg->perf_freq;
	case SIM_CLOCK_CYCLES:
		return 3600u * (uint64_t)cfg->cpu_mhz * 1000000u;
	default:
		return (uint64_t)cfg->start_time;
	}
}

/* @d units of clock @c in 100 ns units, and back (rounded down). */
static uint64_t to_100ns(const struct trace_config *cfg, enum sim_clock c, uint64_t d)
{
	switch (c) {
	case SIM_CLOCK_QPC:
		return d / cfg->perf_freq * 10000000u +
		       d % cfg->perf_freq * 10000000u / cfg->perf_freq;
	case SIM_CLOCK_CYCLES:
		return d / cfg->cpu_mhz * 10u + d % cfg->cpu_mhz * 10u / cfg->cpu_mhz;
	default:
		return d;
	}
}

static uint64_t from_100ns(const struct trace_config *cfg, enum sim_clock c, uint64_t t)
{
	switch (c) {
	case SIM_CLOCK_QPC:
		return t / 10000000u * cfg->perf_freq + t % 10000000u * cfg->perf_freq / 10000000u;
	case SIM_CLOCK_CYCLES:
		return t / 10u * cfg->cpu_mhz + t % 10u * cfg->cpu_mhz / 10u;
	default:
		return t;
	}
}

/* The meta line: call once the configuration is complete. */
static void sb_start(struct sb *b)
{
	const char *why = NULL;

	if (b->err) {
		return;
	}
	b->cfg.have_start_ts = true;
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		b->cfg.start_ts[c] = clock_start(&b->cfg, (enum sim_clock)c);
	}
	b->cfg.spin_rows = TRACE_SPIN_ROWS_ALL; /* a line for every release, logged or not */
	b->start_tick = (uint32_t)(36000000000ull / b->cfg.timer_resolution);
	for (unsigned cpu = 0; cpu < SB_MAX_CPUS; cpu++) {
		struct sb_cpu *p = &b->cpu[cpu];

		memcpy(p->ts, b->cfg.start_ts, sizeof(p->ts));
		p->pebs = 0xFFFFB00000000000ull + (uint64_t)cpu * 0x100000u;
		for (unsigned j = 0; j < SIM_MAX_COUNTERS; j++) {
			p->pmc[j] = sim_rng_range(&b->rng, 1000, 1000000);
		}
	}
	if (trace_config_check(&b->cfg, &why) < 0) {
		sb_fail(b, -EINVAL);
		return;
	}
	b->f = open_memstream(&b->text, &b->len);
	if (!b->f) {
		sb_fail(b, -ENOMEM);
		return;
	}
	if (truth_write_meta(b->f, &b->cfg) < 0) {
		sb_fail(b, -EIO);
	}
	b->started = true;
}

static uint32_t sb_tick(const struct sb *b, unsigned cpu)
{
	const struct sb_cpu *p = &b->cpu[cpu];

	return b->start_tick + (uint32_t)(p->t100 / b->cfg.timer_resolution) + p->tick_extra;
}

/* Advance CPU @cpu by @d units of the first session's clock. */
static void sb_advance(struct sb *b, unsigned cpu, uint64_t d)
{
	struct sb_cpu *p = &b->cpu[cpu];
	enum sim_clock c0 = b->cfg.sessions[0].clock;
	uint64_t t = to_100ns(&b->cfg, c0, d);

	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		p->ts[c] += c == c0 ? d : from_100ns(&b->cfg, (enum sim_clock)c, t);
	}
	p->t100 += t;
}

/* The base priority of thread @tid (made up from the seed the first time). */
static int8_t sb_base(struct sb *b, uint32_t tid)
{
	if (tid == 0) {
		return 0;
	}
	for (unsigned i = 0; i < b->nthr; i++) {
		if (b->thr[i].tid == tid) {
			return b->thr[i].base;
		}
	}
	if (b->nthr == SB_MAX_THREADS) {
		return 8;
	}
	b->thr[b->nthr].tid = tid;
	b->thr[b->nthr].base = (int8_t)sim_rng_range(&b->rng, 1, 15);
	return b->thr[b->nthr++].base;
}

/* Give thread @tid base priority @base (before its first switch). */
static void sb_set_base(struct sb *b, uint32_t tid, int8_t base)
{
	(void)sb_base(b, tid);
	for (unsigned i = 0; i < b->nthr; i++) {
		if (b->thr[i].tid == tid) {
			b->thr[i].base = base;
		}
	}
}

/* A thread id not used yet in this stream (Windows TIDs are multiples of 4). */
static uint32_t sb_new_tid(struct sb *b)
{
	for (;;) {
		uint32_t tid = (uint32_t)sim_rng_range(&b->rng, 64, 16383) * 4u;
		bool used = false;

		for (unsigned i = 0; i < b->nthr; i++) {
			used = used || b->thr[i].tid == tid;
		}
		if (!used) {
			(void)sb_base(b, tid);
			return tid;
		}
	}
}

static void sb_mark(struct sb *b, enum corpus_mark_kind kind, unsigned cpu, uint64_t index,
		    const char *what)
{
	struct corpus_mark *m;

	if (b->nmarks == CORPUS_MARKS_MAX) {
		sb_fail(b, -ENOSPC);
		return;
	}
	m = &b->marks[b->nmarks++];
	snprintf(m->what, sizeof(m->what), "%s", what);
	m->kind = kind;
	m->cpu = cpu;
	m->index = index;
}

/* One context switch on @cpu from the thread on it to @s->new_tid. */
static void sb_switch(struct sb *b, unsigned cpu, const struct sb_sw *s)
{
	struct sb_cpu *p = &b->cpu[cpu];
	struct sim_cswitch cs;
	int8_t base;

	if (b->err || !b->started) {
		sb_fail(b, -EINVAL);
		return;
	}
	sb_advance(b, cpu, s->zero_delta ? 0 : s->delta ? s->delta : DEFAULT_DELTA);
	p->tick_extra += s->ticks;
	memset(&cs, 0, sizeof(cs));
	cs.cpu = cpu;
	cs.tick = sb_tick(b, cpu);
	memcpy(cs.ts, p->ts, sizeof(cs.ts));
	cs.old_tid = p->cur;
	base = sb_base(b, p->cur);
	if (p->cur == 0) {
		/* the idle thread: priority 0, Ready; PreviousCState from the seed */
		cs.old_state = TS_READY;
		cs.prev_cstate = (uint8_t)sim_rng_below(&b->rng, 3);
	} else {
		cs.old_base_pri = base;
		cs.old_pri = (int8_t)(base + s->inc);
		cs.old_state = (uint8_t)(s->state ? s->state - 1 : TS_WAITING);
		cs.old_wait_reason = (uint8_t)(s->reason ? s->reason - 1 : WR_USERREQUEST);
		if (cs.old_state != TS_WAITING && !s->reason) {
			cs.old_wait_reason = 0;
		}
		cs.old_wait_mode = (uint8_t)sim_rng_below(&b->rng, 2);
		cs.old_remaining_quantum = (int64_t)sim_rng_range(&b->rng, 0, 200) - 100;
		cs.old_qos = (uint8_t)sim_rng_below(&b->rng, 4);
	}
	cs.old_ideal_cpu = cpu;
	cs.new_tid = s->new_tid;
	cs.new_pri = s->new_tid ? sb_base(b, s->new_tid) : 0;
	cs.new_wait_ticks = s->new_tid ? s->wait : 0;
	cs.new_qos = s->new_tid ? (uint8_t)sim_rng_below(&b->rng, 4) : 0;
	for (unsigned j = 0; j < b->cfg.ncounters; j++) {
		p->pmc[j] += sim_rng_range(&b->rng, 100, 100000);
		cs.pmc[j] = p->pmc[j];
	}
	p->pebs += 0x40u * sim_rng_range(&b->rng, 0, 3);
	cs.pebs_index = p->pebs;
	if (s->mark) {
		sb_mark(b, CORPUS_MARK_SWITCH, cpu, p->nsw, s->mark);
	}
	if (truth_write_cswitch(b->f, &b->cfg, &cs) < 0) {
		sb_fail(b, -EIO);
	}
	p->cur = s->new_tid;
	p->nsw++;
}

/* A switch with every default: @delta (0: the default gap) to @new_tid. */
static void sb_sw(struct sb *b, unsigned cpu, uint64_t delta, uint32_t new_tid)
{
	struct sb_sw s = {.delta = delta, .new_tid = new_tid};

	sb_switch(b, cpu, &s);
}

/*
 * One spin-lock acquire and release on @cpu by the thread on it. Whether
 * the release is logged is the kernel's sampling predicate (spin_sample(),
 * the one verify applies too) with the stream's parameters, over the CPU's
 * PRCB counters counted from the start of the trace; the truth carries the
 * counters (meta "spinlock"."rows" is "all": every release has its line).
 */
static void sb_spinlock(struct sb *b, unsigned cpu, const struct sb_spin *s)
{
	struct sb_cpu *p = &b->cpu[cpu];
	bool x86 = b->cfg.arch == ETL_ARCH_X86;
	struct sim_spinlock sl;
	struct spin_prcb prcb;

	if (b->err || !b->started) {
		sb_fail(b, -EINVAL);
		return;
	}
	sb_advance(b, cpu, s->delta ? s->delta : DEFAULT_DELTA);
	memset(&sl, 0, sizeof(sl));
	sl.cpu = cpu;
	sl.tick = sb_tick(b, cpu);
	memcpy(sl.ts, p->ts, sizeof(sl.ts));
	sl.lock = s->lock ? s->lock
			  : (x86 ? 0x82000000u : 0xFFFFF80312000000ull) +
				    8u * sim_rng_range(&b->rng, 0, 0xFFFF);
	sl.caller =
		(x86 ? 0x81000000u : 0xFFFFF80310000000ull) + sim_rng_range(&b->rng, 0, 0xFFFFF);
	sl.release_time = p->ts[SIM_CLOCK_CYCLES];
	sl.acquire_time = sl.release_time - s->hold;
	sl.wait_cycles = s->wait ? s->wait : (s->spins ? 40u * s->spins : 12u);
	sl.spin_count = s->spins;
	sl.tid = p->cur;
	sl.interrupt_count = s->interrupts;
	sl.irql = s->irql ? s->irql : 2;
	sl.depth = s->depth ? s->depth : 1;
	sl.mode = s->mode;
	sl.dpc = s->dpc;
	sl.isr = s->isr;
	/* every acquisition counts at its query, a contended one once acquired */
	p->acquires++;
	p->contentions += s->spins ? 1u : 0u;
	prcb.acquire_count = p->acquires;
	prcb.contention_count = p->contentions;
	sl.acquire_count = prcb.acquire_count;
	sl.contention_count = prcb.contention_count;
	sl.untracked = s->untracked; /* past the 8-deep stack: never logged */
	sl.why = s->untracked ? SIM_SPIN_NONE
			      : spin_sample(&b->cfg.spin, &prcb, sl.acquire_time, sl.release_time,
					    sl.spin_count);
	sl.logged = sl.why != SIM_SPIN_NONE;
	for (unsigned j = 0; j < b->cfg.ncounters; j++) {
		sl.pmc[j] = p->pmc[j];
	}
	if (sl.logged && s->mark) {
		sb_mark(b, CORPUS_MARK_SPIN, cpu, p->nspin, s->mark);
	}
	if (truth_write_spinlock(b->f, &b->cfg, &sl) < 0) {
		sb_fail(b, -EIO);
	}
	p->nspin += sl.logged;
}

/* The largest tick and clock values over every CPU, plus @d of the first clock. */
static void sb_high(struct sb *b, uint64_t d, uint32_t *tick, uint64_t ts[SIM_CLOCK_SLOTS])
{
	*tick = 0;
	memset(ts, 0, SIM_CLOCK_SLOTS * sizeof(ts[0]));
	for (unsigned cpu = 0; cpu < b->cfg.cpus && cpu < SB_MAX_CPUS; cpu++) {
		sb_advance(b, cpu, d);
		if (sb_tick(b, cpu) > *tick) {
			*tick = sb_tick(b, cpu);
		}
		for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
			if (b->cpu[cpu].ts[c] > ts[c]) {
				ts[c] = b->cpu[cpu].ts[c];
			}
		}
	}
}

/* EtwpCCSwapStop for @clock: every CPU's pending batch goes at its next switch. */
static void sb_stop(struct sb *b, enum sim_clock clock)
{
	struct sim_ccswap_stop st;

	if (b->err || !b->started) {
		sb_fail(b, -EINVAL);
		return;
	}
	memset(&st, 0, sizeof(st));
	sb_high(b, 1, &st.tick, st.ts);
	st.clock = clock;
	if (truth_write_ccswap_stop(b->f, &b->cfg, &st) < 0) {
		sb_fail(b, -EIO);
	}
}

/* The end line, @d after the last record; closes the text (once). Return: 0 or an error. */
static int sb_finish(struct sb *b, uint64_t d)
{
	struct sim_end end;

	if (b->started && !b->err) {
		memset(&end, 0, sizeof(end));
		sb_high(b, d ? d : DEFAULT_DELTA, &end.tick, end.ts);
		if (truth_write_end(b->f, &b->cfg, &end) < 0) {
			sb_fail(b, -EIO);
		}
	}
	if (b->f) {
		if (fclose(b->f) != 0) {
			sb_fail(b, -EIO);
		}
		b->f = NULL;
	}
	b->started = false; /* a second call only says how it went */
	return b->err;
}

/* ---- edge builders ------------------------------------------------------------ */

/*
 * Each builder configures the machine and sessions, calls sb_start(), then
 * writes the records; @arg is the value at the boundary (below/at/above).
 */
struct edge;
typedef void (*edge_fn)(struct sb *b, const struct edge *e);

/**
 * struct edge - one entry of the catalogue.
 * @id:   the file name (without .etl): what the file hits
 * @desc: one line for MANIFEST.jsonl
 * @fn:   the builder; @arg (and @arg2, @str) its parameters
 */
struct edge {
	const char *id;
	const char *desc;
	edge_fn fn;
	int64_t arg;
	int64_t arg2;
	const char *str;
};

/* N distinct threads switched out in one batch (16 fill the TidTable, the 17th flushes). */
static void e_tid_table(struct sb *b, const struct edge *e)
{
	uint32_t t[20] = {0};
	char what[96];
	unsigned n = (unsigned)e->arg;

	b->cfg.quirks = e->arg2 == 0;
	sb_start(b);
	for (unsigned i = 0; i < n; i++) {
		t[i] = sb_new_tid(b);
	}
	sb_sw(b, 0, 0, t[0]);
	for (unsigned i = 1; i < n; i++) {
		struct sb_sw s = {.new_tid = t[i]};

		snprintf(what, sizeof(what), "thread %u switched out: TidTable slot %u", i, i - 1);
		s.mark = i == 1 || i >= 15 ? what : NULL;
		sb_switch(b, 0, &s);
	}
	snprintf(what, sizeof(what),
		 n > 16 ? "thread %u switched out: TidTable full (index 16), the batch flushes"
			: "thread %u switched out: TidTable slot %u",
		 n, n - 1);
	{
		struct sb_sw s = {.new_tid = 0, .mark = what};

		sb_switch(b, 0, &s);
	}
	sb_sw(b, 0, 0, t[0]);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* A batch started at tick T, the next switch at T + arg ticks (> 500 flushes). */
static void e_ticks(struct sb *b, const struct edge *e)
{
	uint32_t a, c;
	char what[96];
	struct sb_sw s = {0};

	b->cfg.quirks = e->arg2 == 0;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	sb_sw(b, 0, 0, a); /* starts the batch */
	sb_sw(b, 0, 0, c);
	snprintf(what, sizeof(what), "%" PRId64 " ticks after the batch started%s", e->arg,
		 e->arg > 500 ? ": flushed (tick rule), the batch keeps this thread's TID" : "");
	/* time moves with the ticks: arg x TimerResolution (100 ns) of QPC at 10 MHz */
	s.delta = (uint64_t)e->arg * b->cfg.timer_resolution;
	s.new_tid = a;
	s.mark = what;
	sb_switch(b, 0, &s);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/*
 * Fill the batch to Offset @arg with IDLE_SHORT (2 B) and LITE (4 B) records
 * of one thread and the idle thread, then one more switch: Offset + 8 >
 * 0x400 flushes (the worst-case record size is tested).
 */
static void e_size(struct sb *b, const struct edge *e)
{
	uint32_t a;
	unsigned offset = 0x68, target = (unsigned)e->arg;
	char what[96];

	sb_start(b);
	a = sb_new_tid(b);
	while (offset + 6 <= target) {
		sb_sw(b, 0, 0, a); /* old idle: IDLE_SHORT, 2 bytes */
		sb_sw(b, 0, 0, 0); /* old a: LITE, 4 bytes */
		offset += 6;
	}
	if (target - offset == 2) {
		sb_sw(b, 0, 0, a);
	} else if (target - offset == 4) {
		sb_sw(b, 0, 0x4000, a); /* old idle, delta 0x4000: IDLE, 4 bytes */
	}
	snprintf(what, sizeof(what), "the switch met at Offset 0x%x: 0x%x + 8 %s 0x400%s", target,
		 target, target + 8 > 0x400 ? ">" : "<=",
		 target + 8 > 0x400 ? ", the batch flushes" : ", appended");
	{
		struct sb_sw s = {.new_tid = b->cpu[0].cur ? 0 : a, .mark = what};

		sb_switch(b, 0, &s);
	}
	sb_finish(b, 0);
}

/* A delta of arg units (CPU-cycle clock, so the tick rule stays far away). */
static void e_delta(struct sb *b, const struct edge *e)
{
	uint32_t a, c;
	char what[96];
	struct sb_sw s = {0};
	bool idle = e->arg2 != 0;

	b->cfg.sessions[0].clock = SIM_CLOCK_CYCLES;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	sb_sw(b, 0, 0, a);
	if (idle) {
		sb_sw(b, 0, 0, 0);
	}
	snprintf(what, sizeof(what), "%s record, delta 0x%" PRIx64 "%s", idle ? "IDLE" : "FULL",
		 (uint64_t)e->arg,
		 e->arg > 0x40000000	? ": flushed (delta rule)"
		 : e->arg == 0x40000000 ? ": not flushed, the 30-bit field wraps to 0"
					: "");
	s.delta = (uint64_t)e->arg;
	s.new_tid = c;
	s.mark = what;
	sb_switch(b, 0, &s);
	sb_sw(b, 0, 0, a);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* The stop flag (EtwpCCSwapStop): with a pending batch (arg 0) or before any switch (1). */
static void e_stop(struct sb *b, const struct edge *e)
{
	uint32_t a, c;
	struct sb_sw s = {0};

	b->cfg.quirks = e->arg2 == 0;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	if (e->arg == 0) {
		sb_sw(b, 0, 0, a);
		sb_sw(b, 0, 0, c);
		sb_stop(b, SIM_CLOCK_QPC);
		s.new_tid = a;
		s.mark = "the first switch after the stop flag: the pending batch flushes";
		sb_switch(b, 0, &s);
	} else {
		sb_stop(b, SIM_CLOCK_QPC);
		s.new_tid = a;
		s.mark = e->arg2 ? "the first switch: quirks off, no empty batch"
				 : "the first switch: the stop flag set before any batch flushes "
				   "an empty one";
		sb_switch(b, 0, &s);
		sb_sw(b, 0, 0, c);
	}
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* End of tracing with a batch pending: written (flush_at_end) or dropped. */
static void e_end(struct sb *b, const struct edge *e)
{
	uint32_t a, c;
	struct sb_sw s = {0};

	b->cfg.flush_at_end = e->arg != 0;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	sb_sw(b, 0, 0, a);
	if (e->arg) {
		sb_sw(b, 0, 0, c);
		s.mark = "the last switch: its batch is written at the end (TS = end)";
	} else {
		/* a batch flushed by the tick rule is written; the one it starts is dropped */
		struct sb_sw last = {
			.new_tid = c,
			.mark = "the last switch written: the batch after it is dropped"};

		sb_switch(b, 0, &last);
		s.ticks = 501;
	}
	sb_switch(b, 0, &s);
	sb_sw(b, 0, 0, a);
	sb_finish(b, 0);
}

/* Old thread idle, delta arg: IDLE_SHORT below 0x4000, else IDLE (30 bits). */
static void e_form_idle(struct sb *b, const struct edge *e)
{
	uint32_t a;
	char what[96];
	struct sb_sw s = {0};

	if (e->arg >= 0x40000000) {
		b->cfg.sessions[0].clock = SIM_CLOCK_CYCLES;
	}
	sb_start(b);
	a = sb_new_tid(b);
	sb_sw(b, 0, 0, a);
	sb_sw(b, 0, 0, 0);
	snprintf(what, sizeof(what), "old thread idle, delta 0x%" PRIx64 ": %s", (uint64_t)e->arg,
		 e->arg < 0x4000 ? "IDLE_SHORT (14 bits)" : "IDLE (30 bits)");
	s.delta = (uint64_t)e->arg;
	s.new_tid = a;
	s.mark = what;
	sb_switch(b, 0, &s);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/*
 * LITE or FULL: a switch from a non-idle thread whose field arg2 selects
 * is at value arg: 0 delta, 1 priority increment, 2 new thread's wait.
 */
static void e_form(struct sb *b, const struct edge *e)
{
	uint32_t a, c;
	char what[128];
	struct sb_sw s = {0};
	bool lite;

	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	sb_set_base(b, a, 8);
	sb_sw(b, 0, 0, a);
	sb_sw(b, 0, 0, c);
	s.new_tid = a;
	switch (e->arg2) {
	case 0:
		s.delta = (uint64_t)e->arg;
		lite = e->arg < 0x20000;
		snprintf(what, sizeof(what), "delta 0x%" PRIx64 ": %s", (uint64_t)e->arg,
			 lite ? "LITE (17-bit delta)" : "FULL (30-bit delta)");
		break;
	case 1:
		sb_set_base(b, c, 8);
		s.inc = (int)e->arg;
		lite = e->arg >= 0 && e->arg <= 7;
		snprintf(what, sizeof(what), "priority increment %" PRId64 ": %s", e->arg,
			 lite	      ? "LITE (3-bit PriInc)"
			 : e->arg < 0 ? "FULL (compared unsigned)"
				      : "FULL");
		break;
	default:
		s.wait = (uint32_t)e->arg;
		lite = e->arg <= 1;
		snprintf(what, sizeof(what), "new thread waited %" PRId64 " ticks: %s", e->arg,
			 lite		    ? "LITE (wait <= 1)"
			 : e->arg > 0x1FFFF ? "FULL, NewThreadWaitTime saturated at 0x1FFFF"
					    : "FULL (17-bit wait)");
		break;
	}
	s.mark = what;
	sb_switch(b, 0, &s);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* OldThreadStateWr under a target's bias: Waiting reasons and every other state. */
static void e_statewr(struct sb *b, const struct edge *e)
{
	const char *target = e->str;
	uint32_t t[2];
	unsigned k = 0;
	uint8_t max;
	char what[96];

	sb_target(b, target);
	b->cfg.sessions[0].buffer_size = 8192;
	sb_start(b);
	max = b->cfg.max_wait_reason;
	t[0] = sb_new_tid(b);
	t[1] = sb_new_tid(b);
	sb_sw(b, 0, 0, t[0]);
	for (int state = 0; state <= 10; state++) {
		int reasons[3] = {0, WR_USERREQUEST, max - 1};
		unsigned nr = state == TS_WAITING ? 3 : 1;

		for (unsigned r = 0; r < nr; r++) {
			for (unsigned form = 0; form < 2; form++) {
				struct sb_sw s = {0};

				s.new_tid = t[++k % 2];
				s.state = state + 1;
				s.reason = state == TS_WAITING ? reasons[r] + 1 : 0;
				s.wait = form ? 2 : 0; /* LITE, then FULL */
				if (state == TS_WAITING) {
					snprintf(what, sizeof(what),
						 "%s: Waiting, reason %d: StateWr %d",
						 form ? "FULL" : "LITE", reasons[r], reasons[r]);
				} else {
					snprintf(what, sizeof(what),
						 "%s: state %d: StateWr %d + %u = %u",
						 form ? "FULL" : "LITE", state, state, max,
						 (unsigned)(state + max) % 64u);
				}
				s.mark = what;
				sb_switch(b, 0, &s);
			}
		}
	}
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* One thread switched out again and again in the same batch (a TidTable hit). */
static void e_recur(struct sb *b, const struct edge *e)
{
	uint32_t a, c;

	(void)e;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	sb_sw(b, 0, 0, a);
	for (int i = 0; i < 6; i++) {
		struct sb_sw s = {.new_tid = i % 2 ? a : c, .inc = i % 4};

		s.mark = i == 4 ? "the third switch-out of the first thread: TidTable index 0 again"
				: NULL;
		sb_switch(b, 0, &s);
	}
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* Batches that hold only idle records (the stop flag cuts after each). */
static void e_idle_only(struct sb *b, const struct edge *e)
{
	(void)e;
	sb_start(b);
	for (int i = 0; i < 3; i++) {
		uint32_t a = sb_new_tid(b);
		struct sb_sw s = {.new_tid = a, .delta = i == 1 ? 0x4000 : 0};

		s.mark = i == 0	  ? "an idle-only batch: one IDLE_SHORT record"
			 : i == 1 ? "an idle-only batch: one IDLE record"
				  : NULL;
		sb_switch(b, 0, &s);
		sb_stop(b, SIM_CLOCK_QPC);
		sb_sw(b, 0, 0, 0);
		sb_stop(b, SIM_CLOCK_QPC);
	}
	sb_sw(b, 0, 0, sb_new_tid(b));
	sb_finish(b, 0);
}

/*
 * A restart whose old thread is new: TidTable[0] takes it, ThreadBasePriority[0]
 * keeps the previous batch's byte (quirk), which its LITE records are relative to.
 */
static void e_stale_base(struct sb *b, const struct edge *e)
{
	uint32_t a, c, d;
	struct sb_sw s = {0};

	b->cfg.quirks = e->arg2 == 0;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	d = sb_new_tid(b);
	sb_set_base(b, a, 8);
	sb_set_base(b, c, 12);
	sb_set_base(b, d, 10);
	sb_sw(b, 0, 0, a);
	sb_sw(b, 0, 0, c);
	sb_sw(b, 0, 0, d);
	s.new_tid = a;
	s.ticks = 501;
	s.mark = e->arg2 ? "restart (ticks), quirks off: both tables cleared"
			 : "restart (ticks): TidTable[0] = this thread, ThreadBasePriority[0] "
			   "still the first thread's";
	sb_switch(b, 0, &s);
	{
		struct sb_sw s2 = {.new_tid = d,
				   .inc = 2,
				   .mark = "the first thread again: TidTable slot 1, its own base"};

		sb_switch(b, 0, &s2);
	}
	{
		struct sb_sw s3 = {
			.new_tid = 0,
			.inc = 1,
			.mark = "TidTable[0]'s thread: PriInc relative to the stale byte"};

		sb_switch(b, 0, &s3);
	}
	sb_finish(b, 0);
}

/* A short busy stream used by the clock, session and header variants. */
static void busy(struct sb *b, unsigned cpus, unsigned n)
{
	uint32_t t[6];

	for (unsigned i = 0; i < 6; i++) {
		t[i] = sb_new_tid(b);
	}
	for (unsigned cpu = 0; cpu < cpus; cpu++) {
		for (unsigned i = 0; i < n; i++) {
			struct sb_sw s = {0};

			s.new_tid = i + 1 == n ? 0 : t[(i + cpu) % 6];
			s.delta = sim_rng_range(&b->rng, 1, 3) * (i % 5 == 4 ? 0x5000 : 0x300);
			s.inc = (int)sim_rng_below(&b->rng, 3);
			s.wait = (uint32_t)sim_rng_below(&b->rng, 4);
			s.state = i % 3 == 2 ? TS_READY + 1 : 0;
			s.mark = cpu == 0 && i == 0 ? "the first switch" : NULL;
			sb_switch(b, cpu, &s);
		}
	}
}

/* All three clocks at once (arg 0), or two sessions on one clock (arg 1). */
static void e_clocks(struct sb *b, const struct edge *e)
{
	unsigned both = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;

	if (e->arg == 0) {
		sb_session_file(b, 0, "qpc");
		sb_add_session(b, "etwforge systime", SIM_CLOCK_SYSTIME, both, "systime");
		sb_add_session(b, "etwforge cycles", SIM_CLOCK_CYCLES, both, "cycles");
	} else if (e->arg == 1) {
		sb_session_file(b, 0, "a");
		sb_add_session(b, "etwforge same clock", SIM_CLOCK_QPC, both, "b");
	} else {
		sb_session_file(b, 0, "compact");
		sb_add_session(b, "etwforge plain", SIM_CLOCK_QPC, PRODUCER_F_CSWITCH, "plain");
	}
	sb_start(b);
	busy(b, 1, 24);
	sb_finish(b, 0);
}

/* Plain CSwitch (0x0524) with arg PMC counters on it. */
static void e_pmc_cswitch(struct sb *b, const struct edge *e)
{
	static const uint16_t hooks[] = {0x0524};

	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	sb_pmc(b, &b->cfg.sessions[0], (unsigned)e->arg, hooks, e->arg ? 1 : 0);
	sb_start(b);
	busy(b, 1, 6);
	sb_finish(b, 0);
}

/* PMC items on the batches (0x0525) or the spin locks (0x0529). */
static void e_pmc_other(struct sb *b, const struct edge *e)
{
	uint16_t hook = (uint16_t)e->arg;

	if (hook == 0x0529) {
		b->cfg.sessions[0].flags = PRODUCER_F_SPINLOCK;
	}
	sb_pmc(b, &b->cfg.sessions[0], 2, &hook, 1);
	sb_start(b);
	if (hook == 0x0529) {
		for (int i = 0; i < 4; i++) {
			struct sb_spin s = {.spins = 3u + (unsigned)i,
					    .hold = 500,
					    .mark = i == 0 ? "a SpinLock with 2 PMC counters"
							   : NULL};

			sb_sw(b, 0, 0, sb_new_tid(b));
			sb_spinlock(b, 0, &s);
		}
	} else {
		busy(b, 1, 20);
		sb_stop(b, SIM_CLOCK_QPC);
		sb_sw(b, 0, 0, sb_new_tid(b));
	}
	sb_finish(b, 0);
}

/* PEBS: arg 0 alone, 1 with PMC (PEBS wins), 2 both (pebs_and_pmc), 3 on a compact session. */
static void e_pebs(struct sb *b, const struct edge *e)
{
	static const uint16_t hooks[] = {0x0524};
	struct trace_session_cfg *s = &b->cfg.sessions[0];

	s->pebs = true;
	if (e->arg != 3) {
		s->flags = PRODUCER_F_CSWITCH;
	}
	if (e->arg == 1 || e->arg == 2) {
		sb_pmc(b, s, 2, hooks, 1);
	}
	b->cfg.pebs_and_pmc = e->arg == 2;
	sb_start(b);
	busy(b, 1, 6);
	sb_finish(b, 0);
}

/* x86: PERFINFO32 markers, SYSTEM32 logfile header, 0x30-byte WMI_SPINLOCK. */
static void e_x86(struct sb *b, const struct edge *e)
{
	b->cfg.arch = ETL_ARCH_X86;
	if (e->arg == 0) {
		b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	} else if (e->arg == 2) {
		b->cfg.sessions[0].flags = PRODUCER_F_SPINLOCK | PRODUCER_F_CSWITCH;
	}
	sb_start(b);
	busy(b, 1, 8);
	if (e->arg == 2) {
		struct sb_spin s = {
			.spins = 7, .hold = 900, .mark = "an x86 SpinLock (0x30 bytes)"};

		sb_spinlock(b, 0, &s);
	}
	sb_finish(b, 0);
}

/* Spin locks around each sampling threshold. */
static void e_spin(struct sb *b, const struct edge *e)
{
	b->cfg.sessions[0].flags = PRODUCER_F_SPINLOCK;
	if (e->arg == 5) {
		b->cfg.arch = ETL_ARCH_X86;
	}
	if (e->arg == 6) {
		/* EVENT_TRACE_SPINLOCK_INFORMATION set away from every default */
		b->cfg.spin.spin_threshold = 4;
		b->cfg.spin.acquire_sample_rate = 2000;
		b->cfg.spin.contention_sample_rate = 3;
		b->cfg.spin.hold_threshold = 5000000;
	} else if (e->arg == 7) {
		b->cfg.spin.hold_threshold = 0;
	}
	sb_start(b);
	sb_sw(b, 0, 0, sb_new_tid(b));
	switch (e->arg) {
	case 0: { /* hold time at and just above HoldThreshold */
		struct sb_spin at = {.hold = SPIN_DEFAULT_HOLD_THRESHOLD};
		struct sb_spin above = {.hold = SPIN_DEFAULT_HOLD_THRESHOLD + 1,
					.mark = "held HoldThreshold + 1 cycles: logged (hold)"};
		struct sb_spin wrap = {.hold = 0x100000000ull + 5, .mark = NULL};

		sb_spinlock(b, 0, &at); /* held exactly HoldThreshold: not logged */
		sb_spinlock(b, 0, &above);
		sb_spinlock(b, 0, &wrap); /* the hold test keeps 32 bits: 5 cycles, not logged */
		break;
	}
	case 1: { /* SpinCount 0 (uncontended) vs SpinThreshold, and a huge count */
		struct sb_spin none = {.hold = 100};
		struct sb_spin one = {.hold = 100,
				      .spins = SPIN_THRESHOLD,
				      .mark = "SpinCount = SpinThreshold: logged (contended)"};
		struct sb_spin big = {.hold = 100,
				      .spins = 0xFFFFFFFFu,
				      .wait = 0x1FFFFFFFFull,
				      .mark = "SpinCount 0xFFFFFFFF, wait cycles past 32 bits"};

		sb_spinlock(b, 0, &none);
		sb_spinlock(b, 0, &one);
		sb_spinlock(b, 0, &big);
		break;
	}
	case 2: /* the 1000th uncontended acquire is sampled */
		for (unsigned i = 1; i <= SPIN_DEFAULT_ACQUIRE_SAMPLE_RATE + 1; i++) {
			struct sb_spin s = {.hold = 60, .delta = 3};

			s.mark = i == SPIN_DEFAULT_ACQUIRE_SAMPLE_RATE
					 ? "the 1000th uncontended acquire: logged "
					   "(acquire_sample)"
					 : NULL;
			sb_spinlock(b, 0, &s);
		}
		break;
	case 3: /* nested 8 deep, released inner first; a 9th is not tracked */
		for (unsigned d = 9; d >= 1; d--) {
			struct sb_spin s = {.hold = 200u * d, .spins = 2, .depth = (uint8_t)d};

			s.untracked = d == 9;
			s.mark = d == 8 ? "AcquireDepth 8: the deepest tracked" : NULL;
			sb_spinlock(b, 0, &s);
		}
		break;
	case 4: /* every AcquireMode with and without the DPC and ISR flags */
		for (uint8_t mode = 0; mode <= 4; mode++) {
			for (unsigned f = 0; f < 3; f++) {
				struct sb_spin s = {.hold = 300, .spins = 1, .mode = mode};

				s.dpc = f == 1;
				s.isr = f == 2;
				s.irql = f == 2 ? 13 : 2;
				s.interrupts = f == 2 ? 1 : 0;
				s.mark = mode == 0 && f == 1   ? "ExecuteDpc (flag 0x40)"
					 : mode == 0 && f == 2 ? "ExecuteIsr (flag 0x80)"
					 : mode == 4 && f == 0 ? "AcquireMode 4 (converted)"
							       : NULL;
				sb_spinlock(b, 0, &s);
			}
		}
		break;
	case 6: /* set parameters: every threshold moved, releases on each side of each */
		for (unsigned i = 0; i < 12; i++) {
			static const uint32_t spins[] = {3, 4, 5, 4, 4, 4, 0, 0, 0, 0, 0, 0};
			struct sb_spin s = {.hold = i == 10   ? 5000000u
						    : i == 11 ? 5000001u
							      : 200,
					    .spins = spins[i]};

			s.mark = i == 2	   ? "the 3rd contention, a multiple of 3: logged"
				 : i == 5  ? "the 6th contention: logged"
				 : i == 11 ? "held 5000001 cycles > HoldThreshold 5000000: logged"
					   : NULL;
			sb_spinlock(b, 0, &s);
		}
		break;
	case 7: /* HoldThreshold 0: the hold test is off, however long a lock is held */
		for (unsigned i = 0; i < 3; i++) {
			struct sb_spin s = {.hold = 0xFFFFFFFFu, .spins = i == 2 ? 1u : 0u};

			s.mark = i == 2 ? "held 0xFFFFFFFF cycles, hold test off: logged as "
					  "contended"
					: NULL;
			sb_spinlock(b, 0, &s);
		}
		break;
	default: { /* x86 */
		struct sb_spin s = {
			.hold = 400, .spins = 2, .mark = "x86 WMI_SPINLOCK, 0x30 bytes"};

		sb_spinlock(b, 0, &s);
		break;
	}
	}
	sb_finish(b, 0);
}

/*
 * A 4 KiB buffer filled to its last byte: 0x48 + the configuration rundown
 * 0x0F4B (0x30) + 94 x 0x28 (CSwitch) + 3 x 0x48 (SpinLock) = 4096; the
 * next event opens a second buffer.
 */
static void e_buffer_full(struct sb *b, const struct edge *e)
{
	uint32_t a = 0, c = 0;

	(void)e;
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK;
	sb_start(b);
	a = sb_new_tid(b);
	c = sb_new_tid(b);
	for (unsigned i = 0; i < 95; i++) {
		struct sb_sw s = {.new_tid = i % 2 ? c : a};

		s.mark = i == 93   ? "the last CSwitch: the buffer ends exactly at 4096"
			 : i == 94 ? "the next CSwitch opens a new buffer"
				   : NULL;
		sb_switch(b, 0, &s);
		if (i == 10 || i == 50 || i == 70) {
			struct sb_spin sp = {.hold = 100, .spins = 1};

			sb_spinlock(b, 0, &sp);
		}
	}
	sb_finish(b, 0);
}

/* A pool of 2 buffers and a slow flush: events and buffers are lost. */
static void e_lost(struct sb *b, const struct edge *e)
{
	(void)e;
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	b->cfg.sessions[0].pool_buffers = 1;
	b->cfg.sessions[0].flush_latency = 20000;
	b->verifies = false; /* verify refuses a file that lost events */
	sb_start(b);
	busy(b, 1, 260);
	sb_finish(b, 0);
}

/* arg CPUs, each with a few switches. */
static void e_cpus(struct sb *b, const struct edge *e)
{
	b->cfg.cpus = (unsigned)e->arg;
	sb_start(b);
	busy(b, (unsigned)e->arg, e->arg > 1 ? 3 : 12);
	if (e->arg > 1) {
		struct sb_sw s = {.new_tid = 0, .mark = "a switch on the last CPU"};

		sb_sw(b, (unsigned)e->arg - 1, 0, sb_new_tid(b));
		sb_switch(b, (unsigned)e->arg - 1, &s);
	}
	sb_finish(b, 0);
}

/* ---- identity and rundown records ------------------------------------------------ */

/* An image line's hook (STACK_IMAGE_FACTS 2.1): Load is the Process group's type 10. */
static uint16_t image_hook(enum sim_event ev)
{
	switch (ev) {
	case SIM_EVENT_LOAD:
		return 0x030A;
	case SIM_EVENT_UNLOAD:
		return 0x1402;
	case SIM_EVENT_DCSTART:
		return 0x1403;
	case SIM_EVENT_DCEND:
		return 0x1404;
	case SIM_EVENT_KERNEL_BASE:
		return 0x1421;
	default:
		return 0x1422;
	}
}

/* The hook a record line becomes (the producer's table, producer_records.c). */
static uint16_t rec_hook(const struct sim_record *r)
{
	static const uint16_t process[] = {0x0301, 0x0302, 0x0303, 0x0304, 0x0327};
	static const uint16_t thread[] = {0x0501, 0x0502, 0x0503, 0x0504};

	switch (r->kind) {
	case SIM_REC_PROCESS:
		return r->u.process.event <= SIM_EVENT_DEFUNCT ? process[r->u.process.event] : 0;
	case SIM_REC_THREAD:
		return r->u.thread.event <= SIM_EVENT_DCEND ? thread[r->u.thread.event] : 0;
	case SIM_REC_THREAD_NAME:
		return 0x0548;
	case SIM_REC_READY:
		return 0x0532;
	case SIM_REC_SAMPLE:
		return 0x0F2E;
	case SIM_REC_INTERVAL:
		return r->u.interval.event == SIM_EVENT_SET	  ? 0x0F48
		       : r->u.interval.event == SIM_EVENT_DCSTART ? 0x0F49
								  : 0x0F4A;
	case SIM_REC_CPU_CONFIG:
		return 0x0B0A;
	case SIM_REC_MASKS:
		return r->u.masks.event == SIM_EVENT_NEW ? 0x0005 : 0x0020;
	case SIM_REC_DPC:
		return r->u.dpc.event == SIM_EVENT_ISR	       ? 0x0F43
		       : r->u.dpc.event == SIM_EVENT_TIMER_DPC ? 0x0F45
		       : r->u.dpc.event == SIM_EVENT_DPC       ? 0x0F44
							       : 0x0F42;
	case SIM_REC_IMAGE:
		return image_hook(r->u.image.event);
	case SIM_REC_STACK:
		return 0x1820;
	default:
		return 0x0008;
	}
}

/* One identity or rundown line on @cpu at the times @ts (each clock's value). */
static void sb_rec_at(struct sb *b, unsigned cpu, struct sim_record *r, const uint64_t *ts,
		      const char *mark)
{
	uint16_t hook = rec_hook(r);
	struct sb_hook_count *h = NULL;

	if (b->err || !b->started) {
		sb_fail(b, -EINVAL);
		return;
	}
	r->u.head.cpu = cpu;
	memcpy(r->u.head.ts, ts, sizeof(r->u.head.ts));
	for (unsigned i = 0; i < b->nhooks; i++) {
		if (b->hooks[i].hook == hook && b->hooks[i].cpu == cpu) {
			h = &b->hooks[i];
		}
	}
	if (!h && b->nhooks < sizeof(b->hooks) / sizeof(b->hooks[0])) {
		h = &b->hooks[b->nhooks++];
		h->hook = hook;
		h->cpu = cpu;
		h->n = 0;
	}
	if (mark && h) {
		sb_mark(b, CORPUS_MARK_RECORD, cpu, h->n, mark);
		b->marks[b->nmarks - 1].hook = hook;
	}
	if (h) {
		h->n++;
	}
	if (truth_write_record(b->f, &b->cfg, r) < 0) {
		sb_fail(b, -EIO);
	}
}

/* One identity or rundown line on @cpu, DEFAULT_DELTA after its last record. */
static void sb_rec(struct sb *b, unsigned cpu, struct sim_record *r, const char *mark)
{
	if (b->err || !b->started) {
		sb_fail(b, -EINVAL);
		return;
	}
	sb_advance(b, cpu, DEFAULT_DELTA);
	sb_rec_at(b, cpu, r, b->cpu[cpu].ts, mark);
}

static bool sb_x86(const struct sb *b)
{
	return b->cfg.arch == ETL_ARCH_X86;
}

/* A kernel address of the stream's machine: @off past the seed's base. */
static uint64_t sb_kaddr(const struct sb *b, uint64_t off)
{
	return (sb_x86(b) ? 0x84000000u : 0xFFFFB48000000000ull) + b->kbase + off;
}

/* Identity records of one identity edge: what each process and thread line says. */
struct sb_proc {
	enum sim_event event;
	uint32_t pid, ppid;
	const char *image, *sid, *cmdline, *package, *app_id;
	int32_t exit_status;
	const char *mark;
};

static void sb_process(struct sb *b, const struct sb_proc *pr)
{
	struct sim_record r = {.kind = SIM_REC_PROCESS};
	struct sim_process *p = &r.u.process;

	p->event = pr->event;
	p->pid = pr->pid;
	p->ppid = pr->ppid;
	p->key = sb_kaddr(b, 0x100000u + 0x100u * (pr->pid & 0xFFFFu));
	p->session = pr->pid <= 4 ? UINT32_MAX : 1;
	p->exit_status = pr->event == SIM_EVENT_END || pr->event == SIM_EVENT_DEFUNCT
				 ? pr->exit_status
			 : pr->pid == 0 ? 0
					: 0x103;
	p->dtb = 0x1AD000u + 0x1000u * (pr->pid & 0xFFFu);
	p->flags = pr->pid == 4 ? 4u : 0u;
	p->sid = pr->sid;
	p->sid_token = sb_kaddr(b, 0x20u + 0x10u * sim_rng_below(&b->rng, 256));
	p->image = pr->image;
	p->cmdline = pr->cmdline;
	p->package = pr->package;
	p->app_id = pr->app_id;
	if (pr->event == SIM_EVENT_START || pr->event == SIM_EVENT_END) {
		p->ctx_pid = pr->event == SIM_EVENT_START ? pr->ppid : pr->pid;
		p->ctx_tid = 4u * (uint32_t)sim_rng_range(&b->rng, 16, 4000);
		p->kernel_time = (uint32_t)sim_rng_below(&b->rng, 50);
	}
	if (pr->event == SIM_EVENT_DEFUNCT) {
		p->exit_time = (uint64_t)b->cfg.start_time + 10000000u;
	}
	sb_rec(b, 0, &r, pr->mark);
}

static void sb_thread(struct sb *b, enum sim_event ev, uint32_t pid, uint32_t tid, const char *name,
		      const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_THREAD};
	struct sim_thread *t = &r.u.thread;
	uint64_t stack = sb_kaddr(b, 0x4000000u + 0x8000u * (tid & 0xFFFu));

	t->event = ev;
	t->pid = pid;
	t->tid = tid;
	t->stack_base = stack;
	t->stack_limit = stack - 0x6000u;
	if (pid > 4) {
		t->user_stack_base = sb_x86(b) ? 0x00200000u : 0x000000A000000000ull;
		t->user_stack_limit = t->user_stack_base - 0x3000u;
		t->teb = sb_x86(b) ? 0x7FFD0000u : 0x000000C000010000ull + 0x2000u * tid;
		t->win32_start = sb_x86(b) ? 0x00401000u : 0x00007FF600201000ull;
	}
	t->affinity = b->cfg.cpus >= 32 ? 0xFFFFFFFFu : (1u << b->cfg.cpus) - 1;
	t->base_pri = (int8_t)(pid == 0 ? 0 : sb_base(b, tid));
	t->page_pri = 5;
	t->io_pri = 2;
	t->name = name;
	if (ev == SIM_EVENT_START) {
		t->ctx_tid = 4u * (uint32_t)sim_rng_range(&b->rng, 16, 4000);
		t->ctx_pid = pid;
	} else {
		t->ctx_tid = tid;
		t->ctx_pid = pid;
	}
	sb_rec(b, 0, &r, mark);
}

/* A thread's name: in its Thread record on the targets that carry one, else ThreadSetName. */
static void sb_thread_named(struct sb *b, enum sim_event ev, uint32_t pid, uint32_t tid,
			    const char *name, const char *mark)
{
	sb_thread(b, ev, pid, tid, name, b->cfg.target->thread_name ? mark : NULL);
	if (!b->cfg.target->thread_name && name &&
	    (ev == SIM_EVENT_START || ev == SIM_EVENT_DCSTART)) {
		struct sim_record r = {.kind = SIM_REC_THREAD_NAME};

		r.u.thread_name.pid = pid;
		r.u.thread_name.tid = tid;
		r.u.thread_name.name = name;
		sb_rec(b, 0, &r, mark);
	}
}

static void sb_masks(struct sb *b, enum sim_event ev, bool enabled)
{
	struct sim_record r = {.kind = SIM_REC_MASKS};

	r.u.masks.event = ev;
	r.u.masks.enabled = enabled;
	sb_rec(b, 0, &r, NULL);
}

static void sb_rundown_done(struct sb *b)
{
	struct sim_record r = {.kind = SIM_REC_RUNDOWN};

	sb_rec(b, 0, &r, NULL);
}

static void sb_interval(struct sb *b, enum sim_event ev, uint32_t now, uint32_t old)
{
	struct sim_record r = {.kind = SIM_REC_INTERVAL};

	r.u.interval.event = ev;
	r.u.interval.new_interval = now;
	r.u.interval.old_interval = old;
	r.u.interval.source_name = "Timer";
	r.u.interval.ctx_tid = 4u * (uint32_t)sim_rng_range(&b->rng, 16, 4000);
	r.u.interval.ctx_pid = 4;
	sb_rec(b, 0, &r, NULL);
}

static void sb_config(struct sb *b, uint32_t nproc, const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_CPU_CONFIG};
	struct sim_cpu_config *c = &r.u.cpu_config;

	c->mhz = b->cfg.cpu_mhz;
	c->nproc = nproc;
	c->memory_mb = 16384;
	c->page_size = 4096;
	c->alloc_gran = 65536;
	c->computer_name = "ETWFORGE-CORPUS";
	c->domain_name = "WORKGROUP";
	c->highest_user = sb_x86(b) ? 0x7FFEFFFFu : 0x7FFFFFFEFFFFull;
	c->arch = sb_x86(b) ? 0 : 9;
	c->level = 6;
	c->revision = 0x9E0A;
	c->pae = 1;
	c->nx = 1;
	c->memory_speed = 3200;
	sb_rec(b, 0, &r, mark);
}

static void sb_ready(struct sb *b, uint32_t waker, uint32_t waker_pid, uint32_t tid, uint8_t flags,
		     const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_READY};

	r.u.ready.waker_tid = waker;
	r.u.ready.waker_pid = waker_pid;
	r.u.ready.tid = tid;
	r.u.ready.adjust_reason = 1;
	r.u.ready.adjust_increment = (int8_t)sim_rng_range(&b->rng, 0, 2);
	r.u.ready.flags = flags;
	sb_rec(b, 0, &r, mark);
}

static void sb_sample(struct sb *b, uint32_t tid, const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_SAMPLE};

	r.u.sample.tid = tid;
	r.u.sample.ip = (sb_x86(b) ? 0x81000000u : 0xFFFFF80310000000ull) +
			sim_rng_below(&b->rng, 0x100000);
	r.u.sample.count = 1;
	r.u.sample.priority = (uint8_t)(tid ? sb_base(b, tid) : 16);
	sb_rec(b, 0, &r, mark);
}

/* The sessions of an identity edge: @arg2 1 for x86, @str the target. */
static void sb_ident_setup(struct sb *b, const struct edge *e)
{
	sb_target(b, e->str ? e->str : "win10-1903");
	b->cfg.arch = e->arg2 == 1 ? ETL_ARCH_X86 : ETL_ARCH_X64;
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT |
				   PRODUCER_F_PROC_THREAD | PRODUCER_F_DISPATCHER |
				   PRODUCER_F_PROFILE;
	b->kbase = 0x1000u * sim_rng_below(&b->rng, 0x4000);
}

/* The start of a session: masks, Idle and System with their threads (the rundown's head). */
static void sb_rundown_head(struct sb *b)
{
	sb_masks(b, SIM_EVENT_END, false);
	sb_masks(b, SIM_EVENT_NEW, true);
	sb_process(b, &(struct sb_proc){
			      .event = SIM_EVENT_DCSTART, .image = "Idle", .sid = "S-1-5-18"});
	for (unsigned cpu = 0; cpu < b->cfg.cpus; cpu++) {
		sb_thread(b, SIM_EVENT_DCSTART, 0, 0, NULL, NULL);
	}
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DCSTART,
					.pid = 4,
					.image = "System",
					.sid = "S-1-5-18"});
	sb_thread(b, SIM_EVENT_DCSTART, 4, 8, NULL, NULL);
}

/*
 * Every identity record of a target and pointer size: the rundown at the
 * start, ReadyThread and SampledProfile between switches, a process
 * started and ended with its thread (named in the record or by
 * ThreadSetName), Defunct, the interval set, the rundown at the stop.
 */
static void e_ident_all(struct sb *b, const struct edge *e)
{
	uint32_t app = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), child = app + 4;
	uint32_t t1, t2, t3;

	sb_ident_setup(b, e);
	sb_start(b);
	t1 = sb_new_tid(b);
	t2 = sb_new_tid(b);
	t3 = sb_new_tid(b);
	sb_rundown_head(b);
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DCSTART,
					.pid = app,
					.ppid = 4,
					.image = "explorer.exe",
					.sid = "S-1-5-21-2935914779-1618742390-1451969622-1001",
					.cmdline = "C:\\Windows\\explorer.exe",
					.mark = "Process DCStart with a 5-sub-authority SID"});
	sb_thread_named(b, SIM_EVENT_DCSTART, app, t1, "main",
			"the first thread's name (Thread v3 name, or ThreadSetName)");
	sb_thread(b, SIM_EVENT_DCSTART, app, t2, NULL, "Thread DCStart");
	sb_interval(b, SIM_EVENT_DCSTART, 10000, 10000);
	sb_rundown_done(b);
	sb_config(b, b->cfg.cpus, "SystemConfig CPU");
	sb_sw(b, 0, 0, t1);
	sb_ready(b, t1, app, t2, 0, "ReadyThread by a running thread");
	sb_sample(b, t1, "SampledProfile of a running thread");
	sb_sw(b, 0, 0, t2);
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_START,
					.pid = child,
					.ppid = app,
					.image = "notepad.exe",
					.sid = "S-1-5-21-2935914779-1618742390-1451969622-1001",
					.cmdline = "notepad.exe a.txt",
					.mark = "Process Start"});
	sb_thread_named(b, SIM_EVENT_START, child, t3, "notepad main", NULL);
	sb_sw(b, 0, 0, t3);
	sb_sample(b, t3, NULL);
	sb_sw(b, 0, 0, 0);
	sb_ready(b, 0, 0, t3, 1, "ReadyThread from an idle CPU's DPC");
	sb_sample(b, 0, "SampledProfile of the idle thread");
	sb_sw(b, 0, 0, t3);
	sb_sw(b, 0, 0, 0);
	sb_thread(b, SIM_EVENT_END, child, t3, "notepad main", "Thread End");
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_END,
					.pid = child,
					.ppid = app,
					.image = "notepad.exe",
					.sid = "S-1-5-21-2935914779-1618742390-1451969622-1001",
					.cmdline = "notepad.exe a.txt",
					.mark = "Process End"});
	sb_interval(b, SIM_EVENT_SET, 5000, 10000);
	/* the stop: configuration, masks, DCEnd, interval, masks cleared, rundown */
	sb_config(b, b->cfg.cpus, NULL);
	sb_masks(b, SIM_EVENT_END, true);
	sb_thread(b, SIM_EVENT_DCEND, 0, 0, NULL, NULL);
	sb_process(b,
		   &(struct sb_proc){.event = SIM_EVENT_DCEND, .image = "Idle", .sid = "S-1-5-18"});
	sb_thread(b, SIM_EVENT_DCEND, app, t2, NULL, NULL);
	sb_thread(b, SIM_EVENT_DCEND, app, t1, "main", "Thread DCEnd");
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DCEND,
					.pid = app,
					.ppid = 4,
					.image = "explorer.exe",
					.sid = "S-1-5-21-2935914779-1618742390-1451969622-1001",
					.cmdline = "C:\\Windows\\explorer.exe",
					.mark = "Process DCEnd"});
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DEFUNCT,
					.pid = child,
					.ppid = app,
					.image = "notepad.exe",
					.sid = "S-1-5-21-2935914779-1618742390-1451969622-1001",
					.exit_status = 1,
					.mark = "Process Defunct"});
	sb_interval(b, SIM_EVENT_DCEND, 5000, 5000);
	sb_masks(b, SIM_EVENT_NEW, false);
	sb_rundown_done(b);
	sb_finish(b, 0);
}

/* A process whose UserSID is @str2: NULL (the 4-byte form) or a SID of 1 or 15 sub-authorities. */
static void e_ident_sid(struct sb *b, const struct edge *e)
{
	static const char *const sids[] = {NULL, "S-1-5-18",
					   "S-1-5-21-1-2-3-4-5-6-7-8-9-10-11-12-13-4294967295"};
	const char *sid = sids[e->arg];
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t;

	sb_ident_setup(b, e);
	sb_start(b);
	t = sb_new_tid(b);
	sb_rundown_head(b);
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DCSTART,
					.pid = pid,
					.ppid = 4,
					.image = "svchost.exe",
					.sid = sid,
					.cmdline = "svchost.exe -k netsvcs",
					.mark = "the Process record with the UserSID"});
	sb_thread(b, SIM_EVENT_DCSTART, pid, t, "svc", NULL);
	sb_rundown_done(b);
	sb_sw(b, 0, 0, t);
	sb_sw(b, 0, 0, 0);
	sb_process(b,
		   &(struct sb_proc){.event = SIM_EVENT_END,
				     .pid = pid,
				     .ppid = 4,
				     .image = "svchost.exe",
				     .sid = sid,
				     .mark = "Process End with the same UserSID (SYSTEM header)"});
	sb_finish(b, 0);
}

/* Empty strings (arg 0) or odd lengths (arg 1: 1 and 3 UTF-16 units, a surrogate pair, odd offsets). */
static void e_ident_names(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t1, t2, t3;
	bool odd = e->arg == 1;

	sb_ident_setup(b, e);
	sb_start(b);
	t1 = sb_new_tid(b);
	t2 = sb_new_tid(b);
	t3 = sb_new_tid(b);
	sb_rundown_head(b);
	sb_process(b, &(struct sb_proc){
			      .event = SIM_EVENT_DCSTART,
			      .pid = pid,
			      .ppid = 4,
			      /* "ab.exe\0" is 7 bytes: the UTF-16 strings start at odd offsets */
			      .image = odd ? "ab.exe" : "",
			      .sid = "S-1-5-18",
			      .cmdline = odd ? "a b" : "",
			      .package = odd ? "P" : "",
			      .app_id = odd ? "\xF0\x9F\x98\x80" : "",
			      .mark = odd ? "Process with strings at odd offsets"
					  : "Process with an empty image and empty strings"});
	sb_thread_named(b, SIM_EVENT_DCSTART, pid, t1, odd ? "x" : "",
			odd ? "a 1-unit thread name" : "an empty thread name");
	sb_thread_named(b, SIM_EVENT_DCSTART, pid, t2, odd ? "abc" : "", NULL);
	sb_thread_named(b, SIM_EVENT_DCSTART, pid, t3, odd ? "\xF0\x9F\x98\x80" : "", NULL);
	sb_rundown_done(b);
	sb_sw(b, 0, 0, t1);
	sb_sw(b, 0, 0, t2);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/*
 * A DPC or ISR record on CPU 0 that ran from the CPU's last record's time to
 * its own (DEFAULT_DELTA: a positive duration); an ISR's vector @vector.
 */
static void sb_dpc(struct sb *b, enum sim_event ev, uint64_t routine, uint16_t vector,
		   const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_DPC};

	r.u.dpc.event = ev;
	memcpy(r.u.dpc.initial_time, b->cpu[0].ts, sizeof(r.u.dpc.initial_time));
	r.u.dpc.routine = routine;
	if (ev == SIM_EVENT_ISR) {
		r.u.dpc.return_value = 1;
		r.u.dpc.vector = vector;
	}
	sb_rec(b, 0, &r, mark);
}

/*
 * DPC and ISR time (STACK_IMAGE_FACTS 4, 5): an idle sample taken in a DPC
 * (flags 0x81) and one in an ISR (0x82), the clock's ISR, the timer DPC
 * that readies a thread, a driver's ISR (vector 0x1A0, past a byte) and
 * DPC, a ThreadedDPC; sessions with dpc and interrupt.
 */
static void e_ident_dpc(struct sb *b, const struct edge *e)
{
	uint32_t t, pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);
	struct sim_record r = {.kind = SIM_REC_SAMPLE};
	uint64_t k;

	sb_ident_setup(b, e);
	k = sb_x86(b) ? 0x82000000u : 0xFFFFF80310000000ull;
	b->cfg.sessions[0].flags |= PRODUCER_F_DPC | PRODUCER_F_INTERRUPT;
	sb_start(b);
	t = sb_new_tid(b);
	sb_rundown_head(b);
	sb_thread(b, SIM_EVENT_DCSTART, pid, t, NULL, NULL);
	sb_rundown_done(b);
	r.u.sample.ip = k + 0x2A0140u;
	r.u.sample.count = 1;
	r.u.sample.dpc = true;
	r.u.sample.priority = 16;
	sb_rec(b, 0, &r, "an idle sample in a DPC (flags 0x81)");
	r.u.sample.dpc = false;
	r.u.sample.isr = true;
	r.u.sample.ip = k + 0x9C0080u;
	sb_rec(b, 0, &r, "an idle sample in an ISR (flags 0x82)");
	sb_dpc(b, SIM_EVENT_ISR, k + 0x9C0080u, 0xD1, "ISR: the clock interrupt, vector 0xD1");
	sb_ready(b, 0, 0, t, 1, "ReadyThread from the timer DPC");
	sb_dpc(b, SIM_EVENT_TIMER_DPC, k + 0x2A0140u, 0, "TimerDPC");
	sb_dpc(b, SIM_EVENT_ISR, k + 0x800200u, 0x1A0, "ISR with a vector past a byte");
	sb_dpc(b, SIM_EVENT_DPC, k + 0x800100u, 0, "DPC");
	sb_dpc(b, SIM_EVENT_THREADED_DPC, k + 0x800300u, 0, "ThreadedDPC");
	sb_sw(b, 0, 0, t);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* A thread (with its switches, wake-up and sample) whose process never appears. */
static void e_ident_orphan(struct sb *b, const struct edge *e)
{
	uint32_t t, pid = 4u * (uint32_t)sim_rng_range(&b->rng, 3000, 4000);

	sb_ident_setup(b, e);
	sb_start(b);
	t = sb_new_tid(b);
	sb_rundown_head(b);
	sb_thread_named(b, SIM_EVENT_DCSTART, pid, t, "orphan",
			"a thread of a process no record names");
	sb_rundown_done(b);
	sb_ready(b, 0, 0, t, 1, NULL);
	sb_sw(b, 0, 0, t);
	sb_sample(b, t, NULL);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* Process and Thread End before any DCStart: a consumer meets the end of what it never saw. */
static void e_ident_end_first(struct sb *b, const struct edge *e)
{
	uint32_t t, pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);

	sb_ident_setup(b, e);
	sb_start(b);
	t = sb_new_tid(b);
	sb_thread(b, SIM_EVENT_END, pid, t, "gone", "Thread End, the first record");
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_END,
					.pid = pid,
					.ppid = 4,
					.image = "gone.exe",
					.sid = "S-1-5-18",
					.exit_status = 0,
					.mark = "Process End before any DCStart"});
	sb_rundown_head(b);
	sb_rundown_done(b);
	sb_sw(b, 0, 0, sb_new_tid(b));
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* A rundown of @arg processes with a thread each: the DCStart records fill a 4 KiB buffer. */
static void e_ident_rundown_split(struct sb *b, const struct edge *e)
{
	char image[32], mark[96];

	sb_ident_setup(b, e);
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH | PRODUCER_F_PROC_THREAD;
	sb_start(b);
	sb_rundown_head(b);
	for (unsigned i = 0; i < (unsigned)e->arg; i++) {
		uint32_t pid = 1000u + 8u * i;

		snprintf(image, sizeof(image), "worker%02u.exe", i);
		snprintf(mark, sizeof(mark), "Process DCStart %u of %u", i + 1, (unsigned)e->arg);
		sb_process(b, &(struct sb_proc){
				      .event = SIM_EVENT_DCSTART,
				      .pid = pid,
				      .ppid = 4,
				      .image = image,
				      .sid = "S-1-5-19",
				      .cmdline = image,
				      .mark = i == 0 || i + 1 == (unsigned)e->arg ? mark : NULL});
		sb_thread(b, SIM_EVENT_DCSTART, pid, 4u * (uint32_t)(2000 + i), image, NULL);
	}
	sb_rundown_done(b);
	sb_sw(b, 0, 0, 4u * 2000u);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* SystemConfig CPU says @arg processors, the logfile header 2. */
static void e_ident_config(struct sb *b, const struct edge *e)
{
	sb_ident_setup(b, e);
	b->cfg.cpus = 2;
	sb_start(b);
	sb_rundown_head(b);
	sb_rundown_done(b);
	sb_config(b, (uint32_t)e->arg, "SystemConfig CPU: NumberOfProcessors != the header's");
	busy(b, 2, 4);
	sb_finish(b, 0);
}

/* ---- image and stack records ------------------------------------------------------ */

/*
 * The image records (Load 0x030A, Unload 0x1402, DCStart/DCEnd
 * 0x1403/0x1404), StackWalk 0x1820 and a merge's KernelTraceControl
 * identities (ImageID, DbgID_RSDS / None): STACK_IMAGE_FACTS 2, 3, 6.
 * The frames and paths are made up; the shapes are the kernel's.
 */

/* The sessions of an image or stack edge: @x86, samples with their stacks, images, @merged. */
static void sb_image_setup(struct sb *b, bool x86, bool merged)
{
	struct trace_session_cfg *s = &b->cfg.sessions[0];

	sb_target(b, "win10-1903");
	b->cfg.arch = x86 ? ETL_ARCH_X86 : ETL_ARCH_X64;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT | PRODUCER_F_PROC_THREAD |
		   PRODUCER_F_PROFILE | PRODUCER_F_LOADER | PRODUCER_F_STACK_PROFILE;
	s->merged = merged;
	s->buffer_size = 8192; /* a 192-frame StackWalk is 0x610 bytes */
	b->kbase = 0x1000u * sim_rng_below(&b->rng, 0x4000);
}

/* One image line; a user image's DefaultBase is its base, a kernel module's 0. */
struct sb_image {
	enum sim_event event;
	uint32_t pid;
	uint64_t base, size;
	const char *path;
	const char *pdb_guid; /* NULL: DbgID None in a merged session */
	const char *pdb_name;
	const char *mark;
};

static void sb_image(struct sb *b, const struct sb_image *im)
{
	struct sim_record r = {.kind = SIM_REC_IMAGE};
	struct sim_image *p = &r.u.image;

	p->event = im->event;
	p->pid = im->pid;
	p->base = im->base;
	p->size = im->size;
	p->default_base = im->pid ? im->base : 0;
	p->checksum = 0x10000u + (uint32_t)sim_rng_below(&b->rng, 0x100000);
	p->timestamp = 0x50000000u + (uint32_t)sim_rng_below(&b->rng, 0x10000000);
	p->signature_level = im->pid ? 12 : 0;
	p->signature_type = 1;
	p->file_name = im->path;
	p->pdb_guid = im->pdb_guid;
	p->pdb_age = im->pdb_guid ? 1 + (uint32_t)sim_rng_below(&b->rng, 3) : 0;
	p->pdb_name = im->pdb_name;
	if (im->event == SIM_EVENT_LOAD || im->event == SIM_EVENT_UNLOAD ||
	    (im->pid == 0 && (im->event == SIM_EVENT_DCSTART || im->event == SIM_EVENT_DCEND))) {
		p->ctx_pid = im->pid ? im->pid : 4;
		p->ctx_tid = 4u * (uint32_t)sim_rng_range(&b->rng, 16, 4000);
	}
	sb_rec(b, 0, &r, im->mark);
}

/* @n frames as a stack line's text ("0x... 0x..."), kernel or user addresses of the arch. */
static void sb_frames(struct sb *b, unsigned n, bool kernel, char *out, size_t cap)
{
	uint64_t base = sb_x86(b) ? (kernel ? 0x81000000u : 0x00401000u)
				  : (kernel ? 0xFFFFF80310000000ull : 0x00007FF600201000ull);
	size_t len = 0;

	out[0] = '\0';
	for (unsigned k = 0; k < n && len < cap; k++) {
		uint64_t ip = base + 0x10000u * k + sim_rng_below(&b->rng, 0x10000);
		int w = snprintf(out + len, cap - len, "%s0x%llx", k ? " " : "",
				 (unsigned long long)ip);

		if (w < 0 || (size_t)w >= cap - len) {
			sb_fail(b, -ENOSPC);
			return;
		}
		len += (size_t)w;
	}
}

/* The stack of frames @text ("0x.. 0x..") on @cpu for the event at @ts. */
static void sb_stack_text(struct sb *b, unsigned cpu, const uint64_t *ts, uint32_t pid,
			  uint32_t tid, const char *text, const char *mark)
{
	struct sim_record r = {.kind = SIM_REC_STACK};

	r.u.stack.event = SIM_EVENT_PROFILE;
	r.u.stack.pid = pid;
	r.u.stack.tid = tid;
	r.u.stack.frames = text;
	sb_rec_at(b, cpu, &r, ts, mark);
}

/*
 * A StackWalk of @n frames on @cpu for the event at @ts (its EventTimeStamp
 * and header time): the sample's own times, or any other for an orphan.
 */
static void sb_stack(struct sb *b, unsigned cpu, const uint64_t *ts, uint32_t pid, uint32_t tid,
		     unsigned n, bool kernel, const char *mark)
{
	char text[ETW_STACK_MAX_FRAMES * 19 + 1];

	sb_frames(b, n, kernel, text, sizeof(text));
	sb_stack_text(b, cpu, ts, pid, tid, text, mark);
}

/* A process with one thread in the rundown; the thread runs. Return: its TID. */
static uint32_t sb_image_process(struct sb *b, uint32_t pid, const char *image)
{
	uint32_t t = sb_new_tid(b);

	sb_rundown_head(b);
	sb_process(b, &(struct sb_proc){.event = SIM_EVENT_DCSTART,
					.pid = pid,
					.ppid = 4,
					.image = image,
					.sid = "S-1-5-18"});
	sb_thread(b, SIM_EVENT_DCSTART, pid, t, NULL, NULL);
	sb_rundown_done(b);
	sb_sw(b, 0, 0, t);
	return t;
}

/*
 * Samples of a running thread, each followed on its CPU by the StackWalk
 * of one depth of @e->arg..@e->arg2 (odd depths: every other one), kernel
 * frames then user frames. @e->str "x86" for 32-bit pointers.
 */
static void e_stack_depth(struct sb *b, const struct edge *e)
{
	bool x86 = e->str && !strcmp(e->str, "x86");
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t;
	unsigned step = e->arg2 > e->arg && e->arg % 2 ? 2 : 1;

	sb_image_setup(b, x86, false);
	sb_start(b);
	t = sb_image_process(b, pid, "app.exe");
	for (int64_t n = e->arg; n <= (e->arg2 > e->arg ? e->arg2 : e->arg); n += step) {
		char what[96];

		snprintf(what, sizeof(what), "a StackWalk of %u frames", (unsigned)n);
		sb_sample(b, t, NULL);
		sb_stack(b, 0, b->cpu[0].ts, pid, t, (unsigned)n, n % 2 == 1,
			 n == e->arg ? what : NULL);
	}
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* A StackWalk whose EventTimeStamp names no event: 7 units before the next sample. */
static void e_stack_orphan(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t;
	uint64_t ts[SIM_CLOCK_SLOTS];

	(void)e;
	sb_image_setup(b, false, false);
	sb_start(b);
	t = sb_image_process(b, pid, "app.exe");
	sb_sample(b, t, "the sample before");
	sb_stack(b, 0, b->cpu[0].ts, pid, t, 3, true, NULL);
	memcpy(ts, b->cpu[0].ts, sizeof(ts));
	ts[b->cfg.sessions[0].clock] +=
		DEFAULT_DELTA - 7; /* the next sample comes DEFAULT_DELTA on */
	sb_stack(b, 0, ts, pid, t, 2, true, "a StackWalk whose event is missing");
	sb_sample(b, t, "the sample after (7 units later)");
	sb_stack(b, 0, b->cpu[0].ts, pid, t, 4, true, NULL);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/*
 * Stack caching with one set of 4 entries: six distinct stacks of 4 to 9
 * frames, then the first again. Key references (0x1825 / 0x1826) in place
 * of StackWalks, KeyDelete 0x1823 of the least recently used at the fifth,
 * sixth and seventh stack, a key taken again by the seventh, KeyRundown
 * 0x1824 of the four left at the end. @e->str "x86" for 32-bit pointers.
 */
static void e_stack_keys(struct sb *b, const struct edge *e)
{
	bool x86 = e->str && !strcmp(e->str, "x86");
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t;
	char first[ETW_STACK_MAX_FRAMES * 19 + 1];

	sb_image_setup(b, x86, false);
	b->cfg.sessions[0].stack_cache = 4;
	sb_start(b);
	t = sb_image_process(b, pid, "app.exe");
	sb_frames(b, 4, false, first, sizeof(first));
	/* the marks are the samples' (a cached stack's records are not the line's hook) */
	for (unsigned i = 0; i < 7; i++) {
		sb_sample(
			b, t,
			i == 0	 ? "a sample: a user key reference follows, defined later"
			: i == 4 ? "the fifth sample: KeyDelete of the first stack, a key reference"
			: i == 6 ? "the first stack again: a key freed earlier, taken again"
				 : NULL);
		if (i == 0 || i == 6) {
			sb_stack_text(b, 0, b->cpu[0].ts, pid, t, first, NULL);
		} else {
			sb_stack(b, 0, b->cpu[0].ts, pid, t, 4 + i, i % 2 == 1, NULL);
		}
	}
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* The sample on CPU 0, its user StackWalk in CPU 1's buffer (a deferred user part). */
static void e_stack_other_cpu(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000), t;

	(void)e;
	sb_image_setup(b, false, false);
	b->cfg.cpus = 2;
	sb_start(b);
	t = sb_image_process(b, pid, "app.exe");
	sb_sw(b, 1, 0, sb_new_tid(b));
	sb_sample(b, t, "the sample on CPU 0");
	sb_stack(b, 0, b->cpu[0].ts, pid, t, 5, true, "its kernel part on CPU 0");
	if (b->cpu[1].t100 < b->cpu[0].t100) {
		memcpy(b->cpu[1].ts, b->cpu[0].ts, sizeof(b->cpu[1].ts));
		b->cpu[1].t100 = b->cpu[0].t100;
	}
	sb_stack(b, 1, b->cpu[0].ts, pid, t, 6, false, "its user part on CPU 1");
	sb_sw(b, 0, 0, 0);
	sb_sw(b, 1, 0, 0);
	sb_finish(b, 0);
}

/* Two loads into one process whose ranges overlap (the second starts 0x10000 into the first). */
static void e_image_overlap(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);
	uint64_t base = 0x00007FF8A0000000ull;

	(void)e;
	sb_image_setup(b, false, false);
	sb_start(b);
	sb_image_process(b, pid, "app.exe");
	sb_image(b,
		 &(struct sb_image){.event = SIM_EVENT_LOAD,
				    .pid = pid,
				    .base = base,
				    .size = 0x20000,
				    .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\a.dll",
				    .mark = "the first image"});
	sb_image(b,
		 &(struct sb_image){.event = SIM_EVENT_LOAD,
				    .pid = pid,
				    .base = base + 0x10000,
				    .size = 0x20000,
				    .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\b.dll",
				    .mark = "an image over the first's second half"});
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* One image loaded once and unloaded twice. */
static void e_image_unload_twice(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);
	struct sb_image im = {.pid = pid,
			      .base = 0x00007FF8B0000000ull,
			      .size = 0x30000,
			      .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\c.dll"};

	(void)e;
	sb_image_setup(b, false, false);
	sb_start(b);
	sb_image_process(b, pid, "app.exe");
	im.event = SIM_EVENT_LOAD;
	sb_image(b, &im);
	im.event = SIM_EVENT_UNLOAD;
	im.mark = "the unload";
	sb_image(b, &im);
	im.mark = "the same image unloaded again";
	sb_image(b, &im);
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/*
 * The stop's image rundown (STACK_IMAGE_FACTS 2.4): KernelBase 0x1421
 * (ntoskrnl's ImageBase alone) and HypercallPage 0x1422 before the kernel
 * modules' DCEnd (SYSTEM header, process 0), then a process's (PERFINFO).
 * @e->arg 1: x86.
 */
static void e_image_dcend(struct sb *b, const struct edge *e)
{
	const bool x86 = e->arg == 1;
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);
	uint64_t nt, hal;

	sb_image_setup(b, x86, false);
	nt = sb_kaddr(b, 0x200000);
	hal = sb_kaddr(b, 0xC00000);
	sb_start(b);
	sb_image_process(b, pid, "app.exe");
	sb_sw(b, 0, 0, 0);
	sb_masks(b, SIM_EVENT_END, true);
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_KERNEL_BASE,
				       .base = nt,
				       .mark = "KernelBase: ntoskrnl's ImageBase alone"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_HYPERCALL_PAGE,
				       .base = x86 ? 0xFFD03000u : 0xFFFFFFFFFFD03000ull,
				       .mark = "HypercallPage"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_DCEND,
				       .base = nt,
				       .size = 0xA4B000,
				       .path = "\\SystemRoot\\system32\\ntoskrnl.exe",
				       .mark = "a kernel module's DCEnd"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_DCEND,
				       .base = hal,
				       .size = 0x66000,
				       .path = "\\SystemRoot\\system32\\hal.dll"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_DCEND,
				       .pid = pid,
				       .base = x86 ? 0x00400000u : 0x00007FF6A0000000ull,
				       .size = 0x40000,
				       .path = "\\Device\\HarddiskVolume3\\Tools\\app.exe",
				       .mark = "a process's image DCEnd"});
	sb_masks(b, SIM_EVENT_NEW, false);
	sb_rundown_done(b);
	sb_finish(b, 0);
}

/*
 * An image path in each form the kernel writes (STACK_IMAGE_FACTS 2.3):
 * \SystemRoot\ (a kernel module's rundown), \Device\HarddiskVolumeN\ (a
 * process's rundown), \??\C:\ (a DOS path as opened), a bare name. @e->arg
 * 1: x86.
 */
static void e_image_paths(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);
	bool x86 = e->arg == 1;
	uint64_t ubase = x86 ? 0x10000000u : 0x00007FF8C0000000ull;

	sb_image_setup(b, x86, false);
	sb_start(b);
	sb_image_process(b, pid, "app.exe");
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_DCSTART,
				       .base = x86 ? 0x82000000u : 0xFFFFF80320000000ull,
				       .size = 0x100000,
				       .path = "\\SystemRoot\\system32\\ntoskrnl.exe",
				       .mark = "\\SystemRoot\\ (kernel module DCStart)"});
	sb_image(b,
		 &(struct sb_image){.event = SIM_EVENT_DCSTART,
				    .pid = pid,
				    .base = ubase,
				    .size = 0x10000,
				    .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\d.dll",
				    .mark = "\\Device\\HarddiskVolume3\\ (process DCStart)"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_LOAD,
				       .pid = pid,
				       .base = ubase + 0x100000,
				       .size = 0x10000,
				       .path = "\\??\\C:\\Tools\\e.dll",
				       .mark = "\\??\\C:\\ (Load)"});
	sb_image(b, &(struct sb_image){.event = SIM_EVENT_LOAD,
				       .pid = pid,
				       .base = ubase + 0x200000,
				       .size = 0x10000,
				       .path = "f.dll",
				       .mark = "a bare name (Load)"});
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* A merged session: ImageID then DbgID_RSDS before one load, ImageID then None before another. */
static void e_ktc_dbgid(struct sb *b, const struct edge *e)
{
	uint32_t pid = 4u * (uint32_t)sim_rng_range(&b->rng, 100, 2000);

	(void)e;
	sb_image_setup(b, false, true);
	sb_start(b);
	sb_image_process(b, pid, "app.exe");
	sb_image(b,
		 &(struct sb_image){.event = SIM_EVENT_LOAD,
				    .pid = pid,
				    .base = 0x00007FF8D0000000ull,
				    .size = 0x40000,
				    .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\g.dll",
				    .pdb_guid = "3C8F0528-9C07-4257-9192-78EA9AA6A1F4",
				    .pdb_name = "g.pdb",
				    .mark = "the load after ImageID and DbgID_RSDS"});
	sb_image(b,
		 &(struct sb_image){.event = SIM_EVENT_LOAD,
				    .pid = pid,
				    .base = 0x00007FF8D0100000ull,
				    .size = 0x10000,
				    .path = "\\Device\\HarddiskVolume3\\Windows\\System32\\h.dll",
				    .mark = "the load after ImageID and DbgID None"});
	sb_sw(b, 0, 0, 0);
	sb_finish(b, 0);
}

/* The logfile header of a clock type (arg), one plain and one compact session. */
static void e_header_clock(struct sb *b, const struct edge *e)
{
	b->cfg.sessions[0].clock = (enum sim_clock)e->arg;
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	sb_start(b);
	busy(b, 1, 6);
	sb_finish(b, 0);
}

/* The logfile header of a target: ProviderVersion, CSwitch version, event version. */
static void e_header_target(struct sb *b, const struct edge *e)
{
	sb_target(b, e->str);
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	sb_start(b);
	busy(b, 1, 6);
	sb_finish(b, 0);
}

/* Unround machine values: a 3,117,777 Hz QPC, 1992 MHz, 0.5 ms timer. */
static void e_header_odd(struct sb *b, const struct edge *e)
{
	(void)e;
	b->cfg.perf_freq = 3117777;
	b->cfg.cpu_mhz = 1992;
	b->cfg.timer_resolution = 5000;
	b->cfg.cpus = 3;
	sb_start(b);
	busy(b, 3, 5);
	sb_finish(b, 0);
}

/* CSwitch fields at their limits: rank, ideal CPU, quantum, wait time, QoS, priorities. */
static void e_cswitch_fields(struct sb *b, const struct edge *e)
{
	struct sb_cpu *p;
	struct sim_cswitch cs;
	static const struct {
		uint32_t rank, ideal;
		int64_t quantum;
		uint32_t wait;
		int8_t pri, base, new_pri, dec;
		uint8_t state, reason, mode, qos, cstate;
	} rows[] = {
		{255, 255, INT32_MAX, 0xFFFFFFFFu, 31, 31, 31, 127, 5, 39, 1, 7, 0},
		{256, 300, (int64_t)1 << 40, 0, 0, 0, 1, -128, 2, 0, 0, 0, 0},
		{0xFFFFFFFFu, 0x7FF, INT32_MIN - (int64_t)5, 0x20000, 15, 1, 0, 0, 10, 0, 1, 5, 0},
	};

	if (e->str) {
		sb_target(b, e->str);
	}
	b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	b->cfg.cpus = 2;
	sb_start(b);
	p = &b->cpu[0];
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t next = i + 1 < sizeof(rows) / sizeof(rows[0]) ? sb_new_tid(b) : 0;

		sb_advance(b, 0, 100);
		memset(&cs, 0, sizeof(cs));
		cs.cpu = 0;
		cs.tick = sb_tick(b, 0);
		memcpy(cs.ts, p->ts, sizeof(cs.ts));
		cs.old_tid = p->cur;
		cs.old_rank = rows[i].rank;
		cs.old_ideal_cpu = rows[i].ideal;
		cs.old_remaining_quantum = rows[i].quantum;
		cs.new_tid = next;
		cs.new_wait_ticks = next ? rows[i].wait : 0;
		cs.old_pri = p->cur ? rows[i].pri : 0;
		cs.old_base_pri = p->cur ? rows[i].base : 0;
		cs.new_pri = next ? rows[i].new_pri : 0;
		cs.new_pri_decrement = rows[i].dec;
		cs.old_state = rows[i].state;
		cs.old_wait_reason =
			rows[i].state == TS_WAITING && rows[i].reason >= b->cfg.max_wait_reason
				? (uint8_t)(b->cfg.max_wait_reason - 1)
				: rows[i].reason;
		cs.old_wait_mode = rows[i].mode;
		cs.old_qos = rows[i].qos;
		cs.new_qos = (uint8_t)(7 - rows[i].qos);
		cs.prev_cstate = rows[i].cstate;
		sb_mark(b, CORPUS_MARK_SWITCH, 0, p->nsw,
			i == 0	 ? "rank 255, ideal CPU 255, quantum INT32_MAX, wait 0xFFFFFFFF"
			: i == 1 ? "rank 256 (0xFF on the wire), ideal CPU 300 (low byte), quantum "
				   "2^40 (low 32 bits)"
				 : "rank 0xFFFFFFFF, ideal CPU 0x7FF, quantum below INT32_MIN");
		if (truth_write_cswitch(b->f, &b->cfg, &cs) < 0) {
			sb_fail(b, -EIO);
		}
		p->cur = next;
		p->nsw++;
	}
	sb_finish(b, 0);
}

/* XPRESS-compressed data buffers (arg 0 compact, 1 plain on 2 CPUs, 2 x86). */
static void e_compressed(struct sb *b, const struct edge *e)
{
	b->cfg.sessions[0].compress = true;
	if (e->arg == 1) {
		b->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
		b->cfg.cpus = 2;
	}
	if (e->arg == 2) {
		b->cfg.arch = ETL_ARCH_X86;
	}
	sb_start(b);
	busy(b, b->cfg.cpus, e->arg == 1 ? 120 : 300);
	sb_finish(b, 0);
}

/* The catalogue. Ids name what a file hits; keep them stable (MANIFEST.jsonl). */
static const struct edge catalogue[] = {
	/* flush conditions (KERNEL_FACTS 1.2 step 4): just below, at, just above */
	{"flush-tid-table-15-threads", "15 threads switched out in one batch: TidTable not full",
	 e_tid_table, 15, 0, NULL},
	{"flush-tid-table-16-threads", "16 threads: TidTable full (slots 0..15), no flush",
	 e_tid_table, 16, 0, NULL},
	{"ccswap-tid-table-17th-thread",
	 "the 17th thread finds the TidTable full (index 16): flush", e_tid_table, 17, 0, NULL},
	{"flush-ticks-499", "next switch 499 ticks after the batch started: no flush", e_ticks, 499,
	 0, NULL},
	{"flush-ticks-500", "500 ticks: not flushed (the rule is > 500)", e_ticks, 500, 0, NULL},
	{"flush-ticks-501", "501 ticks: flushed; the batch carries the trigger's TID (quirk)",
	 e_ticks, 501, 0, NULL},
	{"flush-size-offset-0x3f6", "a switch met at Offset 0x3F6: 0x3FE <= 0x400, appended",
	 e_size, 0x3F6, 0, NULL},
	{"flush-size-offset-0x3f8", "a switch met at Offset 0x3F8: 0x400 <= 0x400, appended",
	 e_size, 0x3F8, 0, NULL},
	{"flush-size-offset-0x3fa", "a switch met at Offset 0x3FA: 0x402 > 0x400, flushed", e_size,
	 0x3FA, 0, NULL},
	{"flush-delta-0x3fffffff", "delta 0x3FFFFFFF (cycle clock): no flush, FULL record", e_delta,
	 0x3FFFFFFF, 0, NULL},
	{"flush-delta-0x40000000-wraps",
	 "delta exactly 0x40000000: no flush (the rule is >), the 30-bit field wraps to 0", e_delta,
	 0x40000000, 0, NULL},
	{"flush-delta-0x40000001", "delta 0x40000001: flushed (delta rule)", e_delta, 0x40000001, 0,
	 NULL},
	{"flush-stop-pending", "ccswap_stop with a pending batch: written at the next switch",
	 e_stop, 0, 0, NULL},
	{"flush-stop-before-first-switch",
	 "stop flag set before any switch: an empty batch (Size 0x68) at the first (quirk)", e_stop,
	 1, 0, NULL},
	{"flush-end-written", "a pending batch written at the end of tracing (TS = end)", e_end, 1,
	 0, NULL},
	{"flush-end-dropped", "flush_at_end false: the pending batch is dropped", e_end, 0, 0,
	 NULL},
	/* record forms (KERNEL_FACTS 5.3) */
	{"form-idle-delta-0x3fff", "old thread idle, delta 0x3FFF: IDLE_SHORT (2 bytes)",
	 e_form_idle, 0x3FFF, 0, NULL},
	{"form-idle-delta-0x4000", "old thread idle, delta 0x4000: IDLE (4 bytes)", e_form_idle,
	 0x4000, 0, NULL},
	{"form-idle-delta-0x40000000-wraps", "IDLE record with delta 0x40000000: wraps to 0",
	 e_form_idle, 0x40000000, 0, NULL},
	{"form-lite-delta-0x1ffff", "delta 0x1FFFF: LITE (17 bits)", e_form, 0x1FFFF, 0, NULL},
	{"form-full-delta-0x20000", "delta 0x20000: FULL", e_form, 0x20000, 0, NULL},
	{"form-lite-inc-7", "priority increment 7: LITE", e_form, 7, 1, NULL},
	{"form-full-inc-8", "priority increment 8: FULL", e_form, 8, 1, NULL},
	{"form-full-inc-negative", "priority below the base (-1, compared unsigned): FULL", e_form,
	 -1, 1, NULL},
	{"form-lite-wait-1", "new thread waited 1 tick: LITE", e_form, 1, 2, NULL},
	{"form-full-wait-2", "new thread waited 2 ticks: FULL", e_form, 2, 2, NULL},
	{"form-full-wait-0x1ffff", "wait 0x1FFFF: FULL, the largest 17-bit wait", e_form, 0x1FFFF,
	 2, NULL},
	{"form-full-wait-saturated", "wait 0x20000: saturated at 0x1FFFF", e_form, 0x20000, 2,
	 NULL},
	{"form-full-wait-max", "wait 0xFFFFFFFF: saturated at 0x1FFFF", e_form, 0xFFFFFFFF, 2,
	 NULL},
	/* OldThreadStateWr under each target's MaximumWaitReason */
	{"statewr-win10-1507", "StateWr: Waiting reasons and states 0..10, bias 39", e_statewr, 0,
	 0, "win10-1507"},
	{"statewr-win10-1607", "StateWr, bias 39 (1607)", e_statewr, 0, 0, "win10-1607"},
	{"statewr-win10-1709", "StateWr, bias 40 (1709)", e_statewr, 0, 0, "win10-1709"},
	{"statewr-win10-1903", "StateWr, bias 40 (1903)", e_statewr, 0, 0, "win10-1903"},
	{"statewr-win11-22h2", "StateWr, bias 43 (22H2)", e_statewr, 0, 0, "win11-22h2"},
	/* batch contents */
	{"batch-thread-recurs", "one thread switched out three times in a batch", e_recur, 0, 0,
	 NULL},
	{"batch-idle-only", "batches that hold only IDLE / IDLE_SHORT records", e_idle_only, 0, 0,
	 NULL},
	/* quirks on and off (KERNEL_FACTS 1.2 step 5) */
	{"quirk-stale-base-priority",
	 "restart: ThreadBasePriority[0] keeps the previous batch's byte", e_stale_base, 0, 0,
	 NULL},
	{"quirks-off-stale-base-priority", "the same with quirks off: tables cleared", e_stale_base,
	 0, 1, NULL},
	{"quirks-off-tid-table-17th-thread", "17th thread with quirks off", e_tid_table, 17, 1,
	 NULL},
	{"quirks-off-flush-ticks-501", "tick flush with quirks off: no stray TID", e_ticks, 501, 1,
	 NULL},
	{"quirks-off-stop-before-first-switch",
	 "stop before any switch, quirks off: no empty batch", e_stop, 1, 1, NULL},
	/* clocks and sessions */
	{"clock-three-at-once", "QPC, system time and cycle sessions on one machine (1703+)",
	 e_clocks, 0, 0, NULL},
	{"clock-two-sessions-one-clock", "two compact sessions on one clock: identical batches",
	 e_clocks, 1, 0, NULL},
	{"clock-plain-and-compact", "a compact and a plain session on one clock", e_clocks, 2, 0,
	 NULL},
	{"header-clock-qpc", "logfile header, clock type 1 (QPC)", e_header_clock, SIM_CLOCK_QPC, 0,
	 NULL},
	{"header-clock-systime", "logfile header, clock type 2 (system time)", e_header_clock,
	 SIM_CLOCK_SYSTIME, 0, NULL},
	{"header-clock-cycles", "logfile header, clock type 3 (CPU cycles)", e_header_clock,
	 SIM_CLOCK_CYCLES, 0, NULL},
	{"header-target-win10-1507", "target 1507: build 10240, CSwitch v2, event version 60",
	 e_header_target, 0, 0, "win10-1507"},
	{"header-target-win10-1607", "target 1607: build 14393, CSwitch v2", e_header_target, 0, 0,
	 "win10-1607"},
	{"header-target-win10-1709", "target 1709: build 16299, CSwitch v4", e_header_target, 0, 0,
	 "win10-1709"},
	{"header-target-win10-1903", "target 1903: build 18362, CSwitch v4", e_header_target, 0, 0,
	 "win10-1903"},
	{"header-target-win11-22h2", "target 22H2: build 22621, event version 80", e_header_target,
	 0, 0, "win11-22h2"},
	{"header-odd-frequencies", "PerfFreq 3117777, 1992 MHz, TimerResolution 5000, 3 CPUs",
	 e_header_odd, 0, 0, NULL},
	/* PMC and PEBS (KERNEL_FACTS 3.2, 9) */
	{"pmc-cswitch-0", "a PMC-less session: no items", e_pmc_cswitch, 0, 0, NULL},
	{"pmc-cswitch-1", "CSwitch with 1 PMC counter (Size 0x30)", e_pmc_cswitch, 1, 0, NULL},
	{"pmc-cswitch-2", "CSwitch with 2 PMC counters", e_pmc_cswitch, 2, 0, NULL},
	{"pmc-cswitch-3", "CSwitch with 3 PMC counters", e_pmc_cswitch, 3, 0, NULL},
	{"pmc-cswitch-4", "CSwitch with 4 PMC counters (ETW_MAX_PMC_COUNTERS before 1703)",
	 e_pmc_cswitch, 4, 0, NULL},
	{"pmc-cswitch-7", "CSwitch with 7 PMC counters: the most the 3-bit count holds",
	 e_pmc_cswitch, 7, 0, NULL},
	{"pmc-batch-2", "compact batches with 2 PMC counters (0x0525 in the event list)",
	 e_pmc_other, 0x0525, 0, NULL},
	{"pmc-spinlock-2", "SpinLock with 2 PMC counters", e_pmc_other, 0x0529, 0, NULL},
	{"pebs-cswitch", "CSwitch with the PEBS index item (Size 0x30)", e_pebs, 0, 0, NULL},
	{"pebs-wins-over-pmc", "PEBS and PMC configured: the kernel writes only PEBS", e_pebs, 1, 0,
	 NULL},
	{"pebs-and-pmc-both", "pebs_and_pmc: both items, PEBS first (fuzzing aid)", e_pebs, 2, 0,
	 NULL},
	{"pebs-on-compact-session", "PEBS on a compact session: batches never carry it", e_pebs, 3,
	 0, NULL},
	/* architectures */
	{"arch-x86-plain", "x86: PERFINFO32 CSwitch, SYSTEM32 logfile header (0x110)", e_x86, 0, 0,
	 NULL},
	{"arch-x86-compact", "x86 compact batches", e_x86, 1, 0, NULL},
	{"arch-x86-spinlock", "x86 SpinLock (WMI_SPINLOCK 0x30) beside CSwitch", e_x86, 2, 0, NULL},
	/* spin locks (KERNEL_FACTS 6.2) */
	{"spinlock-hold-threshold", "held HoldThreshold (not logged) and HoldThreshold + 1 cycles",
	 e_spin, 0, 0, NULL},
	{"spinlock-contention-threshold", "SpinCount 0, = SpinThreshold, 0xFFFFFFFF", e_spin, 1, 0,
	 NULL},
	{"spinlock-acquire-sample-1000th", "1001 uncontended acquires: the 1000th is sampled",
	 e_spin, 2, 0, NULL},
	{"spinlock-depth-8", "nested acquires: depth 8 logged, a 9th never", e_spin, 3, 0, NULL},
	{"spinlock-modes-dpc-isr", "AcquireMode 0..4 with ExecuteDpc and ExecuteIsr", e_spin, 4, 0,
	 NULL},
	{"spinlock-config-rundown",
	 "the configuration rundown 0x0F4B/0x0F4C with parameters 4, 3, 2000, 5000000 (Spin, "
	 "Contention, Acquire, Hold) and releases on each side of them",
	 e_spin, 6, 0, NULL},
	{"spinlock-config-hold-off", "HoldThreshold 0 in the rundown: the hold test is off", e_spin,
	 7, 0, NULL},
	/* buffers */
	{"buffer-filled-exactly",
	 "a 4 KiB buffer filled to its last byte (rundown, 94 CSwitch, 3 SpinLock), then a second",
	 e_buffer_full, 0, 0, NULL},
	{"lost-events-pool", "a 1-buffer pool with a slow flush: EventsLost, BuffersLost", e_lost,
	 0, 0, NULL},
	{"cpus-1", "one processor", e_cpus, 1, 0, NULL},
	{"cpus-64", "64 processors, ProcessorIndex 0..63", e_cpus, 64, 0, NULL},
	/* CSwitch fields */
	{"cswitch-fields-v4", "CSwitch v4 fields at their limits (rank, ideal CPU, quantum)",
	 e_cswitch_fields, 0, 0, NULL},
	{"cswitch-fields-v2", "CSwitch v2 (1607) fields at their limits", e_cswitch_fields, 0, 0,
	 "win10-1607"},
	/* compression */
	{"compressed-xpress-compact", "XPRESS-compressed buffers of compact batches", e_compressed,
	 0, 0, NULL},
	{"compressed-xpress-plain", "XPRESS-compressed CSwitch buffers, 2 CPUs", e_compressed, 1, 0,
	 NULL},
	{"compressed-xpress-x86", "XPRESS-compressed x86 buffers", e_compressed, 2, 0, NULL},
	{"ident-all-x64-win10-1709",
	 "identity records x64, 1709: Thread v3 without a name, ThreadSetName after it, Defunct v4",
	 e_ident_all, 0, 0, "win10-1709"},
	{"ident-all-x86-win10-1709", "identity records x86, 1709: ThreadSetName, Defunct v4",
	 e_ident_all, 0, 1, "win10-1709"},
	{"ident-all-x64-win10-1903",
	 "identity records x64, 1903: Thread v3 with ThreadName, Defunct v5", e_ident_all, 0, 0,
	 "win10-1903"},
	{"ident-all-x86-win10-1903", "identity records x86, 1903: ThreadName, Defunct v5",
	 e_ident_all, 0, 1, "win10-1903"},
	{"ident-all-x64-win11-22h2", "identity records x64, 22H2", e_ident_all, 0, 0, "win11-22h2"},
	{"ident-dpc-isr-x64", "DPC / ISR samples and records: ISR, TimerDPC, DPC, ThreadedDPC",
	 e_ident_dpc, 0, 0, NULL},
	{"ident-dpc-isr-x86", "DPC / ISR samples and records, x86", e_ident_dpc, 0, 1, NULL},
	{"ident-sid-null", "UserSID in its 4-byte NULL form", e_ident_sid, 0, 0, NULL},
	{"ident-sid-null-x86", "UserSID NULL, x86", e_ident_sid, 0, 1, NULL},
	{"ident-sid-1-sub-authority", "a SID of 1 sub-authority (S-1-5-18)", e_ident_sid, 1, 0,
	 NULL},
	{"ident-sid-15-sub-authorities", "a SID of 15 sub-authorities, the most there are",
	 e_ident_sid, 2, 0, NULL},
	{"ident-sid-15-sub-authorities-x86", "15 sub-authorities behind an 8-byte TOKEN_USER (x86)",
	 e_ident_sid, 2, 1, NULL},
	{"ident-names-empty", "empty image, command line, package, app id and thread names",
	 e_ident_names, 0, 0, "win10-1903"},
	{"ident-names-odd-length",
	 "1- and 3-unit UTF-16 names, a surrogate pair, strings at odd offsets", e_ident_names, 1,
	 0, "win10-1903"},
	{"ident-names-odd-length-set-name", "odd-length names in ThreadSetName (1709)",
	 e_ident_names, 1, 0, "win10-1709"},
	{"ident-thread-without-process", "a thread whose process never appears", e_ident_orphan, 0,
	 0, NULL},
	{"ident-end-before-dcstart", "Process and Thread End before any DCStart", e_ident_end_first,
	 0, 0, NULL},
	{"ident-rundown-split-buffers", "40 processes in the rundown: DCStart across 4 KiB buffers",
	 e_ident_rundown_split, 40, 0, NULL},
	{"ident-config-cpus-disagree", "SystemConfig CPU says 8 processors, the header 2",
	 e_ident_config, 8, 0, NULL},
	/* image and stack records (STACK_IMAGE_FACTS 2, 3, 6) */
	{"stack-depth-1", "a StackWalk of 1 frame (Size 0x28)", e_stack_depth, 1, 0, NULL},
	{"stack-depth-192", "a StackWalk of 192 frames: Stack1..Stack192, the most (Size 0x620)",
	 e_stack_depth, 192, 0, NULL},
	{"stack-depth-odd-x86", "x86 StackWalks of 1, 3, 5 and 7 frames: Sizes not 8-aligned",
	 e_stack_depth, 1, 7, "x86"},
	{"stack-depth-192-x86", "an x86 StackWalk of 192 frames (Size 0x320)", e_stack_depth, 192,
	 0, "x86"},
	{"stack-event-missing", "a StackWalk whose EventTimeStamp matches no event", e_stack_orphan,
	 0, 0, NULL},
	{"stack-other-cpu", "a sample on CPU 0, its user StackWalk in CPU 1's buffer",
	 e_stack_other_cpu, 0, 0, NULL},
	{"stack-keys",
	 "stack caching: key references, KeyDelete at evictions, a key taken again, KeyRundown",
	 e_stack_keys, 0, 0, NULL},
	{"stack-keys-x86", "stack caching with 32-bit keys and frames (references Size 0x24)",
	 e_stack_keys, 0, 0, "x86"},
	{"image-overlapping", "two images of one process whose ranges overlap", e_image_overlap, 0,
	 0, NULL},
	{"image-unloaded-twice", "one image loaded once and unloaded twice", e_image_unload_twice,
	 0, 0, NULL},
	{"image-dcend-kernel-base",
	 "the stop's image rundown: KernelBase 0x1421, HypercallPage 0x1422, kernel modules and "
	 "a process's images as DCEnd",
	 e_image_dcend, 0, 0, NULL},
	{"image-dcend-kernel-base-x86", "the stop's image rundown with 32-bit addresses",
	 e_image_dcend, 1, 0, NULL},
	{"image-path-forms",
	 "image paths \\SystemRoot\\, \\Device\\HarddiskVolume3\\, "
	 "\\??\\C:\\ and a bare name",
	 e_image_paths, 0, 0, NULL},
	{"image-path-forms-x86", "the four path forms in x86 image records (FileName at 0x2C)",
	 e_image_paths, 1, 0, NULL},
	{"ktc-dbgid-rsds", "a merged session: ImageID + DbgID_RSDS, ImageID + DbgID None",
	 e_ktc_dbgid, 0, 0, NULL},
};

/* Entries of the catalogue that cannot be made yet. */
static const struct corpus_pending pending[] = {
	{"pmc-cswitch-8",
	 "8 PMC counters (allowed since 1703): the Marker's 3-bit count cannot carry 8; the "
	 "engine refuses more than 7"},
	{"stack-depth-0",
	 "a StackWalk of 0 frames: the kernel logs none and the engine refuses one; the "
	 "mangled set has it (mangle-stack-walk-0-frames)"},
	{"ktc-pdb-name-unterminated",
	 "a DbgID_RSDS PdbFileName without its NUL is not a valid file; the mangled set has it "
	 "(mangle-dbgid-pdb-unterminated)"},
};

const struct corpus_pending *corpus_pending_list(unsigned *n)
{
	*n = sizeof(pending) / sizeof(pending[0]);
	return pending;
}

/* Keep the stream: name, text. Return: its index or -ENOMEM. */
static int add_stream(struct corpus *c, const struct sb *b)
{
	struct corpus_stream *s;

	if (c->nstreams == c->scap) {
		unsigned cap = c->scap ? 2 * c->scap : 64;
		struct corpus_stream *n = realloc(c->streams, cap * sizeof(*n));

		if (!n) {
			return -ENOMEM;
		}
		c->streams = n;
		c->scap = cap;
	}
	s = &c->streams[c->nstreams];
	snprintf(s->name, sizeof(s->name), "%s.truth.jsonl", b->id);
	s->text = b->text;
	s->len = b->len;
	return (int)c->nstreams++;
}

/* Build one edge: stream, replay, one file per session. */
static int build_edge(struct corpus *c, const struct edge *e, struct etwforge_error *err)
{
	struct sb *b = calloc(1, sizeof(*b));
	uint8_t *data[SIM_MAX_SESSIONS] = {NULL};
	size_t lens[SIM_MAX_SESSIONS] = {0};
	struct trace_config *cfg = NULL;
	char name[CORPUS_ID_MAX + 16];
	int rc, si;

	if (!b) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	sb_init(b, e->id, c->seed);
	e->fn(b, e);
	rc = sb_finish(b, 0);
	if (rc < 0) {
		error_fail(err, rc, ERR_DATA, "corpus: %s: the stream builder failed: %s", e->id,
			   strerror(-rc));
		goto out;
	}
	si = add_stream(c, b);
	if (si < 0) {
		rc = error_fail(err, si, ERR_DATA, "out of memory");
		goto out;
	}
	b->text = NULL; /* the corpus holds it now */
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		goto out;
	}
	snprintf(name, sizeof(name), "%s", c->streams[si].name);
	rc = replay_mem(name, c->streams[si].text, c->streams[si].len, cfg, data, lens, err);
	if (rc < 0) {
		goto out;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct corpus_file *f = corpus_add_file(c);
		size_t n = strlen(cfg->sessions[i].file);

		if (!f) {
			rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			goto out;
		}
		if (n >= sizeof(f->file)) {
			/* the catalogue names its files: a long one is our mistake, said */
			rc = error_fail(err, -ENAMETOOLONG, ERR_DATA,
					"corpus: %s: session file name too long", e->id);
			goto out;
		}
		memcpy(f->file, cfg->sessions[i].file, n + 1);
		n = n > 4 ? n - 4 : n; /* the id is the name without ".etl" */
		if (n >= sizeof(f->id)) {
			n = sizeof(f->id) - 1;
		}
		memcpy(f->id, f->file, n);
		f->id[n] = '\0';
		snprintf(f->desc, sizeof(f->desc), "%s", e->desc);
		snprintf(f->session, sizeof(f->session), "%s", cfg->sessions[i].name);
		f->stream = si;
		f->verifies = b->verifies;
		f->data = data[i];
		f->len = lens[i];
		data[i] = NULL;
		f->xxh3 = XXH3_64bits(f->data, f->len);
		rc = corpus_decode(f, b->marks, b->nmarks);
		if (rc < 0) {
			error_fail(err, rc, ERR_DATA, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		free(data[i]);
	}
	free(b->text);
	free(b);
	free(cfg);
	return rc;
}

int corpus_build_valid(struct corpus *c, uint64_t seed, struct etwforge_error *err)
{
	c->seed = seed;
	for (size_t i = 0; i < sizeof(catalogue) / sizeof(catalogue[0]); i++) {
		int rc = build_edge(c, &catalogue[i], err);

		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}
