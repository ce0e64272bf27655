/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/symbols.h - gen --symbols: Breakpad text symbol files of the
 * scenario's images (symbols.c).
 */
#ifndef TOOLS_LIB_RUN_SYMBOLS_H
#define TOOLS_LIB_RUN_SYMBOLS_H

#include <stddef.h>

#include "scheduler_model/modules.h"
#include "tools/lib/common/error.h"

/**
 * run_write_symbols - one file per image of @c with a PDB identity (an image
 * in several processes once), DIR/<pdb name>/<GUID><age>/<pdb stem>.sym,
 * folders made as needed.
 * Return: 0, or a negative errno with @err (ERR_DATA; a PDB name that is no
 * file name: ERR_INPUT).
 */
int run_write_symbols(const struct mod_cfg *c, const char *dir, struct etwforge_error *err);

#endif /* TOOLS_LIB_RUN_SYMBOLS_H */
