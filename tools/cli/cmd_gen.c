// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_gen.c - `etwforge gen [SCENARIO] -o OUT.etl`: the options, a
 * progress line and the summary; the simulation itself is the library's
 * etwforge_generate().
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge gen [SCENARIO] -o OUT.etl [--truth T.jsonl] [options]\n"
		"\n"
		"Simulate the machine of SCENARIO (YAML or JSON, '-' = stdin; none = the built-in "
		"default:\n"
		"8 CPUs, 2 s, a compact QPC session and a plain CSwitch session) and write one\n"
		"ETL file per session.\n"
		"\n"
		"  -o, --output FILE     the first session's ETL file ('-' = stdout); other\n"
		"                        sessions use their scenario \"file\", or OUT-N.etl\n"
		"                        (when FILE is not a regular file, such as /dev/null,\n"
		"                        a session without a file of its own is discarded)\n"
		"  -t, --truth FILE      also write the ground truth (JSON Lines, see\n"
		"                        etwforge-truth(5))\n"
		"      --truth-spinlocks all|logged\n"
		"                        spin-lock releases in the truth: every one (default;\n"
		"                        verify checks the logged set is the kernel's), or\n"
		"                        only the logged ones (a much smaller truth)\n"
		"      --seed N          same as --set seed=N\n"
		"      --duration D      same as --set duration=D (e.g. 2s, 500ms)\n"
		"      --cpus N          same as --set machine.cpus=N\n"
		"  -s, --set KEY=VALUE   override any scenario key (e.g. sessions.0.clock=cycles,\n"
		"                        threads.1.count=40); repeatable, applied in order\n"
		"      --symbols DIR     also write one Breakpad text symbol file per image\n"
		"                        with a PDB identity: DIR/NAME.pdb/GUIDAGE/NAME.sym\n"
		"      --print-config    print the effective scenario as YAML and exit\n"
		"      --json[=FILE]     the final summary as one JSON object on stdout (or\n"
		"                        in FILE) instead of text on stderr\n"
		"  -j, --jobs N          threads, the simulation's included (default: this\n"
		"                        machine's cores, at most 1 + the scenario's CPUs):\n"
		"                        the others encode a share of the CPUs each and write\n"
		"                        the truth; the same bytes with any N\n"
		"  -q, --quiet           no progress line, no summary, no notes (warnings\n"
		"                        stay)\n"
		"  -h, --help            this text\n"
		"\n"
		"The summary gives switches, batches by flush reason, bytes per switch, events\n"
		"lost and the xxh3-64 of each output file. Same scenario and seed, same bytes;\n"
		"the output file's name is part of them (the header holds it as given): the\n"
		"same run written as another name differs there.\n"
		"Outputs appear only when the whole run succeeded; two outputs naming the same\n"
		"file, or an output naming the scenario, are refused. An ETL file written in\n"
		"place ('-', a FIFO, a pipe, a device) is spooled until the end in $TMPDIR\n"
		"(else /tmp), as large as the file; /dev/null takes nothing (counted, not\n"
		"written). Exit status: 0 written, 1 write error, 2 bad usage or bad scenario,\n"
		"128+N ended by signal N (every target left as it was).\n");
}

/* The progress line on stderr (a terminal only): simulated time, switches, MB, ETA. */
static void progress(void *ctx, const struct etwforge_progress *p)
{
	double frac = p->duration_ns ? (double)p->sim_ns / (double)p->duration_ns : 1.0;
	double eta = frac > 0 ? p->wall_seconds / frac - p->wall_seconds : 0;

	(void)ctx;
	fprintf(stderr, "\r%8.3f s simulated  %10" PRIu64 " switches  %8.1f MB  ETA %5.1f s ",
		(double)p->sim_ns / 1e9, p->switches, (double)p->bytes / 1e6, eta);
	fflush(stderr);
}

#define MAX_SETS 256
#define MAX_JOBS 1025 /* the simulation and one worker per CPU of the largest machine */

/* --jobs: this machine's cores (gen uses at most 1 + the scenario's CPUs). */
static unsigned default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
}

/* --jobs N: 1..MAX_JOBS. Return: 0, or -1 after a one-line error. */
static int parse_jobs(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == '+' || v < 1 || v > MAX_JOBS) {
		fprintf(stderr, "etwforge gen: --jobs: \"%s\" is not a number of threads (1..%u)\n",
			s, MAX_JOBS);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/*
 * An error of `--seed N`, `--duration D` or `--cpus N` (a `--set` underneath:
 * "--set:1:COL: KEY: what") names the option the user typed:
 * "etwforge gen: --duration: what". Return: the exit status.
 */
static int shorthand_error(const struct etwforge_error *err, const char *opt)
{
	const char *msg = etwforge_error_message(err);
	const char *what = strstr(msg, ": ");

	if (strncmp(msg, "--set:", 6) != 0 || !what || !(what = strstr(what + 2, ": "))) {
		return cli_error("gen", err);
	}
	fflush(stdout);
	fprintf(stderr, "etwforge gen: %s: %s\n", opt, what + 2);
	return cli_exit_status(err);
}

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"truth", required_argument, NULL, 't'},
		{"truth-spinlocks", required_argument, NULL, 'L'},
		{"seed", required_argument, NULL, 'S'},
		{"duration", required_argument, NULL, 'D'},
		{"cpus", required_argument, NULL, 'C'},
		{"set", required_argument, NULL, 's'},
		{"print-config", no_argument, NULL, 'P'},
		{"json", optional_argument, NULL, 'J'},
		{"jobs", required_argument, NULL, 'j'},
		{"symbols", required_argument, NULL, 'Y'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static char sets[MAX_SETS][512];
	static const char *set_opt[MAX_SETS]; /* "--seed", ...; NULL: --set itself */
	ETWFORGE_OPTS(etwforge_run_opts, o);
	ETWFORGE_OPTS(etwforge_totals, t);
	struct etwforge_scenario *sc;
	struct etwforge_summary *sum;
	struct etwforge_error *err = cli_err();
	bool print_config = false, json = false, quiet = false, tty;
	unsigned nsets = 0;
	int c, rc;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	o.jobs = default_jobs();
	while ((c = getopt_long(argc, argv, ":o:t:s:j:qh", longopts, NULL)) != -1) {
		const char *fmt = NULL, *opt = NULL;

		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 't':
			o.truth = optarg;
			break;
		case 'L':
			if (strcmp(optarg, "all") && strcmp(optarg, "logged")) {
				fprintf(stderr,
					"etwforge gen: --truth-spinlocks: \"%s\" is neither all "
					"nor "
					"logged\n",
					optarg);
				return EXIT_USAGE;
			}
			o.truth_logged_spinlocks = !strcmp(optarg, "logged");
			break;
		case 'S':
			fmt = "seed=%s";
			opt = "--seed";
			break;
		case 'D':
			fmt = "duration=%s";
			opt = "--duration";
			break;
		case 'C':
			fmt = "machine.cpus=%s";
			opt = "--cpus";
			break;
		case 's':
			fmt = "%s";
			break;
		case 'P':
			print_config = true;
			break;
		case 'J':
			json = true;
			o.json = optarg ? optarg : "-";
			break;
		case 'j':
			if (parse_jobs(optarg, &o.jobs) < 0) {
				return EXIT_USAGE;
			}
			break;
		case 'Y':
			o.symbols = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("gen", c, argv);
		}
		if (fmt) {
			if (nsets == MAX_SETS) {
				fprintf(stderr, "etwforge gen: too many --set options\n");
				return EXIT_USAGE;
			}
			set_opt[nsets] = opt;
			snprintf(sets[nsets++], sizeof(sets[0]), fmt, optarg);
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "etwforge gen: one SCENARIO at most (try --help)\n");
		return EXIT_USAGE;
	}
	sc = etwforge_scenario_new();
	if (!sc) {
		perror("etwforge gen");
		return EXIT_DATA;
	}
	rc = optind < argc ? etwforge_scenario_load_file(sc, argv[optind], err) : 0;
	for (unsigned i = 0; rc == 0 && i < nsets; i++) {
		rc = etwforge_scenario_set(sc, sets[i], err);
		if (rc < 0 && set_opt[i]) {
			etwforge_scenario_free(sc);
			return shorthand_error(err, set_opt[i]);
		}
	}
	for (unsigned i = 0; rc == 0; i++) {
		const char *w = etwforge_scenario_warning(sc, i);

		if (!w) {
			break;
		}
		fprintf(stderr, "etwforge gen: warning: %s\n", w); /* said even with -q */
	}
	if (rc == 0 && print_config) {
		rc = etwforge_scenario_print(sc, stdout, err);
		etwforge_scenario_free(sc);
		if (rc < 0 && cli_exit_status(err) == EXIT_DATA) {
			return EXIT_STDOUT_FAILED; /* said once, as for every command */
		}
		return rc < 0 ? cli_error("gen", err) : EXIT_OK;
	}
	if (rc < 0) {
		etwforge_scenario_free(sc);
		return cli_error("gen", err);
	}
	sum = etwforge_summary_new();
	if (!sum) {
		etwforge_scenario_free(sc);
		perror("etwforge gen");
		return EXIT_DATA;
	}
	tty = !quiet && isatty(STDERR_FILENO);
	o.progress = tty ? progress : NULL;
	o.notes = quiet ? NULL : stderr;
	rc = etwforge_generate(sc, &o, sum, err);
	etwforge_scenario_free(sc);
	if (tty) {
		fputc('\n', stderr);
	}
	if (rc < 0) {
		etwforge_summary_free(sum);
		return cli_error("gen", err);
	}
	if (!quiet && !json) {
		etwforge_summary_totals(sum, &t, NULL);
		fprintf(stderr,
			"simulated           %.3f s on %u CPUs (seed %" PRIu64 "), %.2f s wall\n",
			(double)t.duration_ns / 1e9, t.cpus, t.seed, t.wall_seconds);
		etwforge_summary_print(stderr, sum, false);
	}
	etwforge_summary_free(sum);
	return EXIT_OK;
}
