// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_verify.c - `etwforge verify FILE.etl --truth T.jsonl`: the
 * options and the summary line; the checking is the library's
 * etwforge_verify().
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge verify FILE.etl --truth T.jsonl [--session NAME] [-q]\n"
		"\n"
		"Check every recoverable field of every event that FILE.etl's session logged\n"
		"against the truth stream (`etwforge gen --truth`, or a replay stream), CPU by\n"
		"CPU: CSwitch 0x0524 and SpinLock 0x0529 field by field with their PEBS/PMC\n"
		"items; compact batches 0x0525 switch by switch (time, old thread, priority,\n"
		"state or wait reason, wait time, record form, new thread = next old thread)\n"
		"and batch by batch (header TS and PMC items of the flushing switch).\n"
		"\n"
		"  -t, --truth FILE    the truth stream (required)\n"
		"  -s, --session NAME  which session of the truth FILE.etl is (default: the one\n"
		"                      whose \"file\" has FILE.etl's name, or the only one)\n"
		"  -q, --quiet         no summary line on success\n"
		"  -h, --help          this text\n"
		"\n"
		"FILE.etl or T.jsonl may be '-', standard input (not both).\n"
		"The first mismatch is reported as `FILE: offset 0x...: what (truth T:LINE)`.\n"
		"Exit status: 0 all events match, 1 mismatch or unreadable file, 2 bad usage or\n"
		"bad truth stream.\n");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"truth", required_argument, NULL, 't'},
		{"session", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *truth = NULL, *session = NULL;
	ETWFORGE_OPTS(etwforge_verify_result, res);
	struct etwforge_error *err = cli_err();
	bool quiet = false;
	int c;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":t:s:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			truth = optarg;
			break;
		case 's':
			session = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("verify", c, argv);
		}
	}
	if (optind + 1 != argc || !truth) {
		fprintf(stderr, "etwforge verify: expected FILE.etl and --truth T.jsonl "
				"(try --help)\n");
		return EXIT_USAGE;
	}
	if (!quiet && etwforge_stdio_closed(STDOUT_FILENO)) {
		fprintf(stderr, "etwforge verify: standard output is closed (-q says nothing)\n");
		return EXIT_DATA;
	}
	if (etwforge_verify(argv[optind], truth, session, &res, err) < 0) {
		return cli_error("verify", err);
	}
	if (!quiet) {
		printf("%s: verified %" PRIu64 " switches (%" PRIu64 " plain, %" PRIu64
		       " compact in %" PRIu64 " batches), %" PRIu64 " spinlock events and %" PRIu64
		       " identity records against %s\n",
		       argv[optind], res.switches, res.plain, res.compact, res.batches,
		       res.spinlocks, res.identity, truth);
	}
	return EXIT_OK;
}
