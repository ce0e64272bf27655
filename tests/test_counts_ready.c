// SPDX-License-Identifier: MIT
/*
 * tests/test_counts_ready.c - the counts walk (ETWFORGE_DETAIL_COUNTS)
 * pairs the ReadyThreads as the full pass does: the same readies,
 * wake-ups, switch-ins and CPU times, on generated files with many
 * wake-ups (compact and plain sessions) and the ping-pong fixture. Built
 * twice: as the room is, where the walk keeps the ReadyThreads and pairs
 * them at its end, and with COUNTS_READY_MAX 64, where a file has more
 * than it keeps and a second walk reads them again (test_counts_ready_cap).
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "etwforge/etwforge.h"
#include "tests/ident_fixture.h"
#include "tests/test_util.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/read/read.h"

TestSuite(counts_ready, .init = test_dir_make, .fini = test_dir_remove, .timeout = 240);

/* @path's totals at @detail, into @t. */
static void totals(const char *path, enum etwforge_detail detail,
		   struct etwforge_analysis_totals *t)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = detail);
	struct etwforge_file *f = etwforge_file_open(path, 0, NULL);
	struct etwforge_analysis *a;

	cr_assert_not_null(f, "%s", path);
	a = analysis_new(f, &o, NULL);
	cr_assert_not_null(a, "%s", path);
	cr_assert_eq(analysis_run(a, NULL), 0, "%s", path);
	*t = *analysis_totals(a);
	analysis_free(a);
	etwforge_file_close(f);
}

/* The counts walk and the full pass agree on @path's wake-ups and times. */
static void agree(const char *path, uint64_t min_readies)
{
	struct etwforge_analysis_totals c, p;

	totals(path, ETWFORGE_DETAIL_COUNTS, &c);
	totals(path, ETWFORGE_DETAIL_FULL, &p);
	cr_expect_geq(c.readies, min_readies, "%s: %llu ReadyThreads", path,
		      (unsigned long long)c.readies);
	cr_expect_eq(c.readies, p.readies, "%s: readies %llu, the full pass %llu", path,
		     (unsigned long long)c.readies, (unsigned long long)p.readies);
	cr_expect_eq(c.wakeups, p.wakeups, "%s: wake-ups %llu, the full pass %llu", path,
		     (unsigned long long)c.wakeups, (unsigned long long)p.wakeups);
	cr_expect_gt(c.wakeups, 0, "%s: no wake-up paired", path);
	cr_expect_eq(c.switch_ins, p.switch_ins, "%s", path);
	cr_expect_eq(c.busy_ns, p.busy_ns, "%s", path);
	cr_expect_eq(c.idle_ns, p.idle_ns, "%s", path);
}

Test(counts_ready, generated_files_compact_and_plain)
{
	const char *sc = SOURCE_DIR "/../tools/scenarios/desktop.yaml";

	/* its second session plain, with processes, threads and ReadyThreads */
	cr_assert_eq(test_run("cd '%s' && '%s' gen '%s' --duration 300ms --seed 5 -o w.etl -q -j 1 "
			      "--set 'sessions.1.flags=[cswitch, proc_thread, dispatcher]'",
			      test_path(""), test_bin(), sc),
		     0);
	agree(test_path("w.etl"), 1000);   /* the compact session */
	agree(test_path("w-2.etl"), 1000); /* the plain one */
}

Test(counts_ready, pingpong_fixture)
{
	const char *path = test_path("pp.etl");

	cr_assert_eq(ident_fixture_write_pingpong(path, 500), 0);
	agree(path, 500);
}
