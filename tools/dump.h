/* SPDX-License-Identifier: MIT */
/*
 * tools/dump.h - the parts of `etwforge dump` that live in files of their own.
 */
#ifndef TOOLS_DUMP_H
#define TOOLS_DUMP_H

#include <stdbool.h>

#include "etwforge/etwforge.h"

/**
 * dump_stats - `dump --stats`: count @f (etwforge_file_stats()) and print
 * the counts as text, or (@json) as one JSON object.
 * Return: the exit status.
 */
int dump_stats(struct etwforge_file *f, bool json);

#endif /* TOOLS_DUMP_H */
