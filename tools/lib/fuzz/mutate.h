/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fuzz/mutate.h - the structure-aware mutator (mutate.c): the
 * etwforge_mutator_*() calls hand through to these.
 */
#ifndef ETWFORGE_TOOLS_LIB_FUZZ_MUTATE_H
#define ETWFORGE_TOOLS_LIB_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

struct etwforge_mutator *fuzz_mutator_new(const struct etwforge_mutator_opts *opts);
void fuzz_mutator_reseed(struct etwforge_mutator *m, uint64_t seed);
size_t fuzz_mutator_mutate(struct etwforge_mutator *m, const uint8_t *in, size_t len,
			   const uint8_t *other, size_t other_len, size_t max, const uint8_t **out);
const char *fuzz_mutator_describe(const struct etwforge_mutator *m);
void fuzz_mutator_free(struct etwforge_mutator *m);

#endif
