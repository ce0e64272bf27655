// SPDX-License-Identifier: MIT
/*
 * tools/cmd_replay.c - `etwforge replay STREAM.jsonl -o OUT.etl`: encode a
 * switch/spinlock stream in the truth schema exactly, through the same
 * producer and writer as `gen`. The precise way to build a hand-made edge
 * case. A bad line stops everything: exit 2, no output file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/lib/run_report.h"
#include "tools/lib/session_run.h"
#include "tools/lib/truth.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge replay STREAM.jsonl -o OUT.etl [--json[=FILE]] [-q]\n"
		"\n"
		"Encode a context-switch / spin-lock stream written in the truth schema\n"
		"(DESIGN.md; the format `etwforge gen --truth` writes) into one ETL file per\n"
		"session of its meta line, exactly as the kernel's logging code would.\n"
		"\n"
		"  -o, --output FILE  the first session's ETL file ('-' = stdout); other\n"
		"                     sessions are written to the \"file\" of their meta entry\n"
		"      --json[=FILE]  the final summary as one JSON object on stdout (or in\n"
		"                     FILE) instead of text on stderr\n"
		"  -q, --quiet        no summary\n"
		"  -h, --help         this text\n"
		"\n"
		"STREAM '-' reads standard input. Lines are checked as they come: a malformed\n"
		"line, a value out of range or a CPU whose time goes backwards is reported as\n"
		"`STREAM:LINE: what is wrong` and nothing is written. Switches on a CPU that do\n"
		"not chain (the new thread of one is not the old thread of the next) are\n"
		"written as given, with one warning: the compact format cannot carry them, so\n"
		"`verify` will disagree.\n"
		"Exit status: 0 written, 1 write error, 2 bad usage or bad stream, 128+N ended\n"
		"by signal N (every target left as it was).\n");
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int feed(const struct trace_sink *sink, const struct truth_record *rec)
{
	switch (rec->kind) {
	case TRUTH_CSWITCH:
		return sink->ops->cswitch(sink->ctx, &rec->u.cs);
	case TRUTH_SPINLOCK:
		return sink->ops->spinlock(sink->ctx, &rec->u.sl);
	case TRUTH_CCSWAP_STOP:
		return sink->ops->ccswap_stop(sink->ctx, &rec->u.stop);
	default:
		return 0;
	}
}

/* Clock values of a record, to stand for the session start when the meta line has none. */
static const uint64_t *record_ts(const struct truth_record *rec)
{
	switch (rec->kind) {
	case TRUTH_CSWITCH:
		return rec->u.cs.ts;
	case TRUTH_SPINLOCK:
		return rec->u.sl.ts;
	case TRUTH_CCSWAP_STOP:
		return rec->u.stop.ts;
	default:
		return rec->u.end.ts;
	}
}

/* Per CPU, the thread the previous switch put on it: a stream should chain. */
struct chain_check {
	uint32_t *next_old; /* [cpu]: expected old_tid of the next switch */
	bool *seen;
	unsigned long first_line;
	unsigned long count;
};

static void chain_note(struct chain_check *ch, const struct truth_record *rec)
{
	const struct sim_cswitch *cs = &rec->u.cs;

	if (ch->seen[cs->cpu] && ch->next_old[cs->cpu] != cs->old_tid) {
		if (!ch->count++) {
			ch->first_line = rec->line;
		}
	}
	ch->seen[cs->cpu] = true;
	ch->next_old[cs->cpu] = cs->new_tid;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"json", optional_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct trace_config cfg;
	const char *labels[SIM_MAX_SESSIONS] = {NULL};
	struct session_run run;
	struct truth_record rec, end;
	struct truth_reader *tr;
	struct chain_check ch = {0};
	const char *out = NULL, *json_path = NULL;
	bool json = false, quiet = false, have_end = false;
	FILE *json_f = NULL;
	char err[512];
	int c, rc, kind, json_i = -1, status = EXIT_DATA;
	double t0;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
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
			return cli_option_error("replay", c, argv);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "etwforge replay: expected one STREAM.jsonl (try --help)\n");
		return EXIT_USAGE;
	}
	t0 = wall_seconds();
	tr = truth_open(argv[optind], &cfg, err, sizeof(err));
	if (!tr) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	if (out) {
		snprintf(cfg.sessions[0].file, sizeof(cfg.sessions[0].file), "%s", out);
		labels[0] = "-o";
	} else if (!cfg.sessions[0].file[0]) {
		fprintf(stderr, "etwforge replay: no output: give -o OUT.etl\n");
		truth_close(tr);
		return EXIT_USAGE;
	}
	ch.next_old = calloc(cfg.cpus, sizeof(*ch.next_old));
	ch.seen = calloc(cfg.cpus, sizeof(*ch.seen));
	if (!ch.next_old || !ch.seen) {
		fprintf(stderr, "etwforge replay: out of memory\n");
		goto fail_early;
	}

	/* the first record gives the start clock values when the meta line has none */
	kind = truth_next(tr, &rec, err, sizeof(err));
	if (kind < 0) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_USAGE;
		goto fail_early;
	}
	if (!cfg.have_start_ts && kind != TRUTH_EOF) {
		memcpy(cfg.start_ts, record_ts(&rec), sizeof(cfg.start_ts));
		cfg.have_start_ts = true;
	}
	rc = session_run_plan(&run, &cfg, labels, err, sizeof(err));
	if (rc >= 0 && json) {
		rc = json_i = out_set_add(&run.outs, json_path ? json_path : "-",
					  "--json", err,
					  sizeof(err));
	}
	if (rc >= 0) {
		rc = session_run_open(&run, err, sizeof(err));
	}
	if (rc < 0) {
		fprintf(stderr, "etwforge replay: %s\n", err);
		status = rc == -EINVAL || rc == -EEXIST ? EXIT_USAGE : EXIT_DATA;
		goto fail;
	}
	if (json_i >= 0) {
		json_f = out_file_stream(out_set_file(&run.outs, (unsigned)json_i));
		if (!json_f) {
			fprintf(stderr, "etwforge replay: %s: %s\n", json_path ? json_path : "stdout",
				strerror(errno));
			goto fail;
		}
	}
	struct trace_sink sink = session_run_sink(&run);
	while (kind != TRUTH_EOF) {
		if (kind == TRUTH_END) {
			end = rec;
			have_end = true;
		} else {
			if (kind == TRUTH_CSWITCH) {
				chain_note(&ch, &rec);
			}
			rc = feed(&sink, &rec);
			if (rc < 0) {
				session_run_error(&run, rc, err, sizeof(err));
				fprintf(stderr, "etwforge replay: %s\n", err);
				goto fail;
			}
		}
		kind = truth_next(tr, &rec, err, sizeof(err));
		if (kind < 0) {
			fprintf(stderr, "%s\n", err);
			status = EXIT_USAGE;
			goto fail;
		}
	}
	if (!have_end) {
		/* truth_next synthesizes an end line; this only guards an empty stream */
		memset(&end, 0, sizeof(end));
		memcpy(end.u.end.ts, cfg.start_ts, sizeof(end.u.end.ts));
	}
	if (ch.count) {
		fprintf(stderr,
			"etwforge replay: warning: %s:%lu: %lu switch%s do not chain on their CPU "
			"(the new thread of one is not the old thread of the next); written as "
			"given, but the compact format cannot carry this and verify will disagree\n",
			argv[optind], ch.first_line, ch.count, ch.count == 1 ? "" : "es");
	}
	rc = session_run_finish(&run, &end.u.end, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge replay: %s\n", err);
		goto fail;
	}
	if (json_f) {
		run_report_print(json_f, &cfg, &run, &end.u.end, wall_seconds() - t0, true);
	}
	rc = session_run_commit(&run, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge replay: %s\n", err);
		goto fail;
	}
	if (!quiet && !json) {
		run_report_print(stderr, &cfg, &run, &end.u.end, wall_seconds() - t0, false);
	}
	status = EXIT_OK;
fail:
	session_run_close(&run);
fail_early:
	free(ch.next_old);
	free(ch.seen);
	truth_close(tr);
	return status;
}
