// SPDX-License-Identifier: MIT
/*
 * tools/examples/gen_trace.c - generate a trace from a scenario written
 * inline, with libetwforge. Build against an installed library:
 *   cc gen_trace.c $(pkg-config --cflags --libs etwforge) -o gen_trace
 *   ./gen_trace out.etl
 */
#include <etwforge/etwforge.h>
#include <stdio.h>

static const char scenario[] =
	"seed: 7\n"
	"duration: 200ms\n"
	"machine: {cpus: 4, target: win10-1903}\n"
	"sessions:\n"
	"  - {name: NT Kernel Logger, clock: qpc, flags: [cswitch, compact_cswitch]}\n"
	"threads:\n"
	"  - {name: workers, count: 12, priority: 9, behaviour: io_bound}\n";

int main(int argc, char **argv)
{
	ETWFORGE_OPTS(etwforge_run_opts, opts, .output = argc > 1 ? argv[1] : "trace.etl");
	ETWFORGE_OPTS(etwforge_totals, t);
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_error *err = etwforge_error_new();
	int status = 0;

	if (!sc || !sum || etwforge_scenario_load_string(sc, "inline", scenario, err) < 0 ||
	    etwforge_generate(sc, &opts, sum, err) < 0 ||
	    etwforge_summary_totals(sum, &t, err) < 0) {
		fprintf(stderr, "gen_trace: %s\n",
			sc && sum ? etwforge_error_message(err) : "out of memory");
		status = 1;
	} else {
		printf("%llu switches in %s\n", (unsigned long long)t.switches,
		       etwforge_summary_session(sum, 0)->file);
	}
	etwforge_summary_free(sum);
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
	return status;
}
