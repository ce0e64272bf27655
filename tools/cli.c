// SPDX-License-Identifier: MIT
/*
 * tools/cli.c - small command-line helpers shared by the subcommands.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

int cli_option_error(const char *cmd, int c, char *const *argv)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':') {
		fprintf(stderr,
			"etwforge %s: option '%s' needs a value (try 'etwforge %s --help')\n", cmd,
			opt, cmd);
	} else {
		fprintf(stderr, "etwforge %s: unknown option '%s' (try 'etwforge %s --help')\n",
			cmd, opt, cmd);
	}
	return EXIT_USAGE;
}

int cli_error(const char *cmd, const struct etwforge_error *err)
{
	fflush(stdout);
	if (err->located) {
		fprintf(stderr, "%s\n", err->msg);
	} else {
		fprintf(stderr, "etwforge %s: %s\n", cmd, err->msg);
	}
	return err->status ? err->status : EXIT_DATA;
}
