// SPDX-License-Identifier: MIT
/*
 * pebs_model/pebs.c - per-CPU PMC counters and the PEBS Debug Store model.
 *
 *   pebs_advance(cpu, now, act)          one interval of one activity
 *     cycles   = elapsed core cycles (exact; 1/64 of them in the idle loop,
 *                which is mostly halted)
 *     instr    = cycles * IPC(act) * noise(7/8..9/8)
 *     counter k, by the kind of its source (pmc_sources.h):
 *       TIME       = now / 100 ns         CYCLES = + cycles
 *       REF_CYCLES = + cycles * 0.9        INSTR  = + instr
 *       RATE       = + instr * rate(source, act) * noise(3/4..5/4)
 *       ZERO       = 0
 *     samples  = instr_total / PEBS_SAMPLE_AFTER
 *     PebsIndex = base + (samples mod threshold_records) * 0xC0
 *
 *   PebsBufferBase                PebsInterruptThreshold   PebsAbsoluteMaximum
 *   |rec|rec|rec| ... |rec|       |  (PMI: drain to base)  |
 *   ^-- PebsIndex moves right by 0xC0 per sample, back to base at the threshold
 *
 * The draw rule, which keeps every counter's values independent of which
 * other counters exist: each advance makes exactly one draw u from the
 * CPU's stream, whatever the counters. The instruction noise is the top 16
 * bits of u scaled by multiply-shift; the noise of counter id k (a RATE
 * counter) is 16-bit lane k mod 4 of mix(u + (k / 4 + 1) * golden), a
 * bijective mixer, so a counter's values depend on its id, source, the seed
 * and the load, never on the other counters. (Before, each advance drew
 * 1 + 13 (+ 3) numbers by rejection: most of the model's cost.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebs_model/pebs.h"
#include "scheduler_model/sim_rng.h"

/* Instructions per cycle x 1024, by activity: 0.4, 2.6, 0.6, 1.2, 2.1. */
static const uint32_t ipc_x1024[SIM_ACTIVITIES] = {410, 2662, 614, 1229, 2150};

/* reference cycles per core cycle x 65536: turbo runs the core ~1.11x nominal */
#define REF_CYCLES_X65536 58982u

/* instruction noise: x (896..1152) / 1024; RATE noise: x (768..1280) / 1024 */
#define INSTR_NOISE_LO 896u
#define INSTR_NOISE_N  257u
#define RATE_NOISE_LO  768u
#define RATE_NOISE_N   513u
#define GOLDEN	       UINT64_C(0x9E3779B97F4A7C15)

/* what the event path touches first, together; the DS save area after */
struct pebs_cpu {
	struct sim_rng rng;   /* one draw per advance: every noise of the interval */
	uint64_t last_ns;     /* simulation time of the last advance */
	uint64_t instr_total; /* instructions retired (PEBS samples them) */
	uint64_t cyc_at;      /* core cycles at last_ns: last_ns * MHz / 1000, rounded down */
	uint64_t ctr[PEBS_MAX_COUNTERS];
	struct pebs_ds_save_area ds; /* pebs_index is derived from instr_total when read */
};

/*
 * What an advance does to counter k, worked out by pebs_create: its value
 * becomes (value & keep) + the interval's growth of its kind (TIME keeps
 * nothing: it is set), and a RATE counter's growth is its own. One pass
 * over the counters, which also hands each value to the switch record.
 */
struct pebs_plan {
	uint64_t keep;		       /* all ones, or 0 for TIME */
	uint64_t salt;		       /* RATE: (k / 4 + 1) * golden, its mixer's input offset */
	uint32_t rate[SIM_ACTIVITIES]; /* RATE: events per 65536 instructions */
	uint8_t kind;		       /* enum pmc_kind */
	uint8_t lane;		       /* RATE: 16 * (k % 4), its noise lane's shift */
};

struct pebs {
	struct pebs_cfg cfg;
	const struct pmc_source *src[PEBS_MAX_COUNTERS]; /* of counters 0..ncounters-1 */
	struct pebs_plan plan[PEBS_MAX_COUNTERS];
	uint64_t fast_ns;  /* below it, ns * MHz fits 64 bits: cycles_at() multiplies at once */
	uint64_t fast_run; /* below it, no product of an interval's growth overflows (advance()) */
	struct pebs_cpu *cpu;
};

static uint64_t fast_run_of(const struct pebs *p);

/* The source counter @k counts under @cfg (its default when unset). */
static unsigned source_of(const struct pebs_cfg *cfg, unsigned k)
{
	return cfg->source[k] != PMC_SOURCE_DEFAULT ? cfg->source[k] : pmc_source_default(k);
}

unsigned pebs_counter_source(const struct pebs *p, unsigned id)
{
	return id < p->cfg.ncounters ? source_of(&p->cfg, id) : 0;
}

int pebs_cfg_check(const struct pebs_cfg *cfg)
{
	if (!cfg || cfg->cpus == 0 || cfg->cpus > PEBS_MAX_CPUS || cfg->cpu_mhz == 0 ||
	    cfg->ncounters > PEBS_MAX_COUNTERS) {
		return -EINVAL;
	}
	for (unsigned k = 0; k < cfg->ncounters; k++) {
		if (!pmc_source_get(source_of(cfg, k))) {
			return -EINVAL;
		}
	}
	return 0;
}

struct pebs *pebs_create(const struct pebs_cfg *cfg)
{
	struct pebs *p;

	if (pebs_cfg_check(cfg) < 0) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		goto err;
	}
	p->cfg = *cfg;
	for (unsigned k = 0; k < cfg->ncounters; k++) {
		struct pebs_plan *pl = &p->plan[k];
		enum pmc_kind kind;

		p->src[k] = pmc_source_get(source_of(cfg, k));
		kind = p->src[k]->kind;
		pl->kind = (uint8_t)kind;
		pl->keep = kind == PMC_KIND_TIME ? 0 : UINT64_MAX;
		pl->salt = (uint64_t)(k / 4u + 1u) * GOLDEN;
		pl->lane = (uint8_t)(16u * (k % 4u));
		memcpy(pl->rate, p->src[k]->rate, sizeof(pl->rate));
	}
	p->fast_ns = UINT64_MAX / cfg->cpu_mhz;
	p->fast_run = fast_run_of(p);
	p->cpu = calloc(cfg->cpus, sizeof(*p->cpu));
	if (!p->cpu) {
		goto err_p;
	}
	for (unsigned c = 0; c < cfg->cpus; c++) {
		struct pebs_cpu *pc = &p->cpu[c];

		sim_rng_init(&pc->rng, cfg->seed, SIM_RNG_PEBS_CPU, c);
		if (cfg->pebs) {
			uint64_t base = PEBS_BUFFER_VA + PEBS_BUFFER_STRIDE * c;

			pc->ds.pebs_buffer_base = base;
			pc->ds.pebs_index = base;
			pc->ds.pebs_absolute_maximum =
				base + (uint64_t)PEBS_BUFFER_RECORDS * PEBS_RECORD_SIZE;
			pc->ds.pebs_interrupt_threshold =
				base + (uint64_t)PEBS_THRESHOLD_RECORDS * PEBS_RECORD_SIZE;
			/* the counter restarts at -SAV (48-bit) after each sample */
			pc->ds.pebs_counter_reset[0] =
				((UINT64_C(1) << PEBS_COUNTER_BITS) - PEBS_SAMPLE_AFTER);
		}
	}
	return p;

err_p:
	free(p);
err:
	errno = ENOMEM;
	return NULL;
}

void pebs_destroy(struct pebs *p)
{
	if (!p) {
		return;
	}
	free(p->cpu);
	free(p);
}

/* @v * @num / 65536 (or 1024, with @shift 10), without overflowing 64 bits. */
static uint64_t mul_frac(uint64_t v, uint64_t num, unsigned shift)
{
	uint64_t mask = (UINT64_C(1) << shift) - 1u;

	return (v >> shift) * num + (((v & mask) * num) >> shift);
}

/*
 * mul_frac() of a product known to fit 64 bits: then (v >> s) * num plus
 * the low part's is exactly (v * num) >> s, one multiplication.
 */
static uint64_t mul_frac_fits(uint64_t v, uint64_t num, unsigned shift)
{
	return (v * num) >> shift;
}

/*
 * The interval's cycles (run) below which every product advance() makes
 * fits 64 bits: instructions are at most 3 x run (IPC x noise < 2662 / 1024 x
 * 1152 / 1024), times a RATE counter's rate, or run times the reference
 * factor; the RATE noise then multiplies a value 65536 times smaller.
 */
static uint64_t fast_run_of(const struct pebs *p)
{
	uint64_t rmax = 1, lim = UINT64_C(1) << 44;

	for (unsigned k = 0; k < p->cfg.ncounters; k++) {
		for (unsigned a = 0; a < SIM_ACTIVITIES; a++) {
			rmax = p->plan[k].rate[a] > rmax ? p->plan[k].rate[a] : rmax;
		}
	}
	return UINT64_MAX / 4u / rmax < lim ? UINT64_MAX / 4u / rmax : lim;
}

/*
 * The core cycles from 0 to @now_ns, ns * MHz / 1000 rounded down: an
 * interval's cycles are the difference of two of these, which is what
 * carrying each interval's fraction of a cycle to the next would give.
 * Past fast_ns (months of simulated time) whole seconds are split off.
 */
static uint64_t cycles_at(const struct pebs *p, uint64_t now_ns)
{
	uint64_t mhz = p->cfg.cpu_mhz;

	if (now_ns < p->fast_ns) {
		return now_ns * mhz / 1000u;
	}
	return now_ns / 1000000000u * mhz * 1000000u + now_ns % 1000000000u * mhz / 1000u;
}

/* splitmix64's finalizer: a bijection whose output bits all depend on every input bit */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* 16 random bits scaled to lo..lo+n-1 by multiply-shift (no division, no rejection) */
static uint64_t noise_of(uint64_t bits16, uint32_t lo, uint32_t n)
{
	return lo + ((bits16 * n) >> 16);
}

/* The noise of the RATE counter planned as @pl in the interval whose draw is @u (see the top). */
static uint64_t rate_noise(uint64_t u, const struct pebs_plan *pl)
{
	uint64_t m = mix64(u + pl->salt);

	return noise_of((m >> pl->lane) & 0xFFFFu, RATE_NOISE_LO, RATE_NOISE_N);
}

/*
 * One interval's growth of the RATE counter @pl: instructions x rate x
 * noise (@fits: the products fit 64 bits, see fast_run_of()).
 */
static inline uint64_t rate_step(const struct pebs_plan *pl, enum sim_activity act, uint64_t instr,
				 uint64_t u, bool fits)
{
	if (fits) {
		return mul_frac_fits(mul_frac_fits(instr, pl->rate[act], 16), rate_noise(u, pl),
				     10);
	}
	return mul_frac(mul_frac(instr, pl->rate[act], 16), rate_noise(u, pl), 10);
}

/*
 * The growth of @pc's counters over an interval of @run cycles ending at
 * @now_ns (advance()); @fits: @run is below fast_run, so the products are
 * made at once (the same values: mul_frac_fits()). A constant where it is
 * inlined: each way is compiled without the test.
 */
static inline void grow(struct pebs *p, struct pebs_cpu *pc, uint64_t now_ns, enum sim_activity act,
			uint64_t run, uint64_t *out, bool fits)
{
	uint64_t u = sim_rng_next(&pc->rng), instr;

	if (fits) {
		instr = mul_frac_fits(run, ipc_x1024[act], 10);
		instr = mul_frac_fits(instr, noise_of(u >> 48, INSTR_NOISE_LO, INSTR_NOISE_N), 10);
	} else {
		instr = mul_frac(run, ipc_x1024[act], 10);
		instr = mul_frac(instr, noise_of(u >> 48, INSTR_NOISE_LO, INSTR_NOISE_N), 10);
	}
	pc->instr_total += instr;

	/* each counter's growth by its kind; the plan never changes, so nor do the branches */
	for (unsigned k = 0; k < p->cfg.ncounters; k++) {
		const struct pebs_plan *pl = &p->plan[k];
		uint64_t g;

		if (pl->kind == PMC_KIND_RATE) {
			g = rate_step(pl, act, instr, u, fits);
		} else if (pl->kind == PMC_KIND_CYCLES) {
			g = run;
		} else if (pl->kind == PMC_KIND_INSTR) {
			g = instr;
		} else if (pl->kind == PMC_KIND_REF_CYCLES) {
			g = mul_frac(run, REF_CYCLES_X65536, 16);
		} else if (pl->kind == PMC_KIND_TIME) {
			g = now_ns / 100u;
		} else {
			g = 0;
		}
		pc->ctr[k] = (pc->ctr[k] & pl->keep) + g;
		if (out) {
			out[k] = pc->ctr[k];
		}
	}
}

/*
 * pebs_advance() on checked arguments: the core's hook calls it directly,
 * with @out (the record's counters) to receive every value as it is made.
 */
static inline void advance(struct pebs *p, struct pebs_cpu *pc, uint64_t now_ns,
			   enum sim_activity act, uint64_t *out)
{
	uint64_t at = cycles_at(p, now_ns), cyc = at - pc->cyc_at, run;

	pc->cyc_at = at;
	pc->last_ns = now_ns;
	run = act == SIM_ACT_IDLE ? cyc / 64u : cyc;
	if (run < p->fast_run) {
		grow(p, pc, now_ns, act, run, out, true); /* an interval of hours at most */
	} else {
		grow(p, pc, now_ns, act, run, out, false);
	}
}

int pebs_advance(struct pebs *p, unsigned cpu, uint64_t now_ns, enum sim_activity act)
{
	if (!p || cpu >= p->cfg.cpus || (unsigned)act >= SIM_ACTIVITIES ||
	    now_ns < p->cpu[cpu].last_ns) {
		return -EINVAL;
	}
	advance(p, &p->cpu[cpu], now_ns, act, NULL);
	return 0;
}

/* PebsIndex of @pc: base + (samples mod threshold records) * record size. */
static uint64_t pebs_index_of(const struct pebs_cpu *pc)
{
	uint64_t samples = pc->instr_total / PEBS_SAMPLE_AFTER;

	return pc->ds.pebs_buffer_base + (samples % PEBS_THRESHOLD_RECORDS) * PEBS_RECORD_SIZE;
}

void pebs_read(const struct pebs *p, unsigned cpu, uint64_t pmc[PEBS_MAX_COUNTERS],
	       uint64_t *pebs_index)
{
	const struct pebs_cpu *pc = &p->cpu[cpu];

	if (pmc) {
		unsigned nc = p->cfg.ncounters;

		memcpy(pmc, pc->ctr, nc * sizeof(pmc[0]));
		memset(pmc + nc, 0, (PEBS_MAX_COUNTERS - nc) * sizeof(pmc[0]));
	}
	if (pebs_index) {
		*pebs_index = p->cfg.pebs ? pebs_index_of(pc) : 0;
	}
}

void pebs_ds_save_area(const struct pebs *p, unsigned cpu, struct pebs_ds_save_area *out)
{
	*out = p->cpu[cpu].ds;
	if (p->cfg.pebs) {
		out->pebs_index = pebs_index_of(&p->cpu[cpu]);
	}
}

void pebs_get_cpu_stats(const struct pebs *p, unsigned cpu, struct pebs_cpu_stats *st)
{
	uint64_t samples = p->cfg.pebs ? p->cpu[cpu].instr_total / PEBS_SAMPLE_AFTER : 0;

	st->samples = samples;
	st->interrupts = samples / PEBS_THRESHOLD_RECORDS;
}

/* The core's hook: the interval since the last switch on @cpu ran @ran's code. */
static void hook_cswitch(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			 struct sim_cswitch *cs)
{
	struct pebs *p = ctx;
	struct pebs_cpu *pc = &p->cpu[cpu];

	/*
	 * The core passes its own CPU and activity; its time never goes back.
	 * The record's counters past ncounters stay as the core zeroed them.
	 */
	if (now_ns >= pc->last_ns) {
		advance(p, pc, now_ns, ran, cs->pmc);
	} else {
		memcpy(cs->pmc, pc->ctr, p->cfg.ncounters * sizeof(cs->pmc[0]));
	}
	cs->pebs_index = p->cfg.pebs ? pebs_index_of(pc) : 0;
}

/* The core's hook for other records (spin-lock releases): the counters now. */
static void hook_counters(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			  uint64_t pmc[SIM_MAX_COUNTERS])
{
	struct pebs *p = ctx;

	(void)pebs_advance(p, cpu, now_ns, ran);
	pebs_read(p, cpu, pmc, NULL);
}

static void hook_destroy(void *ctx)
{
	pebs_destroy(ctx);
}

static const struct sim_hook_ops pebs_hook_ops = {
	.cswitch = hook_cswitch,
	.counters = hook_counters,
	.destroy = hook_destroy,
};

int pebs_attach(struct sched *s)
{
	const struct sched_cfg *c = sched_get_cfg(s);
	struct pebs_cfg pc = {
		.cpus = c->cpus,
		.cpu_mhz = c->cpu_mhz,
		.ncounters = c->ncounters,
		.pebs = c->pebs,
		.seed = c->seed,
	};
	struct pebs *p;
	int rc;

	static_assert(sizeof(pc.source) == sizeof(c->counter_source), "one source per counter");
	memcpy(pc.source, c->counter_source, sizeof(pc.source));
	if (!c->ncounters && !c->pebs) {
		return 0;
	}
	p = pebs_create(&pc);
	if (!p) {
		return -errno;
	}
	rc = sched_attach(s, &pebs_hook_ops, p);
	if (rc < 0) {
		pebs_destroy(p);
		return rc;
	}
	return 0;
}
