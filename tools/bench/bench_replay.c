// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_replay.c - (f) of `etwforge bench`: replay and verify of
 * the source truth (bench_scratch.c: the default scenario's, about 1 M
 * switches in the full benchmark). Each run replays the truth into the
 * scratch folder (etwforge_replay(), which must give as many switches and
 * events as the source) and verifies the source's compact file against it
 * (etwforge_verify()), each in a child process (bench_child.c) timed in
 * CPU time.
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

struct replay_out {
	uint64_t switches;
	uint64_t events; /* the first session's */
};

/* Replay of the source truth, in a child in the scratch folder. */
static int replay_child(void *ctx, void *out, struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = bench_scratch_name(BENCH_F_REPLAY));
	ETWFORGE_OPTS(etwforge_totals, t);
	struct etwforge_summary *sum = etwforge_summary_new();
	struct replay_out *r = out;
	int rc;

	(void)ctx;
	if (!sum) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
	}
	rc = etwforge_replay(bench_scratch_name(BENCH_F_SRC_TRUTH), &o, sum, err);
	if (rc == 0 && (rc = etwforge_summary_totals(sum, &t, err)) == 0) {
		r->switches = t.switches;
		r->events = etwforge_summary_session(sum, 0)->events;
	}
	return rc; /* the process ends: nothing to free */
}

/* Verify of the source's compact file, in a child in the scratch folder. */
static int verify_child(void *ctx, void *out, struct etwforge_error *err)
{
	struct etwforge_verify_result *res = out;

	(void)ctx;
	memset(res, 0, sizeof(*res));
	res->sz = sizeof(*res);
	return etwforge_verify(bench_scratch_name(BENCH_F_SRC),
			       bench_scratch_name(BENCH_F_SRC_TRUTH), NULL, res, err);
}

int bench_replay_verify(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
			struct etwforge_error *err)
{
	const char *truth = bench_scratch_path(s, BENCH_F_SRC_TRUTH);
	double rep[BENCH_MAX_RUNS], ver[BENCH_MAX_RUNS];
	struct bench_source src;
	struct bench_work *w;
	struct stat ts;
	int rc;

	bench_progress(b, "replay_verify: the source truth (generating it first)");
	rc = bench_scratch_source(s, sz->source_ns, &src, err);
	if (rc < 0) {
		return rc;
	}
	if (stat(truth, &ts) < 0) {
		return error_fail(err, -errno, ERR_DATA, "%s: %s", truth, strerror(errno));
	}
	for (unsigned r = 0; r < sz->runs; r++) {
		struct etwforge_verify_result res;
		struct replay_out out = {0};
		struct rusage ru;
		char what[64];
		double wall;

		snprintf(what, sizeof(what), "replay_verify: run %u of %u", r + 1, sz->runs);
		bench_progress(b, what);
		rc = bench_child_run(s, "replay", replay_child, NULL, &out, sizeof(out), &ru, &wall,
				     err);
		unlink(bench_scratch_path(s, BENCH_F_REPLAY));
		unlink(bench_scratch_path(s, BENCH_F_REPLAY2));
		if (rc < 0) {
			return rc;
		}
		if (out.switches != src.switches || out.events != src.events) {
			return error_fail(
				err, -EIO, ERR_DATA,
				"replay: %s: %llu switches in %llu events replayed, %llu in "
				"%llu generated",
				truth, (unsigned long long)out.switches,
				(unsigned long long)out.events, (unsigned long long)src.switches,
				(unsigned long long)src.events);
		}
		rep[r] = (double)src.switches / bench_rusage_cpu_s(&ru);
		memset(&res, 0, sizeof(res));
		rc = bench_child_run(s, "verify", verify_child, NULL, &res, sizeof(res), &ru, &wall,
				     err);
		if (rc < 0) {
			return rc;
		}
		if (res.switches != src.switches) {
			return error_fail(err, -EIO, ERR_DATA,
					  "verify: %s: %llu switches verified, %llu generated",
					  bench_scratch_path(s, BENCH_F_SRC),
					  (unsigned long long)res.switches,
					  (unsigned long long)src.switches);
		}
		ver[r] = (double)src.switches / bench_rusage_cpu_s(&ru);
	}
	bench_figure(b, "replay.switches_per_s", "replay of the truth", "switches/s", rep,
		     sz->runs);
	bench_figure(b, "verify.switches_per_s", "verify against the truth", "switches/s", ver,
		     sz->runs);
	w = bench_work_add(b, "replay_verify",
			   "the truth of the default scenario run for %.3f s simulated: replay "
			   "writes both sessions, verify checks the compact one; each a child "
			   "process, in CPU time",
			   (double)sz->source_ns * 1e-9);
	bench_kv_u64(w, "switches", src.switches, 0);
	bench_kv_u64(w, "truth_bytes", (uint64_t)ts.st_size, 0);
	bench_kv_hex(w, "xxh3", src.xxh3);
	return 0;
}
