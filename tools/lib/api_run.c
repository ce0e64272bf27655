// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_run.c - the public runs: etwforge_generate(),
 * etwforge_replay(), etwforge_verify() hand their arguments to the run
 * room (tools/lib/run/run.h).
 */
#include "tools/lib/api.h"
#include "tools/lib/run/run.h"

int etwforge_generate(struct etwforge_scenario *sc, const struct etwforge_run_opts *opts,
		      struct etwforge_summary *sum, struct etwforge_error *err)
{
	int rc = etwforge_scenario_finish(sc, err);

	return rc < 0 ? rc : run_generate(&sc->sc, opts, sum, err);
}

int etwforge_replay(const char *stream, const struct etwforge_run_opts *opts,
		    struct etwforge_summary *sum, struct etwforge_error *err)
{
	return run_replay(stream, opts, sum, err);
}

int etwforge_verify(const char *etl, const char *truth, const char *session,
		    struct etwforge_verify_result *res, struct etwforge_error *err)
{
	return run_verify(etl, truth, session, res, err);
}
