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
#include "tools/run_report.h"
#include "tools/scenario.h"
#include "tools/session_run.h"
#include "tools/truth.h"

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
		"Simulate the machine of SCENARIO (YAML or JSON; none = the built-in default:\n"
		"8 CPUs, 2 s, a compact QPC session and a plain CSwitch session) and write one\n"
		"ETL file per session.\n"
		"\n"
		"  -o, --output FILE     the first session's ETL file ('-' = stdout); other\n"
		"                        sessions use their scenario \"file\", or OUT-N.etl\n"
		"  -t, --truth FILE      also write the ground truth (JSON Lines, DESIGN.md)\n"
		"      --seed N          same as --set seed=N\n"
		"      --duration D      same as --set duration=D (e.g. 2s, 500ms)\n"
		"      --cpus N          same as --set machine.cpus=N\n"
		"  -s, --set KEY=VALUE   override any scenario key (e.g. sessions.0.clock=cycles,\n"
		"                        threads.1.count=40); repeatable, applied in order\n"
		"      --print-config    print the effective scenario as YAML and exit\n"
		"      --json            print the final summary as one JSON object\n"
		"  -q, --quiet           no progress line, no summary\n"
		"  -h, --help            this text\n"
		"\n"
		"The summary (stderr) gives switches, batches by flush reason, bytes per switch,\n"
		"events lost and the xxh3-64 of each output file. Same scenario and seed, same\n"
		"bytes. Exit status: 0 written, 1 write error, 2 bad usage or bad scenario.\n");
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

/* Temporary truth file beside @path, renamed when the run succeeded. */
struct truth_out {
	char tmp[TRACE_PATH_MAX + 16];
	const char *path;
	FILE *f;
};

static int truth_out_open(struct truth_out *o, const char *path)
{
	int fd;

	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->tmp[0] = 0;
		return 0;
	}
	snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		return -errno;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		return -e;
	}
	return 0;
}

static int truth_out_commit(struct truth_out *o)
{
	if (!o->f) {
		return 0;
	}
	if (o->f == stdout) {
		return fflush(stdout) ? -errno : 0;
	}
	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f))) {
		return -EIO;
	}
	mode_t mask = umask(0);

	umask(mask);
	fchmod(fileno(o->f), 0666 & ~mask);
	if (fclose(o->f)) {
		o->f = NULL;
		return -EIO;
	}
	o->f = NULL;
	if (rename(o->tmp, o->path)) {
		return -errno;
	}
	return 0;
}

static void truth_out_abort(struct truth_out *o)
{
	if (o->f && o->f != stdout) {
		fclose(o->f);
		unlink(o->tmp);
	}
	o->f = NULL;
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
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct scenario sc;
	static char sets[MAX_SETS][512];
	unsigned nsets = 0;
	const char *out = NULL, *truth_path = NULL;
	bool print_config = false, json = false, quiet = false;
	struct truth_out tout = {0};
	struct truth_writer tw;
	struct session_run run;
	struct gen_tee tee = {0};
	struct sched *s = NULL;
	char err[1024];
	int c, rc, status = EXIT_DATA;

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

	/* output names: -o for the first session, OUT-N.etl for unnamed others */
	struct trace_config *tc = &sc.trace;
	if (out) {
		snprintf(tc->sessions[0].file, sizeof(tc->sessions[0].file), "%s", out);
	}
	if (!tc->sessions[0].file[0]) {
		fprintf(stderr, "etwforge gen: no output: give -o OUT.etl\n");
		return EXIT_USAGE;
	}
	for (unsigned i = 1; i < tc->nsessions; i++) {
		const char *first = tc->sessions[0].file;
		size_t len = strlen(first);

		if (tc->sessions[i].file[0]) {
			continue;
		}
		if (!strcmp(first, "-")) {
			fprintf(stderr, "etwforge gen: with -o -, name the files of the other "
					"sessions in the scenario (sessions.%u.file)\n",
				i);
			return EXIT_USAGE;
		}
		if (len > 4 && !strcmp(first + len - 4, ".etl")) {
			len -= 4;
		}
		snprintf(tc->sessions[i].file, sizeof(tc->sessions[i].file), "%.*s-%u.etl",
			 (int)len, first, i + 1);
	}
	const char *why = NULL;
	if (trace_config_check(tc, &why) < 0) {
		fprintf(stderr, "etwforge gen: %s\n", why);
		return EXIT_USAGE;
	}
	uint32_t tick0;
	sched_clocks_at(&sc.sched, 0, tc->start_ts, &tick0);
	tc->have_start_ts = true;

	if (truth_path) {
		rc = truth_out_open(&tout, truth_path);
		if (rc < 0) {
			fprintf(stderr, "etwforge gen: %s: %s\n", truth_path, strerror(-rc));
			return EXIT_DATA;
		}
		if (truth_write_meta(tout.f, tc) < 0) {
			fprintf(stderr, "etwforge gen: %s: write failed\n", truth_path);
			truth_out_abort(&tout);
			return EXIT_DATA;
		}
		tw.f = tout.f;
		tw.cfg = tc;
		tee.truth = truth_sink(&tw);
		tee.have_truth = true;
	}
	rc = session_run_open(&run, tc, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s\n", err);
		truth_out_abort(&tout);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_DATA;
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
			if (rc == -EIO && tee.have_truth && ferror(tout.f)) {
				snprintf(err, sizeof(err), "%s: write failed", truth_path);
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
	rc = truth_out_commit(&tout);
	if (rc < 0) {
		fprintf(stderr, "etwforge gen: %s: write failed: %s\n", truth_path, strerror(-rc));
		/* the ETL files are complete but their truth is not: take them back */
		session_run_discard(&run, tc->nsessions);
		goto fail;
	}
	if (!quiet) {
		struct sched_stats st;

		sched_get_stats(s, &st);
		if (!json) {
			fprintf(stderr, "simulated           %.3f s on %u CPUs (seed %" PRIu64 "), %.2f s wall\n",
				(double)st.now_ns / 1e9, sc.sched.cpus, sc.sched.seed,
				wall_now() - t0);
		}
		run_report_print(stderr, tc, &run, json);
	}
	status = EXIT_OK;
	sched_destroy(s);
	session_run_close(&run);
	return status;

fail:
	sched_destroy(s);
	session_run_close(&run);
	truth_out_abort(&tout);
	return status;
}
