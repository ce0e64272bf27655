// SPDX-License-Identifier: MIT
/*
 * tests/test_gen_jobs.c - `gen --jobs N` writes the bytes of `--jobs 1`:
 * every ETL file, the truth and the summary (its wall time aside), for the
 * built-in scenario and every example of tools/scenarios/, and for the
 * cases the workers must get exactly right: a bounded buffer pool that runs
 * out (events and buffers lost, chunks encoded by one worker), spin locks
 * with only the logged releases in the truth, identity records (their
 * strings copied with the record), image records (rundowns, loads and
 * unloads, in two sessions, one merged) and stacks (their addresses copied
 * with the record), PMC and PEBS items, three clocks, x86,
 * standard output through a spool, and more workers than CPUs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"

TestSuite(gen_jobs, .init = test_dir_make, .fini = test_dir_remove, .timeout = 900.);

#ifndef SOURCE_DIR
#define SOURCE_DIR "."
#endif

/* The summary with its wall time taken out (the one figure a thread count may change). */
static void summary_without_wall(const char *name, char *out, size_t cap)
{
	char *p, *q;

	cr_assert_not_null(test_read(name, out, cap), "%s", name);
	p = strstr(out, "\"wall_seconds\":");
	cr_assert_not_null(p, "%s: %s", name, out);
	p += strlen("\"wall_seconds\":");
	q = p + strcspn(p, ",}");
	memmove(p, q, strlen(q) + 1);
}

static bool same_file(const char *a, const char *b)
{
	return test_run("cd '%s' && cmp -s '%s' '%s'", test_dir, a, b) == 0;
}

/* gen @args --jobs @jobs into out.etl (out-2.etl ...), out.jsonl and out.json. */
static void gen(const char *args, unsigned jobs)
{
	cr_assert_eq(test_run("cd '%s' && rm -f out*.etl && '%s' gen -q %s -o out.etl "
			      "--truth out.jsonl --json=out.json --jobs %u",
			      test_dir, test_bin(), args, jobs),
		     0, "gen %s --jobs %u", args, jobs);
}

/*
 * gen @args with --jobs 1, then with 2, 3 and 5 (and 64, more workers than
 * most machines here have CPUs): the same @nfiles ETL files (their names
 * are in their headers: each run writes the same names), the same truth,
 * the same summary. Return: the summary (static), for checks of its own.
 */
static const char *same_with_jobs(const char *args, unsigned nfiles)
{
	static const unsigned jobs[] = {2, 3, 5, 64};
	static char ref[16384];
	char sum[16384];

	gen(args, 1);
	summary_without_wall("out.json", ref, sizeof(ref));
	for (unsigned i = 0; i < nfiles; i++) {
		cr_assert_eq(test_run("cd '%s' && mv out%s%.0u.etl ref%s%.0u.etl", test_dir,
				      i ? "-" : "", i ? i + 1 : 0, i ? "-" : "", i ? i + 1 : 0),
			     0, "%s: file %u", args, i + 1);
	}
	cr_assert_eq(test_run("cd '%s' && mv out.jsonl ref.jsonl", test_dir), 0);
	for (unsigned k = 0; k < sizeof(jobs) / sizeof(jobs[0]); k++) {
		gen(args, jobs[k]);
		for (unsigned i = 0; i < nfiles; i++) {
			char a[32], b[32];

			snprintf(a, sizeof(a), i ? "ref-%u.etl" : "ref.etl", i + 1);
			snprintf(b, sizeof(b), i ? "out-%u.etl" : "out.etl", i + 1);
			cr_assert(same_file(a, b), "%s --jobs %u: %s differs", args, jobs[k], b);
		}
		cr_assert(same_file("ref.jsonl", "out.jsonl"), "%s --jobs %u: the truth differs",
			  args, jobs[k]);
		summary_without_wall("out.json", sum, sizeof(sum));
		cr_assert_str_eq(sum, ref, "%s --jobs %u: the summary differs", args, jobs[k]);
	}
	return ref;
}

/* The figure @key of the summary @json (the first one: the totals'). */
static unsigned long long figure(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	cr_assert_not_null(p, "%s in %s", key, json);
	return strtoull(p + strlen(k), NULL, 10);
}

Test(gen_jobs, the_built_in_scenario)
{
	same_with_jobs("--duration 400ms", 2);
}

Test(gen_jobs, every_example_scenario)
{
	static const struct {
		const char *file;
		unsigned nfiles;
	} ex[] = {
		{"desktop.yaml", 2},	     {"server64.yaml", 2},    {"lock_driver.yaml", 2},
		{"lock_contention.yaml", 1}, {"multi_clock.yaml", 3},
	};

	for (unsigned i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		char args[512];
		const char *sum;

		snprintf(args, sizeof(args), "'%s/../tools/scenarios/%s' --duration 300ms",
			 SOURCE_DIR, ex[i].file);
		sum = same_with_jobs(args, ex[i].nfiles);
		cr_assert_gt(figure(sum, "switches") + figure(sum, "spinlock_events"), 100,
			     "%s: a run with work in it", ex[i].file);
	}
}

Test(gen_jobs, a_buffer_pool_that_runs_out)
{
	static const char *const pools[] = {"66", "70", "90", "130"};
	unsigned long long lost = 0;

	for (unsigned i = 0; i < sizeof(pools) / sizeof(pools[0]); i++) {
		char args[512];
		const char *sum;

		snprintf(args, sizeof(args),
			 "'%s/../tools/scenarios/server64.yaml' --duration 250ms "
			 "--set sessions.0.buffer_size=8192 --set sessions.0.pool_buffers=%s "
			 "--set sessions.0.flush_latency=1ms",
			 SOURCE_DIR, pools[i]);
		sum = same_with_jobs(args, 2);
		lost += figure(sum, "events_lost");
	}
	cr_assert_gt(lost, 0, "some pools ran out: losses are exercised");
}

Test(gen_jobs, spin_locks_identity_records_counters_clocks_and_x86)
{
	char args[1024];

	snprintf(args, sizeof(args),
		 "'%s/../tools/scenarios/lock_driver.yaml' --duration 200ms "
		 "--truth-spinlocks logged",
		 SOURCE_DIR);
	same_with_jobs(args, 2);
	snprintf(args, sizeof(args),
		 "'%s/../tools/scenarios/multi_clock.yaml' --duration 200ms "
		 "--set machine.arch=x86 --set 'sessions.0.flags=[cswitch, compact_cswitch, "
		 "proc_thread, dispatcher, profile, loader]' --set sessions.0.pebs=true "
		 "--set 'sessions.0.pmc.counters=[TotalCycles, BranchMispredictions]' "
		 "--set 'sessions.0.pmc.events=[\"0x0525\"]' --set sessions.2.pebs=true",
		 SOURCE_DIR);
	same_with_jobs(args, 3);
}

Test(gen_jobs, image_records)
{
	char args[1024];

	snprintf(args, sizeof(args),
		 "'%s/../tools/scenarios/desktop.yaml' --duration 300ms "
		 "--set 'sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, "
		 "profile, loader]' --set 'sessions.1.flags=[cswitch, loader]' "
		 "--set sessions.1.merged=true --set 'sessions.1.stacks=[cswitch]'",
		 SOURCE_DIR);
	same_with_jobs(args, 2);
}

Test(gen_jobs, standard_output_through_the_spool)
{
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q --duration 200ms -o - --jobs 1 > one.etl",
			      test_dir, test_bin()),
		     0);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q --duration 200ms -o - --jobs 3 > three.etl",
			      test_dir, test_bin()),
		     0);
	cr_assert(same_file("one.etl", "three.etl"));
}

Test(gen_jobs, refuses_what_is_not_a_number_of_threads)
{
	static const char *const bad[] = {"0", "-1", "x", "2x", "1026", ""};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512];
		char args[64];

		snprintf(args, sizeof(args), "gen -q -o x.etl --jobs '%s'", bad[i]);
		cr_assert_eq(test_etwforge(args, err, sizeof(err)), 2, "--jobs '%s'", bad[i]);
		cr_assert(strstr(err, "--jobs") != NULL, "--jobs '%s': %s", bad[i], err);
		cr_assert(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	}
}
