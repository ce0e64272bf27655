// SPDX-License-Identifier: MIT
/*
 * pebs_model/pebs.c - per-CPU PMC counters and the PEBS Debug Store model.
 *
 *   pebs_advance(cpu, now, act)          one interval of one activity
 *     cycles   = elapsed core cycles (exact; 1/64 of them in the idle loop,
 *                which is mostly halted)
 *     instr    = cycles * IPC(act) * noise(7/8..9/8)
 *     other k  = instr * rate(k, act) * noise(3/4..5/4)
 *     samples  = instr_total / PEBS_SAMPLE_AFTER
 *     PebsIndex = base + (samples mod threshold_records) * 0xC0
 *
 *   PebsBufferBase                PebsInterruptThreshold   PebsAbsoluteMaximum
 *   |rec|rec|rec| ... |rec|       |  (PMI: drain to base)  |
 *   ^-- PebsIndex moves right by 0xC0 per sample, back to base at the threshold
 *
 * All counters draw their noise whatever cfg->ncounters says, so enabling
 * more counters does not change the values of the others (nor PebsIndex);
 * the ones past ncounters, never read, only make their draws.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebs_model/pebs.h"
#include "scheduler_model/sim_rng.h"
#include "writer/etl_wire.h"

/* What each counter id counts. */
enum counter_kind {
	K_CYCLES = 0,  /* unhalted core cycles */
	K_INSTR = 1,   /* instructions retired */
	K_RATE = 2,    /* kinds >= 2 are per-instruction rates */
	K_REFCYC = 11, /* unhalted reference cycles: derived from cycles */
};

static const char *const counter_names[PEBS_MAX_COUNTERS] = {
	"TotalCycles",		"InstructionRetired", "LLCMisses",
	"BranchMispredictions", "BranchInstructions", "LLCReference",
	"DcacheAccesses",	"DcacheMisses",	      "IcacheMisses",
	"LoadInstructions",	"StoreInstructions",  "UnhaltedReferenceCycles",
	"TotalIssues",		"FpInstructions",     "IntegerInstructions",
	"MemoryBarrierCycles",
};

/* Instructions per cycle x 1024, by activity. */
static const uint32_t ipc_x1024[SIM_ACTIVITIES] = {410, 2662, 614, 1229, 2150};

/*
 * Events per 65536 instructions, by counter id (>= 2) and activity (idle,
 * compute, memory, branchy, media); from typical per-kilo-instruction
 * figures, e.g. LLC misses 0.3 (compute) to 6 (memory) per 1000.
 */
static const uint32_t rate_x65536[PEBS_MAX_COUNTERS][SIM_ACTIVITIES] = {
	[2] = {66, 20, 393, 98, 52},
	[3] = {131, 52, 197, 655, 98},
	[4] = {11796, 9175, 11141, 14418, 5898},
	[5] = {262, 98, 1311, 393, 262},
	[6] = {19661, 22938, 27525, 20972, 29491},
	[7] = {524, 197, 2621, 786, 655},
	[8] = {197, 33, 262, 590, 66},
	[9] = {16384, 18350, 21627, 17695, 22938},
	[10] = {6554, 7864, 10486, 7209, 9175},
	[12] = {72090, 75366, 85197, 78643, 68813},
	[13] = {328, 1966, 131, 328, 26214},
	[14] = {39322, 42598, 32768, 39322, 19661},
	[15] = {66, 13, 197, 66, 33},
};

struct pebs_cpu {
	uint64_t last_ns;   /* simulation time of the last advance */
	uint32_t cyc_carry; /* ns * MHz remainder (in 1/1000 cycles) */
	uint64_t ctr[PEBS_MAX_COUNTERS];
	struct pebs_ds_save_area ds;
	struct pebs_cpu_stats st;
	struct sim_rng rng;
};

struct pebs {
	struct pebs_cfg cfg;
	struct pebs_cpu *cpu;
};

const char *pebs_counter_name(unsigned id)
{
	return id < PEBS_MAX_COUNTERS ? counter_names[id] : "?";
}

int pebs_cfg_check(const struct pebs_cfg *cfg)
{
	if (!cfg || cfg->cpus == 0 || cfg->cpus > PEBS_MAX_CPUS || cfg->cpu_mhz == 0 ||
	    cfg->ncounters > PEBS_MAX_COUNTERS) {
		return -EINVAL;
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

/* Elapsed core cycles of @dt ns at @mhz, carrying the fraction. */
static uint64_t cycles_of(struct pebs_cpu *pc, uint64_t dt, uint32_t mhz)
{
	uint64_t sec = dt / 1000000000u, rem = dt % 1000000000u;
	uint64_t milli = rem * mhz + pc->cyc_carry; /* < 1e9 * 2^32 */

	pc->cyc_carry = (uint32_t)(milli % 1000u);
	return sec * mhz * 1000000u + milli / 1000u;
}

int pebs_advance(struct pebs *p, unsigned cpu, uint64_t now_ns, enum sim_activity act)
{
	struct pebs_cpu *pc;
	uint64_t cyc, run, instr;
	unsigned nc, skip;

	if (!p || cpu >= p->cfg.cpus || (unsigned)act >= SIM_ACTIVITIES) {
		return -EINVAL;
	}
	pc = &p->cpu[cpu];
	nc = p->cfg.ncounters;
	if (now_ns < pc->last_ns) {
		return -EINVAL;
	}
	cyc = cycles_of(pc, now_ns - pc->last_ns, p->cfg.cpu_mhz);
	pc->last_ns = now_ns;
	run = act == SIM_ACT_IDLE ? cyc / 64u : cyc;
	instr = mul_frac(run, ipc_x1024[act], 10);
	instr = mul_frac(instr, sim_rng_range(&pc->rng, 896, 1152), 10);

	pc->ctr[K_CYCLES] += run;
	pc->ctr[K_INSTR] += instr;
	/*
	 * Counters past ncounters are never read: only their draws are made
	 * (they come after the ones computed, as in id order), so the stream
	 * stays where computing them would have left it.
	 */
	if (K_REFCYC < nc) {
		pc->ctr[K_REFCYC] +=
			mul_frac(run, 58982, 16); /* turbo: core clock ~1.11x nominal */
	}
	for (unsigned k = K_RATE; k < nc; k++) {
		if (k == K_REFCYC) {
			continue;
		}
		pc->ctr[k] += mul_frac(mul_frac(instr, rate_x65536[k][act], 16),
				       sim_rng_range(&pc->rng, 768, 1280), 10);
	}
	skip = PEBS_MAX_COUNTERS - K_RATE - 1u; /* the noisy counters: 2..15 but 11 */
	if (nc > K_RATE) {
		skip -= nc - K_RATE - (nc > K_REFCYC);
	}
	sim_rng_skip_below_n(&pc->rng, 1280 - 768 + 1, skip);
	if (p->cfg.pebs) {
		uint64_t samples = pc->ctr[K_INSTR] / PEBS_SAMPLE_AFTER;

		pc->st.samples = samples;
		pc->st.interrupts = samples / PEBS_THRESHOLD_RECORDS;
		pc->ds.pebs_index = pc->ds.pebs_buffer_base +
				    (samples % PEBS_THRESHOLD_RECORDS) * PEBS_RECORD_SIZE;
	}
	return 0;
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
		*pebs_index = p->cfg.pebs ? pc->ds.pebs_index : 0;
	}
}

void pebs_ds_save_area(const struct pebs *p, unsigned cpu, struct pebs_ds_save_area *out)
{
	*out = p->cpu[cpu].ds;
}

void pebs_ds_save_area_encode(const struct pebs_ds_save_area *ds,
			      uint8_t out[PEBS_DS_SAVE_AREA_SIZE])
{
	put_le64(out + offsetof(struct pebs_ds_save_area, bts_buffer_base), ds->bts_buffer_base);
	put_le64(out + offsetof(struct pebs_ds_save_area, bts_index), ds->bts_index);
	put_le64(out + offsetof(struct pebs_ds_save_area, bts_absolute_maximum),
		 ds->bts_absolute_maximum);
	put_le64(out + offsetof(struct pebs_ds_save_area, bts_interrupt_threshold),
		 ds->bts_interrupt_threshold);
	put_le64(out + offsetof(struct pebs_ds_save_area, pebs_buffer_base), ds->pebs_buffer_base);
	put_le64(out + offsetof(struct pebs_ds_save_area, pebs_index), ds->pebs_index);
	put_le64(out + offsetof(struct pebs_ds_save_area, pebs_absolute_maximum),
		 ds->pebs_absolute_maximum);
	put_le64(out + offsetof(struct pebs_ds_save_area, pebs_interrupt_threshold),
		 ds->pebs_interrupt_threshold);
	for (unsigned i = 0; i < 4; i++) {
		put_le64(out + offsetof(struct pebs_ds_save_area, pebs_counter_reset) + 8u * i,
			 ds->pebs_counter_reset[i]);
	}
}

void pebs_get_cpu_stats(const struct pebs *p, unsigned cpu, struct pebs_cpu_stats *st)
{
	*st = p->cpu[cpu].st;
}

/* The core's hook: the interval since the last switch on @cpu ran @ran's code. */
static void hook_cswitch(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			 struct sim_cswitch *cs)
{
	struct pebs *p = ctx;

	(void)pebs_advance(p, cpu, now_ns, ran);
	pebs_read(p, cpu, cs->pmc, &cs->pebs_index);
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
