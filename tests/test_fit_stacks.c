// SPDX-License-Identifier: MIT
/*
 * tests/test_fit_stacks.c - fit's stack tally (tools/lib/fit/fit_stacks.h),
 * which keeps a thread's last events and the cache's keys instead of every
 * stack record, against the analysis's full join of the same file: the
 * samples with a stack and the histogram of their depths are the same, with
 * StackWalk records and with cached stacks (key references whose frames come
 * later, at eviction or at the end), and the events with a stack within a
 * few in ten thousand; a file with no stack has an empty tally.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"
#include "tools/lib/fit/fit_stacks.h"

TestSuite(fit_stacks, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

/* Two sessions logging the same stacks: k cached (8 entries a CPU: many evictions), u as walks. */
static const char scenario[] =
	"seed: 9\nduration: 400ms\n"
	"machine: {cpus: 4, arch: x64, target: win10-1903}\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader], "
	"stacks: [profile, cswitch, ready_thread], stack_cache: 8}\n"
	"  - {name: u, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader], "
	"stacks: [profile, cswitch, ready_thread], file: u.etl}\n"
	"processes:\n"
	"  - {name: app.exe, pid: 1200}\n"
	"threads:\n"
	"  - {name: render, process: app.exe, count: 5, behaviour: cpu_bound}\n"
	"  - {name: io, process: app.exe, count: 5, behaviour: io_bound}\n"
	"  - {name: kw, process: System, count: 2, behaviour: io_bound}\n";

/* The analysis's join of @name's stacks and the tally's. */
static void both(const char *name, struct etwforge_analysis_totals *joined, uint64_t *hist,
		 struct fit_stacks *tally)
{
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f = etwforge_file_open(test_path(name), 0, err);
	struct etwforge_analysis *a;
	const struct etwforge_analysis_totals *t;

	cr_assert_not_null(f, "%s", etwforge_error_message(err));
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_FULL);
	a = etwforge_analysis_new(f, &o, err);
	cr_assert_not_null(a, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_analysis_run(a, err), 0, "%s", etwforge_error_message(err));
	t = etwforge_analysis_totals(a);
	*joined = *t;
	memcpy(hist, t->depth_hist, ETWFORGE_HIST_BUCKETS * sizeof(*hist));
	etwforge_analysis_free(a);
	cr_assert_eq(fit_stacks_read(f, false, tally, NULL, NULL, err), 0, "%s",
		     etwforge_error_message(err));
	etwforge_file_close(f);
	etwforge_error_free(err);
}

static void same_as_the_join(const char *name)
{
	struct etwforge_analysis_totals t;
	uint64_t hist[ETWFORGE_HIST_BUCKETS];
	struct fit_stacks s;

	both(name, &t, hist, &s);
	cr_assert_gt(t.samples_stacked, 100, "%s: a file with stacked samples", name);
	cr_assert_eq(s.samples, t.samples_stacked, "%s: samples with a stack %llu, joined %llu",
		     name, (unsigned long long)s.samples, (unsigned long long)t.samples_stacked);
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		cr_assert_eq(s.depth_hist[k], hist[k], "%s: depth bucket %u: %llu, joined %llu",
			     name, k, (unsigned long long)s.depth_hist[k],
			     (unsigned long long)hist[k]);
	}
	cr_assert_geq(s.events, t.stack_events, "%s", name);
	cr_assert_leq((s.events - t.stack_events) * 1000, t.stack_events,
		      "%s: events with a stack %llu, joined %llu", name,
		      (unsigned long long)s.events, (unsigned long long)t.stack_events);
}

Test(fit_stacks, the_tally_of_walks_and_of_cached_stacks_is_the_join_s)
{
	struct fit_stacks k, u;
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f;

	test_write("s.yaml", scenario, sizeof(scenario) - 1);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl", test_dir, test_bin()), 0);
	same_as_the_join("d.etl");
	same_as_the_join("u.etl");
	/* the same stacks, cached or not: the same tally */
	f = etwforge_file_open(test_path("d.etl"), 0, err);
	cr_assert_not_null(f);
	cr_assert_eq(fit_stacks_read(f, false, &k, NULL, NULL, err), 0);
	etwforge_file_close(f);
	f = etwforge_file_open(test_path("u.etl"), 0, err);
	cr_assert_not_null(f);
	cr_assert_eq(fit_stacks_read(f, false, &u, NULL, NULL, err), 0);
	etwforge_file_close(f);
	cr_assert_eq(k.samples, u.samples);
	cr_assert_eq(memcmp(k.depth_hist, u.depth_hist, sizeof(k.depth_hist)), 0);
	cr_assert_eq(k.records, u.records, "a part is one record, a walk or a key reference");
	etwforge_error_free(err);
}

Test(fit_stacks, a_file_without_stacks_has_an_empty_tally)
{
	static const char plain[] = "seed: 2\nduration: 100ms\n"
				    "sessions:\n"
				    "  - {name: k, flags: [cswitch, proc_thread, profile]}\n";
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f;
	struct fit_stacks s;

	test_write("p.yaml", plain, sizeof(plain) - 1);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q p.yaml -o p.etl", test_dir, test_bin()), 0);
	f = etwforge_file_open(test_path("p.etl"), 0, err);
	cr_assert_not_null(f, "%s", etwforge_error_message(err));
	memset(&s, 0xA5, sizeof(s));
	cr_assert_eq(fit_stacks_read(f, false, &s, NULL, NULL, err), 0);
	etwforge_file_close(f);
	cr_assert_eq(s.events + s.samples + s.records, 0);
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		cr_assert_eq(s.depth_hist[k], 0);
	}
	etwforge_error_free(err);
}
