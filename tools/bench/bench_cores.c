// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_cores.c - (d, cont.) of `etwforge bench`: where gen's
 * time goes and what more threads give, on tools/scenarios/server64.yaml
 * (both sessions) run five times as long as (d) does:
 *
 *   sim      the machine alone: every model, records into nothing
 *            (etwforge_run_opts.simulate_only), CPU time
 *   null     gen to the null device, one thread: the CPU time of the
 *            simulation and the encoding, no file (the "15 M/s")
 *   jobs1    gen to files in the scratch folder, one thread, wall clock
 *            (the fsync of each output at the commit included)
 *   jobsN    the same with --jobs N, N = this machine's cores: wall clock,
 *            and the same files as jobs1 (else the benchmark fails)
 *   truthN   jobsN with --truth: wall clock, and what the truth costs a run
 *            with N threads (truthN / jobsN, wall: the truth is made by the
 *            workers, and by the simulation while it would wait for them)
 *
 * The simulation's share of a one-thread run (sim / null) is what no thread
 * count divides: with N threads a run takes at least that share of its
 * one-thread time (README, Performance).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/lib/common/error.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_build.h"

static const char server64_yaml[] = BENCH_SERVER64_YAML;

enum { SIM = 0, NUL, JOBS1, JOBSN, TRUTHN, NRUNS };

struct cores_job {
	unsigned kind; /* SIM ... JOBSN */
	uint64_t sim_ns;
	unsigned jobs;
};

struct cores_report {
	uint64_t switches;
	uint64_t xxh3[2];
};

static int cores_child(void *ctx, void *out, struct etwforge_error *err)
{
	const struct cores_job *job = ctx;
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_scenario *sc = etwforge_scenario_new();
	ETWFORGE_OPTS(etwforge_run_opts, o);
	ETWFORGE_OPTS(etwforge_totals, t);
	struct cores_report *rep = out;
	char set[64];
	int rc = sum && sc ? 0 : error_fail(err, -ENOMEM, ERR_DATA, "out of memory");

	if (rc == 0) {
		rc = etwforge_scenario_load_string(sc, "server64.yaml", server64_yaml, err);
	}
	snprintf(set, sizeof(set), "duration=%lluns", (unsigned long long)job->sim_ns);
	if (rc == 0) {
		rc = etwforge_scenario_set(sc, set, err);
	}
	if (rc == 0 && job->kind == NUL) {
		rc = etwforge_scenario_set(sc, "sessions.1.file=/dev/null", err);
	}
	o.simulate_only = job->kind == SIM;
	o.output = job->kind == NUL ? "/dev/null" : bench_scratch_name(BENCH_F_GEN);
	o.jobs = job->jobs;
	o.truth = job->kind == TRUTHN ? bench_scratch_name(BENCH_F_GEN_TRUTH) : NULL;
	if (rc == 0) {
		rc = etwforge_generate(sc, &o, sum, err);
	}
	if (rc == 0) {
		rc = etwforge_summary_totals(sum, &t, err);
	}
	if (rc < 0) {
		return rc; /* the process ends: nothing to free */
	}
	rep->switches = t.switches;
	for (unsigned i = 0; job->kind >= JOBS1 && i < 2 && i < etwforge_summary_sessions(sum);
	     i++) {
		rep->xxh3[i] = etwforge_summary_session(sum, i)->xxh3;
	}
	return 0;
}

int bench_cores(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
		struct etwforge_error *err)
{
	static const char *const what[NRUNS] = {"the machine alone", "to the null device",
						"to files, one thread", "to files, --jobs N",
						"to files, --jobs N, --truth"};
	double rate[NRUNS][BENCH_MAX_RUNS], share[BENCH_MAX_RUNS], speedup[BENCH_MAX_RUNS];
	double truth_cost[BENCH_MAX_RUNS];
	const uint64_t sim_ns = 5 * sz->gen_server_ns;
	unsigned jobs = b->machine.cores > 1 ? b->machine.cores : 2;
	struct cores_report first[NRUNS] = {{0}};
	struct bench_work *w;
	int rc;

	/* the figures, in the order printed (each a median of the runs' values) */
	const struct {
		const char *name, *label, *unit, *clock;
		const double *v;
	} fig[] = {
		{"gen.server64_sim.switches_per_s",
		 "server64.yaml's machine alone, records into nothing", "switches/s", BENCH_CPU,
		 rate[SIM]},
		{"gen.server64_null.switches_per_s",
		 "gen server64.yaml to the null device, one thread", "switches/s", BENCH_CPU,
		 rate[NUL]},
		{"gen.server64_null.sim_share",
		 "the machine alone / gen to the null device, CPU time", "x", NULL, share},
		{"gen.server64_jobs1.wall_switches_per_s", "gen server64.yaml to files, one thread",
		 "switches/s", BENCH_WALL, rate[JOBS1]},
		{"gen.server64_jobs.wall_switches_per_s",
		 "gen server64.yaml to files, --jobs N (N: the cores)", "switches/s", BENCH_WALL,
		 rate[JOBSN]},
		{"gen.server64_jobs.speedup", "one thread / --jobs N, wall clock, same run", "x",
		 NULL, speedup},
		{"gen.server64_jobs_truth.wall_switches_per_s",
		 "gen server64.yaml to files, --jobs N, --truth", "switches/s", BENCH_WALL,
		 rate[TRUTHN]},
		{"gen.server64_jobs.truth_cost", "--jobs N: truth on / off, wall clock, same run",
		 "x", NULL, truth_cost},
	};

	for (unsigned r = 0; r < sz->runs; r++) {
		double cpu[NRUNS], wall[NRUNS];

		for (unsigned k = 0; k < NRUNS; k++) {
			struct cores_job job = {k, sim_ns, k >= JOBSN ? jobs : 1};
			struct cores_report rep = {0};
			struct rusage ru;
			char msg[96];

			snprintf(msg, sizeof(msg), "gen server64: %s, run %u of %u", what[k], r + 1,
				 sz->runs);
			bench_progress(b, msg);
			rc = bench_child_run(s, "gen server64", cores_child, &job, &rep,
					     sizeof(rep), &ru, &wall[k], err);
			unlink(bench_scratch_path(s, BENCH_F_GEN));
			unlink(bench_scratch_path(s, BENCH_F_GEN2));
			unlink(bench_scratch_path(s, BENCH_F_GEN_TRUTH));
			if (rc < 0) {
				return rc;
			}
			if (r == 0 && k < JOBSN) {
				first[k] = rep;
			}
			/* every kind is the same machine; the files, --jobs or not */
			if (rep.switches != first[SIM].switches ||
			    (k >= JOBS1 && memcmp(rep.xxh3, first[JOBS1].xxh3, sizeof(rep.xxh3)))) {
				return error_fail(err, -EIO, ERR_DATA,
						  "gen server64: %s, run %u: other work than the "
						  "first (%llu switches, xxh3 %016llx; was %llu, "
						  "%016llx)",
						  what[k], r + 1, (unsigned long long)rep.switches,
						  (unsigned long long)rep.xxh3[0],
						  (unsigned long long)first[SIM].switches,
						  (unsigned long long)first[JOBS1].xxh3[0]);
			}
			cpu[k] = bench_rusage_cpu_s(&ru);
			rate[k][r] = (double)rep.switches / (k >= JOBS1 ? wall[k] : cpu[k]);
		}
		share[r] = cpu[SIM] / cpu[NUL];
		speedup[r] = wall[JOBS1] / wall[JOBSN];
		truth_cost[r] = wall[TRUTHN] / wall[JOBSN];
	}
	for (size_t i = 0; i < sizeof(fig) / sizeof(fig[0]); i++) {
		bench_figure_clock(b, fig[i].name, fig[i].label, fig[i].unit, fig[i].clock,
				   fig[i].v, sz->runs);
	}
	w = bench_work_add(b, "gen.server64_cores",
			   "etwforge_generate() of tools/scenarios/server64.yaml (both sessions) "
			   "for %.3f s simulated: the machine alone (simulate_only), to the null "
			   "device with one thread (CPU time), to files in the scratch folder with "
			   "one thread, with --jobs N and with --jobs N --truth (wall clock, the "
			   "fsync of each file included); a child process per run",
			   (double)sim_ns * 1e-9);
	bench_kv_u64(w, "switches", first[SIM].switches, 0);
	bench_kv_u64(w, "jobs", jobs, 0);
	bench_kv_hex(w, "xxh3", first[JOBS1].xxh3[0]);
	bench_kv_hex(w, "xxh3_2", first[JOBS1].xxh3[1]);
	return 0;
}
