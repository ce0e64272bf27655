// SPDX-License-Identifier: MIT
/*
 * tests/test_analysis.c - the analysis room (tools/lib/analysis/) on files
 * whose answers are known by construction (tests/ident_fixture.c): a TID
 * reused by another process is two thread rows, each with its own CPU
 * time and switch-ins; a ReadyThread at the very time of its thread's
 * switch-in, met after it, is a wake-up; one that never switches in is
 * not; both levels of detail say the same; the options are checked; and a
 * span's distribution bucket is the floor of log2 of its nanoseconds for
 * clocks of any rate; the time order the full pass reads is the same with
 * times past what its packed keys hold; a process row asked for while the
 * analysis is read holds its threads' sums of then. The agreement with dump, the pictures, Python and
 * the truth on every example is tests/python/test_agreement.py.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "producer/etw_layout.h"
#include "tests/ident_fixture.h"
#include "tests/test_util.h"
#include "tools/lib/analysis/clock.h"
#include "writer/etl_layout.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"

static struct etwforge_file *reuse_file(void)
{
	const char *path = test_path("reuse.etl");
	struct etwforge_file *f;

	cr_assert_eq(ident_fixture_write_reuse(path), 0);
	f = etwforge_file_open(path, 0, NULL);
	cr_assert_not_null(f);
	return f;
}

static struct etwforge_analysis *analyse(struct etwforge_file *f, unsigned detail)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = detail);
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_analysis *a = etwforge_analysis_new(f, &o, err);

	cr_assert_not_null(a, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_analysis_run(a, err), 0, "%s", etwforge_error_message(err));
	etwforge_error_free(err);
	return a;
}

/* The row of @tid whose process is @pid, or NULL. */
static const struct etwforge_thread_row *row_of(const struct etwforge_analysis *a, uint32_t tid,
						uint32_t pid)
{
	const struct etwforge_analysis_totals *t = etwforge_analysis_totals(a);

	for (size_t i = 0; i < t->threads; i++) {
		const struct etwforge_thread_row *r = etwforge_analysis_thread(a, i);

		if (r->tid == tid && r->pid == pid) {
			return r;
		}
	}
	return NULL;
}

TestSuite(analysis, .init = test_dir_make, .fini = test_dir_remove);

Test(analysis, a_reused_tid_is_two_rows_each_with_its_time)
{
	struct etwforge_file *f = reuse_file();

	for (unsigned detail = 0; detail < 2; detail++) {
		struct etwforge_analysis *a = analyse(f, detail);
		const struct etwforge_thread_row *app = row_of(a, 1001, 100),
						 *svc = row_of(a, 1001, 200);
		const struct etwforge_process_row *p;

		cr_assert_not_null(app, "detail %u: app.exe's 1001", detail);
		cr_assert_not_null(svc, "detail %u: svc.exe's 1001", detail);
		/* QPC at 10 MHz: a unit is 100 ns */
		cr_expect_eq(app->cpu_ns, 200 * 100, "detail %u: 100..300", detail);
		cr_expect_eq(svc->cpu_ns, 100 * 100, "detail %u: 600..700", detail);
		cr_expect_eq(app->switch_ins, 1);
		cr_expect_eq(svc->switch_ins, 1);
		cr_expect(app->named && svc->named);
		cr_expect_eq(svc->start_ns, 500 * 100, "its Start");
		cr_expect_eq(app->end_ns, 400 * 100, "its End");
		cr_expect_geq(svc->process, 0);
		p = etwforge_analysis_process(a, (size_t)svc->process);
		cr_expect_str_eq(p->image, "svc.exe");
		cr_expect_eq(etwforge_analysis_thread_at(a, 1001, 350 * 100),
			     etwforge_analysis_thread_at(a, 1001, 100 * 100),
			     "one row before its End");
		cr_expect_neq(etwforge_analysis_thread_at(a, 1001, 650 * 100),
			      etwforge_analysis_thread_at(a, 1001, 100 * 100), "another after");
		etwforge_analysis_free(a);
	}
	etwforge_file_close(f);
}

Test(analysis, a_ready_at_its_switch_in_time_is_a_wake_up_whichever_comes_first)
{
	struct etwforge_file *f = reuse_file();

	for (unsigned detail = 0; detail < 2; detail++) {
		struct etwforge_analysis *a = analyse(f, detail);
		const struct etwforge_analysis_totals *t = etwforge_analysis_totals(a);

		cr_expect_eq(t->readies, 2, "detail %u", detail);
		cr_expect_eq(t->wakeups, 1, "detail %u: 1001's at 600; 2001 never runs", detail);
		cr_expect_eq(t->switches, 6);
		cr_expect_eq(t->switch_ins, 3);
		cr_expect_eq(t->attributed, 3);
		/* CPU 0: idle 0..100 (from the start), 300..600, 700..1000; CPU 1: idle 0..200,
		 * 800..1000, 1002 200..800 */
		cr_expect_eq(t->idle_ns, (100 + 300 + 300 + 200 + 200) * 100, "detail %u", detail);
		cr_expect_eq(t->busy_ns, (200 + 100 + 600) * 100, "detail %u", detail);
		etwforge_analysis_free(a);
	}
	etwforge_file_close(f);
}

Test(analysis, the_wake_up_item_carries_both_ends)
{
	struct etwforge_file *f = reuse_file();
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .items = ETWFORGE_ITEM_WAKE);
	struct etwforge_analysis *a = etwforge_analysis_new(f, &o, NULL);
	const struct etwforge_item *it;
	unsigned n = 0;

	cr_assert_not_null(a);
	while (etwforge_analysis_next(a, &it, NULL) == 1) {
		cr_expect_eq(it->kind, ETWFORGE_ITEM_WAKE);
		cr_expect_eq(it->tid, 1001);
		cr_expect_eq(it->t0, 600 * 100);
		cr_expect_eq(it->t1, 600 * 100);
		cr_expect_eq(it->cpu, 0);
		cr_expect_eq(it->from_cpu, 0);
		n++;
	}
	cr_expect_eq(n, 1);
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

Test(analysis, options_are_checked)
{
	struct etwforge_file *f = reuse_file();
	struct etwforge_error *err = etwforge_error_new();
	static const uint8_t cpu9[2] = {0, 0x02};
	ETWFORGE_OPTS(etwforge_analysis_opts, counts_items, .detail = ETWFORGE_DETAIL_COUNTS,
		      .items = ETWFORGE_ITEM_SLICE);
	ETWFORGE_OPTS(etwforge_analysis_opts, bad_detail, .detail = 7);
	ETWFORGE_OPTS(etwforge_analysis_opts, backwards, .window = true, .from_ns = 5, .to_ns = 4);
	ETWFORGE_OPTS(etwforge_analysis_opts, bad_cpu, .cpus = cpu9, .cpus_bytes = 2);

	cr_expect_null(etwforge_analysis_new(f, &counts_items, err));
	cr_expect(strstr(etwforge_error_message(err), "COUNTS"), "%s", etwforge_error_message(err));
	cr_expect_null(etwforge_analysis_new(f, &bad_detail, err));
	cr_expect_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
	cr_expect_null(etwforge_analysis_new(f, &backwards, err));
	cr_expect(strstr(etwforge_error_message(err), "ends before it starts"));
	cr_expect_null(etwforge_analysis_new(f, &bad_cpu, err));
	cr_expect(strstr(etwforge_error_message(err), "CPU 9 is not in"), "%s",
		  etwforge_error_message(err));
	etwforge_error_free(err);
	etwforge_file_close(f);
}

Test(analysis, a_window_counts_what_is_in_it)
{
	struct etwforge_file *f = reuse_file();
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .window = true, .from_ns = 250 * 100,
		      .to_ns = 650 * 100);
	struct etwforge_analysis *a = etwforge_analysis_new(f, &o, NULL);
	const struct etwforge_analysis_totals *t;

	cr_assert_not_null(a);
	cr_assert_eq(etwforge_analysis_run(a, NULL), 0);
	t = etwforge_analysis_totals(a);
	cr_expect_eq(t->switches, 2, "at 300 and 600");
	cr_expect_eq(t->wakeups, 1, "its switch-in at 600 is in the window");
	cr_expect_eq(row_of(a, 1001, 100)->cpu_ns, 50 * 100, "250..300");
	cr_expect_eq(row_of(a, 1001, 200)->cpu_ns, 50 * 100, "600..650");
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

/* floor(log2(@ns)), 0 for 0 and 1: the bucket by definition. */
static unsigned bucket_of_ns(uint64_t ns)
{
	unsigned b = 0;

	while (ns > 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

Test(analysis, a_span_falls_in_the_bucket_of_its_nanoseconds)
{
	static const uint64_t rates[] = {10000000,   3579545,	 14318180, 1000000000,
					 2400000000, 3600000000, 1};
	uint64_t x = 0x9E3779B97F4A7C15ull;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct an_clock c = {.hz = rates[r]};

		/* an_clock_init() without a file: the rate is all the buckets need */
		c.start_ts = 0;
		c.end_ns = 0;
		an_clock_buckets(&c);
		for (unsigned i = 0; i < 20000; i++) {
			uint64_t ticks;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			ticks = i < 64 ? i : x >> (x % 60);
			cr_assert_eq(an_bucket(&c, ticks), bucket_of_ns(an_span_ns(&c, ticks)),
				     "%" PRIu64 " Hz, %" PRIu64 " units", rates[r], ticks);
		}
	}
}

/*
 * The walks an_clock_buckets() and an_ts_at() searched with before: a unit
 * at a time from the estimate, which for a real clock is exact or next to
 * it (the references; too slow for a damaged clock's coarse spans).
 */
static uint64_t walk_first_at_least(const struct an_clock *c, uint64_t t, uint64_t ns)
{
	while (t > 0 && an_span_ns(c, t - 1) >= ns) {
		t--;
	}
	while (t < UINT64_MAX && an_span_ns(c, t) < ns) {
		t++;
	}
	return t;
}

/* Clock units of @ns, rounded up and saturated: clock.c's estimate, for rates below 1.8e10 Hz. */
static uint64_t estimate(uint64_t hz, uint64_t ns)
{
	uint64_t q = ns / 1000000000u, r_t = (ns % 1000000000u * hz + 999999999u) / 1000000000u;

	return q > (UINT64_MAX - r_t) / hz ? UINT64_MAX : q * hz + r_t;
}

Test(analysis, clock_searches_agree_with_the_unit_walks)
{
	static const uint64_t rates[] = {10000000,   3579545,	 14318180, 1000000000,
					 2400000000, 3600000000, 1,	   17999999999ull};
	uint64_t x = 0x2545F4914F6CDD1Dull;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct an_clock c = {.hz = rates[r], .start_ts = UINT64_C(1) << 40};

		an_clock_buckets(&c);
		for (unsigned k = 0; k < 64; k++) {
			uint64_t want = walk_first_at_least(&c, estimate(c.hz, UINT64_C(1) << k),
							    UINT64_C(1) << k);

			cr_assert_eq(c.bucket_at[k], want,
				     "%" PRIu64 " Hz, bucket %u: %" PRIu64
				     " units, the walk %" PRIu64,
				     c.hz, k, c.bucket_at[k], want);
		}
		for (unsigned i = 0; i < 2000; i++) {
			int64_t ns;
			uint64_t t, want;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			ns = -(int64_t)((x >> 1) >> (x % 63)); /* before the start, every size */
			t = an_ts_at(&c, ns);
			/* the reference: the latest ts at least -ns before the start */
			want = estimate(c.hz, (uint64_t)0 - (uint64_t)ns);
			want = want ? want - 1 : 0;
			while (want && an_ns(&c, c.start_ts - want) < ns) {
				want--;
			}
			want = want > c.start_ts ? 0 : c.start_ts - want;
			cr_assert_eq(t, want,
				     "%" PRIu64 " Hz, %" PRId64 " ns: %" PRIu64 ", want %" PRIu64,
				     c.hz, ns, t, want);
		}
	}
}

/*
 * A damaged file's clock past 1.8e10 Hz (a fuzzed file's cycle clock at
 * 85,909 MHz) has its units estimated from whole units per ns, while a
 * span of less than 1.8e10 of them is still converted exactly: the
 * estimate fell tens of millions of units short, and a unit-by-unit walk
 * from it took 40 s (6 s in this build). The buckets come in microseconds,
 * each enough for its span.
 */
Test(analysis, a_damaged_clock_rate_costs_no_walk, .timeout = 3)
{
	static const uint64_t rates[] = {85909345920ull, 30000000007ull, 123456789012345ull,
					 UINT64_C(1) << 62, UINT64_MAX / 3};

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct an_clock c = {.hz = rates[r], .start_ts = UINT64_C(1) << 62};

		an_clock_buckets(&c);
		for (unsigned k = 0; k < 64; k++) {
			uint64_t t = c.bucket_at[k];

			cr_assert(t == UINT64_MAX || an_span_ns(&c, t) >= UINT64_C(1) << k,
				  "%" PRIu64 " Hz, bucket %u: %" PRIu64 " units fall short", c.hz,
				  k, t);
			cr_assert(k == 0 || t >= c.bucket_at[k - 1], "%" PRIu64 " Hz, bucket %u",
				  c.hz, k);
		}
		(void)an_ts_at(&c, -1000000);
		(void)an_ts_at(&c, INT64_MIN);
	}
}

/* Add @d to every timestamp of the ETL file @buf (@len bytes): records' and batches' own. */
static void shift_times(uint8_t *buf, size_t len, uint64_t d)
{
	struct etl_error e;
	struct etl_reader *r = etl_reader_open_mem(buf, len, "shift", &e);

	cr_assert_not_null(r, "%s", e.msg);
	for (unsigned i = 0; i < etl_reader_buffer_count(r); i++) {
		const struct etl_buffer *b = etl_reader_buffer(r, i);
		struct etl_record rec;
		size_t pos = 0;

		while (etl_buffer_next(r, b, &pos, &rec, &e) > 0) {
			uint8_t *p = buf + (rec.data - buf);
			unsigned at = rec.kind == ETL_KIND_PERFINFO ? ETL_TH_TS
				      : rec.kind == ETL_KIND_SYSTEM || rec.kind == ETL_KIND_COMPACT
					      ? ETL_SH_SYSTEM_TIME
					      : 0;

			if (at) {
				put_le64(p + at, get_le64(p + at) + d);
			}
			if (rec.kind == ETL_KIND_PERFINFO &&
			    rec.hook_id == ETW_HOOK_CSWITCH_BATCH &&
			    rec.payload_len >= ETW_CCB_LEN) {
				uint8_t *q = buf + (rec.payload - buf);

				put_le64(q + ETW_CCB_FIRST_TS, get_le64(q + ETW_CCB_FIRST_TS) + d);
			}
		}
	}
	etl_reader_close(r);
}

/* The switches of @buf in time order, as "cpu offset ts-@d" lines into @out. */
static size_t time_order(const uint8_t *buf, size_t len, uint64_t d, char *out, size_t cap)
{
	struct etwforge_file *f = etwforge_file_open_mem(buf, len, "order", 0, NULL);
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	size_t n = 0, at = 0;

	cr_assert_not_null(f);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_SWITCHES, NULL);
	cr_assert_not_null(it);
	while (etwforge_iter_next(it, &ev, NULL) > 0) {
		at += (size_t)snprintf(out + at, cap - at, "%u %" PRIu64 " %" PRIu64 "\n", ev->cpu,
				       ev->file_offset, ev->ts - d);
		cr_assert_lt(at, cap);
		n++;
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	return n;
}

/*
 * The time order packs a key's time and source into one word while the
 * time leaves room (below 2^51 with the most CPUs); past it (here 2^60 is
 * added to every time) it compares them apart: the same order either way,
 * the compact session's switches and the plain one's.
 */
Test(analysis, the_time_order_is_the_same_past_the_packed_keys, .timeout = 60.)
{
	static const char *const names[] = {"o.etl", "o-2.etl"};
	const uint64_t d = UINT64_C(1) << 60;
	char err[512];

	cr_assert_eq(test_etwforge("gen -q --duration 30ms -o o.etl", err, sizeof(err)), 0, "%s",
		     err);
	for (unsigned k = 0; k < 2; k++) {
		FILE *fp = fopen(test_path(names[k]), "rb");
		size_t cap = 1u << 24, len, n;
		uint8_t *buf = malloc(cap);
		char *a = malloc(cap), *b = malloc(cap);

		cr_assert(fp && buf && a && b);
		len = fread(buf, 1, cap, fp);
		fclose(fp);
		cr_assert_lt(len, cap);
		n = time_order(buf, len, 0, a, cap);
		cr_assert_gt(n, 100, "%s: %zu switches", names[k], n);
		shift_times(buf, len, d);
		cr_assert_eq(time_order(buf, len, d, b, cap), n);
		cr_assert_str_eq(a, b, "%s", names[k]);
		free(buf);
		free(a);
		free(b);
	}
}

/*
 * A process row's sums are its threads' sums: checked over the thread rows
 * (one pass, by process), switch-ins and samples exactly, CPU time within a
 * nanosecond a thread (each thread's is rounded on its own).
 */
static void processes_sum_their_threads(const struct etwforge_analysis *a, uint64_t *scratch)
{
	const struct etwforge_analysis_totals *t = etwforge_analysis_totals(a);
	size_t np = t->processes;
	uint64_t *ins = scratch, *samples = scratch + np, *ns = scratch + 2 * np,
		 *n = scratch + 3 * np;

	memset(scratch, 0, 4 * np * sizeof(*scratch));
	for (size_t i = 0; i < t->threads; i++) {
		const struct etwforge_thread_row *r = etwforge_analysis_thread(a, i);

		if (r->process >= 0) {
			ins[r->process] += r->switch_ins;
			samples[r->process] += r->samples;
			ns[r->process] += r->cpu_ns;
			n[r->process]++;
		}
	}
	for (size_t p = 0; p < np; p++) {
		const struct etwforge_process_row *r = etwforge_analysis_process(a, p);

		cr_assert_eq(r->switch_ins, ins[p], "process %zu (PID %" PRIu32 ")", p, r->pid);
		cr_assert_eq(r->samples, samples[p], "process %zu (PID %" PRIu32 ")", p, r->pid);
		cr_assert(r->cpu_ns >= ns[p] && r->cpu_ns - ns[p] <= n[p],
			  "process %zu: %" PRIu64 " ns, its threads %" PRIu64, p, r->cpu_ns, ns[p]);
	}
}

/*
 * A process row asked for while the analysis is read (the Chrome trace asks
 * for each slice's process as it goes) holds its threads' sums of then, in
 * the full pass (item by item) and in the counts (asked before and after).
 */
Test(analysis, process_rows_asked_while_reading_sum_their_threads)
{
	char err[512];
	struct etwforge_file *f;
	struct etwforge_analysis *a;
	const struct etwforge_item *it;
	uint64_t *scratch;
	size_t items = 0, checks = 0;
	int rc;

	cr_assert_eq(test_etwforge("gen -q " SOURCE_DIR "/../tools/scenarios/desktop.yaml "
				   "--duration 400ms -o d.etl",
				   err, sizeof(err)),
		     0, "%s", err);
	f = etwforge_file_open(test_path("d.etl"), 0, NULL);
	cr_assert_not_null(f);
	for (unsigned detail = 0; detail < 2; detail++) {
		ETWFORGE_OPTS(etwforge_analysis_opts, o,
			      .detail = detail ? ETWFORGE_DETAIL_COUNTS : ETWFORGE_DETAIL_FULL,
			      .items = detail ? 0 : ETWFORGE_ITEM_ALL);

		a = etwforge_analysis_new(f, &o, NULL);
		cr_assert_not_null(a);
		scratch =
			malloc(4 * (etwforge_analysis_totals(a)->processes + 1) * sizeof(*scratch));
		cr_assert_not_null(scratch);
		cr_assert_gt(etwforge_analysis_totals(a)->processes, 5);
		processes_sum_their_threads(a, scratch); /* asked before anything is read */
		while ((rc = etwforge_analysis_next(a, &it, NULL)) > 0) {
			if (++items % 61 == 0) {
				processes_sum_their_threads(a, scratch);
				checks++;
			}
		}
		cr_assert_eq(rc, 0);
		processes_sum_their_threads(a, scratch);
		cr_assert_gt(etwforge_analysis_totals(a)->switch_ins, 1000,
			     "detail %u: %" PRIu64 " switch-ins", detail,
			     etwforge_analysis_totals(a)->switch_ins);
		cr_assert_gt(etwforge_analysis_totals(a)->samples, 100);
		free(scratch);
		etwforge_analysis_free(a);
	}
	cr_assert_gt(checks, 100, "%zu checks in %zu items", checks, items);
	etwforge_file_close(f);
}
