/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/run.h - the three runs of the library: a scenario simulated
 * into ETL files (gen.c), a stream encoded into them (replay.c), a file
 * checked against its truth (verify.c). The options, summary and result
 * are the public ones (include/etwforge/etwforge.h); api_run.c hands them
 * through.
 */
#ifndef ETWFORGE_TOOLS_LIB_RUN_RUN_H
#define ETWFORGE_TOOLS_LIB_RUN_RUN_H

#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/scenario/scenario.h"

/** run_generate - etwforge_generate() of a finished scenario @sc. */
int run_generate(const struct scenario *sc, const struct etwforge_run_opts *opts,
		 struct etwforge_summary *sum, struct etwforge_error *err);

/**
 * run_simulate - the machine of the finished scenario @sc alone, its
 * models attached as gen attaches them, every record into a sink that only
 * counts (the bench: what gen costs before a byte is encoded).
 * Return: 0 with *@switches, or a negative errno.
 */
int run_simulate(const struct scenario *sc, uint64_t *switches);

/** run_replay - etwforge_replay(). */
int run_replay(const char *stream, const struct etwforge_run_opts *opts,
	       struct etwforge_summary *sum, struct etwforge_error *err);

/** struct run_verify_result - what run_verify() checked (the public result's figures). */
struct run_verify_result {
	char session[128];
	uint64_t switches;
	uint64_t plain;
	uint64_t compact;
	uint64_t batches;
	uint64_t spinlocks;
	uint64_t identity;
};

/** run_verify - etwforge_verify(), filling @res (may be NULL). */
int run_verify(const char *etl, const char *truth, const char *session,
	       struct run_verify_result *res, struct etwforge_error *err);

#endif
