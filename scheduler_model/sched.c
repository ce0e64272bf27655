// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sched.c - a discrete-event model of the NT dispatcher.
 *
 * Thread states (KTHREAD_STATE) and the transitions the model makes:
 *
 *               create               an allowed CPU idles, or it outranks
 *   Initialized -------> DeferredReady -- what runs on its ideal CPU --> Standby
 *        ^                 ^     |                                          |
 *        | replacement     |     +-- else: the ideal CPU's queue --> Ready  |
 *        |                 |                                           |    |
 *   Terminated        woken, preempted, quantum end,       dispatch (one switch
 *        ^            displaced standby, starvation boost       record each)
 *        |                 |                                           |    |
 *        +----- exit ---- Running <------------------------------------+----+
 *                          |  ^
 *                     wait v  | its wait times out: woken, boosted
 *                        Waiting (KWAIT_REASON, KernelMode/UserMode)
 *
 * What the records carry where the kernel's fields need a convention:
 *   - the idle thread (TID 0) leaving: state Running, wait reason/mode 0,
 *     priorities 0, ideal CPU = its own, remaining quantum 0, QoS 0, and
 *     PreviousCState = the C-state it was woken from (C1 at once, C2 after
 *     200 us idle, C3 after 2 ms; their exit latency delays the switch)
 *   - the idle thread arriving: NewThreadWaitTime = TickCount - 0, since it
 *     never waits nor is readied and its WaitTime stays 0
 *   - WaitTime is the tick a thread last became ready (KiReadyThread stamps
 *     it); a displaced standby thread or a starvation boost keeps it
 *   - PriorityDecrement = Priority - BasePriority, the boost left to decay
 *   - QuantumTarget is replenished when a thread is dispatched after a wait
 *     or a quantum end, so a quantum end logs the overrun (<= 0), a
 *     preemption what was left
 *   - wait reason and mode are 0 unless the old thread is Waiting
 *
 * Events, taken in (time, id) order from three queues (sched_evq.h) - a
 * winner tree for the CPUs, a 4-ary heap for the thread slots, one time for
 * the balancer - so memory is bounded by CPUs + threads whatever the
 * duration:
 *   id < cpus          the CPU's next decision: the running thread's burst
 *                      ends or it exits, its quantum is checked (at a clock
 *                      tick, as KiUpdateRunTime does), or its standby thread
 *                      takes over (after the IPI or the C-state exit latency)
 *   cpus + slot        the thread's wait ends, or its slot's replacement is created
 *   last               the balance set manager (once a second: starvation boosts)
 * Each event fires at most one switch record, after the state is updated,
 * so records come out in global time order. Everything is integer
 * arithmetic on the simulation's nanosecond clock and seeded per-CPU
 * streams: the same configuration gives the same records anywhere.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/sched_internal.h"

static_assert(SIM_CLOCK_SLOTS == 4, "clocks_now() fills slots 0..3");

/* the event loop's handlers, inlined into it: no call and register spill per event */
#if defined(__GNUC__)
#define SCHED_INLINE inline __attribute__((always_inline))
#else
#define SCHED_INLINE inline
#endif

#define NS_PER_SEC 1000000000u
#define IDLE_STATE SCHED_TS_RUNNING /* the idle thread never leaves its CPU */

/* ready_thread() flags */
#define RT_FRONT     0x1u /* head of its priority queue (it was preempted) */
#define RT_KEEP_TICK 0x2u /* still the same ready episode: keep WaitTime */

/*
 * Lived-in machines: each thread's burst and wait means are its group's
 * times a factor drawn from a log-normal spread (sigma 0.8 for bursts, 1.3
 * for waits; the 32 equal-probability quantiles, in 1/256ths), so a group
 * holds a few busy threads and many that hardly run, as a real process
 * does. The burst factors average 1, the wait factors' reciprocals average
 * 1: a group that mostly waits keeps the CPU share it had. Integers: the
 * same draws with any compiler and -O level.
 */
static const uint16_t burst_spread[32] = {34,  50,  61,	 71,  80,  89,	97,  106, 115, 124, 133,
					  142, 152, 162, 172, 183, 195, 208, 222, 236, 253, 270,
					  290, 312, 338, 368, 404, 448, 506, 588, 723, 1060};
static const uint16_t wait_spread[32] = {
	34,  63,  88,  112, 137, 162, 188,  216,  246,	277,  311,  347,  387,	429,  476,  527,
	584, 646, 717, 796, 886, 989, 1110, 1252, 1422, 1633, 1899, 2251, 2744, 3503, 4900, 9121};

/* The 32 quantiles of the standard normal those tables take, in millionths. */
static const int32_t normal_q[32] = {
	-2153875, -1675940, -1417797, -1229859, -1077516, -946782, -830511, -724514,
	-626099,  -533410,  -445097,  -360130,	-277690,  -197099, -117770, -39176,
	39176,	  117770,   197099,   277690,	360130,	  445097,  533410,  626099,
	724514,	  830511,   946782,   1077516,	1229859,  1417797, 1675940, 2153875};

/*
 * A group's factors for a sigma of @sigma hundredths into @k[32], as the
 * tables above are made: exp(sigma z) at the quantiles, scaled so that
 * they average 1 (@recip: their reciprocals do), in 1/256ths (at least 1).
 */
static void spread_table(unsigned sigma, bool recip, uint32_t k[32])
{
	double f[32], m = 0;

	for (unsigned i = 0; i < 32; i++) {
		f[i] = exp((double)sigma / 100.0 * (double)normal_q[i] / 1e6);
		m += recip ? 1.0 / f[i] : f[i];
	}
	m /= 32.0;
	for (unsigned i = 0; i < 32; i++) {
		double v = 256.0 * (recip ? f[i] * m : f[i] / m) + 0.5;

		k[i] = v < 1.0 ? 1u : v > 4e9 ? 4000000000u : (uint32_t)v;
	}
}

/* A group's factors: the built-in table for @given 0, every thread alike for SCHED_SIGMA_ZERO. */
static void group_spread(uint16_t given, const uint16_t *builtin, bool recip, uint32_t k[32])
{
	for (unsigned i = 0; i < 32; i++) {
		k[i] = given == 0 ? builtin[i] : 256u;
	}
	if (given != 0 && given != SCHED_SIGMA_ZERO) {
		spread_table(given, recip, k);
	}
}

/* @mean (ns) times the factor @k (1/256ths), kept below sim_rng_exp()'s 2^44 */
static uint64_t spread(uint64_t mean, uint32_t k)
{
	uint64_t v = mean < (1ull << 48) ? mean * k / 256u : (1ull << 44) - 1u;

	return v < (1ull << 44) ? v : (1ull << 44) - 1u;
}

/* Idle C-states: promoted with time spent idle; exit latency in ns. */
#define CSTATE_C2_AFTER_NS 200000u
#define CSTATE_C3_AFTER_NS 2000000u
static const uint32_t cstate_exit_ns[4] = {0, 1000, 15000, 60000};

#define IPI_MIN_NS    1000u /* a remote preemption takes an IPI */
#define IPI_MAX_NS    3000u
#define MIN_BURST_NS  1000u
#define MIN_WAIT_NS   1000u
#define LOCK_WAIT_NS  60000u /* mean wait on a lock-like object */
#define CREATE_MIN_NS 20000u /* a replacement thread appears this long after */
#define CREATE_MAX_NS 200000u
#define STARVE_NS     4000000000ull /* ready this long: boosted to 15 */
#define DPC_PCT	      5u	    /* lived-in: a wake-up finds a DPC running this often */
#define DPC_MEAN_NS   20000u	    /* and waits for it this long on average */
#define IPI_MEAN_NS   1500u	    /* lived-in: an IPI's delay past IPI_MIN_NS */
#define BALANCE_NS    1000000000ull
#define BALANCE_MAX   16u /* boosts per balance-set-manager pass */

/* How long a wait on each KWAIT_REASON lasts and what it boosts. */
enum wait_class { WC_USER = 0, WC_IO, WC_LOCK, WC_DELAY };
static const uint8_t wait_class_of[SCHED_WAIT_REASONS] = {
	[0] = WC_IO,	 [1] = WC_IO,	 [2] = WC_IO,	  [3] = WC_IO,	   [4] = WC_DELAY,
	[7] = WC_LOCK,	 [8] = WC_IO,	 [9] = WC_IO,	  [10] = WC_IO,	   [11] = WC_DELAY,
	[18] = WC_IO,	 [19] = WC_IO,	 [20] = WC_LOCK,  [21] = WC_LOCK,  [23] = WC_IO,
	[24] = WC_LOCK,	 [26] = WC_LOCK, [27] = WC_LOCK,  [28] = WC_LOCK,  [29] = WC_LOCK,
	[30] = WC_DELAY, [31] = WC_LOCK, [32] = WC_DELAY, [33] = WC_DELAY, [34] = WC_LOCK,
	[35] = WC_LOCK,	 [36] = WC_LOCK, [37] = WC_LOCK,  [38] = WC_LOCK,  [39] = WC_IO,
	[40] = WC_IO,	 [41] = WC_IO,	 [42] = WC_LOCK,
};

/* Default wait mixes (used when a group's weights are all zero). */
struct weight {
	uint8_t reason;
	uint8_t weight;
};
static const struct weight mix_cpu[] = {
	{SCHED_WR_EXECUTIVE, 20},   {SCHED_WR_USER_REQUEST, 15}, {SCHED_WR_WR_QUEUE, 20},
	{SCHED_WR_WR_RESOURCE, 10}, {SCHED_WR_WR_PUSH_LOCK, 25}, {SCHED_WR_WR_MUTEX, 10},
};
static const struct weight mix_io[] = {
	{SCHED_WR_EXECUTIVE, 45},    {SCHED_WR_PAGE_IN, 5},	   {SCHED_WR_USER_REQUEST, 10},
	{SCHED_WR_WR_QUEUE, 20},     {SCHED_WR_WR_LPC_RECEIVE, 5}, {SCHED_WR_WR_RESOURCE, 5},
	{SCHED_WR_WR_PUSH_LOCK, 10},
};
static const struct weight mix_interactive[] = {
	{SCHED_WR_DELAY_EXECUTION, 5},	{SCHED_WR_USER_REQUEST, 40},
	{SCHED_WR_WR_USER_REQUEST, 30}, {SCHED_WR_WR_QUEUE, 10},
	{SCHED_WR_WR_LPC_RECEIVE, 10},	{SCHED_WR_WR_ALERT_BY_THREAD_ID, 5},
};
static const struct weight mix_periodic[] = {
	{SCHED_WR_DELAY_EXECUTION, 60},
	{SCHED_WR_USER_REQUEST, 30},
	{SCHED_WR_WR_QUEUE, 10},
};

/* ---- small helpers ------------------------------------------------------ */

static unsigned msb32(uint32_t x)
{
	return 63u - sim_clz64(x);
}

static void bit_set(uint64_t *m, unsigned c)
{
	m[c >> 6] |= UINT64_C(1) << (c & 63u);
}

static void bit_clear(uint64_t *m, unsigned c)
{
	m[c >> 6] &= ~(UINT64_C(1) << (c & 63u));
}

static bool bit_test(const uint64_t *m, unsigned c)
{
	return (m[c >> 6] >> (c & 63u)) & 1u;
}

/*
 * Clocks without divisions by run-time values: the time only moves
 * forward, so the tick it is in (and where that tick began) is carried
 * along and only re-derived by a division after a jump of over a tick.
 */
static void set_now(struct sched *s, uint64_t t)
{
	uint64_t d = s->uptime_ns + t - s->tick_b, ds = s->uptime_ns + t - s->sec_b;

	s->now = t;
	s->now_cyc_ok = false;
	if (ds >= NS_PER_SEC) {
		if (ds < 2u * (uint64_t)NS_PER_SEC) {
			s->sec_k++;
			s->sec_b += NS_PER_SEC;
		} else {
			s->sec_k = (s->uptime_ns + t) / NS_PER_SEC;
			s->sec_b = s->sec_k * NS_PER_SEC;
		}
	}
	if (d >= s->tick_ns) {
		if (d < 2u * s->tick_ns) {
			s->tick_k++;
			s->tick_b += s->tick_ns;
		} else {
			s->tick_k = (s->uptime_ns + t) / s->tick_ns;
			s->tick_b = s->tick_k * s->tick_ns;
		}
	}
}

/* The tick count at now (KUSER_SHARED_DATA.TickCount's low dword). */
static uint32_t tick_now(const struct sched *s)
{
	return (uint32_t)s->tick_k;
}

/*
 * The CPU cycle clock at now (the same value records carry): boot to now is
 * sec_k whole seconds and rem ns, (uptime + now) / 1e9 and % 1e9 without
 * dividing.
 */
static uint64_t cycles_now(struct sched *s)
{
	if (!s->now_cyc_ok) {
		uint64_t rem = s->uptime_ns + s->now - s->sec_b;

		s->now_cyc = s->sec_k * s->cfg.cpu_mhz * 1000000u + rem * s->cfg.cpu_mhz / 1000u;
		s->now_cyc_ok = true;
	}
	return s->now_cyc;
}

/*
 * The record's clocks at now, as sched_clocks_at() computes them (the
 * divisions here are by constants); clocks not in use are 0.
 */
static inline void clocks_now(struct sched *s, uint64_t ts[SIM_CLOCK_SLOTS])
{
	const struct sched_cfg *cfg = &s->cfg;

	ts[0] = 0;
	ts[SIM_CLOCK_QPC] = 0;
	if (cfg->clocks[SIM_CLOCK_QPC]) {
		uint64_t rem = s->uptime_ns + s->now - s->sec_b;

		ts[SIM_CLOCK_QPC] = s->sec_k * cfg->perf_freq + rem * cfg->perf_freq / NS_PER_SEC;
	}
	ts[SIM_CLOCK_SYSTIME] =
		cfg->clocks[SIM_CLOCK_SYSTIME] ? (uint64_t)cfg->start_time + s->now / 100u : 0;
	ts[SIM_CLOCK_CYCLES] = cfg->clocks[SIM_CLOCK_CYCLES] ? cycles_now(s) : 0;
}

/* The first clock tick at or after @t: (uptime + @t) % tick_ns, near now without dividing. */
static uint64_t tick_ceil(const struct sched *s, uint64_t t)
{
	uint64_t b = s->uptime_ns + t, r;

	if (b >= s->tick_b && b - s->tick_b < 2u * s->tick_ns) {
		r = b - s->tick_b;
		r = r >= s->tick_ns ? r - s->tick_ns : r;
	} else if (b < s->tick_b && s->tick_b - b <= s->tick_ns) {
		r = s->tick_ns - (s->tick_b - b);
	} else {
		r = b % s->tick_ns;
	}
	return r ? t + (s->tick_ns - r) : t;
}

static struct sched_grp *grp_of(struct sched *s, uint32_t i)
{
	return &s->grp[s->thr[i].group];
}

static const struct sched_group *group_of(const struct sched *s, uint32_t i)
{
	return &s->cfg.groups[s->thr[i].group];
}

static bool allowed(const struct sched *s, uint32_t i, unsigned cpu)
{
	const struct sched_grp *g = &s->grp[s->thr[i].group];

	return g->any || bit_test(g->mask, cpu);
}

bool sched_thread_allowed(const struct sched *s, uint32_t i, unsigned cpu)
{
	return allowed(s, i, cpu);
}

/* ---- events --------------------------------------------------------------- */

/* CPU @c's next decision at @t (SCHED_NEVER: none). */
static void ev_cpu(struct sched *s, unsigned c, uint64_t t)
{
	if (c == s->ev_cur) {
		s->ev_cur = SCHED_NONE; /* re-armed (or cancelled): sched_step leaves it */
	}
	sched_tree_set(&s->cpuq, c, t);
}

/* Slot @i's wake-up (or replacement) at @t. */
static void ev_thread(struct sched *s, uint32_t i, uint64_t t)
{
	sched_pq_push(&s->thq, i, t); /* a slot has one event: queued only when absent */
}

/*
 * The next event, in (time, id) order over ids CPUs < thread slots <
 * the balancer < the models: the earliest of the queues' heads, ties to
 * the lower id range. Return: false if nothing is queued.
 */
static bool ev_next(struct sched *s, uint64_t *t, uint32_t *id)
{
	struct sched_ev c = sched_tree_top(&s->cpuq);

	/* SCHED_NEVER is above every real time: no "any yet" test needed */
	if (s->thq.n) {
		const struct sched_ev e = sched_pq_top(&s->thq);

		if (e.t < c.t) {
			c.t = e.t;
			c.id = s->ncpu + e.id;
		}
	}
	if (s->balance_at < c.t) {
		c.t = s->balance_at;
		c.id = s->ncpu + s->nthr;
	}
	if (s->model_at < c.t) {
		c.t = s->model_at;
		c.id = s->ncpu + s->nthr + 1u + s->model_h;
	}
	*t = c.t;
	*id = c.id;
	return c.t != SCHED_NEVER;
}

/* ---- ready queues -------------------------------------------------------- */

static uint32_t *qcls_of(const struct sched *s, unsigned c, unsigned p, uint32_t cls)
{
	return &s->qcls[((size_t)c * SCHED_PRIORITIES + p) * s->nclass + cls];
}

static uint64_t *pcmask_of(const struct sched *s, unsigned p, uint32_t cls)
{
	return &s->pcmask[((size_t)p * s->nclass + cls) * s->nwords];
}

/* Thread @i (priority @p) joins or leaves @c's queues: steal()'s tallies. */
static void q_count(struct sched *s, unsigned c, unsigned p, uint32_t i, bool add)
{
	uint32_t cls = grp_of(s, i)->cls, *n = qcls_of(s, c, p, cls);

	if (add ? (*n)++ == 0 : --(*n) == 0) {
		uint64_t *m = pcmask_of(s, p, cls);
		uint32_t *wm = &s->pword[p * s->nclass + cls];

		if (add) {
			bit_set(m, c);
			*wm |= 1u << (c >> 6);
			s->cls_prio[cls] |= 1u << p;
		} else {
			bit_clear(m, c);
			if (!m[c >> 6]) {
				*wm &= ~(1u << (c >> 6));
				if (!*wm) {
					s->cls_prio[cls] &= ~(1u << p);
				}
			}
		}
	}
}

static void q_insert(struct sched *s, unsigned c, uint32_t i, bool front)
{
	struct sched_cpu *cpu = &s->cpu[c];
	struct sched_thread *t = &s->thr[i];
	unsigned p = (unsigned)t->pri;

	q_count(s, c, p, i, true);
	if (!(cpu->qmask & (1u << p))) {
		if (s->prio_cpus[p]++ == 0) {
			s->prio_any |= 1u << p;
		}
		cpu->qhead[p] = cpu->qtail[p] = i;
		t->qprev = t->qnext = SCHED_NONE;
		cpu->qmask |= 1u << p;
	} else if (front) {
		t->qprev = SCHED_NONE;
		t->qnext = cpu->qhead[p];
		s->thr[cpu->qhead[p]].qprev = i;
		cpu->qhead[p] = i;
	} else {
		t->qnext = SCHED_NONE;
		t->qprev = cpu->qtail[p];
		s->thr[cpu->qtail[p]].qnext = i;
		cpu->qtail[p] = i;
	}
	if (cpu->qcount++ == 0) {
		bit_set(s->ready_mask, c);
	}
	t->state = SCHED_TS_READY;
	t->cpu = c;
}

static void q_remove(struct sched *s, uint32_t i)
{
	struct sched_thread *t = &s->thr[i];
	struct sched_cpu *cpu = &s->cpu[t->cpu];
	unsigned p = (unsigned)t->pri;

	if (t->qprev != SCHED_NONE) {
		s->thr[t->qprev].qnext = t->qnext;
	} else {
		cpu->qhead[p] = t->qnext;
	}
	if (t->qnext != SCHED_NONE) {
		s->thr[t->qnext].qprev = t->qprev;
	} else {
		cpu->qtail[p] = t->qprev;
	}
	if (cpu->qhead[p] == SCHED_NONE) {
		cpu->qmask &= ~(1u << p);
		if (--s->prio_cpus[p] == 0) {
			s->prio_any &= ~(1u << p);
		}
	}
	q_count(s, t->cpu, p, i, false);
	if (--cpu->qcount == 0) {
		bit_clear(s->ready_mask, t->cpu);
	}
	t->qprev = t->qnext = SCHED_NONE;
}

/* The first thread of @c's highest non-empty queue at or above @min_pri. */
static uint32_t q_best(const struct sched *s, unsigned c, unsigned min_pri)
{
	const struct sched_cpu *cpu = &s->cpu[c];
	unsigned p;

	if (!cpu->qmask) {
		return SCHED_NONE;
	}
	p = msb32(cpu->qmask);
	return p >= min_pri ? cpu->qhead[p] : SCHED_NONE;
}

/*
 * An idle-bound CPU looks through the other processors' queues for the
 * best thread it may run (KiSearchForNewThread); this is where threads
 * migrate. Ties go to the first queue found after @c. Rather than visit
 * every CPU, it goes down the priorities something is queued at; at each,
 * the CPUs holding a thread @c may run are the union of the masks of the
 * affinity classes allowed on @c (only in the mask words a per-priority
 * summary names), and the first of them after @c (wrapping around) is the
 * one a scan of every CPU would have stopped at.
 */
/* The CPUs of mask word @w with a thread at @p that @c may run (@ok: its classes). */
static uint64_t steal_word(const struct sched *s, unsigned p, uint64_t ok, unsigned w)
{
	uint64_t m = pcmask_of(s, p, 0)[w];

	for (uint64_t r = ok; r; r &= r - 1u) {
		m |= pcmask_of(s, p, 1u + sim_ctz64(r))[w];
	}
	return m;
}

/* The first thread of @x's queue @p allowed on @c (there is one). */
static uint32_t steal_from(const struct sched *s, unsigned x, unsigned p, unsigned c)
{
	uint32_t i = s->cpu[x].qhead[p];

	while (i != SCHED_NONE && !allowed(s, i, c)) {
		i = s->thr[i].qnext;
	}
	assert(i != SCHED_NONE && "a CPU in the class masks has no allowed thread queued");
	return i;
}

/*
 * The first CPU from @start on, wrapping around, with a thread at @p of a
 * class in @ok (bit 0: class 0 too), or SCHED_NONE. @wm: the mask words
 * where those classes have one: its own word from @start up, the words
 * above, the words below, its own word below @start.
 */
static uint32_t steal_first(const struct sched *s, unsigned p, uint64_t ok, uint32_t wm,
			    unsigned start)
{
	unsigned w0 = start >> 6;
	uint64_t lo = ~(UINT64_MAX << (start & 63u)), m;
	uint32_t own = (wm >> w0) & 1u;

	if (own && (m = steal_word(s, p, ok, w0) & ~lo) != 0) {
		return w0 * 64u + sim_ctz64(m);
	}
	for (uint32_t r = wm & (UINT32_MAX << w0) & ~(UINT32_C(1) << w0); r; r &= r - 1u) {
		unsigned w = sim_ctz64(r);

		if ((m = steal_word(s, p, ok, w)) != 0) {
			return w * 64u + sim_ctz64(m);
		}
	}
	for (uint32_t r = wm & ~(UINT32_MAX << w0); r; r &= r - 1u) {
		unsigned w = sim_ctz64(r);

		if ((m = steal_word(s, p, ok, w)) != 0) {
			return w * 64u + sim_ctz64(m);
		}
	}
	if (own && (m = steal_word(s, p, ok, w0) & lo) != 0) {
		return w0 * 64u + sim_ctz64(m);
	}
	return SCHED_NONE;
}

uint32_t sched_steal(const struct sched *s, unsigned c)
{
	unsigned start = c + 1u < s->ncpu ? c + 1u : 0u;
	uint64_t ok = s->cls_ok[c];
	uint32_t pm = s->cls_prio[0];

	/* only the priorities where a class allowed on @c has a thread queued */
	for (uint64_t r = ok; r; r &= r - 1u) {
		pm |= s->cls_prio[1u + sim_ctz64(r)];
	}
	while (pm) {
		unsigned p = msb32(pm);
		const uint32_t *pw = &s->pword[p * s->nclass];
		uint32_t wm = pw[0], x;

		pm &= ~(1u << p);
		for (uint64_t r = ok; r; r &= r - 1u) {
			wm |= pw[1u + sim_ctz64(r)];
		}
		x = wm ? steal_first(s, p, ok, wm, start) : SCHED_NONE;
		/* @c comes last in the order: if it is the first found, nobody else has one */
		if (x != SCHED_NONE && x != c) {
			return steal_from(s, x, p, c);
		}
	}
	return SCHED_NONE;
}

/* ---- observer ------------------------------------------------------------ */

static void observe(struct sched *s, uint32_t i, enum sched_obs_kind kind)
{
	const struct sched_thread *t = &s->thr[i];
	const struct sched_grp *g = &s->grp[t->group];
	struct sched_obs o;

	if (!s->obs.event) {
		return;
	}
	o.kind = kind;
	o.t = s->now;
	o.tid = t->tid;
	o.cpu = t->cpu;
	o.pri = t->pri;
	o.base = t->base;
	o.wait_tick = t->wait_tick;
	o.affinity = g->any ? NULL : g->mask;
	s->obs.event(s->obs.ctx, &o);
}

void sched_set_observer(struct sched *s, const struct sched_observer *o)
{
	if (o) {
		s->obs = *o;
	} else {
		memset(&s->obs, 0, sizeof(s->obs));
	}
}

/* ---- per-CPU decisions --------------------------------------------------- */

/* The CPU's next event: its standby switch, or the running thread's next step. */
static void cpu_resched_running(struct sched *s, unsigned c);

static inline void cpu_resched(struct sched *s, unsigned c)
{
	const struct sched_cpu *cpu = &s->cpu[c];
	uint64_t t;

	if (cpu->running != SCHED_NONE) {
		cpu_resched_running(s, c);
		return;
	}
	/* idle: only its standby thread's arrival (nearly every call from switch_cpu or make_standby) */
	t = cpu->standby != SCHED_NONE ? cpu->standby_at : SCHED_NEVER;
	if (t != SCHED_NEVER && t < s->now) {
		t = s->now;
	}
	ev_cpu(s, c, t);
}

static void cpu_resched_running(struct sched *s, unsigned c)
{
	struct sched_cpu *cpu = &s->cpu[c];
	uint64_t t = SCHED_NEVER;

	if (cpu->standby != SCHED_NONE) {
		t = cpu->standby_at;
	}
	if (cpu->running != SCHED_NONE) {
		const struct sched_thread *r = &s->thr[cpu->running];
		uint64_t end = r->run_start + r->burst_left, tq;

		if (r->exit_at > r->run_start && r->exit_at < end) {
			end = r->exit_at;
		}
		/* the first tick at or after run_start + need, need >= 1 ns */
		tq = tick_ceil(s, r->run_start + 1u);
		t = end < t ? end : t;
		/* tq only moves later from here: if t comes first, it is the answer */
		if (t > tq && r->quantum_target > r->cycle_time) {
			/*
			 * need = ceil(rem / cycles-per-ns) = ceil(rem * 1000 / MHz): enough ns
			 * for the cycle clock to gain rem. A tick d ns after run_start is far
			 * enough iff d >= need, i.e. d * MHz >= rem * 1000: try the next few
			 * ticks by multiplying, and divide only for a long quantum.
			 */
			uint64_t y = (r->quantum_target - r->cycle_time) * 1000u;
			unsigned k = 0;

			while ((tq - r->run_start) * s->cfg.cpu_mhz < y) {
				if (++k == 4) {
					tq = tick_ceil(s, r->run_start + (y + s->cfg.cpu_mhz - 1u) /
										 s->cfg.cpu_mhz);
					break;
				}
				tq += s->tick_ns;
			}
		}
		t = tq < t ? tq : t;
	}
	if (t != SCHED_NEVER && t < s->now) {
		t = s->now;
	}
	ev_cpu(s, c, t);
}

static void set_idle_avail(struct sched *s, unsigned c, bool avail)
{
	if (avail) {
		bit_set(s->idle_mask, c);
	} else {
		bit_clear(s->idle_mask, c);
	}
}

static uint8_t cstate_after(uint64_t idle_ns)
{
	if (idle_ns >= CSTATE_C3_AFTER_NS) {
		return 3;
	}
	return idle_ns >= CSTATE_C2_AFTER_NS ? 2 : 1;
}

/* Lived-in: any idle CPU @i may use, each as likely (SCHED_NONE: none). */
static uint32_t any_idle(struct sched *s, uint32_t i)
{
	const struct sched_grp *g = &s->grp[s->thr[i].group];
	uint64_t n = 0, k;
	unsigned cnt[SCHED_MASK_WORDS]; /* each word's idle CPUs, counted once */

	for (unsigned w = 0; w < s->nwords; w++) {
		cnt[w] = sim_popcount64(s->idle_mask[w] & (g->any ? UINT64_MAX : g->mask[w]));
		n += cnt[w];
	}
	if (!n) {
		return SCHED_NONE;
	}
	k = sim_rng_below(&s->cpu[s->thr[i].ideal].rng, n);
	for (unsigned w = 0; w < s->nwords; w++) {
		uint64_t m = s->idle_mask[w] & (g->any ? UINT64_MAX : g->mask[w]);
		unsigned c = cnt[w];

		if (k >= c) {
			k -= c;
			continue;
		}
		while (k--) {
			m &= m - 1u;
		}
		return w * 64u + sim_ctz64(m);
	}
	return SCHED_NONE;
}

/*
 * An idle CPU @t may run: the ideal one, the last one, else (plain) the
 * first after the ideal, or (lived-in) any, so that the threads whose own
 * CPUs are busy spread over the idle ones instead of piling onto the lowest
 * numbers after a busy range.
 */
static uint32_t find_idle(struct sched *s, uint32_t i)
{
	const struct sched_thread *t = &s->thr[i];
	const struct sched_grp *g = &s->grp[t->group];
	unsigned w0 = t->ideal >> 6, nw = s->nwords;

	if (bit_test(s->idle_mask, t->ideal)) {
		return t->ideal;
	}
	if (t->last_cpu != SCHED_NONE && bit_test(s->idle_mask, t->last_cpu) &&
	    allowed(s, i, t->last_cpu)) {
		return t->last_cpu;
	}
	if (s->cfg.lived_in) {
		return any_idle(s, i);
	}
	/* the words past the last CPU are all zero: wrap around at nwords */
	for (unsigned k = 0; k <= nw; k++) {
		unsigned w = w0 + k < nw ? w0 + k : w0 + k - nw;
		uint64_t m = s->idle_mask[w] & (g->any ? UINT64_MAX : g->mask[w]);

		if (k == 0) {
			m &= UINT64_MAX << (t->ideal & 63u); /* from the ideal CPU up */
		} else if (k == nw) {
			m &= ~(UINT64_MAX << (t->ideal & 63u)); /* wrapped: below it */
		}
		if (m) {
			return w * 64u + sim_ctz64(m);
		}
	}
	return SCHED_NONE;
}

static void ready_thread(struct sched *s, uint32_t i, unsigned flags);

/*
 * How long a thread readied for @cpu waits before it runs there, @base ns
 * at least (the C-state's exit latency, or the IPI's). Plain: @base and up
 * to 500 ns. Lived-in: the exit latency varies from 3/4 of @base to 3/2 of
 * it, and now and then a DPC runs first.
 */
static uint64_t wake_delay(struct sched *s, struct sched_cpu *cpu, uint64_t base)
{
	uint64_t d;

	if (!s->cfg.lived_in) {
		return base + sim_rng_below(&cpu->rng, 500);
	}
	d = base - base / 4u + sim_rng_below(&cpu->rng, base * 3u / 4u + 500u);
	if (sim_rng_chance(&cpu->rng, DPC_PCT)) {
		d += sim_rng_exp(&cpu->rng, DPC_MEAN_NS);
	}
	return d;
}

/* Make @i the standby (next) thread of @c. */
static void make_standby(struct sched *s, unsigned c, uint32_t i, uint64_t at)
{
	struct sched_cpu *cpu = &s->cpu[c];
	struct sched_thread *t = &s->thr[i];

	cpu->standby = i;
	cpu->standby_at = at;
	t->state = SCHED_TS_STANDBY;
	t->cpu = c;
	set_idle_avail(s, c, false);
	observe(s, i, SCHED_OBS_STANDBY);
	cpu_resched(s, c);
}

/*
 * KiReadyThread / KiDeferredReadyThread: an idle processor the thread may
 * use first; otherwise it preempts its ideal processor if it outranks what
 * runs (or stands by) there, else it waits in that processor's queue.
 */
static void ready_thread(struct sched *s, uint32_t i, unsigned flags)
{
	struct sched_thread *t = &s->thr[i];
	struct sched_cpu *cpu;
	unsigned c;
	int cur;

	if (!(flags & RT_KEEP_TICK)) {
		t->wait_tick = tick_now(s);
	}
	t->state = SCHED_TS_DEFERRED_READY;
	c = find_idle(s, i);
	if (c != SCHED_NONE) {
		cpu = &s->cpu[c];
		cpu->cstate = cstate_after(s->now - cpu->idle_since);
		make_standby(s, c, i, s->now + wake_delay(s, cpu, cstate_exit_ns[cpu->cstate]));
		return;
	}
	c = t->ideal;
	cpu = &s->cpu[c];
	if (cpu->standby != SCHED_NONE) {
		cur = s->thr[cpu->standby].pri;
	} else {
		cur = cpu->running != SCHED_NONE ? s->thr[cpu->running].pri : -1;
	}
	if (t->pri > cur) {
		uint32_t displaced = cpu->standby;
		uint64_t at = cpu->standby_at;

		if (displaced == SCHED_NONE) {
			at = s->now + (s->cfg.lived_in
					       ? wake_delay(s, cpu, IPI_MIN_NS) +
							 sim_rng_exp(&cpu->rng, IPI_MEAN_NS)
					       : sim_rng_range(&cpu->rng, IPI_MIN_NS, IPI_MAX_NS));
		}
		make_standby(s, c, i, at);
		if (displaced != SCHED_NONE) {
			ready_thread(s, displaced, RT_FRONT | RT_KEEP_TICK);
		}
		return;
	}
	q_insert(s, c, i, flags & RT_FRONT);
	observe(s, i, SCHED_OBS_READY);
}

/* Charge the running thread for the time since its interval began. */
static void account(struct sched *s, uint32_t i)
{
	struct sched_thread *t = &s->thr[i];
	uint64_t dt = s->now - t->run_start, cyc = cycles_now(s);

	t->burst_left -= dt < t->burst_left ? dt : t->burst_left;
	t->cycle_time += cyc - t->run_start_cyc;
	t->run_start = s->now;
	t->run_start_cyc = cyc;
}

/* (QuantumTarget - CycleTime) >> 10 as an arithmetic shift, done portably. */
static int32_t remaining_quantum(const struct sched_thread *t)
{
	int64_t q;

	if (t->quantum_target >= t->cycle_time) {
		uint64_t d = (t->quantum_target - t->cycle_time) >> 10;

		q = d > INT32_MAX ? INT32_MAX : (int64_t)d;
	} else {
		uint64_t d = t->cycle_time - t->quantum_target;

		/* floor(-d / 1024) = -ceil(d / 1024) */
		d = (d + 1023u) >> 10;
		q = d > (uint64_t)INT32_MAX + 1u ? INT32_MIN : -(int64_t)d;
	}
	return (int32_t)q;
}

static enum sim_activity activity_of(struct sched *s, uint32_t i)
{
	return i == SCHED_NONE ? SIM_ACT_IDLE : grp_of(s, i)->act;
}

/* The next burst of work of @i (ns), when it wakes or is created. */
static uint64_t draw_burst(struct sched *s, uint32_t i, struct sim_rng *rng)
{
	const struct sched_group *g = group_of(s, i);
	uint64_t b;

	if (g->behaviour == SCHED_PERIODIC) {
		b = g->period_ns * g->duty_pct / 100u;
		b = b - b / 10u + sim_rng_below(rng, b / 5u + 1u); /* +-10% */
	} else {
		b = sim_rng_exp(rng, spread(grp_of(s, i)->burst_mean, s->thr[i].burst_k));
	}
	return b < MIN_BURST_NS ? MIN_BURST_NS : b;
}

/*
 * Lived-in: a client ID for a new thread, as the kernel's handle table
 * hands them out on a machine that has run a while: any free multiple of
 * 4 in the pool (shared with the process IDs, so TIDs and PIDs
 * interleave; an ID freed by an exited thread may come back later).
 */
static uint32_t draw_id(struct sched *s)
{
	uint32_t k;

	for (unsigned tries = 0; tries < 64; tries++) {
		k = 2u + (uint32_t)sim_rng_below(&s->id_rng, s->id_slots - 2u);
		if (!((s->id_used[k >> 6] >> (k & 63u)) & 1u)) {
			goto found;
		}
	}
	for (k = 2; k < s->id_slots && ((s->id_used[k >> 6] >> (k & 63u)) & 1u); k++) {
	}
	if (k == s->id_slots) {
		return 0; /* the pool is sized to stay at most 3/4 full: never */
	}
found:
	s->id_used[k >> 6] |= 1ull << (k & 63u);
	return k * 4u;
}

/* Lived-in: thread @tid exited, its ID free again. */
static void free_id(struct sched *s, uint32_t tid)
{
	if (s->id_used && tid / 4u < s->id_slots) {
		s->id_used[tid / 256u] &= ~(1ull << (tid / 4u & 63u));
	}
}

/* Slot @i gets a new thread (new TID) of its group, created at s->now. */
static void create_thread(struct sched *s, uint32_t i, uint16_t group)
{
	struct sched_thread *t = &s->thr[i];
	const struct sched_group *g = &s->cfg.groups[group];
	struct sched_grp *gr = &s->grp[group];
	uint32_t k;

	memset(t, 0, sizeof(*t));
	if (s->id_used) {
		t->tid = draw_id(s);
	} else {
		t->tid = s->next_tid;
		if (s->next_tid == SCHED_LAST_TID) {
			s->tids_exhausted = true; /* no TID is ever reused: no more threads */
		} else {
			s->next_tid += 4u;
		}
	}
	t->group = group;
	t->state = SCHED_TS_INITIALIZED;
	t->base = g->base_priority;
	t->pri = g->base_priority;
	t->new_quantum = true;
	t->last_cpu = SCHED_NONE;
	t->cpu = SCHED_NONE;
	t->qprev = t->qnext = SCHED_NONE;
	/* ideal processors go round-robin over the allowed CPUs (as per process) */
	k = gr->next_ideal++ % gr->nallowed;
	if (gr->any) {
		t->ideal = k;
	} else {
		for (unsigned w = 0; w < SCHED_MASK_WORDS; w++) {
			unsigned n = sim_popcount64(gr->mask[w]);
			uint64_t m = gr->mask[w];

			if (k >= n) {
				k -= n;
				continue;
			}
			while (k--) {
				m &= m - 1u;
			}
			t->ideal = w * 64u + sim_ctz64(m);
			break;
		}
	}
	switch (g->behaviour) {
	case SCHED_INTERACTIVE:
		t->qos = 0;
		break;
	case SCHED_IO_BOUND:
		t->qos = 1;
		break;
	case SCHED_CPU_BOUND:
		t->qos = 2;
		break;
	default:
		t->qos = 4;
		break;
	}
	if (sim_rng_below(&s->rng, 16) == 0) {
		t->qos = 3; /* the odd eco / background thread */
	}
	t->exit_at = SCHED_NEVER;
	if (g->lifetime_ns) {
		t->exit_at = s->now + g->lifetime_ns / 2u + sim_rng_below(&s->rng, g->lifetime_ns);
	}
	if (g->exit_ns && t->exit_at > g->exit_ns) {
		t->exit_at = g->exit_ns; /* its process exits */
	}
	if (g->behaviour == SCHED_PERIODIC) {
		t->next_period = s->now + sim_rng_below(&s->rng, g->period_ns);
	}
	t->burst_k = 256;
	t->wait_k = 256;
	if (s->cfg.lived_in) {
		uint64_t r = sim_rng_next(&s->rng);

		t->burst_k = grp_of(s, i)->burst_k[r & 31u];
		t->wait_k = grp_of(s, i)->wait_k[(r >> 5) & 31u];
	}
	t->burst_left = draw_burst(s, i, &s->rng);
	s->st.threads_created++;
}

/*
 * The boost a wait on @reason earns, by the thread's behaviour. Lived-in, as
 * the waker's increment would be (wdm.h): an I/O completion's by its device
 * (IO_DISK_INCREMENT 1, IO_NETWORK_INCREMENT 2, IO_NO_INCREMENT 0), a GUI
 * thread's window input 2 (6 for the keyboard and mouse), an event set 1,
 * a timer's expiry 0.
 */
static uint8_t boost_lived_in(unsigned cls, bool interactive, uint64_t r)
{
	switch (cls) {
	case WC_DELAY:
		return 0;
	case WC_IO:
		return r < 60 ? 1 : r < 90 ? 2 : 0;
	case WC_USER:
		if (interactive) {
			return r < 70 ? 2 : r < 78 ? 6 : 1;
		}
		return 1;
	default:
		return 1;
	}
}

/* boost_lived_in() for every class, kind of thread and draw: a lookup, not a branch per wait */
static void setup_boosts(struct sched *s)
{
	for (unsigned cls = 0; cls < 4; cls++) {
		for (unsigned ia = 0; ia < 2; ia++) {
			for (unsigned r = 0; r < 100; r++) {
				s->boost_tab[cls][ia][r] = boost_lived_in(cls, ia != 0, r);
			}
		}
	}
}

static uint8_t boost_for(const struct sched *s, const struct sched_group *g, unsigned reason,
			 struct sim_rng *rng)
{
	if (s->cfg.lived_in) {
		uint64_t r = sim_rng_below(rng, 100);

		return s->boost_tab[wait_class_of[reason]][g->behaviour == SCHED_INTERACTIVE][r];
	}
	switch (wait_class_of[reason]) {
	case WC_DELAY:
		return 0;
	case WC_USER:
		return g->behaviour == SCHED_INTERACTIVE ? 2 : 1;
	default:
		return 1;
	}
}

/* The running thread @i enters a wait: reason, mode, and when it ends. */
static void begin_wait(struct sched *s, uint32_t i, struct sim_rng *stream)
{
	struct sched_thread *t = &s->thr[i];
	const struct sched_group *g = group_of(s, i);
	const struct sched_grp *gr = grp_of(s, i);
	/*
	 * The four draws are made on a copy, stored back once: the byte-wide
	 * stores to the thread between them may alias the stream's state as
	 * far as C knows, which would reload and store it at every draw.
	 */
	struct sim_rng local = *stream, *rng = &local;
	uint64_t pick = sim_rng_below(rng, gr->wcum[SCHED_WAIT_REASONS - 1]), dur;
	unsigned k = 0, r;

	/*
	 * The first reason whose cumulative weight exceeds pick (never a
	 * weight-0 one): the sums rise, so that is how many are <= pick;
	 * counted without a data-dependent branch. The weights' usual totals
	 * (the built-in mixes': 100) are a table made at set-up.
	 */
	if (pick < SCHED_WPICK) {
		r = gr->wpick[pick];
	} else {
		for (unsigned j = 0; j < gr->nwait; j++) {
			k += gr->wsum[j] <= pick;
		}
		r = gr->wreason[k];
	}
	t->wait_reason = (uint8_t)r;
	t->wait_mode = sim_rng_chance(rng, g->user_wait_pct) ? 1 : 0;
	t->boost = boost_for(s, g, r, rng);
	t->state = SCHED_TS_WAITING;
	if (s->cfg.lived_in && !t->starved && t->pri > t->base && t->base < 16) {
		/* the unwait boost goes when the thread waits again (Windows 8 on), so the
		 * next wake-up boosts it afresh */
		t->pri = t->base;
		t->pri_dec = 0;
	}
	if (g->behaviour == SCHED_PERIODIC) {
		if (t->next_period <= s->now) {
			/* overran: skip to the next period boundary after now */
			uint64_t late = s->now - t->next_period;

			t->next_period += (late / g->period_ns + 1u) * g->period_ns;
		}
		dur = t->next_period - s->now;
	} else if (wait_class_of[r] == WC_LOCK) {
		dur = sim_rng_exp(rng, LOCK_WAIT_NS);
	} else {
		dur = sim_rng_exp(rng, spread(gr->wait_mean, t->wait_k));
	}
	if (s->cfg.lived_in && t->exit_at != SCHED_NEVER && s->now + dur > t->exit_at) {
		/* its exit ends the wait (the terminate APC), however long it would have been */
		dur = t->exit_at > s->now ? t->exit_at - s->now : 0;
	}
	if (dur < MIN_WAIT_NS) {
		dur = MIN_WAIT_NS;
	}
	*stream = local;
	ev_thread(s, i, s->now + dur);
}

/* The running thread @i exits; its replacement comes a little later. */
/* Tell the lifecycle listener (if any) and the models that @i started or ended now. */
static void thread_note(struct sched *s, uint32_t i, bool exit)
{
	const struct sched_thread *t = &s->thr[i];

	if (s->thread_fn) {
		const struct sched_thread_event e = {
			.tid = t->tid,
			.group = t->group,
			.exit = exit,
			.t_ns = s->now,
		};

		s->thread_fn(s->thread_ctx, &e);
	}
	if (s->nlife) {
		const struct sim_thread_change c = {
			.slot = i,
			.tid = t->tid,
			.group = t->group,
			.exit = exit,
			.cpu = exit ? t->cpu : t->ideal,
		};

		for (unsigned h = 0; h < s->nhooks; h++) {
			if (s->hooks[h].ops->thread) {
				s->hooks[h].ops->thread(s->hooks[h].ctx, s->now, &c);
			}
		}
	}
}

/* Tell the models that @i is being readied now (after a wait, or new). */
static void wake_note(struct sched *s, uint32_t i, bool created, int8_t boost)
{
	const struct sched_thread *t = &s->thr[i];
	const struct sched_group *g = group_of(s, i);
	struct sim_wake w = {
		.slot = i,
		.tid = t->tid,
		.group = t->group,
		.cpu = t->last_cpu != SCHED_NONE ? t->last_cpu : t->ideal,
		.wait_reason = created ? 0 : t->wait_reason,
		.created = created,
		.boost = boost,
	};

	w.timer = !created &&
		  (g->behaviour == SCHED_PERIODIC || t->wait_reason == SCHED_WR_DELAY_EXECUTION);
	for (unsigned h = 0; h < s->nwake; h++) {
		s->wake_hooks[h].fn(s->wake_hooks[h].ctx, s->now, &w);
	}
}

static void terminate(struct sched *s, uint32_t i, struct sim_rng *rng)
{
	struct sched_thread *t = &s->thr[i];

	thread_note(s, i, true);
	t->state = SCHED_TS_TERMINATED;
	free_id(s, t->tid);
	s->st.threads_terminated++;
	ev_thread(s, i, s->now + sim_rng_range(rng, CREATE_MIN_NS, CREATE_MAX_NS));
}

/*
 * The context switch on @c: the running (or idle) thread leaves in
 * @old_state, @next (or the idle thread) takes over, and the record is
 * fired. A preempted old thread is readied only after the record, so the
 * record shows it leaving the CPU before it can be seen anywhere else.
 */
static int switch_cpu(struct sched *s, unsigned c, uint32_t next, uint8_t old_state, bool preempted)
{
	struct sched_cpu *cpu = &s->cpu[c];
	uint32_t old = cpu->running;
	/*
	 * The record is built in place: every field is written below except
	 * old_rank (always 0) and pmc and pebs_index, which stay as sched_create
	 * zeroed them unless a model attached fills them; no memset of the
	 * 16-counter array.
	 */
	struct sim_cswitch *cs = &s->rec;
	uint32_t tick = tick_now(s);
	int rc;

	cs->cpu = c;
	cs->tick = tick;
	clocks_now(s, cs->ts);
	if (s->ncs) {
		/* the models attached fill their fields; the interval ran @old's code */
		enum sim_activity ran = activity_of(s, old);

		s->cs_hooks[0].fn(s->cs_hooks[0].ctx, c, s->now, ran, cs);
		for (unsigned h = 1; h < s->ncs; h++) {
			s->cs_hooks[h].fn(s->cs_hooks[h].ctx, c, s->now, ran, cs);
		}
	}

	if (old == SCHED_NONE) {
		cs->old_tid = 0;
		cs->old_pri = 0;
		cs->old_base_pri = 0;
		cs->old_state = IDLE_STATE;
		cs->old_wait_reason = 0;
		cs->old_wait_mode = 0;
		cs->old_ideal_cpu = c;
		cs->old_remaining_quantum = 0;
		cs->old_qos = 0;
		cs->prev_cstate = cpu->cstate;
	} else {
		struct sched_thread *t = &s->thr[old];
		bool waits = old_state == SCHED_TS_WAITING;

		cs->old_tid = t->tid;
		cs->old_pri = t->pri;
		cs->old_base_pri = t->base;
		cs->old_state = old_state;
		cs->old_wait_reason = waits ? t->wait_reason : 0;
		if (old_state == SCHED_TS_READY && s->cfg.lived_in) {
			/* why it is Ready again, as KiQuantumEnd and a preemption set it */
			uint8_t r = preempted ? SCHED_WR_WR_PREEMPTED : SCHED_WR_WR_QUANTUM_END;

			cs->old_wait_reason = r < s->cfg.max_wait_reason ? r : 0;
		}
		cs->old_wait_mode = waits ? t->wait_mode : 0;
		cs->old_ideal_cpu = t->ideal;
		cs->old_remaining_quantum = remaining_quantum(t);
		cs->old_qos = t->qos;
		cs->prev_cstate = 0;
		t->state = old_state;
		t->last_cpu = c;
	}

	if (next == SCHED_NONE) {
		cs->new_tid = 0;
		cs->new_pri = 0;
		cs->new_pri_decrement = 0;
		cs->new_wait_ticks = tick; /* the idle thread's WaitTime is never set: 0 */
		cs->new_qos = 0;
		cpu->running = SCHED_NONE;
		cpu->idle_since = s->now;
		cpu->cstate = 0;
		set_idle_avail(s, c, cpu->standby == SCHED_NONE);
	} else {
		struct sched_thread *n = &s->thr[next];

		if (n->state == SCHED_TS_READY) {
			q_remove(s, next);
		} else if (cpu->standby == next) {
			cpu->standby = SCHED_NONE;
		}
		cs->new_tid = n->tid;
		cs->new_pri = n->pri;
		cs->new_pri_decrement = n->pri_dec;
		cs->new_wait_ticks = tick - n->wait_tick;
		cs->new_qos = n->qos;
		/* counted without a branch: whether it moved is a coin toss */
		s->st.migrations += (n->last_cpu != SCHED_NONE) & (n->last_cpu != c);
		n->state = SCHED_TS_RUNNING;
		n->cpu = c;
		n->run_start = s->now;
		n->run_start_cyc = cycles_now(s);
		if (n->new_quantum) {
			n->quantum_target = n->cycle_time + s->quantum_cycles;
			n->new_quantum = false;
		}
		cpu->running = next;
		set_idle_avail(s, c, false);
	}

	s->st.switches++;
	if (old == SCHED_NONE || next == SCHED_NONE) {
		s->st.idle_switches++;
	}
	if (preempted) {
		s->st.preemptions++;
	}
	rc = s->sink.ops->cswitch(s->sink.ctx, cs);
	if (s->nswitched && rc >= 0) {
		for (unsigned h = 0; h < s->nhooks; h++) {
			if (s->hooks[h].ops->switched) {
				s->hooks[h].ops->switched(s->hooks[h].ctx, s->now, cs);
			}
		}
	}

	if (old != SCHED_NONE && old_state == SCHED_TS_READY) {
		ready_thread(s, old, preempted ? RT_FRONT : 0);
	}
	cpu_resched(s, c);
	return rc;
}

/* What runs next on @c when its thread leaves on its own (wait, exit). */
static uint32_t select_next(struct sched *s, unsigned c)
{
	uint32_t n = s->cpu[c].standby;

	if (n == SCHED_NONE) {
		n = q_best(s, c, 0);
	}
	if (n == SCHED_NONE) {
		n = sched_steal(s, c);
	}
	return n;
}

/* Quantum end: decay the boost by one level (a starvation boost all at once). */
static void decay(struct sched_thread *t)
{
	if (t->starved) {
		t->pri = t->base;
		t->starved = false;
	} else if (t->pri > t->base) {
		t->pri--;
	}
	t->pri_dec = (int8_t)(t->pri - t->base);
}

/* Does a model hold @c above PASSIVE_LEVEL (so its thread may not leave)? */
static bool cpu_busy(struct sched *s, unsigned c)
{
	for (unsigned h = 0; h < s->nhooks; h++) {
		if (s->hooks[h].ops->busy && s->hooks[h].ops->busy(s->hooks[h].ctx, c)) {
			return true;
		}
	}
	return false;
}

static int cpu_event(struct sched *s, unsigned c)
{
	struct sched_cpu *cpu = &s->cpu[c];
	uint32_t r = cpu->running, n;
	struct sched_thread *t;
	bool exit_due;

	if (s->nbusy && cpu_busy(s, c)) {
		/* not re-armed: step() takes the event out until sched_cpu_release() */
		cpu->deferred = true;
		return 0;
	}
	if (r == SCHED_NONE) {
		/* idle: the only event is the standby thread's arrival */
		return cpu->standby != SCHED_NONE ? switch_cpu(s, c, cpu->standby, 0, false) : 0;
	}
	t = &s->thr[r];
	exit_due = t->exit_at <= s->now &&
		   (t->exit_at > t->run_start || t->run_start + t->burst_left <= s->now);
	account(s, r);
	if (exit_due) {
		terminate(s, r, &cpu->rng);
		return switch_cpu(s, c, select_next(s, c), SCHED_TS_TERMINATED, false);
	}
	if (t->burst_left == 0) {
		begin_wait(s, r, &cpu->rng);
		return switch_cpu(s, c, select_next(s, c), SCHED_TS_WAITING, false);
	}
	if (t->cycle_time >= t->quantum_target) {
		/* KiQuantumEnd at this clock tick */
		decay(t);
		n = cpu->standby;
		if (n == SCHED_NONE) {
			n = q_best(s, c, (unsigned)t->pri);
		}
		if (n != SCHED_NONE) {
			t->new_quantum = true;
			return switch_cpu(s, c, n, SCHED_TS_READY, false);
		}
		t->quantum_target = t->cycle_time + s->quantum_cycles;
		observe(s, r, SCHED_OBS_PRIORITY);
	}
	if (cpu->standby != SCHED_NONE && cpu->standby_at <= s->now) {
		return switch_cpu(s, c, cpu->standby, SCHED_TS_READY, true);
	}
	cpu_resched(s, c);
	return 0;
}

/* A waiting thread's wait is satisfied, or a slot's new thread is created. */
static void thread_event(struct sched *s, uint32_t i)
{
	struct sched_thread *t = &s->thr[i];

	int8_t boost = 0;

	if (t->state == SCHED_TS_TERMINATED) {
		const struct sched_group *g = &s->cfg.groups[t->group];

		if (s->tids_exhausted || (g->exit_ns && s->now >= g->exit_ns)) {
			return; /* the slot stays empty */
		}
		create_thread(s, i, t->group);
		thread_note(s, i, false);
		if (s->nwake) {
			wake_note(s, i, true, 0);
		}
		ready_thread(s, i, 0);
		return;
	}
	if (t->base < 16 && t->boost) {
		int p = t->base + t->boost;

		p = p > 15 ? 15 : p;
		if (p > t->pri) {
			boost = (int8_t)(p - t->pri);
			t->pri = (int8_t)p;
			t->pri_dec = (int8_t)(p - t->base);
		}
	}
	t->boost = 0;
	t->new_quantum = true;
	t->burst_left = draw_burst(s, i, &s->cpu[t->ideal].rng);
	if (s->nwake) {
		wake_note(s, i, false, boost);
	}
	ready_thread(s, i, 0);
}

/*
 * KiBalanceSetManager's starvation pass: threads ready for STARVE_NS get
 * priority 15 for one quantum, BALANCE_MAX per pass.
 */
static void balance_event(struct sched *s)
{
	uint32_t pick[BALANCE_MAX], n = 0;
	uint32_t now_tick = tick_now(s);

	/* CPUs in order, but only those with threads queued, and only their queues below 15 */
	for (unsigned w = 0; w < s->nwords && n < BALANCE_MAX; w++) {
		for (uint64_t cm = s->ready_mask[w]; cm && n < BALANCE_MAX; cm &= cm - 1u) {
			const struct sched_cpu *cpu = &s->cpu[w * 64u + sim_ctz64(cm)];

			for (uint32_t pm = cpu->qmask & 0x7FFFu; pm && n < BALANCE_MAX;
			     pm &= pm - 1u) {
				unsigned p = sim_ctz64(pm);

				for (uint32_t i = cpu->qhead[p]; i != SCHED_NONE && n < BALANCE_MAX;
				     i = s->thr[i].qnext) {
					const struct sched_thread *t = &s->thr[i];

					if (t->base < 15 &&
					    now_tick - t->wait_tick >= s->starve_ticks) {
						pick[n++] = i;
					}
				}
			}
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		struct sched_thread *t = &s->thr[pick[k]];

		q_remove(s, pick[k]);
		t->pri = 15;
		t->pri_dec = (int8_t)(15 - t->base);
		t->starved = true;
		t->new_quantum = true;
		ready_thread(s, pick[k], RT_KEEP_TICK);
	}
	s->balance_at = s->now + BALANCE_NS;
}

/* Handle event @id due at @t, the next one (ev_next). Return: 1 or the sink's error. */
static SCHED_INLINE int step(struct sched *s, uint64_t t, uint32_t id)
{
	int rc = 0;

	set_now(s, t);
	if (id < s->ncpu) {
		/*
		 * The CPU's event stays queued while it is handled: the handler
		 * nearly always re-arms it, which replays its path in the tree
		 * once rather than twice. Not re-armed, it is taken out after.
		 */
		s->ev_cur = id;
		rc = cpu_event(s, id);
		if (s->ev_cur != SCHED_NONE) {
			s->ev_cur = SCHED_NONE;
			sched_tree_set(&s->cpuq, id, SCHED_NEVER);
		}
	} else if (id < s->ncpu + s->nthr) {
		sched_pq_pop(&s->thq); /* it is the earliest of the slots' events */
		thread_event(s, id - s->ncpu);
	} else if (id == s->ncpu + s->nthr) {
		s->balance_at = SCHED_NEVER;
		balance_event(s);
	} else {
		unsigned h = id - (s->ncpu + s->nthr + 1u);

		sched_model_arm(s, (int)h, SCHED_NEVER);
		rc = s->hooks[h].ops->event(s->hooks[h].ctx, t);
	}
	if (rc >= 0 && s->err) {
		rc = s->err; /* a record a model fired failed */
	}
	if (rc < 0) {
		s->err = rc;
		return rc;
	}
	return 1;
}

int sched_step(struct sched *s)
{
	uint64_t t;
	uint32_t id;

	if (s->err) {
		return s->err;
	}
	if (!ev_next(s, &t, &id) || t > s->cfg.duration_ns) {
		return 0;
	}
	return step(s, t, id);
}

int sched_run_until(struct sched *s, uint64_t t_ns)
{
	uint64_t limit = t_ns < s->cfg.duration_ns ? t_ns : s->cfg.duration_ns;
	struct sim_end end;
	uint64_t t;
	uint32_t id;
	int rc;

	if (s->err) {
		return s->err;
	}
	if (s->done) {
		return 1;
	}
	while (ev_next(s, &t, &id) && t <= limit) {
		rc = step(s, t, id);
		if (rc < 0) {
			return rc;
		}
	}
	if (limit > s->now) {
		set_now(s, limit);
	}
	if (limit < s->cfg.duration_ns) {
		return 0;
	}
	memset(&end, 0, sizeof(end));
	sched_clocks_at(&s->cfg, s->now, end.ts, &end.tick);
	for (unsigned k = 1; k < SIM_CLOCK_SLOTS; k++) {
		if (!s->cfg.clocks[k]) {
			end.ts[k] = 0;
		}
	}
	for (unsigned h = 0; h < s->nhooks; h++) {
		if (s->hooks[h].ops->stop &&
		    (rc = s->hooks[h].ops->stop(s->hooks[h].ctx, s->now)) < 0) {
			s->err = rc;
			return rc;
		}
	}
	if (s->err) {
		return s->err;
	}
	s->done = true;
	rc = s->sink.ops->end(s->sink.ctx, &end);
	if (rc < 0) {
		s->err = rc;
		return rc;
	}
	return 1;
}

int sched_attach(struct sched *s, const struct sim_hook_ops *ops, void *ctx)
{
	if (s->nhooks == SIM_MAX_HOOKS) {
		return -ENOSPC;
	}
	s->hooks[s->nhooks].ops = ops;
	s->hooks[s->nhooks].ctx = ctx;
	s->hooks[s->nhooks].at = SCHED_NEVER;
	s->nbusy += ops->busy != NULL;
	s->nlife += ops->thread != NULL;
	if (ops->ready) {
		s->wake_hooks[s->nwake].fn = ops->ready;
		s->wake_hooks[s->nwake].ctx = ctx;
		s->nwake++;
	}
	s->nswitched += ops->switched != NULL;
	if (ops->cswitch) {
		s->cs_hooks[s->ncs].fn = ops->cswitch;
		s->cs_hooks[s->ncs].ctx = ctx;
		s->ncs++;
	}
	return (int)s->nhooks++;
}

void sched_model_arm(struct sched *s, int handle, uint64_t t_ns)
{
	unsigned h = (unsigned)handle;

	if (h >= s->nhooks) {
		return;
	}
	if (t_ns != SCHED_NEVER && t_ns < s->now) {
		t_ns = s->now;
	}
	s->hooks[h].at = t_ns;
	/* a handful of hooks: a scan finds the earliest (ties to the first attached) */
	s->model_at = SCHED_NEVER;
	s->model_h = 0;
	for (unsigned k = 0; k < s->nhooks; k++) {
		if (s->hooks[k].at < s->model_at) {
			s->model_at = s->hooks[k].at;
			s->model_h = k;
		}
	}
}

void sched_cpu_release(struct sched *s, unsigned cpu)
{
	if (cpu < s->ncpu && s->cpu[cpu].deferred) {
		s->cpu[cpu].deferred = false;
		cpu_resched(s, cpu);
	}
}

void sched_cpu_view(const struct sched *s, unsigned cpu, struct sched_cpu_view *v)
{
	uint32_t r = s->cpu[cpu].running;

	if (r == SCHED_NONE) {
		v->tid = 0;
		v->group = -1;
		v->act = SIM_ACT_IDLE;
		v->pri = 0;
	} else {
		v->tid = s->thr[r].tid;
		v->pri = s->thr[r].pri;
		v->group = s->thr[r].group;
		v->act = s->grp[s->thr[r].group].act;
	}
}

uint64_t sched_now(const struct sched *s)
{
	return s->now;
}

uint64_t sched_now_cycles(struct sched *s)
{
	return cycles_now(s);
}

uint64_t sched_ticks_now(const struct sched *s)
{
	return s->tick_k;
}

int sched_fire_spinlock(struct sched *s, struct sim_spinlock *sl, bool counters)
{
	int rc;

	if (s->err) {
		return s->err;
	}
	sl->tick = tick_now(s);
	clocks_now(s, sl->ts);
	if (counters) {
		enum sim_activity ran = activity_of(s, s->cpu[sl->cpu].running);

		for (unsigned h = 0; h < s->nhooks; h++) {
			if (s->hooks[h].ops->counters) {
				s->hooks[h].ops->counters(s->hooks[h].ctx, sl->cpu, s->now, ran,
							  sl->pmc);
			}
		}
	} else {
		memset(sl->pmc, 0, sizeof(sl->pmc));
	}
	rc = s->sink.ops->spinlock(s->sink.ctx, sl);
	if (rc < 0) {
		s->err = rc;
	}
	return rc;
}

int sched_fire_record(struct sched *s, struct sim_record *r)
{
	int rc;

	if (s->err) {
		return s->err;
	}
	clocks_now(s, r->u.head.ts);
	if (!s->sink.ops->record) {
		return 0;
	}
	rc = s->sink.ops->record(s->sink.ctx, r);
	if (rc < 0) {
		s->err = rc;
	}
	return rc;
}

unsigned sched_thread_slots(const struct sched *s)
{
	return s->nthr;
}

bool sched_thread_at(const struct sched *s, unsigned slot, struct sched_thread_view *v)
{
	const struct sched_thread *t;

	if (slot >= s->nthr) {
		return false;
	}
	t = &s->thr[slot];
	if (t->tid == 0 || t->state == SCHED_TS_TERMINATED) {
		return false;
	}
	v->tid = t->tid;
	v->group = t->group;
	v->cpu = t->last_cpu != SCHED_NONE ? t->last_cpu : t->ideal;
	v->base_pri = t->base;
	v->ideal = t->ideal;
	v->cycles = t->cycle_time;
	return true;
}

const struct sched_cfg *sched_get_cfg(const struct sched *s)
{
	return &s->cfg;
}

void sched_set_thread_listener(struct sched *s,
			       void (*fn)(void *ctx, const struct sched_thread_event *e), void *ctx)
{
	s->thread_fn = fn;
	s->thread_ctx = ctx;
}

unsigned sched_initial_tids(const struct sched *s, unsigned group, uint32_t *tids, unsigned cap)
{
	uint32_t slot = 0;
	unsigned count;

	/* initial_threads() gave the groups their slots in order, those of a group that
	 * starts later too (its threads are created then) */
	for (unsigned g = 0; g < group && g < s->cfg.ngroups; g++) {
		slot += s->cfg.groups[g].count;
	}
	count = group < s->cfg.ngroups && !s->cfg.groups[group].start_ns
			? s->cfg.groups[group].count
			: 0;
	for (unsigned k = 0; k < count && k < cap; k++) {
		tids[k] = s->thr[slot + k].tid;
	}
	return count;
}

void sched_get_stats(const struct sched *s, struct sched_stats *st)
{
	*st = s->st;
	st->now_ns = s->now;
}

/* ---- construction -------------------------------------------------------- */

static void setup_group(struct sched *s, unsigned gi)
{
	const struct sched_group *g = &s->cfg.groups[gi];
	struct sched_grp *gr = &s->grp[gi];
	const struct weight *mix;
	size_t nmix;
	uint64_t w[SCHED_WAIT_REASONS] = {0}, sum = 0;

	gr->any = true;
	for (unsigned k = 0; k < SCHED_MASK_WORDS; k++) {
		if (g->affinity[k]) {
			gr->any = false;
		}
	}
	if (gr->any) {
		gr->nallowed = s->ncpu;
	} else {
		for (unsigned c = 0; c < s->ncpu; c++) {
			if (bit_test(g->affinity, c)) {
				bit_set(gr->mask, c);
				gr->nallowed++;
			}
		}
	}
	gr->next_ideal = (uint32_t)sim_rng_below(&s->rng, gr->nallowed);

	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		w[r] = g->wait_weights[r];
		sum += w[r];
	}
	if (!sum) {
		switch (g->behaviour) {
		case SCHED_CPU_BOUND:
			mix = mix_cpu, nmix = sizeof(mix_cpu) / sizeof(mix_cpu[0]);
			break;
		case SCHED_IO_BOUND:
			mix = mix_io, nmix = sizeof(mix_io) / sizeof(mix_io[0]);
			break;
		case SCHED_INTERACTIVE:
			mix = mix_interactive;
			nmix = sizeof(mix_interactive) / sizeof(mix_interactive[0]);
			break;
		default:
			mix = mix_periodic, nmix = sizeof(mix_periodic) / sizeof(mix_periodic[0]);
			break;
		}
		for (size_t k = 0; k < nmix; k++) {
			if (mix[k].reason < s->cfg.max_wait_reason) {
				w[mix[k].reason] = mix[k].weight;
				sum += mix[k].weight;
			}
		}
		if (!sum) {
			w[SCHED_WR_EXECUTIVE] = 1; /* a tiny MaximumWaitReason */
		}
	}
	sum = 0;
	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		sum += w[r];
		gr->wcum[r] = sum;
		if (w[r]) {
			gr->wreason[gr->nwait] = (uint8_t)r;
			gr->wsum[gr->nwait++] = sum;
		}
	}
	for (uint64_t pick = 0; pick < sum && pick < SCHED_WPICK; pick++) {
		unsigned k = 0;

		for (unsigned j = 0; j < gr->nwait; j++) {
			k += gr->wsum[j] <= pick;
		}
		gr->wpick[pick] = gr->wreason[k];
	}

	switch (g->behaviour) {
	case SCHED_CPU_BOUND:
		gr->burst_mean = g->period_ns ? g->period_ns : 60000000u;
		gr->wait_mean = 1000000u;
		gr->act = SIM_ACT_COMPUTE;
		break;
	case SCHED_IO_BOUND:
		gr->burst_mean = g->period_ns ? g->period_ns : 300000u;
		gr->wait_mean = 3000000u;
		gr->act = SIM_ACT_MEMORY;
		break;
	case SCHED_INTERACTIVE:
		gr->burst_mean = g->period_ns ? g->period_ns : 1500000u;
		gr->wait_mean = 25000000u;
		gr->act = SIM_ACT_BRANCHY;
		break;
	default:
		gr->burst_mean = g->period_ns;
		gr->wait_mean = g->period_ns;
		gr->act = SIM_ACT_MEDIA;
		break;
	}
	if (g->wait_ns && g->behaviour != SCHED_PERIODIC) {
		gr->wait_mean = g->wait_ns;
	}
	group_spread(g->burst_sigma, burst_spread, false, gr->burst_k);
	group_spread(g->wait_sigma, wait_spread, true, gr->wait_k);
}

/*
 * Affinity classes for steal(): unrestricted groups are class 0, and each
 * distinct restricted mask gets a class of its own (at most one per group,
 * so at most 64, whose bits fit cls_ok). Then the tallies' memory.
 */
static int setup_classes(struct sched *s)
{
	uint32_t first[SCHED_MAX_GROUPS]; /* class k > 0: its first group */

	s->nwords = (s->ncpu + 63u) / 64u;
	s->nclass = 1;
	for (unsigned gi = 0; gi < s->cfg.ngroups; gi++) {
		struct sched_grp *g = &s->grp[gi];
		uint32_t k = 1;

		if (g->any) {
			g->cls = 0;
			continue;
		}
		while (k < s->nclass &&
		       memcmp(s->grp[first[k - 1]].mask, g->mask, sizeof(g->mask)) != 0) {
			k++;
		}
		if (k == s->nclass) {
			first[s->nclass++ - 1] = gi;
		}
		g->cls = k;
	}
	s->cls_ok = calloc(s->ncpu, sizeof(*s->cls_ok));
	s->qcls = calloc((size_t)s->ncpu * SCHED_PRIORITIES * s->nclass, sizeof(*s->qcls));
	s->pcmask = calloc((size_t)SCHED_PRIORITIES * s->nclass * s->nwords, sizeof(*s->pcmask));
	s->pword = calloc((size_t)SCHED_PRIORITIES * s->nclass, sizeof(*s->pword));
	if (!s->cls_ok || !s->qcls || !s->pcmask || !s->pword) {
		return -ENOMEM;
	}
	for (uint32_t k = 1; k < s->nclass; k++) {
		for (unsigned c = 0; c < s->ncpu; c++) {
			if (bit_test(s->grp[first[k - 1]].mask, c)) {
				s->cls_ok[c] |= UINT64_C(1) << (k - 1u);
			}
		}
	}
	return 0;
}

/* The threads that exist at time 0: all waiting, their first wake spread out. */
static void initial_threads(struct sched *s)
{
	uint32_t i = 0;

	for (unsigned gi = 0; gi < s->cfg.ngroups; gi++) {
		const struct sched_group *g = &s->cfg.groups[gi];

		for (unsigned k = 0; k < g->count; k++, i++) {
			struct sched_thread *t = &s->thr[i];
			uint64_t wake;

			if (g->start_ns) {
				/* its process starts later: the slot's thread is created then */
				t->tid = 0;
				t->group = (uint16_t)gi;
				t->state = SCHED_TS_TERMINATED;
				t->qprev = t->qnext = SCHED_NONE;
				t->last_cpu = t->cpu = SCHED_NONE;
				ev_thread(s, i, g->start_ns);
				continue;
			}
			create_thread(s, i, (uint16_t)gi);
			t->state = SCHED_TS_WAITING;
			if (g->behaviour == SCHED_PERIODIC) {
				wake = t->next_period;
				t->next_period += g->period_ns;
			} else if (s->cfg.lived_in) {
				/* in the midst of a wait, as a running machine's threads are: what
				 * is left of it is one of its waits (the wait is memoryless) */
				wake = sim_rng_exp(&s->rng,
						   spread(s->grp[gi].wait_mean, t->wait_k));
			} else {
				wake = sim_rng_below(&s->rng, 2000000u); /* first 2 ms */
			}
			ev_thread(s, i, wake);
		}
	}
}

/*
 * Lived-in: the client-ID pool, IDs up to 0x1000 at least (where the
 * process IDs are) and 4/3 of the threads and process IDs there can be, so
 * that TIDs mostly lie among the PIDs, as on Windows, and a draw still
 * finds a free ID in a few tries; ID 0 (the idle thread's) and the process
 * IDs are taken.
 */
static int id_pool(struct sched *s)
{
	uint64_t n = ((uint64_t)s->nthr + s->cfg.ntaken) * 4u / 3u + 1u;

	n = n < 1024u ? 1024u : n;
	for (unsigned k = 0; k < s->cfg.ntaken; k++) {
		uint64_t id = s->cfg.taken_ids[k] / 4u + 1u;

		n = id > n ? id : n;
	}
	n = (n + 63u) & ~(uint64_t)63u;
	if (n > SCHED_LAST_TID / 4u) {
		return -1;
	}
	s->id_slots = (uint32_t)n;
	s->id_used = calloc(n / 64u, sizeof(*s->id_used));
	if (!s->id_used) {
		return -1;
	}
	s->id_used[0] = 1u; /* 0: the idle thread */
	for (unsigned k = 0; k < s->cfg.ntaken; k++) {
		uint32_t id = s->cfg.taken_ids[k] / 4u;

		s->id_used[id >> 6] |= 1ull << (id & 63u);
	}
	sim_rng_init(&s->id_rng, s->cfg.seed, SIM_RNG_SCHED_GLOBAL, 1);
	return 0;
}

struct sched *sched_create(const struct sched_cfg *cfg, struct trace_sink sink)
{
	struct sched *s;
	uint64_t threads = 0;

	if (sched_cfg_check(cfg, NULL) < 0 || !sink.ops || !sink.ops->cswitch || !sink.ops->end) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		goto err;
	}
	s->cfg = *cfg;
	if (!s->cfg.quantum_ns) {
		s->cfg.quantum_ns = 2ull * cfg->timer_resolution * 100u;
	}
	s->sink = sink;
	s->ncpu = cfg->cpus;
	for (unsigned gi = 0; gi < cfg->ngroups; gi++) {
		threads += cfg->groups[gi].count;
	}
	s->nthr = (uint32_t)threads;
	s->nev = s->ncpu + s->nthr + 1u;
	s->cpu = calloc(s->ncpu, sizeof(*s->cpu));
	s->thr = calloc(s->nthr, sizeof(*s->thr));
	s->ev_cur = SCHED_NONE;
	s->balance_at = SCHED_NEVER;
	s->model_at = SCHED_NEVER;
	if (!s->cpu || !s->thr || sched_tree_init(&s->cpuq, s->ncpu) < 0 ||
	    sched_pq_init(&s->thq, s->nthr) < 0) {
		goto err_s;
	}
	s->uptime_ns = ((uint64_t)cfg->start_time - (uint64_t)cfg->boot_time) * 100u;
	s->tick_ns = (uint64_t)cfg->timer_resolution * 100u;
	s->tick_k = s->uptime_ns / s->tick_ns;
	s->tick_b = s->tick_k * s->tick_ns;
	s->sec_k = s->uptime_ns / NS_PER_SEC;
	s->sec_b = s->sec_k * NS_PER_SEC;
	s->quantum_cycles = s->cfg.quantum_ns / NS_PER_SEC * cfg->cpu_mhz * 1000000u +
			    s->cfg.quantum_ns % NS_PER_SEC * cfg->cpu_mhz / 1000u;
	s->starve_ticks = (uint32_t)(STARVE_NS / s->tick_ns ? STARVE_NS / s->tick_ns : 1u);
	s->next_tid = SCHED_FIRST_TID;
	sim_rng_init(&s->rng, cfg->seed, SIM_RNG_SCHED_GLOBAL, 0);
	if (cfg->lived_in && id_pool(s) < 0) {
		goto err_s;
	}
	for (unsigned c = 0; c < s->ncpu; c++) {
		struct sched_cpu *cpu = &s->cpu[c];

		cpu->running = SCHED_NONE;
		cpu->standby = SCHED_NONE;
		for (unsigned p = 0; p < SCHED_PRIORITIES; p++) {
			cpu->qhead[p] = cpu->qtail[p] = SCHED_NONE;
		}
		sim_rng_init(&cpu->rng, cfg->seed, SIM_RNG_SCHED_CPU, c);
		bit_set(s->idle_mask, c);
	}
	for (unsigned gi = 0; gi < cfg->ngroups; gi++) {
		setup_group(s, gi);
	}
	if (setup_classes(s) < 0) {
		goto err_s;
	}
	setup_boosts(s);
	initial_threads(s);
	s->balance_at = BALANCE_NS;
	return s;

err_s:
	sched_destroy(s);
err:
	errno = ENOMEM;
	return NULL;
}

void sched_destroy(struct sched *s)
{
	if (!s) {
		return;
	}
	free(s->id_used);
	for (unsigned h = 0; h < s->nhooks; h++) {
		if (s->hooks[h].ops->destroy) {
			s->hooks[h].ops->destroy(s->hooks[h].ctx);
		}
	}
	free(s->pword);
	free(s->pcmask);
	free(s->qcls);
	free(s->cls_ok);
	sched_pq_finish(&s->thq);
	sched_tree_finish(&s->cpuq);
	free(s->thr);
	free(s->cpu);
	free(s);
}

/* ---- validation (tests) -------------------------------------------------- */

static const char *validate_queues(const struct sched *s, unsigned c, uint32_t *queued)
{
	const struct sched_cpu *cpu = &s->cpu[c];
	uint32_t count = 0;

	for (unsigned p = 0; p < SCHED_PRIORITIES; p++) {
		uint32_t prev = SCHED_NONE;

		if (!(cpu->qmask & (1u << p)) != (cpu->qhead[p] == SCHED_NONE)) {
			return "qmask disagrees with the queue heads";
		}
		for (uint32_t i = cpu->qhead[p]; i != SCHED_NONE; i = s->thr[i].qnext) {
			const struct sched_thread *t = &s->thr[i];

			if (i >= s->nthr || t->qprev != prev || t->state != SCHED_TS_READY ||
			    t->cpu != c || (unsigned)t->pri != p) {
				return "a queued thread is not Ready at its queue's priority";
			}
			if (!sched_thread_allowed(s, i, c)) {
				return "a thread is queued on a CPU outside its affinity";
			}
			prev = i;
			if (++count > s->nthr) {
				return "a ready queue loops";
			}
		}
		if (cpu->qtail[p] != prev) {
			return "a queue tail is wrong";
		}
	}
	if (count != cpu->qcount || (count != 0) != bit_test(s->ready_mask, c)) {
		return "qcount or ready_mask is wrong";
	}
	*queued += count;
	return NULL;
}

/* steal()'s tallies: recount every queue by class. */
static const char *validate_tallies(const struct sched *s)
{
	uint32_t n[SCHED_MAX_GROUPS + 1];

	for (unsigned p = 0; p < SCHED_PRIORITIES; p++) {
		uint32_t cpus = 0;

		for (unsigned c = 0; c < s->ncpu; c++) {
			const struct sched_cpu *cpu = &s->cpu[c];

			memset(n, 0, sizeof(n));
			for (uint32_t i = cpu->qhead[p]; i != SCHED_NONE; i = s->thr[i].qnext) {
				n[s->grp[s->thr[i].group].cls]++;
			}
			for (uint32_t k = 0; k < s->nclass; k++) {
				if (*qcls_of(s, c, p, k) != n[k]) {
					return "a queue's count by affinity class is wrong";
				}
				if (bit_test(pcmask_of(s, p, k), c) != (n[k] != 0)) {
					return "a class mask disagrees with the queue";
				}
				if (((s->pword[p * s->nclass + k] >> (c >> 6)) & 1u) !=
				    (pcmask_of(s, p, k)[c >> 6] != 0)) {
					return "a class mask's word summary is wrong";
				}
				if (((s->cls_prio[k] >> p) & 1u) !=
				    (s->pword[p * s->nclass + k] != 0)) {
					return "a class's priority summary is wrong";
				}
			}
			cpus += (cpu->qmask >> p) & 1u;
		}
		if (s->prio_cpus[p] != cpus || ((s->prio_any >> p) & 1u) != (cpus != 0)) {
			return "prio_cpus or prio_any is wrong";
		}
	}
	for (unsigned c = 0; c < s->ncpu; c++) {
		for (unsigned gi = 0; gi < s->cfg.ngroups; gi++) {
			const struct sched_grp *g = &s->grp[gi];
			bool ok = g->cls == 0 || ((s->cls_ok[c] >> (g->cls - 1u)) & 1u);

			if ((g->cls == 0) != g->any || ok != (g->any || bit_test(g->mask, c))) {
				return "an affinity class disagrees with its group";
			}
		}
	}
	return NULL;
}

static const char *validate_cpus(const struct sched *s, uint32_t *queued)
{
	for (unsigned c = 0; c < s->ncpu; c++) {
		const struct sched_cpu *cpu = &s->cpu[c];
		bool avail = cpu->running == SCHED_NONE && cpu->standby == SCHED_NONE;
		const char *w;

		if (avail != bit_test(s->idle_mask, c)) {
			return "idle_mask disagrees with the CPU";
		}
		if (cpu->running != SCHED_NONE && (s->thr[cpu->running].state != SCHED_TS_RUNNING ||
						   s->thr[cpu->running].cpu != c)) {
			return "the running thread is not Running on its CPU";
		}
		if (cpu->standby != SCHED_NONE && (s->thr[cpu->standby].state != SCHED_TS_STANDBY ||
						   s->thr[cpu->standby].cpu != c)) {
			return "the standby thread is not Standby on its CPU";
		}
		if (cpu->standby != SCHED_NONE && !sched_tree_queued(&s->cpuq, c)) {
			return "a CPU with a standby thread has no event";
		}
		w = validate_queues(s, c, queued);
		if (w) {
			return w;
		}
	}
	return NULL;
}

static const char *validate_threads(const struct sched *s, uint32_t queued)
{
	uint32_t ready = 0;

	for (uint32_t i = 0; i < s->nthr; i++) {
		const struct sched_thread *t = &s->thr[i];

		if (t->base < 1 || t->base > 31 || t->pri < t->base || t->pri > 31 ||
		    (t->base >= 16 && t->pri != t->base)) {
			return "a priority is out of range";
		}
		if (t->pri_dec != t->pri - t->base && t->pri_dec != 0) {
			return "PriorityDecrement is not the boost left";
		}
		if (t->ideal >= s->ncpu || !sched_thread_allowed(s, i, t->ideal)) {
			return "an ideal processor is outside the affinity";
		}
		switch (t->state) {
		case SCHED_TS_READY:
			ready++;
			break;
		case SCHED_TS_RUNNING:
			if (s->cpu[t->cpu].running != i) {
				return "a Running thread is not its CPU's running thread";
			}
			break;
		case SCHED_TS_STANDBY:
			if (s->cpu[t->cpu].standby != i) {
				return "a Standby thread is not its CPU's standby thread";
			}
			break;
		case SCHED_TS_WAITING:
			if (t->wait_reason >= s->cfg.max_wait_reason) {
				return "a wait reason is >= max_wait_reason";
			}
			if (!sched_pq_queued(&s->thq, i)) {
				return "a Waiting thread has no wake-up";
			}
			break;
		case SCHED_TS_TERMINATED:
			if (!sched_pq_queued(&s->thq, i) && !s->tids_exhausted) {
				return "a terminated slot has no replacement coming";
			}
			break;
		default:
			return "a thread is in a transient state between events";
		}
	}
	return ready == queued ? NULL : "Ready threads are missing from the queues";
}

static bool may_run_on_an_idle_cpu(const struct sched *s, uint32_t i)
{
	const struct sched_grp *g = &s->grp[s->thr[i].group];

	for (unsigned w = 0; w < SCHED_MASK_WORDS; w++) {
		if (s->idle_mask[w] & (g->any ? UINT64_MAX : g->mask[w])) {
			return true;
		}
	}
	return false;
}

/* Nothing queued anywhere may run on a CPU that sits idle. */
static const char *validate_idle(const struct sched *s)
{
	for (unsigned x = 0; x < s->ncpu; x++) {
		const struct sched_cpu *cpu = &s->cpu[x];

		for (unsigned p = 0; p < SCHED_PRIORITIES; p++) {
			for (uint32_t i = cpu->qhead[p]; i != SCHED_NONE; i = s->thr[i].qnext) {
				if (may_run_on_an_idle_cpu(s, i)) {
					return "a CPU idles while a ready thread may run there";
				}
			}
		}
	}
	return NULL;
}

static const char *validate_heap(const struct sched *s)
{
	const char *w = sched_pq_check(&s->thq);

	if (!w) {
		w = sched_tree_check(&s->cpuq);
	}
	if (w) {
		return w;
	}
	if (s->ev_cur != SCHED_NONE) {
		return "an event is still being handled";
	}
	for (uint32_t i = 0; i < s->nthr; i++) {
		if (sched_pq_queued(&s->thq, i) && s->thq.t[i] < s->now) {
			return "an event is in the past";
		}
	}
	for (unsigned c = 0; c < s->ncpu; c++) {
		if (sched_tree_queued(&s->cpuq, c) && s->cpuq.t[c] < s->now) {
			return "a CPU's event is in the past";
		}
	}
	if (s->balance_at < s->now || s->balance_at == SCHED_NEVER) {
		return "the balance set manager is not coming";
	}
	return NULL;
}

int sched_validate(const struct sched *s, const char **why)
{
	uint32_t queued = 0;
	const char *w = validate_cpus(s, &queued);

	if (!w) {
		w = validate_threads(s, queued);
	}
	if (!w) {
		w = validate_tallies(s);
	}
	if (!w) {
		w = validate_idle(s);
	}
	if (!w) {
		w = validate_heap(s);
	}
	if (why) {
		*why = w;
	}
	return w ? -EINVAL : 0;
}
