/* SPDX-License-Identifier: MIT */
/*
 * pebs_model/pmc_sources.h - the PMC sources a session can name: the
 * KPROFILE_SOURCE values 0..23 (KERNEL_FACTS 7) and the architectural
 * counters `wpr -pmcsources` lists on Intel, each with what it counts in
 * the model (by enum sim_activity). Source ids are ours (1..PMC_SOURCES,
 * 0 = "the counter id's default"); real source ids are machine-specific.
 */
#ifndef PEBS_MODEL_PMC_SOURCES_H
#define PEBS_MODEL_PMC_SOURCES_H

#include <stdint.h>

#include "scheduler_model/sim.h"

#define PMC_SOURCE_DEFAULT 0u  /* unset: the counter id's default source */
#define PMC_SOURCES	   31u /* named sources, ids 1..31 */

/* counters per session: 4 before Windows 10 1703 (build 15063), then 8,
 * capped at 7 by the 3-bit count of the extended item (KERNEL_FACTS 9) */
#define PMC_WIDE_BUILD		15063u
#define PMC_MAX_PER_SESSION_OLD 4u
#define PMC_MAX_PER_SESSION	7u

/** enum pmc_kind - how a source's value grows over an interval. */
enum pmc_kind {
	PMC_KIND_TIME = 0,   /* elapsed time in 100 ns units, halted or not */
	PMC_KIND_CYCLES,     /* core cycles not halted (the idle loop: 1/64 of them) */
	PMC_KIND_REF_CYCLES, /* reference cycles not halted: 0.9 x core cycles */
	PMC_KIND_INSTR,	     /* instructions retired: cycles x IPC of the activity */
	PMC_KIND_RATE,	     /* events per instruction, by activity, with noise */
	PMC_KIND_ZERO,	     /* never happens on the modelled machine */
};

/**
 * struct pmc_source - one named source.
 * @name:     canonical spelling (KPROFILE_SOURCE / WPR)
 * @kprofile: KPROFILE_SOURCE value, -1 for the architectural names
 * @kind:     how it grows
 * @rate:     PMC_KIND_RATE: events per 65536 instructions, by activity
 *            (idle, compute, memory, branchy, media)
 */
struct pmc_source {
	const char *name;
	int kprofile;
	enum pmc_kind kind;
	uint32_t rate[SIM_ACTIVITIES];
};

/** pmc_source_get - source @id (1..PMC_SOURCES); NULL for 0 or past the last. */
const struct pmc_source *pmc_source_get(unsigned id);

/**
 * pmc_source_find - the id of @name, ignoring case ("llcmisses" is
 * LLCMisses). Return: 1..PMC_SOURCES, or 0 when no source has that name.
 */
unsigned pmc_source_find(const char *name);

/** pmc_source_name - canonical name of @id; NULL for 0 or past the last. */
const char *pmc_source_name(unsigned id);

/**
 * pmc_source_default - what machine counter @counter_id counts when its
 * source is unset (PMC_SOURCE_DEFAULT): TotalCycles, InstructionRetired,
 * LLCMisses, BranchMispredictions, ... MemoryBarrierCycles for ids 0..15,
 * the assignment the model used before counters carried their source.
 * Return: a source id, or 0 past id 15.
 */
unsigned pmc_source_default(unsigned counter_id);

/**
 * pmc_max_per_session - counters one session may have on a Windows
 * @build: 4 before 15063 (Windows 10 1703), 7 from it.
 */
unsigned pmc_max_per_session(uint32_t build);

#endif /* PEBS_MODEL_PMC_SOURCES_H */
