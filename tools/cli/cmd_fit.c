// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_fit.c - `etwforge fit REAL.etl -o lookalike.yaml`: the
 * options, the progress line, and writing the scenario the library fits
 * (etwforge_fit_*) where -o says, whole or not at all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "dump.h"

#define PROG "etwforge fit"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge fit TRACE.etl [-o OUT.yaml] [--anonymize[=all]] [--json]\n"
		"                    [--keep-going] [--progress]\n"
		"\n"
		"Write a scenario that `etwforge gen` runs into a trace like TRACE.etl: its\n"
		"machine (CPUs, clocks, target build, architecture, profile interval), its\n"
		"session (what it logged), its processes, a thread group per process (two where\n"
		"some threads ran and others only waited; 64 at most) with the run bursts,\n"
		"waits, their spread over threads and the wait reasons its context switches show\n"
		"(from samples alone: each group's CPU share; from the rundown alone: threads\n"
		"that wait), the images its samples land in with their functions, and each\n"
		"group's hot functions. What the scenario cannot say is named in comments. The\n"
		"file is read once, in full; memory grows with its threads and images, not its\n"
		"length. The same trace gives the same scenario, byte for byte.\n"
		"\n"
		"  -o, --output OUT.yaml  where the scenario goes (default: standard output);\n"
		"                      written whole, or left as it was on an error\n"
		"      --anonymize     no name, command line, path or PDB identity of the trace\n"
		"                      in the scenario: processes, images and thread names become\n"
		"                      pseudonyms (proc1.exe, mod1.dll, thread1), the names every\n"
		"                      Windows machine has kept (System, svchost.exe, ntdll.dll)\n"
		"      --anonymize=all the same, and those renamed too\n"
		"      --json          the scenario as one JSON object (no comments)\n"
		"  -k, --keep-going    read past damage (said once) and fit what is sound\n"
		"      --progress      a progress line on standard error (the default on a\n"
		"                      terminal)\n"
		"  -h, --help          this text\n"
		"\n"
		"Then: etwforge gen OUT.yaml -o lookalike.etl; etwforge compare TRACE.etl\n"
		"lookalike.etl sets the two side by side.\n"
		"\n"
		"Exit status: 0 written, 1 the trace is unreadable, damaged or no kernel trace,\n"
		"or a write failed, 2 bad usage.\n");
}

/* The progress line: "etwforge fit: 42 %" rewritten in place, cleared at the end. */
static void progress(void *ctx, double done)
{
	int *last = ctx;
	int pct = (int)(done * 100);

	if (pct == *last) {
		return;
	}
	*last = pct;
	if (done >= 1.0) {
		fprintf(stderr, "\r%-40s\r", "");
	} else {
		fprintf(stderr, "\r" PROG ": reading the trace, %d %%", pct);
	}
	fflush(stderr);
}

static int write_out(const char *path, const char *input, const char *text, bool newline)
{
	struct etwforge_output *o = etwforge_output_new();
	struct etwforge_error *err = cli_err();
	int i, status = EXIT_OK;
	FILE *f;

	if (!o) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_DATA;
	}
	if (etwforge_output_input(o, input, "the trace", err) < 0 ||
	    (i = etwforge_output_add(o, path, "-o", err)) < 0 || etwforge_output_open(o, err) < 0) {
		status = cli_error("fit", err);
		goto out;
	}
	f = etwforge_output_stream(o, (unsigned)i);
	fputs(text, f);
	if (newline) {
		fputc('\n', f);
	}
	if (etwforge_output_commit(o, err) < 0) {
		status = cli_error("fit", err);
	}
out:
	etwforge_output_free(o); /* removes the temporary unless committed */
	return status;
}

int cmd_fit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"anonymize", optional_argument, NULL, 'A'},
		{"json", no_argument, NULL, 'J'},
		{"keep-going", no_argument, NULL, 'k'},
		{"progress", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct etwforge_error *err = cli_err();
	const char *out = "-", *in;
	unsigned anonymize = ETWFORGE_ANONYMIZE_NONE;
	bool json = false, keep_going = false, show = isatty(STDERR_FILENO) == 1;
	struct etwforge_file *f = NULL;
	struct etwforge_fit *fit = NULL;
	struct damage_log dl = {0};
	int c, status = EXIT_DATA, last = -1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:kh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'A':
			if (!optarg) {
				anonymize = ETWFORGE_ANONYMIZE_NAMES;
			} else if (!strcmp(optarg, "all")) {
				anonymize = ETWFORGE_ANONYMIZE_ALL;
			} else {
				fprintf(stderr,
					PROG
					": --anonymize takes no value or =all, not '%s' (try '" PROG
					" --help')\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'J':
			json = true;
			break;
		case 'k':
			keep_going = true;
			break;
		case 'P':
			show = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("fit", c, argv);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			PROG ": expected one ETL file, TRACE.etl (try '" PROG " --help')\n");
		return EXIT_USAGE;
	}
	in = argv[optind];
	f = etwforge_file_open(
		in, ETWFORGE_OPEN_SALVAGE | (keep_going ? ETWFORGE_OPEN_KEEP_GOING : 0u), err);
	if (!f) {
		return cli_error("fit", err);
	}
	damage_add_file(&dl, f, keep_going);
	if (damage_print(&dl, PROG, etwforge_file_info(f)->name, keep_going) && !keep_going) {
		goto out;
	}
	{
		ETWFORGE_OPTS(etwforge_fit_opts, o, .anonymize = anonymize,
			      .progress = show ? progress : NULL, .progress_ctx = &last);

		fit = etwforge_fit_new(f, &o, err);
	}
	if (!fit) {
		if (show && last >= 0) {
			progress(&last, 1.0);
		}
		status = cli_error("fit", err);
		goto out;
	}
	status = write_out(out, in, json ? etwforge_fit_json(fit) : etwforge_fit_yaml(fit), json);
out:
	etwforge_fit_free(fit);
	etwforge_file_close(f);
	return status;
}
