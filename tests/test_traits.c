// SPDX-License-Identifier: MIT
/*
 * tests/test_traits.c - the traits of a trace and their distances
 * (etwforge_traits_*, `etwforge compare`): each distance worked out by hand;
 * the traits of the real PerfView sample against numbers a separate script
 * counted over `dump --jsonl` (samples by timestamp, CPU, address, thread
 * and flags; the Process and Thread DCStart records); a trace against
 * itself (0), the symmetry of the score, and an ordering: two seeds of one
 * scenario are closer than two scenarios.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

#ifndef SOURCE_DIR
#define SOURCE_DIR "."
#endif

TestSuite(traits, .init = test_dir_make, .fini = test_dir_remove);

static struct etwforge_trait trait(const char *name, enum etwforge_trait_kind kind, double v,
				   const uint64_t *counts, unsigned n)
{
	return (struct etwforge_trait){.name = name,
				       .what = "",
				       .unit = "",
				       .kind = kind,
				       .scored = true,
				       .present = true,
				       .value = v,
				       .counts = counts,
				       .ncounts = n};
}

static double dist(struct etwforge_trait a, struct etwforge_trait b)
{
	double d = -1;

	cr_assert_eq(etwforge_trait_distance(&a, &b, &d), 0);
	return d;
}

Test(traits, distances_by_hand)
{
	static const uint64_t half[2] = {1, 1}, left[2] = {1, 0}, right[2] = {0, 1};
	static const uint64_t d1[3] = {1, 1, 0}, d2[3] = {0, 1, 1}, d3[3] = {2, 2, 0};
	struct etwforge_trait x, y;
	double d;

	/* amounts: 1 - smaller / larger */
	cr_assert_float_eq(dist(trait("n", ETWFORGE_TRAIT_AMOUNT, 34, NULL, 0),
				trait("n", ETWFORGE_TRAIT_AMOUNT, 11, NULL, 0)),
			   1 - 11.0 / 34, 1e-12);
	cr_assert_eq(dist(trait("n", ETWFORGE_TRAIT_AMOUNT, 0, NULL, 0),
			  trait("n", ETWFORGE_TRAIT_AMOUNT, 0, NULL, 0)),
		     0);
	cr_assert_eq(dist(trait("n", ETWFORGE_TRAIT_AMOUNT, 0, NULL, 0),
			  trait("n", ETWFORGE_TRAIT_AMOUNT, 0.067, NULL, 0)),
		     1);
	/* shares: the difference; correlations: half of it */
	cr_assert_float_eq(dist(trait("f", ETWFORGE_TRAIT_FRACTION, 0.945, NULL, 0),
				trait("f", ETWFORGE_TRAIT_FRACTION, 0.019, NULL, 0)),
			   0.926, 1e-12);
	cr_assert_float_eq(dist(trait("s", ETWFORGE_TRAIT_SIGNED, -1, NULL, 0),
				trait("s", ETWFORGE_TRAIT_SIGNED, 0.5, NULL, 0)),
			   0.75, 1e-12);
	/* Jensen-Shannon (base 2): disjoint mixes 1; (1/2, 1/2) against (1, 0):
	 * m = (3/4, 1/4), KL(p||m) = 1/2 log2(2/3) + 1/2 log2(2) = 0.2075187...,
	 * KL(q||m) = log2(4/3) = 0.4150375..., their mean 0.3112781... */
	cr_assert_float_eq(dist(trait("m", ETWFORGE_TRAIT_MIX, 0, left, 2),
				trait("m", ETWFORGE_TRAIT_MIX, 0, right, 2)),
			   1.0, 1e-12);
	cr_assert_float_eq(dist(trait("m", ETWFORGE_TRAIT_MIX, 0, half, 2),
				trait("m", ETWFORGE_TRAIT_MIX, 0, left, 2)),
			   0.3112781244591328, 1e-12);
	/* Kolmogorov-Smirnov: CDFs (1/2, 1, 1) and (0, 1/2, 1): 1/2; scaled counts: 0 */
	cr_assert_float_eq(dist(trait("d", ETWFORGE_TRAIT_DIST_LOG2, 0, d1, 3),
				trait("d", ETWFORGE_TRAIT_DIST_LOG2, 0, d2, 3)),
			   0.5, 1e-12);
	cr_assert_float_eq(dist(trait("d", ETWFORGE_TRAIT_DIST_LOG2, 0, d1, 3),
				trait("d", ETWFORGE_TRAIT_DIST_LOG2, 0, d3, 3)),
			   0.0, 1e-12);
	/* absent, or not the same trait */
	x = trait("f", ETWFORGE_TRAIT_FRACTION, 0.5, NULL, 0);
	y = x;
	y.present = false;
	cr_assert_eq(etwforge_trait_distance(&x, &y, &d), -ENOENT);
	y = trait("g", ETWFORGE_TRAIT_FRACTION, 0.5, NULL, 0);
	cr_assert_eq(etwforge_trait_distance(&x, &y, &d), -EINVAL);
	y = trait("f", ETWFORGE_TRAIT_AMOUNT, 0.5, NULL, 0);
	cr_assert_eq(etwforge_trait_distance(&x, &y, &d), -EINVAL);
}

/* The traits of @path, read whole. */
static struct etwforge_traits *traits_of(const char *path)
{
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f = etwforge_file_open(path, 0, err);
	struct etwforge_traits *t;

	cr_assert_not_null(f, "%s: %s", path, etwforge_error_message(err));
	t = etwforge_traits_new(f, err);
	cr_assert_not_null(t, "%s: %s", path, etwforge_error_message(err));
	etwforge_file_close(f);
	etwforge_error_free(err);
	return t;
}

static const struct etwforge_trait *named(const struct etwforge_traits *t, const char *name)
{
	for (size_t i = 0; i < etwforge_traits_count(t); i++) {
		if (!strcmp(etwforge_traits_at(t, i)->name, name)) {
			return etwforge_traits_at(t, i);
		}
	}
	cr_assert_fail("no trait %s", name);
	return NULL;
}

static void is(const struct etwforge_traits *t, const char *name, double want, double eps)
{
	const struct etwforge_trait *x = named(t, name);

	cr_assert(x->present, "%s is not present", name);
	cr_assert(fabs(x->value - want) <= eps, "%s: %.9g, counted %.9g", name, x->value, want);
}

Test(traits, the_perfview_sample)
{
	const char *path = test_sample("perfview_net.4.5.2.x64.etl");
	struct etwforge_traits *t = traits_of(path);
	const struct etwforge_trait *prio;

	/* 79,528 samples: 13,165 at a timestamp another CPU's sample has too; 75,116 at
	 * the 10 most sampled addresses; 135 in a DPC or ISR; 73,313 of the idle thread,
	 * 72,805 of them at one address, all with priority 16 */
	is(t, "sample_times_shared", 13165.0 / 79528, 1e-9);
	is(t, "top10_ip_share", 75116.0 / 79528, 1e-9);
	is(t, "dpc_isr_sample_share", 135.0 / 79528, 1e-9);
	is(t, "idle_top_ip_share", 72805.0 / 73313, 1e-9);
	/* 74,850 of them in an image the file's Image records map (the analysis's count,
	 * pinned: dump --stats prints it); 6,318 with a stack
	 * (the sample's documentation: 658 kernel-IP, 5,556 user-IP, 104 idle in a DPC or
	 * an interrupt) */
	is(t, "samples_in_module", 74850.0 / 79528, 1e-9);
	cr_assert(named(t, "stack_depth")->present);
	{
		uint64_t stacked = 0;

		for (unsigned k = 0; k < named(t, "stack_depth")->ncounts; k++) {
			stacked += named(t, "stack_depth")->counts[k];
		}
		cr_assert_eq(stacked, 658 + 5556 + 104);
		/* one frame: the idle DPC sample P b38+0xDA70's among them */
		cr_assert_geq(named(t, "stack_depth")->counts[0], 1);
	}
	prio = named(t, "idle_sample_priority");
	cr_assert(prio->present);
	cr_assert_eq(prio->ncounts, 32);
	cr_assert_eq(prio->counts[16], 73313);
	cr_assert_str_eq(prio->labels[16], "16");
	/* the spacing of each CPU's samples, CV per CPU 0.05343 0.03913 0.15356 0.10003
	 * 0.03652 0.05999 0.07417 0.07610: the median 0.0670816 */
	is(t, "sample_spacing_cv", 0.0670816, 1e-6);
	/* the start rundown: 32 Process and 670 Thread DCStarts over 83,821 ticks of
	 * 100 ns on CPUs 2 and 3, 662 naming the controller in their header, 64
	 * samples among them */
	is(t, "rundown_time", 8.3821, 1e-4);
	is(t, "rundown_cpus", 2, 0);
	is(t, "rundown_header_context", 662.0 / 702, 1e-9);
	is(t, "rundown_interleaved", 64.0 / (64 + 702), 1e-9);
	is(t, "cpus", 8, 0);
	is(t, "threads_at_start", 662, 0);
	is(t, "round_times", 0, 0);
	/* no switch in the file: nothing about how threads leave and come back */
	cr_assert(!named(t, "wake_latency")->present);
	cr_assert(!named(t, "ready_wait_reasons")->present);
	cr_assert(!named(t, "cpu_busy_share")->present);
	cr_assert_eq(etwforge_traits_score(t, t, NULL), 0);
	etwforge_traits_free(t);
}

/* A trace of tools/scenarios/@scenario with @seed, 300 ms, in the scratch folder. */
static const char *gen(const char *scenario, unsigned seed)
{
	static char name[8][64];
	static unsigned k;
	char args[512], err[512];
	const char *out = name[k++ % 8];

	snprintf((char *)out, 64, "%s-%u.etl", scenario, seed);
	snprintf(args, sizeof(args),
		 "gen '%s/../tools/scenarios/%s.yaml' -o %s --seed %u --duration 300ms -q",
		 SOURCE_DIR, scenario, out, seed);
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
	return test_path(out);
}

/* A trace of tools/scenarios/desktop.yaml on a @realism machine, 300 ms. */
static const char *gen_desktop(const char *realism)
{
	static char name[2][64];
	char args[512], err[512];
	char *out = name[realism[0] == 'p'];

	snprintf(out, 64, "desktop-%s.etl", realism);
	snprintf(args, sizeof(args),
		 "gen '%s/../tools/scenarios/desktop.yaml' -o %s --duration 1s -q "
		 "--set machine.realism=%s",
		 SOURCE_DIR, out, realism);
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
	return test_path(out);
}

/* The share of category @k of a MIX trait. */
static double share(const struct etwforge_trait *x, unsigned k)
{
	uint64_t all = 0;

	for (unsigned i = 0; i < x->ncounts; i++) {
		all += x->counts[i];
	}
	return k < x->ncounts && all ? (double)x->counts[k] / (double)all : 0;
}

Test(traits, a_lived_in_machine_looks_like_the_real_sample_where_a_plain_one_does_not)
{
	struct etwforge_traits *l = traits_of(gen_desktop("lived-in"));
	struct etwforge_traits *p = traits_of(gen_desktop("plain"));
	/* the plain CSwitch session's file: a compact record names no Ready reason */
	struct etwforge_traits *l2 = traits_of(test_path("desktop-lived-in-2.etl"));
	struct etwforge_traits *p2 = traits_of(test_path("desktop-plain-2.etl"));
	const struct etwforge_trait *lr = named(l2, "ready_wait_reasons");
	const struct etwforge_trait *pr = named(p2, "ready_wait_reasons");
	struct etwforge_traits *real;

	/* the profile timer: the real sample's CPUs space their samples with a CV of
	 * 0.04 to 0.15 and share a timestamp in 17 % of them; plain CPUs tick in lockstep */
	is(p, "sample_spacing_cv", 0, 0);
	is(p, "sample_times_shared", 1, 0);
	cr_assert_gt(named(l, "sample_spacing_cv")->value, 0.02);
	cr_assert_lt(named(l, "sample_spacing_cv")->value, 0.2);
	cr_assert_gt(named(l, "sample_times_shared")->value, 0.05);
	cr_assert_lt(named(l, "sample_times_shared")->value, 0.4);
	/* the idle thread's samples report priority 16, as the real ones */
	cr_assert_eq(share(named(l, "idle_sample_priority"), 16), 1);
	cr_assert_eq(share(named(p, "idle_sample_priority"), 0), 1);
	/* a thread left Ready says why: WrQuantumEnd (30) or WrPreempted (32) */
	cr_assert(lr->present && pr->present);
	cr_assert_gt(share(lr, 32), 0);
	cr_assert_eq(share(lr, 30) + share(lr, 32), 1);
	cr_assert_eq(share(pr, 0), 1);
	/* a group's threads differ from each other */
	cr_assert_gt(named(l, "thread_cpu_cv")->value, 2 * named(p, "thread_cpu_cv")->value,
		     "lived-in %g, plain %g", named(l, "thread_cpu_cv")->value,
		     named(p, "thread_cpu_cv")->value);
	/* wake-up latencies spread instead of piling on two values */
	cr_assert_lt(named(l, "wake_latency_top2_share")->value,
		     named(p, "wake_latency_top2_share")->value);
	/* thread IDs among the process IDs, as the real sample's (97 % below its
	 * largest PID); plain ones all above 4096 */
	cr_assert_gt(named(l, "tids_below_max_pid")->value, 0.5);
	is(p, "tids_below_max_pid", 0, 0);
	is(l, "tids_multiple_of_4", 1, 0);
	/* clocks that are not round numbers */
	is(l, "round_times", 0, 0);
	is(p, "round_times", 1, 0);
	real = traits_of(test_sample("perfview_net.4.5.2.x64.etl"));
	cr_assert_lt(etwforge_traits_score(l, real, NULL), etwforge_traits_score(p, real, NULL),
		     "the lived-in machine is nearer the real sample");
	etwforge_traits_free(real);
	etwforge_traits_free(l);
	etwforge_traits_free(p);
	etwforge_traits_free(l2);
	etwforge_traits_free(p2);
}

/*
 * Half the CPUs held by a pinned CPU-bound group, the other threads free:
 * the idle share of each free CPU, and its least and most.
 */
static void free_cpus_idle(const char *realism, double *lo, double *hi, double *slope)
{
	char yaml[512], args[640], err[512], name[64];
	struct etwforge_error *e = etwforge_error_new();
	struct etwforge_file *f;
	struct etwforge_analysis *a;
	double sx = 0, sy = 0, sxy = 0, sxx = 0;

	snprintf(yaml, sizeof(yaml),
		 "seed: 3\nduration: 1s\nmachine: {cpus: 16, realism: %s}\n"
		 "threads:\n"
		 "  - {name: batch, count: 16, behaviour: cpu_bound, priority: 7, "
		 "affinity: [\"8-15\"]}\n"
		 "  - {name: workers, count: 64, behaviour: io_bound, priority: 9}\n",
		 realism);
	snprintf(name, sizeof(name), "half-%s", realism);
	test_write("half.yaml", yaml, strlen(yaml));
	snprintf(args, sizeof(args), "gen %s -o %s.etl -q", test_path("half.yaml"), name);
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
	snprintf(name + strlen(name), sizeof(name) - strlen(name), ".etl");
	f = etwforge_file_open(test_path(name), 0, e);
	cr_assert_not_null(f, "%s", etwforge_error_message(e));
	{
		ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_COUNTS);

		a = etwforge_analysis_new(f, &o, e);
	}
	cr_assert_not_null(a, "%s", etwforge_error_message(e));
	cr_assert_eq(etwforge_analysis_run(a, e), 0, "%s", etwforge_error_message(e));
	*lo = 1;
	*hi = 0;
	for (unsigned c = 0; c < 8; c++) {
		const struct etwforge_cpu_row *r = etwforge_analysis_cpu(a, c);
		double idle = (double)r->idle_ns / (double)(r->idle_ns + r->busy_ns + 1);

		*lo = idle < *lo ? idle : *lo;
		*hi = idle > *hi ? idle : *hi;
		sx += c;
		sy += idle;
		sxy += c * idle;
		sxx += (double)c * c;
	}
	*slope = (8 * sxy - sx * sy) / (8 * sxx - sx * sx); /* idle share per CPU number */
	etwforge_analysis_free(a);
	etwforge_file_close(f);
	etwforge_error_free(e);
}

Test(traits, a_lived_in_machine_spreads_the_threads_whose_own_cpus_are_busy)
{
	double plo, phi, pslope, llo, lhi, lslope;

	/* plain: a thread whose ideal CPU (8..15) is busy takes the first idle one
	 * after it, wrapping to CPU 0: the free CPUs are busier the lower they are */
	free_cpus_idle("plain", &plo, &phi, &pslope);
	free_cpus_idle("lived-in", &llo, &lhi, &lslope);
	cr_log_info("idle of CPUs 0-7: plain %.3f..%.3f (slope %.4f), lived-in %.3f..%.3f "
		    "(slope %.4f)",
		    plo, phi, pslope, llo, lhi, lslope);
	cr_assert_gt(pslope, 0.01, "plain: idle rises with the CPU number (%.4f)", pslope);
	cr_assert_lt(fabs(lslope), pslope / 2, "lived-in: flatter (%.4f against %.4f)", lslope,
		     pslope);
	cr_assert_lt(lhi - llo, phi - plo);
	/* eight CPU-bound threads more than their CPUs: quantum ends, said as such
	 * in the plain CSwitch session's file */
	{
		struct etwforge_traits *t = traits_of(test_path("half-lived-in-2.etl"));
		const struct etwforge_trait *r = named(t, "ready_wait_reasons");

		cr_assert(r->present);
		cr_assert_gt(share(r, 30), 0, "WrQuantumEnd");
		cr_assert_gt(share(r, 32), 0, "WrPreempted");
		cr_assert_eq(share(r, 30) + share(r, 32), 1);
		etwforge_traits_free(t);
	}
}

Test(traits, a_trace_is_closest_to_itself_then_to_its_scenario)
{
	struct etwforge_traits *d1 = traits_of(gen("desktop", 1));
	struct etwforge_traits *d2 = traits_of(gen("desktop", 2));
	struct etwforge_traits *s1 = traits_of(gen("server64", 1));
	unsigned n = 0, m = 0;
	double same, seeds, kinds;

	same = etwforge_traits_score(d1, d1, &n);
	cr_assert_eq(same, 0);
	cr_assert_gt(n, 10, "only %u traits compared", n);
	seeds = etwforge_traits_score(d1, d2, &n);
	cr_assert_eq(seeds, etwforge_traits_score(d2, d1, &m), "the score is symmetric");
	cr_assert_eq(n, m);
	kinds = etwforge_traits_score(d1, s1, NULL);
	cr_assert_gt(seeds, 0, "two seeds differ somewhere");
	cr_assert_lt(seeds, kinds, "desktop/desktop %.3f, desktop/server64 %.3f", seeds, kinds);
	for (size_t i = 0; i < etwforge_traits_count(d1); i++) {
		double d;

		if (etwforge_trait_distance(etwforge_traits_at(d1, i), etwforge_traits_at(s1, i),
					    &d) == 0) {
			cr_assert(d >= 0 && d <= 1, "%s: %g", etwforge_traits_at(d1, i)->name, d);
		}
	}
	etwforge_traits_free(d1);
	etwforge_traits_free(d2);
	etwforge_traits_free(s1);
}

Test(traits, json_has_every_trait_and_the_score)
{
	struct etwforge_traits *a = traits_of(gen("desktop", 3));
	const char *path = test_sample("perfview_net.4.5.2.x64.etl");
	struct etwforge_traits *b = traits_of(path);
	size_t n = etwforge_traits_json(a, b, "a.etl", "b.etl", NULL, 0);
	char *buf = malloc(n + 1);
	json_error_t je;
	json_t *o, *list, *x;

	cr_assert_not_null(buf);
	cr_assert_eq(etwforge_traits_json(a, b, "a.etl", "b.etl", buf, n + 1), n);
	o = json_loads(buf, 0, &je);
	cr_assert_not_null(o, "%s: %s", je.text, buf);
	cr_assert_str_eq(json_string_value(json_object_get(o, "b")), "b.etl");
	cr_assert_float_eq(json_real_value(json_object_get(o, "score")),
			   etwforge_traits_score(a, b, NULL), 1e-6);
	list = json_object_get(o, "traits");
	cr_assert_eq(json_array_size(list), etwforge_traits_count(a));
	x = json_array_get(list, 0);
	cr_assert_str_eq(json_string_value(json_object_get(x, "name")),
			 etwforge_traits_at(a, 0)->name);
	/* a trait only one trace shows has no distance */
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *t = json_array_get(list, i);
		bool both = json_is_true(json_object_get(json_object_get(t, "a"), "present")) &&
			    json_is_true(json_object_get(json_object_get(t, "b"), "present"));

		cr_assert_eq(json_is_null(json_object_get(t, "distance")), !both, "%s",
			     json_string_value(json_object_get(t, "name")));
	}
	json_decref(o);
	free(buf);
	etwforge_traits_free(a);
	etwforge_traits_free(b);
}

/* The wake_boost trait of a 1 s machine of GUI and I/O threads, @realism. */
static struct etwforge_traits *boost_machine(const char *realism)
{
	char yaml[640], args[640], err[512], name[64];

	snprintf(yaml, sizeof(yaml),
		 "seed: 4\nduration: 1s\nmachine: {cpus: 4, realism: %s}\n"
		 "sessions:\n  - {name: k, flags: [cswitch, dispatcher, proc_thread]}\n"
		 "threads:\n"
		 "  - {name: ui, count: 8, behaviour: interactive}\n"
		 "  - {name: io, count: 16, behaviour: io_bound}\n",
		 realism);
	test_write("boost.yaml", yaml, strlen(yaml));
	snprintf(name, sizeof(name), "boost-%s.etl", realism);
	snprintf(args, sizeof(args), "gen %s -o %s -q", test_path("boost.yaml"), name);
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
	return traits_of(test_path(name));
}

Test(traits, a_lived_in_wake_up_boosts_as_its_waker_would)
{
	struct etwforge_traits *l = boost_machine("lived-in");
	struct etwforge_traits *p = boost_machine("plain");
	const struct etwforge_trait *lb = named(l, "wake_boost");
	const struct etwforge_trait *pb = named(p, "wake_boost");
	unsigned zero = 31; /* the labels run -31 .. +31 */

	cr_assert(lb->present && pb->present);
	cr_log_info("lived-in: 0 %.3f +1 %.3f +2 %.3f +6 %.3f; plain: 0 %.3f +1 %.3f +2 %.3f",
		    share(lb, zero), share(lb, zero + 1), share(lb, zero + 2), share(lb, zero + 6),
		    share(pb, zero), share(pb, zero + 1), share(pb, zero + 2));
	/* I/O completions by their device (disk +1, network +2, none 0), window input
	 * +2, the keyboard and mouse +6: no one increment takes nearly all */
	cr_assert_gt(share(lb, zero), 0.02);
	cr_assert_gt(share(lb, zero + 2), 0.1);
	cr_assert_gt(share(lb, zero + 6), 0);
	cr_assert_lt(share(lb, zero + 1), 0.8);
	/* plain: never more than +2, never +6 */
	cr_assert_eq(share(pb, zero + 6), 0);
	etwforge_traits_free(l);
	etwforge_traits_free(p);
}

/* thread_cpu_cv of 40 I/O threads whose spreads are @burst and @wait (NULL: the default). */
static double spread_cv(const char *burst, const char *wait)
{
	char yaml[512], args[640], err[512], keys[128] = "";
	struct etwforge_traits *t;
	double v;

	if (burst) {
		snprintf(keys, sizeof(keys), ", burst_spread: %s, wait_spread: %s", burst, wait);
	}
	snprintf(yaml, sizeof(yaml),
		 "seed: 3\nduration: 2s\nmachine: {cpus: 4}\n"
		 "threads:\n  - {name: w, count: 40, behaviour: io_bound%s}\n",
		 keys);
	test_write("spread.yaml", yaml, strlen(yaml));
	snprintf(args, sizeof(args), "gen %s -o spread.etl -q", test_path("spread.yaml"));
	cr_assert_eq(test_etwforge(args, err, sizeof(err)), 0, "%s", err);
	t = traits_of(test_path("spread.etl"));
	v = named(t, "thread_cpu_cv")->value;
	etwforge_traits_free(t);
	return v;
}

Test(traits, a_group_s_spread_keys_make_its_threads_alike_or_unequal)
{
	double none = spread_cv("0", "0"), def = spread_cv(NULL, NULL),
	       given = spread_cv("0.8", "1.3"), wide = spread_cv("2", "2.5");
	char err[512];

	cr_log_info("thread CPU CV: alike %.3f, default %.3f, 0.8/1.3 %.3f, 2/2.5 %.3f", none, def,
		    given, wide);
	cr_assert_lt(none, 0.3, "sigma 0: the threads alike (%.3f)", none);
	cr_assert_gt(def, 3 * none);
	cr_assert_eq(given, def, "the default's own values are the default");
	cr_assert_gt(wide, 1.5 * def);
	/* not a sigma: a located error, exit 2 */
	static const char bad[] = "threads:\n  - {name: w, burst_spread: 0.805}\n";

	test_write("bad.yaml", bad, strlen(bad));
	cr_assert_eq(test_etwforge("gen bad.yaml -o bad.etl -q", err, sizeof(err)), 2);
	cr_assert_not_null(strstr(err, "bad.yaml:2:"), "%s", err);
	cr_assert_not_null(strstr(err, "burst_spread"), "%s", err);
}
