// SPDX-License-Identifier: MIT
/*
 * tools/cmd_bench.c - `etwforge bench [--json] [--quick] [--only PATHS]`:
 * the options, a progress line on a terminal, and the results printed; the
 * measuring is the library's bench_run().
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "tools/bench/bench_api.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge bench [--json] [--quick] [--only PATHS]\n"
		"\n"
		"Measure etwforge on this machine. Each figure is the median of 5 runs (--quick:\n"
		"3 smaller ones) with the min and max, beside the machine (CPU, cores, compiler,\n"
		"build flags) and the work measured (seeds, record-form and flush-reason mix,\n"
		"digests of the output), so two runs can be compared. The paths:\n"
		"\n"
		"  ccswap         the compact batching engine alone: ns/switch, switches/s,\n"
		"                 bytes/switch, and the ratio to a memset of the same bytes\n"
		"  cswitch        the plain CSwitch path: no item, 3 PMC counters, PEBS\n"
		"  spinlock       SpinLock 0x0529 events through the producer: ns/event\n"
		"  gen            gen of the default scenario and server64.yaml, truth off and\n"
		"                 on: switches/s, MB/s of ETL, peak RSS (a child process each);\n"
		"                 desktop.yaml without and with loader and stacks, and\n"
		"                 those stacks cached beside plain\n"
		"  decode         dump --stats, the event iterator and dump --jsonl's JSON\n"
		"                 lines over a generated file: MB/s and switches/s\n"
		"  replay_verify  replay and verify of a truth of about 1 M switches\n"
		"  mutate         the fuzzing mutator over the corpus catalogue: mutants/s,\n"
		"                 one input many times in a row (an AFL++ stage) and a new\n"
		"                 input at every call\n"
		"\n"
		"      --json        one JSON object with every figure (median, min, max,\n"
		"                    unit), the machine and the work, instead of the table\n"
		"      --quick       fewer and smaller runs, for a smoke test (seconds); the\n"
		"                    output says the figures are quick ones\n"
		"      --only PATHS  only these paths, comma-separated (e.g. ccswap,gen)\n"
		"  -h, --help        this text\n"
		"\n"
		"Files go in a scratch folder in $TMPDIR (else /tmp), removed at the end, on an\n"
		"error and on SIGINT. The full run takes a few minutes; nothing is asserted\n"
		"about the figures. Exit status: 0 measured, 1 a path failed or wrote other\n"
		"bytes than in its first run, 2 bad usage, 128+N ended by signal N.\n");
}

/* "ccswap,gen" into a mask of BENCH_*. Return: 0, or -1 after a one-line error. */
static int parse_paths(const char *list, unsigned *mask)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		unsigned bit = 0;

		for (unsigned g = 1; g <= BENCH_ALL; g <<= 1) {
			const char *name = bench_group_name(g);

			if (name && strlen(name) == n && !strncmp(p, name, n)) {
				bit = g;
			}
		}
		if (!bit) {
			fprintf(stderr,
				"etwforge bench: --only: unknown path \"%.*s\" (ccswap, cswitch, "
				"spinlock, gen, decode, replay_verify, mutate)\n",
				(int)n, p);
			return -1;
		}
		*mask |= bit;
		if (p[n] == '\0') {
			return 0;
		}
		p += n + 1;
	}
}

/* The progress line on stderr (a terminal only). */
static void progress(void *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, "\r\033[Ketwforge bench: %s", what);
	fflush(stderr);
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"quick", no_argument, NULL, 'Q'},
		{"only", required_argument, NULL, 'O'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct bench_opts o = {0};
	struct bench *b;
	struct etwforge_error *err = cli_err();
	const char *tiny = getenv("ETWFORGE_BENCH_TINY");
	bool json = false, quick = false, tty;
	int c, rc;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'Q':
			quick = true;
			break;
		case 'O':
			if (parse_paths(optarg, &o.groups) < 0) {
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("bench", c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "etwforge bench: no argument expected, got '%s' (try --help)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	/* the test suite's size: --quick with ETWFORGE_BENCH_TINY set (etwforge(1)) */
	if (quick && tiny && *tiny && strcmp(tiny, "0")) {
		o.size = BENCH_TINY;
	} else if (quick) {
		o.size = BENCH_QUICK;
	}
	tty = isatty(STDERR_FILENO);
	o.progress = tty ? progress : NULL;
	rc = bench_run(&o, &b, err);
	if (tty) {
		fputs("\r\033[K", stderr);
	}
	if (rc < 0) {
		return cli_error("bench", err);
	}
	rc = bench_print(stdout, b, json);
	bench_free(b);
	return rc < 0 ? EXIT_DATA : EXIT_OK;
}
