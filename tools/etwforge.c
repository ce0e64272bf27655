/* SPDX-License-Identifier: MIT */
/*
 * tools/etwforge.c - main(): git-style dispatch to the subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"gen", cmd_gen, "simulate a machine (YAML scenario) and write one ETL file per session"},
	{"replay", cmd_replay, "encode a switch/spinlock stream (truth schema) into ETL files"},
	{"dump", cmd_dump, "read any ETL file (ours or Windows') and print it"},
	{"verify", cmd_verify, "check an ETL file against its truth stream"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: etwforge <command> [options]\n\n"
		   "An emulator of the Windows NT Kernel Logger's producer side: it writes\n"
		   "byte-exact ETL files (CSwitch 0x0524, compact batches 0x0525, SpinLock 0x0529)\n"
		   "and reads them back.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	}
	fprintf(f, "\n`etwforge <command> --help` describes a command.\n"
		   "Exit status: 0 success, 1 bad data or failed check, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("etwforge 0.1.0\n");
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "etwforge: unknown command '%s' (try 'etwforge --help')\n", argv[1]);
	return EXIT_USAGE;
}
