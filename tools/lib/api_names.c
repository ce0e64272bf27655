// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_names.c - the public thread names, handed to the run room
 * (tools/lib/run/names.h).
 */
#include "tools/lib/api.h"
#include "tools/lib/run/names.h"

struct etwforge_names *etwforge_names_load(const char *truth, struct etwforge_error *err)
{
	return run_names_load(truth, err);
}

int etwforge_names_check(const struct etwforge_names *n, struct etwforge_file *f,
			 struct etwforge_error *err)
{
	return run_names_check(n, f, err);
}

const char *etwforge_names_group(const struct etwforge_names *n, uint32_t tid)
{
	return run_names_group(n, tid);
}

void etwforge_names_free(struct etwforge_names *n)
{
	run_names_free(n);
}
