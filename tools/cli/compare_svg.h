/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/compare_svg.h - the picture of `etwforge compare --svg`
 * (compare_svg.c): the distance of every trait as a bar, then each
 * distribution and mix of the two traces overlaid, one panel each.
 */
#ifndef TOOLS_CLI_COMPARE_SVG_H
#define TOOLS_CLI_COMPARE_SVG_H

#include <stddef.h>

#include "etwforge/etwforge.h"

/**
 * compare_svg_write - draw @a (named @name_a) beside @b (@name_b) into the
 * SVG file @out, written whole or not at all (never over @input_a or
 * @input_b). Return: EXIT_OK, or the exit status of the error it said.
 */
int compare_svg_write(const char *out, const struct etwforge_traits *a,
		      const struct etwforge_traits *b, const char *name_a, const char *name_b,
		      const char *input_a, const char *input_b);

/**
 * compare_value_text - trait @t's value as the table and the picture show
 * it ("-" absent; a share in %, a distribution by its median, a mix by its
 * most common category), in @buf.
 */
void compare_value_text(char *buf, size_t cap, const struct etwforge_trait *t);

#endif /* TOOLS_CLI_COMPARE_SVG_H */
