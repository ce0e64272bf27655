// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_gen.c - (d) of `etwforge bench`: gen end to end, the
 * built-in default scenario and tools/scenarios/server64.yaml (built into
 * the library: an installed tool has no source tree), truth off and on;
 * and server64 with CSwitch only beside the identity records (proc_thread,
 * dispatcher, profile), truth off, for what those records cost; and
 * tools/scenarios/desktop.yaml without loader and stacks beside the same
 * with loader and the stacks of profile and cswitch, truth off, for what
 * images and stacks cost; and those stacks cached beside plain, for what
 * the stack cache costs.
 *
 *   per run, per scenario, truth off then on:
 *     bench_child_run() ---------------> child: etwforge_generate() into
 *       |  <-- switches, bytes, xxh3 ---  the scratch folder (gen.etl ...)
 *     the child's rusage: CPU time (user + system), ru_maxrss
 *     remove the child's files
 *
 * A child per run because ru_maxrss only grows: each run's peak RSS is its
 * own. A forked child starts with the pages of the parent it maps, so the
 * peak of an empty child forked at the same point is reported beside
 * (fork_baseline_kib). Rates are per CPU second of the child, which a
 * shared machine's waits do not inflate; the wall-clock rate (I/O waits,
 * the fsync of each output, included) is a figure of its own. The ETL
 * bytes must be the same in every run, truth on or off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_build.h"

static const char server64_yaml[] = BENCH_SERVER64_YAML;
static const char *const desktop_lines[] = {BENCH_DESKTOP_YAML_LINES};
static char desktop_yaml[8192]; /* desktop_lines joined (desktop_text()) */

enum { DEFAULT = 0, SERVER64, IDENT, STACKS, STACK_CACHE, NCASES };
enum { RATE = 0, MBPS, RSS, WALL, NFIG };

/*
 * A case's two variants: truth off and on (@set NULL: the same files), or
 * the scenario with @set[0] (and @set2[0], @set3[0]) and with @set[1] and
 * @set2[1] (and @set3[1]) (truth off; other files).
 */
struct gen_case {
	const char *name;
	const char *what;
	const char *file; /* scenario name in messages; NULL = the default scenario */
	const char *yaml;
	const char *fig[2][NFIG]; /* [variant][figure] */
	const char *label[2];
	const char *cost;
	const char *set[2];
	const char *set2[2];
	const char *set3[2];
};

static const struct gen_case cases[NCASES] = {
	{"default",
	 "the built-in default scenario",
	 NULL,
	 NULL,
	 {{"gen.default.switches_per_s", "gen.default.mb_per_s", "gen.default.peak_rss_mib",
	   "gen.default.wall_switches_per_s"},
	  {"gen.default_truth.switches_per_s", "gen.default_truth.mb_per_s",
	   "gen.default_truth.peak_rss_mib", "gen.default_truth.wall_switches_per_s"}},
	 {"gen default scenario", "gen default scenario, --truth"},
	 "gen.default.truth_cost",
	 {NULL, NULL},
	 {NULL, NULL},
	 {NULL, NULL}},
	{"server64",
	 "tools/scenarios/server64.yaml",
	 "server64.yaml",
	 server64_yaml,
	 {{"gen.server64.switches_per_s", "gen.server64.mb_per_s", "gen.server64.peak_rss_mib",
	   "gen.server64.wall_switches_per_s"},
	  {"gen.server64_truth.switches_per_s", "gen.server64_truth.mb_per_s",
	   "gen.server64_truth.peak_rss_mib", "gen.server64_truth.wall_switches_per_s"}},
	 {"gen server64.yaml", "gen server64.yaml, --truth"},
	 "gen.server64.truth_cost",
	 {NULL, NULL},
	 {NULL, NULL},
	 {NULL, NULL}},
	{"server64_ident",
	 "server64.yaml (session 0 CSwitch only, then + proc_thread, dispatcher, profile)",
	 "server64.yaml",
	 server64_yaml,
	 {{"gen.server64_cswitch.switches_per_s", "gen.server64_cswitch.mb_per_s",
	   "gen.server64_cswitch.peak_rss_mib", "gen.server64_cswitch.wall_switches_per_s"},
	  {"gen.server64_ident.switches_per_s", "gen.server64_ident.mb_per_s",
	   "gen.server64_ident.peak_rss_mib", "gen.server64_ident.wall_switches_per_s"}},
	 {"gen server64.yaml, CSwitch only", "gen server64.yaml, + identity records"},
	 "gen.server64.ident_cost",
	 {"sessions.0.flags=[cswitch, compact_cswitch]",
	  "sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, profile]"},
	 {NULL, NULL},
	 {NULL, NULL}},
	{"desktop_stacks",
	 "tools/scenarios/desktop.yaml (session 0 without loader and stacks, then with loader "
	 "and the stacks of profile and cswitch)",
	 "desktop.yaml",
	 desktop_yaml,
	 {{"gen.desktop.switches_per_s", "gen.desktop.mb_per_s", "gen.desktop.peak_rss_mib",
	   "gen.desktop.wall_switches_per_s"},
	  {"gen.desktop_stacks.switches_per_s", "gen.desktop_stacks.mb_per_s",
	   "gen.desktop_stacks.peak_rss_mib", "gen.desktop_stacks.wall_switches_per_s"}},
	 {"gen desktop.yaml, no loader or stacks", "gen desktop.yaml, + loader, stacks"},
	 "gen.desktop.stacks_cost",
	 {"sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, profile]",
	  "sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, profile, loader]"},
	 {"sessions.0.stacks=[]", "sessions.0.stacks=[profile, cswitch]"},
	 {NULL, NULL}},
	{"desktop_stack_cache",
	 "tools/scenarios/desktop.yaml (session 0 with loader and the stacks of profile and "
	 "cswitch, then the same with a stack cache of 1024 entries a CPU)",
	 "desktop.yaml",
	 desktop_yaml,
	 {{"gen.desktop_stacks_plain.switches_per_s", "gen.desktop_stacks_plain.mb_per_s",
	   "gen.desktop_stacks_plain.peak_rss_mib", "gen.desktop_stacks_plain.wall_switches_per_s"},
	  {"gen.desktop_stacks_cached.switches_per_s", "gen.desktop_stacks_cached.mb_per_s",
	   "gen.desktop_stacks_cached.peak_rss_mib",
	   "gen.desktop_stacks_cached.wall_switches_per_s"}},
	 {"gen desktop.yaml, loader, stacks", "gen desktop.yaml, loader, cached stacks"},
	 "gen.desktop.stack_cache_cost",
	 {"sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, profile, loader]",
	  "sessions.0.flags=[cswitch, compact_cswitch, proc_thread, dispatcher, profile, loader]"},
	 {"sessions.0.stacks=[profile, cswitch]", "sessions.0.stacks=[profile, cswitch]"},
	 {NULL, "sessions.0.stack_cache=1024"}},
};

/* What a child tells its parent. */
struct report {
	uint64_t seed;
	unsigned cpus;
	uint64_t duration_ns;
	uint64_t switches;
	uint64_t etl_bytes;
	uint64_t truth_bytes;
	unsigned nsessions;
	uint64_t xxh3[2];
};

struct job {
	const struct gen_case *gc;
	uint64_t sim_ns;
	bool truth;
	const char *set;  /* an extra --set, or NULL */
	const char *set2; /* a second one, or NULL */
	const char *set3; /* a third one, or NULL */
};

/* One run, in the child (in the scratch folder). */
static int gen_child(void *ctx, void *out, struct etwforge_error *err)
{
	const struct job *job = ctx;
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_scenario *sc = etwforge_scenario_new();
	ETWFORGE_OPTS(etwforge_run_opts, o);
	ETWFORGE_OPTS(etwforge_totals, t);
	struct report *rep = out;
	struct stat st;
	char set[64];
	int rc = sum && sc ? 0 : error_fail(err, -ENOMEM, ERR_DATA, "out of memory");

	if (rc == 0 && job->gc->yaml) {
		rc = etwforge_scenario_load_string(sc, job->gc->file, job->gc->yaml, err);
	}
	snprintf(set, sizeof(set), "duration=%lluns", (unsigned long long)job->sim_ns);
	if (rc == 0) {
		rc = etwforge_scenario_set(sc, set, err);
	}
	if (rc == 0 && job->set) {
		rc = etwforge_scenario_set(sc, job->set, err);
	}
	if (rc == 0 && job->set2) {
		rc = etwforge_scenario_set(sc, job->set2, err);
	}
	if (rc == 0 && job->set3) {
		rc = etwforge_scenario_set(sc, job->set3, err);
	}
	o.output = bench_scratch_name(BENCH_F_GEN);
	o.truth = job->truth ? bench_scratch_name(BENCH_F_GEN_TRUTH) : NULL;
	if (rc == 0) {
		rc = etwforge_generate(sc, &o, sum, err);
	}
	if (rc == 0) {
		rc = etwforge_summary_totals(sum, &t, err);
	}
	if (rc < 0) {
		return rc; /* the process ends: nothing to free */
	}
	rep->seed = t.seed;
	rep->cpus = t.cpus;
	rep->duration_ns = t.duration_ns;
	rep->switches = t.switches;
	rep->nsessions = etwforge_summary_sessions(sum);
	for (unsigned i = 0; i < rep->nsessions; i++) {
		rep->etl_bytes += etwforge_summary_session(sum, i)->bytes;
		if (i < 2) {
			rep->xxh3[i] = etwforge_summary_session(sum, i)->xxh3;
		}
	}
	if (job->truth && stat(o.truth, &st) == 0) {
		rep->truth_bytes = (uint64_t)st.st_size;
	}
	return 0;
}

static void remove_outputs(const struct bench_scratch *s)
{
	unlink(bench_scratch_path(s, BENCH_F_GEN));
	unlink(bench_scratch_path(s, BENCH_F_GEN2));
	unlink(bench_scratch_path(s, BENCH_F_GEN_TRUTH));
}

static void describe(struct bench *b, const struct gen_case *gc, uint64_t sim_ns,
		     const struct report *off, const struct report *on, long baseline_kib)
{
	struct bench_work *w;
	char name[32];

	snprintf(name, sizeof(name), "gen.%s", gc->name);
	w = bench_work_add(b, name,
			   "etwforge_generate() of %s for %.3f s simulated, the ETL files (and "
			   "the truth) in the scratch folder, a child process per run",
			   gc->what, (double)sim_ns * 1e-9);
	bench_kv_u64(w, "seed", off->seed, 0);
	bench_kv_u64(w, "cpus", off->cpus, 0);
	bench_kv_u64(w, "duration_ns", off->duration_ns, 0);
	bench_kv_u64(w, "switches", off->switches, 0);
	bench_kv_u64(w, "sessions", off->nsessions, 0);
	bench_kv_u64(w, "etl_bytes", off->etl_bytes, 0);
	bench_kv_u64(w, "truth_bytes", on->truth_bytes, 0);
	bench_kv_hex(w, "xxh3", off->xxh3[0]);
	if (off->nsessions > 1) {
		bench_kv_hex(w, "xxh3_2", off->xxh3[1]);
	}
	bench_kv_u64(w, "fork_baseline_kib", (uint64_t)baseline_kib, 0);
}

/* desktop.yaml's text from its lines. Return: 0, or -E2BIG. */
static int desktop_text(struct etwforge_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(desktop_lines) / sizeof(desktop_lines[0]); i++) {
		size_t k = strlen(desktop_lines[i]);

		if (n + k >= sizeof(desktop_yaml)) {
			return error_fail(err, -E2BIG, ERR_DATA,
					  "gen: desktop.yaml: over %zu bytes",
					  sizeof(desktop_yaml) - 1);
		}
		memcpy(desktop_yaml + n, desktop_lines[i], k);
		n += k;
	}
	desktop_yaml[n] = '\0';
	return 0;
}

int bench_gen(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
	      struct etwforge_error *err)
{
	double fig[NCASES][2][NFIG][BENCH_MAX_RUNS], cost[NCASES][BENCH_MAX_RUNS];
	const uint64_t sim_ns[NCASES] = {sz->gen_default_ns, sz->gen_server_ns, sz->gen_server_ns,
					 sz->gen_default_ns, sz->gen_default_ns};
	struct report first[NCASES][2], rep;
	struct rusage ru;
	double wall;
	long baseline;
	int rc;

	bench_progress(b, "gen: end to end, in child processes");
	if ((rc = desktop_text(err)) < 0) {
		return rc;
	}
	rc = bench_child_run(s, "gen", NULL, NULL, NULL, 0, &ru, &wall, err);
	if (rc < 0) {
		return rc;
	}
	baseline = ru.ru_maxrss;
	for (unsigned r = 0; r < sz->runs; r++) {
		for (unsigned c = 0; c < NCASES; c++) {
			double cpu[2];

			for (unsigned t = 0; t < 2; t++) {
				const bool by_set = cases[c].set[0] != NULL;
				struct job job = {&cases[c],	     sim_ns[c],
						  t == 1 && !by_set, cases[c].set[t],
						  cases[c].set2[t],  cases[c].set3[t]};
				/* the truth changes no byte of the files: compare with variant 0 */
				const unsigned same = by_set ? t : 0;
				char what[64];

				snprintf(what, sizeof(what), "gen %s%s, run %u of %u",
					 cases[c].name, job.truth ? " --truth" : "", r + 1,
					 sz->runs);
				bench_progress(b, what);
				memset(&rep, 0, sizeof(rep));
				snprintf(what, sizeof(what), "gen %s", cases[c].name);
				rc = bench_child_run(s, what, gen_child, &job, &rep, sizeof(rep),
						     &ru, &wall, err);
				remove_outputs(s);
				if (rc < 0) {
					return rc;
				}
				if (r == 0 && t == same) {
					first[c][t] = rep;
				} else if (rep.switches != first[c][same].switches ||
					   rep.xxh3[0] != first[c][same].xxh3[0] ||
					   rep.xxh3[1] != first[c][same].xxh3[1]) {
					return error_fail(
						err, -EIO, ERR_DATA,
						"gen: %s: run %u%s wrote other files than "
						"the first (xxh3 %016llx, was %016llx)",
						cases[c].name, r + 1,
						job.truth ? " with --truth" : "",
						(unsigned long long)rep.xxh3[0],
						(unsigned long long)first[c][same].xxh3[0]);
				}
				if (r == 0 && t == 1) {
					first[c][1] = rep;
				}
				cpu[t] = bench_rusage_cpu_s(&ru);
				fig[c][t][RATE][r] = (double)rep.switches / cpu[t];
				fig[c][t][MBPS][r] = (double)rep.etl_bytes / cpu[t] * 1e-6;
				fig[c][t][RSS][r] = (double)ru.ru_maxrss / 1024.0;
				fig[c][t][WALL][r] = (double)rep.switches / wall;
			}
			cost[c][r] = cpu[1] / cpu[0];
		}
	}
	for (unsigned c = 0; c < NCASES; c++) {
		static const char *const unit[NFIG] = {"switches/s", "MB/s", "MiB", "switches/s"};

		for (unsigned t = 0; t < 2; t++) {
			for (unsigned k = 0; k < NFIG; k++) {
				/* rates in the child's CPU time, but the wall-clock one */
				bench_figure_clock(b, cases[c].fig[t][k], cases[c].label[t],
						   unit[k],
						   k == WALL  ? BENCH_WALL
						   : k == RSS ? NULL
							      : BENCH_CPU,
						   fig[c][t][k], sz->runs);
			}
		}
		bench_figure(b, cases[c].cost,
			     c == STACK_CACHE  ? "gen CPU time, stacks cached / as StackWalks"
			     : c == STACKS     ? "gen CPU time, loader and stacks on / off"
			     : cases[c].set[0] ? "gen CPU time, identity records on / off"
					       : "gen CPU time, truth on / off",
			     "x", cost[c], sz->runs);
		describe(b, &cases[c], sim_ns[c], &first[c][0], &first[c][1], baseline);
	}
	return 0;
}
