// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_run.c - the public runs: etwforge_generate(),
 * etwforge_replay(), etwforge_verify() hand their arguments to the run
 * room (tools/lib/run/run.h).
 */
#include <stdio.h>

#include "tools/lib/api.h"
#include "tools/lib/run/run.h"

/* The caller's run options, as this library's struct (its size checked). */
static int run_opts(struct etwforge_run_opts *o, const struct etwforge_run_opts *opts,
		    struct etwforge_error *err)
{
	return sized_in(o, sizeof(*o), opts, SIZED_FIRST_END(struct etwforge_run_opts, output),
			"struct etwforge_run_opts", err);
}

int etwforge_generate(struct etwforge_scenario *sc, const struct etwforge_run_opts *opts,
		      struct etwforge_summary *sum, struct etwforge_error *err)
{
	struct etwforge_run_opts o;
	int rc = run_opts(&o, opts, err);

	if (rc == 0) {
		rc = etwforge_scenario_finish(sc, err);
	}
	return rc < 0 ? rc : run_generate(&sc->sc, &o, sum, err);
}

int etwforge_replay(const char *stream, const struct etwforge_run_opts *opts,
		    struct etwforge_summary *sum, struct etwforge_error *err)
{
	struct etwforge_run_opts o;
	int rc = run_opts(&o, opts, err);

	return rc < 0 ? rc : run_replay(stream, &o, sum, err);
}

int etwforge_verify(const char *etl, const char *truth, const char *session,
		    struct etwforge_verify_result *res, struct etwforge_error *err)
{
	static _Thread_local char session_name[128];
	struct etwforge_verify_result r = {.sz = sizeof(r)};
	struct run_verify_result v;
	int rc;

	if (res) {
		rc = sized_check(res, sizeof(r),
				 SIZED_FIRST_END(struct etwforge_verify_result, session),
				 "struct etwforge_verify_result", err);
		if (rc < 0) {
			return rc;
		}
	}
	rc = run_verify(etl, truth, session, &v, err);
	if (rc == 0 && res) {
		snprintf(session_name, sizeof(session_name), "%s", v.session);
		r.session = session_name;
		r.switches = v.switches;
		r.plain = v.plain;
		r.compact = v.compact;
		r.batches = v.batches;
		r.spinlocks = v.spinlocks;
		r.identity = v.identity;
		sized_out(res, &r, sizeof(r));
	}
	return rc;
}
