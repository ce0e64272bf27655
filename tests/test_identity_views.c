// SPDX-License-Identifier: MIT
/*
 * tests/test_identity_views.c - what the Process, Thread, ReadyThread and
 * SampledProfile records give a reader of the file: the counts of `dump
 * --stats` (etwforge_stats_count() and the JSON object) on the two Windows
 * samples that carry them and on the small file of ident_fixture.h. The
 * sample numbers were counted by a separate script over `dump --jsonl`
 * (distinct "pid" of "process" objects, distinct "tid" of "thread"
 * objects, "sample" objects) and are typed here.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/ident_fixture.h"
#include "tests/test_util.h"

#define A_FILE "airbus_ShutdownPerfDiagLogger.etl"
#define P_FILE "perfview_net.4.5.2.x64.etl"

TestSuite(identity_views, .init = test_dir_make, .fini = test_dir_remove);

/*
 * Where a person can keep the fixtures to look at them: the folder
 * $ETWFORGE_FIXTURE_OUT, when set (@name in it, else NULL).
 */
static const char *kept(const char *name)
{
	static char path[4096];
	const char *dir = getenv("ETWFORGE_FIXTURE_OUT");

	if (!dir) {
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* The fixture in the scratch folder (and where kept() says). */
static const char *fixture(void)
{
	const char *path = test_path("ident.etl");

	cr_assert_eq(ident_fixture_write(path), 0);
	if (kept("ident.etl")) {
		cr_assert_eq(ident_fixture_write(kept("ident.etl")), 0);
	}
	return path;
}

struct ident_counts {
	uint64_t processes, threads, ready, samples, attributed, unattributed;
};

static uint64_t one(const struct etwforge_stats *st, enum etwforge_stat what)
{
	uint64_t v = 999999;

	cr_assert_eq(etwforge_stats_count(st, what, 0, &v), 0);
	cr_assert_eq(etwforge_stats_count(st, what, 1, &v), -ERANGE, "one count, index 0");
	return v;
}

/* The counts of @path, through the accessors and through the JSON, which must agree. */
static struct ident_counts counts_of(const char *path)
{
	struct etwforge_file *f = etwforge_file_open(path, 0, NULL);
	struct etwforge_stats *st = etwforge_stats_new();
	struct ident_counts c;
	json_t *o, *sw;
	char *buf;
	size_t n;

	cr_assert_not_null(f, "%s does not open", path);
	cr_assert_not_null(st);
	cr_assert_eq(etwforge_file_stats(f, st, NULL), 0);
	c.processes = one(st, ETWFORGE_STAT_PROCESSES);
	c.threads = one(st, ETWFORGE_STAT_THREADS);
	c.ready = one(st, ETWFORGE_STAT_READY);
	c.samples = one(st, ETWFORGE_STAT_SAMPLES);
	c.attributed = one(st, ETWFORGE_STAT_SWITCHES_ATTRIBUTED);
	c.unattributed = one(st, ETWFORGE_STAT_SWITCHES_UNATTRIBUTED);
	n = etwforge_stats_json(f, st, NULL, 0);
	buf = malloc(n + 1);
	cr_assert_not_null(buf);
	etwforge_stats_json(f, st, buf, n + 1);
	o = json_loads(buf, 0, NULL);
	cr_assert_not_null(o, "stats JSON parses");
	sw = json_object_get(o, "switches");
	cr_expect_eq(json_integer_value(json_object_get(o, "processes")), (json_int_t)c.processes);
	cr_expect_eq(json_integer_value(json_object_get(o, "threads")), (json_int_t)c.threads);
	cr_expect_eq(json_integer_value(json_object_get(o, "ready_thread")), (json_int_t)c.ready);
	cr_expect_eq(json_integer_value(json_object_get(o, "sampled_profile")),
		     (json_int_t)c.samples);
	cr_expect_eq(json_integer_value(json_object_get(sw, "attributed")),
		     (json_int_t)c.attributed);
	cr_expect_eq(json_integer_value(json_object_get(sw, "unattributed")),
		     (json_int_t)c.unattributed);
	json_decref(o);
	free(buf);
	etwforge_stats_free(st);
	etwforge_file_close(f);
	return c;
}

Test(identity_views, stats_18362)
{
	struct ident_counts c = counts_of(test_sample(A_FILE));

	cr_expect_eq(c.processes, 97);
	cr_expect_eq(c.threads, 1532);
	cr_expect_eq(c.ready, 0);
	cr_expect_eq(c.samples, 0);
	cr_expect_eq(c.attributed, 0, "no switch in the file");
	cr_expect_eq(c.unattributed, 0);
}

Test(identity_views, stats_9200)
{
	struct ident_counts c = counts_of(test_sample(P_FILE));

	cr_expect_eq(c.processes, 35);
	cr_expect_eq(c.threads, 672);
	cr_expect_eq(c.ready, 0);
	cr_expect_eq(c.samples, 79528, "the README's 0x0F2E count: every one decodes");
	cr_expect_eq(c.attributed, 0, "no switch in the file");
	cr_expect_eq(c.unattributed, 0);
}

Test(identity_views, stats_fixture)
{
	struct ident_counts c = counts_of(fixture());

	cr_expect_eq(c.processes, 2);
	cr_expect_eq(c.threads, 3, "3333 switches in but has no Thread record");
	cr_expect_eq(c.ready, 2);
	cr_expect_eq(c.samples, 1);
	cr_expect_eq(c.attributed, 5);
	cr_expect_eq(c.unattributed, 1);
}

/* A file of switches only (no Thread record): every switch to a thread is unattributed. */
Test(identity_views, stats_no_identity)
{
	struct ident_counts c = counts_of(test_sample("airbus_lxcore_kernel.etl"));

	cr_expect_eq(c.processes, 0);
	cr_expect_eq(c.threads, 0);
	cr_expect_eq(c.attributed, 0);
}

/*
 * In time order the fixture's ReadyThread events come between the switches
 * of both CPUs, at their times: CPU 0 450 (by 1001, readies 2001) and 800
 * (by 2001, readies 1002), each before the switch that runs the thread.
 */
Test(identity_views, ready_in_time_order)
{
	static const struct {
		enum etwforge_event_kind kind;
		uint64_t t;
		uint32_t tid; /* CSwitch: new thread; ReadyThread: the readied one */
	} want[] = {
		{ETWFORGE_EV_CSWITCH, 100, 1001},  {ETWFORGE_EV_CSWITCH, 150, 1002},
		{ETWFORGE_EV_CSWITCH, 300, 0},	   {ETWFORGE_EV_READY, 450, 2001},
		{ETWFORGE_EV_CSWITCH, 500, 0},	   {ETWFORGE_EV_CSWITCH, 600, 2001},
		{ETWFORGE_EV_READY, 800, 1002},	   {ETWFORGE_EV_CSWITCH, 850, 1002},
		{ETWFORGE_EV_CSWITCH, 900, 3333},  {ETWFORGE_EV_CSWITCH, 950, 0},
		{ETWFORGE_EV_CSWITCH, 1000, 1001},
	};
	struct etwforge_file *f = etwforge_file_open(fixture(), 0, NULL);
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	unsigned i = 0;

	cr_assert_not_null(f);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_SWITCHES | ETWFORGE_EV_READY,
			       NULL);
	cr_assert_not_null(it);
	while (etwforge_iter_next(it, &ev, NULL) == 1) {
		cr_assert_lt(i, sizeof(want) / sizeof(want[0]), "more events than written");
		cr_expect_eq(ev->kind, want[i].kind, "event %u", i);
		cr_expect_eq(ev->ts, 1000000 + want[i].t, "event %u", i);
		if (ev->kind == ETWFORGE_EV_READY) {
			cr_expect_eq(ev->u.ready.tid, want[i].tid);
			cr_expect_eq(ev->rec->tid, want[i].t == 450 ? 1001u : 2001u, "the readier");
			cr_expect_eq(ev->u.ready.adjust_reason, 1);
		} else {
			cr_expect_eq(ev->u.cswitch.new_tid, want[i].tid, "event %u", i);
		}
		i++;
	}
	cr_expect_eq(i, sizeof(want) / sizeof(want[0]));
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* ---- the pictures of the fixture ------------------------------------------------- */

static char *slurp(const char *name)
{
	static char buf[1 << 20];

	return test_read(name, buf, sizeof(buf));
}

static void draw(const char *extra)
{
	char err[4096], args[512];

	fixture();
	snprintf(args, sizeof(args), "dump ident.etl --timeline t.svg --chrome-trace c.json %s",
		 extra);
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
}

/*
 * The timeline names threads "process!thread TID" from the file, escapes a
 * name's markup, shows a name's unpaired surrogate as U+FFFD, and lists the
 * processes with their shares of 2 CPUs x 120 us: 1001 ran 40 + 20 us
 * (25.0 %), 1002 15 + 10 us (10.4 %), 2001 30 us (12.5 %), 3333 (no Thread
 * record) 10 us (4.2 %). Both wake-ups are arrows.
 */
Test(identity_views, timeline_names_and_shares)
{
	const char *svg;

	draw("");
	svg = slurp("t.svg");
	cr_expect(strstr(svg, ">app.exe!main 1001<"), "a label from the file");
	cr_expect(strstr(svg, "svc.exe!w&quot;&lt;&amp;&gt;\xEF\xBF\xBD 2001"), "escaped, U+FFFD");
	cr_expect(strstr(svg, "TID 3333"), "a thread without a Thread record keeps its TID");
	cr_expect(strstr(svg, "app.exe (PID 100) 35.4%: main 1001 25.0%, io 1002 10.4%"));
	cr_expect(strstr(svg, "svc.exe (PID 200) 12.5%:"));
	cr_expect(strstr(svg, "without a Thread record (colour: a hash of the TID): 4.2%"));
	cr_expect(strstr(svg, "arrows: 2 wake-ups"));
	cr_expect(strstr(svg, "wake-up: app.exe!main 1001 readied svc.exe!w"), "arrow's title");
	cr_expect_null(strstr(svg, "<script"), "nothing from the file becomes markup");
}

/*
 * A wake-up is in a window when its switch-in is: the first one's (ReadyThread
 * at 45 us, switch-in at 60 us) is in 0-60 us, not in 0-50 us; the second's
 * (80 us, 85 us) in neither.
 */
Test(identity_views, timeline_window_arrows)
{
	const char *svg;

	draw("--from 0us --to 60us");
	svg = slurp("t.svg");
	cr_expect(strstr(svg, "arrows: 1 wake-ups"), "the one that switched in in the window");
	draw("--from 0us --to 50us");
	svg = slurp("t.svg");
	cr_expect_null(strstr(svg, "wake-up"), "its ReadyThread is in 0-50 us, its switch-in not");
}

static json_t *find_event(json_t *events, const char *ph, const char *name, long pid, long tid)
{
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "ph")), ph) &&
		    (!name || !strcmp(json_string_value(json_object_get(e, "name")), name)) &&
		    json_integer_value(json_object_get(e, "pid")) == pid &&
		    json_integer_value(json_object_get(e, "tid")) == tid) {
			return e;
		}
	}
	return NULL;
}

static const char *meta_name(json_t *events, const char *what, long pid, long tid)
{
	json_t *e = find_event(events, "M", what, pid, tid);

	cr_assert_not_null(e, "%s of %ld/%ld", what, pid, tid);
	return json_string_value(json_object_get(json_object_get(e, "args"), "name"));
}

/* A track per named thread in its process, its slices there, wake-ups as flows. */
Test(identity_views, chrome_tracks_and_flows)
{
	json_t *o, *ev, *e;
	json_error_t je;
	size_t i, on_1001 = 0, starts = 0;

	draw("");
	o = json_loads(slurp("c.json"), 0, &je);
	cr_assert_not_null(o, "%s", je.text);
	ev = json_object_get(o, "traceEvents");
	cr_expect_str_eq(meta_name(ev, "process_name", 100, 100), "app.exe");
	cr_expect_str_eq(meta_name(ev, "process_name", 200, 200), "svc.exe");
	cr_expect_str_eq(meta_name(ev, "thread_name", 100, 1001), "main");
	cr_expect_str_eq(meta_name(ev, "thread_name", 100, 1002), "io", "ThreadSetName's");
	cr_expect_str_eq(meta_name(ev, "thread_name", 200, 2001), "w\"<&>\xEF\xBF\xBD");
	cr_expect_null(find_event(ev, "M", "thread_name", 1, 3333), "no track for 3333");
	json_array_foreach(ev, i, e)
	{
		const char *ph = json_string_value(json_object_get(e, "ph"));

		on_1001 += !strcmp(ph, "X") &&
			   json_integer_value(json_object_get(e, "pid")) == 100 &&
			   json_integer_value(json_object_get(e, "tid")) == 1001;
		starts += !strcmp(ph, "s");
	}
	cr_expect_eq(on_1001, 2, "1001's two slices on its own track");
	cr_expect_eq(starts, 2, "two wake-ups");
	e = find_event(ev, "s", "wakeup", 100, 1001);
	cr_assert_not_null(e, "from the readying thread's track");
	cr_expect_float_eq(json_number_value(json_object_get(e, "ts")), 45.0, 1e-9);
	e = find_event(ev, "f", "wakeup", 200, 2001);
	cr_assert_not_null(e, "to the readied thread's track");
	cr_expect_float_eq(json_number_value(json_object_get(e, "ts")), 60.0, 1e-9,
			   "its switch-in");
	cr_expect_str_eq(json_string_value(json_object_get(e, "bp")), "e");
	json_decref(o);
}

/* --truth names threads when given; without identity records the pictures are as before. */
Test(identity_views, no_identity_as_before)
{
	char err[4096];
	const char *svg;

	cr_assert_eq(test_etwforge("gen --duration 20ms --cpus 2 -o g.etl "
				   "-s 'sessions.0.flags=[cswitch, compact_cswitch]'",
				   err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(test_etwforge("dump g.etl --timeline g.svg", err, sizeof(err)), 0, "%s", err);
	svg = slurp("g.svg");
	cr_expect(strstr(svg, "colour: the thread (a fixed hash of its TID"));
	cr_expect_null(strstr(svg, "processes (the file's"), "no process legend");
	cr_expect_null(strstr(svg, "wake-up"));
}

/*
 * 200 wake-ups in the window are arrows; 201 are too many to read: none is
 * drawn and the legend says so, while the Chrome trace has a flow for each.
 */
Test(identity_views, arrows_limit)
{
	char err[4096];
	const char *svg;
	json_t *o, *e;
	size_t i, flows = 0;

	cr_assert_eq(ident_fixture_write_pingpong(test_path("p200.etl"), 200), 0);
	cr_assert_eq(ident_fixture_write_pingpong(test_path("p201.etl"), 201), 0);
	if (kept("p201.etl")) {
		cr_assert_eq(ident_fixture_write_pingpong(kept("p201.etl"), 201), 0);
	}
	cr_assert_eq(test_etwforge("dump p200.etl --timeline p200.svg", err, sizeof(err)), 0, "%s",
		     err);
	svg = slurp("p200.svg");
	cr_expect(strstr(svg, "arrows: 200 wake-ups"));
	cr_expect(strstr(svg, "marker-end=\"url(#wake-head)\""));
	cr_assert_eq(test_etwforge("dump p201.etl --timeline p201.svg --chrome-trace p201.json",
				   err, sizeof(err)),
		     0, "%s", err);
	svg = slurp("p201.svg");
	cr_expect(strstr(svg, "wake-ups: 201 here, too many to draw"));
	cr_expect_null(strstr(svg, "url(#wake-head)"), "no arrow at all");
	o = json_loads(slurp("p201.json"), 0, NULL);
	cr_assert_not_null(o);
	json_array_foreach(json_object_get(o, "traceEvents"), i, e)
	{
		flows += !strcmp(json_string_value(json_object_get(e, "ph")), "f");
	}
	cr_expect_eq(flows, 201);
	json_decref(o);
	/* a window holding the switch-ins of 9 of them (at 11, 21, ... 91 us): arrows again */
	cr_assert_eq(test_etwforge("dump p201.etl --timeline p201w.svg --from 0us --to 100us", err,
				   sizeof(err)),
		     0, "%s", err);
	cr_expect(strstr(slurp("p201w.svg"), "arrows: 9 wake-ups"));
}

/*
 * A generated desktop trace: its compact batches name most switched-in
 * threads only by their table index, and come after the ReadyThreads logged
 * meanwhile; still every process of the scenario is in the legend, the
 * switches are all attributed, and wake-ups are drawn in a narrow window.
 */
Test(identity_views, generated_desktop)
{
	char err[4096], cmd[1024];
	const char *svg;
	unsigned arrows = 0;
	const char *a;

	snprintf(cmd, sizeof(cmd),
		 "gen -q '%s/../tools/scenarios/desktop.yaml' --duration 60ms -o d.etl",
		 SOURCE_DIR);
	cr_assert_eq(test_etwforge(cmd, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(test_etwforge("dump d.etl --timeline d.svg --from 30ms --to 60ms", err,
				   sizeof(err)),
		     0, "%s", err);
	svg = slurp("d.svg");
	for (const char *const *p =
		     (const char *const[]){"explorer.exe", "msedge.exe", "audiodg.exe", NULL};
	     *p; p++) {
		cr_expect(strstr(svg, *p), "the legend names %s", *p);
	}
	a = strstr(svg, "arrows: ");
	cr_assert_not_null(a, "wake-ups drawn");
	cr_assert_eq(sscanf(a, "arrows: %u wake-ups", &arrows), 1);
	cr_expect_gt(arrows, 0);
	cr_assert_eq(test_etwforge("dump --stats d.etl > st.txt", err, sizeof(err)), 0, "%s", err);
	a = strstr(slurp("st.txt"), "unattributed");
	cr_assert_not_null(a);
	cr_assert_eq(sscanf(a, "unattributed %u", &arrows), 1);
	cr_expect_eq(arrows, 0, "every switch to a thread is attributed");
}
