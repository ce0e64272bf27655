/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_flame.h - `dump --flamegraph OUT.svg` and `--folded
 * OUT.txt` (dump_flame.c): the library's call tree of the samples
 * (etwforge_analysis_call_node()) drawn as a flame graph, the whole trace
 * and then its busiest processes, or written as the folded stacks that
 * flame graph tools read ("process;outer;...;inner count" a line).
 */
#ifndef TOOLS_CLI_DUMP_FLAME_H
#define TOOLS_CLI_DUMP_FLAME_H

#include <stdio.h>

#include "etwforge/etwforge.h"

/**
 * flame_svg - the flame graph of @an's samples (read to its end, FULL
 * detail) into @out, @title naming the file.
 * Return: 0, or -ENOMEM.
 */
int flame_svg(FILE *out, struct etwforge_analysis *an, const char *title);

/**
 * flame_folded - the folded stacks of @an's samples into @out, one line
 * per place samples ended (self count), in the tree's order.
 * Return: 0, or -ENOMEM.
 */
int flame_folded(FILE *out, struct etwforge_analysis *an);

#endif /* TOOLS_CLI_DUMP_FLAME_H */
