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
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/run_report.h"
#include "tools/session_run.h"
#include "tools/truth.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge replay STREAM.jsonl -o OUT.etl [--json] [-q]\n"
		"\n"
		"Encode a context-switch / spin-lock stream written in the truth schema\n"
		"(DESIGN.md; the format `etwforge gen --truth` writes) into one ETL file per\n"
		"session of its meta line, exactly as the kernel's logging code would.\n"
		"\n"
		"  -o, --output FILE  the first session's ETL file ('-' = stdout); other\n"
		"                     sessions are written to the \"file\" of their meta entry\n"
		"      --json         print the final summary as one JSON object (stderr)\n"
		"  -q, --quiet        no summary\n"
		"  -h, --help         this text\n"
		"\n"
		"STREAM '-' reads standard input. Lines are checked as they come: a malformed\n"
		"line, a value out of range or a CPU whose time goes backwards is reported as\n"
		"`STREAM:LINE: what is wrong` and nothing is written.\n"
		"Exit status: 0 written, 1 write error, 2 bad usage or bad stream.\n");
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

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct trace_config cfg;
	struct session_run run;
	struct truth_record rec, end;
	struct truth_reader *tr;
	const char *out = NULL;
	bool json = false, quiet = false, have_end = false;
	char err[512];
	int c, rc, kind;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
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
			return cli_option_error("replay", c, argv);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "etwforge replay: expected one STREAM.jsonl (try --help)\n");
		return EXIT_USAGE;
	}
	tr = truth_open(argv[optind], &cfg, err, sizeof(err));
	if (!tr) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	if (out) {
		snprintf(cfg.sessions[0].file, sizeof(cfg.sessions[0].file), "%s", out);
	} else if (!cfg.sessions[0].file[0]) {
		fprintf(stderr, "etwforge replay: no output: give -o OUT.etl\n");
		truth_close(tr);
		return EXIT_USAGE;
	}

	/* the first record gives the start clock values when the meta line has none */
	kind = truth_next(tr, &rec, err, sizeof(err));
	if (kind < 0) {
		fprintf(stderr, "%s\n", err);
		truth_close(tr);
		return EXIT_USAGE;
	}
	if (!cfg.have_start_ts && kind != TRUTH_EOF) {
		memcpy(cfg.start_ts, record_ts(&rec), sizeof(cfg.start_ts));
		cfg.have_start_ts = true;
	}
	rc = session_run_open(&run, &cfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge replay: %s\n", err);
		truth_close(tr);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_DATA;
	}
	struct trace_sink sink = session_run_sink(&run);
	while (kind != TRUTH_EOF) {
		if (kind == TRUTH_END) {
			end = rec;
			have_end = true;
		} else {
			rc = feed(&sink, &rec);
			if (rc < 0) {
				session_run_error(&run, rc, err, sizeof(err));
				fprintf(stderr, "etwforge replay: %s\n", err);
				goto fail_data;
			}
		}
		kind = truth_next(tr, &rec, err, sizeof(err));
		if (kind < 0) {
			fprintf(stderr, "%s\n", err);
			session_run_close(&run);
			truth_close(tr);
			return EXIT_USAGE;
		}
	}
	if (!have_end) {
		/* truth_next synthesizes an end line; this only guards an empty stream */
		memset(&end, 0, sizeof(end));
		memcpy(end.u.end.ts, cfg.start_ts, sizeof(end.u.end.ts));
	}
	rc = session_run_finish(&run, &end.u.end, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "etwforge replay: %s\n", err);
		goto fail_data;
	}
	if (!quiet) {
		run_report_print(stderr, &cfg, &run, json);
	}
	session_run_close(&run);
	truth_close(tr);
	return EXIT_OK;

fail_data:
	session_run_close(&run);
	truth_close(tr);
	return EXIT_DATA;
}
