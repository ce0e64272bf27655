// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_compare.c - `etwforge compare A.etl B.etl`: the options, the
 * table of the two traces' traits side by side with a distance each and
 * one score (or that as JSON), and the picture (compare_svg.c). The traits
 * and their distances are the library's (etwforge_traits_*).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare_svg.h"
#include "dump.h"

#define PROG "etwforge compare"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge compare A.etl B.etl [--json] [--svg OUT.svg] [--keep-going]\n"
		"\n"
		"Set the traits of two traces side by side: how a CPU's samples are spaced and\n"
		"whether CPUs sample together, how skewed the sampled addresses are, what the\n"
		"idle thread reports, how many processes and threads the machine has and how\n"
		"their IDs look, how long the rundown takes, how busy each CPU is, how threads\n"
		"leave and come back (wait reasons, wake-up latency and boost, run bursts,\n"
		"waits), whether the clock starts on a round number. Each trait gets a distance\n"
		"in [0, 1] (amounts by their ratio, shares by their difference, distributions\n"
		"by Kolmogorov-Smirnov, mixes by Jensen-Shannon) and the traits both traces\n"
		"show one score, their mean: 0 alike, 1 as far apart as can be. Context (CPUs,\n"
		"length, rates) is shown but not scored. Both files are read once each, in\n"
		"full (their analysis).\n"
		"\n"
		"      --json          one JSON object (etwforge_traits_json()) instead of the\n"
		"                      table: every trait with both values, counts and distance\n"
		"      --svg OUT.svg   also draw the distances and each distribution and mix of\n"
		"                      the two overlaid\n"
		"  -k, --keep-going    read past damage in either file (said once)\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 compared, 1 a file is unreadable or damaged, 2 bad usage.\n");
}

static void print_table(const struct etwforge_traits *a, const struct etwforge_traits *b,
			const char *name_a, const char *name_b)
{
	unsigned compared = 0;
	double score = etwforge_traits_score(a, b, &compared);

	printf("A  %s\nB  %s\n\n", name_a, name_b);
	printf("%-24s %22s %22s %9s\n", "trait", "A", "B", "distance");
	for (size_t i = 0; i < etwforge_traits_count(a); i++) {
		const struct etwforge_trait *x = etwforge_traits_at(a, i),
					    *y = etwforge_traits_at(b, i);
		char va[64], vb[64], dist[16];
		double d;

		compare_value_text(va, sizeof(va), x);
		compare_value_text(vb, sizeof(vb), y);
		if (etwforge_trait_distance(x, y, &d) < 0) {
			snprintf(dist, sizeof(dist), "-");
		} else if (!x->scored) {
			snprintf(dist, sizeof(dist), "(%.3f)", d);
		} else {
			snprintf(dist, sizeof(dist), "%.3f", d);
		}
		printf("%-24s %22s %22s %9s\n", x->name, va, vb, dist);
	}
	printf("\nscore %.3f over the %u traits both show (0 alike, 1 as far apart as can be;\n"
	       "a distance in parentheses is context, not scored)\n",
	       score, compared);
}

static int print_json(const struct etwforge_traits *a, const struct etwforge_traits *b,
		      const char *name_a, const char *name_b)
{
	size_t n = etwforge_traits_json(a, b, name_a, name_b, NULL, 0);
	char *buf = malloc(n + 1);

	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_DATA;
	}
	etwforge_traits_json(a, b, name_a, name_b, buf, n + 1);
	puts(buf);
	free(buf);
	return EXIT_OK;
}

/*
 * The traits of @path: a damaged file is refused, or with @keep_going read
 * past its damage (each place said, as dump says them). Return: them, or
 * NULL with *@status set.
 */
static struct etwforge_traits *read_traits(const char *path, bool keep_going, int *status)
{
	struct etwforge_error *err = cli_err();
	unsigned flags = ETWFORGE_OPEN_SALVAGE | (keep_going ? ETWFORGE_OPEN_KEEP_GOING : 0u);
	struct etwforge_file *f = etwforge_file_open(path, flags, err);
	struct etwforge_traits *t = NULL;
	struct damage_log dl = {0};

	if (!f) {
		*status = cli_error("compare", err);
		return NULL;
	}
	damage_add_file(&dl, f, keep_going);
	if (damage_print(&dl, PROG, etwforge_file_info(f)->name, keep_going) && !keep_going) {
		*status = EXIT_DATA;
	} else if (!(t = etwforge_traits_new(f, err))) {
		*status = cli_error("compare", err);
	}
	etwforge_file_close(f);
	return t;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"svg", required_argument, NULL, 'S'},
		{"keep-going", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct etwforge_traits *a = NULL, *b = NULL;
	const char *svg = NULL;
	bool json = false, keep_going = false;
	int c, status = EXIT_DATA;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":kh", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = true;
			break;
		case 'S':
			svg = optarg;
			break;
		case 'k':
			keep_going = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("compare", c, argv);
		}
	}
	if (optind + 2 != argc) {
		fprintf(stderr,
			PROG ": expected two ETL files, A.etl and B.etl (try '" PROG " --help')\n");
		return EXIT_USAGE;
	}
	if (!(a = read_traits(argv[optind], keep_going, &status)) ||
	    !(b = read_traits(argv[optind + 1], keep_going, &status))) {
		goto out;
	}
	if (svg && (status = compare_svg_write(svg, a, b, argv[optind], argv[optind + 1],
					       argv[optind], argv[optind + 1])) != EXIT_OK) {
		goto out;
	}
	if (json) {
		status = print_json(a, b, argv[optind], argv[optind + 1]);
	} else {
		print_table(a, b, argv[optind], argv[optind + 1]);
		status = EXIT_OK;
	}
out:
	etwforge_traits_free(a);
	etwforge_traits_free(b);
	return status;
}
