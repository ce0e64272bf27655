// SPDX-License-Identifier: MIT
/*
 * tests/test_pmc_sources.c - the named PMC sources (pebs_model/pmc_sources.h):
 * the table (every name in any case, the canonical spelling, the rows kept
 * from the model's old fixed table), what each kind counts in the PMU
 * model, the draw rule (adding a counter changes no other), scenario
 * validation (unknown names, did-you-mean, the per-target count) and the
 * fix of issue 9 item 4: two names give two series. Names and figures are
 * typed by hand from KERNEL_FACTS 7 and the README table.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebs_model/pebs.h"
#include "pebs_model/pmc_sources.h"
#include "tests/test_util.h"
#include "tests/scenario_fixture.h"
#include "tools/lib/scenario/scenario.h"

#define NNAMES 31

/* KPROFILE_SOURCE 0..23 (KERNEL_FACTS 7), then the Intel architectural counters */
static const struct {
	const char *name;
	int kprofile;
} names[NNAMES] = {
	{"ProfileTime", 0},
	{"AlignmentFixup", 1},
	{"TotalIssues", 2},
	{"PipelineDry", 3},
	{"LoadInstructions", 4},
	{"PipelineFrozen", 5},
	{"BranchInstructions", 6},
	{"TotalNonissues", 7},
	{"DcacheMisses", 8},
	{"IcacheMisses", 9},
	{"CacheMisses", 10},
	{"BranchMispredictions", 11},
	{"StoreInstructions", 12},
	{"FpInstructions", 13},
	{"IntegerInstructions", 14},
	{"Profile2Issue", 15},
	{"Profile3Issue", 16},
	{"Profile4Issue", 17},
	{"SpecialInstructions", 18},
	{"TotalCycles", 19},
	{"IcacheIssues", 20},
	{"DcacheAccesses", 21},
	{"MemoryBarrierCycles", 22},
	{"LoadLinkedIssues", 23},
	{"InstructionRetired", -1},
	{"UnhaltedCoreCycles", -1},
	{"UnhaltedReferenceCycles", -1},
	{"LLCReference", -1},
	{"LLCMisses", -1},
	{"BranchInstructionRetired", -1},
	{"BranchMispredictsRetired", -1},
};

/* names that behave alike by definition (README: a name and its twin share a row) */
static const char *const twins[][2] = {
	{"TotalCycles", "UnhaltedCoreCycles"},
	{"CacheMisses", "LLCMisses"},
	{"BranchMispredictions", "BranchMispredictsRetired"},
	{"BranchInstructions", "BranchInstructionRetired"},
};

static unsigned find(const char *name)
{
	unsigned id = pmc_source_find(name);

	cr_assert(ne(u32, id, 0), "%s is a source", name);
	return id;
}

static bool are_twins(const char *a, const char *b)
{
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++) {
		if ((!strcmp(a, twins[i][0]) && !strcmp(b, twins[i][1])) ||
		    (!strcmp(a, twins[i][1]) && !strcmp(b, twins[i][0]))) {
			return true;
		}
	}
	return false;
}

/* ---- the table ----------------------------------------------------------- */

Test(pmc_sources, every_name_in_any_case_is_found_and_canonical)
{
	bool seen[PMC_SOURCES + 1] = {false};

	cr_assert(eq(u32, PMC_SOURCES, NNAMES));
	for (unsigned i = 0; i < NNAMES; i++) {
		char lo[64], up[64], mixed[64];
		size_t n = strlen(names[i].name);
		unsigned id = find(names[i].name);

		for (size_t j = 0; j <= n; j++) {
			char c = names[i].name[j];

			lo[j] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
			up[j] = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
			mixed[j] = j % 2 ? lo[j] : up[j];
		}
		cr_assert(eq(u32, pmc_source_find(lo), id), "%s", lo);
		cr_assert(eq(u32, pmc_source_find(up), id), "%s", up);
		cr_assert(eq(u32, pmc_source_find(mixed), id), "%s", mixed);
		cr_assert(eq(str, (char *)pmc_source_name(id), (char *)names[i].name));
		cr_assert(eq(int, pmc_source_get(id)->kprofile, names[i].kprofile), "%s",
			  names[i].name);
		cr_assert(not(seen[id]), "%s has an id of its own", names[i].name);
		seen[id] = true;
	}
}

Test(pmc_sources, other_names_are_unknown)
{
	static const char *const bad[] = {
		"Bogus",	"",	   "ProfileMaximum", "TotalCycle", "TotalCycles ",
		" TotalCycles", "LLCMiss", "Total Cycles",   "24",	   "InstructionsRetired",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert(eq(u32, pmc_source_find(bad[i]), 0), "\"%s\"", bad[i]);
	}
	cr_assert_null(pmc_source_get(0));
	cr_assert_null(pmc_source_get(NNAMES + 1));
	cr_assert_null(pmc_source_name(0));
}

/* The rows of the model's old id table (events per 65536 instructions), typed
 * from the table pebs.c had: ids 2..15 but 11 were these rates. */
Test(pmc_sources, default_sources_are_the_old_id_table_with_its_rows)
{
	/* clang-format off */
	static const struct {
		const char *name;
		uint32_t rate[5];
	} old[16] = {
		{"TotalCycles", {0}},
		{"InstructionRetired", {0}},
		{"LLCMisses", {66, 20, 393, 98, 52}},
		{"BranchMispredictions", {131, 52, 197, 655, 98}},
		{"BranchInstructions", {11796, 9175, 11141, 14418, 5898}},
		{"LLCReference", {262, 98, 1311, 393, 262}},
		{"DcacheAccesses", {19661, 22938, 27525, 20972, 29491}},
		{"DcacheMisses", {524, 197, 2621, 786, 655}},
		{"IcacheMisses", {197, 33, 262, 590, 66}},
		{"LoadInstructions", {16384, 18350, 21627, 17695, 22938}},
		{"StoreInstructions", {6554, 7864, 10486, 7209, 9175}},
		{"UnhaltedReferenceCycles", {0}},
		{"TotalIssues", {72090, 75366, 85197, 78643, 68813}},
		{"FpInstructions", {328, 1966, 131, 328, 26214}},
		{"IntegerInstructions", {39322, 42598, 32768, 39322, 19661}},
		{"MemoryBarrierCycles", {66, 13, 197, 66, 33}},
	};
	/* clang-format on */

	for (unsigned k = 0; k < 16; k++) {
		const struct pmc_source *s = pmc_source_get(pmc_source_default(k));

		cr_assert_not_null(s);
		cr_assert(eq(str, (char *)s->name, (char *)old[k].name), "id %u", k);
		cr_assert(eq(int, s->kind == PMC_KIND_RATE, k >= 2 && k != 11), "id %u", k);
		for (unsigned a = 0; a < 5; a++) {
			cr_assert(eq(u32, s->rate[a], old[k].rate[a]), "id %u activity %u", k, a);
		}
	}
	cr_assert(eq(u32, pmc_source_default(16), 0));
}

Test(pmc_sources, twins_share_their_behaviour)
{
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++) {
		const struct pmc_source *a = pmc_source_get(find(twins[i][0]));
		const struct pmc_source *b = pmc_source_get(find(twins[i][1]));

		cr_assert(eq(int, a->kind, b->kind), "%s", a->name);
		cr_assert(eq(int, memcmp(a->rate, b->rate, sizeof(a->rate)), 0), "%s", a->name);
	}
}

Test(pmc_sources, counters_per_session_by_build)
{
	/* KERNEL_FACTS 9: 4, 8 from 1703 (15063), capped at 7 by the 3-bit count */
	cr_assert(eq(u32, pmc_max_per_session(10240), 4));
	cr_assert(eq(u32, pmc_max_per_session(14393), 4));
	cr_assert(eq(u32, pmc_max_per_session(15062), 4));
	cr_assert(eq(u32, pmc_max_per_session(15063), 7));
	cr_assert(eq(u32, pmc_max_per_session(16299), 7));
	cr_assert(eq(u32, pmc_max_per_session(22621), 7));
}

/* ---- the model ------------------------------------------------------------ */

static struct pebs *make(unsigned cpus, uint32_t mhz, const char *const *src, unsigned n, bool pebs,
			 uint64_t seed)
{
	struct pebs_cfg cfg = {.cpus = cpus, .cpu_mhz = mhz, .ncounters = n, .pebs = pebs};
	struct pebs *p;

	cfg.seed = seed;
	for (unsigned k = 0; k < n; k++) {
		cfg.source[k] = (uint8_t)find(src[k]);
	}
	p = pebs_create(&cfg);
	cr_assert_not_null(p);
	return p;
}

/* @steps intervals of @step_ns of @act on CPU 0 from time 0; the counters after */
static void run(struct pebs *p, enum sim_activity act, unsigned steps, uint64_t step_ns,
		uint64_t pmc[PEBS_MAX_COUNTERS])
{
	for (unsigned i = 1; i <= steps; i++) {
		cr_assert(eq(int, pebs_advance(p, 0, i * step_ns, act), 0));
	}
	pebs_read(p, 0, pmc, NULL);
}

Test(pmc_sources, unknown_sources_are_refused_by_the_model)
{
	struct pebs_cfg cfg = {.cpus = 1, .cpu_mhz = 3000, .ncounters = 2};

	cfg.source[1] = NNAMES + 1;
	cr_assert(eq(int, pebs_cfg_check(&cfg), -EINVAL));
	cr_assert_null(pebs_create(&cfg));
	cfg.source[1] = NNAMES;
	cr_assert(eq(int, pebs_cfg_check(&cfg), 0));
}

Test(pmc_sources, cycle_counters_follow_time_and_the_clock)
{
	static const char *const src[] = {"TotalCycles", "UnhaltedCoreCycles", "ProfileTime",
					  "UnhaltedReferenceCycles"};
	uint64_t v[PEBS_MAX_COUNTERS];
	struct pebs *p = make(1, 3000, src, 4, false, 1);

	/* 1 s of compute in 1 ms steps at 3000 MHz: 3e9 cycles, 1e7 x 100 ns */
	run(p, SIM_ACT_COMPUTE, 1000, 1000000, v);
	cr_assert(eq(u64, v[0], 3000000000u));
	cr_assert(eq(u64, v[1], 3000000000u));
	cr_assert(eq(u64, v[2], 10000000u));
	/* reference cycles: 3e6 x 58982 / 65536 = 2699981 per step (0.9x, rounded down) */
	cr_assert(eq(u64, v[3], 2699981000u));
	pebs_destroy(p);

	/* 0.4 s at 2500 MHz: 1e9 cycles, 4e6 x 100 ns */
	p = make(1, 2500, src, 4, false, 1);
	run(p, SIM_ACT_MEMORY, 400, 1000000, v);
	cr_assert(eq(u64, v[0], 1000000000u));
	cr_assert(eq(u64, v[2], 4000000u));
	pebs_destroy(p);

	/* the idle loop: 1/64 of the cycles unhalted (3e6 / 64 = 46875 per ms), time runs on */
	p = make(1, 3000, src, 4, false, 1);
	run(p, SIM_ACT_IDLE, 1000, 1000000, v);
	cr_assert(eq(u64, v[0], 46875000u));
	cr_assert(eq(u64, v[1], 46875000u));
	cr_assert(eq(u64, v[2], 10000000u));
	/* 46875 x 58982 / 65536 = 42187 per step */
	cr_assert(eq(u64, v[3], 42187000u));
	pebs_destroy(p);
}

Test(pmc_sources, instructions_are_cycles_times_the_ipc_of_the_activity)
{
	static const char *const src[] = {"TotalCycles", "InstructionRetired"};
	/* README: IPC 0.4 idle, 2.6 compute, 0.6 memory, 1.2 branchy, 2.1 media (x 1000) */
	static const uint64_t ipc_x1000[SIM_ACTIVITIES] = {400, 2600, 600, 1200, 2100};

	for (unsigned a = 0; a < SIM_ACTIVITIES; a++) {
		uint64_t v[PEBS_MAX_COUNTERS], got;
		struct pebs *p = make(1, 3000, src, 2, false, 7);

		run(p, (enum sim_activity)a, 1000, 1000000, v);
		got = v[1] * 1000u / v[0];
		/* noise 7/8..9/8 averages out over 1000 intervals: within 2% */
		cr_assert(ge(u64, got * 100u, ipc_x1000[a] * 98u), "activity %u: %llu", a,
			  (unsigned long long)got);
		cr_assert(le(u64, got * 100u, ipc_x1000[a] * 102u), "activity %u: %llu", a,
			  (unsigned long long)got);
		pebs_destroy(p);
	}
}

/* events per million instructions of source @name over 10 s of @act */
static uint64_t per_million(const char *name, enum sim_activity act)
{
	const char *src[] = {"InstructionRetired", name};
	uint64_t v[PEBS_MAX_COUNTERS];
	struct pebs *p = make(1, 3000, src, 2, false, 3);

	run(p, act, 1000, 10000000, v);
	pebs_destroy(p);
	return v[1] * 1000000u / v[0];
}

Test(pmc_sources, every_rate_source_counts_its_rate_per_instruction, .timeout = 20.)
{
	for (unsigned id = 1; id <= PMC_SOURCES; id++) {
		const struct pmc_source *s = pmc_source_get(id);

		if (s->kind != PMC_KIND_RATE) {
			continue;
		}
		for (unsigned a = 0; a < SIM_ACTIVITIES; a++) {
			/* rate / 65536 per instruction; noise 3/4..5/4 averages out: within 5% */
			uint64_t want = (uint64_t)s->rate[a] * 1000000u / 65536u;
			uint64_t got = per_million(s->name, (enum sim_activity)a);

			cr_assert(ge(u64, got * 100u, want * 95u), "%s, activity %u: %llu vs %llu",
				  s->name, a, (unsigned long long)got, (unsigned long long)want);
			cr_assert(le(u64, got * 100u, want * 105u + 100u),
				  "%s, activity %u: %llu vs %llu", s->name, a,
				  (unsigned long long)got, (unsigned long long)want);
		}
	}
	cr_assert(eq(u64, per_million("AlignmentFixup", SIM_ACT_MEMORY), 0));
}

Test(pmc_sources, memory_misses_more_and_branchy_mispredicts_more)
{
	static const char *const misses[] = {"CacheMisses", "LLCMisses", "LLCReference",
					     "DcacheMisses"};
	static const char *const mispredicts[] = {"BranchMispredictions",
						  "BranchMispredictsRetired"};

	for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
		uint64_t mem = per_million(misses[i], SIM_ACT_MEMORY);

		/* README: e.g. LLC misses 6 vs 0.3 per 1000 instructions */
		cr_assert(gt(u64, mem, 4u * per_million(misses[i], SIM_ACT_COMPUTE)), "%s",
			  misses[i]);
	}
	for (size_t i = 0; i < sizeof(mispredicts) / sizeof(mispredicts[0]); i++) {
		uint64_t br = per_million(mispredicts[i], SIM_ACT_BRANCHY);

		/* README: 10 per 1000 branchy, at most 3 elsewhere */
		for (unsigned a = 0; a < SIM_ACTIVITIES; a++) {
			if (a != SIM_ACT_BRANCHY) {
				cr_assert(
					gt(u64, br,
					   3u * per_million(mispredicts[i], (enum sim_activity)a)),
					"%s vs activity %u", mispredicts[i], a);
			}
		}
	}
}

/* every source on 4 CPUs (16 + 15 in two machines), a long random run */
Test(pmc_sources, values_never_go_back_on_any_cpu, .timeout = 20.)
{
	for (unsigned half = 0; half < 2; half++) {
		const char *src[PEBS_MAX_COUNTERS];
		unsigned n = 0;
		uint64_t last[4][PEBS_MAX_COUNTERS] = {{0}}, t[4] = {0};
		struct sim_rng r;
		struct pebs *p;

		for (unsigned i = half * 16; i < NNAMES && n < 16; i++) {
			src[n++] = names[i].name;
		}
		p = make(4, 3000, src, n, true, 21 + half);
		sim_rng_init(&r, 99, SIM_RNG_SCHED_GLOBAL, half);
		for (unsigned i = 0; i < 40000; i++) {
			unsigned c = (unsigned)sim_rng_below(&r, 4);
			enum sim_activity act =
				(enum sim_activity)sim_rng_below(&r, SIM_ACTIVITIES);
			uint64_t v[PEBS_MAX_COUNTERS];

			t[c] += sim_rng_below(&r, 4) ? sim_rng_range(&r, 0, 3000000) : 0;
			cr_assert(eq(int, pebs_advance(p, c, t[c], act), 0));
			pebs_read(p, c, v, NULL);
			for (unsigned k = 0; k < n; k++) {
				cr_assert(ge(u64, v[k], last[c][k]), "CPU %u %s went back", c,
					  src[k]);
				last[c][k] = v[k];
			}
		}
		for (unsigned c = 0; c < 4; c++) {
			for (unsigned k = 0; k < n; k++) {
				bool zero = !strcmp(src[k], "AlignmentFixup");

				cr_assert(eq(int, last[c][k] == 0, zero), "CPU %u %s: %llu", c,
					  src[k], (unsigned long long)last[c][k]);
			}
		}
		pebs_destroy(p);
	}
}

#define SERIES 200

/* the values a lone counter of source @name takes over a fixed mixed run */
static void series_of(const char *name, uint64_t out[SERIES])
{
	const char *src[] = {name};
	struct pebs *p = make(1, 3000, src, 1, false, 5);

	for (unsigned i = 0; i < SERIES; i++) {
		uint64_t v[PEBS_MAX_COUNTERS];

		pebs_advance(p, 0, (i + 1) * 1234567u, (enum sim_activity)(i % SIM_ACTIVITIES));
		pebs_read(p, 0, v, NULL);
		out[i] = v[0];
	}
	pebs_destroy(p);
}

/* issue 9 item 4: any name used to give id 0's series (TotalCycles) */
Test(pmc_sources, two_names_give_two_series_unless_twins)
{
	static uint64_t s[NNAMES][SERIES];

	for (unsigned i = 0; i < NNAMES; i++) {
		series_of(names[i].name, s[i]);
	}
	for (unsigned i = 0; i < NNAMES; i++) {
		for (unsigned j = i + 1; j < NNAMES; j++) {
			bool same = !memcmp(s[i], s[j], sizeof(s[i]));

			cr_assert(eq(int, same, are_twins(names[i].name, names[j].name)),
				  "%s and %s", names[i].name, names[j].name);
		}
	}
}

/* the values of ids 0..@n-1 of @src after a fixed run on 2 CPUs, and PebsIndex */
static void values_of(const char *const *src, unsigned n, uint64_t out[2][PEBS_MAX_COUNTERS + 1])
{
	struct pebs *p = make(2, 3000, src, n, true, 77);

	for (uint64_t t = 1; t < 300; t++) {
		unsigned c = (unsigned)(t % 2);

		pebs_advance(p, c, t * 777777u, (enum sim_activity)(t % SIM_ACTIVITIES));
	}
	for (unsigned c = 0; c < 2; c++) {
		pebs_read(p, c, out[c], &out[c][PEBS_MAX_COUNTERS]);
	}
	pebs_destroy(p);
}

Test(pmc_sources, adding_a_counter_changes_no_other)
{
	/* server64's three, then 13 RATE sources: 14 RATE counters in all */
	static const char *const mixed[16] = {
		"TotalCycles",	  "InstructionRetired", "CacheMisses",	       "DcacheMisses",
		"ProfileTime",	  "TotalIssues",	"PipelineDry",	       "LoadInstructions",
		"PipelineFrozen", "BranchInstructions", "TotalNonissues",      "IcacheMisses",
		"AlignmentFixup", "FpInstructions",	"IntegerInstructions", "Profile2Issue",
	};
	/* 16 RATE counters: every lane of all four mixes of the draw (pebs.c) */
	static const char *const rates[16] = {
		"CacheMisses",	       "BranchMispredictions", "BranchInstructions",
		"LLCReference",	       "DcacheAccesses",       "DcacheMisses",
		"IcacheMisses",	       "LoadInstructions",     "StoreInstructions",
		"TotalIssues",	       "FpInstructions",       "IntegerInstructions",
		"MemoryBarrierCycles", "PipelineDry",	       "PipelineFrozen",
		"Profile3Issue",
	};
	const char *const *cfgs[] = {mixed, rates};

	for (unsigned c = 0; c < 2; c++) {
		uint64_t full[2][PEBS_MAX_COUNTERS + 1];

		values_of(cfgs[c], 16, full);
		for (unsigned n = 0; n < 16; n++) {
			uint64_t part[2][PEBS_MAX_COUNTERS + 1];

			values_of(cfgs[c], n, part);
			for (unsigned cpu = 0; cpu < 2; cpu++) {
				for (unsigned k = 0; k < n; k++) {
					cr_assert(eq(u64, part[cpu][k], full[cpu][k]),
						  "config %u: %s with %u counters", c, cfgs[c][k],
						  n);
				}
				cr_assert(eq(u64, part[cpu][PEBS_MAX_COUNTERS],
					     full[cpu][PEBS_MAX_COUNTERS]),
					  "PebsIndex with %u counters", n);
			}
		}
	}
}

Test(pmc_sources, named_counters_count_what_the_unnamed_ids_did)
{
	/* the traces made before counters had a source: server64 names ids 0..2 */
	static const char *const server64[] = {"TotalCycles", "InstructionRetired", "CacheMisses"};
	struct pebs_cfg old = {.cpus = 2, .cpu_mhz = 3000, .ncounters = 3, .pebs = true};
	uint64_t a[2][PEBS_MAX_COUNTERS + 1], b[2][PEBS_MAX_COUNTERS + 1];
	struct pebs *p;

	values_of(server64, 3, a);
	old.seed = 77;
	p = pebs_create(&old);
	for (uint64_t t = 1; t < 300; t++) {
		pebs_advance(p, (unsigned)(t % 2), t * 777777u,
			     (enum sim_activity)(t % SIM_ACTIVITIES));
	}
	for (unsigned c = 0; c < 2; c++) {
		pebs_read(p, c, b[c], &b[c][PEBS_MAX_COUNTERS]);
	}
	pebs_destroy(p);
	cr_assert(eq(int, memcmp(a, b, sizeof(a)), 0));
}

/* ---- scenarios ---------------------------------------------------------------- */

Test(pmc_scenario, every_name_in_any_case_is_stored_canonically)
{
	for (unsigned first = 0; first < NNAMES; first += 7) {
		struct scenario *sc = new_scenario();
		char text[1024];
		size_t len;
		unsigned n = 0;

		len = (size_t)snprintf(text, sizeof(text), "sessions:\n  - pmc: {counters: [");
		for (unsigned i = first; i < NNAMES && i < first + 7; i++, n++) {
			const char *s = names[i].name;

			text[len++] = n ? ',' : ' ';
			for (; *s; s++) { /* upper case, then lower case, by session */
				char c = *s;

				if (first % 2) {
					c = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
				} else {
					c = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
				}
				text[len++] = c;
			}
		}
		snprintf(text + len, sizeof(text) - len, "]}\n");
		cr_assert(eq(int, scenario_load_string(sc, "t.yaml", text, &serr), 0), "%s",
			  serr.msg);
		cr_assert(eq(int, scenario_finish(sc, &serr), 0), "%s", serr.msg);
		cr_assert(eq(u32, sc->trace.ncounters, n));
		cr_assert(eq(u32, sc->sched.ncounters, n));
		for (unsigned k = 0; k < n; k++) {
			const char *want = names[first + k].name;

			cr_assert(eq(str, sc->sess_x[0].counters[k], (char *)want));
			cr_assert(eq(str, sc->trace.counters[k], (char *)want));
			cr_assert(eq(u32, sc->sched.counter_source[k], find(want)), "%s", want);
		}
		free(sc);
	}
}

Test(pmc_scenario, the_count_per_session_follows_the_target)
{
	struct scenario *sc = new_scenario();
	static const char *const want =
		"t.yaml:3:17: sessions.0.pmc.counters: 5 PMC counters, but win10-1507 "
		"(build 10240) allows at most 4 per session (7 from Windows 10 1703, build "
		"15063)";

	/* 5 on win10-1709: fine; the target set afterwards makes them too many */
	cr_assert(eq(int,
		     scenario_load_string(sc, "t.yaml",
					  "sessions:\n  - pmc:\n      counters: [TotalCycles, "
					  "CacheMisses, LLCReference, ProfileTime, "
					  "BranchMispredictions]\n",
					  &serr),
		     0),
		  "%s", serr.msg);
	cr_assert(eq(int, scenario_finish(sc, &serr), 0), "%s", serr.msg);
	cr_assert(eq(int, scenario_set(sc, "machine.target=win10-1507", &serr), 0));
	cr_assert(eq(int, scenario_finish(sc, &serr), -EINVAL));
	cr_assert(eq(str, serr.msg, (char *)want));
	/* 4 are fine on win10-1507 */
	cr_assert(eq(int,
		     scenario_set(sc,
				  "sessions.0.pmc.counters=[TotalCycles, CacheMisses, "
				  "LLCReference, ProfileTime]",
				  &serr),
		     0),
		  "%s", serr.msg);
	cr_assert(eq(int, scenario_finish(sc, &serr), 0), "%s", serr.msg);
	/* 7 on win11-22h2 */
	cr_assert(eq(int,
		     scenario_set(sc,
				  "sessions.0.pmc.counters=[TotalCycles, CacheMisses, "
				  "LLCReference, ProfileTime, LLCMisses, TotalIssues, "
				  "IcacheIssues]",
				  &serr),
		     0),
		  "%s", serr.msg);
	cr_assert(eq(int, scenario_set(sc, "machine.target=win11-22h2", &serr), 0));
	cr_assert(eq(int, scenario_finish(sc, &serr), 0), "%s", serr.msg);
	free(sc);
}

/* ---- the command line ------------------------------------------------------------ */

TestSuite(pmc_cli, .init = test_dir_make, .fini = test_dir_remove, .timeout = 30.);

/* gen with @args; Return: its exit status, stderr in @msg */
static int gen(const char *args, char *msg, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "gen -q %s", args);
	return test_etwforge(cmd, msg, len);
}

Test(pmc_cli, an_unknown_source_exits_2_with_one_line)
{
	static const char yaml[] = "sessions:\n  - name: a\n    pmc:\n"
				   "      counters: [TotalCycles, Bogus]\n";

	char msg[1024];

	cr_assert_not_null(test_write("s.yaml", yaml, strlen(yaml)));
	cr_assert(eq(int, gen("s.yaml -o out.etl", msg, sizeof(msg)), 2));
	cr_assert(eq(str, msg,
		     "s.yaml:4:31: sessions.0.pmc.counters.1: unknown PMC source \"Bogus\" (see "
		     "etwforge-scenario(5), PMC SOURCES)\n"));
	cr_assert(eq(int, test_run("test ! -e '%s'", test_path("out.etl")), 0));

	cr_assert(
		eq(int,
		   gen("--set 'sessions.0.pmc.counters=[TotalCycle]' -o out.etl", msg, sizeof(msg)),
		   2));
	cr_assert(eq(str, msg,
		     "--set:1:26: sessions.0.pmc.counters.0: unknown PMC source \"TotalCycle\" "
		     "(did you mean \"TotalCycles\"?)\n"));
	cr_assert(eq(int,
		     gen("--set 'sessions.0.pmc.counters=[llcmiss]' -o out.etl", msg, sizeof(msg)),
		     2));
	cr_assert(eq(str, msg,
		     "--set:1:26: sessions.0.pmc.counters.0: unknown PMC source \"llcmiss\" (did "
		     "you mean \"LLCMisses\"?)\n"));
	cr_assert(eq(int,
		     gen("--set machine.target=win10-1607 --set 'sessions.0.pmc.counters=[a, b, "
			 "c, d, e]' -o out.etl",
			 msg, sizeof(msg)),
		     2));
	cr_assert(eq(int, test_run("test ! -e '%s'", test_path("out.etl")), 0));
}

/* the file of a one-session 4-CPU run whose CSwitch events carry counter @name */
static uint64_t trace_with(const char *name)
{
	char args[512];
	char msg[1024];
	uint64_t h = 0;

	snprintf(args, sizeof(args),
		 "--cpus 4 --duration 50ms --set 'sessions=[{name: a, flags: [cswitch], "
		 "pmc: {counters: [%s], events: [\"0x0524\"]}}]' -o t.etl",
		 name);
	cr_assert(eq(int, gen(args, msg, sizeof(msg)), 0), "%s: %s", name, msg);
	cr_assert(eq(int, test_file_xxh3(test_path("t.etl"), &h), 0));
	return h;
}

Test(pmc_cli, the_name_decides_what_a_trace_counts)
{
	uint64_t cycles = trace_with("TotalCycles");

	cr_assert(eq(u64, trace_with("totalcycles"), cycles), "the same source");
	cr_assert(eq(u64, trace_with("UnhaltedCoreCycles"), cycles), "its twin");
	cr_assert(ne(u64, trace_with("InstructionRetired"), cycles));
	cr_assert(ne(u64, trace_with("CacheMisses"), cycles));
	cr_assert(ne(u64, trace_with("ProfileTime"), cycles));
}
