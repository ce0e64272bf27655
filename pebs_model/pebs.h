/* SPDX-License-Identifier: MIT */
/*
 * pebs_model/pebs.h - the simulated performance-monitoring hardware of each
 * CPU: up to 16 free-running PMC counters, each counting one PMC source
 * (pmc_sources.h), whose values grow with simulated run time and with what
 * the running thread does, and, when PEBS is on, the
 * processor's Debug Store save area (PROCESSOR_PROFILE_CONTROL_AREA, seed
 * 004) whose PebsIndex the kernel stamps into CSwitch events.
 *
 * The scheduler advances a CPU's counters at every context switch (the
 * interval since the previous one was spent by one thread, or the idle
 * loop) and then reads them. Values are integers from a seeded per-CPU
 * stream: same seed, same values.
 */
#ifndef PEBS_MODEL_PEBS_H
#define PEBS_MODEL_PEBS_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pebs_model/pmc_sources.h"
#include "scheduler_model/sched.h"
#include "scheduler_model/sim.h"

#define PEBS_MAX_CPUS	  1024
#define PEBS_MAX_COUNTERS 16 /* = SIM_MAX_COUNTERS (producer/trace_sink.h) */

/*
 * The PEBS buffer of each CPU. A record is 0xC0 bytes (the Skylake PEBS
 * record format with its memory-info, TSX and TSC fields); the buffer holds
 * PEBS_BUFFER_RECORDS of them. The interrupt threshold sits 1/16 of the
 * buffer below the absolute maximum, as drivers leave room for the records
 * that land while the PMI is delivered; the PMI handler drains the buffer,
 * so PebsIndex returns to PebsBufferBase (the model has no PMI latency, so
 * PebsIndex is always in [PebsBufferBase, PebsInterruptThreshold)).
 */
#define PEBS_RECORD_SIZE       0xC0u
#define PEBS_BUFFER_RECORDS    341u /* 64 KiB / 0xC0, rounded down */
#define PEBS_THRESHOLD_RECORDS (PEBS_BUFFER_RECORDS - PEBS_BUFFER_RECORDS / 16u)
/* kernel VA of CPU 0's PEBS buffer; CPU n's is PEBS_BUFFER_STRIDE * n above */
#define PEBS_BUFFER_VA	   0xFFFFC90000000000ull
#define PEBS_BUFFER_STRIDE 0x20000ull
/* sample-after value of the PEBS event (INST_RETIRED.PREC_DIST style): a
 * prime, so samples do not beat with regular code */
#define PEBS_SAMPLE_AFTER 1000003u
#define PEBS_COUNTER_BITS 48u /* general-purpose counter width (CPUID 0AH) */

/**
 * struct pebs_cfg - the hardware.
 * @cpus:      1..1024
 * @cpu_mhz:   core clock (the cycle counters count it while not halted)
 * @ncounters: counters (ids 0..ncounters-1, 0..16)
 * @source:    what counter id k counts: a source id of pmc_sources.h, or
 *             PMC_SOURCE_DEFAULT (0) for pmc_source_default(k)
 * @pebs:      maintain the DS save area and PebsIndex
 * @seed:      the run's seed (per-CPU streams are derived from it)
 */
struct pebs_cfg {
	unsigned cpus;
	uint32_t cpu_mhz;
	unsigned ncounters;
	uint8_t source[PEBS_MAX_COUNTERS];
	bool pebs;
	uint64_t seed;
};

/*
 * PEBS_DS_SAVE_AREA (seed 004: the 64-bit DS save area, 0x60 bytes, all
 * ULONGLONG). A host struct is used here because every member is a uint64_t
 * and the offsets are pinned below. The model keeps values, never bytes:
 * what the area looks like in memory is the test's to spell out.
 */
struct pebs_ds_save_area {
	uint64_t bts_buffer_base;	   /* 0x00 BtsBufferBase */
	uint64_t bts_index;		   /* 0x08 BtsIndex */
	uint64_t bts_absolute_maximum;	   /* 0x10 BtsAbsoluteMaximum */
	uint64_t bts_interrupt_threshold;  /* 0x18 BtsInterruptThreshold */
	uint64_t pebs_buffer_base;	   /* 0x20 PebsBufferBase */
	uint64_t pebs_index;		   /* 0x28 PebsIndex */
	uint64_t pebs_absolute_maximum;	   /* 0x30 PebsAbsoluteMaximum */
	uint64_t pebs_interrupt_threshold; /* 0x38 PebsInterruptThreshold */
	uint64_t pebs_counter_reset[4];	   /* 0x40 PebsCounterReset0..3 */
};

#define PEBS_DS_SAVE_AREA_SIZE 0x60u
static_assert(offsetof(struct pebs_ds_save_area, bts_buffer_base) == 0x00, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, bts_index) == 0x08, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, bts_absolute_maximum) == 0x10, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, bts_interrupt_threshold) == 0x18, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, pebs_buffer_base) == 0x20, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, pebs_index) == 0x28, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, pebs_absolute_maximum) == 0x30, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, pebs_interrupt_threshold) == 0x38, "seed 004");
static_assert(offsetof(struct pebs_ds_save_area, pebs_counter_reset) == 0x40, "seed 004");
static_assert(sizeof(struct pebs_ds_save_area) == PEBS_DS_SAVE_AREA_SIZE,
	      "PROCESSOR_PROFILE_CONTROL_AREA is 0x60 bytes (seed 004)");

/** struct pebs_cpu_stats - one CPU's PEBS activity so far. */
struct pebs_cpu_stats {
	uint64_t samples;    /* PEBS records written (instructions / sample-after) */
	uint64_t interrupts; /* threshold PMIs that drained the buffer */
};

struct pebs;

/**
 * pebs_cfg_check - ranges (cpus 1..1024, cpu_mhz > 0, ncounters <= 16,
 * known sources). Return: 0 or -EINVAL.
 */
int pebs_cfg_check(const struct pebs_cfg *cfg);

/**
 * pebs_create - per-CPU counters at zero (they are programmed when tracing
 * starts) and, with @cfg->pebs, an empty PEBS buffer per CPU.
 * Return: the model, or NULL with errno EINVAL or ENOMEM.
 */
struct pebs *pebs_create(const struct pebs_cfg *cfg);

/**
 * pebs_attach - give the machine of @s its PMU: when its configuration has
 * PMC counters or PEBS, a model of them (cpus, core clock, counters and
 * their sources, PEBS and seed taken from sched_get_cfg()) attached to the core, which fills
 * every context switch's pmc[] and pebs_index and frees the model with
 * itself. A machine without either is left alone.
 * Return: 0, -EINVAL (a counter's source is unknown), -ENOMEM, or -ENOSPC
 * (no hook left).
 */
int pebs_attach(struct sched *s);

/** pebs_destroy - NULL is a no-op. */
void pebs_destroy(struct pebs *p);

/**
 * pebs_advance - @cpu ran code looking like @act from its last advance
 * until @now_ns (simulation time): grow its counters, write PEBS samples.
 * Return: 0, or -EINVAL (bad cpu or activity, or time going backwards).
 */
int pebs_advance(struct pebs *p, unsigned cpu, uint64_t now_ns, enum sim_activity act);

/**
 * pebs_read - @cpu's counters (ids 0..ncounters-1; the rest of @pmc is
 * zeroed) and its PebsIndex (0 without PEBS). Either pointer may be NULL.
 */
void pebs_read(const struct pebs *p, unsigned cpu, uint64_t pmc[PEBS_MAX_COUNTERS],
	       uint64_t *pebs_index);

/** pebs_ds_save_area - a copy of @cpu's DS save area (all zero without PEBS). */
void pebs_ds_save_area(const struct pebs *p, unsigned cpu, struct pebs_ds_save_area *out);

/** pebs_get_cpu_stats - samples and interrupts of @cpu. */
void pebs_get_cpu_stats(const struct pebs *p, unsigned cpu, struct pebs_cpu_stats *st);

/**
 * pebs_counter_source - the source counter @id of @p counts (its configured
 * source, or the id's default); 0 past ncounters.
 */
unsigned pebs_counter_source(const struct pebs *p, unsigned id);

#endif /* PEBS_MODEL_PEBS_H */
