/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/names.h - which thread group each TID of a file belongs to,
 * from the truth gen wrote with it, and whether that truth is the file's
 * (names.c). The public etwforge_names_*() hand through to these.
 */
#ifndef ETWFORGE_TOOLS_LIB_RUN_NAMES_H
#define ETWFORGE_TOOLS_LIB_RUN_NAMES_H

#include <stdint.h>

#include "etwforge/etwforge.h"

struct etwforge_names *run_names_load(const char *truth, struct etwforge_error *err);
int run_names_check(const struct etwforge_names *n, struct etwforge_file *f,
		    struct etwforge_error *err);
const char *run_names_group(const struct etwforge_names *n, uint32_t tid);
void run_names_free(struct etwforge_names *n);

#endif
