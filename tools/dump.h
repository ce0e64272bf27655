/* SPDX-License-Identifier: MIT */
/*
 * tools/dump.h - the parts of `etwforge dump` that live in files of their own.
 */
#ifndef TOOLS_DUMP_H
#define TOOLS_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * dump_stats - `dump --stats`: count @f (etwforge_file_stats()) and print
 * the counts as text, or (@json) as one JSON object.
 * Return: the exit status.
 */
int dump_stats(struct etwforge_file *f, bool json);

/**
 * struct draw_opts - what `dump --timeline / --chrome-trace` was asked.
 * @input:      the ETL file drawn, as given ("-" = standard input): no
 *              output may be it
 * @timeline:   the SVG file (NULL: none)
 * @chrome:     the Chrome trace-event JSON file (NULL: none)
 * @from_ns/@to_ns: the window, ns since the session start, if @have_from/@have_to
 * @cpu_mask:   bit c of byte c / 8 set for each CPU to show (NULL: all)
 * @keep_going: draw what is readable of a damaged file (exit status 1)
 * @truth:      the truth stream whose thread groups name the threads (NULL: none)
 */
struct draw_opts {
	const char *input;
	const char *timeline;
	const char *chrome;
	const char *truth;
	bool have_from;
	bool have_to;
	int64_t from_ns;
	int64_t to_ns;
	const uint8_t *cpu_mask;
	bool keep_going;
};

/**
 * dump_draw - write the pictures @o asks for of @f (dump_draw.c).
 * Return: the exit status.
 */
int dump_draw(struct etwforge_file *f, const struct draw_opts *o);

#endif /* TOOLS_DUMP_H */
