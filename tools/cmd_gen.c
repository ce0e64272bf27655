// SPDX-License-Identifier: MIT
/*
 * tools/cmd_gen.c - `etwforge gen [SCENARIO] -o OUT.etl`: simulate the
 * machine of a scenario and write one ETL file per session (and, with
 * --truth, every record the logging code consumed).
 *
 *   scenario (YAML/JSON) + --set ... -> struct scenario
 *   scheduler_model --sim_cswitch--> tee --> truth writer (optional)
 *                                        \-> producer -> writers -> .etl
 *
 * Streaming: the scheduler runs in slices of simulated time, so memory is
 * bounded whatever the duration; a progress line goes to stderr when it
 * is a terminal. Outputs appear only when the run succeeded.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scheduler_model/sched.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/lib/run_report.h"
#include "tools/lib/scenario.h"
#include "tools/lib/session_run.h"
#include "tools/lib/truth.h"

/* Feeds the truth writer (if any) and the producer; holds the end record back. */
struct gen_tee {
	struct trace_sink truth;
	bool have_truth;
	struct trace_sink prod;
	struct sim_end end;
	bool ended;
};

static int tee_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->cswitch(t->truth.ctx, cs)) < 0) {
		return rc;
	}
	return t->prod.ops->cswitch(t->prod.ctx, cs);
}

static int tee_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->spinlock(t->truth.ctx, sl)) < 0) {
		return rc;
	}
	return t->prod.ops->spinlock(t->prod.ctx, sl);
}

static int tee_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->ccswap_stop(t->truth.ctx, st)) < 0) {
		return rc;
	}
	return t->prod.ops->ccswap_stop(t->prod.ctx, st);
}

/* The end goes to session_run_finish(), which flushes and closes the files. */
static int tee_end(void *ctx, const struct sim_end *end)
{
	struct gen_tee *t = ctx;

	t->end = *end;
	t->ended = true;
	if (t->have_truth) {
		return t->truth.ops->end(t->truth.ctx, end);
	}
	return 0;
}

static const struct trace_sink_ops tee_ops = {
	.cswitch = tee_cswitch,
	.spinlock = tee_spinlock,
	.ccswap_stop = tee_stop,
	.end = tee_end,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge gen [SCENARIO] -o OUT.etl [--truth T.jsonl] [options]\n"
		"\n"
		"Simulate the machine of SCENARIO (YAML or JSON, '-' = stdin; none = the built-in default:\n"
		"8 CPUs, 2 s, a compact QPC session and a plain CSwitch session) and write one\n"
		"ETL file per session.\n"
		"\n"
		"  -o, --output FILE     the first session's ETL file ('-' = stdout); other\n"
		"                        sessions use their scenario \"file\", or OUT-N.etl\n"
		"                        (when FILE is not a regular file, such as /dev/null,\n"
		"                        a session without a file of its own is discarded)\n"
		"  -t, --truth FILE      also write the ground truth (JSON Lines, DESIGN.md)\n"
		"      --seed N          same as --set seed=N\n"
		"      --duration D      same as --set duration=D (e.g. 2s, 500ms)\n"
		"      --cpus N          same as --set machine.cpus=N\n"
		"  -s, --set KEY=VALUE   override any scenario key (e.g. sessions.0.clock=cycles,\n"
		"                        threads.1.count=40); repeatable, applied in order\n"
		"      --print-config    print the effective scenario as YAML and exit\n"
		"      --json[=FILE]     the final summary as one JSON object on stdout (or\n"
		"                        in FILE) instead of text on stderr\n"
		"  -q, --quiet           no progress line, no summary\n"
		"  -h, --help            this text\n"
		"\n"
		"The summary gives switches, batches by flush reason, bytes per switch, events\n"
		"lost and the xxh3-64 of each output file. Same scenario and seed, same bytes.\n"
		"Outputs appear only when the whole run succeeded; two outputs naming the same\n"
		"file are refused. Exit status: 0 written, 1 write error, 2 bad usage or bad\n"
		"scenario, 128+N ended by signal N (every target left as it was).\n");
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t bytes_so_far(const struct session_run *run, unsigned n)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < n; i++) {
		struct writer_stats ws;

		writer_get_stats(run->writers[i], &ws);
		b += ws.bytes_written;
	}
	return b;
}

static void progress(const struct sched *s, const struct session_run *run, unsigned n,
		     uint64_t duration, double t0)
{
	struct sched_stats st;
	double el = wall_now() - t0;

	sched_get_stats(s, &st);
	double frac = duration ? (double)st.now_ns / (double)duration : 1.0;
	double eta = frac > 0 ? el / frac - el : 0;
	fprintf(stderr, "\r%8.3f s simulated  %10" PRIu64 " switches  %8.1f MB  ETA %5.1f s ",
		(double)st.now_ns / 1e9, st.switches, (double)bytes_so_far(run, n) / 1e6, eta);
	fflush(stderr);
}

#define MAX_SETS 256

/*
 * Output names: -o for the first session; a session without a file of its
 * own gets OUT-N.etl when -o is a regular file (or a new path), and is
 * discarded (/dev/null) when -o is standard output, a device or a FIFO:
 * a name is never derived from those.
 */
static void name_outputs(struct trace_config *tc, const char *out, const char **labels,
			 bool quiet)
{
	const char *first;
	size_t len;

	if (out) {
		snprintf(tc->sessions[0].file, sizeof(tc->sessions[0].file), "%s", out);
		labels[0] = "-o";
	}
	first = tc->sessions[0].file;
	len = strlen(first);
	if (len > 4 && !strcmp(first + len - 4, ".etl")) {
		len -= 4;
	}
	for (unsigned i = 1; i < tc->nsessions; i++) {
		if (tc->sessions[i].file[0]) {
			continue;
		}
		if (out_is_regular_target(first)) {
			snprintf(tc->sessions[i].file, sizeof(tc->sessions[i].file), "%.*s-%u.etl",
				 (int)len, first, i + 1);
			labels[i] = "the derived name";
		} else {
			snprintf(tc->sessions[i].file, sizeof(tc->sessions[i].file), "/dev/null");
			labels[i] = "the discarded session";
			if (!quiet) {
				fprintf(stderr,
					"etwforge gen: session '%s' has no file of its own and -o %s is "
					"not a regular file: discarded (name it with sessions.%u.file)\n",
					tc->sessions[i].name, first, i);
			}
		}
	}
}

#define MAX_SETS 256

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"truth", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 'S'},
		{"duration", required_argument, NULL, 'D'},
		{"cpus", required_argument, NULL, 'C'},
		{"set", required_argument, NULL, 's'},
		{"print-config", no_argument, NULL, 'P'},
		{"json", optional_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct scenario sc;
	static char sets[MAX_SETS][512];
	const char *labels[SIM_MAX_SESSIONS] = {NULL};
	unsigned nsets = 0;
	const char *out = NULL, *truth_path = NULL, *json_path = NULL;
	bool print_config = false, json = false, quiet = false;
	struct truth_writer tw;
	struct session_run run;
	struct gen_tee tee = {0};
	struct sched *s = NULL;
	FILE *truth_f = NULL, *json_f = NULL;
	char err[1024];
	int c, rc, truth_i = -1, json_i = -1, status = EXIT_DATA;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":o:t:s:qh", longopts, NULL)) != -1) {
		const char *fmt = NULL;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			truth_path = optarg;
			break;
		case 'S':
			fmt = "seed=%s";
			break;
		case 'D':
			fmt = "duration=%s";
			break;
		case 'C':
			fmt = "machine.cpus=%s";
			break;
		case 's':
			fmt = "%s";
			break;
		case 'P':
			print_config = true;
			break;
		case 'j':
			json = true;
			json_path = optarg;
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
			snprintf(sets[nsets++], sizeof(sets[0]), fmt, optarg);
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "etwforge gen: one SCENARIO at most (try --help)\n");
		return EXIT_USAGE;
	}
	scenario_default(&sc);
	if (optind < argc && scenario_load_file(&sc, argv[optind], err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	for (unsigned i = 0; i < nsets; i++) {
		if (scenario_set(&sc, sets[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return EXIT_USAGE;
		}
	}
	if (scenario_finish(&sc, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	if (print_config) {
		scenario_print(stdout, &sc);
		return EXIT_OK;
	}

	struct trace_config *tc = &sc.trace;
	if (!out && !tc->sessions[0].file[0]) {
		fprintf(stderr, "etwforge gen: no output: give -o OUT.etl\n");
		return EXIT_USAGE;
	}
	name_outputs(tc, out, labels, quiet);
	const char *why = NULL;
	if (trace_config_check(tc, &why) < 0) {
		fprintf(stderr, "etwforge gen: %s\n", why);
		return EXIT_USAGE;
	}
	uint32_t tick0;
	sched_clocks_at(&sc.sched, 0, tc->start_ts, &tick0);
	tc->have_start_ts = true;

	/* every output of the run, checked against each other before any is made */
	rc = session_run_plan(&run, tc, labels, err, sizeof(err));
	if (rc >= 0 && truth_path) {
		rc = truth_i = out_set_add(&run.outs, truth_path, "--truth", err, sizeof(err));
	}
	if (rc >= 0 && json) {
		rc = json_i = out_set_add(&run.outs, json_path ? json_path : "-",
					  "--json", err,
					  sizeof(err));
	}
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s\n", err);
		session_run_close(&run);
		return EXIT_USAGE;
	}
	rc = session_run_open(&run, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s\n", err);
		session_run_close(&run);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_DATA;
	}
	if (truth_i >= 0) {
		truth_f = out_file_stream(out_set_file(&run.outs, (unsigned)truth_i));
		if (!truth_f || truth_write_meta(truth_f, tc) < 0) {
			fprintf(stderr, "etwforge gen: %s: write failed\n", truth_path);
			goto fail;
		}
		tw.f = truth_f;
		tw.cfg = tc;
		tee.truth = truth_sink(&tw);
		tee.have_truth = true;
	}
	if (json_i >= 0) {
		json_f = out_file_stream(out_set_file(&run.outs, (unsigned)json_i));
		if (!json_f) {
			fprintf(stderr, "etwforge gen: %s: %s\n", json_path ? json_path : "stdout",
				strerror(errno));
			goto fail;
		}
	}
	tee.prod = session_run_sink(&run);
	struct trace_sink sink = {&tee_ops, &tee};
	s = sched_create(&sc.sched, sink);
	if (!s) {
		int e = errno;

		fprintf(stderr, "etwforge gen: cannot build the machine: %s\n", strerror(e));
		status = e == EINVAL ? EXIT_USAGE : EXIT_DATA;
		goto fail;
	}

	bool tty = !quiet && isatty(STDERR_FILENO);
	double t0 = wall_now(), last = t0;
	uint64_t slice = 10000000; /* 10 ms of simulated time per step */
	uint64_t t = 0;
	for (;;) {
		t += slice;
		rc = sched_run_until(s, t);
		if (rc < 0) {
			if (rc == -EIO && truth_f && ferror(truth_f)) {
				snprintf(err, sizeof(err), "%s: write failed: %s", truth_path,
					 strerror(errno ? errno : EIO));
			} else {
				session_run_error(&run, rc, err, sizeof(err));
			}
			if (tty) {
				fputc('\n', stderr);
			}
			fprintf(stderr, "etwforge gen: %s\n", err);
			goto fail;
		}
		if (tty && wall_now() - last > 0.2) {
			last = wall_now();
			progress(s, &run, tc->nsessions, sc.sched.duration_ns, t0);
		}
		if (rc == 1) {
			break;
		}
	}
	if (tty) {
		progress(s, &run, tc->nsessions, sc.sched.duration_ns, t0);
		fputc('\n', stderr);
	}
	if (!tee.ended) {
		fprintf(stderr, "etwforge gen: the simulation ended without an end record\n");
		goto fail;
	}
	rc = session_run_finish(&run, &tee.end, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s\n", err);
		goto fail;
	}
	double wall = wall_now() - t0;
	if (json_f) {
		run_report_print(json_f, tc, &run, &tee.end, wall, true);
	}
	rc = session_run_commit(&run, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s\n", err);
		goto fail;
	}
	if (!quiet && !json) {
		struct sched_stats st;

		sched_get_stats(s, &st);
		fprintf(stderr, "simulated           %.3f s on %u CPUs (seed %" PRIu64 "), %.2f s wall\n",
			(double)st.now_ns / 1e9, sc.sched.cpus, sc.sched.seed, wall);
		run_report_print(stderr, tc, &run, &tee.end, wall, false);
	}
	status = EXIT_OK;
	sched_destroy(s);
	session_run_close(&run);
	return status;

fail:
	sched_destroy(s);
	session_run_close(&run);
	return status;
}
