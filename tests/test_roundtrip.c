// SPDX-License-Identifier: MIT
/*
 * tests/test_roundtrip.c - property tests through the real command line:
 * random self-consistent multi-CPU streams (tests/stream_gen.c) are written
 * as truth, encoded by `etwforge replay`, read back and expanded by
 * `etwforge verify`, which must find every recoverable field equal - for
 * every clock x target x architecture. A stream changed in one field must
 * then fail to verify, so the check cannot pass vacuously.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test_util.h"
#include "tests/stream_gen.h"
#include "tools/lib/truth/truth.h"

TestSuite(roundtrip, .init = test_dir_make, .fini = test_dir_remove);

/* A compact session and a plain one with PEBS + PMC, both on @clock. */
static void make_config(struct trace_config *cfg, const char *target, enum etl_arch arch,
			enum sim_clock clock, bool quirks)
{
	trace_config_defaults(cfg);
	cfg->target = etw_target_find(target);
	cr_assert_not_null(cfg->target);
	cfg->max_wait_reason = cfg->target->max_wait_reason;
	cfg->arch = arch;
	cfg->cpus = 8;
	cfg->quirks = quirks;
	cfg->nsessions = 2;
	cfg->have_start_ts = true;
	cfg->start_ts[SIM_CLOCK_QPC] = 5000000;
	cfg->start_ts[SIM_CLOCK_SYSTIME] = 133000000000000000ull;
	cfg->start_ts[SIM_CLOCK_CYCLES] = 9000000000ull;

	struct trace_session_cfg *s = &cfg->sessions[0];
	snprintf(s->name, sizeof(s->name), "compact");
	s->clock = clock;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 8192;
	snprintf(s->file, sizeof(s->file), "%s/compact.etl", test_dir);
	s->pmc_count = 2;
	s->pmc_counters[0] = (uint8_t)trace_config_counter_id(cfg, "TotalCycles");
	s->pmc_counters[1] = (uint8_t)trace_config_counter_id(cfg, "CacheMisses");
	s->pmc_event_count = 1;
	s->pmc_events[0] = 0x0525;

	s = &cfg->sessions[1];
	snprintf(s->name, sizeof(s->name), "plain");
	s->clock = clock;
	s->flags = PRODUCER_F_CSWITCH;
	s->pebs = true;
	s->buffer_size = 65536;
	snprintf(s->file, sizeof(s->file), "%s/plain.etl", test_dir);
	s->pmc_count = 2;
	s->pmc_counters[0] = 0;
	s->pmc_counters[1] = 1;
	s->pmc_event_count = 1;
	s->pmc_events[0] = 0x0524;
	cr_assert_eq(trace_config_check(cfg, NULL), 0);
}

/* Write @n random switches as truth; switch @poison (if < n) gets old_pri + 1. */
static void write_stream(const struct trace_config *cfg, const char *path, uint64_t seed,
			 unsigned n, unsigned poison)
{
	struct stream_gen *g = malloc(sizeof(*g));
	struct sim_cswitch cs;
	struct sim_end end;
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_not_null(g);
	stream_gen_init(g, seed, cfg->cpus, 40, cfg->max_wait_reason);
	cr_assert_eq(truth_write_meta(f, cfg), 0);
	for (unsigned i = 0; i < n; i++) {
		stream_gen_next(g, &cs);
		if (i == poison) {
			cs.old_pri = (int8_t)((cs.old_pri + 1) & 31);
		}
		cr_assert_eq(truth_write_cswitch(f, cfg, &cs), 0);
	}
	stream_gen_end(g, &end);
	cr_assert_eq(truth_write_end(f, cfg, &end), 0);
	cr_assert_eq(fclose(f), 0);
	free(g);
}

static void replay_and_verify(const char *target, enum etl_arch arch, enum sim_clock clock,
			      bool quirks, unsigned n, uint64_t seed)
{
	static struct trace_config cfg;
	char truth[128], bad[128];
	const char *bin = getenv("ETWFORGE_BIN");

	cr_assert_not_null(bin);
	make_config(&cfg, target, arch, clock, quirks);
	snprintf(truth, sizeof(truth), "%s/truth.jsonl", test_dir);
	write_stream(&cfg, truth, seed, n, n);
	/* the stream is this test's own: its second session's file is named in it */
	cr_assert_eq(test_run("'%s' replay -q --stream-paths '%s' -o '%s/compact.etl'", bin, truth,
			      test_dir),
		     0, "replay %s %s %s", target, arch == ETL_ARCH_X86 ? "x86" : "x64",
		     sim_clock_name(clock));
	cr_assert_eq(test_run("'%s' verify -q '%s/compact.etl' --truth '%s'", bin, test_dir, truth),
		     0, "verify compact %s %s %s", target, arch == ETL_ARCH_X86 ? "x86" : "x64",
		     sim_clock_name(clock));
	cr_assert_eq(test_run("'%s' verify -q '%s/plain.etl' --truth '%s'", bin, test_dir, truth),
		     0, "verify plain");

	/* one changed priority must be caught in both files */
	snprintf(bad, sizeof(bad), "%s/bad.jsonl", test_dir);
	write_stream(&cfg, bad, seed, n, n / 2);
	cr_assert_eq(test_run("'%s' verify -q '%s/plain.etl' --truth '%s' 2>/dev/null", bin,
			      test_dir, bad),
		     1);
}

Test(roundtrip, every_clock_target_and_arch_verifies)
{
	static const char *const targets[] = {"win10-1507", "win10-1709", "win11-22h2"};
	static const enum sim_clock clocks[] = {SIM_CLOCK_QPC, SIM_CLOCK_SYSTIME, SIM_CLOCK_CYCLES};

	for (unsigned t = 0; t < 3; t++) {
		for (unsigned c = 0; c < 3; c++) {
			replay_and_verify(targets[t], ETL_ARCH_X64, clocks[c], true, 100000,
					  11 + t * 3 + c);
		}
		replay_and_verify(targets[t], ETL_ARCH_X86, SIM_CLOCK_QPC, true, 20000, 100 + t);
	}
}

Test(roundtrip, quirks_off_verifies_too)
{
	replay_and_verify("win10-1709", ETL_ARCH_X64, SIM_CLOCK_QPC, false, 30000, 7);
}

Test(roundtrip, many_small_seeds)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		replay_and_verify(seed & 1 ? "win10-1507" : "win11-22h2",
				  seed % 3 ? ETL_ARCH_X64 : ETL_ARCH_X86,
				  (enum sim_clock)(1 + seed % 3), seed % 5 != 0, 50 + seed * 37,
				  seed);
	}
}

Test(roundtrip, a_changed_compact_field_is_caught)
{
	static struct trace_config cfg;
	char truth[128], bad[128];
	const char *bin = getenv("ETWFORGE_BIN");
	int caught = 0;

	make_config(&cfg, "win10-1709", ETL_ARCH_X64, SIM_CLOCK_QPC, true);
	snprintf(truth, sizeof(truth), "%s/truth.jsonl", test_dir);
	write_stream(&cfg, truth, 5, 2000, 2000);
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s/compact.etl'", bin, truth, test_dir), 0);
	cr_assert_eq(test_run("'%s' verify -q '%s/compact.etl' --truth '%s'", bin, test_dir, truth),
		     0);
	/* poisoning an idle switch changes nothing recoverable; most others are caught */
	for (unsigned k = 100; k < 2000; k += 97) {
		snprintf(bad, sizeof(bad), "%s/bad.jsonl", test_dir);
		write_stream(&cfg, bad, 5, 2000, k);
		int r = test_run("'%s' verify -q '%s/compact.etl' --truth '%s' 2>/dev/null", bin,
				 test_dir, bad);
		cr_assert(r == 0 || r == 1);
		caught += r == 1;
	}
	cr_assert_geq(caught, 10, "only %d of 20 changed priorities were caught", caught);
}
