// SPDX-License-Identifier: MIT
/*
 * tests/test_stats_walk.c - etwforge_file_stats() counts a clean file in one
 * walk (the analysis's batch sums hand each record to the read room's
 * count): held here against the two walks it replaces (read_file_stats(),
 * then an analysis at ETWFORGE_DETAIL_COUNTS), run by hand, on generated
 * files (compact and plain sessions, several scenarios, ident_fixture.h's), the same files
 * truncated and with bytes flipped, and the damaged files of the corpus:
 * the same counts, JSON, return code and error message, opened with and
 * without ETWFORGE_OPEN_KEEP_GOING; and the one walk taken where it may be.
 * A stats object counted into again holds only the new file's counts.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/ident_fixture.h"
#include "tests/test_util.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"

TestSuite(stats_walk, .init = test_dir_make, .fini = test_dir_remove, .timeout = 240);

/* The two walks, as etwforge_file_stats() ran them before the one walk. */
static int two_walks(struct etwforge_file *f, struct etwforge_stats *st, struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_COUNTS,
		      .keep_going = read_file_keep_going(f));
	bool quiet;
	int first, rc;

	analysis_free(st->an);
	st->an = NULL;
	first = read_file_stats(f, st, false, err);
	if (first < 0 && (first == -ENOMEM || !read_file_keep_going(f))) {
		return first;
	}
	quiet = first < 0;
	st->an = analysis_new(f, &o, quiet ? NULL : err);
	if (!st->an) {
		rc = -errno;
	} else {
		rc = analysis_run(st->an, quiet ? NULL : err);
		analysis_stats_fill(st->an, st);
	}
	if (rc < 0 && (rc == -ENOMEM || first == 0)) {
		return rc;
	}
	return first;
}

/* The JSON of @st (NULL on failure; free it). */
static char *json_of(const struct etwforge_file *f, const struct etwforge_stats *st)
{
	size_t n = etwforge_stats_json(f, st, NULL, 0);
	char *buf = malloc(n + 1);

	cr_assert_not_null(buf);
	etwforge_stats_json(f, st, buf, n + 1);
	return buf;
}

/*
 * @path read both ways, opened with @flags: the same. Return: whether the
 * one walk was taken.
 */
static bool same_both_ways(const char *path, unsigned flags)
{
	struct etwforge_error *e1 = etwforge_error_new(), *e2 = etwforge_error_new();
	struct etwforge_file *f = etwforge_file_open(path, flags, e1);
	struct etwforge_stats *s1 = etwforge_stats_new(), *s2 = etwforge_stats_new();
	bool one = false;
	int r1, r2;

	cr_assert(e1 && e2 && s1 && s2);
	if (!f) {
		goto out; /* a file that does not open has no counts */
	}
	r1 = etwforge_file_stats(f, s1, e1);
	r2 = two_walks(f, s2, e2);
	cr_assert_eq(r1, r2, "%s (flags %u): %d, two walks %d", path, flags, r1, r2);
	cr_assert_str_eq(etwforge_error_message(e1), etwforge_error_message(e2), "%s", path);
	if (r1 == 0 || (flags & ETWFORGE_OPEN_KEEP_GOING)) {
		char *j1 = json_of(f, s1), *j2 = json_of(f, s2);

		cr_assert_str_eq(j1, j2, "%s (flags %u): the JSON differs", path, flags);
		free(j1);
		free(j2);
	}
	/* every count, the analysis's pointer aside */
	cr_assert_eq(memcmp(s1, s2, offsetof(struct etwforge_stats, an)), 0, "%s", path);
	one = s1->an && analysis_tapped_all(s1->an);
	etwforge_file_close(f);
out:
	etwforge_stats_free(s1);
	etwforge_stats_free(s2);
	etwforge_error_free(e1);
	etwforge_error_free(e2);
	return one;
}

/* Generate @scenario (a file of tools/scenarios, or "" the default) for @ms into @name. */
static const char *gen(const char *scenario, unsigned ms, unsigned seed, const char *name)
{
	const char *path = test_path(name);
	char sc[4096] = "";

	if (scenario[0]) {
		snprintf(sc, sizeof(sc), "'%s/tools/scenarios/%s'", SOURCE_DIR "/..", scenario);
	}
	cr_assert_eq(test_run("cd '%s' && '%s' gen %s --duration %ums --seed %u -o '%s' -q -j 1",
			      test_path(""), test_bin(), sc, ms, seed, path),
		     0, "gen %s", scenario);
	return path;
}

/* A copy of @src as @name: its first @keep bytes, with @flips bytes flipped past 64 KiB. */
static const char *damaged(const char *src, const char *name, double keep, unsigned flips,
			   unsigned seed)
{
	FILE *in = fopen(src, "rb");
	size_t cap = 0, n = 0, got;
	uint8_t *buf = NULL;
	const char *path;

	cr_assert_not_null(in, "%s", src);
	do {
		uint8_t *b = realloc(buf, cap + (1u << 20));

		cr_assert_not_null(b);
		buf = b;
		cap += 1u << 20;
		got = fread(buf + n, 1, cap - n, in);
		n += got;
	} while (got);
	fclose(in);
	n = (size_t)((double)n * keep);
	srand(seed);
	for (unsigned k = 0; k < flips && n > 0x10000; k++) {
		size_t at = 0x10000 + (size_t)rand() % (n - 0x10000);

		buf[at] ^= (uint8_t)(1u << (rand() % 8));
	}
	path = test_write(name, buf, n);
	free(buf);
	return path;
}

static void both_opens(const char *path, bool *one)
{
	bool a = same_both_ways(path, 0);
	bool b = same_both_ways(path, ETWFORGE_OPEN_KEEP_GOING);

	if (one) {
		*one = a && b;
	}
}

Test(stats_walk, generated_files_compact_and_plain)
{
	static const struct {
		const char *scenario;
		unsigned ms, seed;
		bool compact_one_walk; /* its first (compact) session's file reads in one walk */
	} runs[] = {
		{"", 300, 1, true},
		{"desktop.yaml", 300, 3, true},
		{"lock_driver.yaml", 200, 5, false},
		{"multi_clock.yaml", 200, 7, false},
		{"server64.yaml", 100, 64, true},
	};
	char name[64], other[64];

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool one;

		snprintf(name, sizeof(name), "g%zu.etl", i);
		snprintf(other, sizeof(other), "g%zu-2.etl", i);
		gen(runs[i].scenario, runs[i].ms, runs[i].seed, name);
		both_opens(test_path(name), &one);
		if (runs[i].compact_one_walk) {
			cr_assert(one, "%s: the one walk was not taken", runs[i].scenario);
		}
		if (test_run("test -f '%s'", test_path(other)) == 0) {
			both_opens(test_path(other), NULL); /* the plain session */
		}
	}
}

Test(stats_walk, damaged_files)
{
	const char *src = gen("", 300, 11, "d.etl");
	const char *src2 = gen("desktop.yaml", 300, 12, "e.etl");
	char name[64];

	for (unsigned k = 0; k < 12; k++) {
		snprintf(name, sizeof(name), "d%u.etl", k);
		both_opens(damaged(k & 1 ? src2 : src, name, k < 4 ? 0.3 + 0.15 * k : 1.0,
				   k < 4 ? 0 : 1 + k, 100 + k),
			   NULL);
	}
}

Test(stats_walk, corpus_files)
{
	static const char *const files[] = {
		"tests/data/fuzz/fuzz_dump/time-order-cpus-0xffffffff.etl",
		"tests/data/fuzz/fuzz_dump/identity-thread-cut-in-fixed-part.etl",
		"tests/data/fuzz/fuzz_dump/identity-sid-count-past-record.etl",
		"tests/data/fuzz/fuzz_pictures/batch-at-int64-max.etl",
		"tests/data/fuzz/fuzz_pictures/identity-names-and-wakeups.etl",
		"tests/data/fuzz/fuzz_pictures/end-time-far-after-start.etl",
		"tests/data/fuzz/fuzz_mutator/identity-all-x86-win10-1903.etl",
		"tests/data/fuzz/fuzz_reader/identity-image-name-unterminated.etl",
		"tests/data/samples/perfview_smallEtlFile.etl",
		"tests/data/samples/airbus_lxcore_kernel.etl",
	};
	char path[4096];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/../%s", SOURCE_DIR, files[i]);
		both_opens(path, NULL);
	}
	/* plain CSwitch files: ident_fixture.h's */
	cr_assert_eq(ident_fixture_write(test_path("ident.etl")), 0);
	both_opens(test_path("ident.etl"), NULL);
	cr_assert_eq(ident_fixture_write_pingpong(test_path("pingpong.etl"), 50), 0);
	both_opens(test_path("pingpong.etl"), NULL);
}

/*
 * A stats object counted into again: a file with many hooks (desktop's
 * kernel session), then a compact session's file of a few. What it holds
 * then is what a new object holds for the second file (every count, the
 * hooks listed, the JSON): nothing of the first is left, and an object
 * never counted into is taken as zeros without being read.
 */
Test(stats_walk, an_object_counted_into_again_holds_only_the_new_file)
{
	const char *many = gen("desktop.yaml", 100, 21, "many.etl");
	struct etwforge_file *a, *b;
	struct etwforge_stats *again = etwforge_stats_new(), *fresh = etwforge_stats_new();
	unsigned listed = 0;
	char *j1, *j2;

	gen("", 100, 22, "few.etl");
	a = etwforge_file_open(many, 0, NULL);
	b = etwforge_file_open(test_path("few-2.etl"), 0, NULL);
	cr_assert(a && b && again && fresh);
	cr_assert_eq(etwforge_file_stats(a, again, NULL), 0);
	cr_assert_eq(etwforge_file_stats(b, again, NULL), 0);
	cr_assert_eq(etwforge_file_stats(b, fresh, NULL), 0);
	cr_assert_eq(memcmp(again, fresh, offsetof(struct etwforge_stats, an)), 0);
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned w = 0; w < 2; w++) {
			for (int h = etwforge_stats_hook_next(again, k, w, 0); h >= 0;
			     h = etwforge_stats_hook_next(again, k, w, h + 1)) {
				uint64_t v = 0;

				cr_assert_eq(etwforge_stats_hook(again, k, w, (uint16_t)h, &v), 0);
				cr_assert_gt(v, 0, "hook 0x%04X of the first file still listed",
					     (unsigned)h);
				listed++;
			}
		}
	}
	cr_assert_gt(listed, 0);
	j1 = json_of(b, again);
	j2 = json_of(b, fresh);
	cr_assert_str_eq(j1, j2);
	free(j1);
	free(j2);
	etwforge_file_close(a);
	etwforge_file_close(b);
	etwforge_stats_free(again);
	etwforge_stats_free(fresh);
}
