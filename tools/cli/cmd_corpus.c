// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_corpus.c - `etwforge corpus --out DIR [--seed N] [--mangle]
 * [--mutants N [--shard K/M]] [--zip NAME]`: the options and the summary; the corpus is the library's
 * etwforge_corpus_write().
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge corpus --out DIR [--seed N] [--mangle | --mutants N [--shard "
		"K/M]]\n"
		"                       [--zip NAME] [-q]\n"
		"\n"
		"Write a fuzzing corpus for ETL parsers into DIR (made if missing): one small\n"
		"valid ETL file per named edge case of the kernel logger's producer (every\n"
		"flush condition below, at and above its boundary, every compact record form\n"
		"boundary, OldThreadStateWr under each target, quirks on and off, three clocks,\n"
		"PMC/PEBS items, x86/x64, spin-lock sampling thresholds, depths and the\n"
		"configuration rundown, a buffer filled to its last byte, lost events, 1 and\n"
		"64 CPUs, logfile header variants, XPRESS-compressed buffers), each built by\n"
		"replaying a truth stream through the engine. Beside each ID.etl:\n"
		"ID.truth.jsonl (its stream: `etwforge verify ID.etl --truth ID.truth.jsonl`\n"
		"passes) and ID.expected.jsonl (what `etwforge dump --jsonl ID.etl` prints, run\n"
		"in DIR). Also MANIFEST.jsonl (one JSON object per file: id, description, seed,\n"
		"tool version, xxh3-64, offsets of the records that matter) and etl.dict (an\n"
		"AFL++/libFuzzer dictionary).\n"
		"\n"
		"  -o, --out DIR     the folder to write\n"
		"  -s, --seed N      what the edge cases leave free (thread ids, priorities,\n"
		"                    counters, addresses) comes from N, 1..2^63-1 (default\n"
		"                    1); the same seed gives the same files\n"
		"  -m, --mangle      the broken-file set instead: each file a valid one with\n"
		"                    exactly one invariant of the framing or a payload broken,\n"
		"                    and in the manifest what `etwforge dump` reports for it\n"
		"                    (exit status, error class, offset, message)\n"
		"  -n, --mutants N   N structure-aware mutants of the catalogue instead\n"
		"                    (1..1000000): mutant-NNNNNN.etl, each a catalogue file\n"
		"                    changed by the mutator of the AFL++/libFuzzer plug-in,\n"
		"                    and one MANIFEST.jsonl line per mutant (its base, what\n"
		"                    changed, xxh3-64). Mutant i depends only on the seed\n"
		"                    and i; one run writes at most 2000 of them\n"
		"  -S, --shard K/M   with --mutants: only the mutants i with i %% M == K-1\n"
		"                    (K from 1 to M), so M machines write disjoint parts\n"
		"                    whose union is, byte for byte, the run without --shard\n"
		"                    (a shard with no mutant writes nothing and says so)\n"
		"  -z, --zip NAME    also NAME_seed_corpus.zip (the ETL files) and NAME.dict,\n"
		"                    as OSS-Fuzz expects them beside a fuzzer named NAME\n"
		"  -q, --quiet       no summary\n"
		"  -h, --help        this text\n"
		"\n"
		"Every file follows the output rules: nothing is in place until all is\n"
		"written, and a failure or a signal leaves DIR as it was.\n"
		"Exit status: 0 written, 1 write error, 2 bad usage.\n");
}

/* A decimal number 0..2^64-1 (no sign, no trailing text). */
static int number_arg(const char *s, uint64_t *v)
{
	char *end = NULL;

	if (!s[0] || s[0] < '0' || s[0] > '9') {
		return -1;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || !end || *end ? -1 : 0;
}

/* "K/M", 1 <= K <= M: @shard = K - 1 (0-based), @shards = M. */
static int shard_arg(const char *s, uint64_t *shard, uint64_t *shards)
{
	const char *slash = strchr(s, '/');
	char k[32];
	uint64_t kv, mv;

	if (!slash || (size_t)(slash - s) >= sizeof(k)) {
		return -1;
	}
	memcpy(k, s, (size_t)(slash - s));
	k[slash - s] = '\0';
	if (number_arg(k, &kv) < 0 || number_arg(slash + 1, &mv) < 0 || kv == 0 || mv == 0 ||
	    kv > mv) {
		return -1;
	}
	*shard = kv - 1;
	*shards = mv;
	return 0;
}

int cmd_corpus(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"out", required_argument, NULL, 'o'},
		{"seed", required_argument, NULL, 's'},
		{"mangle", no_argument, NULL, 'm'},
		{"mutants", required_argument, NULL, 'n'},
		{"shard", required_argument, NULL, 'S'},
		{"zip", required_argument, NULL, 'z'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	ETWFORGE_OPTS(etwforge_corpus_opts, o);
	ETWFORGE_OPTS(etwforge_corpus_summary, sum);
	struct etwforge_error *err = cli_err();
	const char *dir = NULL;
	bool quiet = false, sharded = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:s:mn:S:z:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 's': {
			char *end = NULL;

			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || !end || *end || optarg[0] == '-' || !optarg[0] ||
			    o.seed == 0 || o.seed > (uint64_t)INT64_MAX) {
				fprintf(stderr,
					"etwforge corpus: --seed: '%s' is not a number "
					"1..9223372036854775807 (2^63-1)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'm':
			o.mangle = true;
			break;
		case 'n':
			if (number_arg(optarg, &o.mutants) < 0 || o.mutants == 0 ||
			    o.mutants > 1000000) {
				fprintf(stderr,
					"etwforge corpus: --mutants: '%s' is not a number "
					"1..1000000\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'S':
			if (shard_arg(optarg, &o.shard, &o.shards) < 0) {
				fprintf(stderr,
					"etwforge corpus: --shard: '%s' is not K/M with 1 <= K <= "
					"M\n",
					optarg);
				return EXIT_USAGE;
			}
			sharded = true;
			break;
		case 'z':
			o.zip_name = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_option_error("corpus", c, argv);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "etwforge corpus: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (sharded && !o.mutants) {
		fprintf(stderr, "etwforge corpus: --shard K/M: only with --mutants N\n");
		return EXIT_USAGE;
	}
	if (o.mutants && o.mangle) {
		fprintf(stderr, "etwforge corpus: --mutants and --mangle: one corpus at a time\n");
		return EXIT_USAGE;
	}
	if (!dir) {
		fprintf(stderr, "etwforge corpus: give the folder to write with --out DIR (try "
				"--help)\n");
		return EXIT_USAGE;
	}
	if (etwforge_corpus_write(dir, &o, &sum, err) < 0) {
		return cli_error("corpus", err);
	}
	if (!quiet && o.mutants && !sum.outputs) {
		fprintf(stderr,
			"etwforge corpus: shard %" PRIu64 "/%" PRIu64 " of %" PRIu64
			" mutants is empty (no mutant i < %" PRIu64 " has i %% %" PRIu64
			" == %" PRIu64 "): nothing written\n",
			o.shard + 1, o.shards, o.mutants, o.mutants, o.shards, o.shard);
		return EXIT_OK;
	}
	if (!quiet) {
		fprintf(stderr,
			"etwforge corpus: %u %s ETL files (%" PRIu64
			" bytes), %u files in all, in %s",
			sum.files,
			o.mutants  ? "mutant"
			: o.mangle ? "mangled"
				   : "valid",
			sum.bytes, sum.outputs, dir);
		if (sum.pending) {
			fprintf(stderr, "; %u catalogue entr%s pending (see MANIFEST.jsonl)",
				sum.pending, sum.pending == 1 ? "y" : "ies");
		}
		fputc('\n', stderr);
	}
	return EXIT_OK;
}
