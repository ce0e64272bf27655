// SPDX-License-Identifier: MIT
/*
 * pebs_model/pmc_sources.c - the table of PMC sources and what each counts.
 *
 * Rates are events per 65536 instructions by activity (idle, compute,
 * memory, branchy, media). The rows the model had before sources were named
 * are kept as they were (e.g. LLC misses 1, 0.3, 6, 1.5, 0.8 per 1000
 * instructions); a KPROFILE_SOURCE name and its architectural twin share a
 * row (CacheMisses and LLCMisses, BranchMispredictions and
 * BranchMispredictsRetired, BranchInstructions and BranchInstructionRetired).
 * The rows of the older, Alpha-era sources (pipeline stalls, multi-issue
 * cycles, LL/SC) are plausible figures of our own, per 1000 instructions in
 * the comments; they only need to be consistent with the IPC of each
 * activity (stall cycles per instruction below cycles per instruction).
 */
#include <stddef.h>

#include "pebs_model/pmc_sources.h"

#define R PMC_KIND_RATE

/* index = source id - 1; ids 1..24 are KPROFILE_SOURCE 0..23 (+1). Rates per 1000 in comments. */
/* clang-format off */
static const struct pmc_source sources[PMC_SOURCES] = {
	{"ProfileTime", 0, PMC_KIND_TIME, {0}},
	{"AlignmentFixup", 1, PMC_KIND_ZERO, {0}}, /* x64 fixes misaligned accesses in hardware */
	{"TotalIssues", 2, R, {72090, 75366, 85197, 78643, 68813}}, /* 1100 1150 1300 1200 1050 */
	{"PipelineDry", 3, R, {39322, 2621, 14418, 15073, 2621}},	/* 600 40 220 230 40 */
	{"LoadInstructions", 4, R, {16384, 18350, 21627, 17695, 22938}}, /* 250 280 330 270 350 */
	{"PipelineFrozen", 5, R, {58982, 3932, 57672, 9830, 6554}},	/* 900 60 880 150 100 */
	{"BranchInstructions", 6, R, {11796, 9175, 11141, 14418, 5898}}, /* 180 140 170 220 90 */
	{"TotalNonissues", 7, R, {98304, 6554, 72090, 24904, 9175}},	/* 1500 100 1100 380 140 */
	{"DcacheMisses", 8, R, {524, 197, 2621, 786, 655}},		/* 8 3 40 12 10 */
	{"IcacheMisses", 9, R, {197, 33, 262, 590, 66}},		/* 3 0.5 4 9 1 */
	{"CacheMisses", 10, R, {66, 20, 393, 98, 52}},			/* 1 0.3 6 1.5 0.8 */
	{"BranchMispredictions", 11, R, {131, 52, 197, 655, 98}},	/* 2 0.8 3 10 1.5 */
	{"StoreInstructions", 12, R, {6554, 7864, 10486, 7209, 9175}},	/* 100 120 160 110 140 */
	{"FpInstructions", 13, R, {328, 1966, 131, 328, 26214}},	/* 5 30 2 5 400 */
	/* IntegerInstructions: 600 650 500 600 300 */
	{"IntegerInstructions", 14, R, {39322, 42598, 32768, 39322, 19661}},
	{"Profile2Issue", 15, R, {5243, 6554, 7864, 9830, 7209}},	/* 80 100 120 150 110 */
	{"Profile3Issue", 16, R, {1966, 5898, 2621, 3932, 5243}},	/* 30 90 40 60 80 */
	{"Profile4Issue", 17, R, {655, 4588, 655, 1638, 3932}},		/* 10 70 10 25 60 */
	{"SpecialInstructions", 18, R, {131, 3, 33, 20, 7}},		/* 2 0.05 0.5 0.3 0.1 */
	{"TotalCycles", 19, PMC_KIND_CYCLES, {0}},
	{"IcacheIssues", 20, R, {19661, 14418, 17039, 22938, 13107}},	/* 300 220 260 350 200 */
	{"DcacheAccesses", 21, R, {19661, 22938, 27525, 20972, 29491}}, /* 300 350 420 320 450 */
	{"MemoryBarrierCycles", 22, R, {66, 13, 197, 66, 33}},		/* 1 0.2 3 1 0.5 */
	{"LoadLinkedIssues", 23, R, {33, 13, 131, 66, 20}},		/* 0.5 0.2 2 1 0.3 */
	/* the architectural counters (CPUID leaf 0AH), as wpr -pmcsources names them */
	{"InstructionRetired", -1, PMC_KIND_INSTR, {0}},
	{"UnhaltedCoreCycles", -1, PMC_KIND_CYCLES, {0}},
	{"UnhaltedReferenceCycles", -1, PMC_KIND_REF_CYCLES, {0}},
	{"LLCReference", -1, R, {262, 98, 1311, 393, 262}},		/* 4 1.5 20 6 4 */
	{"LLCMisses", -1, R, {66, 20, 393, 98, 52}},			/* = CacheMisses */
	{"BranchInstructionRetired", -1, R, {11796, 9175, 11141, 14418, 5898}}, /* = BranchInstr. */
	{"BranchMispredictsRetired", -1, R, {131, 52, 197, 655, 98}},	/* = BranchMispredictions */
};

/* machine counter ids 0..15 before they carried a source */
static const uint8_t default_source[SIM_MAX_COUNTERS] = {
	20, /* TotalCycles */		  25, /* InstructionRetired */
	29, /* LLCMisses */		  12, /* BranchMispredictions */
	7,  /* BranchInstructions */	  28, /* LLCReference */
	22, /* DcacheAccesses */	  9,  /* DcacheMisses */
	10, /* IcacheMisses */		  5,  /* LoadInstructions */
	13, /* StoreInstructions */	  27, /* UnhaltedReferenceCycles */
	3,  /* TotalIssues */		  14, /* FpInstructions */
	15, /* IntegerInstructions */	  23, /* MemoryBarrierCycles */
};
/* clang-format on */

const struct pmc_source *pmc_source_get(unsigned id)
{
	return id >= 1 && id <= PMC_SOURCES ? &sources[id - 1] : NULL;
}

const char *pmc_source_name(unsigned id)
{
	const struct pmc_source *s = pmc_source_get(id);

	return s ? s->name : NULL;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int same_ignoring_case(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

unsigned pmc_source_find(const char *name)
{
	for (unsigned i = 0; i < PMC_SOURCES; i++) {
		if (same_ignoring_case(name, sources[i].name)) {
			return i + 1;
		}
	}
	return 0;
}

unsigned pmc_source_default(unsigned counter_id)
{
	return counter_id < SIM_MAX_COUNTERS ? default_source[counter_id] : 0;
}

unsigned pmc_max_per_session(uint32_t build)
{
	return build >= PMC_WIDE_BUILD ? PMC_MAX_PER_SESSION : PMC_MAX_PER_SESSION_OLD;
}
