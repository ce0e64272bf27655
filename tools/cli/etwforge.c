/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/etwforge.c - main(): git-style dispatch to the subcommands.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"gen", cmd_gen, "simulate a machine (YAML scenario) and write one ETL file per session"},
	{"replay", cmd_replay, "encode a switch/spinlock stream (truth schema) into ETL files"},
	{"dump", cmd_dump, "read any ETL file (ours or Windows') and print or draw it"},
	{"verify", cmd_verify, "check an ETL file against its truth stream"},
	{"compare", cmd_compare, "set two traces' traits side by side, with distances and a score"},
	{"fit", cmd_fit, "write a scenario that gen runs into a trace like a given one"},
	{"bench", cmd_bench, "measure the hot paths and the commands on this machine"},
	{"corpus", cmd_corpus, "write a fuzzing corpus: edge cases, broken files, dictionary"},
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: etwforge <command> [options]\n\n"
		"An emulator of the Windows NT Kernel Logger's producer side: it writes\n"
		"byte-exact ETL files (CSwitch 0x0524, compact batches 0x0525, SpinLock 0x0529)\n"
		"and reads them back.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	}
	fprintf(f, "  %-8s %s\n", "help", "the same text as `etwforge <command> --help`");
	fprintf(f, "\noptions:\n"
		   "  -h, --help  this text\n"
		   "  --version   the version of etwforge\n"
		   "\n`etwforge help <command>` or `etwforge <command> --help` describes a "
		   "command;\nthe manuals are etwforge(1), etwforge-scenario(5) and "
		   "etwforge-truth(5).\n"
		   "Exit status: 0 success, 1 bad data, failed check or write error, 2 bad usage,\n"
		   "128+N ended by signal N.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name)) {
			return &commands[i];
		}
	}
	return NULL;
}

/*
 * Standard output is an output too: a write error there is exit 1, not 0.
 * A command that failed otherwise has said why in its one line already
 * (see EXIT_STDOUT_FAILED). Two failures are not errors of ours: the
 * reader of a pipe stopped reading (`dump x.etl | head`: the end by
 * SIGPIPE, as GNU tools), and standard output was closed from the start
 * (said as such, not as a bad descriptor).
 */
static int check_stdout(const char *cmd, int status)
{
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int e = errno ? errno : EIO;

	if (status == EXIT_STDOUT_FAILED || (status == EXIT_OK && failed)) {
		if (cli_stdout_gone()) {
			cli_exit_sigpipe();
		}
		if (etwforge_stdio_closed(STDOUT_FILENO)) {
			fprintf(stderr, "etwforge%s%s: standard output is closed\n", cmd ? " " : "",
				cmd ? cmd : "");
		} else {
			fprintf(stderr, "etwforge%s%s: standard output: write failed: %s\n",
				cmd ? " " : "", cmd ? cmd : "", strerror(e));
		}
		return EXIT_DATA;
	}
	return status;
}

static int run(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return check_stdout(NULL, EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("etwforge %s\n", etwforge_version());
		return check_stdout(NULL, EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) {
		/* `etwforge help CMD` is `etwforge CMD --help` */
		char *help_argv[3] = {argv[2], "--help", NULL};

		if (argc > 3) {
			fprintf(stderr,
				"etwforge help: one command at most (try 'etwforge --help')\n");
			return EXIT_USAGE;
		}
		c = find_command(argv[2]);
		if (!c) {
			fprintf(stderr,
				"etwforge help: unknown command '%s' (try 'etwforge --help')\n",
				argv[2]);
			return EXIT_USAGE;
		}
		return check_stdout(c->name, c->run(2, help_argv));
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "etwforge: unknown command '%s' (try 'etwforge --help')\n",
			argv[1]);
		return EXIT_USAGE;
	}
	return check_stdout(c->name, c->run(argc - 1, argv + 1));
}

int main(int argc, char **argv)
{
	/* first: a closed descriptor 0, 1 or 2 must not be taken by an output */
	etwforge_stdio_guard();
	cli_signals_install();
	return run(argc, argv);
}
