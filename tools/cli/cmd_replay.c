// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_replay.c - `etwforge replay STREAM.jsonl -o OUT.etl`: the options
 * and the summary; the encoding is the library's etwforge_replay().
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge replay STREAM.jsonl -o OUT.etl [--json[=FILE]] [-q]\n"
		"       etwforge replay STREAM.jsonl --stream-paths [-o OUT.etl] ...\n"
		"\n"
		"Encode a context-switch / spin-lock stream written in the truth schema\n"
		"(etwforge-truth(5); the format `etwforge gen --truth` writes) into one ETL\n"
		"file per session of its meta line, exactly as the kernel's logging code\n"
		"would.\n"
		"\n"
		"  -o, --output FILE  the first session's ETL file ('-' = stdout); the\n"
		"                     others follow it: FILE-2.etl, FILE-3.etl, ... Without\n"
		"                     -o each session goes to the \"file\" of its meta entry,\n"
		"                     which must then be a plain name (no '/', not '..'):\n"
		"                     it is written in the current folder\n"
		"      --stream-paths\n"
		"                     write each session where its meta entry's \"file\"\n"
		"                     says, any path (a stream is data that travels: it\n"
		"                     chooses no place to write unless told so); -o then\n"
		"                     names the first, and a name gen derived (OUT-2.etl)\n"
		"                     or none follows it\n"
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
		"`verify` will disagree. An output naming the stream (or two naming one file)\n"
		"is refused before anything is written. An ETL file written in place ('-', a\n"
		"FIFO, a pipe, a device) is spooled until the end in $TMPDIR (else /tmp), as\n"
		"large as the file; /dev/null takes nothing (counted, not written).\n"
		"Exit status: 0 written, 1 write error, 2 bad usage or bad stream, 128+N ended\n"
		"by signal N (every target left as it was).\n");
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"json", optional_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},	  {"stream-paths", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	ETWFORGE_OPTS(etwforge_run_opts, o);
	struct etwforge_summary *sum;
	struct etwforge_error *err = cli_err();
	bool quiet = false;
	int c;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'j':
			o.json = optarg ? optarg : "-";
			break;
		case 'q':
			quiet = true;
			break;
		case 'P':
			o.stream_paths = true;
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
	o.notes = stderr; /* the chain warning is said even with -q */
	sum = etwforge_summary_new();
	if (!sum) {
		perror("etwforge replay");
		return EXIT_DATA;
	}
	if (etwforge_replay(argv[optind], &o, sum, err) < 0) {
		etwforge_summary_free(sum);
		return cli_error("replay", err);
	}
	if (!quiet && !o.json) {
		etwforge_summary_print(stderr, sum, false);
	}
	etwforge_summary_free(sum);
	return EXIT_OK;
}
