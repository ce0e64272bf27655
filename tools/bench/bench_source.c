// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_source.c - the source trace (e) and (f) read: the
 * default scenario generated, with its truth, by a child process in the
 * scratch folder (bench_child.c), made once per folder and length. Apart
 * from bench_scratch.c, which the children use: the folder knows nothing of
 * them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench.h"
#include "tools/lib/common/error.h"

/* The trace made last: for which folder and length. */
static struct {
	const struct bench_scratch *scratch;
	uint64_t ns;
	struct bench_source source;
} made;

/* The source trace, in a child in the folder. */
static int source_child(void *ctx, void *out, struct etwforge_error *err)
{
	const uint64_t *sim_ns = ctx;
	struct bench_source *src = out;
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = etwforge_summary_new();
	ETWFORGE_OPTS(etwforge_run_opts, o);
	ETWFORGE_OPTS(etwforge_totals, t);
	char set[64];
	int rc;

	if (!sc || !sum) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
	}
	snprintf(set, sizeof(set), "duration=%lluns", (unsigned long long)*sim_ns);
	o.output = bench_scratch_name(BENCH_F_SRC);
	o.truth = bench_scratch_name(BENCH_F_SRC_TRUTH);
	rc = etwforge_scenario_set(sc, set, err);
	if (rc == 0) {
		rc = etwforge_generate(sc, &o, sum, err);
	}
	if (rc == 0 && (rc = etwforge_summary_totals(sum, &t, err)) == 0) {
		src->switches = t.switches;
		src->events = etwforge_summary_session(sum, 0)->events;
		src->xxh3 = etwforge_summary_session(sum, 0)->xxh3;
	}
	return rc; /* the process ends: nothing to free */
}

int bench_scratch_source(struct bench_scratch *s, uint64_t sim_ns, struct bench_source *src,
			 struct etwforge_error *err)
{
	struct rusage ru;
	double wall;
	int rc;

	if (made.scratch == s && made.ns == sim_ns) {
		*src = made.source;
		return 0;
	}
	made.scratch = NULL;
	memset(&made.source, 0, sizeof(made.source));
	rc = bench_child_run(s, "the source trace", source_child, &sim_ns, &made.source,
			     sizeof(made.source), &ru, &wall, err);
	if (rc < 0) {
		return rc;
	}
	made.scratch = s;
	made.ns = sim_ns;
	*src = made.source;
	return 0;
}
