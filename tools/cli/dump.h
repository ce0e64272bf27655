/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump.h - the parts of `etwforge dump` that live in files of their own.
 */
#ifndef TOOLS_DUMP_H
#define TOOLS_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "draw.h"
#include "etwforge/etwforge.h"

/**
 * dump_stats - `dump --stats`: count @f (etwforge_file_stats()) and print
 * the counts as text, or (@json) as one JSON object; a damaged file as
 * dump_damage.c says (@keep_going: counted past its damage).
 * Return: the exit status.
 */
int dump_stats(struct etwforge_file *f, bool json, bool keep_going);

/**
 * struct draw_opts - what `dump --timeline / --chrome-trace / --flamegraph /
 * --folded` was asked.
 * @input:      the ETL file drawn, as given ("-" = standard input): no
 *              output may be it
 * @timeline:   the SVG file (NULL: none)
 * @chrome:     the Chrome trace-event JSON file (NULL: none)
 * @flamegraph: the flame graph SVG file of the sampled stacks (NULL: none)
 * @folded:     the folded stacks text file (NULL: none)
 * @truth:      the truth stream whose thread groups name the threads (NULL: none)
 * @rq:         the window, the CPUs, whether to draw what is readable of a
 *              damaged file (exit status 1): draw.h
 */
struct draw_opts {
	const char *input;
	const char *timeline;
	const char *chrome;
	const char *flamegraph;
	const char *folded;
	const char *truth;
	struct draw_request rq;
};

/**
 * dump_draw - write the pictures @o asks for of @f (dump_draw.c).
 * Return: the exit status.
 */
int dump_draw(struct etwforge_file *f, const struct draw_opts *o);

/**
 * struct damage_log - the damage of one file, gathered to be said in file
 * order (dump_damage.c): a batch that does not expand is found while
 * reading, after the damage the open found further on may have been; they
 * are sorted by offset before anything is printed. Zero-initialise.
 */
struct damage_log {
	struct damage_line *v;
	size_t n, cap;
	size_t total;	  /* lines added, kept or not */
	unsigned buffers; /* damaged buffers among them */
};

/** damage_add - a reader message `FILE: offset 0x...: what`, and @suffix (NULL: none). */
void damage_add(struct damage_log *l, const char *msg, const char *suffix);

/** damage_add_file - the damage the salvaging open of @f found: one line per buffer. */
void damage_add_file(struct damage_log *l, struct etwforge_file *f, bool keep_going);

/**
 * damage_print - the first line in file order, or (@keep_going) every line
 * and the count of damaged buffers; then empty @l.
 * Return: how many damaged places there were (0: the file is sound).
 */
size_t damage_print(struct damage_log *l, const char *prog, const char *name, bool keep_going);

#endif /* TOOLS_DUMP_H */
