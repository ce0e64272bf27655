// SPDX-License-Identifier: MIT
/*
 * tests/test_abi.c - the growth rules of the public API (the header's
 * "Growth", README "Versions and the soname"), seen from programs linked
 * to the shared library: an older program whose options structs stop
 * before the last fields gets the defaults for them and is never read past
 * its sz; a newer one whose structs are longer is refused when it sets an
 * option this library does not know, and accepted when the extra bytes are
 * zero; a result struct is written no further than its sz; every accessor
 * by index says "out of range" rather than reading past its array; the
 * error object's accessors take NULL.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

TestSuite(abi, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

/* The bytes of a struct past what an older program knew: never to be read. */
#define POISON 0xA5

/* A short gen run of @sc's defaults into SCRATCH/@name (and its truth); @sum may be NULL. */
static int small_gen(const struct etwforge_run_opts *o, struct etwforge_summary *sum,
		     struct etwforge_error *err)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	int rc;

	cr_assert_not_null(sc);
	cr_assert_eq(etwforge_scenario_set(sc, "duration=20ms", err), 0, "%s",
		     etwforge_error_message(err));
	cr_assert_eq(etwforge_scenario_set(sc, "machine.cpus=2", err), 0, "%s",
		     etwforge_error_message(err));
	rc = etwforge_generate(sc, o, sum, err);
	etwforge_scenario_free(sc);
	return rc;
}

/*
 * An older program's run options: sz ends after @json. The library must
 * take @progress, @notes and the rest as zero: were it to read the poison
 * past sz, it would call 0xA5A5... as the progress callback.
 */
Test(abi, smaller_options_get_the_defaults_and_are_not_read_past_sz)
{
	union {
		struct etwforge_run_opts o;
		unsigned char bytes[sizeof(struct etwforge_run_opts) + 64];
	} u;
	struct etwforge_error *err = etwforge_error_new();
	char out[256];

	memset(&u, POISON, sizeof(u));
	snprintf(out, sizeof(out), "%s", test_path("old.etl"));
	u.o.sz = offsetof(struct etwforge_run_opts, progress);
	u.o.output = out;
	u.o.truth = NULL;
	u.o.json = NULL;
	cr_assert_eq(small_gen(&u.o, NULL, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_NONE);
	cr_assert_str_eq(etwforge_error_message(err), "");
	cr_assert_eq(access(out, F_OK), 0, "%s not written", out);
	etwforge_error_free(err);
}

/* A newer program that sets an option this library does not know is refused, before any work. */
Test(abi, larger_options_with_an_unknown_option_are_refused)
{
	struct {
		struct etwforge_run_opts o;
		uint64_t newer_option;
	} big;
	struct etwforge_error *err = etwforge_error_new();
	char out[256];

	memset(&big, 0, sizeof(big));
	snprintf(out, sizeof(out), "%s", test_path("new.etl"));
	big.o.sz = sizeof(big);
	big.o.output = out;
	big.newer_option = 1;
	cr_assert_eq(small_gen(&big.o, NULL, err), -EINVAL);
	cr_assert_eq(etwforge_error_code(err), -EINVAL);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	cr_assert_not(etwforge_error_located(err));
	cr_assert_not_null(strstr(etwforge_error_message(err), "struct etwforge_run_opts"), "%s",
			   etwforge_error_message(err));
	cr_assert_not_null(
		strstr(etwforge_error_message(err), "an option this library does not know"), "%s",
		etwforge_error_message(err));
	cr_assert_neq(access(out, F_OK), 0, "%s written all the same", out);

	/* the same with the extra bytes zero: a newer program using none of its new options */
	big.newer_option = 0;
	cr_assert_eq(small_gen(&big.o, NULL, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(access(out, F_OK), 0);
	etwforge_error_free(err);
}

Test(abi, an_sz_that_names_no_field_is_refused)
{
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = "/dev/null");
	struct etwforge_error *err = etwforge_error_new();

	o.sz = 0; /* zero-initialised, sz forgotten */
	cr_assert_eq(small_gen(&o, NULL, err), -EINVAL);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	cr_assert_not_null(strstr(etwforge_error_message(err), "too small"), "%s",
			   etwforge_error_message(err));
	o.sz = offsetof(struct etwforge_run_opts, output) + 1;
	cr_assert_eq(small_gen(&o, NULL, err), -EINVAL);
	etwforge_error_free(err);
}

/* NULL options are the defaults; the mutator's options follow the same rules. */
Test(abi, mutator_options_grow_the_same_way)
{
	union {
		struct etwforge_mutator_opts o;
		unsigned char bytes[sizeof(struct etwforge_mutator_opts) + 16];
	} old;
	struct {
		struct etwforge_mutator_opts o;
		uint32_t newer;
	} big;
	ETWFORGE_OPTS(etwforge_mutator_opts, plain, .seed = 77);
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_mutator *a, *b;
	static const uint8_t junk[64] = {1, 2, 3, 4, 5, 6, 7, 8};

	/* an older program without mangle_percent: its poison must not turn mangling on */
	memset(&old, POISON, sizeof(old));
	old.o.sz = offsetof(struct etwforge_mutator_opts, mangle_percent);
	old.o.seed = 77;
	a = etwforge_mutator_new(&old.o, err);
	b = etwforge_mutator_new(&plain, err);
	cr_assert(a && b, "%s", etwforge_error_message(err));
	for (int k = 0; k < 20; k++) {
		const uint8_t *x, *y;
		size_t nx = etwforge_mutator_mutate(a, junk, sizeof(junk), NULL, 0, 0, &x);
		size_t ny = etwforge_mutator_mutate(b, junk, sizeof(junk), NULL, 0, 0, &y);

		cr_assert(nx == ny && memcmp(x, y, nx) == 0, "mutant %d differs", k);
	}
	etwforge_mutator_free(a);
	etwforge_mutator_free(b);

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.newer = 3;
	errno = 0;
	cr_assert_null(etwforge_mutator_new(&big.o, err));
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	cr_assert_not_null(strstr(etwforge_error_message(err), "struct etwforge_mutator_opts"));
	big.newer = 0;
	a = etwforge_mutator_new(&big.o, err);
	cr_assert_not_null(a, "%s", etwforge_error_message(err));
	etwforge_mutator_free(a);
	a = etwforge_mutator_new(NULL, err);
	cr_assert_not_null(a);
	etwforge_mutator_free(a);
	etwforge_error_free(err);
}

/* A result struct of an older program is written no further than its sz. */
Test(abi, results_are_written_only_up_to_sz)
{
	ETWFORGE_OPTS(etwforge_run_opts, o);
	ETWFORGE_OPTS(etwforge_totals, full);
	union {
		struct etwforge_totals t;
		unsigned char bytes[sizeof(struct etwforge_totals) + 32];
	} old;
	struct {
		struct etwforge_totals t;
		uint64_t newer;
	} big;
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_error *err = etwforge_error_new();
	size_t end = offsetof(struct etwforge_totals, wall_seconds);
	char out[256];

	cr_assert_not_null(sum);
	snprintf(out, sizeof(out), "%s", test_path("t.etl"));
	o.output = out;
	cr_assert_eq(small_gen(&o, sum, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_summary_totals(sum, &full, err), 0, "%s",
		     etwforge_error_message(err));
	cr_assert_eq(full.sz, sizeof(full));
	cr_assert_eq(full.cpus, 2);
	cr_assert_eq(full.duration_ns, 20000000);
	cr_assert_gt(full.switches, 0);

	memset(&old, POISON, sizeof(old));
	old.t.sz = end;
	cr_assert_eq(etwforge_summary_totals(sum, &old.t, err), 0, "%s",
		     etwforge_error_message(err));
	cr_assert_eq(old.t.sz, end, "sz was changed");
	cr_assert_eq(old.t.seed, full.seed);
	cr_assert_eq(old.t.cpus, 2);
	for (size_t i = end; i < sizeof(old.bytes); i++) {
		cr_assert_eq(old.bytes[i], POISON, "byte %zu past sz %zu written", i, end);
	}

	memset(&big, 0, sizeof(big));
	big.t.sz = sizeof(big);
	cr_assert_eq(etwforge_summary_totals(sum, &big.t, err), 0, "%s",
		     etwforge_error_message(err));
	cr_assert_eq(big.t.switches, full.switches);
	cr_assert_eq(big.newer, 0);
	big.newer = 9;
	cr_assert_eq(etwforge_summary_totals(sum, &big.t, err), -EINVAL);
	cr_assert_not_null(strstr(etwforge_error_message(err), "struct etwforge_totals"));

	etwforge_summary_free(sum);
	etwforge_error_free(err);
}

Test(abi, summary_accessors_stop_at_their_end)
{
	ETWFORGE_OPTS(etwforge_run_opts, o);
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_error *err = etwforge_error_new();
	const struct etwforge_session_summary *s;
	unsigned n, reasons = 0;
	uint64_t v = 12345;
	char out[256];

	cr_assert_not_null(sum);
	/* an empty summary: nothing to hand out */
	cr_assert_eq(etwforge_summary_sessions(sum), 0);
	cr_assert_null(etwforge_summary_session(sum, 0));
	cr_assert_eq(etwforge_summary_locks(sum), 0);
	cr_assert_null(etwforge_summary_lock(sum, 0));

	snprintf(out, sizeof(out), "%s", test_path("s.etl"));
	o.output = out;
	cr_assert_eq(small_gen(&o, sum, err), 0, "%s", etwforge_error_message(err));
	n = etwforge_summary_sessions(sum);
	cr_assert_gt(n, 0);
	for (unsigned i = 0; i < n; i++) {
		s = etwforge_summary_session(sum, i);
		cr_assert_not_null(s);
		cr_assert_not_null(s->name);
		cr_assert_not_null(s->file);
	}
	cr_assert_str_eq(etwforge_summary_session(sum, 0)->file, out);
	cr_assert_null(etwforge_summary_session(sum, n));
	cr_assert_null(etwforge_summary_session(sum, UINT32_MAX));
	cr_assert_null(etwforge_summary_lock(sum, etwforge_summary_locks(sum)));
	cr_assert_null(etwforge_summary_lock(sum, UINT32_MAX));
	while (etwforge_flush_reason_name(reasons)) {
		cr_assert_eq(etwforge_summary_batches(sum, reasons, &v), 0);
		reasons++;
	}
	cr_assert_eq(reasons, 6);
	v = 12345;
	cr_assert_eq(etwforge_summary_batches(sum, reasons, &v), -ERANGE);
	cr_assert_eq(etwforge_summary_batches(sum, UINT32_MAX, &v), -ERANGE);
	cr_assert_eq(v, 12345, "written on -ERANGE");
	etwforge_summary_free(sum);
	etwforge_summary_free(NULL);
	etwforge_error_free(err);
}

/* The file of small_gen(), opened with the stats, damage and event accessors. */
Test(abi, file_accessors_stop_at_their_end)
{
	ETWFORGE_OPTS(etwforge_run_opts, o);
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_stats *st = etwforge_stats_new();
	struct etwforge_file *f;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	uint64_t v = 777, total = 0;
	unsigned cpus = 0, records = 0, buffers = 0;
	char out[256];
	int rc;

	cr_assert_not_null(st);
	snprintf(out, sizeof(out), "%s", test_path("f.etl"));
	o.output = out;
	cr_assert_eq(small_gen(&o, NULL, err), 0, "%s", etwforge_error_message(err));
	f = etwforge_file_open(out, 0, err);
	cr_assert_not_null(f, "%s", etwforge_error_message(err));
	cr_assert_str_eq(etwforge_file_info(f)->name, out);
	cr_assert_not_null(etwforge_file_info(f)->logger_name);

	cr_assert_eq(etwforge_file_damage_count(f), 0);
	cr_assert_null(etwforge_file_damage_at(f, 0));
	cr_assert_null(etwforge_file_damage_at(f, UINT32_MAX));

	cr_assert_eq(etwforge_file_stats(f, st, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS, 0, &v), 0);
	cr_assert_gt(v, 0);
	v = 777;
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS, 1, &v), -ERANGE);
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_COMPACT, 4, &v), -ERANGE);
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_RECORDS_BY_KIND64, 8, &v), -ERANGE);
	cr_assert_eq(etwforge_stats_count(st, (enum etwforge_stat)99, 0, &v), -EINVAL);
	cr_assert_eq(etwforge_stats_hook(st, 3, true, 0x0524, &v), -ERANGE);
	cr_assert_eq(v, 777, "written on an error");
	/* hook_next walks exactly the hooks with records, in order */
	cr_assert_eq(etwforge_stats_hook_next(st, 3, false, 0), -ERANGE);
	unsigned walked = 0;
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned w = 0; w < 2; w++) {
			uint64_t by_scan = 0, by_next = 0;
			int prev = -1;

			for (unsigned h = 0; h < 65536; h++) {
				cr_assert_eq(etwforge_stats_hook(st, k, w, (uint16_t)h, &v), 0);
				by_scan += v;
			}
			for (int h = etwforge_stats_hook_next(st, k, w, 0); h >= 0;
			     h = etwforge_stats_hook_next(st, k, w, h + 1)) {
				cr_assert_gt(h, prev);
				cr_assert_lt(h, 65536);
				cr_assert_eq(etwforge_stats_hook(st, k, w, (uint16_t)h, &v), 0);
				cr_assert_gt(v, 0, "hook 0x%04X has no records", (unsigned)h);
				by_next += v;
				prev = h;
				walked++;
			}
			cr_assert_eq(by_next, by_scan, "kind %u width %u", k, w);
		}
	}
	cr_assert_gt(walked, 0);
	cr_assert_eq(etwforge_stats_hook_next(st, 2, true, 65536), -ENOENT);
	v = 777;
	for (; etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS_BY_CPU, cpus, &v) == 0; cpus++) {
		total += v;
	}
	cr_assert_eq(cpus, 2048);
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS, 0, &v), 0);
	cr_assert_eq(total, v);

	/* events: a library-owned pointer, its record behind a pointer of its own */
	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_ALL, err);
	cr_assert_not_null(it);
	while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
		cr_assert_not_null(ev);
		if (ev->kind == ETWFORGE_EV_BUFFER) {
			cr_assert_null(ev->rec);
			buffers++;
			continue;
		}
		cr_assert_not_null(ev->rec);
		cr_assert_not_null(ev->rec->kind);
		cr_assert_not_null(ev->rec->provider);
		cr_assert(ev->rec->pmc_count == 0 || ev->rec->pmc != NULL);
		if (ev->rec->decoded == ETWFORGE_PAYLOAD_BATCH) {
			cr_assert_not_null(ev->rec->u.batch.tid_table);
			cr_assert_not_null(ev->rec->u.batch.base_pri);
		}
		records += ev->kind == ETWFORGE_EV_RECORD;
	}
	cr_assert_eq(rc, 0, "%s", etwforge_error_message(err));
	cr_assert_gt(records, 0);
	cr_assert_eq(etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS, 0, &v), 0);
	cr_assert_eq(buffers, v);
	etwforge_iter_free(it);
	etwforge_stats_free(st);
	etwforge_stats_free(NULL);
	etwforge_file_close(f);
	etwforge_error_free(err);
}

Test(abi, error_accessors_take_null_and_an_empty_object)
{
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f;

	cr_assert_str_eq(etwforge_error_message(NULL), "");
	cr_assert_eq(etwforge_error_code(NULL), 0);
	cr_assert_eq(etwforge_error_kind(NULL), ETWFORGE_ERROR_NONE);
	cr_assert_not(etwforge_error_located(NULL));
	etwforge_error_free(NULL);

	cr_assert_not_null(err);
	cr_assert_str_eq(etwforge_error_message(err), "");
	cr_assert_eq(etwforge_error_code(err), 0);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_NONE);
	cr_assert_not(etwforge_error_located(err));

	/* a path that names nothing readable is the caller's input; a file that is no ETL, data */
	f = etwforge_file_open(test_path("missing.etl"), 0, err);
	cr_assert_null(f);
	cr_assert_lt(etwforge_error_code(err), 0);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	cr_assert_neq(etwforge_error_message(err)[0], '\0');
	f = etwforge_file_open(test_write("junk.etl", "not an etl file, not at all", 27), 0, err);
	cr_assert_null(f);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_DATA, "%s",
		     etwforge_error_message(err));
	/* a call that fails without an object says it by its return alone */
	cr_assert_null(etwforge_file_open(test_path("missing.etl"), 0, NULL));
	etwforge_error_free(err);
}

/*
 * etwforge_iter_switches() gives the switches etwforge_iter_next() gives,
 * in the same order, a chunk at a time; a NULL column is not filled; its
 * columns struct follows the growth rules.
 */
Test(abi, iter_switches_fills_the_columns_iter_next_gives)
{
	struct etwforge_error *err = etwforge_error_new();
	char out[256];
	struct etwforge_file *f;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	uint64_t ts[4096], got_ts[7];
	uint32_t old[4096], got_old[7], cpu[7];
	uint8_t form[7];
	size_t n = 0, k = 0, got;
	int rc;

	snprintf(out, sizeof(out), "%s", test_path("cols.etl"));
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = out);
	cr_assert_eq(small_gen(&o, NULL, err), 0, "%s", etwforge_error_message(err));
	f = etwforge_file_open(out, 0, err);
	cr_assert_not_null(f, "%s", etwforge_error_message(err));
	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_ALL, err);
	while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
		if (ev->kind == ETWFORGE_EV_CSWITCH || ev->kind == ETWFORGE_EV_COMPACT) {
			cr_assert_lt(n, 4096);
			ts[n] = ev->ts;
			old[n++] = ev->kind == ETWFORGE_EV_CSWITCH ? ev->u.cswitch.old_tid
								   : ev->u.compact.old_tid;
		}
	}
	cr_assert_eq(rc, 0);
	cr_assert_gt(n, 10);
	etwforge_iter_free(it);

	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_ALL, err);
	ETWFORGE_OPTS(etwforge_switch_columns, c, .ts = got_ts, .old_tid = got_old, .cpu = cpu,
		      .form = form);
	do {
		cr_assert_eq(etwforge_iter_switches(it, &c, 7, &got, err), 0, "%s",
			     etwforge_error_message(err));
		for (size_t i = 0; i < got; i++, k++) {
			cr_assert_eq(got_ts[i], ts[k]);
			cr_assert_eq(got_old[i], old[k]);
			cr_assert_leq(form[i], ETWFORGE_FORM_PLAIN);
		}
	} while (got == 7);
	cr_assert_eq(k, n);
	cr_assert_eq(etwforge_iter_switches(it, &c, 7, &got, err), 0);
	cr_assert_eq(got, 0);
	etwforge_iter_free(it);

	/* growth: an sz that names no column, and a newer caller's unknown column */
	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_SWITCHES, err);
	c.sz = sizeof(size_t);
	cr_assert_eq(etwforge_iter_switches(it, &c, 7, &got, err), -EINVAL);
	cr_assert_eq(got, 0);
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	struct {
		struct etwforge_switch_columns c;
		void *newer_column;
	} big = {.c = {.sz = sizeof(big), .ts = got_ts}, .newer_column = got_ts};
	cr_assert_eq(etwforge_iter_switches(it, &big.c, 7, &got, err), -EINVAL);
	big.newer_column = NULL;
	cr_assert_eq(etwforge_iter_switches(it, &big.c, 7, &got, err), 0);
	cr_assert_eq(got, 7);
	cr_assert_eq(got_ts[0], ts[0]);
	etwforge_iter_free(it);
	etwforge_file_close(f);
	etwforge_error_free(err);
}
